// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/hist.c: the bucket grid (against the kernel's
 * sh_bucket() and the definition in exact integers), bucket_of, the percentile
 * estimate (interpolation, the max rules, monotonicity) and merging.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "check.h"


#define LAST (SH_NBUCKETS - 1)
#define NS 1000000000ULL

/* the kernel's own bucket function, compiled here as plain C */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "bits.bpf.h"

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
static void one_bucket(struct totals *t, int b, __u64 n, __u64 max_ns)
{
	memset(t, 0, sizeof(*t));
	t->buckets[b] = n;
	t->count = n;
	t->max_ns = max_ns;
}

/*
 * The definition, in exact integers and independent of SH_EDGE_TOP: is a
 * wait of @w ns at most 2^@e s, i.e. w <= 1e9 * 2^e?
 */
static bool at_most_pow2_s(__u64 w, int e)
{
	if (e >= 0)
		return (unsigned __int128)w <= (unsigned __int128)NS << e;
	return ((unsigned __int128)w << -e) <= NS;
}

/*
 * Is @w in bucket @j: the zero bucket [0, 2^-20 s] for bucket 0, the native
 * bucket (2^(j-21), 2^(j-20)] s for bucket j, and for the last bucket anything
 * above its lower edge?
 */
static bool in_bucket(__u64 w, int j)
{
	if (j == 0)
		return at_most_pow2_s(w, -20);
	if (j == LAST)
		return !at_most_pow2_s(w, j - 21);
	return !at_most_pow2_s(w, j - 21) && at_most_pow2_s(w, j - 20);
}

static void test_bucket_bounds(void)
{
	int i;

	/* bucket 0 is the zero bucket, 0-953 ns; then 954-1907 ns, 1908-3814 ns */
	CHECK_EQ_U64(bucket_lo(0), 0);
	CHECK_EQ_U64(bucket_edge(0), 953);
	CHECK_EQ_U64(bucket_hi(0), 954);
	CHECK_EQ_U64(bucket_lo(1), 954);
	CHECK_EQ_U64(bucket_hi(1), 1908);
	CHECK_EQ_U64(bucket_lo(2), 1908);
	CHECK_EQ_U64(bucket_hi(2), 3815);
	/* powers of two of a second: 2^-10 s, 0.5 s, 1 s (native index 0), 2 s, 2^19 s */
	CHECK_EQ_U64(bucket_edge(10), 976562);
	CHECK_EQ_U64(bucket_edge(11), 1953125);
	CHECK_EQ_U64(bucket_edge(19), NS / 2);
	CHECK_EQ_U64(bucket_edge(20), NS);
	CHECK_EQ_U64(bucket_floor(20), NS / 2);
	CHECK_EQ_U64(bucket_lo(20), NS / 2 + 1);
	CHECK_EQ_U64(bucket_hi(20), NS + 1);
	CHECK_EQ_U64(bucket_edge(21), 2 * NS);
	CHECK_EQ_U64(bucket_edge(LAST - 1), NS << 19);
	CHECK_EQ_U64(SH_EDGE_TOP, NS << 34);
	CHECK_EQ_U64(20 + SH_NATIVE_INDEX0, 0);
	CHECK_EQ_U64(LAST + SH_NATIVE_INDEX0, 20);
	/* the last one, above 2^19 s, takes every longer __u64 */
	CHECK_EQ_U64(bucket_lo(LAST), (NS << 19) + 1);
	CHECK_EQ_U64(bucket_hi(LAST), UINT64_MAX);
	CHECK_EQ_U64(bucket_edge(LAST), UINT64_MAX);
	for (i = 0; i < LAST; i++) {
		/* the edge is the largest whole ns at most 2^(i-20) s */
		CHECK(at_most_pow2_s(bucket_edge(i), i - 20));
		CHECK(!at_most_pow2_s(bucket_edge(i) + 1, i - 20));
		CHECK(!i || bucket_edge(i) > bucket_edge(i - 1));
	}
	/* contiguous: no gap, no overlap */
	for (i = 0; i < LAST; i++) {
		CHECK_EQ_U64(bucket_hi(i), bucket_lo(i + 1));
		CHECK_EQ_U64(bucket_floor(i + 1), bucket_edge(i));
		CHECK_EQ_U64(bucket_hi(i), bucket_edge(i) + 1);
	}
}

/* One wait: the poller's bucket_of(), the kernel's sh_bucket() and the definition agree. */
static int bucket_disagrees(__u64 w)
{
	int b = bucket_of(w);

	return b < 0 || b >= SH_NBUCKETS || (__u32)b != sh_bucket(w) || !in_bucket(w, b) ||
	       w < bucket_lo(b) || (b != LAST && w >= bucket_hi(b));
}

static void test_bucket_of(void)
{
	__u64 v;
	int i, bad = 0;

	CHECK_EQ_U64(bucket_of(0), 0);
	CHECK_EQ_U64(bucket_of(1), 0);
	CHECK_EQ_U64(bucket_of(953), 0);
	CHECK_EQ_U64(bucket_of(954), 1);
	CHECK_EQ_U64(bucket_of(1907), 1);
	CHECK_EQ_U64(bucket_of(1908), 2);
	CHECK_EQ_U64(bucket_of(NS / 2), 19);
	CHECK_EQ_U64(bucket_of(NS / 2 + 1), 20);
	CHECK_EQ_U64(bucket_of(NS), 20);	/* exactly 1 s: (0.5, 1] s */
	CHECK_EQ_U64(bucket_of(NS + 1), 21);
	CHECK_EQ_U64(bucket_of(NS << 19), LAST - 1);
	CHECK_EQ_U64(bucket_of((NS << 19) + 1), LAST);
	CHECK_EQ_U64(bucket_of(1ULL << 63), LAST);
	CHECK_EQ_U64(bucket_of(UINT64_MAX), LAST);

	/* both ends of every bucket, and one past them */
	for (i = 0; i < SH_NBUCKETS; i++) {
		CHECK_EQ_U64(bucket_of(bucket_lo(i)), i);
		CHECK_EQ_U64(bucket_of(bucket_hi(i) - 1), i);
		bad += bucket_disagrees(bucket_lo(i));
		bad += bucket_disagrees(bucket_hi(i) - 1);
		bad += bucket_disagrees(bucket_hi(i));
		if (bucket_lo(i))
			bad += bucket_disagrees(bucket_lo(i) - 1);
	}
	/* every wait below 2^20 ns, and both sides of every power of two */
	for (v = 0; v < (1ULL << 20); v++)
		bad += bucket_disagrees(v);
	for (i = 0; i < 64; i++) {
		bad += bucket_disagrees((1ULL << i) - 1);
		bad += bucket_disagrees(1ULL << i);
		bad += bucket_disagrees((1ULL << i) + 1);
	}
	/* random values of every magnitude */
	for (i = 0; i < 200000; i++) {
		v = rnd() >> rnd_below(64);
		bad += bucket_disagrees(v);
	}
	CHECK_EQ_U64(bad, 0);
}

static void test_quantile_empty(void)
{
	struct totals t = {};

	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 0);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 0);
	/* a max without any wait in the buckets is still an empty histogram */
	t.max_ns = 5000;
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
}

/* 100 waits in (0.5 s, 1 s], max unknown: linear between the edges, as Prometheus. */
static void test_quantile_one_bucket(void)
{
	struct totals t;

	one_bucket(&t, 20, 100, 0);
	/* rank ceil(q * 100), est = 0.5 s + 0.5 s * rank / 100 */
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 750000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 950000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 995000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.001), 505000000);	/* rank 1 */
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS);	/* no max: the bucket's end */
	/* q <= 0 is rank 1, q > 1 is q = 1 */
	CHECK_EQ_U64(totals_quantile(&t, 0.0), 505000000);
	CHECK_EQ_U64(totals_quantile(&t, 2.0), NS);

	/* a single wait */
	one_bucket(&t, 20, 1, 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), NS);
	one_bucket(&t, 20, 1, 600000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 600000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.001), 600000000);
}

/* A known max inside the bucket is the bucket's real upper end. */
static void test_quantile_max_inside(void)
{
	struct totals t;

	one_bucket(&t, 20, 100, 700000000);
	/* est = 0.5 s + 0.2 s * rank / 100 */
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 600000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.99), 698000000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 700000000);

	/* the max is the bucket's shortest wait: everything is that value */
	one_bucket(&t, 20, 100, NS / 2 + 1);
	CHECK(totals_quantile(&t, 0.01) >= NS / 2);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS / 2 + 1);

	/* the max at the bucket's last value */
	one_bucket(&t, 20, 4, NS);
	CHECK_EQ_U64(totals_quantile(&t, 0.25), 625000000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS);
}

/* A max below the bucket of the rank (stale CPUs): clamped to the max. */
static void test_quantile_max_clamp(void)
{
	struct totals t;

	one_bucket(&t, 22, 100, 1500000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.01), 1500000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 1500000000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1500000000);

	/* a max above the bucket does not end it */
	one_bucket(&t, 20, 100, 3 * NS);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 750000000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS);
}

static void test_quantile_two_buckets(void)
{
	struct totals t = {};

	/* 60 waits in (0.5 s, 1 s], 40 in (2 s, 4 s] */
	t.buckets[20] = 60;
	t.buckets[22] = 40;
	t.count = 100;
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 916666666);	/* 0.5 s + 0.5 s * 50 / 60 */
	CHECK_EQ_U64(totals_quantile(&t, 0.60), NS);		/* rank 60: end of bucket 30 */
	CHECK_EQ_U64(totals_quantile(&t, 0.61), 2050000000);	/* 2 s + 2 s / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 3500000000);	/* 2 s + 2 s * 30 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 1.00), 4 * NS);

	/* the max, 2.5 s, ends bucket 32 and does not touch bucket 30 */
	t.max_ns = 2500000000;
	CHECK_EQ_U64(totals_quantile(&t, 0.50), 916666666);
	CHECK_EQ_U64(totals_quantile(&t, 0.60), NS);
	CHECK_EQ_U64(totals_quantile(&t, 0.61), 2012500000);	/* 2 s + 0.5 s / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 0.90), 2375000000);	/* 2 s + 0.5 s * 30 / 40 */
	CHECK_EQ_U64(totals_quantile(&t, 1.00), 2500000000);
}

/* The last bucket, above 2^19 s, and long waits. */
static void test_quantile_last_bucket(void)
{
	struct totals t;
	__u64 lo = NS << 19;

	/* 600 s is in (512 s, 1024 s]: the max ends it */
	one_bucket(&t, 30, 10, 600 * NS);
	CHECK_EQ_U64(bucket_of(600 * NS), 30);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 556 * NS);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 600 * NS);

	/* max unknown: the open-ended last bucket ends at its native edge, 2^20 s */
	one_bucket(&t, LAST, 10, 0);
	CHECK(totals_quantile(&t, 0.5) > lo);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2 * lo);
	CHECK(totals_quantile(&t, 0.9) <= UINT64_MAX);
	CHECK(totals_quantile(&t, 0.9) >= totals_quantile(&t, 0.5));

	/* absurd maxes near 2^64: never above the max, never wrapped */
	one_bucket(&t, LAST, 10, lo + 1000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), lo + 1000);
	CHECK(totals_quantile(&t, 0.5) <= lo + 1000);
	CHECK(totals_quantile(&t, 0.5) >= lo - 4096);	/* a double's step there is 2048 */
	one_bucket(&t, LAST, 10, UINT64_MAX - 1);
	CHECK(totals_quantile(&t, 0.5) >= lo);
	CHECK(totals_quantile(&t, 1.0) >= totals_quantile(&t, 0.5));
	CHECK_EQ_U64(totals_quantile(&t, 1.0), UINT64_MAX - 1);
	one_bucket(&t, LAST, 10, UINT64_MAX);
	CHECK(totals_quantile(&t, 1.0) >= totals_quantile(&t, 0.5));
	CHECK_EQ_U64(totals_quantile(&t, 1.0), UINT64_MAX);
}

/* Bucket 0 holds waits up to 953 ns: every estimate is in [0, 953]. */
static void test_quantile_bucket0(void)
{
	struct totals t;
	double q;
	int bad = 0;

	one_bucket(&t, 0, 100, 0);
	for (q = 0.01; q <= 1.0; q += 0.01)
		bad += totals_quantile(&t, q) > 953;
	/* bucket 1 holds 954-1907 ns: with the max 1000, estimates in [953, 1000] */
	one_bucket(&t, 1, 100, 1000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1000);
	for (q = 0.01; q <= 1.0; q += 0.01)
		bad += totals_quantile(&t, q) > 1000 || totals_quantile(&t, q) < 953;
	CHECK_EQ_U64(bad, 0);
}

/* A random max: unknown, inside the top bucket, or anywhere. */
static __u64 random_max(const struct totals *t, int top)
{
	(void)t;
	switch (rnd_below(4)) {
	case 0:
		return 0;
	case 1:
	case 2:
		if (top == LAST)
			return bucket_lo(LAST) + rnd_below(UINT64_MAX - bucket_lo(LAST));
		return bucket_lo(top) + rnd_below(bucket_hi(top) - bucket_lo(top));
	default:
		return rnd() >> rnd_below(64);
	}
}

/* Random histograms: monotone in q, never above a known max. */
static void test_quantile_random(void)
{
	struct totals t;
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
			t.buckets[i] += 1 + (rnd_below(8) ? rnd_below(100) : rnd_below(1ULL << 40));
			if (i > top)
				top = i;
		}
		for (i = 0; i < SH_NBUCKETS; i++)
			t.count += t.buckets[i];
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
	struct totals t = {};
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
	struct totals a = {}, b = {}, empty = {};
	int i;

	a.buckets[3] = 2;
	a.buckets[10] = 5;
	a.count = 7;
	a.sum_ns = 7000;
	totals_merge_max(&a, 1500, 1, 1, 0, comm16("a"));

	b.buckets[10] = 1;
	b.buckets[20] = 3;
	b.count = 4;
	b.sum_ns = 3000000;
	totals_merge_max(&b, 1100000, 2, 2, 7, comm16("b"));

	totals_add(&a, &b);
	CHECK_EQ_U64(a.buckets[3], 2);
	CHECK_EQ_U64(a.buckets[10], 6);
	CHECK_EQ_U64(a.buckets[20], 3);
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
		CHECK_EQ_U64(b.buckets[i], a.buckets[i]);
	CHECK_EQ_U64(b.count, a.count);
	CHECK_EQ_U64(b.sum_ns, a.sum_ns);
	CHECK_EQ_U64(b.max_ns, a.max_ns);
	CHECK_EQ_U64(b.max_tid, a.max_tid);
	CHECK(!strcmp(b.max_comm, a.max_comm));
}

int main(void)
{
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
