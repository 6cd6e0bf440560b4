// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the live page of --listen (user/live_page.c): before the
 * first report it says so; afterwards it has one heatmap column per
 * report (at most LIVE_PAGE_COLUMNS) and the top LIVE_PAGE_ROWS keys in
 * rank order, names escaped for HTML; it reloads itself every interval
 * (rounded up to a second) and loads nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "options.h"
#include "live_page.h"
#include "specs.h"


static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_page(void)
{
	char *argv[] = { "schedhist", "-M", "runq", "-k", "comm", "-i", "1.5", "--listen", "9999",
			 NULL };
	struct sh_group g[LIVE_PAGE_ROWS + 5] = {};
	char names[LIVE_PAGE_ROWS + 5][16];
	struct sh_report r = {};
	struct sh_live_page lp;
	struct live_page_spec sp;
	struct options o;
	size_t len, i;
	char *page;

	CHECK(parse_options(9, argv, &o) == -1);
	sp = live_page_spec_of(&o);	/* as main builds it */
	CHECK(!live_page_init(&lp, &sp));
	CHECK(!live_page_render(&lp, &page, &len));
	CHECK(strstr(page, "no reading yet") != NULL);
	CHECK(strstr(page, "<meta http-equiv=\"refresh\" content=\"2\">") != NULL);
	CHECK(!strstr(page, "<script") && !strstr(page, "src="));
	CHECK(count(page, "<tr class=\"key\">") == 0);
	free(page);

	for (i = 0; i < LIVE_PAGE_ROWS + 5; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		g[i].name = names[i];
		g[i].t.count = 100 - i;
		g[i].t.slots[12] = 100 - i;
	}
	g[1].name = "a<b&c";
	r.groups = g;
	r.ngroups = r.nall = LIVE_PAGE_ROWS + 5;
	r.all.slots[12] = 1000;
	for (i = 0; i < LIVE_PAGE_COLUMNS + 3; i++) {
		r.when.tv_sec = 1700000000 + (time_t)i;
		CHECK(!live_page_add(&lp, &r));
	}
	CHECK(!live_page_render(&lp, &page, &len));
	CHECK(strstr(page, "no reading yet") == NULL);
	CHECK_EQ_U64(count(page, "<g class=\"column\""), LIVE_PAGE_COLUMNS);
	CHECK_EQ_U64(count(page, "<tr class=\"key\">"), LIVE_PAGE_ROWS);
	CHECK(strstr(page, "<td>a&lt;b&amp;c</td>") != NULL);
	/* in rank order: k0 first, the last shown is k(ROWS - 1) */
	CHECK(strstr(page, "<td>k0</td>") < strstr(page, "<td>k2</td>"));
	CHECK(strstr(page, "<td>k19</td>") != NULL && strstr(page, "<td>k20</td>") == NULL);
	CHECK(strstr(page, "<a href=\"/metrics\">") != NULL);
	free(page);
	live_page_free(&lp);
}

int main(void)
{
	TEST(test_page);
	return test_summary();
}
