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
 *   step_*   where the time of schedhist's -M runq goes: sched_switch
 *            programs that each do one more part of its work than the
 *            one before (see step() below), on the same data structures
 *            (include/schedhist.h, bits.bpf.h). A model of the hot path,
 *            not the path itself: the differences between steps are what
 *            each part costs.
 * The loader (bench/floor.c) attaches one pair, or one step.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "schedhist.h"
#include "bits.bpf.h"

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

/* ---- steps ---- */

enum {
	STEP_CLOCK,	/* the run queue's clock: prev->se.cfs_rq->rq->clock */
	STEP_SCHED_INFO,/* + next's sched_info: the queued part of the wait */
	STEP_TABLE,	/* + the task table: the whole wait (migrations), pcount */
	STEP_STORAGE,	/* STEP_TABLE with task storage instead of the table */
	STEP_HIST,	/* + the bucket and the histogram in the per-CPU array */
	STEP_MAX,	/* + the epoch's max and min, and who had the max */
	STEP_HASH,	/* STEP_MAX in a per-CPU hash keyed by tid (-k tid) */
};

#define TABLE_SIZE 32768

struct step_state {
	__u64 owner, start, rd_base;
	__u32 flags, pcount;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TABLE_SIZE);
	__type(key, __u32);
	__type(value, struct step_state);
} step_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct step_state);
} step_st SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_pcpu);
} step_pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10242);
	__type(key, struct sh_key);
	__uint(value_size, SH_HIST_SIZE(SH_NBUCKETS(0)));	/* schema 0's histogram */
} step_keys SEC(".maps");

volatile __u32 step_epoch = 1;

static __always_inline int step(struct task_struct *prev, struct task_struct *next, const int n)
{
	__u64 now = prev->se.cfs_rq->rq->clock, d, lq, rd;
	struct step_state *s = 0;
	struct sh_pcpu *pc;
	struct sh_hist *h;
	__u32 zero = 0, slot, pcount;

	pc = bpf_map_lookup_elem(&step_pcpu, &zero);
	if (!pc || !next->pid)
		return 0;
	if (n == STEP_CLOCK) {
		pc->stats[0][0] = now;
		return 0;
	}
	lq = next->sched_info.last_queued;
	rd = next->sched_info.run_delay;
	pcount = next->sched_info.pcount;
	if (!lq || now < lq)
		return 0;
	d = now - lq;
	if (n == STEP_SCHED_INFO) {
		pc->stats[0][0] = d;
		return 0;
	}
	if (n == STEP_STORAGE) {
		s = bpf_task_storage_get(&step_st, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	} else {
		__u32 i = ((__u32)next->pid * 0x9E3779B1U) & (TABLE_SIZE - 1);

		s = bpf_map_lookup_elem(&step_tasks, &i);
		if (s && (s->owner != (__u64)next || s->start != next->start_time)) {
			if (s->owner || __sync_val_compare_and_swap(&s->owner, 0, (__u64)next))
				return 0;
			s->start = next->start_time;
			s->flags = 0;
		}
	}
	if (!s)
		return 0;
	if (!s->flags) {
		s->flags = 1;
		s->rd_base = rd + d;
		s->pcount = pcount + 1;
		return 0;
	}
	if (pcount != s->pcount)
		pc->stats[SH_METRIC_RUNQ][SH_STAT_MERGED] += pcount - s->pcount;
	s->pcount = pcount + 1;
	d += rd - s->rd_base;
	s->rd_base = rd + (now - lq);
	if (n == STEP_TABLE || n == STEP_STORAGE) {
		pc->stats[0][0] = d;
		return 0;
	}
	if (n == STEP_HASH) {
		struct sh_key key = { .id = next->pid };

		h = bpf_map_lookup_elem(&step_keys, &key);
		if (!h) {
			__u64 zh[SH_HIST_SIZE(SH_NBUCKETS(0)) / 8] = {};

			bpf_map_update_elem(&step_keys, &key, zh, BPF_NOEXIST);
			h = bpf_map_lookup_elem(&step_keys, &key);
			if (!h)
				return 0;
		}
	} else {
		h = (struct sh_hist *)pc->hist;
	}
	slot = sh_bucket(d);
	if (slot >= nbuckets)
		slot = nbuckets - 1;
	h->buckets[slot]++;
	h->count++;
	h->sum_ns += d;
	if (n >= STEP_MAX) {
		__u32 ep = step_epoch;
		struct sh_max *mx = &h->max[ep & 1];

		if (mx->epoch != ep || d > mx->ns) {
			if (mx->epoch != ep)
				mx->min_ns = d;
			mx->epoch = ep;
			mx->ns = d;
			mx->tid = next->pid;
			mx->pid = next->tgid;
			mx->cpu = bpf_get_smp_processor_id();
			__builtin_memcpy(mx->comm, next->comm, sizeof(mx->comm));
		} else if (d < mx->min_ns) {
			mx->min_ns = d;
		}
	}
	return 0;
}

#define STEP_PROG(name, n)								\
SEC("tp_btf/sched_switch")								\
int BPF_PROG(step_##name, bool preempt, struct task_struct *prev, struct task_struct *next) \
{											\
	return step(prev, next, n);							\
}

STEP_PROG(clock, STEP_CLOCK)
STEP_PROG(sched_info, STEP_SCHED_INFO)
STEP_PROG(table, STEP_TABLE)
STEP_PROG(storage, STEP_STORAGE)
STEP_PROG(hist, STEP_HIST)
STEP_PROG(max, STEP_MAX)
STEP_PROG(hash, STEP_HASH)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
