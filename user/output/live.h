/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --live: a full-screen ncurses view redrawn after every report: one line per key sorted like
 * --summary, with a p99 sparkline; keys scroll, sort, pause, quit. Reads reports only.
 */
#ifndef SH_LIVE_H
#define SH_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include "model/report.h"
#include "output/output.h"

#define LIVE_SPARK 30		/* intervals of p99 history per key */
#define LIVE_NAME 96		/* bytes of a key's escaped name kept */

/* A key's p99 over the latest intervals, kept while it shows up. */
struct live_hist {
	struct live_hist *next;		/* hash chain */
	char name[LIVE_NAME];		/* escaped, cut */
	__u64 p99[LIVE_SPARK];		/* ring; 0: no waits that interval */
	__u64 last;			/* the update it last had waits in */
};

struct live_row {
	char name[LIVE_NAME];		/* escaped (escape.h), cut */
	__u64 sum, count, avg, p50, p99, max;	/* ns, as the report's */
	__u32 max_tid;
	char max_comm[64];		/* escaped */
	char culprit[64];		/* --culprits: the top one and its share, else "" */
	const struct live_hist *hist;	/* its sparkline */
};

struct live_spec {
	int key_type;			/* enum sh_key_type */
	int unit;			/* enum unit of the values */
	int sort;			/* enum sort_key to start with */
	__u32 top;			/* show the first N keys, 0 = all */
	__u64 interval_ns;		/* for the header */
};

struct live {
	struct live_spec spec;
	bool started;			/* the screen is ncurses' */
	void *screen;			/* ncurses' SCREEN */
	FILE *held;			/* stderr while the view is up, written out at the end */
	int stderr_fd;			/* the real stderr meanwhile, -1 if not moved */
	bool utf8;			/* the terminal takes block characters */
	int sort;			/* enum sort_key, "s" cycles it */
	bool paused;			/* "p": the display stays as it is */
	size_t scroll;			/* the first row shown */
	struct live_row *rows;		/* the latest report's keys, sorted by @sort */
	size_t nrows, cap;
	struct live_hist **table;	/* by name hash, @nbuckets chains */
	size_t nbuckets, nhist;
	__u64 updates;			/* reports seen; the histories' clock */
	__u64 missed;			/* reports that came while paused, not taken yet */
	/* the latest report's header */
	struct timespec when;
	double span_s;
	__u64 seen, lost, waits;
	int metric;
	char host[72];
};

/* The view as an output (output.h); checks for a terminal at open. 0, or an exit code after why. */
int live_output_open(struct output *out, const struct live_spec *sp);

/* Lines above the rows: two header lines, a blank one, the column titles. */
#define LIVE_HEAD_LINES 4

/* Redraw the terminal from @lv's rows (live_draw.c). */
void live_draw(struct live *lv);

#endif /* SH_LIVE_H */
