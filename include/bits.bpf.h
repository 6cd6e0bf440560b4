/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Bit arithmetic for the BPF target. The BPF ISA has no count-leading-zeros
 * instruction and Debian's clang 14 crashes lowering __builtin_clzll for
 * it, so log2 is a binary search with shifts and compares down to a
 * byte, then a load from a 256-byte table (in the program's .rodata: four
 * cache lines, hot; three steps fewer per wait). Nor has it a
 * set-on-condition or conditional move: a compare the compiler lowers to
 * a branch costs a misprediction whenever the waits' magnitudes vary, so
 * every compare on the wait here is arithmetic (SH_GT). Plain C:
 * tests/unit/test_hist.c compiles this very code against the poller's
 * bucket_of().
 */
#ifndef SCHEDHIST_BITS_BPF_H
#define SCHEDHIST_BITS_BPF_H

/* 1 if @a > @b, else 0, without a branch; both below 2^63 (b - a wraps above 2^63 iff a > b). */
#define SH_GT(a, b) ((__u32)(((__u64)(b) - (__u64)(a)) >> 63))

/* floor(log2(b)) of a byte (0 for 0): the last three steps of the search as one load. */
static const __u8 sh_log2_byte[256] = {
	[2 ... 3] = 1, [4 ... 7] = 2, [8 ... 15] = 3, [16 ... 31] = 4,
	[32 ... 63] = 5, [64 ... 127] = 6, [128 ... 255] = 7,
};

/* floor(log2(v)) for 1 <= v < 2^63; 0 for v == 0. */
static __always_inline __u32 sh_log2(__u64 v)
{
	__u32 r, s;

	s = SH_GT(v, 0xFFFFFFFFULL) << 5; v >>= s; r = s;
	s = SH_GT(v, 0xFFFF) << 4; v >>= s; r |= s;
	s = SH_GT(v, 0xFF) << 3; v >>= s; r |= s;
	return r | sh_log2_byte[v & 0xff];
}

/*
 * The slot of a wait of @d ns in the grid of schedhist.h. Slot 0 takes
 * every wait up to its edge, 953 ns. Above, with l = floor(log2(d)) >= 9,
 * 2^l <= d < 2^(l+1) lies above the upper edge of slot l - 10
 * (1e9 * 2^(l-30) ns = 0.93 * 2^l) and at or below that of slot l - 8
 * (3.73 * 2^l), so one compare with the edge of slot l - 9,
 * SH_EDGE_TOP >> (63 - l), decides. Below 2^9 ns that gives l - 9 < 0,
 * and at l = 9 (512..1023 ns) 0 or 1 from the compare with slot 0's edge:
 * negatives become 0 (and-ing with the inverted sign), so no compare on
 * @d branches. Waits beyond the last slot's lower edge (and any of 2^62
 * ns or more: 146 years, the one branch, never taken) go to the last slot.
 */
static __always_inline __u32 sh_bucket(__u64 d)
{
	__u32 l;
	__s32 j;

	if (d >> 62)
		return SH_NBUCKETS - 1;
	l = sh_log2(d);
	j = (__s32)l - 9 + (__s32)SH_GT(d, SH_EDGE_TOP >> (63 - l));
	j &= ~(j >> 31);
	return (__u32)j < SH_NBUCKETS ? (__u32)j : SH_NBUCKETS - 1;
}

#endif /* SCHEDHIST_BITS_BPF_H */
