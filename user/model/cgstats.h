/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * -k cgroup: the previous cpu.stat / cpu.pressure readings (cgstat.h) of
 * every cgroup reported, from which each report's groups get the deltas
 * of their interval.
 */
#ifndef SH_CGSTATS_H
#define SH_CGSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/cgstat.h"
#include "model/cgroup.h"
#include "model/report.h"

struct cgstat_prev {
	__u64 id;			/* cgroup id */
	struct cgstat raw;		/* its counters at the previous report (or start) */
	struct cgstat delta;		/* the delta given at that report */
	__u64 gen;			/* report it was last read at */
};

/* The previous readings of every cgroup reported, by id. */
struct cgstats {
	struct cgstat_prev *v;	/* sorted by id */
	size_t n, cap;
	bool cumulative;		/* deltas since the first reading, not the last */
};

/*
 * Each cgroup group of @r (a -k cgroup report named through @cg) gets
 * the delta of its counters since its previous report (since its first
 * with --cumulative); a group seen for the first time has none yet
 * (absent). Readings not taken again for a report are dropped. The
 * reports of one interval (one per metric, same @gen) share one reading.
 */
int cgstats_attach(struct cgstats *c, struct report *r, struct cgroups *cg, __u64 gen);

/*
 * Take a first reading of every cgroup @cg knows (walked at start), so
 * that the first report has deltas too: PSI and throttling from the first
 * interval. -1 when out of memory.
 */
int cgstats_seed(struct cgstats *c, const struct cgroups *cg);
void cgstats_free(struct cgstats *c);

#endif /* SH_CGSTATS_H */
