/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The command line, apart from the rest: one option table drives parsing, checks and --help.
 * The modules never see struct options; main turns it into their specs.
 */
#ifndef SH_OPTIONS_H
#define SH_OPTIONS_H

#include <stdbool.h>
#include <linux/types.h>
#include <sys/types.h>

#include "lib/names.h"
#include "lib/exit_codes.h"
#include "prom/listen_addr.h"

struct options {
	int metric;		/* enum sh_metric: the first of @metrics */
	__u32 metrics;		/* -M: bit per enum sh_metric measured */
	int method;		/* --method: enum sh_method, or SH_METHOD_AUTO */
	int clock;		/* --clock: enum sh_clock, or SH_CLOCK_AUTO */
	int key_type;		/* enum sh_key_type */
	__u64 interval_ns;	/* 0: one report at the end */
	__u64 count;		/* reports to print, 0 = unlimited */
	__u64 duration_ns;	/* stop after this long, 0 = until a signal */
	bool cumulative;	/* reports since start instead of per interval */
	int unit;		/* enum unit */
	bool timestamp;		/* -T: a time line before each text report */
	pid_t pid;		/* -p: 0 = every process */
	bool json;		/* JSON Lines instead of text */
	int verbose;		/* -v count */
	__u32 max_keys;		/* capacity of the key map, [other] beyond */
	bool max_keys_set;	/* --max-keys was given: it must fit --max-kernel-mem */
	__u32 max_kernel_mem_mib; /* --max-kernel-mem: the maps' kernel memory at most, MiB */
	__u32 task_table;	/* --task-table entries, 0 = from pid_max */
	__u32 schema;		/* --schema: 2^schema buckets per power of two (schedhist.h) */
	/* cgroups */
	const char *cgroup_path; /* -c: trace only this subtree */
	__u32 cgroup_depth;	/* roll-up depth, 0 = none */
	const char *cgroup_hier; /* NULL = v2, else a v1 controller name */
	/* triage */
	__u32 top;		/* show the N highest keys, 0 = all */
	int sort;		/* enum sort_key */
	bool sort_set;		/* --sort was given */
	bool summary;		/* one line per key */
	__u64 min_count;	/* --min-count: keys with fewer waits rank last, 0 = off */
	bool culprits;		/* --culprits: who held the CPU when runq waits ended */
	int culprit_mode;	/* --culprit-mode: enum sh_culprit_mode */
	bool stacks;		/* --stacks: kernel stack of each key's longest wait */
	bool causes;		/* --causes: runq waits split by what the CPU did meanwhile */
	bool profile;		/* --profile: wait per (task, kernel stack, user stack) */
	const char *flamegraph;	/* --profile's SVG flame graph path, NULL = none */
	int profile_stacks;	/* --profile-stacks: SH_PROF_STACK_* bits */
	__u32 profile_sample_p;	/* --profile-sample: a fixed P (SH_PROF_P_ONE: exact), 0: by
				 * the expected wait over @profile_sample_ns */
	__u64 profile_sample_ns; /* --profile-sample DUR (default SH_PROF_SAMPLE_NS) */
	const char *pprof;	/* --profile's gzipped pprof path, NULL = none */
	__u64 min_wait_ns;	/* text histogram starts at this bucket */
	const char *heatmap;	/* SVG path, NULL = none */
	const char *heatmap_key; /* key shown in the heatmap, NULL = all */
	int heatmap_lines;	/* percentile lines over the heatmap: enum hm_lines bits */
	/* fleet mode: a daemon exporting to Prometheus */
	const char *listen;	/* --listen ADDR: serve /metrics there, NULL = no */
	struct listen_addr listen_addr;	/* ... parsed */
	const char *prom_file;	/* --prom-file: rewrite this file every interval */
	const char *user;	/* --user: run as this user once attached */
	bool live;		/* --live: the full-screen terminal view, no reports printed */
	bool print;		/* reports on stdout: always, but in fleet mode only with --print */
	bool prom_classic;	/* --prom-classic: never serve native histograms (protobuf) */
};

/*
 * Parse argv into @o, touching nothing else (but stdout for --help, stderr for an error).
 * -1 to go on, or an exit code (0 after --help/--version, SH_EXIT_USAGE after a one-line error).
 */
int parse_options(int argc, char **argv, struct options *o);

/* The check that needs the system: -p's process exists. 0, or SH_EXIT_USAGE after why. */
int options_check_pid(const struct options *o);

#endif /* SH_OPTIONS_H */
