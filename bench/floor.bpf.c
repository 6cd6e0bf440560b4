// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floors of bench/run.sh, on the tracepoints schedhist uses.
 *   floor_*  empty programs. Whatever schedhist (or any tool) attaches
 *            there costs at least this: the tracepoint's BPF trampoline,
 *            the program's prologue and, with kernel.bpf_stats_enabled=1,
 *            the statistics' own clock reads.
 *   clock_*  one bpf_ktime_get_ns() per event, kept in a per-CPU array so
 *            it is not optimised away: the floor plus the one clock read
 *            every latency tool needs per event. On a paravirtual clock
 *            (kvm-clock) that read alone can cost more than the rest of
 *            the work, and this arm shows how much.
 * The loader (bench/floor.c) attaches one pair or the other.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_ns SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup)
{
	return 0;
}

static __always_inline int read_clock(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&last_ns, &zero);

	if (v)
		*v = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(clock_switch)
{
	return read_clock();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(clock_wakeup)
{
	return read_clock();
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
