// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floor of bench/run.sh: empty programs on the tracepoints schedhist
 * uses. Whatever schedhist (or any tool) attaches there costs at least
 * this: the tracepoint's BPF trampoline, the program's prologue and, with
 * kernel.bpf_stats_enabled=1, the statistics bookkeeping. The difference
 * between an arm and the floor is the work the arm's program body does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

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

char LICENSE[] SEC("license") = "Dual BSD/GPL";
