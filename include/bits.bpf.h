/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * log2 for the BPF target. The BPF ISA has no count-leading-zeros
 * instruction and Debian's clang 14 crashes lowering __builtin_clzll for
 * it, so this is a branch-light binary search with shifts and compares.
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

#endif /* SCHEDHIST_BITS_BPF_H */
