// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Histogram arithmetic: bucket bounds, merging, percentile estimation. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hist.h"

__u64 bucket_edge(int i)
{
	if (i < 0)
		return 0;
	if (i >= SH_NBUCKETS - 1)
		return UINT64_MAX;
	return SH_EDGE_TOP >> (SH_EDGE_SHIFT - i);
}

__u64 bucket_floor(int i)
{
	return i > 0 ? bucket_edge(i - 1) : 0;
}

__u64 bucket_lo(int i)
{
	return i > 0 ? bucket_edge(i - 1) + 1 : 0;
}

__u64 bucket_hi(int i)
{
	return i >= SH_NBUCKETS - 1 ? UINT64_MAX : bucket_edge(i) + 1;
}

int bucket_of(__u64 ns)
{
	int l;

	if (ns <= bucket_edge(0))
		return 0;
	l = 63 - __builtin_clzll(ns);
	l = l - 9 + (ns > (SH_EDGE_TOP >> (63 - l)));
	return l < SH_NBUCKETS ? l : SH_NBUCKETS - 1;
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

void totals_add(struct totals *dst, const struct totals *src)
{
	int i;

	for (i = 0; i < SH_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
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

/* The rank of quantile @q among @total waits: ceil(q * total), at least 1. */
static __u64 quantile_rank(double q, __u64 total)
{
	__u64 rank;

	if (q > 1.0)
		q = 1.0;
	rank = (__u64)ceil(q * (double)total);
	return rank < 1 ? 1 : rank;
}

/*
 * The estimate of rank @rank of @total waits, which falls in bucket @i
 * after the @seen waits of the buckets below it.
 */
static __u64 rank_estimate(const struct totals *t, __u64 total, __u64 rank, int i, __u64 seen)
{
	__u64 lo, hi, r;
	double est, frac;

	lo = bucket_floor(i);
	hi = bucket_edge(i);
	/* the max, when known and inside this bucket, is its real upper end */
	if (t->max_ns >= bucket_lo(i) && t->max_ns <= hi)
		hi = t->max_ns;
	else if (hi == UINT64_MAX)
		hi = lo * 2;
	/* and the min its real lower end: waits that all fall in one bucket */
	if (t->has_min && t->min_ns > lo && t->min_ns < hi)
		lo = t->min_ns;
	frac = (double)(rank - seen) / (double)t->buckets[i];
	est = (double)lo + (double)(hi - lo) * frac;
	/*
	 * Every wait in this one bucket: its exact mean is known too (the
	 * sum), so the bucket's middle rank goes to the mean, not to the
	 * middle of [lo, hi]: so one long outlier does not drag p50 half way
	 * to itself (lo to the mean, then the mean to hi, linearly)
	 */
	if (t->buckets[i] == total && t->count == total) {
		double mean = (double)t->sum_ns / (double)total;

		if (mean >= (double)lo && mean <= (double)hi)
			est = frac <= 0.5 ? (double)lo + (mean - (double)lo) * frac * 2
					  : mean + ((double)hi - mean) * (frac - 0.5) * 2;
	}
	/*
	 * In integers from here: above 2^53 a double rounds, possibly past the
	 * bucket's end or the max, and 2^64 does not convert back to a __u64.
	 * The bucket's last rank is its end exactly.
	 */
	r = rank - seen == t->buckets[i] || est >= (double)hi ? hi : (__u64)est;
	if (t->max_ns && r > t->max_ns)
		return t->max_ns;
	/* the same at the other end: a bucket's lower part holding no wait */
	if (t->has_min && r < t->min_ns)
		return t->min_ns;
	return r;
}

void totals_quantiles(const struct totals *t, const double *q, int n, __u64 *out)
{
	__u64 total, seen = 0, rank, acc[4] = { 0, 0, 0, 0 };
	int i, k;

	/* four sums side by side: one running sum would be a chain of 41 dependent adds */
	for (k = 0; k + 4 <= SH_NBUCKETS; k += 4) {
		acc[0] += t->buckets[k];
		acc[1] += t->buckets[k + 1];
		acc[2] += t->buckets[k + 2];
		acc[3] += t->buckets[k + 3];
	}
	for (; k < SH_NBUCKETS; k++)
		acc[0] += t->buckets[k];
	total = acc[0] + acc[1] + acc[2] + acc[3];
	if (!total) {
		for (k = 0; k < n; k++)
			out[k] = 0;
		return;
	}
	/* no rank falls in the empty buckets below the first wait */
	for (i = 0; !t->buckets[i]; i++)
		;
	for (k = 0; k < n; k++) {
		rank = quantile_rank(q[k], total);
		/* ranks grow with q: go on from the bucket of the previous one */
		for (; i < SH_NBUCKETS; i++) {
			if (seen + t->buckets[i] >= rank)
				break;
			seen += t->buckets[i];
		}
		if (i == SH_NBUCKETS)
			i = SH_NBUCKETS - 1;
		out[k] = rank_estimate(t, total, rank, i, seen);
	}
}

__u64 totals_quantile(const struct totals *t, double q)
{
	__u64 r;

	totals_quantiles(t, &q, 1, &r);
	return r;
}
