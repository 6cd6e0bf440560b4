// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * schedhist kernel side: measures how long tasks wait and bins each wait
 * into a log2 histogram, in the kernel, per CPU. Nothing is streamed to
 * userspace per event; the poller reads the cumulative maps every interval.
 *
 * Metrics (one per run, chosen before load with the metric knob):
 *   offcpu   switch-out of a task -> its next switch-in (sched_switch only)
 *   runq     task became runnable (sched_wakeup, sched_wakeup_new, or
 *            switched out while still TASK_RUNNING, i.e. preempted) ->
 *            its switch-in; the kernel's schedstat run_delay
 *   blocked  switch-out in a non-runnable state -> sched_wakeup
 *
 * Maps:
 *   task_ts  task local storage: the start timestamp of the task's current
 *            wait. Lives and dies with the task: no pid-keyed hash that
 *            fills up or keeps entries of exited tasks.
 *   pcpu     per-CPU array, one element: the event counters and, for the
 *            key "none" (and "cpu" when the event runs on the key's CPU),
 *            the histogram itself. One lookup per event for those keys.
 *   hists    per-CPU hash, key -> histogram, for the other keys. Per-CPU so
 *            the hot path increments plain memory: no atomics, no shared
 *            cache lines. When full, new keys go to the [other] entry,
 *            which the poller creates before attaching.
 *
 * The poller never clears anything: it diffs cumulative snapshots. For the
 * per-interval max it advances sh_epoch; each histogram keeps the max of
 * the current and the previous epoch (struct sh_hist), so the max of the
 * epoch being read survives waits recorded while the poller reads.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "schedhist.h"
#include "bits.bpf.h"

#define TASK_RUNNING 0

/* Settings, fixed before load so the verifier prunes what is unused. */
const volatile __u32 metric = SH_METRIC_OFFCPU;
const volatile __u32 key_type = SH_KEY_NONE;
const volatile __u32 filter_tgid = 0;		/* -p: 0 = every process */
const volatile int cgroup_hier = SH_CGROUP_V2;	/* which cgroup hierarchy */
const volatile __u32 cgroup_depth = 0;		/* roll-up depth, 0 = none */
const volatile __u64 filter_cgid = 0;		/* -c: subtree root, 0 = none */
const volatile __u32 filter_cglevel = 0;	/* -c: level of that root */

/* Advanced by the poller at each snapshot (see struct sh_hist). */
volatile __u32 sh_epoch = 1;

struct task_ts {
	__u64 ts;	/* start of the current wait, ns; 0 = not waiting */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ts);
} task_ts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_pcpu);
} pcpu SEC(".maps");

/* max_entries is set by the poller (--max-keys + 1 for [other]). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10241);
	__type(key, struct sh_key);
	__type(value, struct sh_hist);
} hists SEC(".maps");

/* Zeroed template for a new hash entry (a map value, so no stack copy). */
static const struct sh_hist zero_hist;

/* Kernels before 6.1 kept ancestor ids instead of ancestor pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

static __always_inline struct cgroup *task_cgroup(struct task_struct *t)
{
	struct css_set *cs = t->cgroups;
	struct cgroup_subsys_state *css;
	int h = cgroup_hier;

	if (h < 0)
		return cs->dfl_cgrp;
	if (h >= SH_CGROUP_SUBSYS_MAX)
		return 0;
	css = BPF_CORE_READ(cs, subsys[h]);
	return css ? BPF_CORE_READ(css, cgroup) : 0;
}

/* Id of @cg's ancestor at @level (0 = root), with @level <= cg->level. */
static __always_inline __u64 cgroup_ancestor_id(struct cgroup *cg, __u32 level)
{
	if (bpf_core_field_exists(cg->ancestors)) {
		struct cgroup *anc = 0;

		bpf_core_read(&anc, sizeof(anc), &cg->ancestors[level & 0xff]);
		return anc ? BPF_CORE_READ(anc, kn, id) : 0;
	} else {
		struct cgroup___old *old = (void *)cg;
		__u64 id = 0;

		bpf_core_read(&id, sizeof(id), &old->ancestor_ids[level & 0xff]);
		return id;
	}
}

/* The cgroup key: the task's cgroup id, rolled up to cgroup_depth. */
static __always_inline __u64 task_cgroup_id(struct task_struct *t)
{
	struct cgroup *cg = task_cgroup(t);
	__u32 level;

	if (!cg)
		return 0;
	level = BPF_CORE_READ(cg, level);
	if (cgroup_depth && level > cgroup_depth)
		return cgroup_ancestor_id(cg, cgroup_depth);
	return BPF_CORE_READ(cg, kn, id);
}

/* -p and -c: is @t one of the tasks traced? */
static __always_inline bool task_traced(struct task_struct *t)
{
	if (filter_tgid && t->tgid != filter_tgid)
		return false;
	if (filter_cgid) {
		struct cgroup *cg = task_cgroup(t);

		if (!cg || BPF_CORE_READ(cg, level) < filter_cglevel)
			return false;
		if (cgroup_ancestor_id(cg, filter_cglevel) != filter_cgid)
			return false;
	}
	return true;
}

static __always_inline __u32 task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->cpu))
		return BPF_CORE_READ(t, cpu);
	return BPF_CORE_READ(t, thread_info.cpu);
}

static __always_inline void copy_comm(char *dst, const char *src)
{
	/* comm is 16 bytes, 8-aligned on both sides: two loads, two stores */
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/* Histogram for @t's key, created on first use; [other] once full. */
static __always_inline struct sh_hist *keyed_hist(struct sh_pcpu *pc,
						  struct task_struct *t,
						  __u32 cpu)
{
	struct sh_key key = {};
	struct sh_hist *h;
	long err;

	switch (key_type) {
	case SH_KEY_COMM:
		copy_comm(key.comm, t->comm);
		break;
	case SH_KEY_PID:
		key.id = (__u32)t->tgid;
		break;
	case SH_KEY_TID:
		key.id = (__u32)t->pid;
		break;
	case SH_KEY_CPU:
		key.id = cpu;
		break;
	case SH_KEY_CGROUP:
		key.id = task_cgroup_id(t);
		break;
	}
	h = bpf_map_lookup_elem(&hists, &key);
	if (h)
		return h;
	err = bpf_map_update_elem(&hists, &key, &zero_hist, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: created meanwhile */) {
		/* E2BIG: full; else (ENOMEM) no element free at this moment */
		pc->stats[err == -7 /* E2BIG */ ? SH_STAT_MAP_FULL : SH_STAT_NO_MEM]++;
		__builtin_memset(&key, 0, sizeof(key));
		key.id = SH_OTHER_ID;
	}
	return bpf_map_lookup_elem(&hists, &key);
}

/* Bin one wait of @d ns by task @t, switched in (or woken) on @cpu. */
static __always_inline void record(struct sh_pcpu *pc, struct task_struct *t,
				   __u64 d, __u32 cpu)
{
	struct sh_hist *h;
	struct sh_max *m;
	__u32 slot, ep;

	if (key_type == SH_KEY_NONE ||
	    (key_type == SH_KEY_CPU && metric != SH_METRIC_BLOCKED))
		h = &pc->hist;
	else
		h = keyed_hist(pc, t, cpu);
	if (!h) {
		pc->stats[SH_STAT_DROPPED]++;
		return;
	}

	slot = sh_log2(d);
	if (slot >= SH_NBUCKETS)
		slot = SH_NBUCKETS - 1;
	h->slots[slot]++;
	h->count++;
	h->sum_ns += d;
	if (key_type == SH_KEY_PID || key_type == SH_KEY_TID)
		copy_comm(h->comm, t->comm);

	ep = sh_epoch;
	m = &h->max[ep & 1];
	if (m->epoch != ep || d > m->ns) {
		m->epoch = ep;
		m->ns = d;
		m->tid = t->pid;
		m->pid = t->tgid;
		m->cpu = cpu;
		copy_comm(m->comm, t->comm);
	}
}

/* A wait of @t ends now: measure it and clear the start. */
static __always_inline void wait_end(struct sh_pcpu *pc, struct task_struct *t,
				     __u64 now, __u32 cpu)
{
	struct task_ts *s;

	pc->stats[SH_STAT_SEEN]++;
	if (!task_traced(t)) {
		pc->stats[SH_STAT_FILTERED]++;
		return;
	}
	s = bpf_task_storage_get(&task_ts, t, 0, 0);
	if (!s || !s->ts || now < s->ts) {
		pc->stats[SH_STAT_NO_START]++;
		return;
	}
	record(pc, t, now - s->ts, cpu);
	s->ts = 0;
}

/* A wait of @t starts at @now (or, with now == 0, @t is not waiting). */
static __always_inline void wait_start(struct task_struct *t, __u64 now)
{
	struct task_ts *s;

	if (!task_traced(t))
		return;
	s = bpf_task_storage_get(&task_ts, t, 0,
				 now ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (s)
		s->ts = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(schedhist_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0;
	struct sh_pcpu *pc;

	if (prev->pid) {
		switch (metric) {
		case SH_METRIC_OFFCPU:
			wait_start(prev, now);
			break;
		case SH_METRIC_RUNQ:
			/* preempted while runnable: back on the run queue */
			wait_start(prev, prev_state == TASK_RUNNING ? now : 0);
			break;
		case SH_METRIC_BLOCKED:
			wait_start(prev, prev_state != TASK_RUNNING ? now : 0);
			break;
		}
	}
	if (metric == SH_METRIC_BLOCKED || !next->pid)
		return 0;
	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (pc)
		wait_end(pc, next, now, bpf_get_smp_processor_id());
	return 0;
}

/* runq: a wakeup puts the task on a run queue; its wait starts now. */
static __always_inline int on_wakeup(struct task_struct *p)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0;
	struct sh_pcpu *pc;

	if (!p->pid)
		return 0;
	if (metric == SH_METRIC_RUNQ) {
		wait_start(p, now);
		return 0;
	}
	/* blocked: the wakeup ends the wait */
	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (pc)
		wait_end(pc, p, now, task_cpu(p));
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(schedhist_wakeup, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(schedhist_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
