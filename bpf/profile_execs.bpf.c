// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --profile's exec watcher (user/profile/execwatch.c): at every execve()
 * of a traced task (-p, -c as bpf/profile.bpf.c filters them), the
 * process's new execve() count goes into exec_now (tgid -> count, what
 * the poller checks before and after it reads a program's maps: the maps
 * are that program's only if the count did not move) and a slot of
 * exec_log, a bounded log in global memory that the poller reads through
 * its mmap every few milliseconds, so that it reads a short-lived
 * program's maps while it runs. exec_head counts the execve()s: those more
 * than SH_PROF_EXEC_LOG behind it when the poller comes were overwritten,
 * and the poller counts them missed. Nothing on the scheduler's path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "schedhist.h"
#include "schedhist_profile.h"
#include "cgroup.bpf.h"

#define LRU_HASH 9		/* BPF_MAP_TYPE_LRU_HASH */

struct linux_binprm;

/* the two task_struct fields read, as bpf/profile.bpf.c reads them */
struct task_struct___execs {
	struct task_struct___execs *group_leader;
	__u64 start_boottime;
	__u64 self_exec_id;
} __attribute__((preserve_access_index));

/* execve() number i in slot i % SH_PROF_EXEC_LOG; exec_head: the number of the next */
struct sh_prof_exec exec_log[SH_PROF_EXEC_LOG];
__u64 exec_head;

/* tgid -> its execve() count; LRU: a process gone leaves its entry to be taken */
struct {
	__uint(type, LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} exec_now SEC(".maps");

const volatile __u32 filter_tgid = 0;		/* -p: 0 = every process */
const volatile int cgroup_hier = SH_CGROUP_V2;	/* -c's hierarchy */
const volatile __u64 filter_cgid = 0;		/* -c: subtree root, 0 = none */
const volatile __u32 filter_cglevel = 0;	/* -c: level of that root */

SEC("tp_btf/sched_process_exec")
int BPF_PROG(profile_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct task_struct___execs *leader = ((struct task_struct___execs *)p)->group_leader;
	struct sh_prof_exec *ev;
	__u32 tgid = p->tgid, id;
	__u64 idx;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (filter_cgid && !in_cgroup_subtree(p, cgroup_hier, filter_cgid, filter_cglevel))
		return 0;
	id = (__u32)leader->self_exec_id;
	bpf_map_update_elem(&exec_now, &tgid, &id, BPF_ANY);
	idx = __sync_fetch_and_add(&exec_head, 1);
	ev = &exec_log[idx & (SH_PROF_EXEC_LOG - 1)];
	/* a seqlock: 0 while written; the exchanges are full barriers on every JIT */
	__sync_lock_test_and_set(&ev->seq, 0);
	ev->tgid = tgid;
	ev->exec_id = id;
	ev->start_ns = leader->start_boottime;
	ev->time_ns = bpf_ktime_get_ns();
	__sync_lock_test_and_set(&ev->seq, idx + 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
