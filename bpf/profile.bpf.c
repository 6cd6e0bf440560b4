// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --profile: where tasks wait. Estimated wait time, sampled waits and
 * their own time per (task, kernel stack, user stack), summed in the
 * kernel; the poller reads the cumulative map every second and diffs it
 * every interval (nothing is streamed). Only the tasks of -p and -c (a
 * cgroup's subtree, cgroup.bpf.h) go on: the test comes before anything
 * else at every event below.
 *
 * switch-out (prev): whether this wait is sampled, with probability P
 *   (sample_p(): 1 in exact mode, 1/N with --profile-sample 1/N, else the
 *   task's expected wait over the threshold, the expectation being the
 *   average of its recent waits of the same kind, blocked or preempted).
 *   A sampled wait's kernel and user stacks (those --profile-stacks asks
 *   for) are walked (user stacks by frame pointers: prev is still
 *   current here) into the kstacks and ustacks maps, keyed by their
 *   frames' hash; P, the ids and the time go into the task's local
 *   storage. The walks are most of the cost (docs/profile-cost.md): only
 *   sampled waits take them.
 * wakeup (only for runq and blocked): the time the task became runnable.
 * switch-in (next): the metric's wait w of that off-CPU period updates the
 *   task's expectation and the exact totals; a sampled one adds w x 1/P
 *   (Horvitz-Thompson: an unbiased estimate of the time per stack) to the
 *   profile map's entry of (task, process start, exec count, stacks),
 *   one hash lookup or one insert. The start and exec count tell the
 *   poller whose maps name the user frames (a reused tgid, a new program
 *   after execve()).
 * Bounded: the stack maps and the profile map have fixed capacities (set
 * by the poller, which removes what gone processes left); a stack that
 * does not fit is kept as SH_PROF_LOST, a wait whose entry does not fit is
 * counted with its time in the counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "schedhist.h"
#include "schedhist_profile.h"
#include "cgroup.bpf.h"

/* uapi and kernel constants vmlinux.h does not carry */
#define F_USER_STACK (1ULL << 8) /* BPF_F_USER_STACK */
#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define TASK_RUNNING 0
#define EEXIST 17

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
/* --profile-sample: a fixed P (exact: SH_PROF_P_ONE, 1/N), or 0: by the expected wait */
const volatile __u32 sample_fixed_p = 0;
const volatile __u64 sample_ns = SH_PROF_SAMPLE_NS;	/* the threshold: P 1 from there */
/* the least P per kind of wait: a preemption's wait is the host's load, not the task's habit */
const volatile __u32 sample_min_p[2] = { SH_PROF_P_MIN, SH_PROF_P_MIN_PREEMPTED };

/* The expectation's kinds of wait: after a block, after a preemption. */
#define KIND_BLOCKED 0
#define KIND_PREEMPTED 1

/* A task's open off-CPU period, and what its past waits say of the next. */
struct prof_task {
	__u64 out_ts;		/* switch-out time; 0 = nothing to count */
	__u64 wake_ts;		/* runnable since (runq, blocked); 0 = not woken yet */
	__u64 kstack;		/* stack ids taken at switch-out */
	__u64 ustack;
	__u64 expect[2];	/* per KIND_*: average of the recent waits, ns */
	__u32 p;		/* the period's sampling probability; 0: not sampled */
	__u32 exec_id;		/* the program @expect is of: a new one starts afresh */
	__u8 preempted;		/* left the CPU runnable */
	__u8 known[2];		/* per KIND_*: @expect holds a wait */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct prof_task);
} prof_task SEC(".maps");

/*
 * The stacks, by the hash of their frames: a hash map, not a stack trace
 * map, so two stacks never take each other's bucket and a stack the
 * poller removes never comes back as another; kernel and user stacks
 * apart, so user-stack churn (a new process's are new) never costs a
 * kernel stack. max_entries: the poller's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SH_PROF_KSTACKS);
	__type(key, __u64);
	__type(value, struct sh_prof_stack);
} kstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 2 * SH_PROF_MAX_ENTRIES);
	__type(key, __u64);
	__type(value, struct sh_prof_stack);
} ustacks SEC(".maps");

/* the walk's buffer, per CPU (the programs run with preemption off) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_prof_stack);
} walk_buf SEC(".maps");

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

/*
 * The probability that this wait is walked: its expected length over the
 * threshold (a wait expected to last the threshold or more: 1), at least
 * sample_min_p of its kind. A kind of wait never seen yet in this program:
 * 1 (a task that rarely blocks is walked when it does).
 */
static __always_inline __u32 sample_p(const struct prof_task *t, int kind)
{
	__u64 e = t->expect[kind & 1];
	__u32 p;

	if (sample_fixed_p)
		return sample_fixed_p;
	if (!t->known[kind & 1] || e >= sample_ns)
		return SH_PROF_P_ONE;
	p = (__u32)(e * SH_PROF_P_ONE / sample_ns);
	return p < sample_min_p[kind & 1] ? sample_min_p[kind & 1] : p;
}

/* The frames' hash of the @n ips in @b: the stack's id, never an SH_PROF_* value. */
static __always_inline __u64 stack_hash(const struct sh_prof_stack *b, long n)
{
	__u64 h = 0xcbf29ce484222325ULL ^ (__u64)n;

	for (int i = 0; i < SH_PROF_DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ b->ips[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	return h < SH_PROF_ID_MAX ? h : h - 8;
}

/* Walk the current task's kernel or user (@flags) stack into @map: its id, or SH_PROF_LOST. */
static __always_inline __u64 take_stack(void *ctx, void *map, __u64 flags, __u64 now)
{
	struct sh_prof_stack *b, *s;
	__u32 zero = 0;
	long n, err;
	__u64 id;

	b = bpf_map_lookup_elem(&walk_buf, &zero);
	if (!b)
		return SH_PROF_LOST;
	/* the helper zeroes the rest of the buffer: equal stacks, equal values */
	n = bpf_get_stack(ctx, b->ips, sizeof(b->ips), flags);
	if (n <= 0)
		return SH_PROF_LOST;
	id = stack_hash(b, n / 8);
	s = bpf_map_lookup_elem(map, &id);
	if (s) {
		s->walked_ns = now;
		return id;
	}
	b->walked_ns = now;
	err = bpf_map_update_elem(map, &id, b, BPF_NOEXIST);
	/* -EEXIST: another CPU put the same stack there first */
	return !err || err == -EEXIST ? id : SH_PROF_LOST;
}

/* The profile map's key of @p's period @t. */
static __always_inline void key_of(struct task_struct *p, const struct prof_task *t,
				   struct sh_prof_key *k)
{
	struct task_struct___prof *leader = ((struct task_struct___prof *)p)->group_leader;

	k->tgid = p->tgid;
	k->pid = p->pid;
	/*
	 * which process and program: the start tells a reused tgid from the
	 * process that had it, the exec count one program from the next
	 */
	k->start_ns = leader->start_boottime;
	k->exec_id = (__u32)leader->self_exec_id;
	k->kstack = t->kstack;
	k->ustack = t->ustack;
	/* comm is 16 bytes, 8-aligned on both sides: two loads, two stores */
	((__u64 *)k->comm)[0] = ((const __u64 *)p->comm)[0];
	((__u64 *)k->comm)[1] = ((const __u64 *)p->comm)[1];
}

/* A sampled switch-out: the stacks --profile-stacks asks for, into @t. */
static __always_inline void walk(void *ctx, struct task_struct *prev, struct prof_task *t,
				 __u64 now)
{
	struct task_struct___prof *pf = (void *)prev;
	struct sh_prof_counters *c = counters_get();
	struct sh_prof_val zero = {};
	struct sh_prof_key k = {};

	t->kstack = SH_PROF_NOT_TAKEN;
	if (stack_kinds & SH_PROF_STACK_KERNEL) {
		t->kstack = take_stack(ctx, &kstacks, 0, now);
		if (t->kstack == SH_PROF_LOST && c)
			c->c[SH_PROF_KSTACK_LOST]++;
	}
	t->ustack = SH_PROF_NOT_TAKEN;
	if (!(stack_kinds & SH_PROF_STACK_USER)) {
		/* nothing */
	} else if (pf->flags & PF_KTHREAD) {
		t->ustack = SH_PROF_NO_USER;
	} else {
		t->ustack = take_stack(ctx, &ustacks, F_USER_STACK, now);
		if (t->ustack == SH_PROF_LOST && c)
			c->c[SH_PROF_USTACK_LOST]++;
	}
	if (c)
		c->c[SH_PROF_WALKED]++;
	/*
	 * the entry exists from the walk on (empty until the switch-in), so
	 * that the poller never removes the stacks of a wait in flight
	 */
	key_of(prev, t, &k);
	if (!bpf_map_lookup_elem(&profile, &k))
		bpf_map_update_elem(&profile, &k, &zero, BPF_NOEXIST);
}

/* @prev leaves the CPU: whether this wait is sampled, and if so where it is now. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, unsigned int state)
{
	bool preempted = state == TASK_RUNNING;
	struct prof_task *t;
	__u64 now;
	__u32 p;

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
	now = bpf_ktime_get_ns();
	if (!sample_fixed_p) {
		__u32 exec_id = (__u32)((struct task_struct___prof *)prev)->group_leader->self_exec_id;

		/* another program (execve()): its waits are not the last one's */
		if (t->exec_id != exec_id) {
			t->exec_id = exec_id;
			t->known[0] = t->known[1] = 0;
		}
	}
	p = sample_p(t, preempted);
	if (p < SH_PROF_P_ONE && (bpf_get_prandom_u32() & (SH_PROF_P_ONE - 1)) >= p) {
		p = 0;
	} else {
		walk(ctx, prev, t, now);
		/* the wait starts after the walks, sampled or not: no bias from them */
		now = bpf_ktime_get_ns();
	}
	t->p = p;
	t->preempted = preempted;
	t->wake_ts = 0;
	t->out_ts = now;
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

/* The expectation of the next wait of this kind: 3/4 of the last one's and 1/4 of this wait. */
static __always_inline void expect(struct prof_task *t, __u64 w)
{
	int k = t->preempted & 1;

	t->expect[k] = t->known[k] ? t->expect[k] - t->expect[k] / 4 + w / 4 : w;
	t->known[k] = 1;
}

/* @next comes back: its wait counts, and a sampled one goes to the entry of (next, stacks). */
static __always_inline void switch_in(struct task_struct *next)
{
	struct sh_prof_val *v, one;
	struct sh_prof_counters *c;
	struct sh_prof_key k = {};
	struct prof_task *t;
	__u64 w, est, est_waits;
	__u32 p;

	t = bpf_task_storage_get(&prof_task, next, 0, 0);
	if (!t || !t->out_ts)
		return;
	w = wait_of(t, bpf_ktime_get_ns());
	t->out_ts = 0;
	p = t->p;
	if (!sample_fixed_p)
		expect(t, w);
	c = counters_get();
	if (c) {
		c->c[SH_PROF_SEEN]++;
		c->seen_ns += w;
	}
	if (!p)
		return;
	/* w x P_ONE fits 64 bits for waits under 2^44 ns (4.8 hours) */
	est = p == SH_PROF_P_ONE ? w : w < (1ULL << 44) ? w * SH_PROF_P_ONE / p
							 : w / p * SH_PROF_P_ONE;
	est_waits = (__u64)SH_PROF_P_ONE * SH_PROF_P_ONE / p;
	key_of(next, t, &k);
	v = bpf_map_lookup_elem(&profile, &k);
	if (!v) {
		one = (struct sh_prof_val){ est, est_waits, 1, w };
		if (!bpf_map_update_elem(&profile, &k, &one, BPF_NOEXIST))
			goto recorded;
		/* another CPU inserted it first, or the map is full */
		v = bpf_map_lookup_elem(&profile, &k);
		if (!v) {
			if (c) {
				c->c[SH_PROF_MAP_FULL]++;
				c->map_full_ns += est;
			}
			return;
		}
	}
	__sync_fetch_and_add(&v->est_ns, est);
	__sync_fetch_and_add(&v->est_waits, est_waits);
	__sync_fetch_and_add(&v->samples, 1);
	__sync_fetch_and_add(&v->sampled_ns, w);
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
