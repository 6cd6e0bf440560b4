// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of --causes: the kernel's split of one wait
 * (include/cause_split.h, compiled here as plain C), steal included,
 * which this machine cannot produce on demand (the hypervisor decides);
 * the poller's cause table (user/model/causes.c: sums over CPUs, interval and
 * since-start deltas, [rest]); the JSON of a report with causes against
 * docs/report.schema.json; the Prometheus samples of both expositions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cause_split.h"
#include "model/causes.h"
#include "model/tick.h"
#include "model/report.h"
#include "output/render.h"
#include "prom/prom_series.h"
#include "prom/render_prom.h"
#include "lib/names.h"
#include "check.h"

static __u64 split_sum(const __u64 out[SH_CAUSE_NR])
{
	__u64 s = 0;
	int i;

	for (i = 0; i < SH_CAUSE_NR; i++)
		s += out[i];
	return s;
}

/* no overlap: what ran is itself, the idle rest is other */
static void test_split_plain(void)
{
	struct sh_cause_delta d = { .run = 60, .kernel = 10, .self = 20 };
	__u64 out[SH_CAUSE_NR] = {};

	sh_cause_split(100, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_KERNEL], 10);
	CHECK_EQ_U64(out[SH_CAUSE_SELF], 20);
	CHECK_EQ_U64(out[SH_CAUSE_NEIGHBOUR], 30);
	CHECK_EQ_U64(out[SH_CAUSE_OTHER], 40);
	CHECK_EQ_U64(out[SH_CAUSE_STEAL] + out[SH_CAUSE_THROTTLED], 0);
}

/*
 * steal: the run queue clock ran on while the hypervisor had the CPU, so
 * the task "running" meanwhile was charged it too; steal comes first and
 * the running time is scaled into what is left
 */
static void test_split_steal(void)
{
	struct sh_cause_delta d = { .steal = 30, .run = 100, .self = 50 };
	__u64 out[SH_CAUSE_NR] = {};

	sh_cause_split(100, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_STEAL], 30);
	/* 70/100 as 45875/2^16: 35 each less the rounding, which goes to other */
	CHECK_EQ_U64(out[SH_CAUSE_SELF], 34);
	CHECK_EQ_U64(out[SH_CAUSE_NEIGHBOUR], 34);
	CHECK_EQ_U64(out[SH_CAUSE_OTHER], 2);
	memset(out, 0, sizeof(out));
	d = (struct sh_cause_delta){ .steal = 30000000, .run = 100000000, .self = 50000000 };
	sh_cause_split(100000000, &d, out);
	CHECK(out[SH_CAUSE_SELF] <= 35000000 && out[SH_CAUSE_SELF] >= 35000000 - 1 - 35000000 / 65536);
	/* steal beyond the span (counters read a little apart): capped, nothing else */
	memset(out, 0, sizeof(out));
	d = (struct sh_cause_delta){ .steal = 500, .run = 100, .kernel = 100 };
	sh_cause_split(100, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_STEAL], 100);
	CHECK_EQ_U64(split_sum(out), 100);
	/* steal on an idle CPU: the rest is other */
	memset(out, 0, sizeof(out));
	d = (struct sh_cause_delta){ .steal = 1000000 };
	sh_cause_split(4000000, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_STEAL], 1000000);
	CHECK_EQ_U64(out[SH_CAUSE_OTHER], 3000000);
}

/* throttled after steal, each capped by what is left; the others ran during the throttling */
static void test_split_throttled(void)
{
	struct sh_cause_delta d = { .steal = 10, .throttled = 80, .run = 40, .kernel = 4, .self = 0 };
	__u64 out[SH_CAUSE_NR] = {};

	sh_cause_split(100, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_STEAL], 10);
	CHECK_EQ_U64(out[SH_CAUSE_THROTTLED], 80);
	/* 10 left for 40 ns run: a quarter each (kernel 4, neighbour 36) */
	CHECK_EQ_U64(out[SH_CAUSE_KERNEL], 1);
	CHECK_EQ_U64(out[SH_CAUSE_NEIGHBOUR], 9);
	CHECK_EQ_U64(out[SH_CAUSE_OTHER], 0);
	memset(out, 0, sizeof(out));
	d = (struct sh_cause_delta){ .steal = 60, .throttled = 80 };
	sh_cause_split(100, &d, out);
	CHECK_EQ_U64(out[SH_CAUSE_THROTTLED], 40);
	CHECK_EQ_U64(split_sum(out), 100);
}

/* xorshift64*: a fixed seed makes every run see the same cases */
static __u64 rng = 0x2545f4914f6cdd1dULL;

static __u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/*
 * every split adds up to its span exactly, no part exceeds its counter,
 * over spans up to 2^47 ns (39 hours: no overflow) and counters that
 * disagree (self above run, kernel above run: read a little apart)
 */
static void test_split_adds_up(void)
{
	int n, i;

	for (n = 0; n < 200000; n++) {
		__u64 span = rnd() >> (17 + rnd() % 40), out[SH_CAUSE_NR] = {};
		struct sh_cause_delta d = {
			.steal = rnd() % 4 ? 0 : rnd() % (span + 1),
			.throttled = rnd() % 3 ? 0 : rnd() % (span + 1),
			.run = rnd() % (2 * span + 1),
		};

		d.kernel = rnd() % (d.run + 2);
		d.self = rnd() % (d.run + 2);
		sh_cause_split(span, &d, out);
		if (split_sum(out) != span || out[SH_CAUSE_STEAL] > d.steal ||
		    out[SH_CAUSE_THROTTLED] > d.throttled || out[SH_CAUSE_KERNEL] > d.kernel ||
		    out[SH_CAUSE_SELF] > d.self ||
		    out[SH_CAUSE_KERNEL] + out[SH_CAUSE_SELF] + out[SH_CAUSE_NEIGHBOUR] > d.run) {
			for (i = 0; i < SH_CAUSE_NR; i++)
				fprintf(stderr, "  %s %llu", cause_name(i), (unsigned long long)out[i]);
			fprintf(stderr, "\n  span %llu steal %llu thr %llu run %llu kern %llu self %llu\n",
				(unsigned long long)span, (unsigned long long)d.steal,
				(unsigned long long)d.throttled, (unsigned long long)d.run,
				(unsigned long long)d.kernel, (unsigned long long)d.self);
			CHECK(0);
			return;
		}
	}
	/* 78 hours and more: other, whole */
	{
		struct sh_cause_delta d = { .run = 1ULL << 50, .self = 1ULL << 49 };
		__u64 out[SH_CAUSE_NR] = {};

		sh_cause_split(1ULL << 49, &d, out);
		CHECK_EQ_U64(out[SH_CAUSE_OTHER], 1ULL << 49);
	}
}

static void ingest(struct cause_table *t, __u64 id, __u64 self, __u64 count)
{
	struct sh_key k = { .id = id };
	struct sh_causes v = {};

	v.ns[SH_CAUSE_SELF] = self;
	v.ns[SH_CAUSE_STEAL] = 1;
	v.count = count;
	CHECK(!causes_ingest(t, &k, &v));
}

/* a report of groups with keys @ids (the first @shown shown, the rest folded) */
static void fake_report(struct report *r, struct report_group *g, const __u64 *ids, size_t n,
			size_t shown)
{
	size_t i;

	report_init(r);
	memset(g, 0, n * sizeof(*g));
	for (i = 0; i < n; i++) {
		g[i].key.id = ids[i];
		g[i].name = "k";
		g[i].t.buckets = test_buckets();
	}
	r->metric = SH_METRIC_RUNQ;
	r->groups = g;
	r->ngroups = shown;
	r->rest.nkeys = n - shown;
	r->rest.synthetic = true;
}

/* per CPU summed; an interval's deltas over several readings; since start; [rest] */
static void test_table(void)
{
	struct cause_table t, c;
	struct report r;
	struct report_group g[3];
	const __u64 ids[3] = { 7, 8, 9 };

	CHECK(!causes_init(&t));
	CHECK(!causes_init(&c));
	causes_begin(&t, true);
	causes_begin(&c, true);
	ingest(&t, 7, 15, 2);
	ingest(&c, 7, 15, 2);
	fake_report(&r, g, ids, 3, 2);
	tick_attach_causes(&t, &r);
	CHECK(g[0].has_causes);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_SELF], 15);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_STEAL], 1);
	CHECK_EQ_U64(g[0].causes.count, 2);
	/* a key the kernel split nothing for: zero, not absent */
	CHECK(g[1].has_causes);
	CHECK_EQ_U64(g[1].causes.ns[SH_CAUSE_SELF], 0);
	/* the next interval, read twice: both readings' deltas */
	causes_begin(&t, true);
	causes_begin(&c, true);
	ingest(&t, 7, 25, 3);
	ingest(&c, 7, 25, 3);
	ingest(&t, 9, 4, 1);
	ingest(&c, 9, 4, 1);
	causes_begin(&t, false);
	causes_begin(&c, false);
	ingest(&t, 7, 35, 4);
	ingest(&c, 7, 35, 4);
	tick_attach_causes(&t, &r);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_SELF], 20);
	CHECK_EQ_U64(g[0].causes.count, 2);
	/* [rest]: the keys not shown (9), read in this interval */
	CHECK(r.rest.has_causes);
	CHECK_EQ_U64(r.rest.causes.ns[SH_CAUSE_SELF], 4);
	CHECK_EQ_U64(r.rest.causes.count, 1);
	/* since start: of either table, which keeps both */
	r.cumulative = true;
	tick_attach_causes(&c, &r);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_SELF], 35);
	CHECK_EQ_U64(g[0].causes.count, 4);
	tick_attach_causes(&t, &r);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_SELF], 35);
	r.cumulative = false;
	/* an interval in which nothing was read for 7: zero */
	causes_begin(&t, true);
	ingest(&t, 9, 4, 1);
	tick_attach_causes(&t, &r);
	CHECK_EQ_U64(g[0].causes.ns[SH_CAUSE_SELF], 0);
	/* a gone key is forgotten */
	causes_forget(&t, &g[0].key);
	CHECK_EQ_U64(t.n, 1);
	causes_free(&t);
	causes_free(&c);
}

/* the JSON of a group with causes: the schema accepts it */
static void test_json(void)
{
	struct report r;
	struct report_group g[1];
	const __u64 ids[1] = { 7 };
	struct outbuf b = {};
	char path[] = "/tmp/sh-causes-XXXXXX", cmd[256];
	int fd, st, i;

	fake_report(&r, g, ids, 1, 1);
	r.key_type = SH_KEY_PID;
	r.span_s = 1;
	g[0].name = "7";
	g[0].live = true;
	g[0].has_causes = true;
	for (i = 0; i < SH_CAUSE_NR; i++)
		g[0].causes.ns[i] = 1000 * (i + 1);
	g[0].causes.count = 3;
	g[0].t.count = 3;
	g[0].t.sum_ns = 21000;
	render_json(&b, &r);
	CHECK(b.len && strstr(b.p, "\"causes\":{\"self_ns\":1000,\"neighbour_ns\":2000,"
				   "\"kernel_ns\":3000,\"throttled_ns\":4000,\"steal_ns\":5000,"
				   "\"other_ns\":6000,\"count\":3}"));
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, b.p, b.len) == (ssize_t)b.len);
	if (fd >= 0)
		close(fd);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 tests/check-reports.py %s >&2", path);
	st = system(cmd);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st));
	unlink(path);
	ob_free(&b);
}

/* Prometheus text: a sample per cause of each series with causes, and [other]'s */
static void test_prom(void)
{
	struct prom_view v;
	struct report iv, since;
	struct report_group g[1], gs[1];
	const __u64 ids[1] = { 7 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	CHECK(!prom_view_init(&v, SH_METRIC_RUNQ, SH_KEY_PID, 10));
	v.causes = true;
	fake_report(&iv, g, ids, 1, 1);
	fake_report(&since, gs, ids, 1, 1);
	iv.key_type = since.key_type = SH_KEY_PID;
	g[0].name = gs[0].name = "7";
	g[0].live = gs[0].live = true;
	g[0].t.count = gs[0].t.count = 1;
	g[0].t.sum_ns = gs[0].t.sum_ns = 6000000000ULL;
	g[0].has_causes = true;
	for (i = 0; i < SH_CAUSE_NR; i++)
		g[0].causes.ns[i] = 1000000000ULL;
	CHECK(!prom_view_update(&v, &iv, &since));
	f = open_memstream(&text, &len);
	CHECK(f && render_prom(f, &v, 1, false) == 0);
	fclose(f);
	CHECK(text && strstr(text, "# TYPE schedhist_wait_cause_seconds_total counter\n"));
	for (i = 0; text && i < SH_CAUSE_NR; i++) {
		char want[256];

		snprintf(want, sizeof(want), "schedhist_wait_cause_seconds_total{metric=\"runq\","
			 "key_type=\"pid\",key=\"7\",cause=\"%s\"} 1\n", cause_name(i));
		CHECK(strstr(text, want));
	}
	free(text);
	prom_view_free(&v);
}

int main(void)
{
	TEST(test_split_plain);
	TEST(test_split_steal);
	TEST(test_split_throttled);
	TEST(test_split_adds_up);
	TEST(test_table);
	TEST(test_json);
	TEST(test_prom);
	return test_summary();
}
