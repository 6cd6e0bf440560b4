/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A report: one interval (or since start) turned into named, ranked groups
 * with percentiles. Renderers only read it.
 */
#ifndef SH_REPORT_H
#define SH_REPORT_H

#include <stdbool.h>
#include <time.h>
#include "model/hist.h"
#include "lib/names.h"
#include "model/snapshot.h"
#include "model/cgroup.h"
#include "model/cgstat.h"
#include "model/causes.h"

struct culprit_list;
struct frames;

/* What a report shows: the metric is the snapshot's. */
struct report_spec {
	int key_type;			/* enum sh_key_type: how keys are named */
	bool cumulative;		/* span: since start, else the interval */
	int sort;			/* enum sort_key: the ranking */
	__u32 top;			/* groups shown, the rest folded into [rest]; 0 = all */
	__u64 min_count;		/* groups of fewer waits rank last; 0 = off */
};

/* The percentiles every output shows, estimated from a histogram, ns. */
struct pcts {
	__u64 p50, p90, p99, p999;
};

struct report_group {
	struct sh_key key;		/* kernel key (id, comm) */
	const char *name;		/* display key: "bash", "1234", "/a.slice", "[other]" */
	char idbuf[40];			/* storage for numeric and [removed id=N] names */
	bool name_in_idbuf;		/* name is idbuf: re-pointed when groups move */
	const char *comm;		/* pid/tid keys: task name, else NULL */
	char commbuf[SH_COMM_LEN];	/* storage for comm: a copy of the snapshot entry's */
	bool comm_in_group;		/* comm is commbuf: re-pointed when groups move */
	bool is_cgroup;			/* key is a cgroup id (JSON adds cgroup_id) */
	bool synthetic;			/* [rest] or [exited]: not a kernel key */
	bool live;			/* its kernel key is still in the map (not pruned) */
	struct totals t;		/* the waits of this report (its buckets: the entry's, or the report's) */
	struct pcts pct;		/* of @t */
	__u64 nkeys;			/* [rest]: how many keys it folds */
	bool below_min_count;		/* fewer waits than --min-count: ranked last */
	const struct culprit_list *culprits;	/* --culprits (runq), else NULL */
	const struct frames *max_stack;	/* --stacks: the max wait's stack, or NULL */
	struct cgstat cgs;		/* -k cgroup: cpu.stat / cpu.pressure deltas */
	bool has_causes;		/* --causes (runq): @causes is set */
	struct cause_sums causes;	/* its waits split by cause (causes.h) */
};

/*
 * What the ranking compares, gathered from each group before sorting:
 * the sort keys side by side (32 bytes) instead of a walk into groups of
 * hundreds of bytes at every comparison; the names only on a tie.
 */
struct rank_rec {
	__u64 key;			/* by --sort */
	__u64 sum_ns;			/* then the sum, then the count */
	__u64 count;
	__u32 below_min_count;		/* ranked after all the others */
	__u32 idx;			/* into groups (re-ranking) */
	const struct snap_entry *e;	/* report_build: the key's entry, NULL for [exited] */
	const struct totals *t;	/* report_build: its totals of the report's span */
	const __u64 *buckets;		/* ... and their buckets (prefetched ahead without reading @t) */
};

struct report {
	struct timespec when;		/* wall clock at the reading */
	double span_s;			/* seconds covered: interval or since start */
	int metric;			/* enum sh_metric */
	int method;			/* enum sh_method */
	int clock;			/* enum sh_clock */
	int key_type;			/* enum sh_key_type */
	bool cumulative;		/* since start, not the interval */
	struct report_group *groups;	/* ranked, largest first; [rest] not included */
	size_t ngroups;			/* groups shown (--top) */
	size_t nall;			/* all groups, the ones folded into rest too */
	size_t cap;			/* allocated groups (and spare; order has twice as many) */
	struct rank_rec *order;		/* ranking scratch: sort keys and indices into groups */
	struct report_group *spare;		/* ranking scratch: groups in rank order */
	struct report_group rest;		/* keys beyond --top, when rest.nkeys */
	struct totals all;		/* every group together (incl. rest) */
	struct pcts all_pct;		/* of @all */
	__u64 stats[SH_STAT_NR];	/* event counters of the same span */
	__u64 live_keys;		/* keys in the kernel map now */
	struct kmem_usage kmem;		/* the kernel maps' memory and key capacity */
	struct totals exited_t;	/* [exited]'s waits (a group's are a view of them) */
	/* the buckets of @all, @rest and [exited]: one set per report, not per group */
	__u64 all_buckets[SH_NBUCKETS_MAX];
	__u64 rest_buckets[SH_NBUCKETS_MAX];
	__u64 exited_buckets[SH_NBUCKETS_MAX];
};

/* The percentiles of @t. */
struct pcts totals_pcts(const struct totals *t);

/* Percentiles of @g->t into @g->pct. */
void group_percentiles(struct report_group *g);

/*
 * Build @r from snapshot @s (interval deltas, or totals since start with
 * sp->cumulative), naming cgroup keys by the names @cg has learnt (may be
 * NULL; it is never asked to walk: the poll loop names new cgroups
 * in a step of its own, before),
 * ranking with sp->sort and folding keys beyond sp->top into r->rest.
 * Touches no file. 0, or -1 when out of memory.
 */
int report_build(struct report *r, struct snapshot *s, const struct report_spec *sp,
		 const struct cgroups *cg, double span_s);

/*
 * Rank groups: the comparator for @sort (largest first, then by name);
 * with @min_count, groups of fewer waits after all the others.
 */
void report_rank(struct report *r, int sort, __u32 top, __u64 min_count);

/* An empty report (its all, rest and [exited] totals on its own buckets): what report_build() starts from. */
void report_init(struct report *r);

void report_free(struct report *r);

/* Lost events of the report: no_start + dropped + clock_skew (not filtered). */
__u64 report_lost(const struct report *r);

#endif /* SH_REPORT_H */
