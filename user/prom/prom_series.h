/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The Prometheus series table. The view turns the per-interval reports
 * into series whose counters never go backwards while schedhist runs,
 * with a bounded number of key labels:
 *  - A series is named by its key label (the group name the text report
 *    shows), not by the kernel key, and accumulates the interval deltas of
 *    every kernel key of that name: a recreated cgroup or a reused pid
 *    continues the series of its name instead of restarting it.
 *  - At most @limit names are exported under their own label (--top, else
 *    --max-keys). A new name is admitted while there is room, in the order
 *    of the interval's ranking (--sort); once admitted it keeps its label.
 *    Waits of names beyond the limit, and the kernel's own overflow entry,
 *    accumulate in key="[other]", which only ever grows.
 *  - A name whose kernel keys have all been pruned (tasks exited, cgroup
 *    removed) is withdrawn: its series stops being exported (Prometheus
 *    marks it stale) and its room goes to a new name. Withdrawn names
 *    are remembered, with their totals, for PROM_REMEMBER_NS (the last
 *    @limit at most), so a name that comes back meanwhile (a restarted
 *    service's cgroup, a reused pid) resumes its series where it left it;
 *    older ones are forgotten, so churn of names that never come back
 *    (a cgroup per pod or per job) keeps only those of the last minutes.
 *  - With -k cgroup, a series also sums the interval deltas of its
 *    cgroups' cpu.stat and cpu.pressure counters (those of the report
 *    since start's live groups, attached by tick_build()) since it was
 *    first exported: a counter the kernel never gave for its cgroups is
 *    absent; a cgroup re-created under the same path continues it.
 */
#ifndef SH_PROM_SERIES_H
#define SH_PROM_SERIES_H

#include <stdbool.h>
#include "model/report.h"
#include "model/culprits.h"
#include "prom/prom_family.h"

/* The key label of the overflow series. */
#define PROM_OTHER "[other]"

/*
 * How long a withdrawn name is remembered: Prometheus' default query
 * lookback (5 minutes), beyond which a series that comes back is queried
 * as one that restarted (rate() and increase() take the reset).
 */
#define PROM_REMEMBER_NS (300ULL * 1000000000ULL)

/* The culprit label of the waits behind culprits not exported on their own. */
#define PROM_CULPRIT_REST "[rest]"

/*
 * --culprits (runq): one culprit of a series. A series admits at most
 * SH_CULPRIT_TOP culprits, each for good (sticky: its counters only grow);
 * the waits behind any other culprit, and those the kernel could blame on
 * nobody, go to [rest], which only grows too.
 */
struct prom_culprit {
	char *name;			/* the culprit label */
	__u64 count, sum_ns;		/* the key's waits behind it since it was admitted */
};

/*
 * The exact longest wait of the last reading's interval among the waits a
 * series took, and the task that had it (the kernel's sh_max): the
 * interval max gauge, and the exemplar of the bucket it fell in.
 */
struct prom_max {
	__u64 ns;			/* longest wait, ns; 0: none */
	__u32 tid;			/* who had it */
	char comm[SH_COMM_LEN];
	bool has_stack;			/* --stacks: its stack was captured ... */
	__u64 stack_id;			/* ... and has this id (frames_id()) */
	struct timespec when;		/* the reading's wall clock (report::when) */
	__u64 update;			/* prom_view_update() call it belongs to */
};

/* Key names up to this long are kept inside their series' pool entry, not on their own. */
#define PROM_KEY_INLINE 96

struct prom_series {
	char *key;			/* the key label: @key_inline, or malloc()ed */
	struct totals t;		/* its waits since it was first exported */
	__u64 seen;			/* last update in which a kernel key had this name */
	__u64 admitted;			/* update in which it was (re)admitted */
	__u64 withdrawn_ns;		/* when it was last withdrawn (the reading's wall clock) */
	bool exported;			/* false: withdrawn, remembered in case it returns */
	struct prom_max max;		/* the last interval's exact max */
	struct prom_culprit culprits[SH_CULPRIT_TOP];	/* --culprits: admitted, in order */
	size_t nculprits;
	bool has_rest;			/* culprit [rest] exported (once any culprit data came) */
	__u64 rest_count, rest_sum_ns;	/* culprit [rest] */
	struct cgstat cg;		/* -k cgroup: cpu.stat / cpu.pressure deltas summed
					 * since it was first exported; has_*: ever known */
	bool has_causes;		/* --causes: @causes has data */
	struct cause_sums causes;	/* its waits by cause since it was first exported */
	struct prom_series *next;	/* hash chain */
	struct prom_series *older;	/* withdrawn list, oldest first */
	struct prom_series *newer;
	char key_inline[PROM_KEY_INLINE];
	__u64 bucket_store[];		/* @t's buckets, sh_nb */
};

struct prom_view {
	int metric;			/* enum sh_metric */
	int key_type;			/* enum sh_key_type */
	__u32 limit;			/* names exported under their own label */
	struct prom_series **table;	/* every remembered name, by hash */
	size_t nbuckets;		/* hash buckets, a power of two */
	size_t nexported;		/* names exported now (<= limit) */
	size_t nwithdrawn;		/* withdrawn names remembered (<= limit) */
	__u64 remember_ns;		/* how long a withdrawn name is remembered
					 * (0: until @limit newer ones are) */
	struct prom_series *oldest;	/* withdrawn list */
	struct prom_series *newest;
	struct prom_series *free_series;	/* the series' pool (prom_series.c): entries to reuse, */
	char **blocks;			/* ... in these blocks of PROM_SERIES_PER_BLOCK */
	size_t nblocks;
	struct totals other;		/* key="[other]" (every key type but none) */
	__u64 other_buckets[SH_NBUCKETS_MAX];	/* its buckets (one set per view) */
	struct prom_max other_max;	/* its last interval's exact max */
	__u64 stats[SH_STAT_NR];	/* event counters since start */
	__u64 live_keys;		/* keys in the kernel map at the last update */
	struct kmem_usage kmem;		/* the kernel maps' memory */
	__u64 updates;			/* prom_view_update() calls */
	bool culprits;			/* export the culprit families (--culprits, runq) */
	bool causes;			/* export the cause family (--causes, runq) */
	bool stacks;			/* export schedhist_stacks_lost_total (--stacks) */
	bool other_has_causes;		/* key="[other]"'s causes have data */
	struct cause_sums other_causes;
	int culprit_mode;		/* ... with this label culprit_mode (enum sh_culprit_mode) */
};

/* An empty view; the key "none" exports its one series ("all") at once. 0 or -1. */
int prom_view_init(struct prom_view *v, int metric, int key_type, __u32 limit);

/*
 * Withdrawn names are forgotten @ns after their withdrawal (by the wall
 * clock of the readings, so a poller held up meanwhile keeps no more).
 */
void prom_view_remember(struct prom_view *v, __u64 ns);
void prom_view_free(struct prom_view *v);

/*
 * Add one reading. @interval and @since_start are reports of the same
 * snapshot, built with top 0: the interval's deltas (cumulative false)
 * and the totals since start (cumulative true), taken before the
 * snapshot's pruned keys are collected. A group of @since_start keeps its
 * name alive while its kernel key is (report_group::live). 0, or -1 when out
 * of memory.
 */
int prom_view_update(struct prom_view *v, const struct report *interval,
		     const struct report *since_start);

/*
 * --culprits: after prom_view_update() of the same reading, the culprits
 * of one group of the interval report: the group's name @key, its waits
 * (@count, @sum_ns) and its culprits @in[0..n) of the interval, largest
 * sum first. If the group's waits went to an exported series, that
 * series' culprits take them: an admitted culprit its own, a new one is
 * admitted while the series has fewer than SH_CULPRIT_TOP, every other
 * one (and a culprit named [rest]) to [rest], and the waits no culprit
 * covers (the group's beyond the culprits' sum) to [rest] too. Nothing
 * for a group whose waits went to [other]. 0, or -1 when out of memory.
 */
int prom_view_culprits(struct prom_view *v, const char *key, __u64 count, __u64 sum_ns,
		       const struct culprit *in, size_t n);

/*
 * --causes: call @fn(@ctx, key label, its causes) for every exported
 * series of @v with cause data, in label order, then [other]. 0, or -1
 * (no memory, or @fn's -1).
 */
typedef int (*prom_cause_fn)(void *ctx, const char *key, const struct cause_sums *c);
int prom_view_causes(const struct prom_view *v, prom_cause_fn fn, void *ctx);

/*
 * The cgroup counter @f (PROM_CG_PERIODS..PROM_PRESSURE_FULL) of
 * @s into *@val (ns for the seconds ones): false when absent.
 */
bool prom_series_cgstat(const struct prom_series *s, int f, __u64 *val);

/*
 * The culprits of @s as exported: the admitted ones sorted by name, then
 * [rest] (when @s has culprit data), into @out; how many.
 */
size_t prom_series_culprits(const struct prom_series *s, struct prom_culprit out[SH_CULPRIT_TOP + 1]);

/*
 * The gauge schedhist_interval_max_wait_seconds: the exact max of @m, a
 * series' (or [other]'s) of view @v, if the last reading's interval had a
 * wait there; else false (the sample is left out).
 */
bool prom_max_now(const struct prom_view *v, const struct prom_max *m);

/*
 * Has family @f (prom_family.h) a sample in the @nv views? Those of the
 * interval max, the culprits and the cgroup counters are left out of every
 * exposition while they have none; the others always have one.
 */
bool prom_family_present(const struct prom_view *views, size_t nv, int f);

/* Histogram series exported now (names plus [other]); each is PROM_LINES_PER_KEY lines. */
size_t prom_view_series(const struct prom_view *v);

/*
 * The series exported now, sorted by key (the order of every exposition),
 * in a malloc()ed array of *@n (free() it); NULL when out of memory.
 */
struct prom_series **prom_view_sorted(const struct prom_view *v, size_t *n);

#endif /* SH_PROM_SERIES_H */
