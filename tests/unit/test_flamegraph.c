// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* flamegraph.c: frames merged by prefix, widths by time, titles, labels cut to fit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/flamegraph.h"

static char *svg_of(const struct fg_stack *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	CHECK(flamegraph_write(f, "t <&>", s, n) == 0);
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* two stacks sharing "a;b": one frame each for all, a, b; c and d apart */
static void test_merge(void)
{
	struct fg_stack s[] = {
		{ "a;b;c", 3000000, 3 },
		{ "a;b;d", 1000000, 1 },
	};
	char *svg = svg_of(s, 2);

	CHECK(count(svg, "<title>") == 5);
	CHECK(strstr(svg, "<title>all (4.000 ms, 4 waits, 100.00%)</title>"));
	CHECK(strstr(svg, "<title>b (4.000 ms, 4 waits, 100.00%)</title>"));
	CHECK(strstr(svg, "<title>c (3.000 ms, 3 waits, 75.00%)</title>"));
	CHECK(strstr(svg, "<title>d (1.000 ms, 1 waits, 25.00%)</title>"));
	/* widths: the whole 1180 px, c three quarters of it */
	CHECK(strstr(svg, "width=\"1180.0\""));
	CHECK(strstr(svg, "width=\"885.0\""));
	CHECK(strstr(svg, "width=\"295.0\""));
	/* the title is escaped */
	CHECK(strstr(svg, ">t &lt;&amp;&gt;</text>"));
	free(svg);
}

/* a label longer than its frame is cut with "..", one too narrow is not drawn */
static void test_labels(void)
{
	char longname[300];
	struct fg_stack s[3];
	char *svg, *p;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	s[0] = (struct fg_stack){ longname, 1000000000, 1 };
	s[1] = (struct fg_stack){ "tiny", 1000000, 1 };	/* 1.2 px wide: no label */
	s[2] = (struct fg_stack){ "gone", 10, 1 };	/* below 0.1 px: not drawn */
	svg = svg_of(s, 3);
	p = strstr(svg, "\">xxxx");
	CHECK(p);
	if (p) {
		const char *t = p + 2, *e = strstr(t, "</text>");
		size_t fit = (size_t)((1180.0 * 1000000000 / 1001000010 - 6) / FG_CHAR_W);

		CHECK_EQ_U64((size_t)(e - t), fit);
		CHECK(!strncmp(e - 2, "..", 2));
	}
	CHECK(strstr(svg, "<title>tiny ("));
	CHECK(!strstr(svg, ">tiny</text>"));
	CHECK(!strstr(svg, "<title>gone ("));
	free(svg);
}

/* a deep stack too narrow to draw does not make the picture taller */
static void test_height(void)
{
	char deep[2000] = "a";
	struct fg_stack s[2];
	char *svg, *tall;
	int h0 = 0, h1 = 0;

	for (int i = 0; i < 119; i++)
		strcat(deep, ";x");
	s[0] = (struct fg_stack){ "a;b;c", 1000000000, 1 };
	s[1] = (struct fg_stack){ deep, 10, 1 };	/* 1.2e-5 px wide */
	svg = svg_of(s, 2);
	CHECK(sscanf(strstr(svg, "height=\""), "height=\"%d\"", &h0) == 1);
	/* all, a, b, c: four levels */
	CHECK(h0 == 40 + 4 * FG_FRAME_H + 10);
	s[1].wait_ns = 1000000000;	/* now half the width: drawn, all 120 levels */
	tall = svg_of(s, 2);
	CHECK(sscanf(strstr(tall, "height=\""), "height=\"%d\"", &h1) == 1);
	CHECK(h1 == 40 + 121 * FG_FRAME_H + 10);
	free(svg);
	free(tall);
}

static void test_empty(void)
{
	char *svg = svg_of(NULL, 0);

	CHECK(strstr(svg, "</svg>"));
	CHECK(!strstr(svg, "<title>"));
	free(svg);
}

int main(void)
{
	TEST(test_merge);
	TEST(test_labels);
	TEST(test_height);
	TEST(test_empty);
	return test_summary();
}
