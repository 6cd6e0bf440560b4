/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What this kernel and process offer (BTF, procfs, capabilities), asked before loading. */
#ifndef SH_KERNEL_PROBE_H
#define SH_KERNEL_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

/* Task table entries at most (48 B each: 1.5 MiB); see bpf/task_state.bpf.h "tasks". */
#define SH_TASK_ENTRIES_MAX 32768U
struct tp {
	const char *name;		/* tracepoint */
	bool want;			/* this run needs it */
};

/* Check the kernel's BTF and CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) before loading. 0 or -1. */
int probe_preflight(void);

/*
 * The method the kernel allows for run-queue waits: SH_METHOD_SCHED_INFO if its BTF has
 * sched_info and the rq clock, else SH_METHOD_WAKEUP (@why). *@clock: SH_CLOCK_RQ or _KTIME.
 */
int probe_method(const char **why, int *clock);

/* The cgroup_subsys_id of v1 controller @name from kernel BTF, or -1. */
int probe_cgroup_subsys_id(const char *name);

struct btf;
bool has_member(const struct btf *btf, const char *sname, const char *mname);

/* After a failed load: the first wanted tracepoint the kernel's BTF lacks, or NULL. */
const char *probe_missing_tracepoint(const struct tp *tps, int n);

/* Task table entries: the power of two at or above pid_max, at most SH_TASK_ENTRIES_MAX. */
__u32 probe_task_table_size(void);

#endif /* SH_KERNEL_PROBE_H */
