/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What every mechanism reads: the settings (const volatile, fixed before
 * load, so the verifier prunes the code they rule out), the counters
 * shared with the poller (.bss), the per-CPU event counters (pcpu), and
 * the hot path's view of the configuration. Each common configuration
 * has a sched_switch program of its own, compiled with its metrics and
 * method as constants: the compiler drops every test of them and the
 * code of the other configurations (what that buys against runqlat:
 * docs/overhead.md, "In the kernel").
 */
#ifndef __SCHEDHIST_SETTINGS_BPF_H
#define __SCHEDHIST_SETTINGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "schedhist.h"
#include "bits.bpf.h"

#define TASK_RUNNING 0
#define TASK_DEAD 0x80	/* prev_state of a task's last switch-out */
/* errno values the map helpers return, negated (the trimmed vmlinux.h has none) */
#define E2BIG 7
#define ENOMEM 12
#define EEXIST 17

/* Settings, fixed before load so the verifier prunes what is unused. */
const volatile __u32 metrics = 1 << SH_METRIC_OFFCPU;	/* bit per enum sh_metric */
const volatile __u32 method = SH_METHOD_SCHED_INFO;
const volatile __u32 clock_src = SH_CLOCK_RQ;	/* enum sh_clock; the sched_info method's is rq */
const volatile __u32 key_type = SH_KEY_NONE;
const volatile __u32 nr_cpus = 1;		/* possible CPUs: the per-CPU copies */
const volatile __u32 filter_tgid = 0;		/* -p: 0 = every process */
const volatile int cgroup_hier = SH_CGROUP_V2;	/* which cgroup hierarchy */
const volatile __u32 cgroup_depth = 0;		/* roll-up depth, 0 = none */
const volatile __u64 filter_cgid = 0;		/* -c: subtree root, 0 = none */
const volatile __u32 filter_cglevel = 0;	/* -c: level of that root */
const volatile __u32 fold_above = 0;		/* fold gone keys once more keys are live */
const volatile __u32 slot_fold_above = 0;	/* ... and gone keys in slots once more slots are taken */
const volatile bool culprits = false;		/* --culprits: blame runq waits on prev */
const volatile __u32 culprit_mode = SH_CULPRIT_SWITCH;	/* --culprit-mode: enum sh_culprit_mode */
const volatile bool stacks = false;		/* --stacks: capture the max wait's stack */
const volatile __u32 task_mask = 0;		/* task table entries - 1 (a power of two - 1) */
const volatile __u32 nr_slots = 0;		/* slots of the key store, 0 = none */
const volatile __u32 cache_mask = SH_CACHE - 1;	/* cache entries per CPU - 1 (a power of two - 1) */

/* Advanced by the poller at each reading (see struct sh_hist). */
volatile __u32 sh_epoch = 1;
/* Set by the poller while it reads the key map: folds are deferred. */
volatile __u32 sh_reading;
/* Incarnations handed out to new keys (sh_hist::birth). */
__u32 sh_births = 1;
/* Keys made by this side and not deleted yet (the poller subtracts its own deletes). */
__u32 sh_live_keys;
/* Slots taken and not freed yet (the poller subtracts the ones it frees). */
__u32 sh_slots_taken;
/* Keys made by this side since the start (a key is made, then reclaimed or still there). */
__u64 sh_keys_made;

/*
 * The configuration as the code sees it: one const struct, passed (by a
 * pointer to const) to every function that depends on it. Each
 * sched_switch variant builds it from its own constants (cfg_of() in
 * SWITCH_PROG), so the compiler folds every test of it and drops the code
 * of the other configurations; the program for any configuration builds
 * it from the settings above, as the code off the hot path does
 * (cfg_metrics()), and the verifier prunes what the settings rule out.
 */
struct cfg {
	__u32 metrics;	/* bit per enum sh_metric, SH_SWITCH_PLAIN, _WAKEUP, _CAUSES */
	bool schedinfo;	/* the sched_info method (else the wakeup method) */
};

static __always_inline struct cfg cfg_of(__u32 bits, bool schedinfo)
{
	return (struct cfg){ .metrics = bits, .schedinfo = schedinfo };
}

/* The settings' metrics, for code that does not depend on the method. */
static __always_inline struct cfg cfg_metrics(void)
{
	return cfg_of(metrics, false);
}

/* Is metric @m measured? */
static __always_inline __u32 has(const struct cfg *cf, int m)
{
	return cf->metrics & (1U << m);
}

/* Position of metric @m's histogram in a value: the measured ones before it. */
static __always_inline int idx(const struct cfg *cf, int m)
{
	return (m > SH_METRIC_OFFCPU && has(cf, SH_METRIC_OFFCPU)) +
	       (m > SH_METRIC_RUNQ && has(cf, SH_METRIC_RUNQ));
}

static __always_inline int nmetrics(const struct cfg *cf)
{
	return !!has(cf, SH_METRIC_OFFCPU) + !!has(cf, SH_METRIC_RUNQ) + !!has(cf, SH_METRIC_BLOCKED);
}

/*
 * A plain run: key none or cpu, no filter, no --culprits, no --stacks,
 * no --causes,
 * known at compile time (else the settings say).
 */
static __always_inline __u32 plain(const struct cfg *cf)
{
	return cf->metrics & SH_SWITCH_PLAIN;
}

static __always_inline __u32 cfg_key_type(const struct cfg *cf)
{
	return plain(cf) ? SH_KEY_NONE : key_type;
}

static __always_inline bool cfg_stacks(const struct cfg *cf)
{
	return !plain(cf) && stacks;
}

static __always_inline bool cfg_culprits(const struct cfg *cf)
{
	return !plain(cf) && culprits;
}

/* --causes: its own programs only (sched_info method) */
static __always_inline bool cfg_causes(const struct cfg *cf)
{
	return (cf->metrics & SH_SWITCH_CAUSES) && cf->schedinfo;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_pcpu);
} pcpu SEC(".maps");

static __always_inline void copy_comm(char *dst, const char *src)
{
	/* comm is 16 bytes, 8-aligned on both sides: two loads, two stores */
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/* Add @n to counter @stat of every metric measured (the event concerns them all). */
static __always_inline void stat_add(struct sh_pcpu *pc, int stat, __u32 n, const struct cfg *cf)
{
	if (has(cf, SH_METRIC_OFFCPU))
		pc->stats[SH_METRIC_OFFCPU][stat] += n;
	if (has(cf, SH_METRIC_RUNQ))
		pc->stats[SH_METRIC_RUNQ][stat] += n;
	if (has(cf, SH_METRIC_BLOCKED))
		pc->stats[SH_METRIC_BLOCKED][stat] += n;
}

/* Count @stat for every metric measured. */
static __always_inline void stat_all(struct sh_pcpu *pc, int stat, const struct cfg *cf)
{
	stat_add(pc, stat, 1, cf);
}

#endif /* __SCHEDHIST_SETTINGS_BPF_H */
