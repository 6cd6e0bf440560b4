// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --profile's exec watcher (user/profile/execwatch.c): at every execve()
 * of a traced task (-p, -c as bpf/profile.bpf.c filters them), the
 * process's new execve() count goes into exec_now (tgid -> count, what
 * the poller checks before and after it reads a program's maps: the maps
 * are that program's only if the count did not move) and an event into
 * the ring buffer, so that the poller reads a short-lived program's maps
 * while it runs. One event per execve(): nothing on the scheduler's path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "schedhist.h"
#include "schedhist_profile.h"
#include "cgroup.bpf.h"

#define RINGBUF 27		/* BPF_MAP_TYPE_RINGBUF */
#define LRU_HASH 9		/* BPF_MAP_TYPE_LRU_HASH */

struct linux_binprm;

/* the two task_struct fields read, as bpf/profile.bpf.c reads them */
struct task_struct___execs {
	struct task_struct___execs *group_leader;
	__u64 start_boottime;
	__u64 self_exec_id;
} __attribute__((preserve_access_index));

struct {
	__uint(type, RINGBUF);
	__uint(max_entries, 256 * 1024);
} exec_events SEC(".maps");

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

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (filter_cgid && !in_cgroup_subtree(p, cgroup_hier, filter_cgid, filter_cglevel))
		return 0;
	id = (__u32)leader->self_exec_id;
	bpf_map_update_elem(&exec_now, &tgid, &id, BPF_ANY);
	ev = bpf_ringbuf_reserve(&exec_events, sizeof(*ev), 0);
	if (!ev)
		return 0;	/* the poller is behind: that program's maps read late, or never */
	ev->tgid = tgid;
	ev->exec_id = id;
	ev->start_ns = leader->start_boottime;
	ev->time_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
