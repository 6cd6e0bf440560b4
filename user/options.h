/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Command line: one option table drives parsing, --help and validation. */
#ifndef SH_OPTIONS_H
#define SH_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <sys/types.h>

/* Display unit of waits in text output. */
enum sh_unit {
	SH_UNIT_NS = 0,
	SH_UNIT_US = 1,
	SH_UNIT_MS = 2,
};

/* What the ranking (--sort) orders keys by, largest first. */
enum sh_sort {
	SH_SORT_SUM = 0,
	SH_SORT_COUNT,
	SH_SORT_AVG,
	SH_SORT_P99,
	SH_SORT_MAX,
};

/* --method auto: the kernel's sched_info where it has it, else wakeup hooks */
#define SH_METHOD_AUTO (-1)

struct options {
	int metric;		/* enum sh_metric: the first of @metrics */
	__u32 metrics;		/* -M: bit per enum sh_metric measured */
	int method;		/* --method: enum sh_method, or SH_METHOD_AUTO */
	int key_type;		/* enum sh_key_type */
	__u64 interval_ns;	/* 0: one report at the end */
	__u64 count;		/* reports to print, 0 = unlimited */
	__u64 duration_ns;	/* stop after this long, 0 = until a signal */
	bool cumulative;	/* reports since start instead of per interval */
	int unit;		/* enum sh_unit */
	bool timestamp;		/* -T: a time line before each text report */
	pid_t pid;		/* -p: 0 = every process */
	bool json;		/* JSON Lines instead of text */
	int verbose;		/* -v count */
	__u32 max_keys;		/* capacity of the key map, [other] beyond */
	/* cgroups */
	const char *cgroup_path; /* -c: trace only this subtree */
	__u32 cgroup_depth;	/* roll-up depth, 0 = none */
	const char *cgroup_hier; /* NULL = v2, else a v1 controller name */
	/* triage */
	__u32 top;		/* show the N highest keys, 0 = all */
	int sort;		/* enum sh_sort */
	bool sort_set;		/* --sort was given */
	bool summary;		/* one line per key */
	__u64 min_wait_ns;	/* text histogram starts at this bucket */
	const char *heatmap;	/* SVG path, NULL = none */
	const char *heatmap_key; /* key shown in the heatmap, NULL = all */
	/* fleet mode: a daemon exporting to Prometheus */
	const char *listen;	/* --listen ADDR: serve /metrics there, NULL = no */
	const char *prom_file;	/* --prom-file: rewrite this file every interval */
	const char *user;	/* --user: run as this user once attached */
	bool print;		/* reports on stdout: always, but in fleet mode only with --print */
};

/*
 * Parse argv into @o. Returns -1 when the program should go on, or an exit
 * code (0 after --help/--version, SH_EXIT_USAGE after an error, which has
 * been printed to stderr as one line).
 */
int parse_options(int argc, char **argv, struct options *o);

/* Strict parsers, also used by tests and the fuzz targets. 0 or -1. */
int parse_u64(const char *s, __u64 min, __u64 max, __u64 *out);
/* A duration "250ms", "5s", "10us", "100ns"; a bare number is in @dflt_unit_ns. */
int parse_duration(const char *s, __u64 dflt_unit_ns, __u64 *out_ns);

const char *metric_name(int metric);
/*
 * Parse "offcpu,runq" into a bit per metric: 0, or -1 with *@bad the
 * element that is unknown (or empty) or named twice.
 */
int parse_metrics(const char *s, __u32 *out, const char **bad);
const char *metric_words(int metric);
/* Name of enum sh_method @m, as in -v, JSON and --method. */
const char *method_name(int m);
const char *key_name(int key_type);
const char *unit_name(int unit);
__u64 unit_ns(int unit);

#endif /* SH_OPTIONS_H */
