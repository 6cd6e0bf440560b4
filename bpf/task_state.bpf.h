/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Per-task state (struct task_core): the switch-out time and, with the
 * sched_info method, the run_delay and pcount seen at the last
 * switch-in. It lives in the task table (sched_info method), an array
 * indexed by tid: an array lookup and an owner check, no helper call.
 * A task whose entry is taken keeps it in task storage, as every task
 * does with the wakeup method. Cost: an array lookup per switch, less
 * than task storage in its place (docs/overhead.md, "In the kernel").
 * Memory:
 * 48 B per entry, --task-table entries (1.5 MiB for the default 32 768).
 */
#ifndef __SCHEDHIST_TASK_STATE_BPF_H
#define __SCHEDHIST_TASK_STATE_BPF_H

#include "settings.bpf.h"

/* Per task. Times are in the run's one clock domain (schedhist.bpf.c "Method"). */
struct task_core {
	__u64 out_ts;	/* last switch-out; 0 = none since the last switch-in */
	__u64 rd_base;	/* sched_info method: run_delay as of the last switch-in */
	__u32 flags;	/* TS_* */
	__u32 pcount;	/* sched_info method: the pcount expected at the next switch-in */
	/*
	 * keyed: the slot its key had at the last switch-in (valid while
	 * slot_keys says the slot holds that key), or SH_SLOT_HASH: the key
	 * map's
	 */
	__u32 kidx;
	__u32 pad;
};
#define TS_SLEPT 1	/* the last switch-out was a sleep, not a preemption */
#define TS_RD 2		/* rd_base is known */
#define TS_PC 8		/* sched_info method: pcount is known */
#define TS_NEW 4	/* wakeup method: a new task, not run yet */

/*
 * sched_info method: the task table, an array indexed by a bijection of
 * the tid's low bits (pid * odd mod 2^k: no two live tids below 2^k share
 * an entry, and neighbouring tids land far apart, so two threads of one
 * process running on two CPUs do not share a cache line). An entry
 * belongs to the task whose task_struct address and start time are in
 * @owner and @start: a task takes a free entry with a compare-and-swap
 * on @owner, and frees it at its last switch-out (prev_state TASK_DEAD)
 * or, if that switch went unseen, when it is freed (sched_process_free).
 * An entry is never trusted on the address alone: a task that had its
 * entry freed by sched_process_free while it still ran (it exited,
 * release_task() queued the free, and the grace period ended while the
 * task was preempted on its way to its last switch) takes it again; if
 * its last switch then goes unseen, the entry keeps an owner that is
 * gone, and a later task at the same address has another start time. A task whose entry is taken (tids at
 * or above 2^k, a tid reused before its last owner was freed, an entry
 * kept by a gone owner as above) keeps its state in task storage
 * instead, as every task does with the wakeup method. The poller sizes
 * the table (task_mask + 1 entries).
 */
struct task_entry {
	__u64 owner;	/* the owner's task_struct address; 0 = free */
	__u64 start;	/* ... and its start_time */
	struct task_core c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct task_entry);
} tasks SEC(".maps");

/* Task storage: tasks without a table entry, and the wakeup method. */
struct task_st {
	struct task_core c;
	__u64 wake_ts;	/* wakeup method: runnable since; 0 = not yet */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_st);
} task_st SEC(".maps");

/* The task table's multiplier: odd, so a bijection modulo any 2^k. */
#define TASK_MUL 0x9E3779B1U

static __always_inline struct task_entry *task_entry_of(struct task_struct *t)
{
	__u32 i = ((__u32)t->pid * TASK_MUL) & task_mask;

	return bpf_map_lookup_elem(&tasks, &i);
}

/* @t will not run again: free its task table entry (if it has it). */
static __always_inline void task_entry_free(struct task_struct *t)
{
	struct task_entry *ts = task_entry_of(t);

	/* once taken, only the owner's own events write an entry's owner */
	if (ts && ts->owner == (__u64)t)
		ts->owner = 0;
}

/*
 * @t's state, made if @create (zeroed) and not made yet: its task table
 * entry, else its task storage (see struct task_entry). NULL when there is none.
 */
static __always_inline struct task_core *task_state(struct task_struct *t, bool create,
						   const struct cfg *cf)
{
	struct task_st *st;

	if (cf->schedinfo) {
		struct task_entry *ts = task_entry_of(t);

		if (ts && ts->owner == (__u64)t && ts->start == t->start_time)
			return &ts->c;
		/*
		 * A free entry: take it (another CPU may take it at the same
		 * moment for another task: the compare-and-swap decides). A
		 * task that kept its state in task storage while the entry was
		 * taken brings it along.
		 */
		if (ts && !ts->owner && create &&
		    !__sync_val_compare_and_swap(&ts->owner, 0, (__u64)t)) {
			ts->start = t->start_time;
			st = bpf_task_storage_get(&task_st, t, 0, 0);
			if (st) {
				ts->c = st->c;
				bpf_task_storage_delete(&task_st, t);
			} else {
				__builtin_memset(&ts->c, 0, sizeof(ts->c));
			}
			return &ts->c;
		}
	}
	st = bpf_task_storage_get(&task_st, t, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	return st ? &st->c : 0;
}

/*
 * sched_info method: @t's accounting as the kernel has it at a switch-in,
 * before sched_info_arrive() adds this one (schedhist.bpf.c "Method").
 */
struct sched_seen {
	__u64 lq;	/* last_queued: when this wait was queued; 0 = not queued */
	__u64 rd;	/* run_delay, without this wait */
	__u32 pcount;	/* arrivals counted, without this one */
};

static __always_inline struct sched_seen sched_seen_of(struct task_struct *t,
							const struct cfg *cf)
{
	struct sched_seen si = {};

	if (cf->schedinfo) {
		si.lq = t->sched_info.last_queued;
		si.rd = t->sched_info.run_delay;
		si.pcount = t->sched_info.pcount;
	}
	return si;
}

/*
 * The task state changes at three events, each in one function below
 * that every path of that event calls: the switch-out, the wakeup
 * (wakeup method) and the switch-in, whose waits are measured from the
 * state before it changes.
 */

/* @t (state @c) is switched out at @now; @slept: not runnable any more. */
static __always_inline void task_switched_out(struct task_core *c, struct task_struct *t,
					      __u64 now, bool slept, const struct cfg *cf)
{
	__u32 flags = slept ? c->flags | TS_SLEPT : c->flags & ~TS_SLEPT;

	c->out_ts = now;
	/*
	 * sched_info: a task first seen here is due no arrival before its
	 * next switch-in's (which comes after that event), and a running
	 * task's run_delay stands still until it is queued again: it is the
	 * base the next wait is measured from. A task seen before keeps the
	 * base of its last switch-in, so that what run_delay gained without
	 * a wait recorded since (an arrival this program did not see:
	 * pcount ran ahead, SH_STAT_MERGED) goes into the next wait.
	 */
	if (cf->schedinfo) {
		if (!(flags & TS_PC)) {
			c->pcount = t->sched_info.pcount;
			flags |= TS_PC;
		}
		if ((has(cf, SH_METRIC_RUNQ) || has(cf, SH_METRIC_BLOCKED)) && !(flags & TS_RD)) {
			c->rd_base = t->sched_info.run_delay;
			flags |= TS_RD;
		}
	} else {
		/* wakeup method: preempted, it is runnable from now on */
		((struct task_st *)c)->wake_ts = slept ? 0 : now;
	}
	c->flags = flags;
}

/* wakeup method: @s's task is put on a run queue at @now; @flags: TS_NEW for a new task. */
static __always_inline void task_woken(struct task_st *s, __u64 now, __u32 flags)
{
	s->wake_ts = now;
	s->c.flags |= flags;
}

/*
 * @c, with the @flags its switch-in read, once its task is switched in
 * at @now with the accounting @si (its waits are measured from the state
 * before; the offcpu wait takes out_ts itself): the arrival counted
 * (sched_info method), not runnable since a wakeup (wakeup method). With
 * @rq (the run-queue wait is measured), the base of the next wait:
 * queued, the run_delay plus what sched_info_arrive() is about to add to
 * it; not queued, sched_info_arrive() adds nothing and counts no wait,
 * so a known base stays (what run_delay gained since, a migration's part
 * of a wait or a switch-in this program did not see, goes into the next
 * wait) and an unknown one is the run_delay of now (a task that never
 * ran has accrued nothing: its base stays 0, exact).
 */
static __always_inline void task_switched_in(struct task_core *c, __u32 flags, __u64 now,
					     const struct sched_seen *si, bool rq,
					     const struct cfg *cf)
{
	if (cf->schedinfo) {
		c->pcount = si->pcount + !!si->lq;
		flags |= TS_PC;
		if (rq && (si->lq || (!(flags & TS_RD) && si->pcount))) {
			c->rd_base = si->rd + (si->lq && now >= si->lq ? now - si->lq : 0);
			flags |= TS_RD;
		}
	} else {
		((struct task_st *)c)->wake_ts = 0;
	}
	c->flags = flags & ~(TS_SLEPT | TS_NEW);
}

#endif /* __SCHEDHIST_TASK_STATE_BPF_H */
