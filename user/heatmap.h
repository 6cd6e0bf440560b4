/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Latency heatmap: time on x (one column per report), wait buckets on y
 * (the grid of schedhist.h), colour by count; written as a self-contained
 * SVG (no scripts), and rewritten atomically after every report
 * (atomic_file.h). It shows the latest HEATMAP_MAX_COLUMNS reports: the
 * file and the time to rewrite it stay bounded however long the run.
 */
#ifndef SH_HEATMAP_H
#define SH_HEATMAP_H

#include <stdio.h>
#include <time.h>
#include "report.h"
#include "atomic_file.h"

/* Columns kept: the latest reports (10 minutes at -i 1, 50 at the default 5 s). */
#define HEATMAP_MAX_COLUMNS 600

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
	struct hm_column *cols;		/* HEATMAP_MAX_COLUMNS, the oldest first */
	size_t ncols;			/* in use */
	__u64 total;			/* reports added since start */
	struct atomic_file file;	/* the writer of @path */
};

/* What the heatmap shows, and where. */
struct heatmap_spec {
	const char *path;		/* SVG file */
	const char *key;		/* group shown (as reports print it), NULL = all */
	int metric;			/* enum sh_metric, for the title */
	int key_type;			/* enum sh_key_type, for the title */
	int unit;			/* enum sh_unit, for the axis labels */
	bool cumulative;		/* reports are since start */
};

/*
 * Set up from @sp: checks the path and opens its directory, writes
 * nothing. 0, or -1 with the reason in @err.
 */
int heatmap_init(struct sh_heatmap *hm, const struct heatmap_spec *sp, char *err,
		 size_t errlen);
/* Add a column from report @r (the group named hm->key, or all). */
int heatmap_add(struct sh_heatmap *hm, const struct sh_report *r);
/* Write the SVG to @f. */
void heatmap_svg(FILE *f, const struct sh_heatmap *hm);
/* The first write, once privileges are final: 0 or -errno (the caller says why). */
int heatmap_write_first(struct sh_heatmap *hm);
/*
 * Rewrite hm->path (atomic_file_update(): a failure is warned once and the
 * last good file stays). 0, or -ENOMEM.
 */
int heatmap_write(struct sh_heatmap *hm);
void heatmap_free(struct sh_heatmap *hm);

#endif /* SH_HEATMAP_H */
