/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The max of each interval, with nothing cleared: the poller advances
 * sh_epoch at each reading and every histogram keeps the max (with the
 * min and who had the max) of the current and the previous epoch
 * (struct sh_hist max[], by epoch parity), so the max of the epoch being
 * read survives the waits recorded while the poller reads it.
 * --stacks: stack_map keeps, per key, metric and epoch parity, the
 * kernel stack of the task whose wait is the epoch's max over all CPUs,
 * written only when a wait is longer than the stack kept for that epoch.
 * A task being switched in has not run since its switch-out, so its
 * kernel stack is still the one it left the CPU with (bpf_get_task_stack
 * on it).
 * stack_map is one hash shared by the CPUs: its memory is O(keys)
 * whatever the CPU count, 1.4 kB a key where a per-CPU hash takes 482 kB
 * at 384 possible CPUs (bench/kmem). Each stack has a try-lock word
 * (struct sh_stack): a CPU takes it with a compare-and-swap before
 * writing the stack and never waits for it; a capture that finds it
 * taken is counted (stack_lost), and the poller does not use a stack
 * read while locked (user/model/stacks.c).
 * Cost: the max and min are within the run-to-run noise, --stacks a
 * little more (docs/overhead.md).
 */
#ifndef __SCHEDHIST_MAXSTACK_BPF_H
#define __SCHEDHIST_MAXSTACK_BPF_H

#include "settings.bpf.h"

/* --stacks: max_entries set by the poller (as the key map's) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_key);
	__type(value, struct sh_stacks);
} stack_map SEC(".maps");

/*
 * Zero: the value a new stack_map entry starts from (never written; too
 * large for the BPF stack).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_stacks);
} stack_zero SEC(".maps");

/*
 * --stacks: @t's wait of @d ns is the new max of epoch @ep for @key and
 * metric @m in this CPU's records: keep @t's kernel stack if the wait is
 * longer than the one kept for this epoch (by any CPU). @t is being
 * switched in and has not run since its switch-out, so the stack is the
 * one it left the CPU with. False when the stack was not kept because
 * another CPU held its lock (the caller counts it: stack_lost).
 */
static __noinline bool capture_stack(const struct sh_key *key, __u32 m, __u32 ep,
				     struct task_struct *t, __u64 d)
{
	struct sh_stacks *st;
	struct sh_stack *sk;
	__u32 zero = 0;
	long n;

	if (!key || m >= SH_METRIC_NR)
		return true;
	st = bpf_map_lookup_elem(&stack_map, key);
	if (!st) {
		void *z = bpf_map_lookup_elem(&stack_zero, &zero);

		/* made meanwhile on another CPU (-EEXIST): that entry is used */
		if (z)
			bpf_map_update_elem(&stack_map, key, z, BPF_NOEXIST);
		/* full: no stack for this key (the poller shows none) */
		st = bpf_map_lookup_elem(&stack_map, key);
		if (!st)
			return true;
	}
	sk = &st->s[m][ep & 1];
	/*
	 * a longer wait of this epoch has its stack here already (the max
	 * record that called this is this CPU's cache entry's, which starts
	 * anew when the entry is evicted: bpf/store.bpf.h); read without the
	 * lock, and again under it
	 */
	if (sk->epoch == ep && sk->ns >= d)
		return true;
	if (__sync_val_compare_and_swap(&sk->lock, 0, 1))
		return false;
	if (sk->epoch != ep || sk->ns < d) {
		n = bpf_get_task_stack(t, sk->ip, sizeof(sk->ip), 0);
		sk->nr = n > 0 ? (__u32)(n / sizeof(sk->ip[0])) : 0;
		sk->ns = d;
		sk->epoch = ep;
	}
	/* a full barrier: the stack is written before the lock reads free */
	__sync_lock_test_and_set(&sk->lock, 0);
	return true;
}

#endif /* __SCHEDHIST_MAXSTACK_BPF_H */
