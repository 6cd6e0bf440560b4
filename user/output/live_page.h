/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The live page of --listen, served at "/": the heatmap of the latest
 * LIVE_PAGE_COLUMNS intervals (all keys, inline SVG, heatmap.h) and a
 * table of the top LIVE_PAGE_ROWS keys of the latest report, ranked as
 * the reports are (--sort). The page loads nothing from elsewhere (no
 * external file, font or script), so it works offline. Its one inline
 * script fetches /live.json every interval, a few KB with just what the
 * table and the status line show, and rewrites them in place; the whole
 * page (with the heatmap, ~100 KB) is reloaded only every
 * LIVE_PAGE_RELOAD_S seconds. Without scripts it reloads itself every
 * interval (<noscript><meta http-equiv="refresh">). Both are rendered by
 * the poller after each report and handed to the HTTP server, which
 * serves the latest ones (http_publish_live()).
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

/* What the page shows. */
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
 * /live.json, what the page's script fetches: {"reading": RFC 3339 time of
 * the latest reading or "", "status": the status line, "rows": the table's
 * rows, each an array of its cells as the page shows them}, into @out
 * (emptied first). 0, or -1 when out of memory.
 */
int live_page_render_json(const struct live_page *lp, struct outbuf *out);

void live_page_free(struct live_page *lp);

#endif /* SH_LIVE_PAGE_H */
