/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Bit arithmetic for the BPF target. The BPF ISA has no count-leading-zeros
 * instruction and Debian's clang 14 crashes lowering __builtin_clzll for
 * it, so log2 is a branch-light binary search with shifts and compares.
 * Plain C: tests/unit/test_hist.c compiles this very code against the
 * poller's bucket_of().
 */
#ifndef SCHEDHIST_BITS_BPF_H
#define SCHEDHIST_BITS_BPF_H

/* floor(log2(v)) for v >= 1; 0 for v == 0. */
static __always_inline __u32 sh_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFF) << 4; v >>= s; r |= s;
	s = (v > 0xFF) << 3; v >>= s; r |= s;
	s = (v > 0xF) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r;
}

/*
 * The slot of a wait of @d ns in the grid of schedhist.h. Slot 0 takes
 * every wait up to its edge, 953 ns. Above, with l = floor(log2(d)) >= 9,
 * 2^l <= d < 2^(l+1) lies above the upper edge of slot l - 10
 * (1e9 * 2^(l-30) ns = 0.93 * 2^l) and at or below that of slot l - 8
 * (3.73 * 2^l), so one compare with the edge of slot l - 9,
 * SH_EDGE_TOP >> (63 - l), decides; waits beyond the last slot's lower edge
 * go to the last slot. Beyond sh_log2(): two compares, a shift, a subtract
 * and an add; no table, no loop.
 */
static __always_inline __u32 sh_bucket(__u64 d)
{
	__u32 l, j;

	if (d <= (SH_EDGE_TOP >> SH_EDGE_SHIFT))
		return 0;
	l = sh_log2(d);
	j = l - 9 + (d > (SH_EDGE_TOP >> (63 - l)));
	return j < SH_NBUCKETS ? j : SH_NBUCKETS - 1;
}

#endif /* SCHEDHIST_BITS_BPF_H */
