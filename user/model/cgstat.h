/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * -k cgroup: each cgroup's throttling (cpu.stat) and CPU pressure (cpu.pressure) as deltas,
 * and the table of readings behind them. What the kernel does not give is absent, never zero.
 */
#ifndef SH_CGSTAT_H
#define SH_CGSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* One cgroup's counters: raw readings, or a report's deltas. */
struct cgstat {
	bool has_throttle;		/* nr_throttled and throttled_ns are known */
	bool has_some;			/* pressure_some_ns is known */
	bool has_full;			/* pressure_full_ns is known */
	__u64 nr_periods;		/* quota periods that had runnable tasks (with has_throttle) */
	__u64 nr_throttled;		/* periods throttled */
	__u64 throttled_ns;		/* time throttled (summed over the CPUs) */
	__u64 pressure_some_ns;		/* some task runnable and not running */
	__u64 pressure_full_ns;		/* every task runnable and not running */
};

/* Parse cpu.stat @stat and cpu.pressure @psi (may be NULL) into @out; only found fields known. */
void cgstat_parse(const char *stat, const char *psi, struct cgstat *out);

void cgstat_read(const char *dir, struct cgstat *out);

/* @now - @then, field by field: known where both are (counters reset: unknown). */
void cgstat_delta(const struct cgstat *now, const struct cgstat *then,
		  struct cgstat *out);

/* @dst += @src where @src knows a counter; @dst knows it once any @src did. */
void cgstat_add(struct cgstat *dst, const struct cgstat *src);

struct cgstat_prev {
	__u64 id;			/* cgroup id */
	struct cgstat first;		/* its counters at its first reading (or start) */
	struct cgstat raw;		/* ... at the previous reading */
	struct cgstat interval;		/* the deltas of reading @gen: since the one before */
	struct cgstat since_start;	/* ... since the first */
	__u64 gen;			/* reading it was last read at */
};

struct cgstat_table {
	struct cgstat_prev *v;		/* sorted by id */
	size_t n, cap;
	bool keep_all;			/* reports since start: keep cgroups not read again */
};

/*
 * The deltas of cgroup @id (at @dir) at reading @gen, read once per @gen, against its previous
 * reading or its first (@since_start); none at its first reading. -1 when out of memory.
 */
int cgstat_table_get(struct cgstat_table *c, __u64 id, const char *dir, __u64 gen,
		     bool since_start, struct cgstat *out);
/* After reading @gen, unless keep_all: forget cgroups not read (a delta would span intervals). */
void cgstat_table_end(struct cgstat_table *c, __u64 gen);
/* At start: a first reading of cgroup @id in @dir (ids in increasing order). -1: no memory. */
int cgstat_table_seed(struct cgstat_table *c, __u64 id, const char *dir);
void cgstat_table_free(struct cgstat_table *c);

#endif /* SH_CGSTAT_H */
