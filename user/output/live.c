// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The --live terminal view, on ncurses: its rows and histories, keyboard and output (live_draw.c draws). */
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

#define ESC_DELAY_MS 25		/* a lone Esc is not the start of an arrow key after this */

static const int sort_cycle[] = { SH_SORT_SUM, SH_SORT_COUNT, SH_SORT_AVG, SH_SORT_P99,
				  SH_SORT_MAX };

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

static void sort_rows(struct live *lv)
{
	qsort_r(lv->rows, lv->nrows, sizeof(*lv->rows), cmp_rows, &lv->sort);
}

/* The keyboard (loop_watch): all keys waiting, then one redraw. */
static void on_input(void *arg)
{
	struct live *lv = arg;
	size_t page = LINES > LIVE_HEAD_LINES + 1 ? (size_t)(LINES - LIVE_HEAD_LINES - 1) : 1;
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
		live_draw(lv);
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
	/* Warnings while the view is up would be drawn over: held, written once it is down. */
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
	live_draw(lv);
	return 0;
}

/* Take report @r (copied), then redraw unless paused. 0, or -1 when out of memory. */
static int live_update(struct live *lv, const struct report *r)
{
	/* all keys, not only --top: "s" may rank any of them first */
	size_t i, n = r->nall;

	/* Paused: the display stays, even on a resize; reports meanwhile are trend gaps. */
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
		live_draw(lv);
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
