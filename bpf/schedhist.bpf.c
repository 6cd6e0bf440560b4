// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * schedhist kernel side: measures how long tasks wait and bins each wait
 * into a histogram, in the kernel: per CPU for keys none and cpu, in each
 * CPU's cache of the shared key store for the others (buckets of powers
 * of two of a second: schedhist.h). Nothing is streamed to userspace per event; the
 * poller reads the cumulative maps every interval and diffs them.
 *
 * The programs, all in this file, each followed by what it calls:
 *   schedhist_switch*         tp_btf/sched_switch, one per common
 *                             configuration and one for any (SWITCH_PROG):
 *                             prev's switch-out, then every wait next's
 *                             switch-in ends (switch_out(), switch_in())
 *   schedhist_wakeup, _new    tp_btf/sched_wakeup(_new), wakeup method
 *                             only: the task is runnable from now
 *   schedhist_task_free       tp_btf/sched_process_free: frees the task's
 *                             table entry, reclaims its tid or pid key
 *   schedhist_cgroup_release  tp_btf/cgroup_release: reclaims a cgroup key
 *   schedhist_cause_wakeup, _new  tp_btf/sched_wakeup(_new), --causes only:
 *                             a wait's start, for its cause split
 *
 * Metrics (any subset per run, all from one sched_switch program; each
 * wait is recorded at the switch-in that ends it):
 *   offcpu   switch-out of a task -> its next switch-in
 *   runq     the task became runnable (woken, or switched out while still
 *            runnable, i.e. preempted) -> its switch-in: exactly the
 *            kernel's schedstat run_delay/pcount
 *   blocked  switch-out in a non-runnable state -> runnable again, i.e.
 *            offcpu minus runq for the waits that began with a sleep
 *
 * Method (chosen by the poller from the kernel's BTF before load):
 *   sched_info  the scheduler already accounts run-queue waits per task
 *            (CONFIG_SCHED_INFO). trace_sched_switch fires in __schedule
 *            after update_rq_clock() and before sched_info_switch(), so at
 *            the tracepoint next->sched_info.last_queued still holds the
 *            enqueue time and run_delay does not include this wait yet:
 *            the wait is (rq->clock - last_queued) plus what migrations
 *            while queued already moved into run_delay since the task's
 *            previous switch-in. No wakeup program, no clock helper call:
 *            every time is the run queue's clock (rq->clock, reached as
 *            next->se.cfs_rq->rq, CONFIG_FAIR_GROUP_SCHED).
 *   wakeup   fallback: sched_wakeup/sched_wakeup_new stamp the wakeup and
 *            every time is the run queue clock too where the kernel lets
 *            a program reach it (clock SH_CLOCK_RQ), else
 *            bpf_ktime_get_ns() (SH_CLOCK_KTIME).
 *
 * The mechanisms, a header each, each saying what it costs and saves:
 *   settings.bpf.h    settings, shared counters, the per-CPU counters
 *   task_state.bpf.h  per-task state: the task table, task storage
 *   task_key.bpf.h    the -p/-c filter and each task's key
 *   keys.bpf.h        key slots, key directory, free slots, the key map
 *   store.bpf.h       the slots' shared store and each CPU's cache of it
 *   culprits.bpf.h    --culprits: the per-CPU pair cache
 *   culprit_time.bpf.h  --culprit-mode time: each CPU's ring of its last runs
 *   maxstack.bpf.h    the epoch max and --stacks
 *   reclaim.bpf.h     gone keys: marked for the poller or folded here
 *   cause.bpf.h       --causes: each runq wait split by what the CPU did
 * A key's life, from its first wait to its slot's reuse:
 * docs/key-lifecycle.md.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "schedhist.h"
#include "bits.bpf.h"
#include "settings.bpf.h"
#include "task_state.bpf.h"
#include "task_key.bpf.h"
#include "keys.bpf.h"
#include "culprits.bpf.h"
#include "culprit_time.bpf.h"
#include "maxstack.bpf.h"
#include "reclaim.bpf.h"
#include "cause.bpf.h"

/* A switch-in whose waits are being recorded: who, where, under which key. */
struct rec_ctx {
	struct sh_pcpu *pc;		/* this CPU's counters */
	struct task_struct *t;		/* the task switched in */
	struct task_struct *prev;	/* the task switched out (--culprits) */
	struct task_core *c;		/* @t's state */
	struct sh_key key;		/* @t's key: key map, stack and culprit maps */
	__u32 cpu;			/* this CPU */
	__u32 ep;			/* the epoch (sh_epoch) */
	int over;			/* not 0: recorded under [other], for this reason */
};

/* The waits a switch-in ends; a nonzero *_err is the reason that one is unknown. */
struct waits {
	__u64 off;			/* offcpu */
	__u64 rq;			/* runq */
	int off_err, rq_err, b_err;	/* b_err: blocked (off - rq, after a sleep) */
	bool slept;			/* the wait began with a sleep */
};

/* The event path, top down: each program, then what it calls. */
static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next,
				     unsigned int prev_state, const struct cfg *cf);
static __always_inline int on_wakeup(struct task_struct *p, __u32 flags);
static __always_inline void switch_out(struct task_struct *t, __u64 now, bool slept,
				       const struct cfg *cf);
static __always_inline void switch_in(struct task_struct *t, struct task_struct *prev, __u64 now,
				      const struct cfg *cf);
static __always_inline int runq_wait(const struct task_core *c, __u32 flags, __u64 now,
				     const struct sched_seen *si, __u64 *rq, const struct cfg *cf);
static __always_inline void record_waits(const struct cfg *cf, struct rec_ctx *x,
					 const struct waits *w);
static __always_inline void record(const struct cfg *cf, const struct rec_ctx *x,
				   struct sh_hist *h, int m, __u64 d);
static __always_inline void unrecorded(struct sh_pcpu *pc, int m, int stat);
static __always_inline void record_causes(const struct cfg *cf, const struct rec_ctx *x,
					  __u64 rq);

/*
 * One sched_switch program per common configuration (schedhist.h
 * SH_SWITCH_VARIANTS; the poller loads the one that matches), and one
 * for any.
 */
#define SWITCH_PROG(name, m, schedinfo)							\
SEC("tp_btf/sched_switch")								\
int BPF_PROG(name, bool preempt, struct task_struct *prev, struct task_struct *next,	\
	     unsigned int prev_state)							\
{											\
	const struct cfg cf = cfg_of(m, schedinfo);						\
											\
	return on_switch(prev, next, prev_state, &cf);					\
}

/*
 * (no --causes: only its own variants have its code; settings' metrics
 * are the metric bits alone, the mask says so here too)
 */
SWITCH_PROG(schedhist_switch, (metrics & ~SH_SWITCH_CAUSES) | SH_SWITCH_ANY,
	    method == SH_METHOD_SCHED_INFO)
#define SWITCH_VARIANT(suffix, bits) \
	SWITCH_PROG(schedhist_switch_##suffix, bits, !((bits) & SH_SWITCH_WAKEUP))
SH_SWITCH_VARIANTS(SWITCH_VARIANT)

SEC("tp_btf/sched_wakeup")
int BPF_PROG(schedhist_wakeup, struct task_struct *p)
{
	return on_wakeup(p, 0);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(schedhist_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p, TS_NEW);
}

/* --causes: a woken task is queued from now on its run queue, whose lock is held */
static __always_inline int on_cause_wakeup(struct task_struct *p)
{
	const struct cfg cfg = cfg_of(metrics, true), *cf = &cfg;
	struct rq *rq = p->se.cfs_rq->rq;
	__u64 now = rq->clock;

	/*
	 * only a wakeup that queued it just now (sched_info_enqueue() stamped
	 * this clock): one of a task already queued keeps the earlier start
	 */
	if (p->pid && p->sched_info.last_queued == now && task_traced(p, cf))
		cause_begin(p, rq, rq->cpu, now, now);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(schedhist_cause_wakeup, struct task_struct *p)
{
	return on_cause_wakeup(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(schedhist_cause_wakeup_new, struct task_struct *p)
{
	return on_cause_wakeup(p);
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(schedhist_task_free, struct task_struct *p)
{
	struct sh_key key = {};
	bool sole;

	/* the task's last switch is behind it (and may have gone unseen) */
	if (method == SH_METHOD_SCHED_INFO)
		task_entry_free(p);
	if (key_type != SH_KEY_TID && key_type != SH_KEY_PID)
		return 0;
	if (key_type == SH_KEY_TID) {
		key.id = (__u32)p->pid;
		/*
		 * No run can write the slot of a tid whose task is freed
		 * (its last switch is a grace period behind), unless the tid
		 * went to a new task meanwhile (a pid is freed at release,
		 * before this: reclaim() checks): then the slot is left to the poller
		 */
		sole = true;
	} else {
		/*
		 * -k pid: the process is gone once no thread of it is live;
		 * every task freed after that retries, so a thread still
		 * exiting when the first one was freed is folded by its own.
		 * Its slot is freed here only by the last of its tasks to go
		 * (the signal struct's last reference: no thread of it can
		 * run again), and only if its tgid has no new owner.
		 */
		if (p->signal->live.counter)
			return 0;
		key.id = (__u32)p->tgid;
		sole = p->signal->sigcnt.refs.counter == 1;
	}
	/* (the id is the task's tid or tgid, as the key's) */
	reclaim(&key, sole, (__s32)key.id);
	return 0;
}

SEC("tp_btf/cgroup_release")
int BPF_PROG(schedhist_cgroup_release, struct cgroup *cgrp, const char *path)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct sh_key key = {};
	struct cgroup *mine;

	/* only the hierarchy keyed by: ids are per hierarchy */
	mine = task_cgroup(cur);
	if (!mine || mine->root != cgrp->root)
		return 0;
	key.id = cgrp->kn->id;
	/* released: no task is in it or below it, and a cgroup id is never reused */
	reclaim(&key, true, 0);
	return 0;
}

static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next,
				     unsigned int prev_state, const struct cfg *cf)
{
	/* this CPU's run queue clock, updated by __schedule just before */
	__u64 now = cf->schedinfo || clock_src == SH_CLOCK_RQ ? prev->se.cfs_rq->rq->clock
						       : bpf_ktime_get_ns();

	/*
	 * --causes: what prev ran moves this CPU's counters; a preempted
	 * prev is queued from now (sched_info_depart() stamps this clock)
	 */
	if (cfg_causes(cf)) {
		cause_switch(prev, next, now);
		if (prev->pid && prev_state == TASK_RUNNING && task_traced(prev, cf))
			cause_begin(prev, prev->se.cfs_rq->rq, bpf_get_smp_processor_id(), now,
				    now);
	}
	/* --culprit-mode time: every task's run, traced or not, ends in the ring */
	if (cfg_culprit_time(cf))
		run_ring_note(prev, now);
	/* switch-out times: offcpu and blocked, and runq by wakeup stamps */
	if (cf->schedinfo && (prev_state & TASK_DEAD))
		task_entry_free(prev);	/* its last switch */
	else if (prev->pid && (has(cf, SH_METRIC_OFFCPU) || has(cf, SH_METRIC_BLOCKED) || !cf->schedinfo))
		switch_out(prev, now, prev_state != TASK_RUNNING, cf);
	if (next->pid)
		switch_in(next, prev, now, cf);
	return 0;
}

/* @t is switched out at @now; @slept: not runnable any more. */
static __always_inline void switch_out(struct task_struct *t, __u64 now, bool slept,
				       const struct cfg *cf)
{
	struct task_core *c;

	if (!task_traced(t, cf))
		return;
	c = task_state(t, true, cf);
	if (c)
		task_switched_out(c, t, now, slept, cf);
}

/* @t is switched in at @now, @prev out: every wait it ends. */
static __always_inline void switch_in(struct task_struct *t, struct task_struct *prev, __u64 now,
				      const struct cfg *cf)
{
	struct waits w = { .off_err = SH_STAT_NO_START, .rq_err = SH_STAT_NO_START };
	struct rec_ctx x = { .t = t, .prev = prev };
	struct sched_seen si;
	struct task_core *c;
	struct sh_pcpu *pc;
	__u32 zero = 0, flags;
	bool first, rq_too;

	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!pc)
		return;
	if (!task_traced(t, cf)) {
		stat_all(pc, SH_STAT_SEEN, cf);
		stat_all(pc, SH_STAT_FILTERED, cf);
		return;
	}
	/*
	 * runq from sched_info needs the state at switch-in only; offcpu
	 * makes it for a task's first run too (a new task never switched out)
	 */
	c = task_state(t, cf->schedinfo && (has(cf, SH_METRIC_RUNQ) || has(cf, SH_METRIC_OFFCPU)), cf);
	if (!c) {
		stat_all(pc, SH_STAT_SEEN, cf);
		stat_all(pc, SH_STAT_NO_START, cf);
		return;
	}
	x.pc = pc;
	x.c = c;
	flags = c->flags;
	si = sched_seen_of(t, cf);
	w.slept = flags & TS_SLEPT;
	/*
	 * Several metrics, sched_info method: the usual switch-in, of a task
	 * seen switch out, whose pcount and run_delay base are known, that
	 * this program saw at every arrival since and that was queued, takes
	 * its three waits with none of the tests below (they would all pass:
	 * the same results, runq_wait()'s included) and the same state
	 * update. One test instead of a dozen branches and their spills:
	 * bench/run.sh's arm sh:offcpu+runq+blocked:none against
	 * sh:offcpu:none measures it.
	 */
	if (cf->schedinfo && nmetrics(cf) > 1 && (flags & (TS_PC | TS_RD)) == (TS_PC | TS_RD) &&
	    si.pcount == c->pcount && si.lq && c->out_ts && now >= si.lq && now >= c->out_ts) {
		w.off = now - c->out_ts;
		w.rq = si.rd - c->rd_base + (now - si.lq);
		w.off_err = 0;
		w.rq_err = 0;
		c->out_ts = 0;
		task_switched_in(c, flags, now, &si, true, cf);
		record_waits(cf, &x, &w);
		return;
	}
	if (cf->schedinfo) {
		/*
		 * The kernel counted more arrivals (switch-ins) of this task
		 * than this program saw since its last one: some context
		 * switches do not run the program (/proc/stat ctxt advances
		 * more than its run_cnt, with recursion_misses 0). Their runq
		 * waits are in run_delay, so in the next one; their offcpu
		 * and blocked waits are lost. Say how many, for every metric.
		 */
		if ((flags & TS_PC) && si.pcount != c->pcount)
			stat_add(pc, SH_STAT_MERGED, si.pcount - c->pcount, cf);
	}
	/* a task's first run has no switch-out: off CPU since runnable */
	first = cf->schedinfo ? !si.pcount : (flags & TS_NEW);
	if ((has(cf, SH_METRIC_OFFCPU) || has(cf, SH_METRIC_BLOCKED) || !cf->schedinfo) && c->out_ts) {
		w.off_err = now < c->out_ts ? SH_STAT_CLOCK_SKEW : 0;
		w.off = now - c->out_ts;
		c->out_ts = 0;
	}
	rq_too = has(cf, SH_METRIC_RUNQ) || has(cf, SH_METRIC_BLOCKED) || first;
	if (rq_too)
		w.rq_err = runq_wait(c, flags, now, &si, &w.rq, cf);
	task_switched_in(c, flags, now, &si, rq_too, cf);
	if (first && w.off_err == SH_STAT_NO_START) {
		w.off_err = w.rq_err;
		w.off = w.rq;
	}

	/*
	 * blocked: only waits that began with a sleep (the rest is runq):
	 * switch-out to enqueue, the wait less its queued part (with the
	 * wakeup method, wake_ts - out_ts), known when both are
	 */
	if (has(cf, SH_METRIC_BLOCKED) && w.slept)
		w.b_err = w.off_err ? w.off_err : w.rq_err;
	record_waits(cf, &x, &w);
}

/*
 * The run-queue part of the wait ending now, into *@rq: 0, or the
 * reason it is unknown (SH_STAT_NO_START, SH_STAT_CLOCK_SKEW). @c and
 * its @flags: the state before this switch-in; @si: the accounting at it
 * (sched_info method).
 */
static __always_inline int runq_wait(const struct task_core *c, __u32 flags, __u64 now,
				     const struct sched_seen *si, __u64 *rq, const struct cfg *cf)
{
	if (cf->schedinfo) {
		/* not queued: sched_info_arrive() counts no wait (pcount) */
		if (!si->lq)
			return SH_STAT_NO_START;
		/* a task that never ran has accrued nothing: base 0 is exact */
		if (!(flags & TS_RD) && si->pcount)
			return SH_STAT_NO_START;
		/* the same run queue stamped both: cannot go backwards */
		if (now < si->lq)
			return SH_STAT_CLOCK_SKEW;
		*rq = si->rd - ((flags & TS_RD) ? c->rd_base : 0) + (now - si->lq);
		return 0;
	} else {
		__u64 wake = ((const struct task_st *)c)->wake_ts;

		if (!wake)
			return SH_STAT_NO_START;
		if (now < wake)
			return SH_STAT_CLOCK_SKEW;
		*rq = now - wake;
		return 0;
	}
}

/*
 * Record the waits @w that @x's switch-in ends: offcpu, runq and, after a
 * sleep, blocked (off - rq; a negative one is clock skew).
 */
static __always_inline void record_waits(const struct cfg *cf, struct rec_ctx *x,
					 const struct waits *w)
{
	struct sh_pcpu *pc = x->pc;
	__u32 slot = SH_SLOT_HASH;
	int b_err = w->b_err;
	bool spare = false;
	struct sh_hist *h;

	/* blocked below zero: only when two CPUs' clocks disagree */
	if (has(cf, SH_METRIC_BLOCKED) && w->slept && !b_err && w->off < w->rq)
		b_err = SH_STAT_CLOCK_SKEW;
	/* no histogram needed (nor a key made) when nothing is recorded */
	if ((!has(cf, SH_METRIC_OFFCPU) || w->off_err) && (!has(cf, SH_METRIC_RUNQ) || w->rq_err) &&
	    (!has(cf, SH_METRIC_BLOCKED) || !w->slept || b_err)) {
		h = 0;
	} else if (cfg_key_type(cf) == SH_KEY_NONE || cfg_key_type(cf) == SH_KEY_CPU) {
		h = (struct sh_hist *)pc->hist;
		/* the stack map's key for these (key cpu: this CPU's histogram) */
		if (cfg_stacks(cf) && cfg_key_type(cf) == SH_KEY_CPU)
			x->key.id = bpf_get_smp_processor_id();
	} else {
		h = keyed_hists(x->t, x->c, bpf_get_smp_processor_id(), pc, &x->over, &x->key,
				&slot, &spare, cf);
		if (!h) {
			stat_all(pc, SH_STAT_SEEN, cf);
			stat_all(pc, SH_STAT_DROPPED, cf);
			return;
		}
	}

	x->cpu = bpf_get_smp_processor_id();
	x->ep = sh_epoch;
	if (has(cf, SH_METRIC_OFFCPU)) {
		if (!w->off_err && h)
			record(cf, x, hist_at(h, idx(cf, SH_METRIC_OFFCPU)), SH_METRIC_OFFCPU, w->off);
		else
			unrecorded(pc, SH_METRIC_OFFCPU, w->off_err);
	}
	if (has(cf, SH_METRIC_RUNQ)) {
		if (!w->rq_err && h) {
			record(cf, x, hist_at(h, idx(cf, SH_METRIC_RUNQ)), SH_METRIC_RUNQ, w->rq);
			if (cfg_culprit_time(cf))
				blame_time(&x->key, w->rq);
			else if (cfg_culprits(cf))
				blame(pc, &x->key, x->prev, w->rq);
			if (cfg_causes(cf))
				record_causes(cf, x, w->rq);
		} else
			unrecorded(pc, SH_METRIC_RUNQ, w->rq_err);
	}
	if (has(cf, SH_METRIC_BLOCKED) && w->slept) {
		if (!b_err && h)
			record(cf, x, hist_at(h, idx(cf, SH_METRIC_BLOCKED)), SH_METRIC_BLOCKED,
			       w->off - w->rq);
		else
			unrecorded(pc, SH_METRIC_BLOCKED, b_err);
	}
	if (spare)
		store_spare_flush(slot);
}

/*
 * Bin one wait of @d ns of metric @m, ending @x's switch-in, into @h;
 * x->over: it goes to [other], for that reason (0: under its own key).
 */
static __always_inline void record(const struct cfg *cf, const struct rec_ctx *x,
				   struct sh_hist *h, int m, __u64 d)
{
	struct task_struct *t = x->t;
	struct sh_max *mx;
	__u32 b, ep = x->ep;

	x->pc->stats[m][SH_STAT_SEEN]++;
	if (x->over)
		x->pc->stats[m][x->over]++;
	b = sh_bucket(d);
	if (b >= nbuckets)	/* never: a bound for the verifier */
		b = nbuckets - 1;
	h->buckets[b]++;
	h->count++;
	h->sum_ns += d;
	if (cfg_key_type(cf) == SH_KEY_PID || cfg_key_type(cf) == SH_KEY_TID)
		copy_comm(h->comm, t->comm);

	mx = &h->max[ep & 1];
	if (mx->epoch != ep || d > mx->ns) {
		/* the epoch's first wait is its min as well as its max */
		if (mx->epoch != ep)
			mx->min_ns = d;
		mx->epoch = ep;
		mx->ns = d;
		mx->tid = t->pid;
		mx->pid = t->tgid;
		mx->cpu = x->cpu;
		copy_comm(mx->comm, t->comm);
		if (cfg_stacks(cf) && !capture_stack(&x->key, m, ep, t, d))
			x->pc->stack_lost++;
	} else if (d < mx->min_ns) {
		mx->min_ns = d;
	}
}

/* --causes: the split of runq wait @rq that @x's switch-in ends, under its key. */
static __always_inline void record_causes(const struct cfg *cf, const struct rec_ctx *x, __u64 rq)
{
	struct sh_key key = x->key;

	if (cfg_key_type(cf) == SH_KEY_CPU)
		key.id = x->cpu;
	/* the run queue clock of this CPU, as the wait's end (on_switch()'s now) */
	cause_end(x->t, &key, x->cpu, x->t->se.cfs_rq->rq->clock, rq);
}

/* An event of metric @m that is not recorded, for reason @stat. */
static __always_inline void unrecorded(struct sh_pcpu *pc, int m, int stat)
{
	pc->stats[m][SH_STAT_SEEN]++;
	pc->stats[m][stat]++;
}

/* wakeup method: a wakeup puts the task on a run queue; it waits from now. */
static __always_inline int on_wakeup(struct task_struct *p, __u32 flags)
{
	struct task_st *s;

	/* (loaded with the wakeup method only) */
	const struct cfg cfg = cfg_of(metrics, false), *cf = &cfg;

	if (!p->pid || !task_traced(p, cf))
		return 0;
	s = bpf_task_storage_get(&task_st, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (s) {
		/*
		 * the clock of the run queue @p is now on, updated under its
		 * lock just before (ttwu_queue(), sched_ttwu_pending(),
		 * ttwu_runnable(), wake_up_new_task()): the stamp
		 * sched_info_enqueue() takes
		 */
		task_woken(s, clock_src == SH_CLOCK_RQ ? p->se.cfs_rq->rq->clock
						       : bpf_ktime_get_ns(), flags);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
