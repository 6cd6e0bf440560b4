// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/hist.c: the bucket grid (against the kernel's
 * sh_bucket() and the definition in exact integers), bucket_of, the percentile
 * estimate (interpolation, the max rules, monotonicity) and merging.
 */
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hist.h"
#include "check.h"


#define LAST (SH_NBUCKETS(0) - 1)
#define NS 1000000000ULL

/* the kernel's own bucket function, compiled here as plain C, its settings writable */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define SH_RODATA volatile
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

/* The grid of @s, in the poller and in the kernel's settings, as the loader sets them. */
static void use_schema(int s)
{
	grid_set(s);
	schema = (__u32)s;
	nbuckets = (__u32)SH_NBUCKETS(s);
	grid_cells(s, (__u64 *)cell_top, (__u8 *)cell_base);
}

/* Buckets for the tests' totals: the finest grid's room. */
static __u64 tb[4][SH_NBUCKETS_MAX];

/* A histogram of @n waits in bucket @b. */
static void one_bucket(struct totals *t, int b, __u64 n, __u64 max_ns)
{
	totals_init(t, tb[0]);
	t->buckets[b] = n;
	t->count = n;
	t->max_ns = max_ns;
}

/*
 * Unsigned integers of up to 24 x 32 bits, little-endian: enough for
 * w^8 * 2^160 with w < 2^64, the definition's both sides at schema 3.
 */
#define BIG 24
struct big {
	__u32 l[BIG];
};

static struct big big_of(__u64 v)
{
	struct big b = {};

	b.l[0] = (__u32)v;
	b.l[1] = (__u32)(v >> 32);
	return b;
}

static struct big big_mul(const struct big *a, const struct big *b)
{
	struct big r = {};
	int i, j;

	for (i = 0; i < BIG; i++) {
		__u64 carry = 0;

		for (j = 0; i + j < BIG; j++) {
			__u64 t = (__u64)a->l[i] * b->l[j] + r.l[i + j] + carry;

			r.l[i + j] = (__u32)t;
			carry = t >> 32;
		}
	}
	return r;
}

static struct big big_shl(struct big a, int n)
{
	struct big r = {};
	int i;

	for (i = BIG - 1; i >= 0; i--) {
		int src = i - n / 32;
		__u64 v = 0;

		if (src >= 0)
			v = (__u64)a.l[src] << (n % 32);
		if (src - 1 >= 0 && n % 32)
			v |= (__u64)a.l[src - 1] >> (32 - n % 32);
		r.l[i] = (__u32)v;
	}
	return r;
}

static int big_cmp(const struct big *a, const struct big *b)
{
	int i;

	for (i = BIG - 1; i >= 0; i--)
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	return 0;
}

static struct big big_pow(__u64 v, int n)
{
	struct big r = big_of(1), b = big_of(v);

	while (n--)
		r = big_mul(&r, &b);
	return r;
}

/*
 * The definition, in exact integers and independent of hist.c's tables:
 * is a wait of @w ns at most 2^(@k/2^s) s, i.e. w^(2^s) <= 1e9^(2^s) *
 * 2^k?
 */
static bool at_most(__u64 w, int s, int k)
{
	int n = 1 << s;
	struct big lhs = big_pow(w, n), rhs = big_pow(NS, n);

	if (k >= 0)
		rhs = big_shl(rhs, k);
	else
		lhs = big_shl(lhs, -k);
	return big_cmp(&lhs, &rhs) <= 0;
}

/*
 * Is @w in bucket @j of schema @s: the zero bucket [0, 2^-20 s] for
 * bucket 0, the native bucket of index k = j + SH_NATIVE_INDEX0(s),
 * (2^((k-1)/2^s), 2^(k/2^s)] s, for the others, and for the last bucket
 * anything above its lower edge?
 */
static bool in_bucket(__u64 w, int s, int j)
{
	int k = j + SH_NATIVE_INDEX0(s);

	if (j == 0)
		return at_most(w, s, SH_NATIVE_INDEX0(s));
	if (j == SH_NBUCKETS(s) - 1)
		return !at_most(w, s, k - 1);
	return !at_most(w, s, k - 1) && at_most(w, s, k);
}

/* The kernel's defaults (bits.bpf.h) are schema 0's tables. */
static void test_kernel_defaults(void)
{
	__u64 top[SH_CELLS], dtop[SH_CELLS];
	__u8 base[SH_CELLS], dbase[SH_CELLS];
	int c;

	for (c = 0; c < SH_CELLS; c++) {
		dtop[c] = cell_top[c];
		dbase[c] = cell_base[c];
	}
	grid_cells(0, top, base);
	for (c = 0; c < SH_CELLS; c++) {
		CHECK_EQ_U64(dtop[c], top[c]);
		CHECK_EQ_U64(dbase[c], base[c]);
	}
	CHECK_EQ_U64(schema, 0);
	CHECK_EQ_U64(nbuckets, SH_NBUCKETS(0));
}

/* Every schema's edges against the definition; the shared table; the sizes. */
static void test_grid(void)
{
	static __u64 e3[SH_NBUCKETS_MAX];
	int s, i, bad = 0;

	use_schema(SH_SCHEMA_MAX);
	for (i = 0; i < sh_nb; i++)
		e3[i] = bucket_edge(i);

	/* the table: floor(1e9 * 2^(k/8)) for k = SH_EDGE_K0.., between 2^63 and 2^64 */
	for (i = 0; i < 8; i++) {
		CHECK(at_most(sh_edge_top[i], 3, SH_EDGE_K0 + i));
		CHECK(!at_most(sh_edge_top[i] + 1, 3, SH_EDGE_K0 + i));
		CHECK(sh_edge_top[i] >> 63);
	}
	CHECK(!at_most(1ULL << 63, 3, SH_EDGE_K0 - 1));
	for (s = 0; s <= SH_SCHEMA_MAX; s++) {
		int nb = SH_NBUCKETS(s), last = nb - 1;

		use_schema(s);
		CHECK_EQ_U64(sh_nb, nb);
		CHECK_EQ_U64(nb, 1 + (40 << s));
		/* 953 ns, 1 s and 2^19 s are edges of every schema */
		CHECK_EQ_U64(bucket_edge(0), 953);
		CHECK_EQ_U64(bucket_edge(20 << s), NS);
		CHECK_EQ_U64(bucket_edge(last - (1 << s)), NS << 19);
		CHECK_EQ_U64(20 + SH_NATIVE_INDEX0(s) / (1 << s), 0);
		CHECK_EQ_U64(bucket_edge(last), UINT64_MAX);
		CHECK_EQ_U64(bucket_hi(last), UINT64_MAX);
		for (i = 0; i < last; i++) {
			int k = i + SH_NATIVE_INDEX0(s);

			/* the edge is the largest whole ns at most 2^(k/2^s) s */
			bad += !at_most(bucket_edge(i), s, k) || at_most(bucket_edge(i) + 1, s, k);
			bad += i && bucket_edge(i) <= bucket_edge(i - 1);
			/* contiguous: no gap, no overlap */
			bad += bucket_hi(i) != bucket_lo(i + 1) || bucket_floor(i + 1) != bucket_edge(i);
			/* a finer schema's every 2^(s'-s)th edge is this one's */
			if (s < SH_SCHEMA_MAX)
				bad += bucket_edge(i) !=
				       e3[k * (1 << (SH_SCHEMA_MAX - s)) - SH_NATIVE_INDEX0(SH_SCHEMA_MAX)];
		}
	}
	CHECK_EQ_U64(bad, 0);
	use_schema(0);
	/* schema 0: bucket j is (2^(j-21), 2^(j-20)] s */
	CHECK_EQ_U64(bucket_lo(1), 954);
	CHECK_EQ_U64(bucket_hi(1), 1908);
	CHECK_EQ_U64(bucket_hi(2), 3815);
	CHECK_EQ_U64(bucket_edge(10), 976562);
	CHECK_EQ_U64(bucket_edge(11), 1953125);
	CHECK_EQ_U64(bucket_edge(19), NS / 2);
	CHECK_EQ_U64(bucket_lo(20), NS / 2 + 1);
	CHECK_EQ_U64(bucket_edge(21), 2 * NS);
	CHECK_EQ_U64(bucket_lo(LAST), (NS << 19) + 1);
	/* schema 3: 8 buckets per power of two, 2^(1/8) = 1.0905 apart */
	use_schema(3);
	CHECK_EQ_U64(bucket_edge(160), NS);
	CHECK_EQ_U64(bucket_edge(161), 1090507732);	/* floor(1e9 * 2^(1/8)) */
	CHECK_EQ_U64(bucket_edge(159), 917004043);	/* floor(1e9 * 2^(-1/8)) */
	use_schema(0);
}

/* One wait: the poller's bucket_of(), the kernel's sh_bucket() and the bounds agree. */
static int bucket_disagrees(__u64 w)
{
	int b = bucket_of(w), last = sh_nb - 1;

	return b < 0 || b > last || (__u32)b != sh_bucket(w) || w < bucket_lo(b) ||
	       (b != last && w >= bucket_hi(b));
}

/* The same, and the definition in exact integers (slower: at the edges and a sample). */
static int bucket_wrong(__u64 w)
{
	return bucket_disagrees(w) || !in_bucket(w, sh_schema, bucket_of(w));
}

static void test_bucket_of(void)
{
	__u64 v;
	int s, i, bad = 0;

	CHECK_EQ_U64(bucket_of(0), 0);
	CHECK_EQ_U64(bucket_of(953), 0);
	CHECK_EQ_U64(bucket_of(954), 1);
	CHECK_EQ_U64(bucket_of(1907), 1);
	CHECK_EQ_U64(bucket_of(1908), 2);
	CHECK_EQ_U64(bucket_of(NS), 20);	/* exactly 1 s: (0.5, 1] s */
	CHECK_EQ_U64(bucket_of(NS + 1), 21);
	CHECK_EQ_U64(bucket_of((NS << 19) + 1), LAST);
	CHECK_EQ_U64(bucket_of(UINT64_MAX), LAST);
	for (s = 0; s <= SH_SCHEMA_MAX; s++) {
		use_schema(s);
		/* both ends of every bucket, and one past them */
		for (i = 0; i < sh_nb; i++) {
			bad += bucket_of(bucket_lo(i)) != i || bucket_of(bucket_hi(i) - 1) != i;
			bad += bucket_wrong(bucket_lo(i));
			bad += bucket_wrong(bucket_hi(i) - 1);
			if (bucket_hi(i) != UINT64_MAX)
				bad += bucket_wrong(bucket_hi(i));
			if (bucket_lo(i))
				bad += bucket_wrong(bucket_lo(i) - 1);
		}
		/* every wait below 2^20 ns, and both sides of every power of two */
		for (v = 0; v < (1ULL << 20); v++)
			bad += bucket_disagrees(v);
		for (i = 0; i < 64; i++) {
			bad += bucket_wrong((1ULL << i) - 1);
			bad += bucket_wrong(1ULL << i);
			bad += bucket_wrong((1ULL << i) + 1);
		}
		/* random values of every magnitude; a sample of them against the definition */
		for (i = 0; i < 200000; i++) {
			v = rnd() >> rnd_below(64);
			bad += i % 50 ? bucket_disagrees(v) : bucket_wrong(v);
		}
	}
	CHECK_EQ_U64(bad, 0);
	use_schema(0);
}

static void test_quantile_empty(void)
{
	struct totals t;

	totals_init(&t, tb[0]);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 0);
	/* a max without any wait in the buckets is still an empty histogram */
	t.max_ns = 5000;
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 0);
}

#define CHECK_NEAR(a, b, tol) CHECK((double)(a) >= (double)(b) - (tol) && (double)(a) <= (double)(b) + (tol))

/*
 * 100 waits in (0.5 s, 1 s] and no mean to go by (sum 0): interpolation
 * in log space, 0.5 s * 2^(rank / 100).
 */
static void test_quantile_log(void)
{
	struct totals t;

	one_bucket(&t, 20, 100, 0);
	CHECK_NEAR(totals_quantile(&t, 0.50), 707106781, 1);
	CHECK_NEAR(totals_quantile(&t, 0.90), 933032991, 1);
	CHECK_NEAR(totals_quantile(&t, 0.001), 503477774, 1);	/* rank 1 */
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS);	/* no max: the bucket's end */
	/* q <= 0 is rank 1, q > 1 is q = 1 */
	CHECK_NEAR(totals_quantile(&t, 0.0), 503477774, 1);
	CHECK_EQ_U64(totals_quantile(&t, 2.0), NS);
	/* a single wait: the bucket's end, or the max */
	one_bucket(&t, 20, 1, 0);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), NS);
	one_bucket(&t, 20, 1, 600000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.5), 600000000);
	/* a max above the bucket does not end it */
	one_bucket(&t, 20, 100, 3 * NS);
	CHECK_NEAR(totals_quantile(&t, 0.5), 707106781, 1);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), NS);
	/* a max below the bucket of the rank (stale CPUs): clamped to the max */
	one_bucket(&t, 22, 100, 1500000000);
	CHECK_EQ_U64(totals_quantile(&t, 0.01), 1500000000);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1500000000);
}

/*
 * The mean: the waits are uniform over the narrowest end of [lo, hi]
 * with the bucket's mean.
 */
static void test_quantile_mean(void)
{
	struct totals t;

	/* mean 0.6 s in (0.5, 1] s: [0.5, 0.7] s */
	one_bucket(&t, 20, 100, 0);
	t.sum_ns = 100 * 600000000ULL;
	CHECK_NEAR(totals_quantile(&t, 0.50), 600000000, 1);
	CHECK_NEAR(totals_quantile(&t, 0.90), 680000000, 1);
	CHECK_NEAR(totals_quantile(&t, 1.00), 700000000, 1);
	/* the max 0.65 s ends it, and is its last rank: [0.55, 0.65] s */
	t.max_ns = 650000000;
	CHECK_NEAR(totals_quantile(&t, 0.50), 600000000, 1);
	CHECK_NEAR(totals_quantile(&t, 0.90), 640000000, 1);
	CHECK_EQ_U64(totals_quantile(&t, 1.00), 650000000);
	/* the min 0.59 s starts it: [0.59, 0.61] s */
	t.max_ns = 0;
	totals_merge_min(&t, 590000000);
	CHECK_NEAR(totals_quantile(&t, 0.50), 600000000, 1);
	CHECK_NEAR(totals_quantile(&t, 0.001), 590200000, 1);
	CHECK_NEAR(totals_quantile(&t, 1.00), 610000000, 1);
	/* a mean near the top: [0.9, 1] s */
	one_bucket(&t, 20, 100, 0);
	t.sum_ns = 100 * 950000000ULL;
	CHECK_NEAR(totals_quantile(&t, 0.50), 950000000, 1);
	CHECK_NEAR(totals_quantile(&t, 0.10), 910000000, 1);
	/*
	 * Two buckets: 60 waits in (0.5 s, 1 s], 40 in (2 s, 4 s] whose
	 * middle is 3 s: the first bucket's mean is the rest of the sum
	 */
	totals_init(&t, tb[0]);
	t.buckets[20] = 60;
	t.buckets[22] = 40;
	t.count = 100;
	t.sum_ns = 60 * 550000000ULL + 40 * 3 * NS;
	CHECK_NEAR(totals_quantile(&t, 0.30), 550000000, 2);	/* [0.5, 0.6] s, rank 30 of 60 */
	/* the second's mean: (sum - 60 x 0.75 s) / 40 = 2.7 s, so [2, 3.4] s, rank 30 of 40 */
	CHECK_NEAR(totals_quantile(&t, 0.90), 3050000000, 2);
	/* a mean just outside the bucket (the other buckets' waits off their middles): its end */
	t.sum_ns = 60 * 450000000ULL + 40 * 3 * NS;
	CHECK_EQ_U64(totals_quantile(&t, 0.30), NS / 2);
	/* far outside: the sum tells nothing, log space */
	t.sum_ns = 100;
	CHECK_NEAR(totals_quantile(&t, 0.30), 707106781, 1);
}

/*
 * The shapes the estimate is for, against their exact quantiles: a
 * narrow peak with a few outliers (a 1 ms sleeper) and a spread (uniform
 * over 1-3 ms), at every schema: always within the bucket's ratio
 * 2^(2^-s) (the worst case), and for these shapes within 10 % at schema 3
 * and 50 % at schema 0 (the integration test's targets, here exact).
 */
static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void check_shape(const __u64 *w, int n)
{
	static const char comm[SH_COMM_LEN] = "x";	/* a task name is SH_COMM_LEN bytes */
	static const double qs[] = { 0.5, 0.9, 0.99 };
	static __u64 sorted[4096];
	struct totals t;
	int s, i, k, bad = 0;

	memcpy(sorted, w, (size_t)n * sizeof(*w));
	qsort(sorted, (size_t)n, sizeof(*w), cmp_u64);
	for (s = 0; s <= SH_SCHEMA_MAX; s++) {
		double worst = pow(2, 1.0 / (1 << s)) - 1, target = s == 3 ? 0.10 : s == 0 ? 0.50 : worst;

		use_schema(s);
		totals_init(&t, tb[1]);
		for (i = 0; i < n; i++) {
			t.buckets[bucket_of(w[i])]++;
			t.count++;
			t.sum_ns += w[i];
			totals_merge_max(&t, w[i], 1, 1, 0, comm);
			totals_merge_min(&t, w[i]);
		}
		for (k = 0; k < 3; k++) {
			__u64 truth = sorted[(int)ceil(qs[k] * n) - 1], est = totals_quantile(&t, qs[k]);
			double err = fabs((double)est - (double)truth) / (double)truth;

			if (err > worst || err > target) {
				fprintf(stderr, "schema %d q %.2f: %llu, exact %llu (%.1f %%)\n", s, qs[k],
					(unsigned long long)est, (unsigned long long)truth, err * 100);
				bad++;
			}
		}
	}
	CHECK_EQ_U64(bad, 0);
	use_schema(0);
}

static void test_quantile_shapes(void)
{
	static __u64 w[4096];
	int i;

	/* 1 ms sleeps as a thread sees them: 1.05-1.09 ms, 1 % of them 2-3 ms */
	for (i = 0; i < 2000; i++)
		w[i] = i % 100 ? 1050000 + rnd_below(40000) : 2000000 + rnd_below(1000000);
	check_shape(w, 2000);
	/* a spread: uniform over 1-3 ms */
	for (i = 0; i < 4000; i++)
		w[i] = 1000000 + rnd_below(2000000);
	check_shape(w, 4000);
	/* a narrow peak alone: 10 ms sleeps of 10.05-10.10 ms */
	for (i = 0; i < 1000; i++)
		w[i] = 10050000 + rnd_below(50000);
	check_shape(w, 1000);
}

/* The last bucket, above 2^19 s, and long waits. */
static void test_quantile_last_bucket(void)
{
	struct totals t;
	__u64 lo = NS << 19;

	/* 600 s is in (512 s, 1024 s]: the max ends it */
	one_bucket(&t, 30, 10, 600 * NS);
	CHECK_EQ_U64(bucket_of(600 * NS), 30);
	CHECK(totals_quantile(&t, 0.5) > 512 * NS && totals_quantile(&t, 0.5) < 600 * NS);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 600 * NS);

	/* max unknown: the open-ended last bucket ends at its native edge, 2^20 s */
	one_bucket(&t, LAST, 10, 0);
	CHECK(totals_quantile(&t, 0.5) > lo);
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 2 * lo);
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
	t.sum_ns = UINT64_MAX;
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
	t.sum_ns = 100 * 980;
	CHECK_EQ_U64(totals_quantile(&t, 1.0), 1000);
	for (q = 0.01; q <= 1.0; q += 0.01)
		bad += totals_quantile(&t, q) > 1000 || totals_quantile(&t, q) < 953;
	CHECK_EQ_U64(bad, 0);
}

/* A random max: unknown, inside the top bucket, or anywhere. */
static __u64 random_max(int top)
{
	switch (rnd_below(4)) {
	case 0:
		return 0;
	case 1:
	case 2:
		if (top == sh_nb - 1)
			return bucket_lo(top) + rnd_below(UINT64_MAX - bucket_lo(top));
		return bucket_lo(top) + rnd_below(bucket_hi(top) - bucket_lo(top));
	default:
		return rnd() >> rnd_below(64);
	}
}

/*
 * Random histograms of every schema, with no sum, a plausible one or any:
 * monotone in q, never above a known max, each estimate in the bucket of
 * its rank (or the max, when that is below).
 */
static void test_quantile_random(void)
{
	struct totals t;
	int n, i, s, top, bad_mono = 0, bad_max = 0, bad_end = 0, bad_in = 0;

	for (n = 0; n < 800; n++) {
		__u64 prev = 0, p, total = 0;
		int k, nb = 1 + (int)rnd_below(6);
		double q, sum = 0;

		s = n % (SH_SCHEMA_MAX + 1);
		use_schema(s);
		totals_init(&t, tb[2]);
		top = 0;
		for (k = 0; k < nb; k++) {
			__u64 c = 1 + (rnd_below(8) ? rnd_below(100) : rnd_below(1ULL << 40));

			i = (int)rnd_below((__u64)sh_nb);
			t.buckets[i] += c;
			sum += (double)c * (double)(bucket_lo(i) / 2 + bucket_hi(i) / 2);
			if (i > top)
				top = i;
		}
		for (i = 0; i < sh_nb; i++)
			total += t.buckets[i];
		t.count = total;
		t.sum_ns = n % 3 == 0 ? 0 : n % 3 == 1 ? (sum < 1.8e19 ? (__u64)sum : UINT64_MAX) : rnd();
		t.max_ns = random_max(top);

		for (q = 0.001; q <= 1.0; q += 0.001) {
			__u64 rank = (__u64)ceil(q * (double)total), seen = 0;

			p = totals_quantile(&t, q);
			if (p < prev)
				bad_mono++;
			if (t.max_ns && p > t.max_ns)
				bad_max++;
			/* the rank's bucket */
			if (rank < 1)
				rank = 1;
			for (i = 0; i < sh_nb && seen + t.buckets[i] < rank; i++)
				seen += t.buckets[i];
			if (i < sh_nb && (p + 1 < bucket_lo(i) || (i < sh_nb - 1 && p > bucket_edge(i))) &&
			    p != t.max_ns)
				bad_in++;
			prev = p;
		}
		p = totals_quantile(&t, 1.0);
		if (p < prev)
			bad_mono++;
		/* a max inside the top bucket is the 100th percentile */
		if (t.max_ns >= bucket_lo(top) && (top == sh_nb - 1 || t.max_ns < bucket_hi(top)) &&
		    t.max_ns && p != t.max_ns)
			bad_end++;
	}
	CHECK_EQ_U64(bad_mono, 0);
	CHECK_EQ_U64(bad_max, 0);
	CHECK_EQ_U64(bad_end, 0);
	CHECK_EQ_U64(bad_in, 0);
	use_schema(0);
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
	struct totals t;
	char long_comm[SH_COMM_LEN];

	totals_init(&t, tb[0]);
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
	struct totals a, b, empty;
	int i;

	totals_init(&a, tb[0]);
	totals_init(&b, tb[1]);
	totals_init(&empty, tb[2]);
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
	totals_clear(&b);
	totals_add(&b, &a);
	for (i = 0; i < sh_nb; i++)
		CHECK_EQ_U64(b.buckets[i], a.buckets[i]);
	CHECK_EQ_U64(b.count, a.count);
	CHECK_EQ_U64(b.sum_ns, a.sum_ns);
	CHECK_EQ_U64(b.max_ns, a.max_ns);
	CHECK_EQ_U64(b.max_tid, a.max_tid);
	CHECK(!strcmp(b.max_comm, a.max_comm));
}

int main(void)
{
	TEST(test_kernel_defaults);
	TEST(test_grid);
	TEST(test_bucket_of);
	TEST(test_quantile_empty);
	TEST(test_quantile_log);
	TEST(test_quantile_mean);
	TEST(test_quantile_shapes);
	TEST(test_quantile_last_bucket);
	TEST(test_quantile_bucket0);
	TEST(test_quantile_random);
	TEST(test_merge_max);
	TEST(test_totals_add);
	return test_summary();
}
