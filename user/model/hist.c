// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Histogram arithmetic: bucket bounds, merging, percentile estimation. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "model/hist.h"

const __u64 sh_edge_top[8] = {
	0x81ffa7a9549ca6e3ULL, 0x8dc3b8960164a7d9ULL, 0x9a9867054d512391ULL, 0xa8965f74bf065071ULL,
	0xb7d88a12d0dd9ea0ULL, 0xc87c3e7d03cdbec3ULL, 0xdaa17c2cd19555dbULL, SH_EDGE_1S_MANT,
};

const __u64 sh_zero_buckets[SH_NBUCKETS_MAX];
int sh_schema;
int sh_nb = SH_NBUCKETS(0);
/* the upper edges of the grid in use (hist.h), and the middles of its buckets */
__u64 sh_grid_edge[SH_NBUCKETS_MAX];
static double grid_mid[SH_NBUCKETS_MAX];

/* floor(1e9 * 2^(k/2^s)) ns, native index @k of schema @s, for k < 20 << s */
static __u64 native_edge(int s, int k)
{
	int K = k * (1 << (3 - s)) - SH_EDGE_K0;	/* k < 0 below 1 s: a multiply, not a shift */
	/* K = 8q + m, 0 <= m < 8: the edge is sh_edge_top[m] / 2^-q, q <= 0 */
	int q = K >= 0 ? K / 8 : -((-K + 7) / 8);

	return sh_edge_top[K - 8 * q] >> -q;
}

void grid_set(int schema)
{
	int i;

	sh_schema = schema;
	sh_nb = SH_NBUCKETS(schema);
	for (i = 0; i < sh_nb - 1; i++)
		sh_grid_edge[i] = native_edge(schema, i + SH_NATIVE_INDEX0(schema));
	sh_grid_edge[sh_nb - 1] = UINT64_MAX;
	for (i = 0; i < sh_nb; i++)
		grid_mid[i] = i == sh_nb - 1 ? (double)sh_grid_edge[i - 1] * 1.5
					     : ((double)bucket_floor(i) + (double)sh_grid_edge[i]) / 2;
}

void grid_cells(int schema, __u64 top[SH_CELLS], __u8 base[SH_CELLS])
{
	int n = 1 << schema, c, m, below;
	/* the native index of the first edge of schema @schema between 2^63 and 2^64 */
	int k0 = (SH_EDGE_K0 + (1 << (3 - schema)) - 1) >> (3 - schema);

	for (c = 0; c < SH_CELLS; c++) {
		__u64 start = (__u64)(SH_CELLS + c) << (64 - SH_CELL_BITS - 1);

		top[c] = ~0ULL;
		for (below = 0, m = 0; m < n; m++) {
			__u64 e = native_edge(schema, k0 + m);

			if (e < start)
				below++;
			else if (top[c] == ~0ULL)
				top[c] = e;
		}
		/*
		 * Octave 63 starts at bucket k0 + (20 << s) less the edges below the cell;
		 * the kernel adds (63 - 10) << s
		 */
		base[c] = (__u8)(k0 + (20 << schema) + below - (53 << schema));
	}
}

void totals_init(struct totals *t, __u64 *b)
{
	memset(t, 0, sizeof(*t));
	t->buckets = b;
	memset(b, 0, (size_t)sh_nb * sizeof(*b));
}

void totals_clear(struct totals *t)
{
	totals_init(t, t->buckets);
}





int bucket_of(__u64 ns)
{
	int lo = 0, hi = sh_nb - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (sh_grid_edge[mid] >= ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void totals_merge_max(struct totals *dst, __u64 max_ns, __u32 tid, __u32 pid,
		      __u32 cpu, const char *comm)
{
	if (max_ns < dst->max_ns || (max_ns == dst->max_ns && dst->max_tid))
		return;
	dst->max_ns = max_ns;
	dst->max_tid = tid;
	dst->max_pid = pid;
	dst->max_cpu = cpu;
	memcpy(dst->max_comm, comm, SH_COMM_LEN);
	dst->max_comm[SH_COMM_LEN - 1] = '\0';
}

void totals_merge_min(struct totals *dst, __u64 min_ns)
{
	if (!dst->has_min || min_ns < dst->min_ns)
		dst->min_ns = min_ns;
	dst->has_min = true;
}

/* @d += @s over @nb buckets: inlined with the default schema's constant, so vectorized. */
static __attribute__((always_inline)) inline void add_buckets(__u64 *restrict d,
							       const __u64 *restrict s, const int nb)
{
	int i;

	for (i = 0; i < nb; i++)
		d[i] += s[i];
}

void totals_add(struct totals *dst, const struct totals *src)
{
	if (sh_nb == SH_NBUCKETS(0))
		add_buckets(dst->buckets, src->buckets, SH_NBUCKETS(0));
	else
		add_buckets(dst->buckets, src->buckets, sh_nb);
	totals_add_meta(dst, src);
}

void totals_add_meta(struct totals *dst, const struct totals *src)
{
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->count || src->max_ns) {
		__u64 before = dst->max_ns;
		__u32 tid = dst->max_tid;

		totals_merge_max(dst, src->max_ns, src->max_tid, src->max_pid, src->max_cpu,
				 src->max_comm);
		if (dst->max_ns != before || dst->max_tid != tid)
			dst->max_epoch = src->max_epoch;
	}
	if (src->has_min)
		totals_merge_min(dst, src->min_ns);
}

static __u64 quantile_rank(double q, __u64 total)
{
	__u64 rank;

	if (q > 1.0)
		q = 1.0;
	rank = (__u64)ceil(q * (double)total);
	return rank < 1 ? 1 : rank;
}

static double bucket_mid(const struct totals *t, int i)
{
	double lo = (double)bucket_floor(i), hi = (double)bucket_edge(i);
	bool narrowed = false;

	if (t->has_min && (double)t->min_ns > lo && (double)t->min_ns <= hi) {
		lo = (double)t->min_ns;
		narrowed = true;
	}
	if (t->max_ns && (double)t->max_ns > lo && (double)t->max_ns <= hi) {
		hi = (double)t->max_ns;
		narrowed = true;
	}
	return narrowed || i < sh_nb - 1 ? (lo + hi) / 2 : grid_mid[i];
}

/*
 * The waits of the buckets other than @i at their middles (bucket_mid()), from bucket @first
 * until all @total are counted.
 */
static double others_sum(const struct totals *t, int i, int first, __u64 total)
{
	__u64 seen = 0;
	double sum = 0;
	int k;

	for (k = first; seen < total && k < sh_nb; k++) {
		if (!t->buckets[k])
			continue;
		seen += t->buckets[k];
		if (k != i)
			sum += (double)t->buckets[k] *
			       (k == first || seen == total ? bucket_mid(t, k) : grid_mid[k]);
	}
	return sum;
}

/* The last bucket's mean rank_estimate() worked out: quantiles often fall in one bucket. */
struct mean_memo {
	int bucket;		/* -1: none yet */
	double mean;
};

static __u64 rank_estimate(const struct totals *t, __u64 total, __u64 rank, int i, __u64 seen,
			   int first, struct mean_memo *memo)
{
	__u64 lo, hi, r;
	double est, frac, mean, a, b, n = (double)t->buckets[i];
	bool top_is_max = false;

	lo = bucket_floor(i);
	hi = bucket_edge(i);
	if (t->max_ns >= bucket_lo(i) && t->max_ns <= hi) {
		hi = t->max_ns;
		top_is_max = true;
	} else if (hi == UINT64_MAX) {
		hi = lo * 2;
	}
	if (t->has_min && t->min_ns > lo && t->min_ns < hi)
		lo = t->min_ns;
	frac = (double)(rank - seen) / n;
	/* The bucket's mean: exact if every wait is in it, else less the others' middles. */
	if (t->count != total || !t->sum_ns)	/* no sum, or one of other waits than the buckets' */
		mean = -1;
	else if (t->buckets[i] == total)
		mean = (double)t->sum_ns / n;
	else if (memo->bucket == i)
		mean = memo->mean;
	else
		mean = ((double)t->sum_ns - others_sum(t, i, first, total)) / n;
	memo->bucket = i;
	memo->mean = mean;
	a = (double)lo;
	b = (double)hi;
	/*
	 * A mean outside the bucket by less than its width: the waits are at that end; further out
	 * the sum tells nothing (log space below).
	 */
	if (mean < a && mean >= a - (b - a))
		mean = a;
	if (mean > b && mean <= b + (b - a))
		mean = b;
	if (mean >= a && mean <= b && b > a) {
		/* uniform over the narrowest end of [lo, hi] that has that mean */
		if (mean - a <= b - mean)
			b = 2 * mean - a;
		else
			a = 2 * mean - b;
		est = a + (b - a) * frac;
	} else {
		/* no mean: log-space interpolation, a spread of the bucket's ratio */
		est = a > 0 ? a * pow(b / a, frac) : a + (b - a) * frac;
	}
	/*
	 * In integers from here: above 2^53 a double rounds, possibly past the end or the max.
	 * The bucket's last rank is the exact max when that is in it.
	 */
	r = (top_is_max && rank - seen == t->buckets[i]) || est >= (double)hi ? hi : (__u64)est;
	if (r < lo)
		r = lo;
	if (t->max_ns && r > t->max_ns)
		return t->max_ns;
	if (t->has_min && r < t->min_ns)
		return t->min_ns;
	return r;
}

/* The waits of @nb buckets @b (inlined with the default schema's constant, as add_buckets()). */
static __attribute__((always_inline)) inline __u64 bucket_total(const __u64 *b, const int nb)
{
	__u64 acc[4] = { 0, 0, 0, 0 };
	int k;

	/* four sums side by side: one add after another was a chain of nb */
	for (k = 0; k + 4 <= nb; k += 4) {
		acc[0] += b[k];
		acc[1] += b[k + 1];
		acc[2] += b[k + 2];
		acc[3] += b[k + 3];
	}
	for (; k < nb; k++)
		acc[0] += b[k];
	return acc[0] + acc[1] + acc[2] + acc[3];
}

void totals_quantiles(const struct totals *t, const double *q, int n, __u64 *out)
{
	struct mean_memo memo = { .bucket = -1 };
	__u64 total, seen = 0, rank;
	int i, k, first;

	total = sh_nb == SH_NBUCKETS(0) ? bucket_total(t->buckets, SH_NBUCKETS(0))
				       : bucket_total(t->buckets, sh_nb);
	if (!total) {
		for (k = 0; k < n; k++)
			out[k] = 0;
		return;
	}
	for (i = 0; !t->buckets[i]; i++)
		;
	first = i;
	for (k = 0; k < n; k++) {
		rank = quantile_rank(q[k], total);
		/* ranks grow with q: go on from the bucket of the previous one */
		for (; i < sh_nb; i++) {
			if (seen + t->buckets[i] >= rank)
				break;
			seen += t->buckets[i];
		}
		if (i == sh_nb)
			i = sh_nb - 1;
		out[k] = rank_estimate(t, total, rank, i, seen, first, &memo);
	}
}

__u64 totals_quantile(const struct totals *t, double q)
{
	__u64 r;

	totals_quantiles(t, &q, 1, &r);
	return r;
}

__attribute__((constructor)) static void grid_default(void)
{
	grid_set(0);
}
