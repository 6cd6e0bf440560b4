// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/hist.c: log2 bucket bounds, bucket_of, the percentile
 * estimate (interpolation, the max rules, monotonicity) and merging.
 */
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "check.h"


#define LAST (SH_NBUCKETS - 1)
#define P39 (1ULL << 39)

/* xorshift64*: a fixed seed makes every run see the same histograms */
static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static __u64 rnd_below(__u64 n)
{
	return n ? rnd() % n : 0;
}

/* A histogram of @n waits in bucket @b. */
static void one_bucket(struct sh_totals *t, int b, __u64 n, __u64 max_ns)
{
	memset(t, 0, sizeof(*t));
	t->slots[b] = n;
	t->count = n;
	t->max_ns = max_ns;
}

static void test_bucket_bounds(void)
{
	int i;

	CHECK_EQ_U64(bucket_lo(0), 0);
	CHECK_EQ_U64(bucket_hi(0), 2);
	CHECK_EQ_U64(bucket_lo(1), 2);
	CHECK_EQ_U64(bucket_hi(1), 4);
	CHECK_EQ_U64(bucket_lo(10), 1024);
	CHECK_EQ_U64(bucket_hi(10), 2048);
	for (i = 1; i < LAST; i++) {
		CHECK_EQ_U64(bucket_lo(i), 1ULL << i);
		CHECK_EQ_U64(bucket_hi(i), 1ULL << (i + 1));
	}
	/* the last bucket, [2^39, inf), is open-ended */
	CHECK_EQ_U64(bucket_lo(LAST), P39);
	CHECK_EQ_U64(bucket_hi(LAST), UINT64_MAX);
	/* contiguous: no gap, no overlap */
	for (i = 0; i < LAST; i++)
		CHECK_EQ_U64(bucket_hi(i), bucket_lo(i + 1));
}

static void test_bucket_of(void)
{
	__u64 v;
	int i, b;

	CHECK_EQ_U64(bucket_of(0), 0);
	CHECK_EQ_U64(bucket_of(1), 0);
	CHECK_EQ_U64(bucket_of(2), 1);
	CHECK_EQ_U64(bucket_of(3), 1);
	CHECK_EQ_U64(bucket_of(4), 2);
	CHECK_EQ_U64(bucket_of(1023), 9);
	CHECK_EQ_U64(bucket_of(1024), 10);
	CHECK_EQ_U64(bucket_of(2047), 10);
	CHECK_EQ_U64(bucket_of(P39 - 1), 38);
	CHECK_EQ_U64(bucket_of(P39), LAST);
	CHECK_EQ_U64(bucket_of(P39 * 2), LAST);
	CHECK_EQ_U64(bucket_of(1ULL << 63), LAST);
	CHECK_EQ_U64(bucket_of(UINT64_MAX), LAST);

	/* both ends of every bucket */
	for (i = 0; i < SH_NBUCKETS; i++) {
		CHECK_EQ_U64(bucket_of(bucket_lo(i)), i);
		CHECK_EQ_U64(bucket_of(bucket_hi(i) - 1), i);
	}
	/* random values of every magnitude lie inside their bucket */
	for (i = 0; i < 10000; i++) {
		v = rnd() >> rnd_below(64);
		b = bucket_of(v);
		CHECK(b >= 0 && b < SH_NBUCKETS);
		CHECK(v >= bucket_lo(b));
		CHECK(b == LAST || v < bucket_hi(b));
	}
}

static void test_quantile_empty(void)
{
	struct sh_totals t = {};

	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 0);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 0);
	/* a max without any wait in the buckets is still an empty histogram */
	t.max_ns = 5000;
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
}

/* 100 waits in [1024, 2048), max unknown: linear inside the bucket. */
static void test_quantile_one_bucket(void)
{
	struct sh_totals t;

	one_bucket(&t, 10, 100, 0);
	/* rank ceil(q * 100), est = 1024 + 1024 * rank / 100 */
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 1536);
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 1945);	/* 1945.6 */
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 2037);	/* 2037.76 */
	CHECK_EQ_U64(totals_quantile(&t, 0.001), 1034);	/* rank 1: 1034.24 */
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2048);	/* no max: the bucket's end */
	/* q <= 0 is rank 1, q > 1 is q = 1 */
	CHECK_EQ_U64(totals_quantile(&t, 0.0), 1034);
	CHECK_EQ_U64(totals_quantile(&t, 2.0), 2048);

	/* a single wait */
	one_bucket(&t, 10, 1, 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 2048);
	one_bucket(&t, 10, 1, 1300);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 1300);
	CHECK_EQ_U64(totals_quantile(&t, 0.001), 1300);
}

/* A known max inside the bucket is the bucket's real upper end. */
static void test_quantile_max_inside(void)
{
	struct sh_totals t;

	one_bucket(&t, 10, 100, 1500);
	/* est = 1024 + (1500 - 1024) * rank / 100 */
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 1262);
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 1495);	/* 1495.24 */
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1500);

	/* the max at the bucket's very start: everything is that value */
	one_bucket(&t, 10, 100, 1024);
	CHECK_EQ_U64(totals_quantile(&t, 0.01), 1024);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1024);

	/* the max at the bucket's last value */
	one_bucket(&t, 10, 4, 2047);
	CHECK_EQ_U64(totals_quantile(&t, 0.25), 1279);	/* 1024 + 1023 / 4 */
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2047);
}

/* A max below the bucket of the rank (stale CPUs): clamped to the max. */
static void test_quantile_max_clamp(void)
{
	struct sh_totals t;

	one_bucket(&t, 12, 100, 3000);
	CHECK_EQ_U64(totals_quantile(&t, 0.01), 3000);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 3000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 3000);

	/* a max above the bucket does not end it */
	one_bucket(&t, 10, 100, 5000);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 1536);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2048);
}

static void test_quantile_two_buckets(void)
{
	struct sh_totals t = {};

	/* 60 waits in [1024, 2048), 40 in [4096, 8192) */
	t.slots[10] = 60;
	t.slots[12] = 40;
	t.count = 100;
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 1877);	/* 1024 + 1024 * 50 / 60 */
	CHECK_EQ_U64(totals_quantile(&t, 0.60), 2048);	/* rank 60: end of bucket 10 */
	CHECK_EQ_U64(totals_quantile(&t, 0.61), 4198);	/* 4096 + 4096 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 7168);	/* 4096 + 4096 * 30 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 1.00), 8192);

	/* the max, 5000, ends bucket 12 and does not touch bucket 10 */
	t.max_ns = 5000;
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 1877);
	CHECK_EQ_U64(totals_quantile(&t, 0.60), 2048);
	CHECK_EQ_U64(totals_quantile(&t, 0.61), 4118);	/* 4096 + 904 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 4774);	/* 4096 + 904 * 30 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 1.00), 5000);
}

/* Everything in the open-ended last bucket [2^39, inf). */
static void test_quantile_last_bucket(void)
{
	struct sh_totals t;

	/* max unknown: the bucket is taken as [2^39, 2^40) */
	one_bucket(&t, LAST, 10, 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), P39 + P39 / 2);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2 * P39);

	/* max 600 s: the bucket ends there */
	one_bucket(&t, LAST, 10, 600000000000ULL);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), P39 + (600000000000ULL - P39) / 2);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 600000000000ULL);

	/* a max beyond 2^40 still ends it */
	one_bucket(&t, LAST, 10, 4 * P39);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), P39 + 3 * P39 / 2);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 4 * P39);

	/* absurd maxes near 2^64: never above the max, never wrapped */
	one_bucket(&t, LAST, 10, (1ULL << 60) - 1);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), (1ULL << 60) - 1);
	CHECK(totals_quantile(&t, 0.5) <= (1ULL << 60) - 1);
	one_bucket(&t, LAST, 10, UINT64_MAX - 1);
	CHECK(totals_quantile(&t, 0.5) >= P39);
	CHECK(totals_quantile(&t, 1.0) >= totals_quantile(&t, 0.5));
	CHECK(totals_quantile(&t, 1.0) <= UINT64_MAX - 1);
	one_bucket(&t, LAST, 10, UINT64_MAX);
	CHECK(totals_quantile(&t, 1.0) >= totals_quantile(&t, 0.5));
}

/* Bucket 0 is [0, 2): every estimate stays in it. */
static void test_quantile_bucket0(void)
{
	struct sh_totals t;
	double q;

	one_bucket(&t, 0, 100, 0);
	for (q = 0.01; q <= 1.0; q += 0.01)
		CHECK(totals_quantile(&t, q) < 2);
	one_bucket(&t, 0, 100, 1);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1);
	for (q = 0.01; q <= 1.0; q += 0.01)
		CHECK(totals_quantile(&t, q) <= 1);
}

/* A random max: unknown, inside the top bucket, or anywhere. */
static __u64 random_max(const struct sh_totals *t, int top)
{
	switch (rnd_below(4)) {
	case 0:
		return 0;
	case 1:
	case 2:
		if (top == LAST)
			return P39 + (rnd() >> rnd_below(64)) % (UINT64_MAX - P39);
		return bucket_lo(top) + rnd_below(bucket_hi(top) - bucket_lo(top));
	default:
		return rnd() >> rnd_below(64);
	}
}

/* Random histograms: monotone in q, never above a known max. */
static void test_quantile_random(void)
{
	struct sh_totals t;
	int n, i, top, bad_mono = 0, bad_max = 0, bad_end = 0;

	for (n = 0; n < 400; n++) {
		__u64 prev = 0, p;
		int k, nb = 1 + (int)rnd_below(6);
		double q;

		memset(&t, 0, sizeof(t));
		top = 0;
		for (k = 0; k < nb; k++) {
			i = (int)rnd_below(SH_NBUCKETS);
			/* mostly small counts, sometimes huge ones */
			t.slots[i] += 1 + (rnd_below(8) ? rnd_below(100) : rnd_below(1ULL << 40));
			if (i > top)
				top = i;
		}
		for (i = 0; i < SH_NBUCKETS; i++)
			t.count += t.slots[i];
		t.max_ns = random_max(&t, top);

		for (q = 0.0005; q <= 1.0; q += 0.0005) {
			p = totals_quantile(&t, q);
			if (p < prev)
				bad_mono++;
			if (t.max_ns && p > t.max_ns)
				bad_max++;
			prev = p;
		}
		p = totals_quantile(&t, 1.0);
		if (p < prev)
			bad_mono++;
		/* a max inside the top bucket is the 100th percentile */
		if (t.max_ns >= bucket_lo(top) && (top == LAST || t.max_ns < bucket_hi(top)) &&
		    t.max_ns && p != t.max_ns)
			bad_end++;
	}
	CHECK_EQ_U64(bad_mono, 0);
	CHECK_EQ_U64(bad_max, 0);
	CHECK_EQ_U64(bad_end, 0);
}

/* A comm as the kernel stores it: SH_COMM_LEN bytes, zero-padded. */
static const char *comm16(const char *s)
{
	static char bufs[8][SH_COMM_LEN];
	static int next;
	char *b = bufs[next++ % 8];

	memset(b, 0, SH_COMM_LEN);
	strncpy(b, s, SH_COMM_LEN - 1);
	return b;
}

static void test_merge_max(void)
{
	struct sh_totals t = {};
	char long_comm[SH_COMM_LEN];

	totals_merge_max(&t, 500, 11, 10, 1, comm16("first"));
	CHECK_EQ_U64(t.max_ns, 500);
	CHECK_EQ_U64(t.max_tid, 11);
	CHECK_EQ_U64(t.max_pid, 10);
	CHECK_EQ_U64(t.max_cpu, 1);
	CHECK(!strcmp(t.max_comm, "first"));

	/* smaller: ignored */
	totals_merge_max(&t, 499, 22, 20, 2, comm16("smaller"));
	CHECK_EQ_U64(t.max_ns, 500);
	CHECK_EQ_U64(t.max_tid, 11);
	CHECK(!strcmp(t.max_comm, "first"));

	/* equal: the first one who had it stays */
	totals_merge_max(&t, 500, 33, 30, 3, comm16("equal"));
	CHECK_EQ_U64(t.max_tid, 11);
	CHECK(!strcmp(t.max_comm, "first"));

	/* larger: max and who had it follow */
	totals_merge_max(&t, 501, 44, 40, 4, comm16("larger"));
	CHECK_EQ_U64(t.max_ns, 501);
	CHECK_EQ_U64(t.max_tid, 44);
	CHECK_EQ_U64(t.max_pid, 40);
	CHECK_EQ_U64(t.max_cpu, 4);
	CHECK(!strcmp(t.max_comm, "larger"));

	/* a comm filling all 16 bytes is cut to a terminated string */
	memset(long_comm, 'x', sizeof(long_comm));
	totals_merge_max(&t, 1000, 55, 50, 5, long_comm);
	CHECK_EQ_U64(t.max_comm[SH_COMM_LEN - 1], 0);
	CHECK_EQ_U64(strlen(t.max_comm), SH_COMM_LEN - 1);
}

static void test_totals_add(void)
{
	struct sh_totals a = {}, b = {}, empty = {};
	int i;

	a.slots[3] = 2;
	a.slots[10] = 5;
	a.count = 7;
	a.sum_ns = 7000;
	totals_merge_max(&a, 1500, 1, 1, 0, comm16("a"));

	b.slots[10] = 1;
	b.slots[20] = 3;
	b.count = 4;
	b.sum_ns = 3000000;
	totals_merge_max(&b, 1100000, 2, 2, 7, comm16("b"));

	totals_add(&a, &b);
	CHECK_EQ_U64(a.slots[3], 2);
	CHECK_EQ_U64(a.slots[10], 6);
	CHECK_EQ_U64(a.slots[20], 3);
	CHECK_EQ_U64(a.count, 11);
	CHECK_EQ_U64(a.sum_ns, 3007000);
	CHECK_EQ_U64(a.max_ns, 1100000);
	CHECK_EQ_U64(a.max_tid, 2);
	CHECK_EQ_U64(a.max_cpu, 7);
	CHECK(!strcmp(a.max_comm, "b"));

	/* a smaller max added later does not take over */
	b.max_ns = 10;
	b.max_tid = 9;
	strcpy(b.max_comm, "tiny");
	totals_add(&a, &b);
	CHECK_EQ_U64(a.count, 15);
	CHECK_EQ_U64(a.max_ns, 1100000);
	CHECK_EQ_U64(a.max_tid, 2);
	CHECK(!strcmp(a.max_comm, "b"));

	/* adding nothing changes nothing */
	totals_add(&a, &empty);
	CHECK_EQ_U64(a.count, 15);
	CHECK_EQ_U64(a.max_ns, 1100000);
	CHECK_EQ_U64(a.max_tid, 2);

	/* into an empty total: a copy */
	memset(&b, 0, sizeof(b));
	totals_add(&b, &a);
	for (i = 0; i < SH_NBUCKETS; i++)
		CHECK_EQ_U64(b.slots[i], a.slots[i]);
	CHECK_EQ_U64(b.count, a.count);
	CHECK_EQ_U64(b.sum_ns, a.sum_ns);
	CHECK_EQ_U64(b.max_ns, a.max_ns);
	CHECK_EQ_U64(b.max_tid, a.max_tid);
	CHECK(!strcmp(b.max_comm, a.max_comm));
}

/* fmt_u64() prints what printf("%llu") does, at every digit count */
static void test_fmt_u64(void)
{
	char a[24], b[24];
	__u64 v = 1;
	int i, bad = 0;

	for (i = 0; i < 200; i++) {
		__u64 vals[3] = { v - 1, v, v + 7 };
		int j;

		for (j = 0; j < 3; j++) {
			int n = fmt_u64(a, vals[j]);

			snprintf(b, sizeof(b), "%llu", (unsigned long long)vals[j]);
			bad += strcmp(a, b) != 0 || n != (int)strlen(b);
		}
		v = v * 3 + (__u64)i;
	}
	fmt_u64(a, UINT64_MAX);
	CHECK(!strcmp(a, "18446744073709551615"));
	CHECK_EQ_U64(bad, 0);
}

int main(void)
{
	TEST(test_fmt_u64);
	TEST(test_bucket_bounds);
	TEST(test_bucket_of);
	TEST(test_quantile_empty);
	TEST(test_quantile_one_bucket);
	TEST(test_quantile_max_inside);
	TEST(test_quantile_max_clamp);
	TEST(test_quantile_two_buckets);
	TEST(test_quantile_last_bucket);
	TEST(test_quantile_bucket0);
	TEST(test_quantile_random);
	TEST(test_merge_max);
	TEST(test_totals_add);
	return test_summary();
}
