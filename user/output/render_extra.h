/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What --culprits, --stacks and cgroup accounting add to a group in text and JSON. */
#ifndef SH_RENDER_EXTRA_H
#define SH_RENDER_EXTRA_H

#include <stdio.h>
#include "model/report.h"
#include "lib/outbuf.h"

/* Text frames shown of a --stacks stack (the JSON has all of them). */
#define SH_TEXT_FRAMES 12

/* Text under a group's line: cgroup throttling and pressure, "waited behind", the max's stack. */
void extra_text(struct outbuf *b, const struct report_group *g, const struct report *r);

/* --summary: the TOP_CULPRIT column ("-" when none). */
void extra_top_culprit(char *buf, size_t n, const struct report_group *g);
/* --summary: the cause column @cause, a share of the group's split waits ("-": none). */
void extra_cause(char *buf, size_t n, const struct report_group *g, int cause);
/* --summary: @ns as a share of the report's span ("-" when @known is false). */
void extra_share(char *buf, size_t n, bool known, __u64 ns, const struct report *r);
/* The same for a pressure stall (wall time): at most 100%. */
void extra_pressure(char *buf, size_t n, bool known, __u64 ns, const struct report *r);

/* JSON: the group's fields of these features (each starting with a comma). */
void extra_json(struct outbuf *b, const struct report_group *g);

#endif /* SH_RENDER_EXTRA_H */
