/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * One tick: a reading turned once into every report an output reads, extras attached; outputs
 * build nothing. Pure (the stack map through a callback).
 */
#ifndef SH_TICK_H
#define SH_TICK_H

#include <stdbool.h>
#include "model/report.h"
#include "model/snapshot.h"
#include "model/cgroup.h"
#include "model/cgstat.h"
#include "model/culprits.h"
#include "model/causes.h"
#include "model/stacks.h"

struct tick_spec {
	struct report_spec report;	/* the reports shown: span, --sort, --top, --min-count */
	bool every_key;			/* fleet mode: each metric's reports of every key too */
	bool every_key_stacks;		/* ... the interval's with stacks (--listen's exemplars) */
	bool culprits, stacks, causes;	/* --culprits, --stacks, --causes */
	bool cgstat;			/* -k cgroup: cpu.stat and cpu.pressure deltas */
};

/* Where the extras come from; kernel/extra_read.c reads them into these. */
struct tick_sources {
	struct culprits *culprits;	/* --culprits: the pairs of this reading, else NULL */
	const struct cause_table *causes;	/* --causes: the keys' causes, else NULL */
	const struct ksyms *ksyms;	/* --stacks: the kernel's symbols ... */
	stack_lookup_fn stack_lookup;	/* ... and the stack map's reader */
	void *stack_ctx;
};

struct tick_metric {
	/* As the command line asks (span, ranked, --top): text, JSON, heatmap, live views. */
	struct report shown;
	/* every_key: every key, ranked by --sort, of the interval and since start (Prometheus) */
	struct report interval;
	struct report since_start;
	struct culprit_set culprits;	/* every_key, runq: each group of @interval's culprits */
	struct stacks_state shown_stacks, interval_stacks;	/* their groups' frames */
};

struct tick {
	struct tick_spec spec;
	struct tick_metric m[SH_METRIC_NR];	/* one per metric measured, in enum order */
	int n;					/* metrics measured */
	struct timespec when;			/* the reading's wall clock, for every report */
	struct cgroups *cg;			/* the cgroup names learnt so far, or NULL */
	__u64 gen;				/* the reading's generation (snapshot gen) */
	struct cgstat_table cgstats;		/* -k cgroup: the readings of cpu.stat and pressure */
};

void tick_init(struct tick *t, const struct tick_spec *sp);
/* At start, once @cg is walked: first readings of the cgroups' counters. 0, or -1 (no memory). */
int tick_start(struct tick *t, const struct cgroups *cg);
/*
 * Build @t from one reading's @n snapshots, spanning @span_s: name new cgroups (at most one walk),
 * build the reports, attach @src's extras. 0, or -1 when out of memory.
 */
int tick_build(struct tick *t, struct snapshot *snaps, int n, struct cgroups *cg,
	       const struct tick_sources *src, double span_s);
void tick_free(struct tick *t);

/* The attach steps, for the unit tests: each group's causes of the span ... */
void tick_attach_causes(const struct cause_table *causes, struct report *r);
/* ... and each cgroup group's cpu.stat and cpu.pressure deltas, read once per @gen. 0 or -1. */
int tick_attach_cgstat(struct cgstat_table *c, struct report *r, const struct cgroups *cg,
		       __u64 gen, bool since_start);

#endif /* SH_TICK_H */
