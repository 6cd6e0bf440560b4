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
 *    marks it stale) and its room goes to a new name. The last @limit
 *    withdrawn names are remembered, with their totals, so a name that
 *    comes back resumes its series where it left it.
 */
#ifndef SH_PROM_SERIES_H
#define SH_PROM_SERIES_H

#include <stdbool.h>
#include "report.h"

/* The key label of the overflow series. */
#define PROM_OTHER "[other]"

struct prom_series {
	char *key;			/* the key label */
	struct sh_totals t;		/* its waits since it was first exported */
	__u64 seen;			/* last update in which a kernel key had this name */
	__u64 admitted;			/* update in which it was (re)admitted */
	bool exported;			/* false: withdrawn, remembered in case it returns */
	struct prom_series *next;	/* hash chain */
	struct prom_series *older;	/* withdrawn list, oldest first */
	struct prom_series *newer;
};

struct prom_view {
	int metric;			/* enum sh_metric */
	int key_type;			/* enum sh_key_type */
	__u32 limit;			/* names exported under their own label */
	struct prom_series **table;	/* every remembered name, by hash */
	size_t nslots;			/* table size, a power of two */
	size_t nexported;		/* names exported now (<= limit) */
	size_t nwithdrawn;		/* withdrawn names remembered (<= limit) */
	struct prom_series *oldest;	/* withdrawn list */
	struct prom_series *newest;
	struct sh_totals other;		/* key="[other]" (every key type but none) */
	__u64 stats[SH_STAT_NR];	/* event counters since start */
	__u64 live_keys;		/* keys in the kernel map at the last update */
	__u64 updates;			/* prom_view_update() calls */
};

/* An empty view; the key "none" exports its one series ("all") at once. 0 or -1. */
int prom_view_init(struct prom_view *v, int metric, int key_type, __u32 limit);
void prom_view_free(struct prom_view *v);

/*
 * Add one reading. @interval and @since_start are reports of the same
 * snapshot, built with top 0: the interval's deltas (cumulative false)
 * and the totals since start (cumulative true), taken before the
 * snapshot's pruned keys are collected. A group of @since_start keeps its
 * name alive while its kernel key is (sh_group::live). 0, or -1 when out
 * of memory.
 */
int prom_view_update(struct prom_view *v, const struct sh_report *interval,
		     const struct sh_report *since_start);

/* Histogram series exported now (names plus [other]); each is PROM_LINES_PER_KEY lines. */
size_t prom_view_series(const struct prom_view *v);

/*
 * The series exported now, sorted by key (the order of every exposition),
 * in a malloc()ed array of *@n (free() it); NULL when out of memory.
 */
struct prom_series **prom_view_sorted(const struct prom_view *v, size_t *n);

#endif /* SH_PROM_SERIES_H */
