/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Latency heatmap: time on x (one column per report), log2 wait buckets on
 * y, colour by count; written as a self-contained SVG (no scripts), and
 * rewritten atomically after every report.
 */
#ifndef SH_HEATMAP_H
#define SH_HEATMAP_H

#include <stdio.h>
#include <time.h>
#include "report.h"

struct hm_column {
	struct timespec when;		/* wall clock of the report */
	double span_s;			/* seconds the column covers */
	__u64 slots[SH_NBUCKETS];	/* waits per bucket in that span */
};

struct sh_heatmap {
	const char *path;		/* SVG file */
	const char *key;		/* group shown, NULL = all keys together */
	char *key_raw;			/* @key with its escapes (escape.h) decoded */
	int metric;			/* enum sh_metric, for the title */
	int key_type;			/* enum sh_key_type, for the title */
	int unit;			/* enum sh_unit, for the axis labels */
	bool cumulative;		/* reports are since start: columns are differences */
	__u64 prev[SH_NBUCKETS];	/* cumulative mode: the previous report's totals */
	struct hm_column *cols;
	size_t ncols, cap;
};

int heatmap_init(struct sh_heatmap *hm, const struct options *o);
/* Add a column from report @r (the group named hm->key, or all). */
int heatmap_add(struct sh_heatmap *hm, const struct sh_report *r);
/* Write the SVG to @f. */
void heatmap_svg(FILE *f, const struct sh_heatmap *hm);
/* Write the SVG to hm->path atomically (temp file + rename). 0 or -1/errno. */
int heatmap_write(const struct sh_heatmap *hm);
void heatmap_free(struct sh_heatmap *hm);

#endif /* SH_HEATMAP_H */
