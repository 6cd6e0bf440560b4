// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * schedhist kernel side: measures how long tasks wait and bins each wait
 * into a histogram, in the kernel, per CPU (buckets of powers of two of a
 * second: schedhist.h). Nothing is streamed to userspace per event; the
 * poller reads the cumulative maps every interval.
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
 * Maps:
 *   tasks    sched_info method: the task table, an array indexed by tid
 *            (see struct task_slot): switch-out time, the run_delay seen
 *            at the last switch-in, the pcount expected. An entry is freed
 *            at its task's last switch (or by sched_process_free): nothing
 *            fills up with exited tasks.
 *   task_st  task local storage, the same per task (and the wakeup time):
 *            the wakeup method's, and the sched_info method's for tasks
 *            whose table entry is taken. Lives and dies with the task.
 *   pcpu     per-CPU array, one element: the event counters and, for the
 *            keys "none" and "cpu", the histograms themselves. One lookup
 *            per event for those keys.
 *   slots    array, (CPU, slot) -> one histogram per metric, for the
 *            first keys of the other key types (schedhist.h "Keys"): a
 *            block of slot_stride entries per CPU, each CPU writing only
 *            its own (per CPU like a per-CPU array, but one mapping the
 *            poller reads in place, mmap, no copy and no syscall); a
 *            task keeps its key's slot index in its state, and finds its
 *            histograms with two array lookups and a compare of the key
 *            (slot_keys, mapped by the poller too), no hash lookup.
 *            keydir (hash, key -> slot or
 *            SH_SLOT_HASH) says where each key is; free_slots (a stack)
 *            holds the free slots. The kernel takes slots; the poller
 *            frees the slots of gone keys it was left (marked), the
 *            kernel those it folds (see Reclaim).
 *   hists    per-CPU hash, key -> one histogram per metric, for the keys
 *            made while no slot was free. Per-CPU (like slots) so the hot
 *            path increments plain memory: no atomics, no shared cache
 *            lines. When full, new keys go to the [other] entry, which
 *            the poller creates before attaching.
 *   culprit_map  (--culprits) per-CPU hash, (key of the waiting task, key
 *            of the task that held the CPU when the wait ended) -> count
 *            and sum of those run-queue waits. Each CPU first adds a wait
 *            to its pair cache in pcpu (struct sh_culprit_ent): a pair
 *            goes to the map only when another one takes its cache
 *            entry. The poller removes idle entries; a pair that finds
 *            the map full is counted (culprit_lost) and shows under
 *            [rest].
 *   stack_map  (--stacks) per-CPU hash, key -> the kernel stack of the task
 *            whose wait is its epoch's max, per metric and epoch parity.
 *            Written only when a wait becomes a new max: a task being
 *            switched in has not run yet, so its kernel stack is still the
 *            one it went off the CPU with (bpf_get_task_stack on it).
 *
 * Reclaim: when a task is freed (sched_process_free: after its last
 * switch) or a cgroup released (cgroup_release: after its last css_set
 * reference), its key (-k tid, pid, cgroup) can take no more waits.
 * While its place holds few keys (the key map at most fold_above keys,
 * the slots at most slot_fold_above taken: 512, or half the capacity)
 * the key is only marked (SH_BIRTH_DEAD): the poller removes it at its
 * next reading, atomically with reading its last values (a slot: after
 * a grace period), so the waits stay under their own key. Beyond, it
 * is folded into the [exited] entry here, in the kernel, and deleted (a
 * slot zeroed and freed), so no storm of short-lived tasks can fill the
 * slots or the map between two readings. A slot is freed here only when
 * no program run can still be writing it: a tid whose task is freed (a
 * grace period after its last switch) and not taken by a new task, a
 * pid whose last task is freed (the last reference to its signal
 * struct) likewise, a released cgroup (ids are never reused); else it
 * is marked and the poller frees it. A
 * fold moves counts from one key to another, which a reading in progress
 * would see half done: while the poller reads (sh_reading, with an RCU
 * grace period after setting it so that no fold is in flight) keys are
 * only marked.
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
#define TASK_DEAD 0x80	/* prev_state of a task's last switch-out */
/* errno values the map helpers return, negated (the trimmed vmlinux.h has none) */
#define E2BIG 7
#define EEXIST 17

/* Settings, fixed before load so the verifier prunes what is unused. */
const volatile __u32 metrics = 1 << SH_METRIC_OFFCPU;	/* bit per enum sh_metric */
const volatile __u32 method = SH_METHOD_SCHED_INFO;
const volatile __u32 clock_src = SH_CLOCK_RQ;	/* enum sh_clock; the sched_info method's is rq */
const volatile __u32 key_type = SH_KEY_NONE;
const volatile __u32 nr_cpus = 1;		/* possible CPUs: the per-CPU copies */
const volatile __u32 filter_tgid = 0;		/* -p: 0 = every process */
const volatile int cgroup_hier = SH_CGROUP_V2;	/* which cgroup hierarchy */
const volatile __u32 cgroup_depth = 0;		/* roll-up depth, 0 = none */
const volatile __u64 filter_cgid = 0;		/* -c: subtree root, 0 = none */
const volatile __u32 filter_cglevel = 0;	/* -c: level of that root */
const volatile __u32 fold_above = 0;		/* fold gone keys once more keys are live */
const volatile __u32 slot_fold_above = 0;	/* ... and gone keys in slots once more slots are taken */
const volatile bool culprits = false;		/* --culprits: blame runq waits on prev */
const volatile bool stacks = false;		/* --stacks: capture the max wait's stack */
const volatile __u32 task_mask = 0;		/* task table entries - 1 (a power of two - 1) */
const volatile __u32 nr_slots = 0;		/* slots of the slot array, 0 = none */
const volatile __u32 slot_stride = 0;		/* slot array entries per CPU (>= nr_slots) */

/* Advanced by the poller at each reading (see struct sh_hist). */
volatile __u32 sh_epoch = 1;
/* Set by the poller while it reads the key map: folds are deferred. */
volatile __u32 sh_reading;
/* Incarnations handed out to new keys (sh_hist::birth). */
__u32 sh_births = 1;
/* Keys made by this side and not deleted yet (the poller subtracts its own deletes). */
__u32 sh_live_keys;
/* Slots taken and not freed yet (the poller subtracts the ones it frees). */
__u32 sh_slots_taken;
/* Keys made by this side since the start (a key is made, then reclaimed or still there). */
__u64 sh_keys_made;

/*
 * The measured metrics and the method, as seen by the code: M_ and NAT_
 * are parameters of the functions on the hot path. The sched_switch
 * program for the common configurations passes them as compile-time
 * constants (the compiler then drops every test of them and all code
 * for the other configurations); the one for any configuration passes
 * the settings above, and the verifier prunes what they rule out.
 */
#define HAS(m) (M_ & (1U << (m)))
/* Position of metric @m's histogram in a value: the enabled ones before it. */
#define IDX(m) (((m) > SH_METRIC_OFFCPU && HAS(SH_METRIC_OFFCPU)) + \
		((m) > SH_METRIC_RUNQ && HAS(SH_METRIC_RUNQ)))
#define NMETRICS (!!HAS(SH_METRIC_OFFCPU) + !!HAS(SH_METRIC_RUNQ) + !!HAS(SH_METRIC_BLOCKED))
#define NATIVE (NAT_)
/*
 * M_'s SH_SWITCH_PLAIN bit: key none or cpu, no filter, no --culprits,
 * no --stacks, known at compile time (the settings say so otherwise).
 */
#define PLAIN (M_ & SH_SWITCH_PLAIN)
#define KEY_TYPE (PLAIN ? SH_KEY_NONE : key_type)
#define STACKS (!PLAIN && stacks)
#define CULPRITS (!PLAIN && culprits)
/* The settings, for the functions that are not on the hot path. */
#define CONFIG_METRICS const __u32 M_ = metrics
#define CONFIG_METHOD const bool NAT_ = method == SH_METHOD_SCHED_INFO

/* Per task. Times are in the run's one clock domain (see "Method"). */
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
 * gone, and a later task at the same address has another start time. An
 * array lookup is a few instructions where task storage is a helper
 * call (about 20 ns a lookup here). A task whose entry is taken (tids at
 * or above 2^k, a tid reused before its last owner was freed, an entry
 * kept by a gone owner as above) keeps its state in task storage
 * instead, as every task does with the wakeup method. The poller sizes
 * the table (task_mask + 1 entries).
 */
struct task_slot {
	__u64 owner;	/* the owner's task_struct address; 0 = free */
	__u64 start;	/* ... and its start_time */
	struct task_core c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct task_slot);
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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_pcpu);
} pcpu SEC(".maps");

/* max_entries (--max-keys + [other] + [exited]) and value size (one
 * sh_hist per metric) are set by the poller. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10242);
	__type(key, struct sh_key);
	__type(value, struct sh_hist);
} hists SEC(".maps");

/*
 * The slot array (see schedhist.h "Keys"): per-CPU histograms of the
 * first keys, a slot per key, one histogram per metric, CPU c's copy of
 * slot i at entry c * slot_stride + i (value size and max_entries set by
 * the poller, which maps it); slot_keys: the key each slot holds
 * (SH_FREE_ID: none); keydir: key -> its slot, or SH_SLOT_HASH;
 * free_slots: the free slots. The kernel takes slots; a gone key's slot
 * is freed by the poller (marked) or by the kernel (folded: Reclaim).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_hist);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_key);
} slot_keys SEC(".maps");

/* CPU @cpu's copy of slot @i's histograms: CPU-major, slot_stride entries per CPU. */
static __always_inline struct sh_hist *slot_hists(__u32 i, __u32 cpu)
{
	__u32 j = cpu * slot_stride + i;

	return bpf_map_lookup_elem(&slots, &j);
}

/* not preallocated: a deleted entry is freed after a grace period, never reused under a reader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_key);
	__type(value, __u32);
} keydir SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 1);
	__type(value, __u32);
} free_slots SEC(".maps");

/* The value a new key starts from: zero, with its birth set (per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_hist);
} newval SEC(".maps");

/* --culprits: max_entries set by the poller */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_culprit_key);
	__type(value, struct sh_culprit_val);
} culprit_map SEC(".maps");

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

/* The task table's multiplier: odd, so a bijection modulo any 2^k. */
#define TASK_MUL 0x9E3779B1U

static __always_inline struct task_slot *task_slot_of(struct task_struct *t)
{
	__u32 i = ((__u32)t->pid * TASK_MUL) & task_mask;

	return bpf_map_lookup_elem(&tasks, &i);
}

/* @t will not run again: free its task table entry (if it has it). */
static __always_inline void task_slot_free(struct task_struct *t)
{
	struct task_slot *ts = task_slot_of(t);

	/* once taken, only the owner's own events write an entry's owner */
	if (ts && ts->owner == (__u64)t)
		ts->owner = 0;
}

/*
 * @t's state, made if @create (zeroed) and not made yet: its task table
 * entry, else its task storage (see "tasks"). NULL when there is none.
 */
static __always_inline struct task_core *task_state(struct task_struct *t, bool create,
						   const bool NAT_)
{
	struct task_st *st;

	if (NATIVE) {
		struct task_slot *ts = task_slot_of(t);

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

/* Kernels before 6.1 kept ancestor ids instead of ancestor pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

/* @t's cgroup in the hierarchy looked at. Direct BTF loads throughout. */
static __always_inline struct cgroup *task_cgroup(struct task_struct *t)
{
	struct css_set *cs = t->cgroups;
	struct cgroup_subsys_state *css;

	if (!cs)
		return 0;
	if (cgroup_hier < 0)
		return cs->dfl_cgrp;
	if (cgroup_hier >= SH_CGROUP_SUBSYS_MAX)
		return 0;
	css = cs->subsys[cgroup_hier & (SH_CGROUP_SUBSYS_MAX - 1)];
	return css ? css->cgroup : 0;
}

/*
 * Id of @cg's ancestor at @level (0 = root), with @level <= cg->level.
 * CO-RE: the ancestors array replaced ancestor_ids in 6.1.
 */
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

	if (!cg)
		return 0;
	if (cgroup_depth && cg->level > cgroup_depth)
		return cgroup_ancestor_id(cg, cgroup_depth);
	return cg->kn->id;
}

/* -p and -c: is @t one of the tasks traced? */
static __always_inline bool task_traced(struct task_struct *t, const __u32 M_)
{
	if (PLAIN)
		return true;
	if (filter_tgid && t->tgid != filter_tgid)
		return false;
	if (filter_cgid) {
		struct cgroup *cg = task_cgroup(t);

		if (!cg || cg->level < filter_cglevel)
			return false;
		if (cgroup_ancestor_id(cg, filter_cglevel) != filter_cgid)
			return false;
	}
	return true;
}

static __always_inline void copy_comm(char *dst, const char *src)
{
	/* comm is 16 bytes, 8-aligned on both sides: two loads, two stores */
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/* Add @n to counter @stat of every metric measured (the event concerns them all). */
static __always_inline void stat_add(struct sh_pcpu *pc, int stat, __u32 n, const __u32 M_)
{
	if (HAS(SH_METRIC_OFFCPU))
		pc->stats[SH_METRIC_OFFCPU][stat] += n;
	if (HAS(SH_METRIC_RUNQ))
		pc->stats[SH_METRIC_RUNQ][stat] += n;
	if (HAS(SH_METRIC_BLOCKED))
		pc->stats[SH_METRIC_BLOCKED][stat] += n;
}

/* Count @stat for every metric measured. */
static __always_inline void stat_all(struct sh_pcpu *pc, int stat, const __u32 M_)
{
	stat_add(pc, stat, 1, M_);
}

/* @t's key in the key map (-k comm, pid, tid, cgroup) into *@key (zeroed). */
static __always_inline void task_key(struct task_struct *t, struct sh_key *key)
{
	switch (key_type) {
	case SH_KEY_COMM:
		copy_comm(key->comm, t->comm);
		break;
	case SH_KEY_PID:
		key->id = (__u32)t->tgid;
		break;
	case SH_KEY_TID:
		key->id = (__u32)t->pid;
		break;
	case SH_KEY_CGROUP:
		key->id = task_cgroup_id(t);
		break;
	case SH_KEY_PIDNS:
		/* an exiting task has no nsproxy any more: 0, never a namespace's inode */
		key->id = t->nsproxy ? t->nsproxy->pid_ns_for_children->ns.inum : 0;
		break;
	}
}

/*
 * -k tid: the task's latest name also goes to CPU 0's copy (on a change
 * only), where the poller looks first; one task runs on one CPU at a
 * time, so it has one writer. @h0: CPU 0's copy, looked up only then.
 */
static __always_inline bool comm_changed(const struct sh_hist *h, struct task_struct *t, __u32 cpu)
{
	return key_type == SH_KEY_TID && cpu &&
	       (((__u64 *)h->comm)[0] != ((__u64 *)t->comm)[0] ||
		((__u64 *)h->comm)[1] != ((__u64 *)t->comm)[1]);
}

static __always_inline void comm_to_cpu0(struct sh_hist *h0, struct task_struct *t, const __u32 M_)
{
	if (!h0)
		return;
	if (HAS(SH_METRIC_OFFCPU))
		copy_comm(h0[IDX(SH_METRIC_OFFCPU)].comm, t->comm);
	if (HAS(SH_METRIC_RUNQ))
		copy_comm(h0[IDX(SH_METRIC_RUNQ)].comm, t->comm);
	if (HAS(SH_METRIC_BLOCKED))
		copy_comm(h0[IDX(SH_METRIC_BLOCKED)].comm, t->comm);
}

/*
 * Where @key is (see schedhist.h "Keys"): its slot, or SH_SLOT_HASH for
 * the key map. A key seen for the first time takes a free slot, unless
 * it is in the key map already (made while no slot was free); the key
 * directory's entry, made with BPF_NOEXIST, settles a race between two
 * CPUs making the same key.
 */
static __noinline __u32 key_slot(const struct sh_key *key)
{
	__u32 *ip, i = SH_SLOT_HASH, popped;
	struct sh_key *sk = 0;
	struct sh_hist *h = 0;
	long err;

	if (!key)
		return SH_SLOT_HASH;
	ip = bpf_map_lookup_elem(&keydir, key);
	if (ip)
		return *ip;
	/* (an empty stack's pop zeroes the value: only a success names a slot) */
	if (!bpf_map_lookup_elem(&hists, key) && !bpf_map_pop_elem(&free_slots, &popped)) {
		i = popped;
		h = i < nr_slots ? slot_hists(i, bpf_get_smp_processor_id()) : 0;
		sk = bpf_map_lookup_elem(&slot_keys, &i);
		if (!h || !sk) {
			/* never: every slot index is below nr_slots */
			bpf_map_push_elem(&free_slots, &i, 0);
			return SH_SLOT_HASH;
		}
		/* the poller zeroed every CPU's copy when it freed the slot */
		h->birth = __sync_fetch_and_add(&sh_births, 1) & SH_BIRTH_ID;
	}
	err = bpf_map_update_elem(&keydir, key, &i, BPF_NOEXIST);
	if (!err) {
		if (sk) {
			*sk = *key;
			__sync_fetch_and_add(&sh_keys_made, 1);
			__sync_fetch_and_add(&sh_slots_taken, 1);
		}
		return i;
	}
	if (h) {
		h->birth = 0;
		bpf_map_push_elem(&free_slots, &i, 0);
	}
	/* made meanwhile on another CPU: where it went */
	if (err == -EEXIST && (ip = bpf_map_lookup_elem(&keydir, key)))
		return *ip;
	return SH_SLOT_HASH;	/* no directory entry to be had: the key map */
}

/*
 * Histograms (one per metric) for @t's key in the key map, *@kp (zeroed
 * by the caller), created on first use; [other] once the map is full,
 * with *@over the reason (SH_STAT_MAP_FULL or SH_STAT_NO_MEM), else 0,
 * and *@kp [other].
 */
static __always_inline struct sh_hist *hash_hists(struct task_struct *t, __u32 cpu, int *over,
						  struct sh_key *kp, const __u32 M_)
{
	struct sh_key key = *kp;
	struct sh_hist *h, *nv;
	__u32 zero = 0;
	long err;

	h = bpf_map_lookup_elem(&hists, &key);
	if (h) {
		if (comm_changed(h, t, cpu))
			comm_to_cpu0(bpf_map_lookup_percpu_elem(&hists, &key, 0), t, M_);
		return h;
	}
	nv = bpf_map_lookup_elem(&newval, &zero);
	if (!nv)
		return 0;
	nv->birth = __sync_fetch_and_add(&sh_births, 1) & SH_BIRTH_ID;
	err = bpf_map_update_elem(&hists, &key, nv, BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&sh_live_keys, 1);
		__sync_fetch_and_add(&sh_keys_made, 1);
	}
	if (err && err != -EEXIST /* created meanwhile on another CPU */) {
		/* -E2BIG: full; -ENOMEM: no element free at this moment */
		*over = err == -E2BIG ? SH_STAT_MAP_FULL : SH_STAT_NO_MEM;
		__builtin_memset(&key, 0, sizeof(key));
		key.id = SH_OTHER_ID;
		*kp = key;
	}
	return bpf_map_lookup_elem(&hists, &key);
}

/*
 * Histograms (one per metric) for @t's key, into *@kp (zeroed by the
 * caller): its slot's when it has one (the slot index kept in @c, while
 * the slot still holds that key: no hash lookup), else the key map's
 * (hash_hists()).
 */
static __always_inline struct sh_hist *keyed_hists(struct task_struct *t, struct task_core *c,
						   __u32 cpu, int *over, struct sh_key *kp,
						   const __u32 M_)
{
	struct sh_key key = {};
	struct sh_hist *h;
	__u32 i;

	task_key(t, &key);
	*kp = key;
	i = c->kidx;
	if (nr_slots && i != SH_SLOT_HASH) {
		struct sh_key *sk = bpf_map_lookup_elem(&slot_keys, &i);

		if (sk && sk->id == key.id && ((__u64 *)sk->comm)[0] == ((__u64 *)key.comm)[0] &&
		    ((__u64 *)sk->comm)[1] == ((__u64 *)key.comm)[1])
			goto slot;
	} else {
		h = bpf_map_lookup_elem(&hists, &key);
		if (h) {
			if (comm_changed(h, t, cpu))
				comm_to_cpu0(bpf_map_lookup_percpu_elem(&hists, &key, 0), t, M_);
			return h;
		}
	}
	i = nr_slots ? key_slot(&key) : SH_SLOT_HASH;
	c->kidx = i;
	if (i == SH_SLOT_HASH)
		return hash_hists(t, cpu, over, kp, M_);
slot:
	if (i >= nr_slots)	/* never: slot indexes are below nr_slots; a bound for the verifier */
		return 0;
	h = slot_hists(i, cpu);
	if (h && comm_changed(h, t, cpu))
		comm_to_cpu0(slot_hists(i, 0), t, M_);
	return h;
}

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
	n = bpf_get_task_stack(t, sk->ip, sizeof(sk->ip), 0);
	sk->nr = n > 0 ? (__u32)(n / sizeof(sk->ip[0])) : 0;
	sk->ns = d;
	sk->epoch = ep;
}

/*
 * Bin one wait of @d ns of metric @m by task @t, switched in on @cpu,
 * under @key; @over: it goes to [other], for that reason (0: under its
 * own key).
 */
static __always_inline void record(struct sh_pcpu *pc, struct sh_hist *h, int m,
				   struct task_struct *t, __u64 d, __u32 cpu, int over,
				   const struct sh_key *key, __u32 ep, const __u32 M_)
{
	struct sh_max *mx;
	__u32 slot;

	pc->stats[m][SH_STAT_SEEN]++;
	if (over)
		pc->stats[m][over]++;
	slot = sh_bucket(d);
	if (slot >= SH_NBUCKETS)	/* never: a bound for the verifier */
		slot = SH_NBUCKETS - 1;
	h->slots[slot]++;
	h->count++;
	h->sum_ns += d;
	if (KEY_TYPE == SH_KEY_PID || KEY_TYPE == SH_KEY_TID)
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
		mx->cpu = cpu;
		copy_comm(mx->comm, t->comm);
		if (STACKS)
			capture_stack(key, m, ep, t, d);
	} else if (d < mx->min_ns) {
		mx->min_ns = d;
	}
}

/*
 * --culprits: add @add (count, sum and, for pid/tid keys, the culprit's
 * name; on the stack) to pair @ck in the culprit map. False when no
 * entry could be made for the pair (the map is full).
 */
static __noinline bool blame_map(const struct sh_culprit_key *ck, const struct sh_culprit_val *add)
{
	struct sh_culprit_val *v;
	long err;

	if (!ck || !add)
		return false;
	v = bpf_map_lookup_elem(&culprit_map, ck);
	if (!v) {
		err = bpf_map_update_elem(&culprit_map, ck, add, BPF_NOEXIST);
		if (!err)
			return true;
		/* made meanwhile on another CPU: this CPU's copy is zero */
		if (err != -EEXIST || !(v = bpf_map_lookup_elem(&culprit_map, ck)))
			return false;
	}
	v->count += add->count;
	v->sum_ns += add->sum_ns;
	if (key_type == SH_KEY_PID || key_type == SH_KEY_TID)
		copy_comm(v->comm, add->comm);
	return true;
}

/* Pair cache entry of @ck: a multiplicative hash, the waiter's and the culprit's apart. */
static __always_inline __u32 ccache_index(const struct sh_culprit_key *ck)
{
	const __u64 *w = (const __u64 *)&ck->waiter, *c = (const __u64 *)&ck->culprit;
	__u64 h = (w[0] ^ w[1] ^ w[2]) * 0x9E3779B97F4A7C15ULL ^
		  (c[0] ^ c[1] ^ c[2]) * 0xC2B2AE3D27D4EB4FULL;

	return (__u32)(h >> 59) & (SH_CCACHE - 1);
}

/*
 * --culprits: a run-queue wait of @d ns recorded under @waiter ended with
 * @prev leaving the CPU: count it against @prev's key, in this CPU's
 * pair cache (struct sh_culprit_ent). A pair that is not there takes its
 * entry; the pair it replaces moves to the culprit map.
 */
static __always_inline void blame(struct sh_pcpu *pc, const struct sh_key *waiter,
				  struct task_struct *prev, __u64 d)
{
	struct sh_culprit_key ck = {};
	struct sh_culprit_ent *e;
	bool named = key_type == SH_KEY_PID || key_type == SH_KEY_TID;
	const __u64 *a, *b;

	ck.waiter = *waiter;
	if (prev->pid)
		task_key(prev, &ck.culprit);
	else
		ck.culprit.id = SH_IDLE_ID;
	e = &pc->ccache[ccache_index(&ck)];
	a = (const __u64 *)&e->key;
	b = (const __u64 *)&ck;
	if (e->v.count && a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] &&
	    a[4] == b[4] && a[5] == b[5]) {
		e->v.count++;
		e->v.sum_ns += d;
		if (named)
			copy_comm(e->v.comm, prev->comm);
		return;
	}
	if (e->v.count) {
		struct sh_culprit_val old = e->v;

		if (!blame_map(&e->key, &old))
			pc->culprit_lost += old.count;
	}
	e->key = ck;
	e->v.count = 1;
	e->v.sum_ns = d;
	if (named)
		copy_comm(e->v.comm, prev->comm);
}

/* An event of metric @m that is not recorded, for reason @stat. */
static __always_inline void unrecorded(struct sh_pcpu *pc, int m, int stat)
{
	pc->stats[m][SH_STAT_SEEN]++;
	pc->stats[m][stat]++;
}

/*
 * The run-queue part of the wait ending now, into *@rq: 0, or the
 * reason it is unknown (SH_STAT_NO_START, SH_STAT_CLOCK_SKEW). @lq, @rd,
 * @pcount: @t's sched_info (sched_info method); *@flags: @c's, updated.
 */
static __always_inline int runq_wait(struct task_core *c, __u32 *flags, __u64 now, __u64 lq,
				     __u64 rd, __u32 pcount, __u64 *rq, const bool NAT_)
{
	if (NATIVE) {
		/* a task that never ran has accrued nothing: base 0 is exact */
		bool known = (*flags & TS_RD) || !pcount;
		__u64 base = (*flags & TS_RD) ? c->rd_base : 0;

		/*
		 * Not queued: sched_info_arrive() counts no wait (pcount) and
		 * adds nothing to run_delay; what run_delay gained since the
		 * base (a migration's part of a wait, or a switch-in this
		 * program did not see) stays for the next wait, so the base
		 * stays too.
		 */
		if (!lq) {
			if (!known) {
				c->rd_base = rd;
				*flags |= TS_RD;
			}
			return SH_STAT_NO_START;
		}
		/* what sched_info_arrive() is about to add to run_delay */
		c->rd_base = rd + (now >= lq ? now - lq : 0);
		*flags |= TS_RD;
		if (!known)
			return SH_STAT_NO_START;
		/* the same run queue stamped both: cannot go backwards */
		if (now < lq)
			return SH_STAT_CLOCK_SKEW;
		*rq = rd - base + (now - lq);
		return 0;
	} else {
		__u64 wake = ((struct task_st *)c)->wake_ts;

		if (!wake)
			return SH_STAT_NO_START;
		if (now < wake)
			return SH_STAT_CLOCK_SKEW;
		*rq = now - wake;
		return 0;
	}
}

/*
 * Record the waits that @t's switch-in ends: of @off ns (offcpu), @rq
 * (runq) and, after a sleep (@slept), @off - @rq (blocked); a nonzero
 * *_err is the reason that one is unknown (for blocked, also a negative
 * @off - @rq: clock skew).
 */
static __always_inline void record_waits(struct sh_pcpu *pc, struct task_struct *t,
					 struct task_struct *prev, struct task_core *c, __u64 off,
					 int off_err, __u64 rq, int rq_err, int b_err, bool slept,
					 const __u32 M_)
{
	struct sh_key key = {};
	struct sh_hist *h;
	__u32 cpu, ep;
	int over = 0;

	/* blocked below zero: only when two CPUs' clocks disagree */
	if (HAS(SH_METRIC_BLOCKED) && slept && !b_err && off < rq)
		b_err = SH_STAT_CLOCK_SKEW;
	/* no histogram needed (nor a key made) when nothing is recorded */
	if ((!HAS(SH_METRIC_OFFCPU) || off_err) && (!HAS(SH_METRIC_RUNQ) || rq_err) &&
	    (!HAS(SH_METRIC_BLOCKED) || !slept || b_err)) {
		h = 0;
	} else if (KEY_TYPE == SH_KEY_NONE || KEY_TYPE == SH_KEY_CPU) {
		h = pc->hist;
		/* the stack map's key for these (key cpu: this CPU's histogram) */
		if (STACKS && KEY_TYPE == SH_KEY_CPU)
			key.id = bpf_get_smp_processor_id();
	} else {
		h = keyed_hists(t, c, bpf_get_smp_processor_id(), &over, &key, M_);
		if (!h) {
			stat_all(pc, SH_STAT_SEEN, M_);
			stat_all(pc, SH_STAT_DROPPED, M_);
			return;
		}
	}

	cpu = bpf_get_smp_processor_id();
	ep = sh_epoch;
	if (HAS(SH_METRIC_OFFCPU)) {
		if (!off_err && h)
			record(pc, h + IDX(SH_METRIC_OFFCPU), SH_METRIC_OFFCPU, t, off, cpu, over,
			       &key, ep, M_);
		else
			unrecorded(pc, SH_METRIC_OFFCPU, off_err);
	}
	if (HAS(SH_METRIC_RUNQ)) {
		if (!rq_err && h) {
			record(pc, h + IDX(SH_METRIC_RUNQ), SH_METRIC_RUNQ, t, rq, cpu, over, &key,
			       ep, M_);
			if (CULPRITS)
				blame(pc, &key, prev, rq);
		} else
			unrecorded(pc, SH_METRIC_RUNQ, rq_err);
	}
	if (HAS(SH_METRIC_BLOCKED) && slept) {
		if (!b_err && h)
			record(pc, h + IDX(SH_METRIC_BLOCKED), SH_METRIC_BLOCKED, t, off - rq, cpu,
			       over, &key, ep, M_);
		else
			unrecorded(pc, SH_METRIC_BLOCKED, b_err);
	}
}

/* @t is switched in at @now, @prev out: every wait it ends. */
static __always_inline void switch_in(struct task_struct *t, struct task_struct *prev, __u64 now,
				      const __u32 M_, const bool NAT_)
{
	__u64 off = 0, rq = 0, lq = 0, rd = 0;
	int off_err = SH_STAT_NO_START, rq_err = SH_STAT_NO_START, b_err = 0;
	struct task_core *c;
	struct sh_pcpu *pc;
	__u32 zero = 0, flags, pcount = 0;
	bool slept, first;

	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!pc)
		return;
	if (!task_traced(t, M_)) {
		stat_all(pc, SH_STAT_SEEN, M_);
		stat_all(pc, SH_STAT_FILTERED, M_);
		return;
	}
	/*
	 * runq from sched_info needs the state at switch-in only; offcpu
	 * makes it for a task's first run too (a new task never switched out)
	 */
	c = task_state(t, NATIVE && (HAS(SH_METRIC_RUNQ) || HAS(SH_METRIC_OFFCPU)), NAT_);
	if (!c) {
		stat_all(pc, SH_STAT_SEEN, M_);
		stat_all(pc, SH_STAT_NO_START, M_);
		return;
	}
	flags = c->flags;
	if (NATIVE) {
		lq = t->sched_info.last_queued;
		rd = t->sched_info.run_delay;
		pcount = t->sched_info.pcount;
	}
	slept = flags & TS_SLEPT;
	/*
	 * Several metrics, sched_info method: the usual switch-in, of a task
	 * seen switch out, whose pcount and run_delay base are known, that
	 * this program saw at every arrival since and that was queued, takes
	 * its three waits with none of the tests below (they would all pass:
	 * the same results, runq_wait()'s included). One test instead of a
	 * dozen branches and their spills: bench/run.sh's arm
	 * sh:offcpu+runq+blocked:none against sh:offcpu:none measures it.
	 */
	if (NATIVE && NMETRICS > 1 && (flags & (TS_PC | TS_RD)) == (TS_PC | TS_RD) &&
	    pcount == c->pcount && lq && c->out_ts && now >= lq && now >= c->out_ts) {
		off = now - c->out_ts;
		rq = rd - c->rd_base + (now - lq);
		c->out_ts = 0;
		c->rd_base = rd + (now - lq);
		c->pcount = pcount + 1;
		c->flags = flags & ~(TS_SLEPT | TS_NEW);
		record_waits(pc, t, prev, c, off, 0, rq, 0, 0, slept, M_);
		return;
	}
	if (NATIVE) {
		/*
		 * The kernel counted more arrivals (switch-ins) of this task
		 * than this program saw since its last one: on 6.18 about one
		 * context switch in a hundred does not run the program
		 * (/proc/stat ctxt advances more than its run_cnt,
		 * recursion_misses 0). Their runq waits are in run_delay, so in
		 * the next one; their offcpu and blocked waits are lost. Say
		 * how many, for every metric.
		 */
		if ((flags & TS_PC) && pcount != c->pcount)
			stat_add(pc, SH_STAT_MERGED, pcount - c->pcount, M_);
		c->pcount = pcount + !!lq;
		flags |= TS_PC;
	}
	/* a task's first run has no switch-out: off CPU since runnable */
	first = NATIVE ? !pcount : (flags & TS_NEW);
	if ((HAS(SH_METRIC_OFFCPU) || HAS(SH_METRIC_BLOCKED) || !NATIVE) && c->out_ts) {
		off_err = now < c->out_ts ? SH_STAT_CLOCK_SKEW : 0;
		off = now - c->out_ts;
		c->out_ts = 0;
	}
	if (HAS(SH_METRIC_RUNQ) || HAS(SH_METRIC_BLOCKED) || first)
		rq_err = runq_wait(c, &flags, now, lq, rd, pcount, &rq, NAT_);
	if (first && off_err == SH_STAT_NO_START) {
		off_err = rq_err;
		off = rq;
	}
	if (!NATIVE)
		((struct task_st *)c)->wake_ts = 0;
	c->flags = flags & ~(TS_SLEPT | TS_NEW);

	/*
	 * blocked: only waits that began with a sleep (the rest is runq):
	 * switch-out to enqueue, the wait less its queued part (with the
	 * wakeup method, wake_ts - out_ts), known when both are
	 */
	if (HAS(SH_METRIC_BLOCKED) && slept)
		b_err = off_err ? off_err : rq_err;
	record_waits(pc, t, prev, c, off, off_err, rq, rq_err, b_err, slept, M_);
}

/* @t is switched out at @now; @slept: not runnable any more. */
static __always_inline void switch_out(struct task_struct *t, __u64 now, bool slept,
				       const __u32 M_, const bool NAT_)
{
	struct task_core *c;
	__u32 flags;

	if (!task_traced(t, M_))
		return;
	c = task_state(t, true, NAT_);
	if (!c)
		return;
	c->out_ts = now;
	flags = slept ? c->flags | TS_SLEPT : c->flags & ~TS_SLEPT;
	/*
	 * sched_info: a task first seen here is due no arrival before its
	 * next switch-in's (which comes after that event), and a running
	 * task's run_delay stands still until it is queued again: it is the
	 * base the next wait is measured from. A task seen before keeps the
	 * base of its last switch-in, so that what run_delay gained without
	 * a wait recorded since (an arrival this program did not see:
	 * pcount ran ahead, SH_STAT_MERGED) goes into the next wait.
	 */
	if (NATIVE) {
		if (!(flags & TS_PC)) {
			c->pcount = t->sched_info.pcount;
			flags |= TS_PC;
		}
		if ((HAS(SH_METRIC_RUNQ) || HAS(SH_METRIC_BLOCKED)) && !(flags & TS_RD)) {
			c->rd_base = t->sched_info.run_delay;
			flags |= TS_RD;
		}
	} else {
		/* wakeup method: preempted, it is runnable from now on */
		((struct task_st *)c)->wake_ts = slept ? 0 : now;
	}
	c->flags = flags;
}

static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next,
				     unsigned int prev_state, const __u32 M_, const bool NAT_)
{
	/* this CPU's run queue clock, updated by __schedule just before */
	__u64 now = NATIVE || clock_src == SH_CLOCK_RQ ? prev->se.cfs_rq->rq->clock
						       : bpf_ktime_get_ns();

	/* switch-out times: offcpu and blocked, and runq by wakeup stamps */
	if (NATIVE && (prev_state & TASK_DEAD))
		task_slot_free(prev);	/* its last switch */
	else if (prev->pid && (HAS(SH_METRIC_OFFCPU) || HAS(SH_METRIC_BLOCKED) || !NATIVE))
		switch_out(prev, now, prev_state != TASK_RUNNING, M_, NAT_);
	if (next->pid)
		switch_in(next, prev, now, M_, NAT_);
	return 0;
}

/*
 * One sched_switch program per common configuration, the poller loads
 * the one that matches (see the top of the file), and one for any.
 */
#define SWITCH_PROG(name, m, nat)							\
SEC("tp_btf/sched_switch")								\
int BPF_PROG(name, bool preempt, struct task_struct *prev, struct task_struct *next,	\
	     unsigned int prev_state)							\
{											\
	return on_switch(prev, next, prev_state, m, nat);				\
}

SWITCH_PROG(schedhist_switch, metrics, method == SH_METHOD_SCHED_INFO)
SWITCH_PROG(schedhist_switch_runq, SH_SWITCH_RUNQ, true)
SWITCH_PROG(schedhist_switch_offcpu, SH_SWITCH_OFFCPU, true)
SWITCH_PROG(schedhist_switch_all, SH_SWITCH_ALL, true)
SWITCH_PROG(schedhist_switch_runq_plain, SH_SWITCH_RUNQ | SH_SWITCH_PLAIN, true)
SWITCH_PROG(schedhist_switch_offcpu_plain, SH_SWITCH_OFFCPU | SH_SWITCH_PLAIN, true)
SWITCH_PROG(schedhist_switch_all_plain, SH_SWITCH_ALL | SH_SWITCH_PLAIN, true)
SWITCH_PROG(schedhist_switch_runq_wakeup, SH_SWITCH_RUNQ | SH_SWITCH_WAKEUP, false)
SWITCH_PROG(schedhist_switch_runq_wakeup_plain,
	    SH_SWITCH_RUNQ | SH_SWITCH_WAKEUP | SH_SWITCH_PLAIN, false)

/* wakeup method: a wakeup puts the task on a run queue; it waits from now. */
static __always_inline int on_wakeup(struct task_struct *p, __u32 flags)
{
	struct task_st *s;

	CONFIG_METRICS;

	if (!p->pid || !task_traced(p, M_))
		return 0;
	s = bpf_task_storage_get(&task_st, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (s) {
		/*
		 * the clock of the run queue @p is now on, updated under its
		 * lock just before (ttwu_queue(), sched_ttwu_pending(),
		 * ttwu_runnable(), wake_up_new_task()): the stamp
		 * sched_info_enqueue() takes
		 */
		s->wake_ts = clock_src == SH_CLOCK_RQ ? p->se.cfs_rq->rq->clock
						      : bpf_ktime_get_ns();
		s->c.flags |= flags;
	}
	return 0;
}

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

/* ---- reclaim: fold a gone key into [exited], delete it ---- */

/* (libbpf's own bpf_ksym_exists() is from 1.2; Debian 12 has 1.1) */
#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!(sym))
#endif
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/* A task has id @id now (a tid or tgid reused); true when that cannot be told. */
static __always_inline bool tid_in_use(__s32 id)
{
	struct task_struct *t;

	if (!bpf_ksym_exists(bpf_task_from_pid))
		return true;
	t = bpf_task_from_pid(id);
	if (!t)
		return false;
	bpf_task_release(t);
	return true;
}

/* @dst += @src, keeping per epoch slot the newer or longer max. */
static __always_inline void fold_hist(struct sh_hist *dst, const struct sh_hist *src)
{
	int i;

	for (i = 0; i < SH_NBUCKETS; i++)
		dst->slots[i] += src->slots[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	for (i = 0; i < 2; i++) {
		const struct sh_max *s = &src->max[i];
		struct sh_max *d = &dst->max[i];

		if (!s->epoch)
			continue;
		if ((__s32)(s->epoch - d->epoch) > 0) {
			*d = *s;
		} else if (s->epoch == d->epoch) {
			__u64 mn = s->min_ns < d->min_ns ? s->min_ns : d->min_ns;

			if (s->ns > d->ns)
				*d = *s;
			d->min_ns = mn;
		}
	}
}

struct fold_ctx {
	struct sh_key *key;
	struct sh_hist *dst;	/* this CPU's copy of [exited] */
	__u32 slot;		/* fold_slot_cpu(): the slot folded */
};

/*
 * One CPU's value (a histogram per metric) @src into @dst; with @zero,
 * @src is zeroed after (a slot, for its next key).
 */
static __always_inline void fold_value(struct sh_hist *dst, struct sh_hist *src, bool zero)
{
	CONFIG_METRICS;

	if (HAS(SH_METRIC_OFFCPU)) {
		fold_hist(dst + IDX(SH_METRIC_OFFCPU), src + IDX(SH_METRIC_OFFCPU));
		if (zero)
			__builtin_memset(src + IDX(SH_METRIC_OFFCPU), 0, sizeof(*src));
	}
	if (HAS(SH_METRIC_RUNQ)) {
		fold_hist(dst + IDX(SH_METRIC_RUNQ), src + IDX(SH_METRIC_RUNQ));
		if (zero)
			__builtin_memset(src + IDX(SH_METRIC_RUNQ), 0, sizeof(*src));
	}
	if (HAS(SH_METRIC_BLOCKED)) {
		fold_hist(dst + IDX(SH_METRIC_BLOCKED), src + IDX(SH_METRIC_BLOCKED));
		if (zero)
			__builtin_memset(src + IDX(SH_METRIC_BLOCKED), 0, sizeof(*src));
	}
}

static long fold_cpu(__u32 cpu, struct fold_ctx *c)
{
	struct sh_hist *src = bpf_map_lookup_percpu_elem(&hists, c->key, cpu);

	if (src)
		fold_value(c->dst, src, false);
	return 0;
}

/* A slot's copy of @cpu: into this CPU's [exited], then zeroed for the slot's next key. */
static long fold_slot_cpu(__u32 cpu, struct fold_ctx *c)
{
	struct sh_hist *src = slot_hists(c->slot, cpu);

	if (!src)
		return 1;	/* never: the slot index is below nr_slots */
	fold_value(c->dst, src, true);
	return 0;
}

/*
 * The gone key @key has slot @i: fold every CPU's copy into this CPU's
 * [exited], zero them, and free the slot, here in the kernel, so that a
 * storm of short-lived tasks never waits for the poller to free slots.
 * Only for a key no program run can be writing to (@recyclable, see
 * reclaim()'s callers). The slot is taken from its key first (slot_keys,
 * then the directory): a run that finds the key now finds no slot.
 * False when not done (the caller marks the key for the poller).
 */
static __always_inline bool recycle_slot(struct sh_key *key, __u32 i)
{
	struct sh_key ex = { .id = SH_EXITED_ID };
	struct fold_ctx c = { .key = key, .slot = i };
	struct sh_hist *h0;
	struct sh_key *sk;
	struct sh_pcpu *pc;
	__u32 zero = 0;

	h0 = slot_hists(i, 0);
	sk = bpf_map_lookup_elem(&slot_keys, &i);
	c.dst = bpf_map_lookup_elem(&hists, &ex);
	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!h0 || !sk || !c.dst || !pc)
		return false;
	/* one folder per slot: -k pid's frees of two threads may race on two CPUs */
	if (__sync_fetch_and_or(&h0->birth, SH_BIRTH_FOLDING) & SH_BIRTH_FOLDING)
		return true;
	/* the id first: a torn key never matches a task's */
	sk->id = SH_FREE_ID;
	__builtin_memset(sk->comm, 0, sizeof(sk->comm));
	bpf_map_delete_elem(&keydir, key);
	if (stacks)
		bpf_map_delete_elem(&stack_map, key);
	bpf_loop(nr_cpus, fold_slot_cpu, &c, 0);
	/* (the push takes the stack's lock: the zeroing is seen by the slot's next taker) */
	bpf_map_push_elem(&free_slots, &i, 0);
	__sync_fetch_and_sub(&sh_slots_taken, 1);
	pc->reclaimed++;
	return true;
}

/*
 * The task or cgroup of @key is gone: no wait can be recorded under it
 * any more. While its map holds at most fold_above keys (slots:
 * slot_fold_above), or the poller is reading, the key is only marked
 * for the poller, which removes it with its last values (the waits stay
 * under their own key). Beyond, a key in a slot that no program run can
 * still write (@recyclable, and no task has the id @reuse_id now, when
 * not 0) is folded into [exited] and its slot freed
 * (recycle_slot()); a key in the key map is folded likewise and
 * deleted; see the top of this file. Runs in the RCU callback or
 * workqueue that frees the object: never nested with itself on one CPU,
 * so this CPU's [exited] has one writer.
 */
static __always_inline void reclaim(struct sh_key *key, bool recyclable, __s32 reuse_id)
{
	struct sh_key ex = { .id = SH_EXITED_ID };
	struct fold_ctx c = { .key = key };
	struct sh_hist *h, *h0;
	struct sh_pcpu *pc;
	__u32 zero = 0, *ip;

	ip = nr_slots ? bpf_map_lookup_elem(&keydir, key) : 0;
	if (ip && *ip != SH_SLOT_HASH) {
		__u32 i = *ip;

		if (i >= nr_slots)	/* never; a bound for the verifier */
			return;
		/* (the reuse check, a task lookup, only once the rest says fold) */
		if (recyclable && !sh_reading && sh_slots_taken > slot_fold_above &&
		    !(reuse_id && tid_in_use(reuse_id)) && recycle_slot(key, i))
			return;
		h = slot_hists(i, bpf_get_smp_processor_id());
		if (h)
			h->birth |= SH_BIRTH_DEAD;
		return;
	}
	h = bpf_map_lookup_elem(&hists, key);
	if (!h)
		return;
	if (sh_reading || sh_live_keys <= fold_above) {
		h->birth |= SH_BIRTH_DEAD;
		return;
	}
	/*
	 * -k pid: the frees of two threads of one dead process may race on
	 * two CPUs; the one that sets the claim on CPU 0's copy folds
	 */
	h0 = bpf_map_lookup_percpu_elem(&hists, key, 0);
	if (!h0 || (__sync_fetch_and_or(&h0->birth, SH_BIRTH_FOLDING) & SH_BIRTH_FOLDING))
		return;
	c.dst = bpf_map_lookup_elem(&hists, &ex);
	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!c.dst || !pc)
		return;
	bpf_loop(nr_cpus, fold_cpu, &c, 0);
	if (stacks)
		bpf_map_delete_elem(&stack_map, key);
	if (!bpf_map_delete_elem(&hists, key)) {
		pc->reclaimed++;
		__sync_fetch_and_sub(&sh_live_keys, 1);
		if (nr_slots)
			bpf_map_delete_elem(&keydir, key);
	}
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(schedhist_task_free, struct task_struct *p)
{
	struct sh_key key = {};
	bool sole;
	CONFIG_METHOD;

	/* the task's last switch is behind it (and may have gone unseen) */
	if (NATIVE)
		task_slot_free(p);
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

char LICENSE[] SEC("license") = "Dual BSD/GPL";
