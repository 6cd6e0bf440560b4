// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floors of bench/run.sh, on the tracepoints schedhist uses.
 *   floor_*  empty programs. Whatever schedhist (or any tool) attaches
 *            there costs at least this: the tracepoint's BPF trampoline,
 *            the program's prologue and, with kernel.bpf_stats_enabled=1,
 *            the statistics' own clock reads.
 *   clock_*  one bpf_ktime_get_ns() per event, kept in a per-CPU array so
 *            it is not optimised away: the floor plus the one clock read
 *            every latency tool needs per event. On a paravirtual clock
 *            (kvm-clock) that read alone can cost more than the rest of
 *            the work, and this arm shows how much.
 *   step_*   where the time of schedhist's -M runq goes: sched_switch
 *            programs that each do one more part of its work than the
 *            one before (see step() below), on the same data structures
 *            (include/schedhist.h, bits.bpf.h). A model of the hot path,
 *            not the path itself: the differences between steps are what
 *            each part costs.
 * The loader (bench/floor.c) attaches one pair, or one step.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "schedhist.h"
#include "bits.bpf.h"
#include "cause_split.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_ns SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup)
{
	return 0;
}

static __always_inline int read_clock(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&last_ns, &zero);

	if (v)
		*v = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(clock_switch)
{
	return read_clock();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(clock_wakeup)
{
	return read_clock();
}

/* ---- steps ---- */

enum {
	STEP_CLOCK,	/* the run queue's clock: prev->se.cfs_rq->rq->clock */
	STEP_SCHED_INFO,/* + next's sched_info: the queued part of the wait */
	STEP_TABLE,	/* + the task table: the whole wait (migrations), pcount */
	STEP_STORAGE,	/* STEP_TABLE with task storage instead of the table */
	STEP_HIST,	/* + the bucket and the histogram in the per-CPU array */
	STEP_MAX,	/* + the epoch's max and min, and who had the max */
	STEP_HASH,	/* STEP_MAX in a per-CPU hash keyed by tid (-k tid) */
	/* keyed (-k tid), each on STEP_MAX's work: */
	STEP_STORE_HASH,/* the slot by a hash lookup of the key (the key directory) */
	STEP_SLOT,	/* the slot index kept in the task entry, checked against its key */
	STEP_CACHE,	/* STEP_SLOT + this CPU's cache entry of the slot: a hit */
	STEP_SEQ,	/* STEP_CACHE + a flush's seq bracket at every switch, no moves */
	STEP_GATE,	/* STEP_CACHE + a run-time test of an off feature (.bss, not rodata) */
	/* --causes' parts, each on STEP_CACHE's work: */
	STEP_CAUSE_ADDS,/* + the seven atomic adds of a wait's causes (the entry by slot) */
	STEP_CAUSE_MAP,	/* STEP_CAUSE_ADDS with the entry by a hash lookup (the cause map) */
	STEP_CAUSE_RUN,	/* + the CPU's run counters at every switch (the group's LRU hash) */
	STEP_CAUSE_READ,/* STEP_CAUSE_RUN + the wait's start from task storage at its end */
	STEP_CAUSE_RING,/* + a ring of runs written at every switch, walked at a wait's end */
};

#define TABLE_SIZE 32768

struct step_state {
	__u64 owner, start, rd_base;
	__u32 flags, pcount;
	__u32 kidx, pad;	/* keyed steps: the slot of the task's key */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TABLE_SIZE);
	__type(key, __u32);
	__type(value, struct step_state);
} step_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct step_state);
} step_st SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_pcpu);
} step_pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10242);
	__type(key, struct sh_key);
	__uint(value_size, SH_HIST_SIZE(SH_NBUCKETS(0)));	/* schema 0's histogram */
} step_keys SEC(".maps");

volatile __u32 step_epoch = 1;
/* STEP_GATE's feature: off, and in .bss, so the verifier cannot drop its test */
volatile __u32 step_feature_on;

#define STEP_SLOTS 1024		/* slots of the keyed steps' store (a power of two) */
#define STEP_CACHE_N 16		/* cache entries per CPU, as schedhist's default */
#define STEP_CPUS 64		/* CPUs the steps' cache has room for */
#define STEP_HIST_BYTES SH_HIST_SIZE(SH_NBUCKETS(0))
#define STEP_RING 256		/* runs in each CPU's ring (STEP_CAUSE_RING) */

struct step_hist_val {
	__u64 h[STEP_HIST_BYTES / 8];
};

struct step_cent {
	__u32 idx, pad;
	__u64 h[STEP_HIST_BYTES / 8];
};

/* the key directory (key -> slot), the slots' keys, store and seq brackets */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10240);
	__type(key, struct sh_key);
	__type(value, __u32);
} step_keydir SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEP_SLOTS);
	__type(key, __u32);
	__type(value, struct sh_key);
} step_slot_keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEP_SLOTS);
	__type(key, __u32);
	__type(value, struct step_hist_val);
} step_store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEP_SLOTS);
	__type(key, __u32);
	__type(value, struct sh_slot_seq);
} step_seq_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEP_CPUS * STEP_CACHE_N);
	__type(key, __u32);
	__type(value, struct step_cent);
} step_cache_map SEC(".maps");

/* --causes' parts: a wait's split by slot, and by key in a hash (the cause map) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEP_SLOTS);
	__type(key, __u32);
	__type(value, struct sh_causes);
} step_causes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10240);
	__type(key, struct sh_key);
	__type(value, struct sh_causes);
} step_cause_hash SEC(".maps");

/* the CPU's run counters (bpf/cause.bpf.h struct cause_cpu) and a group's run */
struct step_cause_cpu {
	__u64 ts, run, kern, cur_group;
	__u32 cur_kind, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct step_cause_cpu);
} step_cause_cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, __u64);
} step_cause_self SEC(".maps");

/* a wait's start (bpf/cause.bpf.h struct cause_start) */
struct step_cause_start {
	__u64 lq, group, run, kern, self, thr, steal;
	__u32 cpu, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct step_cause_start);
} step_cause_st SEC(".maps");

/* each CPU's last runs: who ran (kind, group) from @start to @end */
struct step_run {
	__u64 start, end, group;
	__u32 kind, pad;
};

struct step_ring {
	__u64 head, cur_start;
	struct step_run runs[STEP_RING];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct step_ring);
} step_rings SEC(".maps");

#define STEP_PF_KTHREAD 0x00200000
#define STEP_IDLE 0
#define STEP_TASK 1
#define STEP_KTHREAD 2

static __always_inline __u32 step_kind(struct task_struct *t)
{
	if (!t->pid)
		return STEP_IDLE;
	return (t->flags & STEP_PF_KTHREAD) ? STEP_KTHREAD : STEP_TASK;
}

/* STEP_CAUSE_RUN: what prev ran since this CPU's last switch, as cause_switch() */
static __always_inline void step_cause_counters(struct task_struct *prev,
						struct task_struct *next, __u64 now)
{
	__u32 zero = 0, kind = step_kind(prev);
	struct step_cause_cpu *cc = bpf_map_lookup_elem(&step_cause_cpus, &zero);
	__u64 d, g, *v;

	if (!cc)
		return;
	d = cc->ts && now > cc->ts ? now - cc->ts : 0;
	if (d && kind != STEP_IDLE) {
		cc->run += d;
		if (kind == STEP_KTHREAD) {
			cc->kern += d;
		} else {
			g = (__u64)prev->sched_task_group;
			v = bpf_map_lookup_elem(&step_cause_self, &g);
			if (v)
				*v += d;
			else
				bpf_map_update_elem(&step_cause_self, &g, &d, BPF_NOEXIST);
		}
	}
	cc->ts = now;
	cc->cur_kind = step_kind(next);
	cc->cur_group = cc->cur_kind == STEP_TASK ? (__u64)next->sched_task_group : 0;
}

/* STEP_CAUSE_RING: prev's run into this CPU's ring (runs of one group in a row are one) */
static __always_inline void step_ring_note(struct task_struct *prev, __u64 now)
{
	__u32 zero = 0, kind = step_kind(prev);
	struct step_ring *r = bpf_map_lookup_elem(&step_rings, &zero);
	__u64 g = kind == STEP_TASK ? (__u64)prev->sched_task_group : 0;
	struct step_run *e;

	if (!r)
		return;
	if (r->cur_start && now >= r->cur_start) {
		e = &r->runs[(r->head - 1) & (STEP_RING - 1)];
		if (r->head && e->end == r->cur_start && e->kind == kind && e->group == g) {
			e->end = now;
		} else {
			e = &r->runs[r->head & (STEP_RING - 1)];
			e->start = r->cur_start;
			e->end = now;
			e->kind = kind;
			e->group = g;
			r->head++;
		}
	}
	r->cur_start = now;
}

struct step_walk {
	struct step_ring *r;
	__u64 t0, now, group;
	struct sh_cause_delta d;
};

static long step_walk_run(__u64 i, void *arg)
{
	struct step_walk *c = arg;
	struct step_run *e = &c->r->runs[(c->r->head - 1 - i) & (STEP_RING - 1)];
	__u64 s = e->start > c->t0 ? e->start : c->t0, end = e->end < c->now ? e->end : c->now;

	if (e->end <= c->t0)
		return 1;
	if (end > s && e->kind != STEP_IDLE) {
		c->d.run += end - s;
		if (e->kind == STEP_KTHREAD)
			c->d.kernel += end - s;
		else if (e->group == c->group)
			c->d.self += end - s;
	}
	return e->start <= c->t0;
}

/* keeps a split's result: the compiler must not drop the work that made it */
static __always_inline void step_cause_st_keep(const struct sh_causes *add)
{
	__u32 zero = 0;
	struct sh_pcpu *pc = bpf_map_lookup_elem(&step_pcpu, &zero);

	if (pc)
		pc->stats[0][1] += add->ns[SH_CAUSE_SELF] + add->ns[SH_CAUSE_NEIGHBOUR] +
				   add->ns[SH_CAUSE_KERNEL] + add->ns[SH_CAUSE_OTHER];
}

/* keyed steps: @t's histogram by its slot (state @s), the way step @n finds it */
static __always_inline struct sh_hist *step_keyed(struct task_struct *t, struct step_state *s,
						  const int n, __u32 *slot)
{
	struct sh_key key = { .id = t->pid };
	struct sh_key *sk;
	struct step_cent *e;
	struct sh_slot_seq *q;
	__u32 i = s->kidx, ci, *ip;

	if (n == STEP_STORE_HASH) {
		ip = bpf_map_lookup_elem(&step_keydir, &key);
		if (!ip) {
			i = key.id & (STEP_SLOTS - 1);
			bpf_map_update_elem(&step_keydir, &key, &i, BPF_NOEXIST);
			ip = &i;
		}
		i = *ip;
		*slot = i;
		return bpf_map_lookup_elem(&step_store, &i);
	}
	sk = bpf_map_lookup_elem(&step_slot_keys, &i);
	if (!sk || sk->id != key.id || ((__u64 *)sk->comm)[0] != ((__u64 *)key.comm)[0] ||
	    ((__u64 *)sk->comm)[1] != ((__u64 *)key.comm)[1]) {
		/* the first switch-in of the task: a slot of its own (the model has no misses) */
		i = key.id & (STEP_SLOTS - 1);
		sk = bpf_map_lookup_elem(&step_slot_keys, &i);
		if (!sk)
			return 0;
		*sk = key;
		s->kidx = i;
	}
	*slot = i;
	if (n == STEP_SLOT)
		return bpf_map_lookup_elem(&step_store, &i);
	ci = bpf_get_smp_processor_id() * STEP_CACHE_N + (i & (STEP_CACHE_N - 1));
	e = bpf_map_lookup_elem(&step_cache_map, &ci);
	if (!e)
		return 0;
	if (e->idx != i)
		e->idx = i;
	if (n == STEP_SEQ && (q = bpf_map_lookup_elem(&step_seq_map, &i))) {
		__sync_fetch_and_add(&q->seq, SH_SEQ_OPEN);
		if (__sync_val_compare_and_swap(&e->idx, i, SH_CENT_FLUSHING) == i)
			e->idx = i;
		__sync_fetch_and_add(&q->seq, SH_SEQ_CLOSE);
	}
	return (struct sh_hist *)e->h;
}

/* --causes' parts at a wait's end (@rq ns, queued since @lq on this CPU, ending @now) */
static __always_inline void step_causes_end(struct task_struct *t, const int n, __u32 slot,
					    __u64 now, __u64 lq, __u64 rq)
{
	struct sh_causes add = { .count = 1 }, *v = 0;
	struct sh_key key = { .id = t->pid };
	__u32 zero = 0;
	int i;

	if (n == STEP_CAUSE_READ) {
		struct step_cause_start *st = bpf_task_storage_get(&step_cause_st, t, 0,
							   BPF_LOCAL_STORAGE_GET_F_CREATE);
		struct step_cause_cpu *cc = bpf_map_lookup_elem(&step_cause_cpus, &zero);
		struct sh_cause_delta d = {};
		__u64 *self;

		if (!st || !cc)
			return;
		self = bpf_map_lookup_elem(&step_cause_self, &st->group);
		d.run = cc->run - st->run;
		d.kernel = cc->kern - st->kern;
		d.self = (self ? *self : 0) - st->self;
		sh_cause_split(now - lq, &d, add.ns);
		st->lq = 0;
		st->run = cc->run;
		st->kern = cc->kern;
		st->group = (__u64)t->sched_task_group;
		add.ns[SH_CAUSE_OTHER] += rq - (now - lq);
		step_cause_st_keep(&add);
		return;
	}
	if (n == STEP_CAUSE_RING) {
		struct step_walk c = { .now = now, .t0 = lq, .group = (__u64)t->sched_task_group };

		c.r = bpf_map_lookup_elem(&step_rings, &zero);
		if (!c.r)
			return;
		bpf_loop(c.r->head < STEP_RING ? (__u32)c.r->head : STEP_RING, step_walk_run, &c, 0);
		sh_cause_split(now - lq, &c.d, add.ns);
		add.ns[SH_CAUSE_OTHER] += rq - (now - lq);
		step_cause_st_keep(&add);
		return;
	}
	if (n == STEP_CAUSE_ADDS) {
		v = bpf_map_lookup_elem(&step_causes, &slot);
	} else if (n == STEP_CAUSE_MAP) {
		v = bpf_map_lookup_elem(&step_cause_hash, &key);
		if (!v) {
			bpf_map_update_elem(&step_cause_hash, &key, &add, BPF_NOEXIST);
			return;
		}
	}
	if (!v)
		return;
	add.ns[SH_CAUSE_OTHER] = rq;
	for (i = 0; i < SH_CAUSE_NR; i++)
		__sync_fetch_and_add(&v->ns[i], add.ns[i]);
	__sync_fetch_and_add(&v->count, 1);
}

static __always_inline int step(struct task_struct *prev, struct task_struct *next, const int n)
{
	__u64 now = prev->se.cfs_rq->rq->clock, d, lq, rd;
	struct step_state *s = 0;
	struct sh_pcpu *pc;
	struct sh_hist *h;
	__u32 zero = 0, slot = 0, pcount, b;

	pc = bpf_map_lookup_elem(&step_pcpu, &zero);
	if (!pc)
		return 0;
	/* --causes' work at every switch, the idle task's included */
	if (n == STEP_CAUSE_RUN || n == STEP_CAUSE_READ)
		step_cause_counters(prev, next, now);
	if (n == STEP_CAUSE_RING)
		step_ring_note(prev, now);
	if (!next->pid)
		return 0;
	if (n == STEP_CLOCK) {
		pc->stats[0][0] = now;
		return 0;
	}
	lq = next->sched_info.last_queued;
	rd = next->sched_info.run_delay;
	pcount = next->sched_info.pcount;
	if (!lq || now < lq)
		return 0;
	d = now - lq;
	if (n == STEP_SCHED_INFO) {
		pc->stats[0][0] = d;
		return 0;
	}
	if (n == STEP_STORAGE) {
		s = bpf_task_storage_get(&step_st, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	} else {
		__u32 i = ((__u32)next->pid * 0x9E3779B1U) & (TABLE_SIZE - 1);

		s = bpf_map_lookup_elem(&step_tasks, &i);
		if (s && (s->owner != (__u64)next || s->start != next->start_time)) {
			if (s->owner || __sync_val_compare_and_swap(&s->owner, 0, (__u64)next))
				return 0;
			s->start = next->start_time;
			s->flags = 0;
			s->kidx = SH_SLOT_HASH;
		}
	}
	if (!s)
		return 0;
	if (!s->flags) {
		s->flags = 1;
		s->rd_base = rd + d;
		s->pcount = pcount + 1;
		return 0;
	}
	if (pcount != s->pcount)
		pc->stats[SH_METRIC_RUNQ][SH_STAT_MERGED] += pcount - s->pcount;
	s->pcount = pcount + 1;
	d += rd - s->rd_base;
	s->rd_base = rd + (now - lq);
	if (n == STEP_TABLE || n == STEP_STORAGE) {
		pc->stats[0][0] = d;
		return 0;
	}
	if (n == STEP_HASH) {
		struct sh_key key = { .id = next->pid };

		h = bpf_map_lookup_elem(&step_keys, &key);
		if (!h) {
			__u64 zh[SH_HIST_SIZE(SH_NBUCKETS(0)) / 8] = {};

			bpf_map_update_elem(&step_keys, &key, zh, BPF_NOEXIST);
			h = bpf_map_lookup_elem(&step_keys, &key);
			if (!h)
				return 0;
		}
	} else if (n >= STEP_STORE_HASH) {
		h = step_keyed(next, s, n, &slot);
		if (!h)
			return 0;
		pc->cache_hit++;
	} else {
		h = (struct sh_hist *)pc->hist;
	}
	b = sh_bucket(d);
	if (b >= nbuckets)
		b = nbuckets - 1;
	h->buckets[b]++;
	h->count++;
	h->sum_ns += d;
	if (n >= STEP_MAX) {
		__u32 ep = step_epoch;
		struct sh_max *mx = &h->max[ep & 1];

		if (mx->epoch != ep || d > mx->ns) {
			if (mx->epoch != ep)
				mx->min_ns = d;
			mx->epoch = ep;
			mx->ns = d;
			mx->tid = next->pid;
			mx->pid = next->tgid;
			mx->cpu = bpf_get_smp_processor_id();
			__builtin_memcpy(mx->comm, next->comm, sizeof(mx->comm));
		} else if (d < mx->min_ns) {
			mx->min_ns = d;
		}
	}
	/* an off feature's gate: never taken, so only the test costs */
	if (n == STEP_GATE && step_feature_on)
		step_causes_end(next, STEP_CAUSE_MAP, slot, now, lq, d);
	if (n >= STEP_CAUSE_ADDS)
		step_causes_end(next, n, slot, now, lq, d);
	return 0;
}

#define STEP_PROG(name, n)								\
SEC("tp_btf/sched_switch")								\
int BPF_PROG(step_##name, bool preempt, struct task_struct *prev, struct task_struct *next) \
{											\
	return step(prev, next, n);							\
}

STEP_PROG(clock, STEP_CLOCK)
STEP_PROG(sched_info, STEP_SCHED_INFO)
STEP_PROG(table, STEP_TABLE)
STEP_PROG(storage, STEP_STORAGE)
STEP_PROG(hist, STEP_HIST)
STEP_PROG(max, STEP_MAX)
STEP_PROG(hash, STEP_HASH)
STEP_PROG(store_hash, STEP_STORE_HASH)
STEP_PROG(slot, STEP_SLOT)
STEP_PROG(cache, STEP_CACHE)
STEP_PROG(seq, STEP_SEQ)
STEP_PROG(gate, STEP_GATE)
STEP_PROG(cause_adds, STEP_CAUSE_ADDS)
STEP_PROG(cause_map, STEP_CAUSE_MAP)
STEP_PROG(cause_run, STEP_CAUSE_RUN)
STEP_PROG(cause_read, STEP_CAUSE_READ)
STEP_PROG(cause_ring, STEP_CAUSE_RING)

/*
 * --causes' wakeup program as it is: the wait's start, this CPU's run
 * counters and the group's entry, kept in task storage (on sched_wakeup)
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(step_cause_wakeup, struct task_struct *p)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct step_cause_start *st;
	struct step_cause_cpu *cc;
	__u64 g, *v, now;

	if (!p->pid)
		return 0;
	now = p->se.cfs_rq->rq->clock;
	if (p->sched_info.last_queued != now)
		return 0;
	st = bpf_task_storage_get(&step_cause_st, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	cc = bpf_map_lookup_percpu_elem(&step_cause_cpus, &zero, cpu);
	if (!st || !cc)
		return 0;
	g = (__u64)p->sched_task_group;
	v = bpf_map_lookup_percpu_elem(&step_cause_self, &g, cpu);
	st->lq = now;
	st->cpu = cpu;
	st->group = g;
	st->run = cc->run;
	st->kern = cc->kern;
	st->self = v ? *v : 0;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
