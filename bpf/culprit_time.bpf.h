/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --culprit-mode time: a run-queue wait is blamed on every task that ran
 * on the CPU while it waited, each for the time it ran, instead of
 * wholly on the task the switch that ends it switches out. Each CPU keeps
 * a ring of its last SH_RUN_RING runs (struct sh_run_ring: the task's
 * key, start and end on the run queue's clock; the runs of one key in a
 * row are one), written at each of its switches; at a wait's end, the
 * runs of the ring that overlap the wait, [now - wait, now], are each
 * blamed their overlap (blame_pair(), the pair cache of culprits.bpf.h),
 * and what the ring does not cover (runs
 * older than the ring, or before the first switch seen) goes to the
 * culprit [unattributed] (SH_UNATTRIBUTED_ID): the culprits' sums add up
 * to the wait. A wait that migrated while queued is blamed on the runs
 * of the CPU it ends on, for its whole length: that CPU's runs stand for
 * the other CPU's during the part queued there.
 * Cost: a key and a few stores at every switch, and a pair cache update
 * per run overlapped at each wait's end (a bpf_loop() walk); memory, a
 * ring of SH_RUN_RING runs (28 KiB) per CPU. In this mode only: -M runq
 * has a program compiled for it (SH_SWITCH_CULPRIT_TIME), the program
 * for any configuration and --causes' programs test the setting, and
 * every other program has none of this code. Bench arm
 * "sh:runq:comm:auto:culprits+culprit-mode=time", paired with
 * "sh:runq:comm:auto:culprits" in bench/run.sh (docs/overhead.md).
 * It needs no wakeup hook: the wait's length, from the switch path, says
 * how far back to look.
 */
#ifndef __SCHEDHIST_CULPRIT_TIME_BPF_H
#define __SCHEDHIST_CULPRIT_TIME_BPF_H

#include "culprits.bpf.h"

/* A ring per CPU, indexed by CPU (max_entries set by the poller: 1 unless this mode). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_run_ring);
} run_ring SEC(".maps");

/*
 * Time mode: the program compiled for it, or the one for any
 * configuration or a --causes one when the settings say so; every other
 * program has none of the code that follows (the default mode's cost is
 * unchanged).
 */
static __always_inline bool cfg_culprit_time(const struct cfg *cf)
{
	return (cf->metrics & SH_SWITCH_CULPRIT_TIME) ||
	       ((cf->metrics & (SH_SWITCH_ANY | SH_SWITCH_CAUSES)) && cfg_culprits(cf) &&
		culprit_mode == SH_CULPRIT_TIME);
}

/*
 * At a switch on this CPU at @now: @prev's run ends, the next one's
 * begins. A run of the same key as the latest one, right after it (two
 * tasks of one key taking turns), extends it: the ring holds stretches of
 * one key each, so that a key of many short runs does not push the rest
 * out of it.
 */
static __always_inline void run_ring_note(struct task_struct *prev, __u64 now)
{
	struct sh_key key = {};
	struct sh_run_ring *r;
	struct sh_run *e;
	__u32 cpu = bpf_get_smp_processor_id();

	r = bpf_map_lookup_elem(&run_ring, &cpu);
	if (!r)
		return;
	if (r->cur_start && now >= r->cur_start) {
		if (prev->pid)
			task_key(prev, &key);
		else
			key.id = SH_IDLE_ID;
		e = &r->runs[(r->head - 1) & (SH_RUN_RING - 1)];
		if (r->head && e->end == r->cur_start && e->key.id == key.id &&
		    ((__u64 *)e->key.comm)[0] == ((__u64 *)key.comm)[0] &&
		    ((__u64 *)e->key.comm)[1] == ((__u64 *)key.comm)[1]) {
			e->end = now;
		} else {
			e = &r->runs[r->head & (SH_RUN_RING - 1)];
			e->start = r->cur_start;
			e->end = now;
			e->key = key;
			r->head++;
		}
		if (key_type == SH_KEY_PID || key_type == SH_KEY_TID)
			copy_comm(e->comm, prev->comm);
	}
	r->cur_start = now;
}

/* blame_time()'s walk back through the ring (its state in the ring's walk), one run per call. */
struct blame_ctx {
	struct sh_pcpu *pc;
	struct sh_run_ring *r;
};

/* bpf_loop(): the @i-th latest run; 1 (stop) once the runs are older than the wait. */
static long blame_run(__u64 i, void *arg)
{
	struct blame_ctx *c = arg;
	struct sh_run_ring *r = c->r;
	struct sh_run *e = &r->runs[(r->head - 1 - i) & (SH_RUN_RING - 1)];
	__u64 t0 = r->walk.t0, now = r->walk.now;
	__u64 s = e->start > t0 ? e->start : t0, end = e->end < now ? e->end : now;

	if (e->end <= t0)
		return 1;
	if (end > s) {
		r->walk.pair.culprit = e->key;
		blame_pair(c->pc, &r->walk.pair, e->comm, end - s);
		r->walk.covered += end - s;
	}
	return e->start <= t0;
}

/*
 * A run-queue wait of @d ns recorded under @waiter ends now, at this
 * switch on this CPU (now: the start of the run in progress, which
 * run_ring_note() has just set): each run of the ring that overlaps
 * [now - d, now] is blamed its overlap, the latest first, back to the run
 * the wait began in; the rest of the wait is [unattributed]. bpf_loop():
 * a walk of up to SH_RUN_RING runs, verified once. A global function
 * (returns 0), verified once too, apart from its callers: inlined, or as
 * a static subprogram verified at each caller state, it was walked once
 * per path through the recording of the metrics before it, past the
 * verifier's million instructions in the --causes program of
 * -M offcpu,runq,blocked --culprits --culprit-mode time. For 6.1's
 * verifier: it looks this CPU's counters up itself (a global function's
 * pointer argument is plain memory, which 6.1 refuses as a map key in
 * blame_map()), and the walk's state is in the ring, not on the stack
 * (the switch program, this, blame_run() and blame_map() went past 6.1's
 * 512 bytes of stack).
 */
__noinline int blame_time(const struct sh_key *waiter, __u64 d)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	struct blame_ctx c = { .pc = bpf_map_lookup_elem(&pcpu, &zero) };
	struct sh_run_ring *r;

	if (!c.pc || !waiter)
		return 0;
	r = c.r = bpf_map_lookup_elem(&run_ring, &cpu);
	if (!r)
		return 0;
	r->walk.pair.waiter = *waiter;
	r->walk.now = r->cur_start;
	r->walk.t0 = r->walk.now > d ? r->walk.now - d : 0;
	r->walk.covered = 0;
	bpf_loop(r->head < SH_RUN_RING ? (__u32)r->head : SH_RUN_RING, blame_run, &c, 0);
	if (r->walk.covered < d) {
		r->walk.pair.culprit = (struct sh_key){ .id = SH_UNATTRIBUTED_ID };
		blame_pair(c.pc, &r->walk.pair, r->walk.pair.culprit.comm, d - r->walk.covered);
	}
	return 0;
}

#endif /* __SCHEDHIST_CULPRIT_TIME_BPF_H */
