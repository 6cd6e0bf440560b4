/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * -k cgroup: the cgroup's own CPU accounting beside its waits, as interval
 * deltas: throttling from cpu.stat (v2 nr_throttled, throttled_usec; v1
 * cpu controller nr_throttled, throttled_time) and CPU pressure from
 * cpu.pressure (some/full total). A value the kernel does not provide
 * for a cgroup is absent, never zero.
 */
#ifndef SH_CGSTAT_H
#define SH_CGSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* One cgroup's counters (raw readings, or the deltas of a report). */
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

/*
 * Parse the text of cpu.stat (@stat, may be NULL) and cpu.pressure (@psi,
 * may be NULL) into @out: only what they hold is set known.
 */
void cgstat_parse(const char *stat, const char *psi, struct cgstat *out);

/* Read @dir/cpu.stat and @dir/cpu.pressure into @out. */
void cgstat_read(const char *dir, struct cgstat *out);

/* @now - @then, field by field: known where both are (counters reset: unknown). */
void cgstat_delta(const struct cgstat *now, const struct cgstat *then,
		  struct cgstat *out);

/*
 * Sum deltas: @dst += @src, each counter where @src knows it; @dst knows a
 * counter once any @src did (the Prometheus series of a cgroup).
 */
void cgstat_add(struct cgstat *dst, const struct cgstat *src);

#endif /* SH_CGSTAT_H */
