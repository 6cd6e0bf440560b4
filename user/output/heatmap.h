/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Latency heatmap: a column per report, wait buckets on y, colour by count, p50/p99 lines; a
 * self-contained SVG rewritten atomically, the latest HEATMAP_MAX_COLUMNS reports.
 */
#ifndef SH_HEATMAP_H
#define SH_HEATMAP_H

#include <stdio.h>
#include <time.h>
#include "model/report.h"
#include "lib/atomic_file.h"

/* Columns kept: the latest reports (16 minutes at -i 1, 83 at -i 5). */
#define HEATMAP_MAX_COLUMNS 1000
/* Plot width aimed at: cells are HM_PLOT_W / columns px wide, 1 to HM_CELL_W_MAX. */
#define HM_PLOT_W 900

/* Bytes of the key shown in the title and warnings, longer ones cut. */
#define HM_KEY_SHOWN 64


struct hm_column {
	struct timespec when;		/* wall clock of the report */
	double span_s;			/* seconds the column covers */
	__u64 *buckets;			/* waits per bucket in that span (sh_nb) */
	__u64 max_ns;			/* longest wait of the span, 0 if unknown */
	bool seen;			/* the key was in the report */
};

struct heatmap {
	const char *path;		/* SVG file */
	const char *key;		/* group shown, NULL = all keys together */
	char *key_raw;			/* @key with its escapes (escape.h) decoded */
	int metric;			/* enum sh_metric, for the title */
	int key_type;			/* enum sh_key_type, for the title */
	int lines;			/* enum hm_lines bits (--heatmap-lines) */
	bool cumulative;		/* reports are since start: columns are differences */
	__u64 prev[SH_NBUCKETS_MAX];	/* cumulative mode: the previous report's totals */
	double prev_span;		/* cumulative mode: the previous report's span */
	struct hm_column *cols;		/* @max_cols of them, the oldest first */
	size_t max_cols;		/* HEATMAP_MAX_COLUMNS, or fewer (the live page) */
	size_t ncols;			/* in use */
	__u64 total;			/* reports added since start */
	bool key_seen;			/* @key was in some report */
	bool warned;			/* the "no such key" warning was given */
	bool inline_svg;		/* for an HTML page: no XML declaration */
	char host[72];			/* the host name, for the title */
	struct atomic_file file;	/* the writer of @path */
};

struct heatmap_spec {
	const char *path;		/* SVG file */
	const char *key;		/* group shown (as reports print it), NULL = all */
	int metric;			/* enum sh_metric, for the title */
	int key_type;			/* enum sh_key_type, for the title */
	int lines;			/* enum hm_lines bits: the percentile lines drawn */
	bool cumulative;		/* reports are since start */
};

/* Set up from @sp: check the path, open its directory, write nothing. 0, or -1 and @err. */
int heatmap_init(struct heatmap *hm, const struct heatmap_spec *sp, char *err,
		 size_t errlen);
/* The same kept in memory only (the live page): all keys, the latest @max_cols reports. 0 or -1. */
int heatmap_init_mem(struct heatmap *hm, const struct heatmap_spec *sp, size_t max_cols);
/* Add a column from @r (group hm->key, or all); warns once while no report had hm->key. */
int heatmap_add(struct heatmap *hm, const struct report *r);
void heatmap_svg(FILE *f, const struct heatmap *hm);
/* The first write, once privileges are final: 0 or -errno (the caller says why). */
int heatmap_write_first(struct heatmap *hm);
/* Rewrite hm->path (atomic_file_update()). 0, or -ENOMEM. */
int heatmap_write(struct heatmap *hm);
void heatmap_free(struct heatmap *hm);

#endif /* SH_HEATMAP_H */
