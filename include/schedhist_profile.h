/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by the profile's kernel side (bpf/profile.bpf.c) and its
 * poller (user/profile/): estimated wait time, sampled waits and their
 * own time per (task, kernel stack, user stack), summed in the kernel,
 * read and diffed every interval.
 */
#ifndef SH_PROFILE_H
#define SH_PROFILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames kept per stack: the kernel's PERF_MAX_STACK_DEPTH, as offcputime. */
#define SH_PROF_DEPTH 127
/* Profile entries the kernel keeps unless --max-keys says otherwise. */
#define SH_PROF_MAX_ENTRIES 10240
/* Kernel stacks the kernel keeps: distinct kernel paths, few, apart from user churn. */
#define SH_PROF_KSTACKS 8192

/* The stacks the profile takes (--profile-stacks): bits of stack_kinds. */
#define SH_PROF_STACK_KERNEL 1	/* the kernel stack, bpf_get_stack() */
#define SH_PROF_STACK_USER 2	/* the user stack, by frame pointers */

/*
 * Sampling probabilities are fixed point, SH_PROF_P_ONE being 1: a wait
 * is walked when 20 random bits fall below its P, and weighted by
 * SH_PROF_P_ONE / P (Horvitz-Thompson), which is exact in this unit.
 */
#define SH_PROF_P_BITS 20
#define SH_PROF_P_ONE (1U << SH_PROF_P_BITS)
/* --profile-sample's default: waits expected to last this long are all walked */
#define SH_PROF_SAMPLE_NS 1000000ULL
/* ... and shorter ones with P proportional to their expected length, at least this */
#define SH_PROF_P_MIN (SH_PROF_P_ONE / 64)
/*
 * ... or this after a preemption: its wait is the run queue's, which a
 * loaded host can stretch far past the task's habit (a long wait sampled
 * with a small P is a large weight); preemptions are few where switches
 * are many (blocking I/O), so the floor costs little
 */
#define SH_PROF_P_MIN_PREEMPTED (SH_PROF_P_ONE / 4)

/* A stack id that is no stack: the ids of real stacks are hashes of their frames. */
#define SH_PROF_NO_USER ((__u64)-1)	/* a kernel thread: it has no user stack */
#define SH_PROF_LOST ((__u64)-2)	/* the walk failed or its stack map was full */
#define SH_PROF_NOT_TAKEN ((__u64)-3)	/* --profile-stacks did not ask for this stack */
#define SH_PROF_ID_MAX ((__u64)-4)	/* real ids are below this */

/* One profile entry's key: a task and where it left the CPU. */
struct sh_prof_key {
	__u32 tgid;		/* process */
	__u32 pid;		/* thread */
	__u64 start_ns;		/* the process's start, ns of CLOCK_BOOTTIME (its
				 * /proc/PID/stat starttime in ns): which process
				 * of a reused tgid */
	__u32 exec_id;		/* the process's execve() count: which program */
	__u32 pad;		/* zero: the key has no holes */
	__u64 kstack;		/* kstacks map key of the kernel stack, or SH_PROF_* */
	__u64 ustack;		/* ustacks map key of the user stack, or SH_PROF_* */
	char comm[16];		/* the task's name when it came back */
};

/* Its value: the sampled waits of the metric that ended, since load (cumulative). */
struct sh_prof_val {
	__u64 est_ns;		/* sum of wait x P_ONE / P: the estimated wait time */
	__u64 est_waits;	/* sum of P_ONE x P_ONE / P: estimated waits, x P_ONE */
	__u64 samples;		/* waits sampled (walked, then weighted) */
	__u64 sampled_ns;	/* their own time, unweighted */
};

/* One stack of the kstacks or ustacks map (a hash keyed by its frames' hash). */
struct sh_prof_stack {
	__u64 walked_ns;	/* bpf_ktime_get_ns() of its last walk: the poller's GC
				 * leaves a stack walked recently (a wait in flight) */
	__u64 ips[SH_PROF_DEPTH]; /* innermost first, 0 after the last */
};

/* Counters of the per-CPU counter array, every event accounted for. */
enum sh_prof_counter {
	SH_PROF_SEEN = 0,	/* waits of the metric that ended (switch-ins) */
	SH_PROF_RECORDED = 1,	/* ... sampled and added to the profile map, weighted */
	SH_PROF_MAP_FULL = 2,	/* ... sampled, not added: the profile map was full */
	SH_PROF_KSTACK_LOST = 3, /* walks whose kernel stack did not fit its map */
	SH_PROF_USTACK_LOST = 4, /* walks whose user stack did not fit its map */
	SH_PROF_WALKED = 5,	/* switch-outs sampled: their stacks walked */
	SH_PROF_NR = 6,
};

struct sh_prof_counters {
	__u64 c[SH_PROF_NR];
	__u64 seen_ns;		/* the exact time of the SH_PROF_SEEN waits */
	__u64 map_full_ns;	/* the estimated time of the SH_PROF_MAP_FULL waits */
};

/* An execve() of a traced process (a slot of bpf/profile_execs.bpf.c's exec_log). */
struct sh_prof_exec {
	__u64 seq;		/* 0 while written, then its log index + 1 (a seqlock) */
	__u32 tgid;
	__u32 exec_id;		/* its execve() count after it, as in sh_prof_key */
	__u64 start_ns;		/* its start, as in sh_prof_key */
	__u64 time_ns;		/* when (CLOCK_MONOTONIC, bpf_ktime_get_ns()) */
};

/*
 * Slots of the exec log (a power of two): execve() number i goes into
 * slot i % SH_PROF_EXEC_LOG, so the poller, which reads the log every few
 * milliseconds, misses (and counts) those overwritten before its reading.
 */
#define SH_PROF_EXEC_LOG 256

#endif /* SH_PROFILE_H */
