/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The names of metrics, methods, keys, units, sorts and counters, as options and outputs say. */
#ifndef SH_NAMES_H
#define SH_NAMES_H

#include <linux/types.h>

#include "lib/clock.h"

enum unit {
	SH_UNIT_NS = 0,
	SH_UNIT_US = 1,
	SH_UNIT_MS = 2,
	SH_UNIT_NR,
};

enum sort_key {
	SH_SORT_SUM = 0,
	SH_SORT_COUNT,
	SH_SORT_AVG,
	SH_SORT_P99,
	SH_SORT_MAX,
	SH_SORT_NR,
};

enum hm_lines {
	HM_LINE_P50 = 1 << 0,
	HM_LINE_P99 = 1 << 1,
};

/* --method auto: the kernel's sched_info where it has it, else wakeup hooks */
#define SH_METHOD_AUTO (-1)
/* --clock auto: the run queue clock where a program can reach it, else ktime */
#define SH_CLOCK_AUTO (-1)

const char *metric_name(int metric);
const char *metric_words(int metric);
const char *method_name(int method);
const char *clock_name(int clock);
const char *key_name(int key_type);
const char *unit_name(int unit);
__u64 unit_ns(int unit);
const char *sort_name(int sort);
const char *stat_name(int stat);
const char *cause_name(int cause);
const char *culprit_mode_name(int mode);

/* Waits seen but not recorded, by reason, in JSON's "lost" and Prometheus' order. */
#define SH_NLOST 4
extern const int sh_lost_stats[SH_NLOST];
/* Waits recorded under [other], by reason (schedhist_overflow_events_total). */
#define SH_NOVERFLOW 2
extern const int sh_overflow_stats[SH_NOVERFLOW];
/* The event counters after seen, in --counters' and -v's order (merged counts no event). */
#define SH_NEVENT_STATS (SH_NLOST + SH_NOVERFLOW)
extern const int sh_event_stats[SH_NEVENT_STATS];

/* The value of a name in one of the tables above, or -1 if none. */
int metric_lookup(const char *s);
/* "auto" too, as SH_METHOD_AUTO (-1): -2 if none. */
int method_lookup(const char *s);
/* "auto" too, as SH_CLOCK_AUTO (-1): -2 if none. */
int clock_lookup(const char *s);
int key_lookup(const char *s);
int unit_lookup(const char *s);
int sort_lookup(const char *s);
int culprit_mode_lookup(const char *s);
/* "p50,p99", "p50", "p99" (either order) or "none": enum hm_lines bits, or -1. */
int heatmap_lines_lookup(const char *s);
/* "kernel,user" (either order), "kernel", "user" or "none": SH_PROF_STACK_* bits, or -1. */
int profile_stacks_lookup(const char *s);

#endif /* SH_NAMES_H */
