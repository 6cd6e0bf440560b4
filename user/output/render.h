/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Renderers: read a report, write text or JSON. They never touch maps. */
#ifndef SH_RENDER_H
#define SH_RENDER_H

#include <stdio.h>
#include "model/report.h"
#include "lib/outbuf.h"
#include "lib/fmt.h"

struct render_spec {
	int unit;			/* enum unit of the waits shown */
	bool timestamp;			/* a time line before each report */
	bool summary;			/* one table line per key, no histograms */
	bool counters;			/* the event counters line (-v) */
	__u64 min_wait_ns;		/* histograms start at this bucket */
	bool culprits;			/* --culprits: the summary's TOP_CULPRIT column */
	bool causes;			/* --causes: the summary's cause columns */
};

/*
 * The JSON layout's version ("schema"): raised when a field changes meaning or goes, not when
 * one is added. docs/report.schema.json describes it.
 */
#define SH_JSON_SCHEMA 1

/* runqlat-style histograms (or the --summary table), appended to @b. */
void render_text(struct outbuf *b, const struct report *r, const struct render_spec *sp);
/* One JSON object on one line (JSON Lines), appended to @b: the report says everything. */
void render_json(struct outbuf *b, const struct report *r);

void fmt_rfc3339(char *buf, size_t n, const struct timespec *ts);

#endif /* SH_RENDER_H */
