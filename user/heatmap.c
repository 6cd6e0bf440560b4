// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The SVG latency heatmap. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heatmap.h"
#include "render.h"
#include "escape.h"

#define CELL_W 14	/* px per column */
#define CELL_H 14	/* px per bucket row */
#define LEFT 90		/* room for the y labels */
#define TOP 46		/* room for the title */
#define BOTTOM 58	/* room for the x labels */
#define RIGHT 120	/* room for the colour legend */
#define MIN_W 660	/* the title's width */

int heatmap_init(struct sh_heatmap *hm, const struct options *o)
{
	memset(hm, 0, sizeof(*hm));
	hm->path = o->heatmap;
	hm->key = o->heatmap_key;
	if (hm->key) {
		/* the key as the reports print it: escapes stand for the name's bytes */
		hm->key_raw = malloc(strlen(hm->key) + 1);
		if (!hm->key_raw)
			return -1;
		if (name_unescape(hm->key, hm->key_raw, strlen(hm->key) + 1))
			strcpy(hm->key_raw, hm->key);	/* not an escaped name: the bytes as given */
	}
	hm->metric = o->metric;
	hm->key_type = o->key_type;
	hm->unit = o->unit;
	hm->cumulative = o->cumulative;
	return 0;
}

void heatmap_free(struct sh_heatmap *hm)
{
	free(hm->cols);
	free(hm->key_raw);
	memset(hm, 0, sizeof(*hm));
}

static const struct sh_totals *pick(const struct sh_report *r, const char *key)
{
	size_t i;

	if (!key)
		return &r->all;
	for (i = 0; i < r->nall; i++)
		if (!strcmp(r->groups[i].name, key))
			return &r->groups[i].t;
	return NULL;
}

int heatmap_add(struct sh_heatmap *hm, const struct sh_report *r)
{
	const struct sh_totals *t = pick(r, hm->key_raw);
	struct hm_column *c;
	int i;

	if (hm->ncols == hm->cap) {
		size_t cap = hm->cap ? hm->cap * 2 : 64;
		struct hm_column *n = realloc(hm->cols, cap * sizeof(*n));

		if (!n)
			return -1;
		hm->cols = n;
		hm->cap = cap;
	}
	c = &hm->cols[hm->ncols++];
	memset(c, 0, sizeof(*c));
	c->when = r->when;
	c->span_s = r->span_s;
	for (i = 0; i < SH_NBUCKETS; i++) {
		__u64 v = t ? t->slots[i] : 0;

		if (hm->cumulative) {
			/* a since-start report: the column is what is new */
			c->slots[i] = v >= hm->prev[i] ? v - hm->prev[i] : 0;
			hm->prev[i] = v;
		} else {
			c->slots[i] = v;
		}
	}
	return 0;
}

/* Colour for @v of @max: light yellow to dark red on a log scale. */
static void colour(char *buf, size_t n, __u64 v, __u64 max)
{
	double x;
	int r, g, b;

	if (!v) {
		snprintf(buf, n, "#f4f4f4");
		return;
	}
	x = max > 1 ? log((double)v) / log((double)max) : 1.0;
	r = (int)(255 - 75 * x);
	g = (int)(237 - 220 * x);
	b = (int)(160 - 130 * x);
	snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

static void xml_text(FILE *f, const char *s)
{
	name_write(f, s, ESC_XML);
}

void heatmap_svg(FILE *f, const struct sh_heatmap *hm)
{
	int lo = SH_NBUCKETS, hi = -1, rows, i, y;
	__u64 max = 0;
	size_t c;
	int w, h;
	char col[16], a[32], b[32];

	for (c = 0; c < hm->ncols; c++)
		for (i = 0; i < SH_NBUCKETS; i++) {
			if (!hm->cols[c].slots[i])
				continue;
			if (i < lo)
				lo = i;
			if (i > hi)
				hi = i;
			if (hm->cols[c].slots[i] > max)
				max = hm->cols[c].slots[i];
		}
	if (hi < 0) {
		lo = 10;	/* nothing recorded: show ~1 us to ~1 ms */
		hi = 20;
	}
	rows = hi - lo + 1;
	w = LEFT + (int)hm->ncols * CELL_W + RIGHT;
	if (w < MIN_W)
		w = MIN_W;	/* room for the title */
	h = TOP + rows * CELL_H + BOTTOM;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		w, h, w, h);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fputs("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">schedhist: ", f);
	xml_text(f, metric_words(hm->metric));
	fputs("</text>\n<text x=\"10\" y=\"36\">", f);
	if (hm->key) {
		fprintf(f, "%s = ", key_name(hm->key_type));
		xml_text(f, hm->key_raw);
	} else {
		fputs("all tasks", f);
	}
	fprintf(f, "; %zu interval(s); colour: waits per bucket per interval (log scale)</text>\n",
		hm->ncols);

	/* y axis: bucket lower bounds, short waits at the bottom */
	for (i = lo; i <= hi; i++) {
		y = TOP + (hi - i) * CELL_H;
		fmt_wait(a, sizeof(a), bucket_lo(i), hm->unit);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s</text>\n", LEFT - 6,
			y + CELL_H - 3, a, unit_name(hm->unit));
	}
	fprintf(f, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" "
		   "text-anchor=\"middle\">wait (log2 buckets)</text>\n",
		TOP + rows * CELL_H / 2, TOP + rows * CELL_H / 2);

	for (c = 0; c < hm->ncols; c++) {
		const struct hm_column *k = &hm->cols[c];
		int x = LEFT + (int)c * CELL_W;
		char ts[32];
		struct tm tm;

		localtime_r(&k->when.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		fprintf(f, "<g class=\"column\" data-index=\"%zu\" data-time=\"%s\">\n", c, ts);
		for (i = lo; i <= hi; i++) {
			y = TOP + (hi - i) * CELL_H;
			colour(col, sizeof(col), k->slots[i], max);
			fmt_wait(a, sizeof(a), bucket_lo(i), hm->unit);
			if (bucket_hi(i) == UINT64_MAX)
				snprintf(b, sizeof(b), "inf");
			else
				fmt_wait(b, sizeof(b), bucket_hi(i), hm->unit);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
				   "data-bucket=\"%d\" data-count=\"%llu\"><title>%s %s-%s %s: %llu"
				   "</title></rect>\n",
				x, y, CELL_W - 1, CELL_H - 1, col, i, (unsigned long long)k->slots[i],
				ts, a, b, unit_name(hm->unit), (unsigned long long)k->slots[i]);
		}
		fputs("</g>\n", f);
		/* x labels: every column when few, else about every 8th */
		if (hm->ncols <= 12 || c % 8 == 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\" transform=\"rotate(45 %d %d)\">%s</text>\n",
				x + 2, TOP + rows * CELL_H + 12, x + 2, TOP + rows * CELL_H + 12, ts);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (one column per "
		   "interval)</text>\n",
		LEFT + (int)hm->ncols * CELL_W / 2, h - 6);

	/* legend */
	for (i = 0; i < 5; i++) {
		__u64 v = max ? (__u64)llround(pow((double)max, i / 4.0)) : 0;

		colour(col, sizeof(col), i == 0 && !max ? 0 : v, max);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">%llu</text>\n",
			w - RIGHT + 16, TOP + i * 16, col, w - RIGHT + 32, TOP + i * 16 + 10,
			(unsigned long long)v);
	}
	fputs("</svg>\n", f);
}

int heatmap_write(const struct sh_heatmap *hm)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], copy[PATH_MAX];
	FILE *f;
	int fd, err;

	if (snprintf(copy, sizeof(copy), "%s", hm->path) >= (int)sizeof(copy)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	snprintf(tmp, sizeof(tmp), "%s/.schedhist-heatmap.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	heatmap_svg(f, hm);
	if (fflush(f) || ferror(f) || fclose(f)) {
		err = errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	if (rename(tmp, hm->path)) {
		err = errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}
