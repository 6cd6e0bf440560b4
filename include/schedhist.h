/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by the kernel side (bpf/schedhist.bpf.c) and the poller
 * (user/). Everything here is fixed-width so both sides agree on layout.
 */
#ifndef SCHEDHIST_H
#define SCHEDHIST_H

#ifndef __VMLINUX_H__	/* the BPF side gets these from vmlinux.h */
#include <linux/types.h>
#endif

/* Length of task_struct::comm, including the NUL. */
#define SH_COMM_LEN 16

/*
 * The bucket grid, one for every output (text, JSON, heatmap, classic and
 * native Prometheus): the edges are those of a Prometheus native histogram
 * of schema s (--schema, 0 to 3: 2^s buckets per power of two), whose
 * bucket of index i is (2^((i-1)/2^s), 2^(i/2^s)] s, with a zero bucket
 * [0, 2^-20 s]. With n = 2^s:
 *   bucket 0          [0, 2^-20 s]: every wait up to 2^-20 s, the native zero
 *                     bucket (zero threshold 2^-20 s; a scheduler wait is rarely below)
 *   bucket j, 1..40n-1  (2^((j-1)/n - 20), 2^(j/n - 20)] s, native index j + SH_NATIVE_INDEX0(s)
 *   bucket 40n        above 2^(20 - 1/n) s: native index 20n, exact up to 2^20 s
 *                     (12.1 days); a wait longer than that is counted there
 *                     too, the only one no native bucket holds
 * Waits are whole nanoseconds, so bucket j holds the waits w with
 * floor(1e9 * 2^((j-1)/n - 20)) < w <= floor(1e9 * 2^(j/n - 20)); at schema
 * 0, bucket 1 holds 954 to 1907 of them, bucket 2 1908 to 3814, ..., and
 * 1 s is the last wait of bucket 20 (native index 0, (0.5, 1] s). At schema 0 a histogram is as small as the
 * 40 log2 buckets it replaced; each finer schema doubles the buckets
 * (the kernel memory budget, user/model/kmem.c, counts them).
 */
#define SH_SCHEMA_MAX 3
#define SH_NBUCKETS(s) (1 + (40 << (s)))	/* buckets at schema @s */
#define SH_NBUCKETS_MAX SH_NBUCKETS(SH_SCHEMA_MAX)
#define SH_NATIVE_INDEX0(s) (-(20 << (s)))	/* native index of bucket j at schema @s: j + this */
/*
 * The kernel finds a wait's bucket from its binary octave l = floor(log2(w))
 * and the SH_CELL_BITS bits below its leading one (the "cell", 32 per
 * octave): a cell holds at most one edge (edges are a factor 2^(1/8) = 1.09
 * apart at least, a cell spans 1/32 of an octave), so the bucket is the
 * cell's first one (cell_base, from the octave: ((l - 10) << s) + base)
 * plus one if w is above that edge (cell_top >> (63 - l): the edge's
 * 64-bit mantissa, shifted to the octave, exact as a shift floors).
 */
#define SH_CELL_BITS 5
#define SH_CELLS (1 << SH_CELL_BITS)
/*
 * At schema 0 each octave holds one edge, at the same mantissa (the
 * edges are 1e9 ns times powers of two): 1e9's, with its leading one at
 * bit 63. The bucket is then (l - 9) plus one above it, with no cell.
 */
#define SH_EDGE_1S_MANT 0xee6b280000000000ULL

/* Key id of the overflow entry that takes new keys once the map is full. */
#define SH_OTHER_ID (~0ULL)

/*
 * What is measured; the man page's METRICS section defines each exactly.
 * One run measures any subset of them with one sched_switch program.
 */
enum sh_metric {
	SH_METRIC_OFFCPU = 0,	/* switch-out to the same task's next switch-in */
	SH_METRIC_RUNQ = 1,	/* runnable (woken, or preempted) to switch-in */
	SH_METRIC_BLOCKED = 2,	/* switch-out while not runnable to runnable again */
	SH_METRIC_NR = 3,
};

/*
 * Metric sets with a sched_switch program of their own, compiled for them
 * (sched_info method only): the poller loads it instead of the program
 * for any configuration, which tests the settings at run time.
 */
#define SH_SWITCH_RUNQ (1U << SH_METRIC_RUNQ)
#define SH_SWITCH_OFFCPU (1U << SH_METRIC_OFFCPU)
#define SH_SWITCH_ALL ((1U << SH_METRIC_NR) - 1)
/*
 * ... and each of them once more for the plain runs: key none or cpu, no
 * -p or -c filter, no --culprits, no --stacks.
 */
#define SH_SWITCH_PLAIN (1U << 8)
/* ... and runq by the wakeup method (plain and not), for the fallback */
#define SH_SWITCH_WAKEUP (1U << 9)
/* ... and runq with --culprits --culprit-mode time (the others have none of its code) */
#define SH_SWITCH_CULPRIT_TIME (1U << 10)
/* the program for any configuration (it tests the settings at run time) */
#define SH_SWITCH_ANY (1U << 11)
/*
 * ... and --causes, for every metric set with runq (sched_info method):
 * only these have its code, so the programs without it stay as they are;
 * they test --culprits and --culprit-mode at run time (so --causes goes
 * with either mode)
 */
#define SH_SWITCH_CAUSES (1U << 12)

/*
 * The sched_switch programs compiled for one configuration each, as
 * X(name suffix, configuration bits): bpf/schedhist.bpf.c defines
 * schedhist_switch_<suffix> for each line, user/kernel/loader.c loads the one
 * whose bits match the run's. A new variant is one line here.
 */
#define SH_SWITCH_VARIANTS(X)							\
	X(runq, SH_SWITCH_RUNQ)							\
	X(offcpu, SH_SWITCH_OFFCPU)						\
	X(all, SH_SWITCH_ALL)							\
	X(runq_plain, SH_SWITCH_RUNQ | SH_SWITCH_PLAIN)				\
	X(offcpu_plain, SH_SWITCH_OFFCPU | SH_SWITCH_PLAIN)			\
	X(all_plain, SH_SWITCH_ALL | SH_SWITCH_PLAIN)				\
	X(runq_wakeup, SH_SWITCH_RUNQ | SH_SWITCH_WAKEUP)			\
	X(runq_wakeup_plain, SH_SWITCH_RUNQ | SH_SWITCH_WAKEUP | SH_SWITCH_PLAIN)	\
	X(runq_culprit_time, SH_SWITCH_RUNQ | SH_SWITCH_CULPRIT_TIME)			\
	X(runq_causes, SH_SWITCH_RUNQ | SH_SWITCH_CAUSES)				\
	X(offcpu_runq_causes, SH_SWITCH_OFFCPU | SH_SWITCH_RUNQ | SH_SWITCH_CAUSES)	\
	X(runq_blocked_causes, SH_SWITCH_RUNQ | (1U << SH_METRIC_BLOCKED) | SH_SWITCH_CAUSES) \
	X(all_causes, SH_SWITCH_ALL | SH_SWITCH_CAUSES)

/* How run-queue waits (and so blocked = offcpu - runq) are measured. */
enum sh_method {
	/*
	 * The kernel's own per-task accounting (CONFIG_SCHED_INFO): at
	 * switch-in, sched_info.last_queued against the run queue's clock,
	 * plus the run_delay accrued by migrations since the last switch-in.
	 * No wakeup program; every time is the run queue clock (rq->clock).
	 */
	SH_METHOD_SCHED_INFO = 0,
	/*
	 * Fallback: sched_wakeup/sched_wakeup_new programs stamp the wakeup;
	 * every time is the clock of enum sh_clock.
	 */
	SH_METHOD_WAKEUP = 1,
};

/* The clock every time of a run is read from: one domain end to end. */
enum sh_clock {
	/*
	 * The run queue clock of the CPU concerned (rq->clock, reached as
	 * task->se.cfs_rq->rq, CONFIG_FAIR_GROUP_SCHED), the clock
	 * sched_info uses, updated by the scheduler just before each
	 * tracepoint this program reads it at: a load, no helper call
	 */
	SH_CLOCK_RQ = 0,
	/* bpf_ktime_get_ns() (CLOCK_MONOTONIC): the wakeup method's where rq->clock is not */
	SH_CLOCK_KTIME = 1,
};

/* What the histograms are keyed by. */
enum sh_key_type {
	SH_KEY_NONE = 0,	/* one system-wide histogram */
	SH_KEY_COMM = 1,	/* task name (task_struct::comm) */
	SH_KEY_PID = 2,		/* thread group id (the process) */
	SH_KEY_TID = 3,		/* task id (the thread) */
	SH_KEY_CPU = 4,		/* CPU the task was switched in on */
	SH_KEY_CGROUP = 5,	/* cgroup id (v2, or a v1 controller's hierarchy) */
	/*
	 * PID namespace (its inode number, as /proc/PID/ns/pid shows it):
	 * the task's nsproxy's pid_ns_for_children, as runqlat --pidnss
	 * reads it; the task's own but for one that unshared CLONE_NEWPID
	 * itself (its children's, there)
	 */
	SH_KEY_PIDNS = 6,
};

/* Which cgroup hierarchy -k cgroup, --cgroup-depth and -c look at. */
#define SH_CGROUP_V2 (-1)	/* the unified (v2) hierarchy: css_set::dfl_cgrp */
/* 0..SH_CGROUP_SUBSYS_MAX-1: a v1 controller, by its cgroup_subsys_id */
#define SH_CGROUP_SUBSYS_MAX 32

/*
 * Key of the histogram hash map. @id holds the pid, tid, cpu or cgroup id
 * (0 for the comm key), @comm the task name for the comm key (zero
 * otherwise). Two entries are made by the poller before attaching and
 * have an empty @comm: [other] (@id == SH_OTHER_ID) takes new keys once
 * the map is full; [exited] (@id == SH_EXITED_ID) takes the counts of
 * keys the kernel reclaims when their task or cgroup is gone.
 */
struct sh_key {
	__u64 id;
	char comm[SH_COMM_LEN];
};

/* Key id of the entry that folds the keys of exited tasks and removed cgroups. */
#define SH_EXITED_ID (~0ULL - 1)

/*
 * Keys (-k comm, pid, tid, cgroup) live each in a slot of the key store
 * (one entry of histograms for all CPUs, written through each CPU's
 * cache of it, mapped by the poller, found with no hash lookup: a task
 * keeps its slot's index); the key map (a per-CPU hash) holds [other]
 * and [exited]. The key directory (a hash, key ->
 * slot index, or SH_SLOT_HASH for a key of the key map) says where each
 * key is, so that no key is ever in both. A free slot's key
 * (slot_keys) has the id SH_FREE_ID, which no task's key has. How keys
 * are made, marked, folded and freed: docs/key-lifecycle.md.
 */
#define SH_SLOT_HASH 0xffffffffU
#define SH_FREE_ID (~0ULL - 3)

/*
 * The longest wait of one epoch, and who had it; and the shortest. An epoch is the time
 * between two readings by the poller.
 */
struct sh_max {
	__u64 ns;			/* longest wait, ns */
	__u64 min_ns;			/* shortest wait of the same epoch, ns (exact) */
	__u32 epoch;			/* epoch it belongs to */
	__u32 tid;			/* task that had it: tid ... */
	__u32 pid;			/* ... its thread group id ... */
	__u32 cpu;			/* ... CPU it was switched in on ... */
	char comm[SH_COMM_LEN];		/* ... and its name */
};

/*
 * sh_hist::birth: bit 31 marks a key whose task or cgroup is gone, bit 30
 * (the store entry's, or CPU 0's copy in the key map) a key being folded
 * into [exited]; the rest is the id.
 */
#define SH_BIRTH_DEAD 0x80000000U
#define SH_BIRTH_FOLDING 0x40000000U
#define SH_BIRTH_ID 0x3fffffffU

/*
 * One histogram, as kept per CPU. A value of the key map is one sh_hist
 * per metric measured, in enum order, SH_HIST_SIZE() apart (the poller
 * sets the value size).
 *
 * Counters are 32 bits per CPU and cumulative: they wrap. The poller sums
 * the CPUs and takes differences modulo 2^32 into 64-bit totals, which is
 * exact as long as fewer than 2^32 waits are recorded (over all CPUs
 * together) between two readings. The poller reads at least every
 * SH_READ_PERIOD_S seconds whatever the interval, and sooner when the
 * event rate it measures (the 64-bit seen counters) would reach 2^31
 * events in that time; it checks the bound at every reading and says so
 * if it was ever exceeded.
 *
 * The max is per epoch: the poller advances sh_epoch, then reads. Epoch E
 * keeps its max in max[E & 1], so waits recorded after the advance (in
 * epoch E + 1, the other parity) cannot overwrite it before it is read; a
 * max[] entry whose epoch is not the one being read is stale.
 */
struct sh_hist {
	__u32 count;			/* waits recorded (the sum of @buckets) */
	/*
	 * First histogram of a key-map value only: the key's incarnation
	 * (SH_BIRTH_ID bits, set on the creating CPU's copy, 0 on the
	 * others), so the poller tells a key that was reclaimed and made
	 * anew since its last reading from one that only grew; and
	 * SH_BIRTH_DEAD, set when the key's task or cgroup went away and the
	 * kernel left the key to the poller to remove.
	 */
	__u32 birth;
	__u64 sum_ns;			/* sum of waits, ns (64-bit: 584 years) */
	struct sh_max max[2];		/* per-epoch max, by epoch parity */
	char comm[SH_COMM_LEN];		/* pid/tid keys: latest name of the task */
	__u32 buckets[];		/* waits per bucket of the grid above: SH_NBUCKETS(schema) */
};

/*
 * Bytes of one sh_hist of @nb buckets, 8-aligned: the maps' values are
 * sized by the schema (the loader sets them), a value holds one per
 * metric measured, this far apart.
 */
#define SH_HIST_SIZE(nb) ((sizeof(struct sh_hist) + 4 * (nb) + 7) / 8 * 8)

/*
 * The key store: one entry per slot (a histogram per
 * metric, for all CPUs together), which the CPUs' caches flush into with
 * atomic adds (bpf/store.bpf.h). Each slot has a header in slot_seq:
 * @seq, low 32 bits the flushes into the slot under way, high 32 bits the
 * flushes done (a reader that sees the same @seq, with none under way,
 * before and after reading the slot and the caches saw no flush move
 * counts between them); @lock, the try-lock of the slot's max records.
 */
struct sh_slot_seq {
	__u64 seq;
	__u32 lock;
	__u32 pad;
};
#define SH_SEQ_OPEN 1ULL			/* added when a flush begins */
#define SH_SEQ_CLOSE ((1ULL << 32) - 1)	/* added when it ends: done + 1, under way - 1 */
#define SH_SEQ_BUSY 0xffffffffULL		/* mask of the flushes under way */

/*
 * One entry of a CPU's cache of histograms (the cache map: SH_CACHE
 * entries per possible CPU by default, CPU c's entries from c * entries,
 * direct-mapped by slot index). Written by its CPU with plain increments
 * (a hit); its counts move into the slot's store entry when another slot
 * takes its place (a miss) or when the slot's key is reclaimed. @idx: the
 * slot it caches, or one of the markers below; then a histogram per
 * metric, SH_HIST_SIZE(nbuckets) apart (the poller sets the value size).
 */
struct sh_cent {
	__u32 idx;
	__u32 pad;
	__u64 h[];
};
/* Bytes of a cache entry holding @nmetrics histograms of @nb buckets (the cache map's value size). */
#define sh_cent_size(nmetrics, nb) (8 + (nmetrics) * SH_HIST_SIZE(nb))
#define SH_CENT_EMPTY 0xffffffffU	/* caches no slot */
#define SH_CENT_FLUSHING 0xfffffffeU	/* its CPU is moving the counts to the store */
#define SH_CENT_CLAIMED 0xfffffffdU	/* a reclaim is moving them (another CPU, the poller) */
/* Cache entries per CPU by default (a power of two); SCHEDHIST_CACHE_ENTRIES overrides. */
#define SH_CACHE 16

/* The poller reads the maps at least this often, whatever -i says. */
#define SH_READ_PERIOD_S 10

/*
 * Per-CPU event counters, one set per metric. An "event" is one candidate
 * measurement: a switch-in of a non-idle task (for blocked: one whose
 * switch-out was a sleep, or that schedhist has not seen switch out).
 * Identity, exact once the programs are detached:
 *   seen == sum of all histogram counts + no_start + filtered + dropped
 *           + clock_skew
 * map_full and no_mem events are part of the histogram counts (in the
 * [other] entry, which gets exactly those).
 */
enum sh_stat {
	SH_STAT_SEEN = 0,	/* events that reached the histogram path */
	SH_STAT_NO_START = 1,	/* no start known (first seen since attach...) */
	SH_STAT_FILTERED = 2,	/* task outside the -p / -c filter */
	SH_STAT_DROPPED = 3,	/* histogram update failed (never expected) */
	SH_STAT_MAP_FULL = 4,	/* recorded under [other]: the key map was full */
	/*
	 * recorded under [other]: the kernel had no memory for a new key at
	 * that moment, its key map entry or its key directory entry (E2BIG
	 * is full; this is ENOMEM: without preallocation,
	 * new elements come from per-CPU caches refilled asynchronously,
	 * which can run dry for a moment)
	 */
	SH_STAT_NO_MEM = 5,
	/*
	 * the wait's end was stamped earlier than its start: the clocks of
	 * two CPUs disagreed (the run queue clocks are per CPU); not recorded
	 */
	SH_STAT_CLOCK_SKEW = 6,
	/*
	 * not an event: switch-ins the kernel accounted (pcount) that the
	 * sched_switch program did not see (sched_info method, every
	 * metric); a runq wait of one is part of the next one recorded for
	 * that task, an offcpu or blocked wait of one is lost
	 */
	SH_STAT_MERGED = 7,
	SH_STAT_NR = 8,
};

/*
 * --culprits. Key of the culprit map: the key a run-queue wait was
 * recorded under (@waiter, as in the key map, [other] included) and the
 * key, of the same type, of the task that held the CPU when the waiting
 * task got it (@culprit: the prev of the switch that ended the wait), or
 * SH_IDLE_ID when that CPU was idle.
 */
struct sh_culprit_key {
	struct sh_key waiter;
	struct sh_key culprit;
};

/* Culprit id of the idle task: the CPU was idle when the wait ended. */
#define SH_IDLE_ID (~0ULL - 2)

/*
 * --culprit-mode time: culprit id of the part of a wait that the CPU's
 * run ring (struct sh_run_ring) no longer holds, or never saw (its runs
 * before the program attached): counted, never given to a task.
 */
#define SH_UNATTRIBUTED_ID (~0ULL - 4)

/* How --culprits blames a run-queue wait (--culprit-mode). */
enum sh_culprit_mode {
	/* the whole wait, on the task the switch that ends it switches out */
	SH_CULPRIT_SWITCH = 0,
	/* each task that ran on the CPU during the wait, for the time it ran */
	SH_CULPRIT_TIME = 1,
};

/* --culprit-mode time: one run of a task on a CPU, [start, end) on its run queue's clock. */
struct sh_run {
	__u64 start, end;
	struct sh_key key;		/* the task's key, SH_IDLE_ID for the idle task */
	char comm[SH_COMM_LEN];		/* pid/tid keys: the task's name */
};

/* Runs each CPU keeps (a power of two): a wait is blamed on up to this many. */
#define SH_RUN_RING 512

/*
 * --culprit-mode time: a CPU's last SH_RUN_RING runs, written at each of
 * its switches (the run of the task switched out); @head counts the runs
 * written, runs[(head - 1) % SH_RUN_RING] is the latest.
 */
struct sh_run_ring {
	__u64 cur_start;		/* start of the run in progress, 0 before the first switch */
	__u64 head;
	/* the kernel's scratch of the walk at a wait's end (off the stack: 6.1's 512 bytes) */
	struct {
		struct sh_culprit_key pair;	/* the waiter, and each run's key in turn */
		__u64 t0, now;			/* the wait */
		__u64 covered;			/* the part of it blamed on runs so far */
	} walk;
	struct sh_run runs[SH_RUN_RING];
};

/*
 * Value of the culprit map (shared by the CPUs: atomic adds);
 * cumulative, 64-bit: never wraps.
 */
struct sh_culprit_val {
	__u64 count;			/* waits that ended behind the culprit */
	__u64 sum_ns;			/* their sum, ns */
	char comm[SH_COMM_LEN];		/* pid/tid keys: the culprit's latest name */
};

/*
 * --culprits: one entry of a CPU's pair cache (struct sh_pcpu::ccache).
 * A CPU's run-queue waits keep coming behind the same few (waiter,
 * culprit) pairs, so each CPU adds its waits to a small direct-mapped
 * cache of pairs and moves an entry's count and sum into the culprit map
 * only when another pair takes its place: most waits cost no map
 * operation. A pair's total is its map value plus every CPU's cache
 * entry for it. The poller reads the map first, then the caches: a count
 * that moves in between is missed by that reading and found by the next
 * one (in the map), never seen twice, so the totals it sees only grow.
 * @v.count 0: empty.
 */
struct sh_culprit_ent {
	struct sh_culprit_key key;
	struct sh_culprit_val v;
};

/* Entries of a CPU's pair cache: a power of two. */
#define SH_CCACHE 16

/*
 * Value of the per-CPU array (one element): the counters and, for key
 * "none" and for key "cpu", the histograms themselves (one per metric
 * measured, in enum order, as in a key-map value), so that those keys
 * cost a single map lookup per event.
 */
struct sh_pcpu {
	__u64 stats[SH_METRIC_NR][SH_STAT_NR];
	__u64 reclaimed;		/* keys the kernel folded into [exited] */
	/*
	 * --culprits: runq waits whose (key, culprit) entry could not be
	 * made (culprit map full); the poller counts them under [rest]
	 */
	__u64 culprit_lost;
	__u64 cache_hit;		/* keyed switch-ins whose slot was in this CPU's cache */
	__u64 cache_miss;		/* ... and whose was not (an entry taken, its counts flushed) */
	/*
	 * a flushed entry's max or min that was not merged into the store:
	 * its lock stayed taken (another flusher of the slot stalled)
	 */
	__u64 max_lost;
	/*
	 * --stacks: a wait longer than the stack kept for its key, metric
	 * and epoch whose stack was not taken: another CPU held the entry's
	 * lock (was writing a stack there)
	 */
	__u64 stack_lost;
	struct sh_culprit_ent ccache[SH_CCACHE];	/* --culprits: see above */
	/*
	 * one sh_hist per metric measured, SH_HIST_SIZE(nbuckets) apart: room
	 * for the finest grid (per CPU, not per key: a few kB)
	 */
	__u64 hist[SH_METRIC_NR * SH_HIST_SIZE(SH_NBUCKETS_MAX) / 8];
};

/*
 * --stacks: kernel stack frames kept of the task that had an epoch's
 * longest wait (innermost first); text shows the first SH_TEXT_FRAMES
 * (user/output/render_extra.h), JSON all of them.
 */
#define SH_STACK_DEPTH 24

/*
 * One captured stack: of the task whose wait of @ns became the max of
 * epoch @epoch for its key, taken at the switch-in that ended the wait
 * (the task's kernel stack is still as it was at its switch-out).
 */
struct sh_stack {
	__u64 ns;			/* the max it belongs to (sh_max::ns) */
	__u32 epoch;			/* ... and its epoch */
	__u32 nr;			/* frames in @ip */
	/*
	 * 1 while a CPU writes this stack (a try-lock, cmpxchg 0 -> 1): the
	 * poller does not use a stack read with it set
	 */
	__u32 lock;
	__u32 pad;
	__u64 ip[SH_STACK_DEPTH];	/* return addresses, innermost first */
};

/*
 * Value of the stack map (keyed like the key map, one entry shared by
 * the CPUs): one stack per metric and epoch parity, as sh_hist::max.
 */
struct sh_stacks {
	struct sh_stack s[SH_METRIC_NR][2];
};

/*
 * --causes: what each run-queue wait was spent behind, on the CPU it
 * waited on (man page, METRICS, "Causes"; include/cause_split.h computes
 * it). The causes of one wait add up to the wait, exactly.
 */
enum sh_cause {
	SH_CAUSE_SELF = 0,	/* tasks of the waiter's CPU cgroup (-k pid: its process) */
	SH_CAUSE_NEIGHBOUR = 1,	/* every other task that is not a kernel thread */
	SH_CAUSE_KERNEL = 2,	/* kernel threads (PF_KTHREAD) */
	SH_CAUSE_THROTTLED = 3,	/* the waiter's cfs_rq throttled by its CFS quota */
	SH_CAUSE_STEAL = 4,	/* hypervisor steal on that CPU (rq->prev_steal_time) */
	/*
	 * the rest: the CPU idle, a wait that migrated (its part on other
	 * CPUs), a wait whose start the program did not see
	 */
	SH_CAUSE_OTHER = 5,
	SH_CAUSE_NR = 6,
};

/*
 * Value of the cause map (keyed like the key map, [other] included; one
 * entry shared by the CPUs: atomic adds): cumulative, 64-bit, never wraps.
 */
struct sh_causes {
	__u64 ns[SH_CAUSE_NR];		/* waited ns per cause */
	__u64 count;			/* runq waits split */
};

#endif /* SCHEDHIST_H */
