/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by the profile's kernel side (bpf/profile.bpf.c) and its
 * poller (user/profile/profile.c): wait time and count per (task, kernel stack,
 * user stack), summed in the kernel, read and diffed every interval.
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

/* The stacks the profile takes (--profile-stacks): bits of stack_kinds. */
#define SH_PROF_STACK_KERNEL 1	/* the kernel stack, bpf_get_stackid() */
#define SH_PROF_STACK_USER 2	/* the user stack, by frame pointers */

/* A stack id below 0: no stack in the stack map. */
#define SH_PROF_NO_USER (-1)	/* a kernel thread: it has no user stack */
#define SH_PROF_LOST (-2)	/* not in the stack map: full, its hash bucket held
				 * another stack (no BPF_F_REUSE_STACKID: ids stay
				 * valid), or the walk failed */
#define SH_PROF_NOT_TAKEN (-3)	/* --profile-stacks did not ask for this stack */

/* One profile entry's key: a task and where it left the CPU. */
struct sh_prof_key {
	__u32 tgid;		/* process */
	__u32 pid;		/* thread */
	__u64 start_ns;		/* the process's start, ns of CLOCK_BOOTTIME (its
				 * /proc/PID/stat starttime in ns): which process
				 * of a reused tgid */
	__u32 exec_id;		/* the process's execve() count: which program */
	__s32 kstack;		/* stack map id of the kernel stack, or SH_PROF_* */
	__s32 ustack;		/* stack map id of the user stack, or SH_PROF_* */
	__u32 pad;		/* zero: the key has no holes (and @comm is 8-aligned) */
	char comm[16];		/* the task's name when it came back */
};

/* Its value: the waits of the metric that ended, since load (cumulative). */
struct sh_prof_val {
	__u64 wait_ns;		/* sum of the waits */
	__u64 count;		/* number of waits */
};

/* Counters of the per-CPU counter array, every event accounted for. */
enum sh_prof_counter {
	SH_PROF_SEEN = 0,	/* waits of the metric that ended (switch-ins) */
	SH_PROF_RECORDED = 1,	/* ... added to the profile map */
	SH_PROF_MAP_FULL = 2,	/* ... not added: the profile map was full */
	SH_PROF_KSTACK_LOST = 3, /* switch-outs whose kernel stack did not fit */
	SH_PROF_USTACK_LOST = 4, /* switch-outs whose user stack did not fit */
	SH_PROF_NR = 5,
};

struct sh_prof_counters {
	__u64 c[SH_PROF_NR];
	__u64 map_full_ns;	/* the wait time of the SH_PROF_MAP_FULL waits */
};

/* An execve() of a traced process (bpf/profile_execs.bpf.c's ring buffer). */
struct sh_prof_exec {
	__u32 tgid;
	__u32 exec_id;		/* its execve() count after it, as in sh_prof_key */
	__u64 start_ns;		/* its start, as in sh_prof_key */
	__u64 time_ns;		/* when (CLOCK_MONOTONIC, bpf_ktime_get_ns()) */
};

#endif /* SH_PROFILE_H */
