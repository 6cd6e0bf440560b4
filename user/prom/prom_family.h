/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The Prometheus metric families, written once (name, type, help, unit) in exposition order:
 * every encoder walks this table. A contract defined in schedhist(8), OUTPUT.
 */
#ifndef SH_PROM_FAMILY_H
#define SH_PROM_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

enum prom_type {
	PROM_TYPE_COUNTER,
	PROM_TYPE_GAUGE,
	PROM_TYPE_HISTOGRAM,
	PROM_TYPE_INFO,			/* OpenMetrics' info; a gauge of 1 elsewhere */
};

enum prom_family_id {
	PROM_WAIT_SECONDS,		/* schedhist_wait_seconds */
	PROM_EVENTS,			/* schedhist_events_total */
	PROM_LOST_EVENTS,		/* schedhist_lost_events_total */
	PROM_OVERFLOW_EVENTS,		/* schedhist_overflow_events_total */
	PROM_KEYS,			/* schedhist_keys */
	PROM_INTERVAL_MAX,		/* schedhist_interval_max_wait_seconds */
	PROM_KMEM_BYTES,		/* schedhist_kernel_memory_bytes */
	PROM_KMEM_KEYS,			/* schedhist_kernel_memory_keys */
	/* the counters of each series beside its histogram (prom_series.h) */
	PROM_CULPRIT_SECONDS,		/* schedhist_culprit_wait_seconds_total */
	PROM_CULPRIT_WAITS,		/* schedhist_culprit_waits_total */
	PROM_CG_PERIODS,		/* schedhist_cgroup_periods_total */
	PROM_THROTTLED_PERIODS,		/* schedhist_cgroup_throttled_periods_total */
	PROM_THROTTLED_SECONDS,		/* schedhist_cgroup_throttled_seconds_total */
	PROM_PRESSURE_SOME,		/* schedhist_cgroup_pressure_some_seconds_total */
	PROM_PRESSURE_FULL,		/* schedhist_cgroup_pressure_full_seconds_total */
	PROM_CAUSE_SECONDS,		/* schedhist_wait_cause_seconds_total */
	PROM_STACKS_LOST,		/* schedhist_stacks_lost_total */
	PROM_BUILD_INFO,		/* schedhist_build_info */
	PROM_FAMILY_NR,
};

/* Where a family's samples come from, beyond its own code in each exposition. */
enum prom_source {
	PROM_FROM_VIEW,			/* the view as a whole */
	PROM_FROM_CGROUP,		/* -k cgroup: each series' cpu.stat / cpu.pressure */
	PROM_FROM_CULPRIT,		/* --culprits: each culprit of each series */
	PROM_FROM_CAUSE,		/* --causes: each cause of each series */
	PROM_FROM_STACKS,		/* --stacks: one counter */
};

struct prom_family {
	const char *name;		/* as the text format 0.0.4 names it: a counter's
					 * ends in _total, the info family's in _info */
	enum prom_type type;
	const char *help;		/* needs no escaping in any format */
	const char *unit;		/* OpenMetrics UNIT; "seconds": values are ns
					 * written as seconds; NULL: none */
	enum prom_source source;
};

extern const struct prom_family prom_families[PROM_FAMILY_NR];

/* Room for any help text that prom_help() writes. */
#define PROM_HELP_MAX 256

/* Family @f's help text for @nmetrics metrics, the first @metric; in @buf, or static. */
const char *prom_help(int f, size_t nmetrics, int metric, char buf[PROM_HELP_MAX]);

/* How much of @f's name OpenMetrics declares: all but a counter's _total, an info's _info. */
int prom_om_name_len(int f);

/* Are family @f's values nanoseconds, written as seconds? */
bool prom_family_seconds(int f);

#endif /* SH_PROM_FAMILY_H */
