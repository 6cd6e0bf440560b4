/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The live page of --listen at "/": the latest intervals' heatmap and the top keys' table,
 * self-contained; its script refreshes the table from /live.json (docs/architecture.md).
 */
#ifndef SH_LIVE_PAGE_H
#define SH_LIVE_PAGE_H

#include <stddef.h>
#include "output/heatmap.h"
#include "model/report.h"
#include "lib/outbuf.h"

#define LIVE_PAGE_COLUMNS 120	/* intervals in the page's heatmap (10 minutes at 5 s) */
#define LIVE_PAGE_ROWS 20	/* keys in its table */
#define LIVE_PAGE_RELOAD_S 60	/* the whole page (the heatmap) is reloaded this often, at least */

/* A row of the table: a key of the latest report. */
struct lp_row {
	char name[160];			/* escaped (escape.h), cut */
	__u64 count, avg, p50, p90, p99, p999, max;	/* waits, ns */
	char throttled[16], psi_some[16];	/* -k cgroup: shares of the span, "-" when unknown */
	char culprit[192];		/* --culprits: the top culprit and its share, or "-" */
	__u32 max_tid;			/* who had the max */
	char max_comm[64];		/* escaped */
};

struct live_page_spec {
	struct heatmap_spec hm;		/* its heatmap (path and key unused: all keys) */
	int metric;			/* enum sh_metric shown: the first measured */
	int key_type;			/* enum sh_key_type */
	int unit;			/* enum unit of the table */
	__u64 interval_ns;		/* the table is fetched this often (rounded up to 1 s) */
	bool culprits;			/* --culprits (runq): a TOP_CULPRIT column, as --summary */
};

struct live_page {
	struct heatmap hm;		/* in memory only */
	struct live_page_spec spec;
	bool have_report;		/* a report was added */
	struct timespec when;		/* the latest report's reading */
	__u64 waits, lost;		/* its waits and lost events */
	struct lp_row rows[LIVE_PAGE_ROWS];	/* its top keys, ranked */
	size_t nrows;
};

/* 0, or -1 when out of memory. */
int live_page_init(struct live_page *lp, const struct live_page_spec *sp);

/* Add report @r (a column of the heatmap, the table). */
int live_page_add(struct live_page *lp, const struct report *r);

/* The page as it stands, into @out (emptied first). 0, or -1 when out of memory. */
int live_page_render(const struct live_page *lp, struct outbuf *out);

/*
 * /live.json for the page's script: {"reading": RFC 3339 or "", "status", "rows": arrays of
 * cells as shown}, into @out (emptied first). 0, or -1 when out of memory.
 */
int live_page_render_json(const struct live_page *lp, struct outbuf *out);

void live_page_free(struct live_page *lp);

#endif /* SH_LIVE_PAGE_H */
