// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Issue 13's pure modules: culprit pairs (diffs, ranking, [rest], idle
 * removal), kallsyms symbolization, cpu.stat / cpu.pressure parsing and
 * deltas, the exact min in percentiles, and --min-count ranking.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "model/culprits.h"
#include "model/stacks.h"
#include "model/cgstat.h"
#include "model/tick.h"
#include "model/report.h"
#include "output/render_extra.h"
#include "model/cgroup.h"
#include "lib/outbuf.h"

#define NCPU 2

static struct sh_culprit_key pair(__u64 w, __u64 c)
{
	struct sh_culprit_key k = {};

	k.waiter.id = w;
	k.culprit.id = c;
	return k;
}

/* The culprit map's value of pair (@w, @cu): @n waits summing @s ns. */
static void feed(struct culprits *c, __u64 w, __u64 cu, __u64 n, __u64 s)
{
	struct sh_culprit_val v = { .count = n, .sum_ns = s };
	struct sh_culprit_key k = pair(w, cu);

	CHECK(!culprits_ingest(c, &k, &v, false));
}

/* A report of one group (tid key 10) with @count waits summing @sum. */
static void one_group(struct report *r, struct report_group *g, __u64 count, __u64 sum)
{
	memset(r, 0, sizeof(*r));
	memset(g, 0, sizeof(*g));
	r->key_type = SH_KEY_TID;
	r->metric = SH_METRIC_RUNQ;
	r->groups = g;
	r->ngroups = 1;
	g->key.id = 10;
	g->name = "10";
	g->t.count = count;
	g->t.sum_ns = sum;
}

static void test_culprits_rank(void)
{
	struct culprits c;
	struct report r;
	struct report_group g;
	const struct culprit_list *l;
	char buf[64];
	int i;

	CHECK(!culprits_init(&c, false));
	/* seven culprits of waiter 10, sums 100..700 over two CPUs; one of waiter 11 */
	for (i = 1; i <= 7; i++)
		feed(&c, 10, 100 + i, 2, 100 * i);
	feed(&c, 11, 101, 5, 5000);
	feed(&c, 10, SH_IDLE_ID, 0, 0);
	one_group(&r, &g, 20, 3000);
	CHECK(!culprits_attach(&c, &r, NULL, 1));
	l = g.culprits;
	CHECK(l != NULL);
	if (!l)
		return;
	/* the top 5 by sum, then [rest]: 20 - 10 waits, 3000 - (700+600+500+400+300) ns */
	CHECK_EQ_U64(l->n, SH_CULPRIT_TOP + 1);
	CHECK(!strcmp(l->c[0].name, "107") && l->c[0].sum_ns == 700 && l->c[0].count == 2);
	CHECK(!strcmp(l->c[4].name, "103"));
	CHECK(l->rest && !strcmp(l->c[5].name, "[rest]"));
	CHECK_EQ_U64(l->c[5].count, 10);
	CHECK_EQ_U64(l->c[5].sum_ns, 500);
	extra_top_culprit(buf, sizeof(buf), &g);
	CHECK(!strcmp(buf, "107 23%"));

	/* a second reading: deltas only; the idle pair is removed at the sweep */
	culprits_sweep(&c, NULL, NULL);
	feed(&c, 10, 107, 4, 1100);	/* +2 waits, +400 ns */
	one_group(&r, &g, 2, 400);
	CHECK(!culprits_attach(&c, &r, NULL, 2));
	l = g.culprits;
	CHECK(l && l->n == 1 && !l->rest && l->c[0].count == 2 && l->c[0].sum_ns == 400);
	/* the pairs idle in the first interval were forgotten (not cumulative) */
	culprits_sweep(&c, NULL, NULL);
	CHECK(c.npairs <= 2);
	culprits_free(&c);
}

/*
 * --culprit-mode time: a wait is split between culprits, whose counts are
 * runs: [unattributed] comes after the top 5 whatever its size, [rest]
 * is the time neither holds (with the runs of the culprits beyond the
 * top), and the text and JSON say the mode.
 */
static void test_culprits_time(void)
{
	struct culprits c;
	struct report r;
	struct report_group g;
	const struct culprit_list *l;
	struct outbuf b = {};
	int i;

	CHECK(!culprits_init(&c, false));
	c.mode = SH_CULPRIT_TIME;
	/* 4 waits of 1000 ns in all: six culprits with 3 runs each, and the ring's miss */
	for (i = 1; i <= 6; i++)
		feed(&c, 10, 100 + i, 3, 40 * i);
	feed(&c, 10, SH_UNATTRIBUTED_ID, 1, 100);
	one_group(&r, &g, 4, 1000);
	CHECK(!culprits_attach(&c, &r, NULL, 1));
	l = g.culprits;
	CHECK(l != NULL);
	if (!l)
		return;
	CHECK_EQ_U64(l->mode, SH_CULPRIT_TIME);
	/* 240, 200, 160, 120, 80, [unattributed] 100, then [rest]: 1000 - 900 ns, 3 runs */
	CHECK_EQ_U64(l->n, SH_CULPRIT_TOP + 2);
	CHECK(!strcmp(l->c[0].name, "106") && l->c[0].sum_ns == 240 && l->c[0].count == 3);
	CHECK(!strcmp(l->c[4].name, "102") && l->c[4].sum_ns == 80);
	CHECK(!strcmp(l->c[5].name, "[unattributed]") && l->c[5].sum_ns == 100);
	CHECK(l->rest && !strcmp(l->c[6].name, "[rest]"));
	CHECK_EQ_U64(l->c[6].sum_ns, 100);
	CHECK_EQ_U64(l->c[6].count, 3);
	extra_text(&b, &g, &r);
	/* (a tid key's culprits with their names: none fed here) */
	CHECK(ob_cstr(&b) && strstr(b.p, "waited behind, by time: 106 () 24% (3), "));
	CHECK(strstr(b.p, ", 102 () 8% (3), [unattributed] 10% (1), [rest] 10% (3)\n"));
	b.len = 0;
	extra_json(&b, &g);
	CHECK(ob_cstr(&b) && strstr(b.p, "\"culprit_mode\":\"time\",\"culprits\":[{\"key\":\"106\""));
	ob_free(&b);
	culprits_free(&c);
}

/* A pair the kernel made again after its removal counts from zero. */
static int removed;

static int fake_remove(void *ctx, const struct sh_culprit_key *key, struct sh_culprit_val *val)
{
	(void)ctx;
	(void)key;
	memset(val, 0, sizeof(*val));
	val->count = 6;	/* 1 more than read: it came after the reading */
	val->sum_ns = 60;
	removed++;
	return 0;
}

static void test_culprits_remove(void)
{
	struct culprits c;
	struct report r;
	struct report_group g;

	CHECK(!culprits_init(&c, true));
	feed(&c, 10, 200, 5, 50);
	culprits_sweep(&c, fake_remove, NULL);	/* active this interval: kept */
	CHECK_EQ_U64(removed, 0);
	feed(&c, 10, 200, 5, 50);		/* idle now */
	culprits_sweep(&c, fake_remove, NULL);
	CHECK_EQ_U64(removed, 1);
	/* made again by the kernel: 2 waits from zero */
	feed(&c, 10, 200, 2, 20);
	one_group(&r, &g, 8, 80);
	CHECK(!culprits_attach(&c, &r, NULL, 3));
	/* cumulative: 5 + 1 (read at the removal) + 2 */
	CHECK(g.culprits && g.culprits->c[0].count == 8 && g.culprits->c[0].sum_ns == 80);
	culprits_free(&c);
}


/* culprits_every(): every culprit of the interval, not only the top 5, whatever the span. */
static size_t each_n;
static __u64 each_sum, each_first;
static char each_last[16];

/* Group 0 of @r's culprits in @set into the each_* figures. */
static void each_of(const struct culprit_set *set, const struct report *r)
{
	const struct culprit *l;
	size_t i, n;

	CHECK(r->ngroups == 1 && r->groups[0].key.id == 10);
	l = culprit_set_of(set, 0, &n);
	each_n = n;
	each_sum = 0;
	for (i = 0; i < n; i++) {
		each_sum += l[i].sum_ns;
		CHECK(!i || l[i].sum_ns <= l[i - 1].sum_ns);	/* largest first */
	}
	each_first = n ? l[0].sum_ns : 0;
	snprintf(each_last, sizeof(each_last), "%s", n ? l[n - 1].name : "");
}

/*
 * The pair caches: a pair's total is its map value plus the CPUs' cache
 * entries for it, a move from cache to map changes no total, and a pair
 * in a cache is never removed from the map (part of its total is there).
 */
static int removed_plain;

static int plain_remove(void *ctx, const struct sh_culprit_key *key, struct sh_culprit_val *val)
{
	(void)key;
	memcpy(val, ctx, sizeof(*val));	/* what the map held */
	removed_plain++;
	return 0;
}

static void add(struct culprits *c, __u64 w, __u64 cu, __u64 n, __u64 s, bool cached)
{
	struct sh_culprit_val v = { .count = n, .sum_ns = s };
	struct sh_culprit_key k = pair(w, cu);

	CHECK(!culprits_add(c, &k, &v, cached));
}

static void test_culprits_cache(void)
{
	struct sh_culprit_val map200 = { .count = 5, .sum_ns = 50 };
	struct culprits c;
	struct report r;
	struct report_group g;
	const struct culprit_list *l;

	CHECK(!culprits_init(&c, false));
	/* reading 1: (10,200) in the map and in CPU 0's cache, (10,201) in CPU 1's cache only */
	culprits_begin(&c);
	add(&c, 10, 200, 3, 30, false);
	add(&c, 10, 200, 2, 20, true);
	add(&c, 10, 201, 4, 40, true);
	culprits_end(&c);
	one_group(&r, &g, 9, 90);
	CHECK(!culprits_attach(&c, &r, NULL, 1));
	l = g.culprits;
	CHECK(l && l->n == 2 && !l->rest);
	if (!l || l->n != 2)
		return;
	CHECK(!strcmp(l->c[0].name, "200") && l->c[0].count == 5 && l->c[0].sum_ns == 50);
	CHECK(!strcmp(l->c[1].name, "201") && l->c[1].count == 4 && l->c[1].sum_ns == 40);
	culprits_sweep(&c, plain_remove, &map200);
	CHECK_EQ_U64(removed_plain, 0);

	/* reading 2: CPU 0 moved (10,200) into the map; nothing new anywhere */
	culprits_begin(&c);
	add(&c, 10, 200, 5, 50, false);
	add(&c, 10, 201, 4, 40, true);
	culprits_end(&c);
	one_group(&r, &g, 0, 0);
	CHECK(!culprits_attach(&c, &r, NULL, 2));
	CHECK(g.culprits == NULL);
	/* both idle: (10,200) leaves the map, (10,201) is in a cache and stays */
	culprits_sweep(&c, plain_remove, &map200);
	CHECK_EQ_U64(removed_plain, 1);

	/* reading 3: one more wait behind 201 (in the cache), one behind 200 (a new map entry) */
	culprits_begin(&c);
	add(&c, 10, 201, 5, 50, true);
	add(&c, 10, 200, 1, 7, false);
	culprits_end(&c);
	one_group(&r, &g, 2, 17);
	CHECK(!culprits_attach(&c, &r, NULL, 3));
	l = g.culprits;
	CHECK(l && l->n == 2 && !l->rest);
	if (l && l->n == 2) {
		CHECK(!strcmp(l->c[0].name, "201") && l->c[0].count == 1 && l->c[0].sum_ns == 10);
		CHECK(!strcmp(l->c[1].name, "200") && l->c[1].count == 1 && l->c[1].sum_ns == 7);
	}
	culprits_free(&c);
}

static void test_culprits_every(void)
{
	struct culprit_set set = { 0 };
	struct culprits c;
	struct report r;
	struct report_group g;
	int i;

	CHECK(!culprits_init(&c, true));	/* reports since start: each gives deltas still */
	for (i = 1; i <= 7; i++)
		feed(&c, 10, 100 + i, 1, 50 * i);
	feed(&c, 11, 101, 5, 5000);
	one_group(&r, &g, 20, 3000);
	CHECK(!culprits_every(&c, &r, NULL, 1, &set));
	each_of(&set, &r);
	CHECK_EQ_U64(each_n, 7);
	CHECK_EQ_U64(each_sum, 50 * 28);
	CHECK_EQ_U64(each_first, 350);
	CHECK(!strcmp(each_last, "101"));
	/* the next interval: only what changed */
	culprits_sweep(&c, NULL, NULL);
	feed(&c, 10, 103, 3, 450);
	one_group(&r, &g, 2, 300);
	CHECK(!culprits_every(&c, &r, NULL, 2, &set));
	each_of(&set, &r);
	CHECK_EQ_U64(each_n, 1);
	CHECK_EQ_U64(each_sum, 300);
	/* a group with no pair has none */
	culprits_sweep(&c, NULL, NULL);
	CHECK(!culprits_every(&c, &r, NULL, 3, &set));
	each_of(&set, &r);
	CHECK_EQ_U64(each_n, 0);
	culprit_set_free(&set);
	culprits_free(&c);
}

static void test_ksyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t do_nanosleep\n"
		"ffffffff81000100 t do_nanosleep_alias\n"
		"ffffffff81000180 d some_data\n"
		"ffffffff81000200 T hrtimer_nanosleep\n"
		"ffffffffc0001000 t mod_fn\t[mymod]\n"
		"0000000000000000 T zero\n"
		"garbage line\n";
	struct ksyms k;
	char buf[128];

	CHECK(!ksyms_parse(&k, text));
	CHECK_EQ_U64(k.n, 5);	/* text symbols with an address */
	ksyms_format(&k, 0xffffffff8100011aULL, buf, sizeof(buf));
	/* its size: to the next text symbol at a higher address (data is not one) */
	CHECK(!strncmp(buf, "do_nanosleep", 12) && strstr(buf, "+0x1a/0x100"));
	ksyms_format(&k, 0xffffffffc0001010ULL, buf, sizeof(buf));
	CHECK(!strcmp(buf, "mod_fn+0x10/0x0 [mymod]"));
	ksyms_format(&k, 0x1000, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0x1000"));
	ksyms_free(&k);
}


/* How fake_lookup() answers: as the kernel's entry can be read. */
enum fake_stack { STACK_KEPT, STACK_LOCKED, STACK_MOVING };

static int fake_lookup(void *ctx, const struct sh_key *key, struct sh_stacks *val)
{
	static unsigned int reads;
	struct sh_stack *s = &val->s[SH_METRIC_RUNQ][7 & 1];
	enum fake_stack how = *(enum fake_stack *)ctx;

	(void)key;
	memset(val, 0, sizeof(*val));
	s->ns = 200;
	s->epoch = 7;
	s->nr = 2;
	s->ip[0] = 0xffffffff81000104ULL;
	s->ip[1] = 0xffffffff81000010ULL;
	/* the other parity holds a stale one of another epoch */
	val->s[SH_METRIC_RUNQ][1 - (7 & 1)].epoch = 5;
	val->s[SH_METRIC_RUNQ][1 - (7 & 1)].nr = 1;
	/* a CPU writing the stack: its lock taken */
	if (how == STACK_LOCKED)
		s->lock = 1;
	/* a write between the two readings: the frames differ, ns and epoch too soon to tell */
	if (how == STACK_MOVING && reads++ % 2)
		s->ip[1] = 0xffffffff81000020ULL;
	return 0;
}

static void test_stacks_pick(void)
{
	static const char text[] = "ffffffff81000000 T a\nffffffff81000100 T b\n";
	enum fake_stack how = STACK_KEPT;
	struct stacks_state st;
	struct ksyms k;
	struct report r;
	struct report_group g;

	CHECK(!ksyms_parse(&k, text));
	stacks_init(&st);
	one_group(&r, &g, 3, 300);
	g.t.max_ns = 200;
	g.t.max_cpu = 1;
	g.t.max_epoch = 7;
	CHECK(!stacks_attach(&st, fake_lookup, &how, &k, &r));
	CHECK(g.max_stack && g.max_stack->n == 2);
	if (g.max_stack) {
		CHECK(!strcmp(g.max_stack->f[0], "b+0x4/0x0"));
		CHECK(!strcmp(g.max_stack->f[1], "a+0x10/0x100"));
	}
	/* a stack being written (its lock taken): none */
	how = STACK_LOCKED;
	CHECK(!stacks_attach(&st, fake_lookup, &how, &k, &r));
	CHECK(g.max_stack == NULL);
	/* a stack written between the two readings: none */
	how = STACK_MOVING;
	CHECK(!stacks_attach(&st, fake_lookup, &how, &k, &r));
	CHECK(g.max_stack == NULL);
	/* a max the map no longer holds (another ns): no stack */
	how = STACK_KEPT;
	g.t.max_ns = 201;
	CHECK(!stacks_attach(&st, fake_lookup, &how, &k, &r));
	CHECK(g.max_stack == NULL);
	/* nor of another epoch of the same parity */
	g.t.max_ns = 200;
	g.t.max_epoch = 9;
	CHECK(!stacks_attach(&st, fake_lookup, &how, &k, &r));
	CHECK(g.max_stack == NULL);
	stacks_free(&st);
	ksyms_free(&k);
}

static void test_cgstat(void)
{
	struct cgstat a, b, d;

	/* v2 with the cpu controller */
	cgstat_parse("usage_usec 100\nnr_periods 50\nnr_throttled 45\nthrottled_usec 4000\n",
		     "some avg10=1.00 avg60=0 avg300=0 total=1000\n"
		     "full avg10=0.00 avg60=0 avg300=0 total=500\n", &a);
	CHECK(a.has_throttle && a.nr_throttled == 45 && a.throttled_ns == 4000000);
	CHECK_EQ_U64(a.nr_periods, 50);
	CHECK(a.has_some && a.pressure_some_ns == 1000000 && a.has_full &&
	      a.pressure_full_ns == 500000);
	/* v1 cpu controller: ns, no pressure file */
	cgstat_parse("nr_periods 3\nnr_throttled 2\nthrottled_time 123456\n", NULL, &b);
	CHECK(b.has_throttle && b.throttled_ns == 123456 && !b.has_some && !b.has_full);
	/* v2 without the cpu controller: no throttling lines, absent */
	cgstat_parse("usage_usec 100\nuser_usec 50\n", "some avg10=0 avg60=0 avg300=0 total=7\n", &b);
	CHECK(!b.has_throttle && b.has_some && !b.has_full);
	/* deltas: known where both readings are */
	cgstat_parse("nr_periods 60\nnr_throttled 50\nthrottled_usec 5000\n",
		     "some avg10=0 avg60=0 avg300=0 total=3000\n", &b);
	cgstat_delta(&b, &a, &d);
	CHECK(d.has_throttle && d.nr_throttled == 5 && d.throttled_ns == 1000000);
	CHECK_EQ_U64(d.nr_periods, 10);
	CHECK(d.has_some && d.pressure_some_ns == 2000000 && !d.has_full);
	/* a counter that went back: unknown, not a huge number */
	cgstat_delta(&a, &b, &d);
	CHECK(!d.has_throttle && !d.has_some);
}

static void test_min_clamp(void)
{
	static __u64 b[SH_NBUCKETS_MAX];
	struct totals t;
	__u64 p50, p99;

	totals_init(&t, b);
	/* 21 waits of about 100 ms, one of them 104 ms: all in (62.5, 125] ms */
	t.buckets[bucket_of(100000000)] = 21;
	t.count = 21;
	t.sum_ns = 20 * 100100000ULL + 104000000ULL;
	t.max_ns = 104000000;
	t.has_min = true;
	t.min_ns = 100050000;
	p50 = totals_quantile(&t, 0.5);
	p99 = totals_quantile(&t, 0.99);
	CHECK(p50 >= t.min_ns && p50 <= t.max_ns);
	/* through the exact mean: within 0.5 % of 100.1 ms, not half way to the outlier */
	CHECK(p50 > 99600000 && p50 < 100600000);
	CHECK(p99 >= p50 && p99 <= t.max_ns);
	/*
	 * without the min, and a wait in another bucket: the bucket's mean
	 * is the sum less that wait at its bucket's middle (1.46 ms for 1 ms),
	 * still within 1 % of 100.1 ms
	 */
	t.has_min = false;
	t.buckets[bucket_of(1000000)] = 1;
	t.count = 22;
	t.sum_ns += 1000000;
	CHECK(totals_quantile(&t, 0.5) > 99100000 && totals_quantile(&t, 0.5) < 101100000);
	/* the min clamps from below */
	t.has_min = true;
	t.min_ns = 100050000;
	CHECK(totals_quantile(&t, 0.01) >= 100050000);
}

static void test_min_count(void)
{
	struct report_group gs[3] = {};
	for (int gi_ = 0; gi_ < 3; gi_++)
		gs[gi_].t.buckets = test_buckets();
	struct rank_rec order[6];	/* 2 * cap: the records and the sort's scratch */
	struct report_group spare[3];
	struct report r = {};
	report_init(&r);

	gs[0].name = "many";
	gs[0].t.count = 100;
	gs[0].pct.p99 = 1000;
	gs[1].name = "few";
	gs[1].t.count = 2;
	gs[1].pct.p99 = 900000;
	gs[2].name = "some";
	gs[2].t.count = 10;
	gs[2].pct.p99 = 2000;
	r.groups = gs;
	r.spare = spare;
	r.order = order;
	r.ngroups = 3;
	r.cap = 3;
	report_rank(&r, SH_SORT_P99, 0, 5);
	CHECK(!strcmp(r.groups[0].name, "some") && !strcmp(r.groups[1].name, "many"));
	CHECK(!strcmp(r.groups[2].name, "few") && r.groups[2].below_min_count);
	CHECK(!r.groups[0].below_min_count);
	/* off: p99 alone */
	report_rank(&r, SH_SORT_P99, 0, 0);
	CHECK(!strcmp(r.groups[0].name, "few") && !r.groups[0].below_min_count);
}

/* Waits of zero length blame nobody: no top culprit, no "waited behind" line. */
static void test_culprits_zero_length(void)
{
	struct culprit_list l = { .n = 1 };
	struct report r;
	struct report_group g;
	struct outbuf b = {};
	char buf[64];

	one_group(&r, &g, 4, 0);
	l.c[0] = (struct culprit){ .name = "forkstorm", .count = 4, .sum_ns = 0 };
	g.culprits = &l;
	extra_top_culprit(buf, sizeof(buf), &g);
	CHECK(!strcmp(buf, "-"));
	extra_text(&b, &g, &r);
	CHECK(!ob_cstr(&b) || !strstr(b.p, "waited behind"));
	ob_free(&b);
	/* with time behind it, the culprit is named */
	l.c[0].sum_ns = 1000;
	extra_top_culprit(buf, sizeof(buf), &g);
	CHECK(!strcmp(buf, "forkstorm 100%"));
}

/* A pressure stall is wall time: at most the span; throttling is not clamped. */
static void test_pressure_share(void)
{
	struct report r = { .span_s = 1.0 };
	char buf[32];

	extra_pressure(buf, sizeof(buf), true, 1003000000, &r);
	CHECK(!strcmp(buf, "100.0%"));
	extra_pressure(buf, sizeof(buf), true, 500000000, &r);
	CHECK(!strcmp(buf, "50.0%"));
	extra_pressure(buf, sizeof(buf), false, 0, &r);
	CHECK(!strcmp(buf, "-"));
	/* throttled time is summed over the CPUs: above 100% on several */
	extra_share(buf, sizeof(buf), true, 1500000000, &r);
	CHECK(!strcmp(buf, "150.0%"));
}

/* Write @text to @dir/@name. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The counters read at start give the first report its deltas: PSI of a
 * cgroup known at start is there in the first report, not only the second.
 */
static void test_cgstat_seed(void)
{
	char root[] = "/tmp/sh-cgseed-XXXXXX", sub[600];
	struct cg_name names[2];
	struct cgroups cg = { 0 };
	struct cgstat_table cs = { 0 };
	struct report r;
	struct report_group g;

	CHECK(mkdtemp(root) != NULL);
	snprintf(sub, sizeof(sub), "%s/a.slice", root);
	CHECK(!mkdir(sub, 0755));
	put_file(sub, "cpu.pressure", "some avg10=0 avg60=0 avg300=0 total=1000\n");
	snprintf(cg.mount, sizeof(cg.mount), "%s", root);
	names[0] = (struct cg_name){ .id = 7, .path = "/a.slice" };
	names[1] = (struct cg_name){ .id = 9, .path = "/gone.slice" };
	cg.names = names;
	cg.nnames = 2;
	{
		struct tick t;

		tick_init(&t, &(struct tick_spec){ .cgstat = true });
		CHECK(!tick_start(&t, &cg));
		cs = t.cgstats;	/* the table tick_start() seeded, taken over */
	}
	CHECK_EQ_U64(cs.n, 2);
	/* 1 ms more stall by the first report */
	put_file(sub, "cpu.pressure", "some avg10=0 avg60=0 avg300=0 total=2000\n");
	one_group(&r, &g, 1, 10);
	r.key_type = SH_KEY_CGROUP;
	g.is_cgroup = true;
	g.key.id = 7;
	g.name = "/a.slice";
	CHECK(!tick_attach_cgstat(&cs, &r, &cg, 1, false));
	cgstat_table_end(&cs, 1);
	CHECK(g.cgs.has_some);
	CHECK_EQ_U64(g.cgs.pressure_some_ns, 1000000);
	CHECK(!g.cgs.has_throttle);
	/* the cgroup not in the report was dropped; the reported one kept */
	CHECK_EQ_U64(cs.n, 1);
	cgstat_table_free(&cs);
	snprintf(sub, sizeof(sub), "%s/a.slice/cpu.pressure", root);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/a.slice", root);
	rmdir(sub);
	rmdir(root);
}

int main(void)
{
	TEST(test_culprits_rank);
	TEST(test_culprits_time);
	TEST(test_culprits_remove);
	TEST(test_culprits_cache);
	TEST(test_culprits_every);
	TEST(test_ksyms);
	TEST(test_stacks_pick);
	TEST(test_cgstat);
	TEST(test_min_clamp);
	TEST(test_min_count);
	TEST(test_culprits_zero_length);
	TEST(test_pressure_share);
	TEST(test_cgstat_seed);
	return test_summary();
}
