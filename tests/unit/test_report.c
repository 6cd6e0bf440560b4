// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/report.c: snapshot -> named, ranked groups. Ranking
 * by each --sort, --top folding into [rest], cumulative totals with
 * [exited], the [other] key, key names (decimal ids that stay right after
 * the groups move), totals and percentiles of the whole report.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schedhist.h"
#include "cli/options.h"
#include "model/report.h"
#include "cli/specs.h"
#include "check.h"


#define MAX_ARGS 16

/* parse_options on "schedhist" + @args (NULL-terminated); must succeed. */

/* report_build() with the report spec of @o: as main builds it. */
static int build_o(struct report *r, struct snapshot *s, const struct options *o,
		   const struct cgroups *cg, double span_s)
{
	struct report_spec sp = report_spec_of(o);

	s->metric = o->metric;	/* the poller keeps one snapshot per metric */
	return report_build(r, s, &sp, cg, span_s);
}

/* The poll loop's cgroup step: learn the names of @s's keys (one walk per @gen). */
static void learn_cgroups(struct cgroups *cg, struct snapshot *s, __u64 gen)
{
	struct snap_entry *e;
	size_t it;

	for (e = NULL, it = 0; (e = snapshot_next(s, &it, e));)
		if (e->key.id != SH_OTHER_ID && e->key.id != SH_EXITED_ID)
			cg_path(cg, e->key.id, gen);
}

static void opts(struct options *o, const char *const *args)
{
	char *argv[MAX_ARGS];
	int argc = 0;

	argv[argc++] = "schedhist";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	if (parse_options(argc, argv, o) != -1) {
		fprintf(stderr, "parse_options failed\n");
		exit(1);
	}
}

#define OPTS(o, ...) opts((o), (const char *const[]){ __VA_ARGS__, NULL })

/* The kernel's cumulative values of one key, on one CPU. */
struct fake_key {
	__u64 id;
	const char *comm;	/* key comm (-k comm) or task name (pid/tid) */
	union {	/* with its buckets: room for the finest grid */
		struct sh_hist h;
		char h_room[SH_HIST_SIZE(SH_NBUCKETS_MAX)];
	};
};

/* Add @n waits of @ns to @k, and make @ns its max in @epoch if larger. */
static void waits(struct fake_key *k, __u64 ns, __u32 n, __u32 epoch)
{
	int b = bucket_of(ns);

	k->h.buckets[b] += n;
	k->h.count += n;
	k->h.sum_ns += ns * n;
	struct sh_max *m = &k->h.max[epoch & 1];

	if (m->epoch != epoch || ns > m->ns) {
		m->epoch = epoch;
		m->ns = ns;
		m->tid = (__u32)(k->id < 100000 ? k->id : 1);
		m->pid = m->tid;
		m->cpu = 2;
		snprintf(m->comm, SH_COMM_LEN, "%s", k->comm ? k->comm : "x");
	}
}

static void feed(struct snapshot *s, struct fake_key *k, int key_type, bool final)
{
	struct sh_key key = { .id = k->id };

	if (key_type == SH_KEY_COMM && k->id != SH_OTHER_ID) {
		key.id = 0;
		snprintf(key.comm, SH_COMM_LEN, "%s", k->comm);
	}
	if ((key_type == SH_KEY_PID || key_type == SH_KEY_TID) && k->comm)
		snprintf(k->h.comm, SH_COMM_LEN, "%s", k->comm);
	CHECK(snapshot_ingest(s, &key, &k->h, 1, sizeof(k->h), final) != NULL);
}

static const struct report_group *group_named(const struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].name, name))
			return &r->groups[i];
	return NULL;
}

static __u64 shown_count(const struct report *r)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < r->ngroups; i++)
		n += r->groups[i].t.count;
	return n;
}

/*
 * Four threads whose ranks differ per sort:
 *   tid  count  each      sum        avg      max
 *   101  100    10 us     1 ms       10 us    10 us
 *   202  10     500 us    5 ms       500 us   500 us
 *   303  1000   2 us      2 ms       2 us     2 us
 *   404  3      1 us + 2 ms (x1)     ...      2 ms
 */
static void four_threads(struct snapshot *s, struct fake_key k[4])
{
	int i;

	memset(k, 0, 4 * sizeof(*k));
	k[0].id = 101, k[0].comm = "alpha";
	k[1].id = 202, k[1].comm = "beta";
	k[2].id = 303, k[2].comm = "gamma";
	k[3].id = 404, k[3].comm = "delta";
	waits(&k[0], 10000, 100, 1);
	waits(&k[1], 500000, 10, 1);
	waits(&k[2], 2000, 1000, 1);
	waits(&k[3], 1000, 2, 1);
	waits(&k[3], 2000000, 1, 1);
	CHECK(!snapshot_init(s));
	snapshot_begin(s, 1);
	for (i = 0; i < 4; i++)
		feed(s, &k[i], SH_KEY_TID, false);
}

static void check_order(const struct report *r, const char *a, const char *b, const char *c,
			const char *d)
{
	const char *want[4] = { a, b, c, d };
	size_t i;

	CHECK_EQ_U64(r->ngroups, 4);
	for (i = 0; i < 4 && i < r->ngroups; i++) {
		if (strcmp(r->groups[i].name, want[i])) {
			fprintf(stderr, "  group %zu is %s, want %s\n", i, r->groups[i].name,
				want[i]);
			CHECK(!"order");
		}
	}
}

static void test_rank(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[4];
	struct options o;

	four_threads(&s, k);

	OPTS(&o, "-L");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	/* sums: 202 5 ms, 404 2.002 ms, 303 2 ms, 101 1 ms */
	check_order(&r, "202", "404", "303", "101");
	OPTS(&o, "-L", "--sort", "sum");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	check_order(&r, "202", "404", "303", "101");
	OPTS(&o, "-L", "--sort", "count");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	check_order(&r, "303", "101", "202", "404");
	OPTS(&o, "-L", "--sort", "avg");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	/* avg: 404 666.7 us, 202 500 us, 101 10 us, 303 2 us */
	check_order(&r, "404", "202", "101", "303");
	OPTS(&o, "-L", "--sort", "max");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	check_order(&r, "404", "202", "101", "303");
	OPTS(&o, "-L", "--sort", "p99");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	/* p99: 404 = its max 2 ms (rank 3 of 3), 202 500 us, 101 ~10 us, 303 ~2 us */
	check_order(&r, "404", "202", "101", "303");
	CHECK_EQ_U64(r.groups[0].pct.p99, 2000000);

	/* names, task names and totals follow their group */
	{
		const struct report_group *g = group_named(&r, "303");

		CHECK(g != NULL);
		if (g) {
			CHECK_EQ_U64(g->key.id, 303);
			CHECK(g->comm && !strcmp(g->comm, "gamma"));
			CHECK_EQ_U64(g->t.count, 1000);
			CHECK_EQ_U64(g->t.sum_ns, 2000000);
			CHECK_EQ_U64(g->t.max_ns, 2000);
			CHECK(!g->synthetic);
			CHECK(!g->is_cgroup);
		}
	}
	CHECK_EQ_U64(r.all.count, 1113);
	CHECK_EQ_U64(r.all.sum_ns, 1000000 + 5000000 + 2000000 + 2002000);
	CHECK_EQ_U64(r.all.max_ns, 2000000);
	CHECK_EQ_U64(r.all.max_tid, 404);
	CHECK_EQ_U64(r.all_pct.p50, totals_quantile(&r.all, 0.50));
	CHECK_EQ_U64(r.all_pct.p99, totals_quantile(&r.all, 0.99));
	CHECK_EQ_U64(r.live_keys, 4);
	CHECK_EQ_U64(r.rest.nkeys, 0);
	CHECK_EQ_U64(r.key_type, SH_KEY_TID);
	CHECK_EQ_U64(r.metric, SH_METRIC_OFFCPU);
	report_free(&r);
	snapshot_free(&s);
}

/* Equal sums and counts: ordered by name. */
static void test_rank_ties(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[3] = {};
	struct options o;
	int i;

	k[0].id = 30, k[1].id = 4, k[2].id = 200;
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < 3; i++) {
		waits(&k[i], 5000, 2, 1);
		feed(&s, &k[i], SH_KEY_PID, false);
	}
	OPTS(&o, "-P");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 3);
	/* strcmp order of the names */
	CHECK(!strcmp(r.groups[0].name, "200"));
	CHECK(!strcmp(r.groups[1].name, "30"));
	CHECK(!strcmp(r.groups[2].name, "4"));
	CHECK(r.groups[0].comm && !r.groups[0].comm[0]);	/* no task name seen */
	report_free(&r);
	snapshot_free(&s);

	/* many ties: the names compared while sorting must be the groups' own */
	{
		struct fake_key t[150];
		size_t j;
		int bad = 0;

		memset(t, 0, sizeof(t));
		CHECK(!snapshot_init(&s));
		snapshot_begin(&s, 1);
		for (i = 0; i < 150; i++) {
			t[i].id = 7000 - (__u64)i * 13;
			waits(&t[i], 5000, 2, 1);
			feed(&s, &t[i], SH_KEY_TID, false);
		}
		OPTS(&o, "-L");
		CHECK(!build_o(&r, &s, &o, NULL, 1.0));
		CHECK_EQ_U64(r.ngroups, 150);
		for (j = 1; j < r.ngroups; j++)
			bad += strcmp(r.groups[j - 1].name, r.groups[j].name) >= 0;
		CHECK_EQ_U64(bad, 0);
		report_free(&r);
		snapshot_free(&s);
	}
}

/*
 * Many tid keys: the group array is reallocated and sorted. Each name must
 * be its own id in decimal, inside its own group (not a name left pointing
 * into another entry of the reallocated array).
 */
static void test_names_after_sort(void)
{
	enum { N = 300 };
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key *k = calloc(N, sizeof(*k));
	struct options o;
	char want[32];
	size_t i;
	int bad = 0, pass;

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < N; i++) {
		k[i].id = 1000 + i * 7;
		k[i].comm = "t";
		/* sums not in id order: the sort really moves groups around */
		waits(&k[i], 1000 + (i * 7919) % 1000003, 1 + (__u32)(i % 5), 1);
		feed(&s, &k[i], SH_KEY_TID, false);
	}
	for (pass = 0; pass < 3; pass++) {
		static const char *const sorts[] = { "sum", "count", "max" };

		OPTS(&o, "-L", "--sort", sorts[pass], "--top", "50");
		CHECK(!build_o(&r, &s, &o, NULL, 1.0));
		CHECK_EQ_U64(r.ngroups, 50);
		CHECK_EQ_U64(r.rest.nkeys, N - 50);
		for (i = 0; i < r.ngroups; i++) {
			const struct report_group *g = &r.groups[i];

			snprintf(want, sizeof(want), "%" PRIu64, (uint64_t)g->key.id);
			if (strcmp(g->name, want) || g->name != g->idbuf)
				bad++;
			if (i && !strcmp(sorts[pass], "sum") && g->t.sum_ns > g[-1].t.sum_ns)
				bad++;
			if (i && !strcmp(sorts[pass], "count") && g->t.count > g[-1].t.count)
				bad++;
			if (i && !strcmp(sorts[pass], "max") && g->t.max_ns > g[-1].t.max_ns)
				bad++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	report_free(&r);
	snapshot_free(&s);
	free(k);
}

/* --top N: the rest folds into r->rest and nothing is lost. */
static void test_top(void)
{
	enum { N = 10 };
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[N] = {};
	struct options o;
	__u64 total = 0, rest_sum = 0, rest_max = 0;
	int i;

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < N; i++) {
		k[i].id = 500 + i;
		k[i].comm = "w";
		/* key 500 + i has sum (i + 1) * 10 us * (i + 1) */
		waits(&k[i], 10000ULL * (i + 1), (__u32)(i + 1), 1);
		total += i + 1;
		feed(&s, &k[i], SH_KEY_TID, false);
	}
	for (i = 0; i < N - 3; i++) {
		rest_sum += 10000ULL * (i + 1) * (i + 1);
		rest_max = 10000ULL * (i + 1);
	}

	OPTS(&o, "-L", "--top", "3");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 3);
	CHECK(!strcmp(r.groups[0].name, "509"));
	CHECK(!strcmp(r.groups[1].name, "508"));
	CHECK(!strcmp(r.groups[2].name, "507"));
	CHECK(!strcmp(r.rest.name, "[rest]"));
	CHECK(r.rest.synthetic);
	CHECK_EQ_U64(r.rest.nkeys, N - 3);
	CHECK_EQ_U64(r.rest.t.count, total - (10 + 9 + 8));
	CHECK_EQ_U64(r.rest.t.sum_ns, rest_sum);
	CHECK_EQ_U64(r.rest.t.max_ns, rest_max);
	CHECK_EQ_U64(r.rest.t.max_tid, 506);
	CHECK_EQ_U64(r.rest.pct.p99, totals_quantile(&r.rest.t, 0.99));
	CHECK(r.rest.pct.p50 > 0);
	CHECK_EQ_U64(shown_count(&r) + r.rest.t.count, total);
	CHECK_EQ_U64(r.all.count, total);	/* the rest is part of the report */

	/* --top with the sort: the 3 highest counts are the same keys */
	OPTS(&o, "-L", "--top", "3", "--sort", "count");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK(!strcmp(r.groups[0].name, "509"));
	CHECK_EQ_U64(shown_count(&r) + r.rest.t.count, total);

	/* --top at or above the number of keys: no rest */
	OPTS(&o, "-L", "--top", "10");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, N);
	CHECK_EQ_U64(r.rest.nkeys, 0);
	CHECK_EQ_U64(r.rest.t.count, 0);
	OPTS(&o, "-L", "--top", "1");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 1);
	CHECK_EQ_U64(r.rest.nkeys, N - 1);
	CHECK_EQ_U64(shown_count(&r) + r.rest.t.count, total);
	/* a rebuild without --top forgets the rest */
	OPTS(&o, "-L");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, N);
	CHECK_EQ_U64(r.rest.nkeys, 0);
	report_free(&r);
	snapshot_free(&s);
}

/* Interval vs since start; pruned keys show as [exited] since start. */
static void test_cumulative(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[3] = {};
	struct options o;
	__u64 st1[SH_STAT_NR] = { 100, 3, 4, 0, 0 }, st2[SH_STAT_NR] = { 160, 5, 4, 1, 0 };
	int i;

	k[0].id = 11, k[0].comm = "a";
	k[1].id = 22, k[1].comm = "b";
	k[2].id = 33, k[2].comm = "c";
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < 3; i++) {
		waits(&k[i], 4000, 10 * (i + 1), 1);
		feed(&s, &k[i], SH_KEY_TID, false);
	}
	snapshot_stats(&s, st1);
	snapshot_gc(&s);

	/* interval 2: 11 gets 5 more waits, 22 none, 33 exits after 1 more */
	snapshot_begin(&s, 2);
	waits(&k[0], 8000, 5, 2);
	waits(&k[2], 8000, 1, 2);
	for (i = 0; i < 3; i++)
		feed(&s, &k[i], SH_KEY_TID, false);
	feed(&s, &k[2], SH_KEY_TID, true);
	snapshot_stats(&s, st2);

	OPTS(&o, "-L");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK(!r.cumulative);
	CHECK_EQ_U64(r.ngroups, 2);	/* 22 had no waits this interval */
	CHECK(group_named(&r, "11") && group_named(&r, "11")->t.count == 5);
	CHECK(group_named(&r, "33") && group_named(&r, "33")->t.count == 1);
	CHECK(group_named(&r, "[exited]") == NULL);
	CHECK_EQ_U64(r.all.count, 6);
	CHECK_EQ_U64(r.stats[SH_STAT_SEEN], 60);
	CHECK_EQ_U64(r.stats[SH_STAT_NO_START], 2);
	CHECK_EQ_U64(report_lost(&r), 3);	/* no_start 2 + dropped 1 */
	CHECK_EQ_U64(r.live_keys, 2);		/* 11 and 22; 33 is pruned */

	OPTS(&o, "-L", "--cumulative");
	CHECK(!build_o(&r, &s, &o, NULL, 2.0));
	CHECK(r.cumulative);
	CHECK_EQ_U64(r.ngroups, 3);
	CHECK(group_named(&r, "11") && group_named(&r, "11")->t.count == 15);
	CHECK(group_named(&r, "22") && group_named(&r, "22")->t.count == 20);
	CHECK(group_named(&r, "33") && group_named(&r, "33")->t.count == 31);
	CHECK_EQ_U64(r.stats[SH_STAT_SEEN], 160);
	CHECK_EQ_U64(report_lost(&r), 6);
	report_free(&r);

	/* after the report, the pruned key moves to [exited] */
	snapshot_gc(&s);
	snapshot_begin(&s, 3);
	waits(&k[1], 2000, 1, 3);
	feed(&s, &k[0], SH_KEY_TID, false);
	feed(&s, &k[1], SH_KEY_TID, false);
	CHECK(!build_o(&r, &s, &o, NULL, 3.0));
	CHECK_EQ_U64(r.ngroups, 3);
	{
		const struct report_group *g = group_named(&r, "[exited]");

		CHECK(g != NULL);
		if (g) {
			CHECK(g->synthetic);
			CHECK(g->comm == NULL);
			CHECK_EQ_U64(g->t.count, 31);
			CHECK_EQ_U64(g->t.sum_ns, 30 * 4000 + 8000);
		}
	}
	CHECK_EQ_U64(r.all.count, 15 + 21 + 31);
	CHECK_EQ_U64(r.all.count, snapshot_recorded(&s));
	CHECK_EQ_U64(r.span_s, 3.0);

	/* the interval report of the same reading has no [exited] */
	OPTS(&o, "-L");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 1);
	CHECK(group_named(&r, "22") != NULL);
	CHECK(group_named(&r, "[exited]") == NULL);
	report_free(&r);
	snapshot_free(&s);
}

/* The overflow key and the key names of every key type. */
static void test_key_names(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[3] = {};
	struct options o;
	const struct report_group *g;

	/* -k comm: the comm is the name; the [other] entry has an empty comm */
	k[0].id = 0, k[0].comm = "bash";
	k[1].id = 0, k[1].comm = "kworker/0:1";
	k[2].id = SH_OTHER_ID, k[2].comm = NULL;
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	waits(&k[0], 3000, 5, 1);
	waits(&k[1], 3000, 2, 1);
	waits(&k[2], 3000, 9, 1);
	feed(&s, &k[0], SH_KEY_COMM, false);
	feed(&s, &k[1], SH_KEY_COMM, false);
	feed(&s, &k[2], SH_KEY_COMM, false);
	OPTS(&o, "-k", "comm");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 3);
	CHECK(!strcmp(r.groups[0].name, "[other]"));
	CHECK(!strcmp(r.groups[1].name, "bash"));
	CHECK(!strcmp(r.groups[2].name, "kworker/0:1"));
	CHECK(r.groups[0].comm == NULL && r.groups[1].comm == NULL);
	CHECK(!r.groups[0].synthetic);
	CHECK_EQ_U64(r.groups[0].key.id, SH_OTHER_ID);
	CHECK_EQ_U64(r.live_keys, 2);	/* [other] is not a key of its own */
	report_free(&r);
	snapshot_free(&s);

	/* -k tid: [other] has no task name */
	memset(k, 0, sizeof(k));
	k[0].id = 4242, k[0].comm = "java";
	k[1].id = SH_OTHER_ID;
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	waits(&k[0], 3000, 5, 1);
	waits(&k[1], 3000, 1, 1);
	feed(&s, &k[0], SH_KEY_TID, false);
	feed(&s, &k[1], SH_KEY_TID, false);
	OPTS(&o, "-L");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	g = group_named(&r, "4242");
	CHECK(g && g->comm && !strcmp(g->comm, "java"));
	g = group_named(&r, "[other]");
	CHECK(g && g->comm == NULL && g->key.id == SH_OTHER_ID);
	report_free(&r);
	snapshot_free(&s);

	/* -k cpu: decimal ids, no task name */
	memset(k, 0, sizeof(k));
	k[0].id = 3;
	k[1].id = 17;
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	waits(&k[0], 3000, 5, 1);
	waits(&k[1], 3000, 1, 1);
	feed(&s, &k[0], SH_KEY_CPU, false);
	feed(&s, &k[1], SH_KEY_CPU, false);
	OPTS(&o, "-k", "cpu");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK(!strcmp(r.groups[0].name, "3") && r.groups[0].comm == NULL);
	CHECK(!strcmp(r.groups[1].name, "17"));
	report_free(&r);
	snapshot_free(&s);

	/* -k cgroup without a hierarchy to look in: removed ids */
	memset(k, 0, sizeof(k));
	k[0].id = 123456789;
	k[1].id = SH_OTHER_ID;
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	waits(&k[0], 3000, 5, 1);
	waits(&k[1], 3000, 1, 1);
	feed(&s, &k[0], SH_KEY_CGROUP, false);
	feed(&s, &k[1], SH_KEY_CGROUP, false);
	OPTS(&o, "-k", "cgroup");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	g = group_named(&r, "[removed id=123456789]");
	CHECK(g && g->is_cgroup && g->name == g->idbuf);
	g = group_named(&r, "[other]");
	CHECK(g != NULL);
	report_free(&r);
	snapshot_free(&s);

	/* -k none: one group, "all" */
	memset(k, 0, sizeof(k));
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	waits(&k[0], 3000, 5, 1);
	feed(&s, &k[0], SH_KEY_NONE, false);
	OPTS(&o, "-M", "runq");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 1);
	CHECK(!strcmp(r.groups[0].name, "all"));
	CHECK_EQ_U64(r.metric, SH_METRIC_RUNQ);
	CHECK_EQ_U64(r.groups[0].t.count, 5);
	CHECK_EQ_U64(r.groups[0].pct.p50, totals_quantile(&r.groups[0].t, 0.5));
	CHECK_EQ_U64(r.groups[0].pct.p90, totals_quantile(&r.groups[0].t, 0.9));
	CHECK_EQ_U64(r.groups[0].pct.p999, totals_quantile(&r.groups[0].t, 0.999));
	report_free(&r);
	snapshot_free(&s);
}

/* report_rank again (other sort, other top): every group takes part. */
static void test_rerank(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[4];
	struct options o;
	size_t i;
	int bad = 0;

	four_threads(&s, k);
	OPTS(&o, "-L", "--top", "2");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 2);
	CHECK_EQ_U64(r.nall, 4);
	CHECK_EQ_U64(r.rest.nkeys, 2);
	/* the folded groups stay in the array, named */
	for (i = 0; i < r.nall; i++) {
		char want[32];

		snprintf(want, sizeof(want), "%" PRIu64, (uint64_t)r.groups[i].key.id);
		bad += !!strcmp(r.groups[i].name, want);
	}
	CHECK_EQ_U64(bad, 0);

	report_rank(&r, SH_SORT_COUNT, 3, 0);
	CHECK_EQ_U64(r.ngroups, 3);
	CHECK_EQ_U64(r.nall, 4);
	CHECK(!strcmp(r.groups[0].name, "303"));
	CHECK(!strcmp(r.groups[1].name, "101"));
	CHECK(!strcmp(r.groups[2].name, "202"));
	CHECK_EQ_U64(r.rest.nkeys, 1);
	CHECK_EQ_U64(r.rest.t.count, 3);	/* 404 */
	CHECK_EQ_U64(shown_count(&r) + r.rest.t.count, r.all.count);

	report_rank(&r, SH_SORT_MAX, 0, 0);
	check_order(&r, "404", "202", "101", "303");
	CHECK_EQ_U64(r.rest.nkeys, 0);
	report_free(&r);
	snapshot_free(&s);
}

/*
 * Ranking thousands of groups (the radix sort, its runs of ties and their
 * merge sort, an odd count): every group once, each pair in order by the
 * rule of --sort (the --min-count mark, the sort key, then sum, count and
 * name), on many ties; in three shapes: 16 sums (every run a tie), sums
 * spread over five bytes with --min-count marking a quarter (the mark's
 * own pass), and --sort count (4 counts: runs of hundreds).
 */
static void test_rank_many(void)
{
	enum { N = 2345 };
	struct report_group *gs = calloc(N, sizeof(*gs)), *spare = calloc(N, sizeof(*spare));
	struct rank_rec *order = calloc(2 * N, sizeof(*order));
	struct report r = {};
	report_init(&r);
	int bad = 0, shape;

	CHECK(gs && spare && order);
	for (shape = 0; shape < 3; shape++) {
		int sort = shape == 2 ? SH_SORT_COUNT : SH_SORT_SUM;
		__u64 x = 12345 + shape, ids = 0, min_count = shape == 1 ? 1 : 0;
		size_t i;

		for (i = 0; i < N; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			memset(&gs[i], 0, sizeof(gs[i]));
			gs[i].key.id = i;
			snprintf(gs[i].idbuf, sizeof(gs[i].idbuf), "%zu", i);
			gs[i].name_in_idbuf = true;
			/* shape 1: 40 bits of sum, one in 8 shared with another group */
			gs[i].t.sum_ns = shape == 1 ? (x >> 24) & ~7ULL : (x >> 60) * 1000;
			gs[i].t.count = (x >> 58) & 3;
		}
		memset(&r, 0, sizeof(r));
		r.groups = gs;
		r.spare = spare;
		r.order = order;
		r.ngroups = N;
		r.cap = N;
		report_rank(&r, sort, 0, min_count);
		for (i = 0; i < N; i++) {
			const struct report_group *a = &r.groups[i], *b = &r.groups[i + 1];
			__u64 ka, kb;

			ids += a->key.id;
			bad += strcmp(a->name, a->idbuf) != 0;
			bad += a->below_min_count != (a->t.count < min_count);
			if (i + 1 == N)
				break;
			ka = sort == SH_SORT_COUNT ? a->t.count : a->t.sum_ns;
			kb = sort == SH_SORT_COUNT ? b->t.count : b->t.sum_ns;
			if (a->below_min_count != b->below_min_count)
				bad += a->below_min_count;
			else if (ka != kb)
				bad += ka < kb;
			else if (a->t.sum_ns != b->t.sum_ns)
				bad += a->t.sum_ns < b->t.sum_ns;
			else if (a->t.count != b->t.count)
				bad += a->t.count < b->t.count;
			else
				bad += strcmp(a->name, b->name) >= 0;
		}
		CHECK_EQ_U64(bad, 0);
		CHECK_EQ_U64(ids, (__u64)N * (N - 1) / 2);
		/* the groups swapped with the spare array: sort those again next time */
		if (r.groups != gs) {
			spare = gs;
			gs = r.groups;
		}
	}
	free(gs);
	free(spare);
	free(order);
}

/*
 * -k cgroup with a hierarchy: names are paths under the mount. A scratch
 * directory tree stands in for cgroupfs (cgroup ids are inode numbers).
 */
static void test_cgroup_names(void)
{
	char root[] = "/tmp/sh-report-XXXXXX", path[256];
	struct cgroups cg = {};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct fake_key k[4] = {};
	struct options o;
	struct stat st;
	const struct report_group *g;
	int i;

	CHECK(mkdtemp(root) != NULL);
	snprintf(cg.mount, sizeof(cg.mount), "%s", root);
	snprintf(path, sizeof(path), "%s/a.slice", root);
	CHECK(!mkdir(path, 0700));
	CHECK(!stat(path, &st));
	k[0].id = st.st_ino;
	snprintf(path, sizeof(path), "%s/a.slice/b.scope", root);
	CHECK(!mkdir(path, 0700));
	CHECK(!stat(path, &st));
	k[1].id = st.st_ino;
	CHECK(!stat(root, &st));
	k[2].id = st.st_ino;
	k[3].id = SH_OTHER_ID;

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < 4; i++) {
		waits(&k[i], 5000, (__u32)(i + 1), 1);
		feed(&s, &k[i], SH_KEY_CGROUP, false);
	}
	OPTS(&o, "-k", "cgroup", "--cumulative");
	learn_cgroups(&cg, &s, 1);
	CHECK(!build_o(&r, &s, &o, &cg, 1.0));
	CHECK_EQ_U64(r.ngroups, 4);
	g = group_named(&r, "/a.slice");
	CHECK(g && g->is_cgroup && g->key.id == k[0].id);
	g = group_named(&r, "/a.slice/b.scope");
	CHECK(g && g->key.id == k[1].id);
	g = group_named(&r, "/");
	CHECK(g && g->key.id == k[2].id);
	CHECK(group_named(&r, "[other]") != NULL);
	report_free(&r);

	/* b.scope is removed and its key pruned: kept under its id */
	snprintf(path, sizeof(path), "%s/a.slice/b.scope", root);
	CHECK(!rmdir(path));
	s.keep_pruned = true;
	s.keep_limit = 16;
	snapshot_begin(&s, 2);
	for (i = 0; i < 4; i++)
		feed(&s, &k[i], SH_KEY_CGROUP, false);
	feed(&s, &k[1], SH_KEY_CGROUP, true);
	snapshot_gc(&s);
	learn_cgroups(&cg, &s, 2);
	CHECK(!build_o(&r, &s, &o, &cg, 2.0));
	snprintf(path, sizeof(path), "[removed id=%" PRIu64 "]", (uint64_t)k[1].id);
	g = group_named(&r, path);
	CHECK(g && g->t.count == 2 && g->is_cgroup);
	CHECK(group_named(&r, "/a.slice") != NULL);
	CHECK(group_named(&r, "[exited]") == NULL);
	report_free(&r);

	snprintf(path, sizeof(path), "%s/a.slice", root);
	rmdir(path);
	rmdir(root);
	cg_close(&cg);
	snapshot_free(&s);
}

/* No waits at all: no groups, zero totals. */
static void test_empty(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	OPTS(&o, "-L", "--top", "2", "--cumulative");
	CHECK(!build_o(&r, &s, &o, NULL, 1.0));
	CHECK_EQ_U64(r.ngroups, 0);
	CHECK_EQ_U64(r.rest.nkeys, 0);
	CHECK_EQ_U64(r.all.count, 0);
	CHECK_EQ_U64(r.all_pct.p99, 0);
	CHECK_EQ_U64(report_lost(&r), 0);
	report_free(&r);
	CHECK(r.groups == NULL);
	snapshot_free(&s);
}

int main(void)
{
	TEST(test_rank);
	TEST(test_rank_ties);
	TEST(test_names_after_sort);
	TEST(test_top);
	TEST(test_cumulative);
	TEST(test_key_names);
	TEST(test_rerank);
	TEST(test_rank_many);
	TEST(test_cgroup_names);
	TEST(test_empty);
	return test_summary();
}
