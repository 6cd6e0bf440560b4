/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Histograms in userspace: 64-bit totals, bucket bounds, percentiles. */
#ifndef SH_HIST_H
#define SH_HIST_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>
#include "schedhist.h"

/* A histogram summed over CPUs, for one interval or since start. */
struct sh_totals {
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
 * The 8 decimal digits of @x (< 10^8) at once, one per byte (0 to 9, not
 * yet ASCII), the first digit in the lowest byte: the halves of 4 digits,
 * then the pairs, then the digits, each split in every lane of the word
 * together by multiplying with a fixed-point reciprocal (10486 / 2^20 for
 * 100 below 10^4, 103 / 2^10 for 10 below 10^2: exact over those ranges).
 * No division chain from one digit to the next, as a loop of "/ 100" is.
 */
static inline __u64 digits8(__u32 x)
{
	__u64 halves = x / 10000 | (__u64)(x % 10000) << 32;
	__u64 hundreds = (halves * 10486 >> 20) & (0x7FULL << 32 | 0x7F);
	__u64 pairs = (halves - 100 * hundreds) << 16 | hundreds;
	__u64 tens = (pairs * 103 >> 10) & (0xFULL << 48 | 0xFULL << 32 | 0xFULL << 16 | 0xF);

	return tens | (pairs - 10 * tens) << 8;
}

/* @d (digits8()'s bytes) as 8 ASCII digits at @buf. */
static inline void put8(char *buf, __u64 d)
{
	d |= 0x3030303030303030ULL;
	memcpy(buf, &d, 8);
}

/* The leading zeros of @d, digits8(@x): zero bytes at the low end; 0 is one digit. */
static inline int digits8_zeros(__u32 x, __u64 d)
{
	return x ? __builtin_ctzll(d) >> 3 : 7;
}

/* @x (< 10^8) without leading zeros at @buf, which has room for 8 bytes; returns the length. */
static inline int put_upto8(char *buf, __u32 x)
{
	__u64 d = digits8(x);
	int zeros = digits8_zeros(x, d);

	put8(buf, d >> (8 * zeros));
	return 8 - zeros;
}

/* fmt_u64() of 9 digits and more. */
int fmt_u64_big(char *buf, __u64 v);

/*
 * @v in decimal into @buf (at least 21 bytes), NUL-terminated; returns the
 * length. The renderers' number formatting: several times faster than
 * printf's, which dominated the poller's CPU at thousands of keys; inline
 * up to 8 digits (counts, ids, waits in us): a call per number cost more
 * than its digits.
 */
static inline int fmt_u64(char *buf, __u64 v)
{
	int n;

	if (v >= 100000000)
		return fmt_u64_big(buf, v);
	n = put_upto8(buf, (__u32)v);
	buf[n] = '\0';
	return n;
}

/* What fmt_u64_right() may write: 16 columns of padding and 20 digits, with slack. */
#define FMT_RIGHT_ROOM 48

/* fmt_u64_right() of 9 digits and more. */
int fmt_u64_right_big(char *buf, __u64 v, int width);

/*
 * @v in decimal right-aligned in @width columns (at most 16) at @buf,
 * which has FMT_RIGHT_ROOM bytes of room, written in place (no copy from
 * a scratch buffer); not NUL-terminated. Returns the bytes written: the
 * larger of @width and the digits.
 */
static inline int fmt_u64_right(char *buf, __u64 v, int width)
{
	__u64 d;
	int zeros, len, pad;

	if (v >= 100000000)
		return fmt_u64_right_big(buf, v, width);
	d = digits8((__u32)v);
	zeros = digits8_zeros((__u32)v, d);
	len = 8 - zeros;
	pad = width > len ? width - len : 0;
	memset(buf, ' ', 16);
	put8(buf + pad, d >> (8 * zeros));
	return pad + len;
}

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
void totals_add(struct sh_totals *dst, const struct sh_totals *src);
/* The same for everything but the buckets (count, sum, max, min). */
void totals_add_meta(struct sh_totals *dst, const struct sh_totals *src);
/* @dst = the larger max of @dst and (@max_ns, who). */
void totals_merge_max(struct sh_totals *dst, __u64 max_ns, __u32 tid, __u32 pid,
		      __u32 cpu, const char *comm);

/* @dst = the smaller min of @dst and @min_ns. */
void totals_merge_min(struct sh_totals *dst, __u64 min_ns);

/*
 * Estimated @q quantile (0 < q <= 1) in ns: the bucket holding rank
 * ceil(q * count), interpolated linearly between its edges (as Prometheus'
 * histogram_quantile() does); the open-ended last bucket (and any bucket
 * holding the max) ends at the exact max, and a bucket holding the exact
 * min (has_min) starts at it. Never above max_ns when that is known, never
 * below min_ns when that is known (has_min); monotone in @q. 0 for an
 * empty histogram.
 */
__u64 totals_quantile(const struct sh_totals *t, double q);

/*
 * The same for @n quantiles @q, in increasing order, into @out: one pass
 * over the buckets for all of them.
 */
void totals_quantiles(const struct sh_totals *t, const double *q, int n, __u64 *out);

#endif /* SH_HIST_H */
