/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Histograms in userspace: 64-bit totals, bucket bounds, percentiles. */
#ifndef SH_HIST_H
#define SH_HIST_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>
#include "schedhist.h"

/* A histogram summed over CPUs, for one interval or since start. */
struct totals {
	/*
	 * The totals first, in one 64-byte line but @has_min, the buckets
	 * last: a pass that reads only the totals touches one line
	 */
	__u64 count;			/* waits */
	__u64 sum_ns;			/* sum of waits */
	__u64 max_ns;			/* longest wait, 0 if unknown */
	__u64 min_ns;			/* shortest wait */
	__u32 max_tid;			/* who had the longest: tid, pid, cpu, comm */
	__u32 max_pid;
	__u32 max_cpu;
	__u32 max_epoch;		/* kernel epoch the max was recorded in */
	char max_comm[SH_COMM_LEN];
	bool has_min;			/* min_ns is known (the kernel's exact min) */
	__u64 buckets[SH_NBUCKETS];	/* waits per bucket (schedhist.h) */
};

/*
 * The grid of schedhist.h. Upper edge of bucket @i in ns, floor(1e9 *
 * 2^(i-30)): the longest wait it holds (0 for bucket 0); UINT64_MAX for the
 * last one, whose edge, 2^35 s, is beyond 2^64 ns.
 */
__u64 bucket_edge(int i);
/* Lower edge of bucket @i in ns: its waits are longer (0 for bucket 0, which holds 0). */
__u64 bucket_floor(int i);
/* Shortest wait of bucket @i in ns (0 for bucket 0). */
__u64 bucket_lo(int i);
/* Exclusive upper bound of bucket @i in ns; UINT64_MAX for the last one. */
__u64 bucket_hi(int i);
/* The bucket a wait of @ns falls in: the kernel's sh_bucket(). */
int bucket_of(__u64 ns);

/* @dst += @src, taking the larger max (and who had it). */
void totals_add(struct totals *dst, const struct totals *src);
/* The same for everything but the buckets (count, sum, max, min). */
void totals_add_meta(struct totals *dst, const struct totals *src);
/* @dst = the larger max of @dst and (@max_ns, who). */
void totals_merge_max(struct totals *dst, __u64 max_ns, __u32 tid, __u32 pid,
		      __u32 cpu, const char *comm);

/* @dst = the smaller min of @dst and @min_ns. */
void totals_merge_min(struct totals *dst, __u64 min_ns);

/*
 * Estimated @q quantile (0 < q <= 1) in ns: the bucket holding rank
 * ceil(q * count), interpolated linearly between its edges (as Prometheus'
 * histogram_quantile() does); the open-ended last bucket (and any bucket
 * holding the max) ends at the exact max, and a bucket holding the exact
 * min (has_min) starts at it. Never above max_ns when that is known, never
 * below min_ns when that is known (has_min); monotone in @q. 0 for an
 * empty histogram.
 */
__u64 totals_quantile(const struct totals *t, double q);

/*
 * The same for @n quantiles @q, in increasing order, into @out: one pass
 * over the buckets for all of them.
 */
void totals_quantiles(const struct totals *t, const double *q, int n, __u64 *out);

#endif /* SH_HIST_H */
