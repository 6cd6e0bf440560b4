// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the heatmap (user/output/heatmap.c): bounded to the latest
 * HEATMAP_MAX_COLUMNS reports however long the run, with a size bound
 * that the man page states; a --heatmap-key given as the reports print it
 * (escaped) selects the raw name, and the SVG stays well-formed XML in
 * UTF-8 whatever the name's bytes; nothing is written before the first
 * heatmap_write_first(); rows read as bucket ranges in human units, from
 * hist.h's edges; the p50/p99 lines sit in the rows of those percentiles
 * and go with --heatmap-lines none; a key that is never there says so.
 *
 * "test_heatmap --svg-dir DIR" writes worst-case heatmaps of 10, 100 and
 * 1000 columns into DIR instead (every bucket, 20-digit counts, the
 * longest key shown, a date change): tests/integration/heatmap_layout.sh
 * measures their labels in Chromium.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "cli/options.h"
#include "output/heatmap.h"
#include "cli/specs.h"



/* heatmap_init() with the heatmap spec of @o: as main builds it. */
static int hm_init(struct heatmap *hm, const struct options *o, char *err, size_t errlen)
{
	struct heatmap_spec sp = heatmap_spec_of(o);

	return heatmap_init(hm, &sp, err, errlen);
}

static void opts(struct options *o, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = "schedhist";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	CHECK(parse_options(argc, argv, o) == -1);
}

#define OPTS(o, ...) opts((o), (const char *const[]){ __VA_ARGS__, NULL })

static char *svg_of(const struct heatmap *hm, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	heatmap_svg(f, hm);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/*
 * The columns' block resident from the start, every page of it (mincore):
 * the poller's memory does not creep up while the window fills.
 */
static void test_resident(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], err[512];
	struct heatmap hm;
	struct options o;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size, first, last, n, i, absent = 0;
	unsigned char *vec;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.svg", dir);
	OPTS(&o, "-i", "1", "--heatmap", path);
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	size = hm.max_cols * (sizeof(*hm.cols) + (size_t)sh_nb * sizeof(__u64));
	first = (uintptr_t)hm.cols / page * page;
	last = ((uintptr_t)hm.cols + size - 1) / page * page;
	n = (last - first) / page + 1;
	vec = calloc(n, 1);
	CHECK(vec && !mincore((void *)first, last - first + page, vec));
	for (i = 0; vec && i < n; i++)
		absent += !(vec[i] & 1);
	printf("  columns' block: %zu bytes, %zu pages, %zu not resident\n", size, n, absent);
	CHECK_EQ_U64(absent, 0);
	free(vec);
	heatmap_free(&hm);
	CHECK(!rmdir(dir));
}

/* 1500 reports: the latest 1000 stay, in order; the worst case stays under the stated size. */
static void test_bounded(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], err[512];
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	struct stat st;
	size_t len;
	char *svg;
	int i, b;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.svg", dir);
	OPTS(&o, "-i", "1", "--heatmap", path);
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(stat(path, &st) == -1);	/* nothing written before the first write */
	for (i = 0; i < 1500; i++) {
		r.when.tv_sec = 1700000000 + i;
		r.span_s = i;		/* marks the column */
		/* the worst case for the size: every bucket, 20-digit counts */
		for (b = 0; b < sh_nb; b++)
			r.all.buckets[b] = UINT64_MAX - (__u64)b;
		CHECK(!heatmap_add(&hm, &r));
	}
	CHECK_EQ_U64(hm.ncols, HEATMAP_MAX_COLUMNS);
	CHECK_EQ_U64(hm.total, 1500);
	CHECK(hm.cols[0].span_s == 1500 - HEATMAP_MAX_COLUMNS);
	CHECK(hm.cols[HEATMAP_MAX_COLUMNS - 1].span_s == 1499);
	svg = svg_of(&hm, &len);
	CHECK_EQ_U64(count(svg, "<g class=\"column\""), HEATMAP_MAX_COLUMNS);
	CHECK(strstr(svg, "the latest 1000 of 1500 intervals") != NULL);
	/* schedhist(8), --heatmap: "the latest 1000 reports, under 10 MB" */
	printf("  worst-case heatmap: %zu bytes\n", len);
	CHECK(len < 10 * 1000 * 1000);
	free(svg);
	CHECK(heatmap_write_first(&hm) == 0);
	CHECK(!stat(path, &st) && (size_t)st.st_size == len);
	heatmap_free(&hm);
	unlink(path);
	CHECK(!rmdir(dir));
}

/* python3's XML parser accepts @svg (well-formed, UTF-8). */
static int xml_ok(const char *svg, size_t len)
{
	char path[] = "/tmp/schedhist-unit-svg.XXXXXX", cmd[256];
	int fd = mkstemp(path), st;

	CHECK(write(fd, svg, len) == (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 -S -c 'import sys, xml.etree.ElementTree as E; "
		 "E.parse(sys.argv[1])' %s", path);
	st = system(cmd);
	unlink(path);
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

/* --heatmap-key as printed ("caf\xe9", escaped) picks the raw Latin-1 name. */
static void test_key_escaped(void)
{
	char err[512];
	struct report_group g[2] = {};
	for (int gi_ = 0; gi_ < 2; gi_++)
		g[gi_].t.buckets = test_buckets();
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	size_t len;
	char *svg;

	g[0].name = "caf\xe9";
	g[0].t.buckets[10] = 5;
	g[1].name = "x<&>\"\x1b";
	g[1].t.buckets[11] = 7;
	r.groups = g;
	r.ngroups = r.nall = 2;
	r.when.tv_sec = 1700000000;
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key", "caf\\xe9");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].buckets[10], 5);
	svg = svg_of(&hm, &len);
	CHECK(strstr(svg, "comm = caf\\xe9;") != NULL);
	CHECK(strstr(svg, "no waits for") == NULL);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);

	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key",
	     "x<&>\"\\x1b");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].buckets[11], 7);
	svg = svg_of(&hm, &len);
	CHECK(strstr(svg, "comm = x&lt;&amp;&gt;&quot;\\x1b;") != NULL);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);

	/* a raw non-UTF-8 key on the command line: still valid XML */
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key", "caf\xe9");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].buckets[10], 5);
	svg = svg_of(&hm, &len);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);
}

/* The y label of row @i as the SVG writes it, found by its bucket's cells. */
static bool has_label(const char *svg, const char *label)
{
	char want[96];

	snprintf(want, sizeof(want), "text-anchor=\"end\">%s</text>", label);
	return strstr(svg, want) != NULL;
}

/* Rows in human units with both edges of their bucket, taken from hist.h. */
static void test_labels(void)
{
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	char err[512], want[96];
	size_t len;
	char *svg;
	int b;

	OPTS(&o, "-i", "1", "--heatmap", "/tmp/h.svg");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	r.when.tv_sec = 1700000000;
	r.span_s = 1;
	for (b = 0; b < sh_nb; b++)
		r.all.buckets[b] = 1;
	CHECK(!heatmap_add(&hm, &r));
	svg = svg_of(&hm, &len);
	/* the row of a 20 ms wait: (2^-6 s, 2^-5 s], whole ns [15625001, 31250001) */
	CHECK(bucket_lo(15) == 15625001 && bucket_hi(15) == 31250001);
	CHECK(has_label(svg, "15.6-31.3 ms"));
	CHECK(has_label(svg, "954 ns-1.91 us"));
	CHECK(has_label(svg, "0-954 ns"));
	/* the open-ended last bucket */
	snprintf(want, sizeof(want), "\u2265 %.0f s", (double)bucket_lo(sh_nb - 1) / 1e9);
	CHECK(has_label(svg, want));
	CHECK(strstr(svg, "us</text>") && strstr(svg, "ms</text>"));
	/* one row per bucket in the range shown */
	CHECK_EQ_U64(count(svg, "text-anchor=\"end\">"), sh_nb);
	CHECK(strstr(svg, "id=\"legend\"") && strstr(svg, "id=\"plot\""));
	CHECK(strstr(svg, "host ") != NULL);
	free(svg);
	heatmap_free(&hm);
}

/* The y of the first point of polyline @cls ("p50", "p99"), or -1. */
static double line_y(const char *svg, const char *cls)
{
	char want[64];
	const char *p;
	double x, y;

	snprintf(want, sizeof(want), "<polyline class=\"%s\"", cls);
	p = strstr(svg, want);
	if (!p || !(p = strstr(p, "points=\"")) || sscanf(p + 8, "%lf,%lf", &x, &y) != 2)
		return -1;
	return y;
}

/*
 * p50 and p99 lines: 99 waits in bucket 12 and one in bucket 20 put p50
 * inside row 12 and p99 (rank 99) in row 12 too; 50 and 50 put p99 in row
 * 20. Rows are cell_h apart from the top; the line's y lies in its row.
 */
static void test_lines(void)
{
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	char err[512];
	size_t len;
	char *svg;
	double y50, y99;

	OPTS(&o, "-i", "1", "--heatmap", "/tmp/h.svg");
	CHECK(o.heatmap_lines == (HM_LINE_P50 | HM_LINE_P99));
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	r.when.tv_sec = 1700000000;
	r.span_s = 1;
	r.all.buckets[12] = 50;
	r.all.buckets[20] = 50;
	CHECK(!heatmap_add(&hm, &r));
	svg = svg_of(&hm, &len);
	y50 = line_y(svg, "p50");
	y99 = line_y(svg, "p99");
	/* short waits at the bottom: p99 (row 20) above p50 (row 12), 8 rows apart */
	CHECK(y50 > 0 && y99 > 0 && y99 < y50);
	CHECK(y50 - y99 > 7 * 14 && y50 - y99 < 9 * 28);
	CHECK(strstr(svg, "p50</text>") && strstr(svg, "p99</text>"));
	free(svg);
	heatmap_free(&hm);

	OPTS(&o, "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-lines", "none");
	CHECK(o.heatmap_lines == 0);
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	svg = svg_of(&hm, &len);
	CHECK(!strstr(svg, "<polyline") && !strstr(svg, "p50</text>"));
	free(svg);
	heatmap_free(&hm);

	OPTS(&o, "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-lines", "p99");
	CHECK(o.heatmap_lines == HM_LINE_P99);
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	svg = svg_of(&hm, &len);
	CHECK(line_y(svg, "p50") < 0 && line_y(svg, "p99") > 0);
	free(svg);
	heatmap_free(&hm);
}

/* The fill colours of the legend's steps, in order, into @fill; how many. */
static int legend_fills(const char *svg, char fill[][8], int max)
{
	const char *p = strstr(svg, "<g id=\"legend\">");
	int n = 0;

	while (p && n < max && (p = strstr(p, "<rect ")) && (p = strstr(p, "fill=\"#"))) {
		memcpy(fill[n], p + 6, 7);
		fill[n++][7] = '\0';
		p += 13;
	}
	return n;
}

/* CIE lightness L* (0 black to 100 white) of sRGB colour "#rrggbb". */
static double lightness(const char *hex)
{
	unsigned v = (unsigned)strtoul(hex + 1, NULL, 16);
	double c[3] = { (v >> 16) / 255.0, (v >> 8 & 0xff) / 255.0, (v & 0xff) / 255.0 }, y;
	int i;

	for (i = 0; i < 3; i++)
		c[i] = c[i] <= 0.04045 ? c[i] / 12.92 : pow((c[i] + 0.055) / 1.055, 2.4);
	y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
	return y > 0.008856 ? 116 * cbrt(y) - 16 : 903.3 * y;
}

/*
 * The picture reads: the legend's steps (log scale, 1 to 2849 here) are
 * at least 12 apart in lightness, the lowest (a count of 1) at least 6
 * from an empty cell's grey (below those, the steps 390 and 2849 look
 * alike, and 1 like empty); a percentile line lies in its row,
 * over a white halo that keeps it visible on the darkest cells.
 */
static void test_readable(void)
{
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	char err[512], fill[8][8];
	int n, i;
	size_t len;
	char *svg;
	const char *p;
	double y, bottom = 0;

	OPTS(&o, "-i", "1", "--heatmap", "/tmp/h.svg");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	r.when.tv_sec = 1700000000;
	r.span_s = 1;
	r.all.buckets[12] = 2849;	/* a picture's counts: 1 and 2849 */
	r.all.buckets[13] = 1;
	CHECK(!heatmap_add(&hm, &r));
	svg = svg_of(&hm, &len);
	n = legend_fills(svg, fill, 8);
	CHECK_EQ_U64(n, 5);
	for (i = 0; i < n; i++) {
		double l = lightness(fill[i]);
		double next = i + 1 < n ? lightness(fill[i + 1]) : 0;

		if (i + 1 < n && l - next < 12)
			fprintf(stderr, "  legend steps %s and %s: lightness %.1f and %.1f\n", fill[i],
				fill[i + 1], l, next);
		CHECK(i + 1 == n || l - next >= 12);
	}
	CHECK(lightness("#f4f4f4") - lightness(fill[0]) >= 6);
	/* p50 lies at the very bottom of bucket 12, the lowest row: inside the plot */
	for (p = strstr(svg, "data-bucket=\"12\""); p && p > svg && strncmp(p, "<rect", 5); p--)
		;
	CHECK(p && sscanf(strstr(p, " y=\"") + 4, "%lf", &bottom) == 1);
	p = strstr(svg, "height=\"");
	y = line_y(svg, "p50");
	CHECK(strstr(svg, "<polyline class=\"halo\"") != NULL);
	CHECK(strstr(svg, "<polyline class=\"halo\"") < strstr(svg, "<polyline class=\"p50\""));
	CHECK(y > bottom && y < bottom + 28);
	free(svg);
	heatmap_free(&hm);
}

/* A key in no report: warned once (hm.warned), and the picture says so. */
static void test_missing_key(void)
{
	struct report_group g = {};
	g.t.buckets = test_buckets();
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	char err[512];
	size_t len;
	char *svg;
	int i;

	g.name = "bash";
	g.t.buckets[10] = 3;
	r.groups = &g;
	r.ngroups = r.nall = 1;
	r.all = g.t;
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key", "bsah");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	for (i = 0; i < 3; i++) {
		r.when.tv_sec = 1700000000 + i;
		CHECK(!heatmap_add(&hm, &r));
		CHECK(hm.warned);
	}
	svg = svg_of(&hm, &len);
	CHECK(strstr(svg, ">no waits for bsah</text>") != NULL);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);
}

/*
 * Worst-case pictures for the layout test: @n columns, every bucket
 * counted (40 rows), the largest counts, the longest key shown, readings
 * 0.01 s apart (labels with decimals) or 1 s apart, crossing midnight.
 */
static int write_worst(const char *dir, int n, double step)
{
	char path[4096], err[512], key[200];
	struct report_group g = {};
	g.t.buckets = test_buckets();
	struct report r = {};
	report_init(&r);
	struct heatmap hm;
	struct options o;
	int i, b;

	snprintf(path, sizeof(path), "%s/worst-%d.svg", dir, n);
	memset(key, 'W', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", path, "--heatmap-key", key);
	if (hm_init(&hm, &o, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	g.name = key;
	r.groups = &g;
	r.ngroups = r.nall = 1;
	for (i = 0; i < n; i++) {
		/* midnight (UTC) falls inside the run: 1700006400 is 2023-11-15 00:00 */
		double t = 1700006400.0 + step * (i - n / 2);

		r.when.tv_sec = (time_t)t;
		r.when.tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
		r.span_s = step;
		for (b = 0; b < sh_nb; b++)
			g.t.buckets[b] = (UINT64_MAX >> (b % 7)) - (__u64)i;
		CHECK(!heatmap_add(&hm, &r));
	}
	if (heatmap_write_first(&hm)) {
		fprintf(stderr, "cannot write %s\n", path);
		return 1;
	}
	heatmap_free(&hm);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--svg-dir")) {
		setenv("TZ", "UTC", 1);	/* midnight in the middle of the run */
		return write_worst(argv[2], 10, 1) || write_worst(argv[2], 100, 0.01) ||
		       write_worst(argv[2], 1000, 1);
	}
	TEST(test_bounded);
	TEST(test_resident);
	TEST(test_key_escaped);
	TEST(test_labels);
	TEST(test_lines);
	TEST(test_readable);
	TEST(test_missing_key);
	return test_summary();
}
