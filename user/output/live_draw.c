// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The --live view's screen: columns fitted to the terminal, rows, sparklines (live.h). */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/live.h"
#include "output/render_extra.h"
#include "output/render.h"
#include "lib/escape.h"
#include "lib/util.h"

#define KEY_W_MAX 32		/* the key column, at most */
#define NUM_W 9			/* each value column: 8 characters and a space */
#define COUNT_W 11
#define MAXBY_W 24		/* "tid comm" */
#define CULPRIT_W 22	/* TOP_CULPRIT: key and share */
#define SPARK_MIN 10		/* a shorter trend is not shown */

static const char *const sort_word[] = { "sum", "count", "avg", "p99", "max" };

static void put_wait(char *line, size_t n, size_t *at, __u64 ns, int unit, int w)
{
	char v[32];

	fmt_wait(v, sizeof(v), ns, unit);
	if (*at < n)
		*at += (size_t)snprintf(line + *at, n - *at, "%*s", w, v);
}

/* One scale for all rows: the smallest non-zero and largest p99 of their last @w intervals. */
static void spark_range(const struct live *lv, size_t n, int w, __u64 *lo, __u64 *hi)
{
	size_t i;
	__u64 v;
	int k;

	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < n; i++)
		for (k = 0; lv->rows[i].hist && k < w && (__u64)k < lv->updates; k++) {
			v = lv->rows[i].hist->p99[(lv->updates - (__u64)k) % LIVE_SPARK];
			if (v && v < *lo)
				*lo = v;
			if (v > *hi)
				*hi = v;
		}
}

/* @h's sparkline over @w intervals, log scale in [@lo, @hi]; blank where no wait or p99 0. */
static void sparkline(const struct live *lv, const struct live_hist *h, int w, __u64 lo,
		      __u64 hi)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = "_.-:=+*#";
	__u64 v;
	int k, level;

	for (k = w - 1; k >= 0; k--) {
		v = (__u64)k < lv->updates ? h->p99[(lv->updates - (__u64)k) % LIVE_SPARK] : 0;
		if (!v) {
			addch(' ');
			continue;
		}
		level = hi > lo ? (int)lround(7.0 * (log((double)v) - log((double)lo)) /
					      (log((double)hi) - log((double)lo)))
				: 3;
		if (lv->utf8)
			addstr(blocks[level]);
		else
			addch((chtype)ascii[level]);
	}
}

struct live_cols {
	int key_w, maxby_w, culp_w, spark_w;
};

/* Key and five values first; max-by, then top culprit, when a trend fits too; trend in the rest. */
static void layout_cols(const struct live *lv, size_t nvis, int ncols, struct live_cols *c)
{
	const char *kname = key_name(lv->spec.key_type);
	int need;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->key_w = 4;
	for (i = 0; i < nvis; i++)
		if ((int)strlen(lv->rows[i].name) > c->key_w)
			c->key_w = (int)strlen(lv->rows[i].name);
	if (c->key_w < (int)strlen(kname))
		c->key_w = (int)strlen(kname);
	if (c->key_w > KEY_W_MAX)
		c->key_w = KEY_W_MAX;
	need = c->key_w + COUNT_W + 5 * NUM_W;
	if (need > ncols - 1) {
		c->key_w -= need - (ncols - 1);
		if (c->key_w < 4)
			c->key_w = 4;
		need = c->key_w + COUNT_W + 5 * NUM_W;
	}
	if (ncols - 1 - need >= MAXBY_W + 2 + SPARK_MIN + 2) {
		c->maxby_w = MAXBY_W;
		need += c->maxby_w + 2;
	}
	for (i = 0; i < lv->nrows && !c->culp_w; i++)
		if (lv->rows[i].culprit[0])
			c->culp_w = CULPRIT_W;
	if (c->culp_w && ncols - 1 - need >= c->culp_w + 2 + SPARK_MIN + 2)
		need += c->culp_w + 2;
	else
		c->culp_w = 0;
	if (ncols - 1 - need >= SPARK_MIN + 2) {
		c->spark_w = ncols - 1 - need - 2;
		if (c->spark_w > LIVE_SPARK)
			c->spark_w = LIVE_SPARK;
	}
}

static void draw_header(const struct live *lv, int ncols)
{
	const struct live_spec *o = &lv->spec;
	char line[1024], ts[32];
	struct tm tm;

	localtime_r(&lv->when.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	snprintf(line, sizeof(line), " schedhist  %s  per %s  every %.3g s  host %s  %s",
		 metric_words(lv->metric), key_name(o->key_type), (double)o->interval_ns / 1e9,
		 lv->host, lv->updates ? ts : "");
	attron(A_REVERSE);
	mvhline(0, 0, ' ', ncols);
	mvaddnstr(0, 0, line, ncols);
	attroff(A_REVERSE);
	/* PAUSED first: a narrow terminal cuts the end of the line */
	snprintf(line, sizeof(line), "%s report %" PRIu64 "   waits %" PRIu64 "   events seen %" PRIu64 ", lost %" PRIu64
		 "   keys %zu   sort: %s   waits in %s", lv->paused ? " PAUSED (p resumes) " : "",
		 (uint64_t)lv->updates, (uint64_t)lv->waits, (uint64_t)lv->seen,
		 (uint64_t)lv->lost, lv->nrows, sort_word[lv->sort], unit_name(o->unit));
	if (lv->paused)
		attron(A_BOLD);
	mvaddnstr(1, 0, line, ncols);
	if (lv->paused)
		attroff(A_BOLD);
	if (!lv->updates)
		mvaddnstr(2, 0, " waiting for the first interval...", ncols);
}

static void draw_titles(const struct live *lv, const struct live_cols *c, int ncols)
{
	char line[1024];
	size_t at;

	at = (size_t)snprintf(line, sizeof(line), "%-*.*s%*s%*s%*s%*s%*s", c->key_w, c->key_w,
			      key_name(lv->spec.key_type), COUNT_W,
			      lv->sort == SH_SORT_COUNT ? "*COUNT" : "COUNT", NUM_W,
			      lv->sort == SH_SORT_AVG ? "*AVG" : "AVG", NUM_W, "P50", NUM_W,
			      lv->sort == SH_SORT_P99 ? "*P99" : "P99", NUM_W,
			      lv->sort == SH_SORT_MAX ? "*MAX" : "MAX");
	if (c->maxby_w && at < sizeof(line))
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-*s", c->maxby_w, "MAX_BY");
	if (c->culp_w && at < sizeof(line))
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-*s", c->culp_w,
				       "TOP_CULPRIT");
	if (c->spark_w && at < sizeof(line))
		snprintf(line + at, sizeof(line) - at, "  P99, last %d", c->spark_w);
	attron(A_BOLD);
	mvaddnstr(LIVE_HEAD_LINES - 1, 0, line, ncols);
	attroff(A_BOLD);
}

static void draw_row(struct live *lv, const struct live_row *r, const struct live_cols *c,
		     int y, int ncols, __u64 spark_lo, __u64 spark_hi)
{
	int unit = lv->spec.unit;
	char line[1024];
	size_t at;

	at = (size_t)snprintf(line, sizeof(line), "%-*.*s%*" PRIu64, c->key_w, c->key_w, r->name,
			      COUNT_W, (uint64_t)r->count);
	put_wait(line, sizeof(line), &at, r->avg, unit, NUM_W);
	put_wait(line, sizeof(line), &at, r->p50, unit, NUM_W);
	put_wait(line, sizeof(line), &at, r->p99, unit, NUM_W);
	put_wait(line, sizeof(line), &at, r->max, unit, NUM_W);
	if (c->maxby_w && at < sizeof(line)) {
		char by[96];

		if (r->max_tid)
			snprintf(by, sizeof(by), "%u %s", r->max_tid, r->max_comm);
		else
			by[0] = '\0';
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-*.*s", c->maxby_w,
				       c->maxby_w, by);
	}
	if (c->culp_w && at < sizeof(line))
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %-*.*s", c->culp_w,
				       c->culp_w, r->culprit);
	mvaddnstr(y, 0, line, ncols);
	if (c->spark_w && r->hist && (int)at + 2 + c->spark_w <= ncols) {
		move(y, (int)at + 2);
		sparkline(lv, r->hist, c->spark_w, spark_lo, spark_hi);
	}
}

static void draw_footer(const struct live *lv, size_t nvis, size_t shown, int ncols,
			int nlines)
{
	char line[1024];

	snprintf(line, sizeof(line), " Up/Down/PgUp/PgDn scroll  s sort  p pause  q quit   "
		 "keys %zu-%zu of %zu", nvis ? lv->scroll + 1 : 0,
		 lv->scroll + (shown < nvis - lv->scroll ? shown : nvis - lv->scroll), nvis);
	attron(A_REVERSE);
	mvhline(nlines - 1, 0, ' ', ncols);
	mvaddnstr(nlines - 1, 0, line, ncols);
	attroff(A_REVERSE);
}

void live_draw(struct live *lv)
{
	int ncols = COLS, nlines = LINES, y;
	/* --top: the first N in the current order */
	size_t nvis = lv->spec.top && lv->spec.top < lv->nrows ? lv->spec.top : lv->nrows;
	size_t i, shown, max_scroll;
	__u64 spark_lo = 0, spark_hi = 0;
	struct live_cols c;

	erase();
	layout_cols(lv, nvis, ncols, &c);
	draw_header(lv, ncols);
	draw_titles(lv, &c, ncols);
	if (c.spark_w)
		spark_range(lv, nvis, c.spark_w, &spark_lo, &spark_hi);
	shown = nlines > LIVE_HEAD_LINES + 1 ? (size_t)(nlines - LIVE_HEAD_LINES - 1) : 0;
	max_scroll = nvis > shown ? nvis - shown : 0;
	if (lv->scroll > max_scroll)
		lv->scroll = max_scroll;
	for (i = lv->scroll, y = LIVE_HEAD_LINES; i < nvis && y < nlines - 1; i++, y++)
		draw_row(lv, &lv->rows[i], &c, y, ncols, spark_lo, spark_hi);
	draw_footer(lv, nvis, shown, ncols, nlines);
	refresh();
}
