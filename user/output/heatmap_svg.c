// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The heatmap's picture: layout and drawing of the SVG (heatmap.h). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/heatmap.h"
#include "output/render.h"
#include "lib/escape.h"
#include "lib/util.h"

/*
 * Layout in px. Text widths are estimated from DejaVu Sans' advances (0.64 em lower case and
 * digits, 0.8 em capitals, 1 em wide or non-ASCII, bold 1.12x): never short, so labels never meet.
 */
#define FONT 11			/* labels */
#define FONT_TITLE 14
#define HM_CELL_W_MAX 60	/* a column of a short run */
#define CELL_H_MIN 14		/* a row: one label of FONT px and a gap */
#define CELL_H_MAX 28
#define PLOT_H 420		/* rows share this height, within the bounds above */
#define PAD 10			/* canvas margin */
#define TOP 84			/* the title's three lines, the axis and legend titles */
#define TICK_GAP 14		/* least space between two x labels */
#define LEGEND_GAP 16		/* plot to legend */
#define LEGEND_W 96		/* the legend's least width */

static int text_w(size_t chars, int font)
{
	return (int)ceil((double)chars * 0.64 * font);
}

static int str_w(const char *s, int font, bool bold)
{
	double em = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x80)
			em += (c & 0xc0) == 0xc0 ? 1.0 : 0;	/* a lead byte: one character */
		else if (strchr("WMmw@%&", c))
			em += 1.0;
		else if (c >= 'A' && c <= 'Z')
			em += 0.8;
		else
			em += 0.64;
	}
	return (int)ceil(em * font * (bold ? 1.12 : 1.0));
}

/* Colour for @v of @max on a log scale through five YlOrRd stops; a count of 1 is never grey. */
static void colour(char *buf, size_t n, __u64 v, __u64 max)
{
	static const unsigned char stop[5][3] = {
		{ 0xfe, 0xd9, 0x76 }, { 0xfd, 0x8d, 0x3c }, { 0xf0, 0x3b, 0x20 },
		{ 0xbd, 0x00, 0x26 }, { 0x50, 0x00, 0x1e },
	};
	double x, f;
	int k, c[3], j;

	if (!v) {
		snprintf(buf, n, "#f4f4f4");
		return;
	}
	x = max > 1 ? 4.0 * log((double)v) / log((double)max) : 4.0;
	k = x >= 4.0 ? 3 : (int)x;
	f = x - k;
	for (j = 0; j < 3; j++)
		c[j] = (int)lround(stop[k][j] + (stop[k + 1][j] - stop[k][j]) * f);
	snprintf(buf, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* A wait in its best unit, 3 digits ("16.8"), unit in *@unit; @scale forces one (-1: none). */
static int human(char *buf, size_t n, __u64 ns, int scale, const char **unit)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	static const double div[] = { 1, 1e3, 1e6, 1e9 };
	int u = 0;
	double v;

	if (scale >= 0)
		u = scale;
	else
		while (u < 3 && (double)ns >= 999.5 * div[u])
			u++;
	v = (double)ns / div[u];
	snprintf(buf, n, "%.*f", v >= 99.95 || !u ? 0 : v >= 9.995 ? 1 : 2, v);
	*unit = units[u];
	return u;
}

/* A bucket's range in human units: "15.6-31.3 ms", "954 ns-1.91 us", ">= 524288 s". */
static void bucket_range(char *buf, size_t n, int i)
{
	char a[24], b[24];
	const char *ua, *ub;
	int u;

	if (bucket_hi(i) == UINT64_MAX) {
		human(a, sizeof(a), bucket_lo(i), -1, &ua);
		snprintf(buf, n, "\u2265 %s %s", a, ua);
		return;
	}
	/* one unit for both ends when they read in the same one */
	u = human(b, sizeof(b), bucket_hi(i), -1, &ub);
	if (!bucket_lo(i) || human(a, sizeof(a), bucket_lo(i), -1, &ua) == u) {
		human(a, sizeof(a), bucket_lo(i), u, &ua);
		snprintf(buf, n, "%s-%s %s", a, b, ub);
	} else {
		snprintf(buf, n, "%s %s-%s %s", a, ua, b, ub);
	}
}

static void xml_text(FILE *f, const char *s)
{
	name_write(f, s, ESC_XML);
}

static void clock_label(char *buf, size_t n, const struct timespec *ts, int dec)
{
	struct tm tm;
	size_t len;

	localtime_r(&ts->tv_sec, &tm);
	len = strftime(buf, n, "%H:%M:%S", &tm);
	if (dec == 1 && len < n)
		snprintf(buf + len, n - len, ".%01d", (int)(ts->tv_nsec / 100000000L) % 10);
	else if (dec >= 2 && len < n)
		snprintf(buf + len, n - len, ".%02d", (int)(ts->tv_nsec / 10000000L) % 100);
}

static struct timespec col_start(const struct hm_column *c)
{
	struct timespec t = c->when;
	long long ns = (long long)t.tv_sec * 1000000000LL + t.tv_nsec -
		       (long long)(c->span_s * 1e9);

	t.tv_sec = (time_t)(ns / 1000000000LL);
	t.tv_nsec = (long)(ns % 1000000000LL);
	return t;
}

/* Where everything goes: heatmap_layout() measures, the draw_*() functions write. */
struct hm_layout {
	int lo, hi, rows;		/* the buckets shown, as rows */
	__u64 max;			/* the largest count of a cell */
	bool empty;			/* no wait at all: a message in the plot */
	int cell_w, cell_h;		/* one column by one row */
	int left, pw, ph;		/* the plot's left edge, width and height; its top is TOP */
	int dec, step, tick_chars;	/* x labels: decimals, every step-th column, width */
	int legend_x;
	int w, h, bottom;		/* the canvas; the x axis title's baseline + PAD */
	char key[HM_KEY_SHOWN + 8];	/* the key shown, escaped and cut */
	char line2[384];		/* title line 2: key, host, time range */
};

static double y_of(__u64 v, const struct hm_layout *L)
{
	int i = bucket_of(v);
	__u64 a = bucket_lo(i), b = bucket_hi(i);
	double frac;

	if (b == UINT64_MAX)
		b = a * 2;
	if (i < L->lo)
		return TOP + L->ph;
	if (i > L->hi)
		return TOP;
	frac = b > a ? (double)(v - a) / (double)(b - a) : 0;
	return TOP + (L->hi - i) * L->cell_h + L->cell_h * (1 - frac);
}

static void quantile_line(FILE *f, const struct heatmap *hm, const struct hm_layout *L,
			  double q, const char *cls, const char *style)
{
	bool open = false;
	double y;
	size_t c;

	for (c = 0; c < hm->ncols; c++) {
		struct totals t = { .max_ns = hm->cols[c].max_ns, .buckets = hm->cols[c].buckets };
		__u64 v;

		v = totals_quantile(&t, q);
		if (!v && !t.buckets[0]) {
			if (open)
				fputs("\"/>\n", f);
			open = false;
			continue;
		}
		if (!open)
			fprintf(f, "<polyline class=\"%s\" fill=\"none\" %s points=\"", cls, style);
		/* One column: a short flat line, 2 px inside the plot (not under the frame). */
		y = y_of(v, L);
		if (y > TOP + L->ph - 2.0)
			y = TOP + L->ph - 2.0;
		if (y < TOP + 2.0)
			y = TOP + 2.0;
		fprintf(f, "%s%.1f,%.1f %.1f,%.1f", open ? " " : "", L->left + c * L->cell_w + 0.0,
			y, L->left + (c + 1) * L->cell_w + 0.0, y);
		open = true;
	}
	if (open)
		fputs("\"/>\n", f);
}

/* The rows: the buckets any column counted (~1 us to ~1 ms when none), the largest count. */
static void layout_rows(const struct heatmap *hm, struct hm_layout *L)
{
	size_t c;
	int i;

	L->lo = sh_nb;
	L->hi = -1;
	for (c = 0; c < hm->ncols; c++)
		for (i = 0; i < sh_nb; i++) {
			if (!hm->cols[c].buckets[i])
				continue;
			if (i < L->lo)
				L->lo = i;
			if (i > L->hi)
				L->hi = i;
			if (hm->cols[c].buckets[i] > L->max)
				L->max = hm->cols[c].buckets[i];
		}
	L->empty = L->hi < 0;
	if (L->empty) {
		L->lo = bucket_of(1000);
		L->hi = bucket_of(1000000);
	}
	L->rows = L->hi - L->lo + 1;
}

static void layout_plot(const struct heatmap *hm, struct hm_layout *L)
{
	int ylab_w = 0, i;
	char a[64];

	for (i = L->lo; i <= L->hi; i++) {
		bucket_range(a, sizeof(a), i);
		if (str_w(a, FONT, false) > ylab_w)
			ylab_w = str_w(a, FONT, false);
	}
	L->cell_w = hm->ncols ? HM_PLOT_W / (int)hm->ncols : HM_CELL_W_MAX;
	if (L->cell_w > HM_CELL_W_MAX)
		L->cell_w = HM_CELL_W_MAX;
	if (L->cell_w < 1)
		L->cell_w = 1;
	L->cell_h = PLOT_H / L->rows;
	L->cell_h = L->cell_h < CELL_H_MIN ? CELL_H_MIN : L->cell_h > CELL_H_MAX ? CELL_H_MAX
									       : L->cell_h;
	L->left = PAD + ylab_w + 8;
	L->pw = (int)hm->ncols * L->cell_w;
	L->ph = L->rows * L->cell_h;

	/* the key shown, cut: the title must fit the canvas */
	L->key[0] = '\0';
	if (hm->key && name_escape(L->key, HM_KEY_SHOWN, hm->key_raw) >= HM_KEY_SHOWN)
		strcat(L->key, "...");
	if (L->empty) {
		/* the message sits in the plot: make room for it */
		int m = str_w("no waits for ", FONT_TITLE, false) +
			str_w(hm->key ? L->key : "any task", FONT_TITLE, false);

		if (L->pw < m + 20)
			L->pw = m + 20;
	}
}

/* x ticks every step-th column with the reading's clock; the date under the first and on change. */
static void layout_ticks(const struct heatmap *hm, struct hm_layout *L)
{
	static const int steps[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };
	double span = 0, per_col;
	size_t c, k;

	for (c = 0; c < hm->ncols; c++)
		span += hm->cols[c].span_s;
	per_col = hm->ncols ? span / (double)hm->ncols : 1;
	if (hm->ncols > 1)	/* the readings' spacing: a stalled reading does not count */
		per_col = ((double)(hm->cols[hm->ncols - 1].when.tv_sec - hm->cols[0].when.tv_sec) +
			   (hm->cols[hm->ncols - 1].when.tv_nsec - hm->cols[0].when.tv_nsec) / 1e9) /
			  (double)(hm->ncols - 1);
	for (L->dec = 0; L->dec <= 2; L->dec++) {
		/* "HH:MM:SS" and its decimals, or the date under it ("YYYY-MM-DD") */
		L->tick_chars = 8 + (L->dec ? L->dec + 1 : 0);
		if (L->tick_chars < 10)
			L->tick_chars = 10;
		L->step = steps[ARRAY_SIZE(steps) - 1];
		for (k = 0; k < ARRAY_SIZE(steps); k++)
			if (steps[k] * L->cell_w >= text_w((size_t)L->tick_chars, FONT) + TICK_GAP) {
				L->step = steps[k];
				break;
			}
		/* enough decimals that two ticks never read the same */
		if (L->step * per_col >= (L->dec == 0 ? 1 : L->dec == 1 ? 0.1 : 0))
			break;
	}
}

static void layout_title(const struct heatmap *hm, struct hm_layout *L)
{
	char t0[40], t1[40], zone[16], *line2 = L->line2;
	size_t size = sizeof(L->line2);
	struct timespec s0 = hm->ncols ? col_start(&hm->cols[0]) : (struct timespec){ 0 };
	struct tm tm;
	int n;

	if (hm->key)
		n = snprintf(line2, size, "%s = %s", key_name(hm->key_type), L->key);
	else
		n = snprintf(line2, size, "all tasks");
	n += snprintf(line2 + n, size - n, "; host ");
	n += (int)name_escape(line2 + n, size - n - 100, hm->host);
	n = (int)strlen(line2);
	if (hm->ncols) {
		localtime_r(&s0.tv_sec, &tm);
		strftime(t0, sizeof(t0), "%Y-%m-%d %H:%M:%S", &tm);
		localtime_r(&hm->cols[hm->ncols - 1].when.tv_sec, &tm);
		strftime(zone, sizeof(zone), "%Z", &tm);
		strftime(t1, sizeof(t1), "%H:%M:%S", &tm);
		n += snprintf(line2 + n, size - n, "; %s to %s %s", t0, t1, zone);
	}
	if (hm->total > hm->ncols)
		snprintf(line2 + n, size - n, " (the latest %zu of %llu intervals)", hm->ncols,
			 (unsigned long long)hm->total);
	else
		snprintf(line2 + n, size - n, " (%zu interval%s)", hm->ncols,
			 hm->ncols == 1 ? "" : "s");
}

static int at_least(int w, int need)
{
	return w < need ? need : w;
}

static void layout_canvas(const struct heatmap *hm, struct hm_layout *L)
{
	char a[24];
	int w, tw;

	L->legend_x = L->left + L->pw + LEGEND_GAP;
	/* the legend's widest label: the largest count */
	w = L->legend_x + 16 + text_w((size_t)fmt_u64(a, L->max), FONT) + PAD;
	w = at_least(w, L->legend_x + LEGEND_W);
	/* the last x label reaches half its width past the plot */
	w = at_least(w, L->left + L->pw + text_w((size_t)L->tick_chars, FONT) / 2 + PAD);
	tw = str_w("schedhist: ", FONT_TITLE, true) + str_w(metric_words(hm->metric), FONT_TITLE, true);
	w = at_least(w, PAD + tw + PAD);
	w = at_least(w, PAD + str_w(L->line2, FONT, false) + PAD);
	tw = str_w("colour: waits per bucket per interval (log scale); lines: percentiles of each "
		   "interval", FONT, false);
	w = at_least(w, PAD + tw + PAD);
	tw = str_w("time (one column per interval)", FONT, true);
	L->w = at_least(w, L->left + L->pw / 2 + tw / 2 + PAD);
	L->bottom = TOP + L->ph + 6 + 2 * (FONT + 3) + 6 + FONT + PAD;
	/* the legend: 5 colour steps and the two lines, each 16 px, and its title */
	L->h = at_least(L->bottom, TOP + 8 * 16 + PAD);
}

static void heatmap_layout(const struct heatmap *hm, struct hm_layout *L)
{
	memset(L, 0, sizeof(*L));
	layout_rows(hm, L);
	layout_plot(hm, L);
	layout_ticks(hm, L);
	layout_title(hm, L);
	layout_canvas(hm, L);
}

static void draw_title(FILE *f, const struct heatmap *hm, const struct hm_layout *L)
{
	if (!hm->inline_svg)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%d\">\n",
		L->w, L->h, L->w, L->h, FONT);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\">"
		   "schedhist: ", PAD, PAD + FONT_TITLE, FONT_TITLE);
	xml_text(f, metric_words(hm->metric));
	fprintf(f, "</text>\n<text class=\"title\" x=\"%d\" y=\"%d\">", PAD,
		PAD + FONT_TITLE + 6 + FONT);
	escaped_write_xml(f, L->line2);
	fprintf(f, "</text>\n<text class=\"title\" x=\"%d\" y=\"%d\">colour: waits per bucket "
		   "per interval (log scale)%s</text>\n", PAD, PAD + FONT_TITLE + 2 * (6 + FONT),
		hm->lines ? "; lines: percentiles of each interval" : "");
}

static void draw_yaxis(FILE *f, const struct hm_layout *L)
{
	char a[64];
	int i;

	fprintf(f, "<g class=\"yaxis\">\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
		   "font-weight=\"bold\">wait</text>\n", L->left - 6, TOP - 8);
	for (i = L->lo; i <= L->hi; i++) {
		bucket_range(a, sizeof(a), i);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", L->left - 6,
			TOP + (L->hi - i) * L->cell_h + L->cell_h / 2 + FONT / 2 - 1, a);
	}
	fputs("</g>\n", f);
}

static void draw_plot(FILE *f, const struct heatmap *hm, const struct hm_layout *L)
{
	char col[16], a[64], ts[32];
	size_t c;
	int i;

	fprintf(f, "<g id=\"plot\">\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" "
		   "height=\"%d\" fill=\"#f4f4f4\"/>\n", L->left, TOP, L->pw, L->ph);
	for (c = 0; c < hm->ncols; c++) {
		const struct hm_column *cl = &hm->cols[c];
		int x = L->left + (int)c * L->cell_w;

		clock_label(ts, sizeof(ts), &cl->when, L->dec);
		fprintf(f, "<g class=\"column\" data-index=\"%zu\" data-time=\"%s\">\n", c, ts);
		/* empty cells are the frame's grey: only counted ones are drawn */
		for (i = L->lo; i <= L->hi; i++) {
			if (!cl->buckets[i])
				continue;
			colour(col, sizeof(col), cl->buckets[i], L->max);
			bucket_range(a, sizeof(a), i);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
				   "data-bucket=\"%d\" data-count=\"%llu\"><title>%s %s: %llu"
				   "</title></rect>\n",
				x, TOP + (L->hi - i) * L->cell_h, L->cell_w > 2 ? L->cell_w - 1 : L->cell_w,
				L->cell_h - 1, col, i, (unsigned long long)cl->buckets[i], ts, a,
				(unsigned long long)cl->buckets[i]);
		}
		fputs("</g>\n", f);
	}
	/* each line over a white halo: visible on the darkest cells and on the lightest */
	if (hm->lines & HM_LINE_P50) {
		quantile_line(f, hm, L, 0.5, "halo",
			      "stroke=\"#ffffff\" stroke-width=\"4\" stroke-opacity=\"0.9\"");
		quantile_line(f, hm, L, 0.5, "p50",
			      "stroke=\"#1565c0\" stroke-width=\"2\" stroke-dasharray=\"5 3\"");
	}
	if (hm->lines & HM_LINE_P99) {
		quantile_line(f, hm, L, 0.99, "halo",
			      "stroke=\"#ffffff\" stroke-width=\"4\" stroke-opacity=\"0.9\"");
		quantile_line(f, hm, L, 0.99, "p99", "stroke=\"#111111\" stroke-width=\"2\"");
	}
	if (L->empty) {
		fprintf(f, "<text class=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			   "font-size=\"%d\">no waits for ", L->left + L->pw / 2, TOP + L->ph / 2,
			FONT_TITLE);
		if (hm->key)
			escaped_write_xml(f, L->key);
		else
			fputs("any task", f);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

static void draw_xaxis(FILE *f, const struct heatmap *hm, const struct hm_layout *L)
{
	int tw = str_w("time (one column per interval)", FONT, true);
	size_t c;

	fputs("<g class=\"xaxis\">\n", f);
	for (c = (size_t)L->step - 1; c < hm->ncols; c += (size_t)L->step) {
		const struct hm_column *cl = &hm->cols[c];
		int x = L->left + (int)(c + 1) * L->cell_w;
		char ts[32], day[16], prev[16] = "";
		struct tm tm;

		clock_label(ts, sizeof(ts), &cl->when, L->dec);
		localtime_r(&cl->when.tv_sec, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		if (c >= (size_t)L->step) {
			localtime_r(&hm->cols[c - L->step].when.tv_sec, &tm);
			strftime(prev, sizeof(prev), "%Y-%m-%d", &tm);
		}
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", x,
			TOP + L->ph, x, TOP + L->ph + 4);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
			TOP + L->ph + 6 + FONT, ts);
		if (strcmp(day, prev))
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s"
				   "</text>\n", x, TOP + L->ph + 6 + 2 * FONT + 3, day);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">time "
		   "(one column per interval)</text>\n</g>\n", L->left + L->pw / 2 > PAD + tw / 2 + 1 ?
		L->left + L->pw / 2 : PAD + tw / 2 + 1, L->bottom - PAD);
}

static void draw_legend(FILE *f, const struct heatmap *hm, const struct hm_layout *L)
{
	__u64 last = 0;
	char col[16];
	int i, k, y;

	fprintf(f, "<g id=\"legend\">\n<text x=\"%d\" y=\"%d\" font-weight=\"bold\">waits</text>\n",
		L->legend_x, TOP - 8);
	for (i = 0, k = 0; i < 5; i++) {
		__u64 v = L->max ? (__u64)llround(pow((double)L->max, i / 4.0)) : 0;

		/* small maxima give equal steps: each count once */
		if (i && v == last)
			continue;
		last = v;
		colour(col, sizeof(col), v, L->max);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">%llu</text>\n",
			L->legend_x, TOP + 6 + k * 16, col, L->legend_x + 16, TOP + 6 + k * 16 + 10,
			(unsigned long long)v);
		k++;
	}
	y = TOP + 6 + 5 * 16 + 4;
	if (hm->lines & HM_LINE_P50) {
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1565c0\" "
			   "stroke-width=\"2\" stroke-dasharray=\"5 3\"/><text x=\"%d\" y=\"%d\">p50"
			   "</text>\n", L->legend_x, y + 6, L->legend_x + 12, y + 6, L->legend_x + 16,
			y + 10);
		y += 16;
	}
	if (hm->lines & HM_LINE_P99)
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#111111\" "
			   "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">p99</text>\n",
			L->legend_x, y + 6, L->legend_x + 12, y + 6, L->legend_x + 16, y + 10);
	fputs("</g>\n", f);
}

void heatmap_svg(FILE *f, const struct heatmap *hm)
{
	struct hm_layout L;

	heatmap_layout(hm, &L);
	draw_title(f, hm, &L);
	draw_yaxis(f, &L);
	draw_plot(f, hm, &L);
	draw_xaxis(f, hm, &L);
	draw_legend(f, hm, &L);
	fputs("</svg>\n", f);
}
