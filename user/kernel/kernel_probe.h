/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What this kernel and this process offer, from the kernel's BTF, procfs
 * and the capability sets: asked before anything is loaded (a host it
 * cannot run on is a usage error) and by the loader.
 */
#ifndef SH_KERNEL_PROBE_H
#define SH_KERNEL_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

/* Task table entries at most (48 B each: 1.5 MiB); see bpf/task_state.bpf.h "tasks". */
#define SH_TASK_ENTRIES_MAX 32768U
/* The tracepoints a run attaches to, by program. */
struct tp {
	const char *name;		/* tracepoint */
	bool want;			/* this run needs it */
};

/*
 * What loading needs from the host and the process, checked before
 * anything is loaded: the kernel's BTF and the capabilities CAP_BPF and
 * CAP_PERFMON (or CAP_SYS_ADMIN). 0, or -1 after one line naming what is
 * missing.
 */
int probe_preflight(void);

/*
 * Which method the running kernel allows for run-queue waits: its BTF
 * has task_struct::sched_info (last_queued, run_delay, pcount) and the
 * run queue clock through se.cfs_rq->rq->clock. SH_METHOD_SCHED_INFO or
 * SH_METHOD_WAKEUP; @why says what is missing for the former. *@clock:
 * SH_CLOCK_RQ where that clock is reachable (the wakeup method then
 * reads it too), else SH_CLOCK_KTIME.
 */
int probe_method(const char **why, int *clock);

/* The cgroup_subsys_id of v1 controller @name from kernel BTF, or -1. */
int probe_cgroup_subsys_id(const char *name);

struct btf;
/* Does struct @sname in @btf (a kernel's BTF) have member @mname? */
bool has_member(const struct btf *btf, const char *sname, const char *mname);

/*
 * After a failed load: the first of the @n tracepoints the run wants that
 * the kernel's BTF lacks (tp_btf programs attach through its
 * btf_trace_NAME typedef), or NULL if they are all there.
 */
const char *probe_missing_tracepoint(const struct tp *tps, int n);

/*
 * Entries of the task table: the power of two at or above the kernel's
 * pid_max, at most SH_TASK_ENTRIES_MAX.
 */
__u32 probe_task_table_size(void);

#endif /* SH_KERNEL_PROBE_H */
