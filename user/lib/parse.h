/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Strict parsers of numbers, durations and metric lists: the command line,
 * the tests and the fuzz targets share them. No white space, no sign, no
 * exponent; a value out of range is refused, never clamped.
 */
#ifndef SH_PARSE_H
#define SH_PARSE_H

#include <linux/types.h>

/* A decimal integer in [@min, @max] into *@out. 0 or -1. */
int parse_u64(const char *s, __u64 min, __u64 max, __u64 *out);

/*
 * A duration "250ms", "5s", "1.5m", "10us", "100ns", "2h" into *@out_ns;
 * a bare number is in @dflt_unit_ns. 0 or -1 (also on overflow).
 */
int parse_duration(const char *s, __u64 dflt_unit_ns, __u64 *out_ns);

/*
 * Parse "offcpu,runq" into a bit per metric: 0, or -1 with *@bad the
 * element that is unknown (or empty) or named twice.
 */
int parse_metrics(const char *s, __u32 *out, const char **bad);

#endif /* SH_PARSE_H */
