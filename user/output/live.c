// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The --live terminal view, on ncurses. */
#include <curses.h>
#include <term.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/live.h"
#include "output/render_extra.h"
#include "output/render.h"
#include "lib/escape.h"
#include "lib/loop.h"
#include "lib/log.h"
#include "lib/exit_codes.h"
#include "lib/util.h"
#include "lib/hash.h"

#define KEY_W_MAX 32		/* the key column, at most */
#define NUM_W 9			/* each value column: 8 characters and a space */
#define COUNT_W 11
#define MAXBY_W 24		/* "tid comm" */
#define CULPRIT_W 22	/* TOP_CULPRIT: key and share */
#define SPARK_MIN 10		/* a shorter trend is not shown */
#define HEAD_LINES 4		/* two header lines, a blank one, the column titles */
#define ESC_DELAY_MS 25		/* a lone Esc is not the start of an arrow key after this */

static const int sort_cycle[] = { SH_SORT_SUM, SH_SORT_COUNT, SH_SORT_AVG, SH_SORT_P99,
				  SH_SORT_MAX };
static const char *const sort_word[] = { "sum", "count", "avg", "p99", "max" };

static int live_check(void)
{
	int err;

	if (!isatty(STDOUT_FILENO)) {
		pr_warn("--live draws on a terminal, and standard output is not one: for a pipe or "
			"a file use --summary -i DUR (or -j)\n");
		return -1;
	}
	/* the terminal type must be known before anything is loaded */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		pr_warn("--live: the terminal type '%s' is unknown (set TERM, e.g. TERM=xterm)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	del_curterm(cur_term);
	return 0;
}

static int grow_table(struct live *lv)
{
	size_t n = lv->nbuckets ? lv->nbuckets * 2 : 256, i;
	struct live_hist **t = calloc(n, sizeof(*t)), *e, *next;

	if (!t)
		return -1;
	for (i = 0; i < lv->nbuckets; i++)
		for (e = lv->table[i]; e; e = next) {
			next = e->next;
			e->next = t[hash_bytes(e->name, strlen(e->name)) & (n - 1)];
			t[hash_bytes(e->name, strlen(e->name)) & (n - 1)] = e;
		}
	free(lv->table);
	lv->table = t;
	lv->nbuckets = n;
	return 0;
}

/* The history of @name, made if new; NULL when out of memory. */
static struct live_hist *hist_of(struct live *lv, const char *name)
{
	struct live_hist *e;
	size_t b;

	if (lv->nhist >= 2 * lv->nbuckets && grow_table(lv))
		return NULL;
	b = hash_bytes(name, strlen(name)) & (lv->nbuckets - 1);
	for (e = lv->table[b]; e; e = e->next)
		if (!strcmp(e->name, name))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->next = lv->table[b];
	lv->table[b] = e;
	lv->nhist++;
	return e;
}

/* A new interval: every history's newest point cleared; keys gone LIVE_SPARK intervals dropped. */
static void hist_tick(struct live *lv)
{
	struct live_hist **pp, *e;
	size_t i;

	for (i = 0; i < lv->nbuckets; i++)
		for (pp = &lv->table[i]; (e = *pp);) {
			if (lv->updates - e->last >= LIVE_SPARK) {
				*pp = e->next;
				free(e);
				lv->nhist--;
				continue;
			}
			e->p99[lv->updates % LIVE_SPARK] = 0;
			pp = &e->next;
		}
}

static __u64 sort_value(const struct live_row *r, int sort)
{
	switch (sort) {
	case SH_SORT_COUNT:
		return r->count;
	case SH_SORT_AVG:
		return r->avg;
	case SH_SORT_P99:
		return r->p99;
	case SH_SORT_MAX:
		return r->max;
	default:
		return r->sum;
	}
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct live_row *x = a, *y = b;
	int sort = *(const int *)arg;
	__u64 u = sort_value(x, sort), v = sort_value(y, sort);

	if (u != v)
		return u > v ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One value column: "  16.8" right-aligned in @w. */
static void put_wait(char *line, size_t n, size_t *at, __u64 ns, int unit, int w)
{
	char v[32];

	fmt_wait(v, sizeof(v), ns, unit);
	if (*at < n)
		*at += (size_t)snprintf(line + *at, n - *at, "%*s", w, v);
}

/*
 * The smallest non-zero and the largest p99 of the @n rows over the
 * latest @w intervals: one scale for every row, so bars compare across
 * rows (a row of tiny waits draws low bars, not full ones).
 */
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

/*
 * The sparkline of @h over the latest @w intervals, log scale between
 * @lo and @hi (spark_range()); an interval without waits, or whose p99 is
 * 0, is blank.
 */
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

/* The widths of the table's columns in a terminal of @ncols; 0: the column does not fit. */
struct live_cols {
	int key_w, maxby_w, culp_w, spark_w;
};

/*
 * The key and the five values first; who had the max when a trend fits
 * too, the top culprit (--culprits) likewise; the trend in what is left.
 */
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

/* The two header lines (what, where, when; the counts and the sort). */
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

/* The column titles; the sort column marked. */
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
	mvaddnstr(HEAD_LINES - 1, 0, line, ncols);
	attroff(A_BOLD);
}

/* Row @r of the table on line @y, its trend scaled to [@spark_lo, @spark_hi]. */
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

/* The footer: the keys, the rows shown of @nvis (@shown from the scroll position). */
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

static void draw(struct live *lv)
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
	/* rows, from @scroll */
	shown = nlines > HEAD_LINES + 1 ? (size_t)(nlines - HEAD_LINES - 1) : 0;
	max_scroll = nvis > shown ? nvis - shown : 0;
	if (lv->scroll > max_scroll)
		lv->scroll = max_scroll;
	for (i = lv->scroll, y = HEAD_LINES; i < nvis && y < nlines - 1; i++, y++)
		draw_row(lv, &lv->rows[i], &c, y, ncols, spark_lo, spark_hi);
	draw_footer(lv, nvis, shown, ncols, nlines);
	refresh();
}

static void sort_rows(struct live *lv)
{
	qsort_r(lv->rows, lv->nrows, sizeof(*lv->rows), cmp_rows, &lv->sort);
}

/* The keyboard (loop_watch): all keys waiting, then one redraw. */
static void on_input(void *arg)
{
	struct live *lv = arg;
	size_t page = LINES > HEAD_LINES + 1 ? (size_t)(LINES - HEAD_LINES - 1) : 1;
	bool redraw = false;
	size_t k;
	int ch;

	while ((ch = getch()) != ERR) {
		redraw = true;
		switch (ch) {
		case 'q':
		case 'Q':
			loop_request_stop();
			return;
		case 's':
		case 'S':
			for (k = 0; k < ARRAY_SIZE(sort_cycle); k++)
				if (sort_cycle[k] == lv->sort)
					break;
			lv->sort = sort_cycle[(k + 1) % ARRAY_SIZE(sort_cycle)];
			sort_rows(lv);
			break;
		case 'p':
		case 'P':
		case ' ':
			lv->paused = !lv->paused;
			break;
		case KEY_DOWN:
			lv->scroll++;
			break;
		case KEY_UP:
			if (lv->scroll)
				lv->scroll--;
			break;
		case KEY_NPAGE:
			lv->scroll += page;
			break;
		case KEY_PPAGE:
			lv->scroll = lv->scroll > page ? lv->scroll - page : 0;
			break;
		case KEY_HOME:
			lv->scroll = 0;
			break;
		case KEY_END:
			lv->scroll = lv->nrows;	/* draw() brings it back to the last page */
			break;
		default:	/* KEY_RESIZE included: ncurses has the new size */
			break;
		}
	}
	if (redraw)
		draw(lv);
}

static int live_start(void *ctx, const char *as_user)
{
	struct live *lv = ctx;

	if (gethostname(lv->host, sizeof(lv->host) - 1))
		snprintf(lv->host, sizeof(lv->host), "?");
	/* characters only: numbers keep the C locale's decimal point */
	setlocale(LC_CTYPE, "");
	lv->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	ESCDELAY = ESC_DELAY_MS;
	lv->screen = newterm(NULL, stdout, stdin);
	if (!lv->screen) {
		pr_warn("--live: cannot set up the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return SH_EXIT_FAIL;
	}
	lv->started = true;
	/*
	 * Warnings written while the view is up would be drawn over it and
	 * stay until overwritten: they are kept in a file and written out
	 * once the terminal is given back.
	 */
	lv->held = tmpfile();
	lv->stderr_fd = lv->held ? dup(STDERR_FILENO) : -1;
	if (lv->stderr_fd >= 0)
		dup2(fileno(lv->held), STDERR_FILENO);
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	/* keys only from a terminal: a file or /dev/null would read as always ready */
	if (isatty(STDIN_FILENO))
		loop_watch(STDIN_FILENO, on_input, lv);
	draw(lv);
	return 0;
}

/* Take report @r (copied), then redraw unless paused. 0, or -1 when out of memory. */
static int live_update(struct live *lv, const struct report *r)
{
	/* all keys, not only --top: "s" may rank any of them first */
	size_t i, n = r->nall;

	/*
	 * paused: the display stays as it was, whatever redraws it (a
	 * resize); the reports meanwhile become gaps in the trends
	 */
	if (lv->paused) {
		lv->missed++;
		return 0;
	}
	for (; lv->missed; lv->missed--) {
		lv->updates++;
		hist_tick(lv);
	}
	if (n > lv->cap) {
		struct live_row *rows = realloc(lv->rows, n * sizeof(*rows));

		if (!rows)
			return -1;
		lv->rows = rows;
		lv->cap = n;
	}
	lv->updates++;
	hist_tick(lv);
	lv->nrows = 0;
	for (i = 0; i < n; i++) {
		const struct report_group *g = &r->groups[i];
		struct live_row *w = &lv->rows[lv->nrows];
		struct live_hist *h;

		if (name_escape(w->name, sizeof(w->name) - 3, g->name) >= sizeof(w->name) - 3)
			strcat(w->name, "..");
		w->sum = g->t.sum_ns;
		w->count = g->t.count;
		w->avg = g->t.count ? g->t.sum_ns / g->t.count : 0;
		w->p50 = g->pct.p50;
		w->p99 = g->pct.p99;
		w->max = g->t.max_ns;
		w->max_tid = g->t.max_tid;
		name_escape(w->max_comm, sizeof(w->max_comm), g->t.max_comm);
		w->culprit[0] = '\0';
		if (g->culprits)
			extra_top_culprit(w->culprit, sizeof(w->culprit), g);
		h = hist_of(lv, w->name);
		if (!h)
			return -1;
		h->p99[lv->updates % LIVE_SPARK] = g->pct.p99;
		h->last = lv->updates;
		w->hist = h;
		lv->nrows++;
	}
	sort_rows(lv);
	lv->when = r->when;
	lv->span_s = r->span_s;
	lv->metric = r->metric;
	lv->seen = r->stats[SH_STAT_SEEN];
	lv->lost = report_lost(r);
	lv->waits = r->all.count;
	if (lv->started)
		draw(lv);
	return 0;
}

/* The terminal back as it was (and what stderr got meanwhile), everything freed. */
static void live_close(void *ctx)
{
	struct live *lv = ctx;
	struct live_hist *e, *next;
	size_t i;

	if (!lv)
		return;
	if (lv->started) {
		loop_watch(-1, NULL, NULL);
		endwin();
		delscreen(lv->screen);
	}
	/* a view never started has held nothing */
	if (lv->held && lv->stderr_fd >= 0) {
		char buf[4096];
		size_t n;

		fflush(stderr);
		dup2(lv->stderr_fd, STDERR_FILENO);
		close(lv->stderr_fd);
		rewind(lv->held);
		while ((n = fread(buf, 1, sizeof(buf), lv->held)) > 0)
			if (fwrite(buf, 1, n, stderr) != n)
				break;
	}
	if (lv->held)
		fclose(lv->held);
	for (i = 0; i < lv->nbuckets; i++)
		for (e = lv->table[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	free(lv->table);
	free(lv->rows);
	free(lv);
}

/* The first metric measured, as the heatmap. */
static enum out_status live_emit(void *ctx, const struct tick *t)
{
	if (live_update(ctx, &t->m[0].shown)) {
		pr_warn("out of memory\n");
		return OUT_FATAL;
	}
	return OUT_OK;
}

int live_output_open(struct output *out, const struct live_spec *sp)
{
	struct live *lv = calloc(1, sizeof(*lv));

	*out = (struct output){ .name = "--live", .ctx = lv, .start = live_start,
				   .emit = live_emit, .close = live_close };
	if (!lv || grow_table(lv)) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	lv->stderr_fd = -1;
	lv->spec = *sp;
	lv->sort = sp->sort;
	/* without a terminal, fail now, before anything is loaded */
	return live_check() ? SH_EXIT_USAGE : 0;
}
