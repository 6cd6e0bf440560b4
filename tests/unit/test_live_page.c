// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the live page of --listen (user/output/live_page.c): before the
 * first report it says so; afterwards it has one heatmap column per
 * report (at most LIVE_PAGE_COLUMNS) and the top LIVE_PAGE_ROWS keys in
 * rank order, names escaped for HTML; its script fetches /live.json every
 * interval (rounded up to a second), which has the table's rows, cell for
 * cell, in a small fraction of the page's size; it loads nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "model/culprits.h"
#include "check.h"
#include "cli/options.h"
#include "output/live_page.h"
#include "cli/specs.h"


static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/*
 * The page (or with @json its table) rendered twice into one buffer, as
 * the live page output renders every reading: the second rendering
 * replaces the first, byte for byte. A malloc()ed copy, its length in *@len.
 */
static char *page_of(const struct live_page *lp, bool json, size_t *len)
{
	struct outbuf b = {};
	char *first, *s = NULL;

	CHECK(!(json ? live_page_render_json(lp, &b) : live_page_render(lp, &b)));
	first = strndup(b.p, b.len);
	CHECK(!(json ? live_page_render_json(lp, &b) : live_page_render(lp, &b)));
	CHECK(first && b.len == strlen(first) && !memcmp(b.p, first, b.len));
	*len = b.len;
	s = strndup(b.p, b.len);
	CHECK(s != NULL);
	free(first);
	ob_free(&b);
	return s;
}

static void test_page(void)
{
	char *argv[] = { "schedhist", "-M", "runq", "-k", "comm", "-i", "1.5", "--listen", "9999",
			 NULL };
	struct report_group g[LIVE_PAGE_ROWS + 5] = {};
	for (int gi_ = 0; gi_ < LIVE_PAGE_ROWS + 5; gi_++)
		g[gi_].t.buckets = test_buckets();
	char names[LIVE_PAGE_ROWS + 5][16];
	struct report r = {};
	report_init(&r);
	report_init(&r);
	struct live_page lp;
	struct live_page_spec sp;
	struct options o;
	size_t len, jlen, i;
	char *page, *json;

	CHECK(parse_options(9, argv, &o) == -1);
	sp = live_page_spec_of(&o);	/* as main builds it */
	CHECK(!live_page_init(&lp, &sp));
	page = page_of(&lp, false, &len);
	CHECK(strstr(page, "no reading yet") != NULL);
	/* the table every interval, 1.5 s rounded up; the whole page without scripts only */
	CHECK(strstr(page, "<noscript><meta http-equiv=\"refresh\" content=\"2\"></noscript>"));
	CHECK(strstr(page, "<body data-refresh=\"2\">") != NULL);
	CHECK(strstr(page, "fetch('/live.json'") != NULL);
	CHECK(count(page, "<script") == 1 && !strstr(page, "src="));
	CHECK(count(page, "<tr class=\"key\">") == 0);
	free(page);
	json = page_of(&lp, true, &jlen);
	CHECK(!strcmp(json, "{\"reading\":\"\",\"status\":\"no reading yet\",\"rows\":[]}\n"));
	free(json);

	for (i = 0; i < LIVE_PAGE_ROWS + 5; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		g[i].name = names[i];
		g[i].t.count = 100 - i;
		g[i].t.buckets[12] = 100 - i;
	}
	g[1].name = "a<b&c";
	r.groups = g;
	r.ngroups = r.nall = LIVE_PAGE_ROWS + 5;
	r.all.buckets[12] = 1000;
	for (i = 0; i < LIVE_PAGE_COLUMNS + 3; i++) {
		r.when.tv_sec = 1700000000 + (time_t)i;
		CHECK(!live_page_add(&lp, &r));
	}
	page = page_of(&lp, false, &len);
	CHECK(strstr(page, "no reading yet") == NULL);
	CHECK_EQ_U64(count(page, "<g class=\"column\""), LIVE_PAGE_COLUMNS);
	CHECK_EQ_U64(count(page, "<tr class=\"key\">"), LIVE_PAGE_ROWS);
	CHECK(strstr(page, "<td>a&lt;b&amp;c</td>") != NULL);
	/* in rank order: k0 first, the last shown is k(ROWS - 1) */
	CHECK(strstr(page, "<td>k0</td>") < strstr(page, "<td>k2</td>"));
	CHECK(strstr(page, "<td>k19</td>") != NULL && strstr(page, "<td>k20</td>") == NULL);
	CHECK(strstr(page, "<a href=\"/metrics\">") != NULL);
	CHECK(strstr(page, "<table id=\"top\" data-reading=\"2023-11-14T22:15:22") != NULL);

	/* /live.json: the same rows, cell for cell, the names in JSON syntax */
	json = page_of(&lp, true, &jlen);
	CHECK(!strncmp(json, "{\"reading\":\"2023-11-14T22:15:22", strlen("{\"reading\":\"2023-11-14T22:15:22")));
	CHECK(strstr(json, "\"status\":\"latest reading 2023-11-14T22:15:22") != NULL);
	CHECK_EQ_U64(count(json, "[\"k"), LIVE_PAGE_ROWS - 1);
	CHECK(strstr(json, "[\"a<b&c\",\"99\",") != NULL);
	CHECK(strstr(json, "\"k19\"") != NULL && strstr(json, "\"k20\"") == NULL);
	CHECK(strstr(json, "[\"k0\"") < strstr(json, "[\"k2\""));
	CHECK(strstr(json, "[\"k0\",\"100\",") != NULL);
	/* the periodic fetch is small: a tenth of the page at most */
	fprintf(stderr, "  page %zu bytes, live.json %zu bytes\n", len, jlen);
	CHECK(jlen * 10 < len);
	free(json);
	free(page);
	live_page_free(&lp);
}

/* A row's cells on the page and in /live.json: the same text, each escaped for its syntax. */
static void test_json_cells(void)
{
	char *argv[] = { "schedhist", "-k", "comm", "--listen", "9999", NULL };
	struct report_group g = {};
	g.t.buckets = test_buckets();
	struct report r = {};
	report_init(&r);
	report_init(&r);
	struct live_page lp;
	struct live_page_spec sp;
	struct options o;
	size_t len;
	char *page;

	CHECK(parse_options(5, argv, &o) == -1);
	sp = live_page_spec_of(&o);
	CHECK(!live_page_init(&lp, &sp));
	g.name = "q\"b\\s\xff";
	g.t.count = 3;
	g.t.buckets[12] = 3;
	g.t.max_ns = 5000;
	g.t.max_tid = 42;
	snprintf(g.t.max_comm, sizeof(g.t.max_comm), "w\"x");
	r.groups = &g;
	r.ngroups = r.nall = 1;
	CHECK(!live_page_add(&lp, &r));
	page = page_of(&lp, false, &len);
	CHECK(strstr(page, "<td>q&quot;b\\\\s\\xff</td><td>3</td>") != NULL);
	CHECK(strstr(page, "<td>42 w&quot;x</td></tr>") != NULL);
	free(page);
	page = page_of(&lp, true, &len);
	CHECK(strstr(page, "[\"q\\\"b\\\\\\\\s\\\\xff\",\"3\",") != NULL);
	CHECK(strstr(page, ",\"42 w\\\"x\"]]}") != NULL);
	free(page);
	live_page_free(&lp);
}

/*
 * The table has the columns of --summary for the same options: p90 and
 * p99.9 always, throttled and PSI with -k cgroup ("-" when unknown), the
 * top culprit with --culprits.
 */
static void test_summary_columns(void)
{
	char *argv[] = { "schedhist", "-M", "runq", "-k", "cgroup", "--culprits", "--listen",
			 "9999", NULL };
	struct culprit_list l = { .n = 1 };
	struct report_group g = {};
	g.t.buckets = test_buckets();
	struct report r = {};
	report_init(&r);
	report_init(&r);
	struct live_page lp;
	struct live_page_spec sp;
	struct options o;
	size_t len;
	char *page;

	CHECK(parse_options(8, argv, &o) == -1);
	sp = live_page_spec_of(&o);
	CHECK(sp.culprits);
	CHECK(!live_page_init(&lp, &sp));
	g.name = "/web";
	g.t.count = 10;
	g.t.buckets[12] = 10;
	g.pct.p90 = 1500000;
	g.pct.p999 = 2500000;
	g.cgs.has_some = true;
	g.cgs.pressure_some_ns = 250000000;
	l.c[0] = (struct culprit){ .name = "/batch", .count = 10, .sum_ns = 4000 };
	g.culprits = &l;
	r.groups = &g;
	r.ngroups = r.nall = 1;
	r.span_s = 1.0;
	CHECK(!live_page_add(&lp, &r));
	page = page_of(&lp, false, &len);
	CHECK(strstr(page, "<th>p90 us</th><th>p99 us</th><th>p99.9 us</th>") != NULL);
	CHECK(strstr(page, "<th>throttled</th><th>psi some</th><th>top culprit</th>") != NULL);
	CHECK(strstr(page, "<td>1500</td>") && strstr(page, "<td>2500</td>"));
	CHECK(strstr(page, "<td>-</td><td>25.0%</td><td>/batch 100%</td>") != NULL);
	free(page);
	live_page_free(&lp);
}

int main(void)
{
	TEST(test_page);
	TEST(test_summary_columns);
	TEST(test_json_cells);
	return test_summary();
}
