// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The name tables: one place for every word the poller prints or takes. */
#include <string.h>

#include "schedhist.h"
#include "schedhist_profile.h"
#include "lib/names.h"
#include "lib/util.h"

static const char *const metric_names[SH_METRIC_NR] = { "offcpu", "runq", "blocked" };
static const char *const metric_text[SH_METRIC_NR] = {
	"off-CPU wait (switch-out to the same task's next switch-in)",
	"run-queue latency (runnable: woken or preempted, to switch-in)",
	"blocked time (switch-out while not runnable, to runnable again)",
};
static const char *const method_names[] = { [SH_METHOD_SCHED_INFO] = "sched_info",
					     [SH_METHOD_WAKEUP] = "wakeup" };
static const char *const clock_names[] = { [SH_CLOCK_RQ] = "rq", [SH_CLOCK_KTIME] = "ktime" };
static const char *const key_names[] = { "none", "comm", "pid", "tid", "cpu", "cgroup",
					  "pidns" };
static const char *const unit_names[SH_UNIT_NR] = { "ns", "us", "ms" };
static const __u64 unit_nsecs[SH_UNIT_NR] = { 1, 1000, 1000000 };
static const char *const sort_names[SH_SORT_NR] = { "sum", "count", "avg", "p99", "max" };
static const char *const culprit_mode_names[] = { [SH_CULPRIT_SWITCH] = "switch",
						   [SH_CULPRIT_TIME] = "time" };
static const char *const stat_names[SH_STAT_NR] = {
	[SH_STAT_SEEN] = "seen",
	[SH_STAT_NO_START] = "no_start",
	[SH_STAT_FILTERED] = "filtered",
	[SH_STAT_DROPPED] = "dropped",
	[SH_STAT_MAP_FULL] = "map_full",
	[SH_STAT_NO_MEM] = "no_mem",
	[SH_STAT_CLOCK_SKEW] = "clock_skew",
	[SH_STAT_MERGED] = "merged",
};

const int sh_lost_stats[SH_NLOST] = { SH_STAT_NO_START, SH_STAT_FILTERED, SH_STAT_DROPPED,
				     SH_STAT_CLOCK_SKEW };
const int sh_overflow_stats[SH_NOVERFLOW] = { SH_STAT_MAP_FULL, SH_STAT_NO_MEM };
const int sh_event_stats[SH_NEVENT_STATS] = { SH_STAT_NO_START, SH_STAT_FILTERED, SH_STAT_DROPPED,
					     SH_STAT_MAP_FULL, SH_STAT_NO_MEM, SH_STAT_CLOCK_SKEW };

const char *metric_name(int m) { return metric_names[m]; }
const char *metric_words(int m) { return metric_text[m]; }
const char *method_name(int m) { return method_names[m]; }
const char *clock_name(int c) { return clock_names[c]; }
const char *key_name(int k) { return key_names[k]; }
const char *unit_name(int u) { return unit_names[u]; }
__u64 unit_ns(int u) { return unit_nsecs[u]; }
const char *sort_name(int s) { return sort_names[s]; }
const char *stat_name(int s) { return stat_names[s]; }
const char *culprit_mode_name(int m) { return culprit_mode_names[m]; }

static const char *const cause_names[SH_CAUSE_NR] = {
	[SH_CAUSE_SELF] = "self", [SH_CAUSE_NEIGHBOUR] = "neighbour",
	[SH_CAUSE_KERNEL] = "kernel", [SH_CAUSE_THROTTLED] = "throttled",
	[SH_CAUSE_STEAL] = "steal", [SH_CAUSE_OTHER] = "other",
};

const char *cause_name(int c) { return cause_names[c]; }

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

int metric_lookup(const char *s) { return lookup(metric_names, ARRAY_SIZE(metric_names), s); }
int key_lookup(const char *s) { return lookup(key_names, ARRAY_SIZE(key_names), s); }
int unit_lookup(const char *s) { return lookup(unit_names, ARRAY_SIZE(unit_names), s); }
int sort_lookup(const char *s) { return lookup(sort_names, ARRAY_SIZE(sort_names), s); }
int culprit_mode_lookup(const char *s)
{
	return lookup(culprit_mode_names, ARRAY_SIZE(culprit_mode_names), s);
}

_Static_assert(SH_METHOD_AUTO == -1 && SH_CLOCK_AUTO == -1, "\"auto\" is -1 in both");

/* A name of @names, or "auto" as -1: -2 if neither. */
static int lookup_auto(const char *const *names, size_t n, const char *s)
{
	int i;

	if (!strcmp(s, "auto"))
		return -1;
	i = lookup(names, n, s);
	return i < 0 ? -2 : i;
}

int method_lookup(const char *s) { return lookup_auto(method_names, ARRAY_SIZE(method_names), s); }
int clock_lookup(const char *s) { return lookup_auto(clock_names, ARRAY_SIZE(clock_names), s); }

int profile_stacks_lookup(const char *s)
{
	static const struct {
		const char *name;
		int bits;
	} kinds[] = {
		{ "none", 0 },
		{ "kernel", SH_PROF_STACK_KERNEL },
		{ "user", SH_PROF_STACK_USER },
		{ "kernel,user", SH_PROF_STACK_KERNEL | SH_PROF_STACK_USER },
		{ "user,kernel", SH_PROF_STACK_KERNEL | SH_PROF_STACK_USER },
	};

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, s))
			return kinds[i].bits;
	return -1;
}

int heatmap_lines_lookup(const char *s)
{
	static const struct {
		const char *name;
		int bits;
	} lines[] = {
		{ "none", 0 },
		{ "p50", HM_LINE_P50 },
		{ "p99", HM_LINE_P99 },
		{ "p50,p99", HM_LINE_P50 | HM_LINE_P99 },
		{ "p99,p50", HM_LINE_P50 | HM_LINE_P99 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++)
		if (!strcmp(lines[i].name, s))
			return lines[i].bits;
	return -1;
}
