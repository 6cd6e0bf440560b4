/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Histograms in userspace: 64-bit totals, bucket bounds, percentiles. */
#ifndef SH_HIST_H
#define SH_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include "schedhist.h"

struct totals {
	/* Totals first, in one 64-byte line with @has_min: a totals pass reads one line. */
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
	/* sh_nb counts in the owner's storage, sized by the grid; a struct copy shares them. */
	__u64 *buckets;
};

/* The grid in use (schedhist.h): schema and bucket count, set once by grid_set(). */
extern int sh_schema;
extern int sh_nb;
void grid_set(int schema);
static inline size_t hist_bytes(void)
{
	return SH_HIST_SIZE(sh_nb);
}
/* The kernel's sh_bucket() tables of @schema (bits.bpf.h), for the loader's rodata. */
void grid_cells(int schema, __u64 top[SH_CELLS], __u8 base[SH_CELLS]);
/* floor(1e9 * 2^(k/8)), k = SH_EDGE_K0..+7: every schema's edges are these shifted right. */
#define SH_EDGE_K0 265
extern const __u64 sh_edge_top[8];

/* SH_NBUCKETS_MAX zeros: the buckets of totals that are never written (empty ones) */
extern const __u64 sh_zero_buckets[SH_NBUCKETS_MAX];

void totals_init(struct totals *t, __u64 *b);
void totals_clear(struct totals *t);

/* The upper edges of the grid in use, sh_nb of them, UINT64_MAX the last (grid_set()). */
extern __u64 sh_grid_edge[SH_NBUCKETS_MAX];

/* Upper edge of bucket @i in ns, floor(1e9 * 2^(i/2^s - 20)); UINT64_MAX for the last. */
static inline __u64 bucket_edge(int i)
{
	return i < 0 ? 0 : i >= sh_nb - 1 ? UINT64_MAX : sh_grid_edge[i];
}

/* Lower edge of bucket @i in ns: its waits are longer (0 for bucket 0, which holds 0). */
static inline __u64 bucket_floor(int i)
{
	return i > 0 ? bucket_edge(i - 1) : 0;
}

static inline __u64 bucket_lo(int i)
{
	return i > 0 ? bucket_edge(i - 1) + 1 : 0;
}

static inline __u64 bucket_hi(int i)
{
	return i >= sh_nb - 1 ? UINT64_MAX : bucket_edge(i) + 1;
}
int bucket_of(__u64 ns);

void totals_add(struct totals *dst, const struct totals *src);
void totals_add_meta(struct totals *dst, const struct totals *src);
void totals_merge_max(struct totals *dst, __u64 max_ns, __u32 tid, __u32 pid,
		      __u32 cpu, const char *comm);

void totals_merge_min(struct totals *dst, __u64 min_ns);

/*
 * Estimated @q quantile (0 < q <= 1) in ns, within the bucket of rank ceil(q * count) narrowed
 * by the exact min and max; monotone in @q, 0 when empty. The estimator: docs/usage.md.
 */
__u64 totals_quantile(const struct totals *t, double q);

void totals_quantiles(const struct totals *t, const double *q, int n, __u64 *out);

#endif /* SH_HIST_H */
