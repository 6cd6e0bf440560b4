/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The command line's parts, private to cli/: the table's types, the rules and parsers. */
#ifndef SH_OPTIONS_DEFS_H
#define SH_OPTIONS_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "schedhist.h"
#include "cli/options.h"
#include "lib/util.h"

#define MAX_INTERVAL_NS (86400ULL * NSEC_PER_SEC)	/* one day */
/* shorter would spend the poller's time reading maps, not the workload's running */
#define MIN_INTERVAL_NS (10ULL * 1000000)		/* 10 ms */
#define MAX_DURATION_NS (365ULL * 86400 * NSEC_PER_SEC)	/* one year */
#define MAX_KEYS_LIMIT 1000000				/* --max-keys ceiling */
#define DEFAULT_MAX_KERNEL_MEM 64			/* --max-kernel-mem default, MiB */
#define MAX_KERNEL_MEM_LIMIT 1048576			/* --max-kernel-mem ceiling, MiB (1 TiB) */
#define DEFAULT_MAX_KEYS 10240
#define TASK_TABLE_LIMIT 1048576			/* --task-table ceiling: 32 MiB */
#define FLEET_INTERVAL_NS (5 * NSEC_PER_SEC)		/* --listen/--prom-file without -i */
#define PID_MAX_LIMIT 4194304				/* kernel's PID_MAX_LIMIT */
#define MAX_COUNT 1000000000				/* -n ceiling */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Long-only options take values past the char range. */
enum {
	OPT_UNIT = 256,
	OPT_CUMULATIVE,
	OPT_MAX_KEYS,
	OPT_TASK_TABLE,
	OPT_CGROUP_DEPTH,
	OPT_CGROUP_HIER,
	OPT_TOP,
	OPT_SORT,
	OPT_SUMMARY,
	OPT_MIN_WAIT,
	OPT_HEATMAP,
	OPT_HEATMAP_KEY,
	OPT_HEATMAP_LINES,
	OPT_LISTEN,
	OPT_PROM_FILE,
	OPT_USER,
	OPT_PRINT,
	OPT_METHOD,
	OPT_CLOCK,
	OPT_PROM_CLASSIC,
	OPT_MIN_COUNT,
	OPT_CULPRITS,
	OPT_STACKS,
	OPT_CAUSES,
	OPT_LIVE,
	OPT_MAX_KERNEL_MEM,
	OPT_PROFILE,
	OPT_FLAMEGRAPH,
	OPT_PROFILE_STACKS,
	OPT_PROFILE_SAMPLE,
	OPT_PPROF,
	OPT_USAGE,
	OPT_PIDNSS,
	OPT_SCHEMA,
	OPT_CULPRIT_MODE,
};

/* How an option's value is parsed into its field. */
enum opt_type {
	T_FLAG,		/* no value: the bool field becomes true */
	T_COUNT,	/* no value: the int field counts the times given */
	T_CONST,	/* no value: the int field becomes .min */
	T_MARK,		/* no value, no field: only that it was given counts */
	T_UINT,		/* an integer in [.min, .max] (parse_u64) */
	T_DURATION,	/* a duration in [.min, .max] ns; a bare number is in .unit_ns
			 * (0: a unit is required) */
	T_NAME,		/* a name of names.h, through .lookup */
	T_STRING,	/* the argument itself; non-empty when .err is set */
	T_CUSTOM,	/* .set parses it */
};

struct parse_state;
struct opt_def;

/* A custom parser: -1 when it took @arg, or an exit code. */
typedef int (*opt_set_fn)(struct parse_state *st, const struct opt_def *d, const char *arg);
/* A rule with the other options, checked once all are parsed: NULL or why not. */
typedef const char *(*opt_check_fn)(const struct parse_state *st);

struct opt_def {
	const char *name;	/* long name */
	int val;		/* short letter or OPT_* */
	const char *arg;	/* argument name in --help, NULL: takes none */
	const char *help;	/* one line of --help */
	enum opt_type type;
	size_t off, size;	/* the field of struct options filled */
	__u64 min, max;		/* T_UINT, T_DURATION limits; T_CONST value */
	__u64 unit_ns;		/* T_DURATION: the unit of a bare number */
	int (*lookup)(const char *s);	/* T_NAME: value or -1 */
	const char *err;	/* the usage error of a bad value; "%s" stands for it */
	opt_set_fn set;		/* T_CUSTOM */
	opt_check_fn check;	/* a rule with other options, or NULL */
};

#define N_OPTS opt_ndefs

/* What parsing knows besides the struct: which options were given. */
struct parse_state {
	struct options *o;
	bool fleet;		/* --listen or --prom-file */
	bool given[64];		/* per row of opt_defs[] */
};

#define FIELD(f) .off = offsetof(struct options, f), .size = sizeof(((struct options *)0)->f)


/* The table: one row per option, in --help's order. */
extern const struct opt_def opt_defs[];
extern const size_t opt_ndefs;

/* --help's text, the table's lines between its head and its examples. */
void opt_print_help(FILE *f);

/* options.c: a usage error said in one line (exit code 2), a bad value of @d, lookups. */
__attribute__((format(printf, 1, 2))) int opt_usage_error(const char *fmt, ...);
int opt_bad_value(const struct opt_def *d, const char *arg);
const struct opt_def *opt_def_of(int val);
bool opt_given(const struct parse_state *st, int val);
void *opt_field(const struct parse_state *st, const struct opt_def *d);

/* options_rules.c: the parsers (-1 when taken, or an exit code) and the rules (NULL or why not). */
const char *opt_check_causes(const struct parse_state *st);
const char *opt_check_cgroup_depth(const struct parse_state *st);
const char *opt_check_cgroup_hier(const struct parse_state *st);
const char *opt_check_clock(const struct parse_state *st);
const char *opt_check_count(const struct parse_state *st);
const char *opt_check_culprit_mode(const struct parse_state *st);
const char *opt_check_culprits(const struct parse_state *st);
const char *opt_check_flamegraph(const struct parse_state *st);
const char *opt_check_heatmap_key(const struct parse_state *st);
const char *opt_check_heatmap_lines(const struct parse_state *st);
const char *opt_check_json(const struct parse_state *st);
const char *opt_check_live(const struct parse_state *st);
const char *opt_check_print(const struct parse_state *st);
const char *opt_check_profile(const struct parse_state *st);
const char *opt_check_profile_stacks(const struct parse_state *st);
int opt_set_profile_sample(struct parse_state *st, const struct opt_def *d, const char *arg);
const char *opt_check_prom_classic(const struct parse_state *st);
const char *opt_check_task_table(const struct parse_state *st);
const char *opt_check_user(const struct parse_state *st);
int opt_set_clock(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_set_key(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_set_listen(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_set_method(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_set_metrics(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_show_help(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_show_usage(struct parse_state *st, const struct opt_def *d, const char *arg);
int opt_show_version(struct parse_state *st, const struct opt_def *d, const char *arg);

#endif /* SH_OPTIONS_DEFS_H */
