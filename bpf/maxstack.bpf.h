/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The max of each interval, with nothing cleared: the poller advances
 * sh_epoch at each reading and every histogram keeps the max (with the
 * min and who had the max) of the current and the previous epoch
 * (struct sh_hist max[], by epoch parity), so the max of the epoch being
 * read survives the waits recorded while the poller reads it.
 * --stacks: stack_map keeps, per key, metric, epoch parity and CPU, the
 * kernel stack of the task whose wait is the epoch's max on that CPU,
 * written only when a wait becomes a new max. A task being switched in has not run
 * since its switch-out, so its kernel stack is still the one it left
 * the CPU with (bpf_get_task_stack on it).
 * Cost: the max and min are within the run-to-run noise (step "+ the
 * epoch's max and min", bench/results/2026-12-03-0635.md; 1 ns in
 * 2026-12-02-1548.md); --stacks adds 2 ns per switch to -k comm
 * (51 ns over the floor against 49).
 */
#ifndef __SCHEDHIST_MAXSTACK_BPF_H
#define __SCHEDHIST_MAXSTACK_BPF_H

#include "settings.bpf.h"

/* --stacks: max_entries set by the poller (as the key map's) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_key);
	__type(value, struct sh_stacks);
} stack_map SEC(".maps");

/* Zero: the value a new stack_map entry starts from (never written). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_stacks);
} stack_zero SEC(".maps");

/*
 * --stacks: @t's wait of @d ns is the new max of epoch @ep for @key and
 * metric @m: keep @t's kernel stack. @t is being switched in and has not
 * run since its switch-out, so the stack is the one it left the CPU with.
 */
static __noinline void capture_stack(const struct sh_key *key, __u32 m, __u32 ep,
				     struct task_struct *t, __u64 d)
{
	struct sh_stacks *st;
	struct sh_stack *sk;
	__u32 zero = 0;
	long n;

	st = bpf_map_lookup_elem(&stack_map, key);
	if (!st) {
		void *z = bpf_map_lookup_elem(&stack_zero, &zero);

		/* full: no stack for this key (the poller shows none) */
		if (!z || bpf_map_update_elem(&stack_map, key, z, BPF_NOEXIST) ||
		    !(st = bpf_map_lookup_elem(&stack_map, key)))
			return;
	}
	if (m >= SH_METRIC_NR)
		return;
	sk = &st->s[m][ep & 1];
	/*
	 * a longer wait of this epoch on this CPU has its stack here already
	 * (the max record that called this is a cache entry's, which starts
	 * anew when the entry is evicted: bpf/store.bpf.h)
	 */
	if (sk->epoch == ep && sk->ns >= d)
		return;
	n = bpf_get_task_stack(t, sk->ip, sizeof(sk->ip), 0);
	sk->nr = n > 0 ? (__u32)(n / sizeof(sk->ip[0])) : 0;
	sk->ns = d;
	sk->epoch = ep;
}

#endif /* __SCHEDHIST_MAXSTACK_BPF_H */
