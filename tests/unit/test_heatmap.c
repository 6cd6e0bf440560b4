// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the heatmap (user/heatmap.c): bounded to the latest
 * HEATMAP_MAX_COLUMNS reports however long the run, with a size bound
 * that the man page states; a --heatmap-key given as the reports print it
 * (escaped) selects the raw name, and the SVG stays well-formed XML in
 * UTF-8 whatever the name's bytes; nothing is written before the first
 * heatmap_write_first().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "options.h"
#include "heatmap.h"
#include "specs.h"



/* heatmap_init() with the heatmap spec of @o: as main builds it. */
static int hm_init(struct sh_heatmap *hm, const struct options *o, char *err, size_t errlen)
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

static char *svg_of(const struct sh_heatmap *hm, size_t *len)
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

/* 1000 reports: the latest 600 stay, in order; the worst case stays under the stated size. */
static void test_bounded(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], err[512];
	struct sh_report r = {};
	struct sh_heatmap hm;
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
	for (i = 0; i < 1000; i++) {
		r.when.tv_sec = 1700000000 + i;
		r.span_s = i;		/* marks the column */
		/* the worst case for the size: every bucket, 20-digit counts */
		for (b = 0; b < SH_NBUCKETS; b++)
			r.all.slots[b] = UINT64_MAX - (__u64)b;
		CHECK(!heatmap_add(&hm, &r));
	}
	CHECK_EQ_U64(hm.ncols, HEATMAP_MAX_COLUMNS);
	CHECK_EQ_U64(hm.total, 1000);
	CHECK(hm.cols[0].span_s == 1000 - HEATMAP_MAX_COLUMNS);
	CHECK(hm.cols[HEATMAP_MAX_COLUMNS - 1].span_s == 999);
	svg = svg_of(&hm, &len);
	CHECK_EQ_U64(count(svg, "<g class=\"column\""), HEATMAP_MAX_COLUMNS);
	CHECK(strstr(svg, "the latest 600 of 1000 intervals") != NULL);
	/* schedhist(8), --heatmap: "the latest 600 reports, under 8 MB" */
	printf("  worst-case heatmap: %zu bytes\n", len);
	CHECK(len < 8 * 1000 * 1000);
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
	struct sh_group g[2] = {};
	struct sh_report r = {};
	struct sh_heatmap hm;
	struct options o;
	size_t len;
	char *svg;

	g[0].name = "caf\xe9";
	g[0].t.slots[10] = 5;
	g[1].name = "x<&>\"\x1b";
	g[1].t.slots[11] = 7;
	r.groups = g;
	r.ngroups = r.nall = 2;
	r.when.tv_sec = 1700000000;
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key", "caf\\xe9");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].slots[10], 5);
	svg = svg_of(&hm, &len);
	CHECK(strstr(svg, "comm = caf\\xe9;") != NULL);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);

	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key",
	     "x<&>\"\\x1b");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].slots[11], 7);
	svg = svg_of(&hm, &len);
	CHECK(strstr(svg, "comm = x&lt;&amp;&gt;&quot;\\x1b;") != NULL);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);

	/* a raw non-UTF-8 key on the command line: still valid XML */
	OPTS(&o, "-k", "comm", "-i", "1", "--heatmap", "/tmp/h.svg", "--heatmap-key", "caf\xe9");
	CHECK(!hm_init(&hm, &o, err, sizeof(err)));
	CHECK(!heatmap_add(&hm, &r));
	CHECK_EQ_U64(hm.cols[0].slots[10], 5);
	svg = svg_of(&hm, &len);
	CHECK(xml_ok(svg, len));
	free(svg);
	heatmap_free(&hm);
}

int main(void)
{
	TEST(test_bounded);
	TEST(test_key_escaped);
	return test_summary();
}
