/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --causes: what each run-queue wait was spent behind. Cost: off by
 * default, and then nothing (only its own sched_switch variants,
 * SH_SWITCH_CAUSES, have this code: the others are unchanged); on, a per-CPU array lookup and a per-CPU hash update at
 * every switch, task storage at every preemption and wakeup (a program on
 * sched_wakeup and sched_wakeup_new), and at each runq wait a task
 * storage lookup and a hash update of seven atomic adds (bench/run.sh's
 * arms sh:runq:comm:auto:causes and sh:runq:cgroup:auto:causes measure
 * it, and docs/overhead.md "In the kernel" the programs' sizes; in those
 * programs, the code is tested against the settings: the verifier
 * drops it when they turn it off). Saves: no event leaves the kernel, no
 * per-wait record; the split is summed per key in place.
 *
 * How. Each CPU keeps cumulative counters in its run queue's clock (the
 * clock of the waits, so the arithmetic is in one domain), moved at each
 * of its switches by the time prev ran since the last one (struct
 * cause_cpu): time run by tasks, by kernel threads, and, per group (the
 * task's CPU cgroup, -k pid its process), in the per-CPU hash cause_self.
 * Two kernel counters beside them: the waiter's cfs_rq throttled time
 * (throttled_clock_self_time, and the throttling in progress since
 * throttled_clock_self: the cfs_rq of the task's group on that CPU, so an
 * ancestor's quota counts too) and the run queue's steal
 * (rq->prev_steal_time: the steal the scheduler takes out of clock_task,
 * CONFIG_PARAVIRT_TIME_ACCOUNTING; both reached as task->se.cfs_rq and
 * its ->rq, since typed ksyms of runqueues do not resolve without
 * CONFIG_KALLSYMS_ALL). A wait's start is where the kernel stamps
 * sched_info.last_queued: a preemption (this CPU, at the switch) or a
 * wakeup (the target CPU, under its run queue's lock: its counters plus
 * what its current task ran since its last switch). They are kept in task
 * storage (struct cause_start) with that stamp; the switch-in that ends
 * the wait takes the same counters on its CPU, and when the stamp still
 * matches last_queued (the wait did not migrate since) splits the part
 * queued here (sh_cause_split(), include/cause_split.h); the part spent
 * queued on other CPUs before a migration, and a wait with no start, are
 * other. The causes go to the cause map under the key the wait was
 * recorded under ([other] when the map is full).
 * The cause map is one hash shared by the CPUs, added to with atomic
 * adds: its memory is O(keys) whatever the CPU count, 136 bytes a key
 * where a per-CPU hash takes 24.7 kB at 384 possible CPUs (bench/kmem).
 * cause_self stays per CPU: a counter per group and CPU is what it
 * measures, in an LRU of SH_CAUSE_GROUPS groups.
 */
#ifndef __SCHEDHIST_CAUSE_BPF_H
#define __SCHEDHIST_CAUSE_BPF_H

#include "settings.bpf.h"
#include "cause_split.h"

#define PF_KTHREAD 0x00200000	/* a kernel thread (include/linux/sched.h) */

/* What a CPU ran, cumulative, in its run queue clock; moved at its switches. */
struct cause_cpu {
	__u64 ts;	/* the last switch */
	__u64 run;	/* ns run by tasks (not idle) up to @ts */
	__u64 kern;	/* ... by kernel threads */
	__u64 cur_group;	/* group of the task running since @ts; 0: idle or a kernel thread */
	__u32 cur_kind;	/* CAUSE_IDLE, CAUSE_TASK or CAUSE_KTHREAD */
	__u32 pad;
};
#define CAUSE_IDLE 0
#define CAUSE_TASK 1
#define CAUSE_KTHREAD 2

/* A wait's start: the counters of the CPU it is queued on, then. */
struct cause_start {
	__u64 lq;	/* sched_info.last_queued it belongs to; 0: none */
	__u64 group;	/* the waiter's group */
	__u64 run, kern, self, thr, steal;
	__u32 cpu;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cause_cpu);
} cause_cpus SEC(".maps");

/*
 * group -> ns its tasks ran on each CPU; the poller sets max_entries
 * (SH_CAUSE_GROUPS: beyond, the least recently used group goes)
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} cause_self SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cause_start);
} cause_st SEC(".maps");

/*
 * key -> struct sh_causes, shared by the CPUs (atomic adds); max_entries
 * set by the poller, [other] made by it
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_key);
	__type(value, struct sh_causes);
} cause_map SEC(".maps");

static __always_inline __u32 cause_kind(struct task_struct *t)
{
	if (!t->pid)
		return CAUSE_IDLE;
	return (t->flags & PF_KTHREAD) ? CAUSE_KTHREAD : CAUSE_TASK;
}

/* @t's group: its process with -k pid, else its CPU cgroup (the task group). */
static __always_inline __u64 cause_group(struct task_struct *t)
{
	if (key_type == SH_KEY_PID)
		return (__u64)t->tgid + 1;
	return (__u64)t->sched_task_group;
}

/* The throttled time of cfs_rq @cfs up to @now, the throttling in progress included. */
static __always_inline __u64 cause_throttled(struct cfs_rq *cfs, __u64 now)
{
	__u64 t, since;

	if (!bpf_core_field_exists(cfs->throttled_clock_self_time))
		return 0;
	t = cfs->throttled_clock_self_time;
	since = cfs->throttled_clock_self;
	return since && now > since ? t + now - since : t;
}

static __always_inline __u64 cause_steal(struct rq *rq)
{
	return bpf_core_field_exists(rq->prev_steal_time) ? rq->prev_steal_time : 0;
}

/* At every switch on this CPU at @now: what @prev ran since the last one. */
static __always_inline void cause_switch(struct task_struct *prev, struct task_struct *next,
					 __u64 now)
{
	__u32 zero = 0, kind = cause_kind(prev);
	struct cause_cpu *cc = bpf_map_lookup_elem(&cause_cpus, &zero);
	__u64 d, g, *v;

	if (!cc)
		return;
	d = cc->ts && now > cc->ts ? now - cc->ts : 0;
	if (d && kind != CAUSE_IDLE) {
		cc->run += d;
		if (kind == CAUSE_KTHREAD) {
			cc->kern += d;
		} else {
			g = cause_group(prev);
			v = bpf_map_lookup_elem(&cause_self, &g);
			if (v)
				*v += d;
			else
				bpf_map_update_elem(&cause_self, &g, &d, BPF_NOEXIST);
		}
	}
	cc->ts = now;
	cc->cur_kind = cause_kind(next);
	cc->cur_group = cc->cur_kind == CAUSE_TASK ? cause_group(next) : 0;
}

/*
 * @t is queued on CPU @cpu (run queue @rq) from @now, stamped @lq: keep
 * that CPU's counters as of @now. Off this CPU, under @rq's lock (a
 * wakeup), the current task's run since that CPU's last switch is added.
 */
static __always_inline void cause_begin(struct task_struct *t, struct rq *rq, __u32 cpu,
					__u64 now, __u64 lq)
{
	__u32 zero = 0;
	struct cause_start *s = bpf_task_storage_get(&cause_st, t, 0,
						     BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct cause_cpu *cc = bpf_map_lookup_percpu_elem(&cause_cpus, &zero, cpu);
	__u64 g = cause_group(t), ip, *v;

	if (!s)
		return;
	if (!cc) {
		s->lq = 0;
		return;
	}
	ip = cc->ts && now > cc->ts ? now - cc->ts : 0;
	v = bpf_map_lookup_percpu_elem(&cause_self, &g, cpu);
	s->lq = lq;
	s->cpu = cpu;
	s->group = g;
	s->run = cc->run + (cc->cur_kind != CAUSE_IDLE ? ip : 0);
	s->kern = cc->kern + (cc->cur_kind == CAUSE_KTHREAD ? ip : 0);
	s->self = (v ? *v : 0) + (cc->cur_group == g ? ip : 0);
	s->thr = cause_throttled(t->se.cfs_rq, now);
	s->steal = cause_steal(rq);
}

/* @a - @b, or 0 when the counter went back (a group's entry was evicted). */
static __always_inline __u64 cause_delta(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/*
 * @t, switched in at @now on CPU @cpu after a runq wait of @wait ns
 * recorded under @key: split it and add it to the key's causes. A
 * subprogram, not inlined: its locals (the split, the key [other]) stay
 * off the switch program's frame; with --culprit-mode time's calls the
 * frames of one call chain must fit the verifier's 512 bytes together.
 */
static __noinline void cause_end(struct task_struct *t, const struct sh_key *key, __u32 cpu,
				 __u64 now, __u64 wait)
{
	struct sh_causes add = { .count = 1 };
	__u64 lq = t->sched_info.last_queued;
	struct cause_start *s = bpf_task_storage_get(&cause_st, t, 0, 0);
	struct sh_key other = { .id = SH_OTHER_ID };
	struct sh_causes *v;
	__u32 zero = 0;
	int i;

	if (s && lq && s->lq == lq && s->cpu == cpu && now >= lq && wait >= now - lq) {
		struct cause_cpu *cc = bpf_map_lookup_elem(&cause_cpus, &zero);
		__u64 *self = bpf_map_lookup_elem(&cause_self, &s->group);
		struct sh_cause_delta d = {};

		if (cc) {
			d.run = cause_delta(cc->run, s->run);
			d.kernel = cause_delta(cc->kern, s->kern);
		}
		d.self = cause_delta(self ? *self : 0, s->self);
		d.throttled = cause_delta(cause_throttled(t->se.cfs_rq, now), s->thr);
		d.steal = cause_delta(cause_steal(t->se.cfs_rq->rq), s->steal);
		sh_cause_split(now - lq, &d, add.ns);
		/* queued on other CPUs before its last migration */
		add.ns[SH_CAUSE_OTHER] += wait - (now - lq);
	} else {
		add.ns[SH_CAUSE_OTHER] = wait;
	}
	if (s)
		s->lq = 0;
	v = bpf_map_lookup_elem(&cause_map, key);
	if (!v) {
		if (!bpf_map_update_elem(&cause_map, key, &add, BPF_NOEXIST))
			return;
		/* made meanwhile on another CPU (add to it), or the map is full */
		v = bpf_map_lookup_elem(&cause_map, key);
		if (!v)
			v = bpf_map_lookup_elem(&cause_map, &other);
		if (!v)
			return;
	}
	/* other CPUs add to the same key: atomic adds */
	for (i = 0; i < SH_CAUSE_NR; i++)
		__sync_fetch_and_add(&v->ns[i], add.ns[i]);
	__sync_fetch_and_add(&v->count, 1);
}

#endif /* __SCHEDHIST_CAUSE_BPF_H */
