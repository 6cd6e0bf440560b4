/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* --profile's settings, from cli/specs.c: what profile.c and its reports read. */
#ifndef SH_SPEC_PROFILE_H
#define SH_SPEC_PROFILE_H

#include <stdbool.h>
#include <linux/types.h>

struct profile_spec {
	int metric;		/* enum sh_metric */
	int key_type;		/* SH_KEY_NONE, _COMM, _PID or _TID: the JSON groups */
	__u32 tgid;		/* -p: 0 = every process */
	int cgroup_hier;	/* -c's hierarchy: SH_CGROUP_V2 or a v1 cgroup_subsys_id */
	__u64 cgroup_id;	/* -c: subtree root id, 0 = every cgroup */
	__u32 cgroup_level;	/* its level */
	__u64 interval_ns;	/* 0: one report at the end */
	__u64 count;		/* reports, 0 = unlimited */
	__u64 duration_ns;	/* 0 = until a signal */
	bool cumulative;	/* reports since start */
	bool json;		/* JSON Lines instead of folded stacks */
	int unit;		/* enum unit: the folded stacks' values */
	__u32 top;		/* JSON: stacks per key (0: SH_PROF_TOP) */
	__u32 max_entries;	/* profile map cap; the stack map holds twice as many */
	const char *flamegraph;	/* SVG path, NULL = none */
	const char *pprof;	/* gzipped pprof path, NULL = none */
	__u32 stack_kinds;	/* SH_PROF_STACK_* bits: the stacks taken */
	__u32 sample_p;		/* --profile-sample: a fixed P (SH_PROF_P_ONE: exact, 1/N);
				 * 0: by the expected wait, over @sample_ns */
	__u64 sample_ns;	/* that threshold: waits expected this long are all walked */
	const char *user;	/* --user: who the poller runs as once attached (NULL: nobody
				 * when root) */
};

/* Stacks per key in a JSON report unless --top says otherwise. */
#define SH_PROF_TOP 10

#endif /* SH_SPEC_PROFILE_H */
