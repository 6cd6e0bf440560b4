/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --culprits: each run-queue wait is also counted against the task that
 * held the CPU when it ended, per (waiter key, culprit key) pair, count
 * and sum. Each CPU first adds a wait to its pair cache in pcpu (struct
 * sh_culprit_ent): a pair goes to culprit_map only when another pair
 * takes its cache entry, so most waits touch no hash. The poller removes
 * idle entries; a pair that finds the map full is counted (culprit_lost)
 * and shows under [rest]. Cost: a few ns per switch, far less than a hash
 * update per wait (docs/overhead.md, "In the kernel").
 * culprit_map is one hash shared by the CPUs, its counts added with
 * atomic adds: its memory is O(pairs) whatever the CPU count, 136 bytes a
 * pair where a per-CPU hash takes 15.5 kB at 384 possible CPUs
 * (bench/kmem). The atomic adds cost only at an eviction from a pair
 * cache, which is rare.
 */
#ifndef __SCHEDHIST_CULPRITS_BPF_H
#define __SCHEDHIST_CULPRITS_BPF_H

#include "task_key.bpf.h"

/* --culprits: max_entries set by the poller */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_culprit_key);
	__type(value, struct sh_culprit_val);
} culprit_map SEC(".maps");

/*
 * --culprits: add @add (count, sum and, for pid/tid keys, the culprit's
 * name; on the stack) to pair @ck in the culprit map. False when no
 * entry could be made for the pair (the map is full).
 */
static __noinline bool blame_map(const struct sh_culprit_key *ck, const struct sh_culprit_val *add)
{
	struct sh_culprit_val *v;
	long err;

	if (!ck || !add)
		return false;
	v = bpf_map_lookup_elem(&culprit_map, ck);
	if (!v) {
		err = bpf_map_update_elem(&culprit_map, ck, add, BPF_NOEXIST);
		if (!err)
			return true;
		/* made meanwhile on another CPU: add to it */
		if (err != -EEXIST || !(v = bpf_map_lookup_elem(&culprit_map, ck)))
			return false;
	}
	/* other CPUs add to the same pair: atomic adds */
	__sync_fetch_and_add(&v->count, add->count);
	__sync_fetch_and_add(&v->sum_ns, add->sum_ns);
	/*
	 * the latest name, a plain copy: two CPUs copying at once may
	 * interleave, which only mixes two names of this pair's culprit
	 */
	if (key_type == SH_KEY_PID || key_type == SH_KEY_TID)
		copy_comm(v->comm, add->comm);
	return true;
}

/* Pair cache entry of @ck: a multiplicative hash, the waiter's and the culprit's apart. */
static __always_inline __u32 ccache_index(const struct sh_culprit_key *ck)
{
	const __u64 *w = (const __u64 *)&ck->waiter, *c = (const __u64 *)&ck->culprit;
	__u64 h = (w[0] ^ w[1] ^ w[2]) * 0x9E3779B97F4A7C15ULL ^
		  (c[0] ^ c[1] ^ c[2]) * 0xC2B2AE3D27D4EB4FULL;

	return (__u32)(h >> 59) & (SH_CCACHE - 1);
}

/*
 * --culprits: @d ns of a run-queue wait are counted against pair @ck
 * (waiter key, culprit key; pid/tid keys: the culprit named @comm), in
 * this CPU's pair cache (struct sh_culprit_ent). A pair that is not
 * there takes its entry; the pair it replaces moves to the culprit map.
 */
static __always_inline void blame_pair(struct sh_pcpu *pc, const struct sh_culprit_key *pair,
				       const char *comm, __u64 d)
{
	struct sh_culprit_ent *e = &pc->ccache[ccache_index(pair)];
	bool named = key_type == SH_KEY_PID || key_type == SH_KEY_TID;
	const __u64 *a = (const __u64 *)&e->key, *b = (const __u64 *)pair;

	if (e->v.count && a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] &&
	    a[4] == b[4] && a[5] == b[5]) {
		e->v.count++;
		e->v.sum_ns += d;
		if (named)
			copy_comm(e->v.comm, comm);
		return;
	}
	/* (the entry is moved out before it is overwritten: no copy on the stack) */
	if (e->v.count && !blame_map(&e->key, &e->v))
		pc->culprit_lost += e->v.count;
	e->key = *pair;
	e->v.count = 1;
	e->v.sum_ns = d;
	if (named)
		copy_comm(e->v.comm, comm);
}

/*
 * --culprits, --culprit-mode switch (the default): a run-queue wait of
 * @d ns recorded under @waiter ended with @prev leaving the CPU: the
 * whole wait is counted against @prev's key.
 */
static __always_inline void blame(struct sh_pcpu *pc, const struct sh_key *waiter,
				  struct task_struct *prev, __u64 d)
{
	struct sh_culprit_key ck = {};

	ck.waiter = *waiter;
	if (prev->pid)
		task_key(prev, &ck.culprit);
	else
		ck.culprit.id = SH_IDLE_ID;
	blame_pair(pc, &ck, prev->comm, d);
}

#endif /* __SCHEDHIST_CULPRITS_BPF_H */
