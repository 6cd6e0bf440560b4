/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's reports from the table: folded stacks or JSON Lines each interval, and the run's
 * flame graph and pprof. Times are estimates of the sampled waits (each weighted 1/P).
 */
#ifndef SH_PROF_REPORT_H
#define SH_PROF_REPORT_H

#include "profile/spec_profile.h"
#include "profile/prof_table.h"
#include "lib/atomic_file.h"

/* The interval's report on stdout, the waits since the last (or since start). 0 or -1. */
int prof_report(struct prof_table *t, const struct profile_spec *sp, double secs);
/* The flame graph of the whole run so far into @f. 0 or -1. */
int prof_flamegraph(struct prof_table *t, const struct profile_spec *sp, struct atomic_file *f);
/* The pprof profile of the whole run so far (@secs long) into @f. 0 or -1. */
int prof_pprof(struct prof_table *t, const struct profile_spec *sp, double secs,
	       struct atomic_file *f);

#endif /* SH_PROF_REPORT_H */
