// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The SVG latency heatmap. */
#include <errno.h>
#include <fcntl.h>
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

int heatmap_init(struct sh_heatmap *hm, const struct heatmap_spec *sp, char *err,
		 size_t errlen)
{
	memset(hm, 0, sizeof(*hm));
	hm->file.dirfd = -1;
	hm->path = sp->path;
	hm->key = sp->key;
	if (hm->key) {
		/* the key as the reports print it: escapes stand for the name's bytes */
		hm->key_raw = malloc(strlen(hm->key) + 1);
		if (!hm->key_raw) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (name_unescape(hm->key, hm->key_raw, strlen(hm->key) + 1))
			strcpy(hm->key_raw, hm->key);	/* not an escaped name: the bytes as given */
	}
	hm->metric = sp->metric;
	hm->key_type = sp->key_type;
	hm->unit = sp->unit;
	hm->cumulative = sp->cumulative;
	hm->cols = calloc(HEATMAP_MAX_COLUMNS, sizeof(*hm->cols));
	if (!hm->cols) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* checks the path and opens its directory; nothing is written yet */
	return hm->path ? atomic_file_open(&hm->file, "--heatmap", hm->path, err, errlen) : 0;
}

void heatmap_free(struct sh_heatmap *hm)
{
	free(hm->cols);
	free(hm->key_raw);
	atomic_file_close(&hm->file);
	memset(hm, 0, sizeof(*hm));
	hm->file.dirfd = -1;
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

	/* a window of the latest columns: the oldest one makes room */
	if (hm->ncols == HEATMAP_MAX_COLUMNS) {
		memmove(hm->cols, hm->cols + 1, (HEATMAP_MAX_COLUMNS - 1) * sizeof(*hm->cols));
		hm->ncols--;
	}
	hm->total++;
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
		lo = 11;	/* nothing recorded: show ~1 us to ~1 ms */
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
	if (hm->total > hm->ncols)
		fprintf(f, "; the latest %zu of %llu intervals", hm->ncols,
			(unsigned long long)hm->total);
	else
		fprintf(f, "; %zu interval(s)", hm->ncols);
	fputs("; colour: waits per bucket per interval (log scale)</text>\n", f);

	/*
	 * y axis: each row's upper edge (the lower ones of rows 0 and 1 both
	 * read 0: 2^-30 s is under 1 ns), short waits at the bottom
	 */
	for (i = lo; i <= hi; i++) {
		y = TOP + (hi - i) * CELL_H;
		if (bucket_edge(i) == UINT64_MAX)
			snprintf(a, sizeof(a), "2^35 s");
		else
			fmt_wait(a, sizeof(a), bucket_edge(i), hm->unit);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s</text>\n", LEFT - 6,
			y + CELL_H - 3, a, bucket_edge(i) == UINT64_MAX ? "" : unit_name(hm->unit));
	}
	fprintf(f, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" "
		   "text-anchor=\"middle\">wait, up to (buckets of 2^i s)</text>\n",
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
			/* the bucket's edges: lo < wait <= hi */
			fmt_wait(a, sizeof(a), bucket_floor(i), hm->unit);
			if (bucket_edge(i) == UINT64_MAX)
				snprintf(b, sizeof(b), "2^35 s");
			else
				fmt_wait(b, sizeof(b), bucket_edge(i), hm->unit);
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

/* Render into memory, then one atomic rewrite. */
static int write_svg(struct sh_heatmap *hm, bool first)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	heatmap_svg(f, hm);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	err = first ? atomic_file_write(&hm->file, buf, len)
		    : atomic_file_update(&hm->file, buf, len);
	free(buf);
	return err;
}

int heatmap_write_first(struct sh_heatmap *hm)
{
	return write_svg(hm, true);
}

int heatmap_write(struct sh_heatmap *hm)
{
	int err = write_svg(hm, false);

	/* a failed write was warned about by atomic_file_update(): go on */
	return err == -ENOMEM ? err : 0;
}
