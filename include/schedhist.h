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
 * Number of log2 buckets of nanoseconds. Bucket 0 is [0, 2) ns, bucket i is
 * [2^i, 2^(i+1)) ns, and the last one, [2^39 ns (~550 s), inf), is open-ended.
 */
#define SH_NBUCKETS 40

/* Key id of the overflow entry that takes new keys once the map is full. */
#define SH_OTHER_ID (~0ULL)

/* What is measured; the man page's METRICS section defines each exactly. */
enum sh_metric {
	SH_METRIC_OFFCPU = 0,	/* switch-out to the same task's next switch-in */
	SH_METRIC_RUNQ = 1,	/* runnable (wakeup or preempted) to switch-in */
	SH_METRIC_BLOCKED = 2,	/* switch-out while not runnable to wakeup */
};

/* What the histograms are keyed by. */
enum sh_key_type {
	SH_KEY_NONE = 0,	/* one system-wide histogram */
	SH_KEY_COMM = 1,	/* task name (task_struct::comm) */
	SH_KEY_PID = 2,		/* thread group id (the process) */
	SH_KEY_TID = 3,		/* task id (the thread) */
	SH_KEY_CPU = 4,		/* CPU the task was switched in on */
	SH_KEY_CGROUP = 5,	/* cgroup id (v2, or a v1 controller's hierarchy) */
};

/* Which cgroup hierarchy -k cgroup, --cgroup-depth and -c look at. */
#define SH_CGROUP_V2 (-1)	/* the unified (v2) hierarchy: css_set::dfl_cgrp */
/* 0..SH_CGROUP_SUBSYS_MAX-1: a v1 controller, by its cgroup_subsys_id */
#define SH_CGROUP_SUBSYS_MAX 32

/*
 * Key of the histogram hash map. @id holds the pid, tid, cpu or cgroup id
 * (0 for the comm key), @comm the task name for the comm key (zero
 * otherwise). The overflow entry has @id == SH_OTHER_ID and an empty @comm.
 */
struct sh_key {
	__u64 id;
	char comm[SH_COMM_LEN];
};

/*
 * The longest wait of one epoch, and who had it. An epoch is the time
 * between two readings by the poller.
 */
struct sh_max {
	__u64 ns;			/* longest wait, ns */
	__u32 epoch;			/* epoch it belongs to */
	__u32 tid;			/* task that had it: tid ... */
	__u32 pid;			/* ... its thread group id ... */
	__u32 cpu;			/* ... CPU it was switched in on (woken on, blocked) */
	char comm[SH_COMM_LEN];		/* ... and its name */
};

/*
 * One histogram, as kept per CPU. The poller sums the CPUs. Counters are
 * 32 bits and cumulative: they wrap, and the poller takes differences
 * modulo 2^32, which is exact as long as no single counter moves by 2^32
 * within one interval (one CPU cannot switch that often in an hour).
 * The max is per epoch: the poller advances sh_epoch, then reads. Epoch E
 * keeps its max in max[E & 1], so waits recorded after the advance (in
 * epoch E + 1, the other slot) cannot overwrite it before it is read; a
 * slot whose epoch is not the one being read is stale.
 */
struct sh_hist {
	__u32 slots[SH_NBUCKETS];	/* log2 buckets of wait, in ns */
	__u32 count;			/* waits recorded (the sum of @slots) */
	__u32 pad;			/* keeps @sum_ns 8-byte aligned */
	__u64 sum_ns;			/* sum of waits, ns (never wraps in practice) */
	struct sh_max max[2];		/* per-epoch max, by epoch parity */
	char comm[SH_COMM_LEN];		/* pid/tid keys: latest name of the task */
};

/*
 * Per-CPU event counters. An "event" is one candidate measurement: a
 * switch-in of a non-idle task (offcpu, runq) or a wakeup (blocked).
 * Identity, exact once the programs are detached:
 *   seen == sum of all histogram counts + no_start + filtered + dropped
 * map_full and no_mem events are part of the histogram counts (in the
 * [other] entry, which gets exactly those).
 */
enum sh_stat {
	SH_STAT_SEEN = 0,	/* events that reached the histogram path */
	SH_STAT_NO_START = 1,	/* no start timestamp (first seen since attach...) */
	SH_STAT_FILTERED = 2,	/* task outside the -p / -c filter */
	SH_STAT_DROPPED = 3,	/* histogram update failed (never expected) */
	SH_STAT_MAP_FULL = 4,	/* recorded under [other]: the key map was full */
	/*
	 * recorded under [other]: the kernel had no memory for a new key at
	 * that moment (E2BIG is full; this is ENOMEM: without preallocation,
	 * new elements come from per-CPU caches refilled asynchronously,
	 * which run dry for a moment under heavy task churn)
	 */
	SH_STAT_NO_MEM = 5,
	SH_STAT_NR = 6,
};

/*
 * Value of the per-CPU array (one element): the counters and, for key
 * "none" and for key "cpu" with offcpu/runq, the histogram itself, so that
 * those keys cost a single map lookup per event.
 */
struct sh_pcpu {
	__u64 stats[SH_STAT_NR];
	__u64 pad;
	struct sh_hist hist;
};

#endif /* SCHEDHIST_H */
