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
 * tests/unit/test_hist.c compiles this very code, at every schema,
 * against the grid's definition in exact integers.
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
 * The grid of the run (schedhist.h), set by the loader before load
 * (user/model/hist.c grid_cells()); the defaults are schema 0's. The histogram
 * length, nbuckets, is the one place the kernel side reads it. (A unit
 * test compiling this in userspace defines SH_RODATA as plain volatile,
 * to set them per schema.)
 */
#ifndef SH_RODATA
#define SH_RODATA const volatile
#endif
SH_RODATA __u32 schema = 0;
SH_RODATA __u32 nbuckets = SH_NBUCKETS(0);
/*
 * per cell: the 64-bit mantissa of the first edge at or above its start
 * (the one in it, if any: the compare is false for an edge in a later
 * cell), ~0 when none is in the octave ...
 */
SH_RODATA __u64 cell_top[SH_CELLS] = { [0 ... 27] = SH_EDGE_1S_MANT, [28 ... 31] = ~0ULL };
/* ... and the bucket of its first waits, less ((l - 10) << schema) */
SH_RODATA __u8 cell_base[SH_CELLS] = { [0 ... 27] = 1, [28 ... 31] = 2 };

/*
 * The bucket of a wait of @d ns in the grid of schedhist.h: from its
 * octave l = floor(log2(d)), a shift and a mask give its cell (the
 * SH_CELL_BITS bits below the leading one), whose first bucket is
 * ((l - 10) << schema) + cell_base[cell]; one compare with the cell's
 * edge, cell_top >> (63 - l), adds the next one. Waits up to 2^-20 s give
 * 0 or less (l <= 9: the octave term is at most -(1 << schema), the
 * cell's at most that + 1, and 2^-20 s is an edge), negatives become 0
 * (and-ing with the inverted sign), so no compare on @d branches. Below
 * 2^5 ns the cell is garbage and the result negative anyway. Waits
 * beyond the last bucket's lower edge (and any of 2^62 ns or more: 146
 * years, the one branch, never taken) go to the last bucket. At schema
 * 0 (the default), every cell's edge is the same mantissa
 * (SH_EDGE_1S_MANT): (l - 9) plus one above it, no cell and no table
 * loads. The test of the schema costs nothing: it is a setting, and the
 * verifier drops the branch not taken (bench/run.sh arms
 * sh:offcpu+runq+blocked:none and sh:runq:none:auto:schema=3; three
 * metrics bin three waits per switch).
 */
static __always_inline __u32 sh_bucket(__u64 d)
{
	__u32 l, c;
	__s32 j, sh;

	if (d >> 62)
		return nbuckets - 1;
	l = sh_log2(d);
	if (schema == 0) {
		j = (__s32)l - 9 + (__s32)SH_GT(d, SH_EDGE_1S_MANT >> (63 - l));
	} else {
		sh = (__s32)l - SH_CELL_BITS;
		sh &= ~(sh >> 31);
		c = (__u32)(d >> sh) & (SH_CELLS - 1);
		j = (__s32)((l << schema) - (10U << schema)) + cell_base[c] +
		    (__s32)SH_GT(d, cell_top[c] >> (63 - l));
	}
	j &= ~(j >> 31);
	return (__u32)j < nbuckets ? (__u32)j : nbuckets - 1;
}

/*
 * The histogram of metric index @i of a map value @h (one sh_hist per
 * metric, each SH_HIST_SIZE(nbuckets) bytes: the length of the run's).
 */
static __always_inline struct sh_hist *hist_at(void *h, int i)
{
	return (struct sh_hist *)((char *)h + i * SH_HIST_SIZE(nbuckets));
}

/* Zero histogram @h: its header, then its buckets (the length is the run's). */
static __always_inline void hist_zero(struct sh_hist *h)
{
	__u32 i;

	__builtin_memset(h, 0, sizeof(*h));
	for (i = 0; i < SH_NBUCKETS_MAX && i < nbuckets; i++)
		h->buckets[i] = 0;
}

#endif /* SCHEDHIST_BITS_BPF_H */
