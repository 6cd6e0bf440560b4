/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Strict parsers (command line, tests, fuzz): no space, sign or exponent; never clamped. */
#ifndef SH_PARSE_H
#define SH_PARSE_H

#include <linux/types.h>

/* A decimal integer in [@min, @max] into *@out. 0 or -1. */
int parse_u64(const char *s, __u64 min, __u64 max, __u64 *out);

/* A duration ("250ms", "1.5m"; bare: @dflt_unit_ns) into *@out_ns. 0 or -1 (also overflow). */
int parse_duration(const char *s, __u64 dflt_unit_ns, __u64 *out_ns);

/* "offcpu,runq" into a bit per metric: 0, or -1 with *@bad the unknown, empty or repeated one. */
int parse_metrics(const char *s, __u32 *out, const char **bad);

#endif /* SH_PARSE_H */
