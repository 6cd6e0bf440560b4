// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --profile: where tasks wait. Wait time and count per (task, kernel
 * stack, user stack), summed in the kernel; the poller reads the
 * cumulative map every interval and diffs it (nothing is streamed).
 * Only the tasks of -p and -c (a cgroup's subtree, cgroup.bpf.h) go on:
 * the test comes before anything else at every event below.
 *
 * switch-out (prev): the task's kernel and user stacks (those
 *   --profile-stacks asks for) go to the stack map (user stacks by frame
 *   pointers, BPF_F_USER_STACK: prev is still current here), their ids
 *   and the time into the task's local storage (no hash map: the storage
 *   hangs off the task). A wait the metric does not count (a preemption
 *   under -M blocked) takes no stack. The two walks are most of the cost
 *   (docs/profile-cost.md).
 * wakeup (only for runq and blocked): the time the task became runnable.
 * switch-in (next): the metric's wait of that off-CPU period is added to
 *   the profile map's entry of (task, process start, exec count, stacks):
 *   one hash lookup, or one insert for a new entry. The start and exec
 *   count tell the poller whose maps name the user frames (a reused tgid,
 *   a new program after execve()).
 * Bounded: the stack map and the profile map have fixed capacities (set
 * by the poller); a stack that does not fit is kept as SH_PROF_LOST, a
 * wait whose entry does not fit is counted with its time in the counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "schedhist.h"
#include "schedhist_profile.h"
#include "cgroup.bpf.h"

/* uapi constants vmlinux.h does not carry (include/uapi/linux/bpf.h) */
#define STACK_TRACE_MAP 7	/* BPF_MAP_TYPE_STACK_TRACE */
#define F_USER_STACK (1ULL << 8) /* BPF_F_USER_STACK */
#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define TASK_RUNNING 0

/*
 * task_struct's fields only the profile reads, through their own CO-RE
 * flavour; read directly (tp_btf's task pointers are BTF pointers: plain
 * loads, no bpf_probe_read_kernel() call per field)
 */
struct task_struct___prof {
	unsigned int flags;
	struct task_struct___prof *group_leader;
	__u64 start_boottime;	/* /proc/PID/stat's starttime, in ns */
	__u64 self_exec_id;	/* + 1 at every execve() */
} __attribute__((preserve_access_index));

const volatile __u32 metric = SH_METRIC_OFFCPU;	/* enum sh_metric */
const volatile __u32 filter_tgid = 0;		/* -p: 0 = every process */
const volatile int cgroup_hier = SH_CGROUP_V2;	/* -c's hierarchy (--cgroup-hier) */
const volatile __u64 filter_cgid = 0;		/* -c: subtree root, 0 = none */
const volatile __u32 filter_cglevel = 0;	/* -c: level of that root */
/* --profile-stacks: SH_PROF_STACK_* bits */
const volatile __u32 stack_kinds = SH_PROF_STACK_KERNEL | SH_PROF_STACK_USER;

/* A task's open off-CPU period. */
struct prof_task {
	__u64 out_ts;		/* switch-out time; 0 = nothing to count */
	__u64 wake_ts;		/* runnable since (runq, blocked); 0 = not woken yet */
	__s32 kstack;		/* stack ids taken at switch-out */
	__s32 ustack;
	__u32 preempted;	/* left the CPU runnable */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct prof_task);
} prof_task SEC(".maps");

/* max_entries: the poller's stack cap */
struct {
	__uint(type, STACK_TRACE_MAP);
	__uint(max_entries, 2 * SH_PROF_MAX_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SH_PROF_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* max_entries: --max-keys */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SH_PROF_MAX_ENTRIES);
	__type(key, struct sh_prof_key);
	__type(value, struct sh_prof_val);
} profile SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_prof_counters);
} counters SEC(".maps");

static __always_inline struct sh_prof_counters *counters_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/*
 * -p and -c: tested first at every event, so that a task outside them
 * costs no stack walk, no storage and no map entry
 */
static __always_inline bool traced(struct task_struct *p)
{
	if (!p->pid || (filter_tgid && p->tgid != filter_tgid))
		return false;
	return !filter_cgid || in_cgroup_subtree(p, cgroup_hier, filter_cgid, filter_cglevel);
}

/* @prev leaves the CPU: where it is now. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, unsigned int state)
{
	struct task_struct___prof *pf = (void *)prev;
	struct sh_prof_counters *c;
	bool preempted = state == TASK_RUNNING;
	struct prof_task *t;
	long id;

	if (metric == SH_METRIC_BLOCKED && preempted) {
		/* no blocked time to come: only close a stale period */
		t = bpf_task_storage_get(&prof_task, prev, 0, 0);
		if (t)
			t->out_ts = 0;
		return;
	}
	t = bpf_task_storage_get(&prof_task, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return;
	c = counters_get();
	if (!(stack_kinds & SH_PROF_STACK_KERNEL)) {
		id = SH_PROF_NOT_TAKEN;
	} else {
		id = bpf_get_stackid(ctx, &stacks, 0);
		if (id < 0) {
			id = SH_PROF_LOST;
			if (c)
				c->c[SH_PROF_KSTACK_LOST]++;
		}
	}
	t->kstack = id;
	if (!(stack_kinds & SH_PROF_STACK_USER)) {
		id = SH_PROF_NOT_TAKEN;
	} else if (pf->flags & PF_KTHREAD) {
		id = SH_PROF_NO_USER;
	} else {
		id = bpf_get_stackid(ctx, &stacks, F_USER_STACK);
		if (id < 0) {
			id = SH_PROF_LOST;
			if (c)
				c->c[SH_PROF_USTACK_LOST]++;
		}
	}
	t->ustack = id;
	t->preempted = preempted;
	t->wake_ts = 0;
	t->out_ts = bpf_ktime_get_ns();
}

/* The metric's part of the off-CPU period [out, now]. */
static __always_inline __u64 wait_of(const struct prof_task *t, __u64 now)
{
	__u64 runnable;

	if (metric == SH_METRIC_OFFCPU)
		return now - t->out_ts;
	/* runnable from the switch-out if preempted, else from the wakeup */
	runnable = t->preempted || t->wake_ts < t->out_ts ? t->out_ts : t->wake_ts;
	if (runnable > now)
		runnable = now;
	return metric == SH_METRIC_RUNQ ? now - runnable : runnable - t->out_ts;
}

/* @next comes back: its wait goes to the entry of (next, stacks). */
static __always_inline void switch_in(struct task_struct *next)
{
	struct task_struct___prof *leader;
	struct sh_prof_val *v, one;
	struct sh_prof_counters *c;
	struct sh_prof_key k = {};
	struct prof_task *t;
	__u64 w;

	t = bpf_task_storage_get(&prof_task, next, 0, 0);
	if (!t || !t->out_ts)
		return;
	w = wait_of(t, bpf_ktime_get_ns());
	t->out_ts = 0;
	k.tgid = next->tgid;
	k.pid = next->pid;
	/*
	 * which process and program: the start tells a reused tgid from the
	 * process that had it, the exec count one program from the next
	 */
	leader = ((struct task_struct___prof *)next)->group_leader;
	k.start_ns = leader->start_boottime;
	k.exec_id = (__u32)leader->self_exec_id;
	k.kstack = t->kstack;
	k.ustack = t->ustack;
	/* comm is 16 bytes, 8-aligned on both sides: two loads, two stores */
	((__u64 *)k.comm)[0] = ((const __u64 *)next->comm)[0];
	((__u64 *)k.comm)[1] = ((const __u64 *)next->comm)[1];
	c = counters_get();
	if (c)
		c->c[SH_PROF_SEEN]++;
	v = bpf_map_lookup_elem(&profile, &k);
	if (!v) {
		one.wait_ns = w;
		one.count = 1;
		if (!bpf_map_update_elem(&profile, &k, &one, BPF_NOEXIST))
			goto recorded;
		/* another CPU inserted it first, or the map is full */
		v = bpf_map_lookup_elem(&profile, &k);
		if (!v) {
			if (c) {
				c->c[SH_PROF_MAP_FULL]++;
				c->map_full_ns += w;
			}
			return;
		}
	}
	__sync_fetch_and_add(&v->wait_ns, w);
	__sync_fetch_and_add(&v->count, 1);
recorded:
	if (c)
		c->c[SH_PROF_RECORDED]++;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(profile_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (traced(prev))
		switch_out(ctx, prev, prev_state);
	if (traced(next))
		switch_in(next);
	return 0;
}

/* runq and blocked: a wakeup makes the task runnable */
static __always_inline void on_wakeup(struct task_struct *p)
{
	struct prof_task *t;

	if (!traced(p))
		return;
	t = bpf_task_storage_get(&prof_task, p, 0, 0);
	if (t && t->out_ts && !t->wake_ts)
		t->wake_ts = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(profile_wakeup, struct task_struct *p)
{
	on_wakeup(p);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
