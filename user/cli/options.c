// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Command line parsing. One table, opt_defs[], says for each option its
 * names, its --help line, the field of struct options it fills, how its
 * value is parsed and checked (type, limits, the message for a bad value)
 * and the rule it must keep with the other options; parse_options()
 * walks the table, and only the options whose values need more than a
 * type (a metric list, the key's three spellings, --listen) have a
 * parser of their own. Nothing but the struct is written.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "schedhist_profile.h"
#include "cli/options.h"
#include "lib/parse.h"
#include "prom/listen_addr.h"
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

#define N_OPTS ARRAY_SIZE(opt_defs)

/* What parsing knows besides the struct: which options were given. */
struct parse_state {
	struct options *o;
	bool fleet;		/* --listen or --prom-file */
	bool given[64];		/* per row of opt_defs[] */
};

#define FIELD(f) .off = offsetof(struct options, f), .size = sizeof(((struct options *)0)->f)

static int set_metrics(struct parse_state *st, const struct opt_def *d, const char *arg);
static int set_method(struct parse_state *st, const struct opt_def *d, const char *arg);
static int set_clock(struct parse_state *st, const struct opt_def *d, const char *arg);
static const char *check_clock(const struct parse_state *st);
static int set_key(struct parse_state *st, const struct opt_def *d, const char *arg);
static int set_listen(struct parse_state *st, const struct opt_def *d, const char *arg);
static int show_version(struct parse_state *st, const struct opt_def *d, const char *arg);
static int show_help(struct parse_state *st, const struct opt_def *d, const char *arg);
static int show_usage(struct parse_state *st, const struct opt_def *d, const char *arg);
static const char *check_count(const struct parse_state *st);
static const char *check_cgroup_depth(const struct parse_state *st);
static const char *check_culprit_mode(const struct parse_state *st)
{
	return !st->o->culprits ? "--culprit-mode needs --culprits" : NULL;
}

static const char *check_cgroup_hier(const struct parse_state *st);
static const char *check_heatmap_key(const struct parse_state *st);
static const char *check_heatmap_lines(const struct parse_state *st);
static const char *check_user(const struct parse_state *st);
static const char *check_print(const struct parse_state *st);
static const char *check_prom_classic(const struct parse_state *st);
static const char *check_json(const struct parse_state *st);
static const char *check_culprits(const struct parse_state *st);
static const char *check_causes(const struct parse_state *st);
static const char *check_culprit_mode(const struct parse_state *st);
static const char *check_task_table(const struct parse_state *st)
{
	__u32 n = st->o->task_table;

	if (n & (n - 1))
		return "invalid --task-table: want a power of two from 1 to " STR(TASK_TABLE_LIMIT);
	if (st->o->method == SH_METHOD_WAKEUP)
		return "--task-table needs the sched_info method (--method wakeup keeps no table)";
	return st->o->clock == SH_CLOCK_KTIME
		       ? "--task-table needs the sched_info method (--clock ktime is the wakeup method's)"
		       : NULL;
}

/* ktime is the wakeup method's clock: sched_info's times are all the run queue's */
static const char *check_clock(const struct parse_state *st)
{
	return st->o->clock == SH_CLOCK_KTIME && st->o->method == SH_METHOD_SCHED_INFO
		       ? "--clock ktime needs the wakeup method (sched_info reads the run queue clock)"
		       : NULL;
}

static const char *check_live(const struct parse_state *st);
static const char *check_profile(const struct parse_state *st);
static const char *check_flamegraph(const struct parse_state *st);
static const char *check_profile_stacks(const struct parse_state *st);
static int set_profile_sample(struct parse_state *st, const struct opt_def *d, const char *arg);
static const char *check_task_table(const struct parse_state *st);

static const struct opt_def opt_defs[] = {
	{ "metric", 'M', "LIST",
	  "what to measure: offcpu, runq, blocked or a list (default offcpu; runq for INTERVAL [COUNT])",
	  T_CUSTOM, .set = set_metrics },
	{ "method", OPT_METHOD, "HOW",
	  "runq/blocked from: auto (default), sched_info (kernel accounting), wakeup (hooks)",
	  T_CUSTOM, FIELD(method), .set = set_method },
	{ "clock", OPT_CLOCK, "CLOCK",
	  "times from: auto (default), rq (run queue clock), ktime (wakeup method only)",
	  T_CUSTOM, FIELD(clock), .set = set_clock, .check = check_clock },
	{ "key", 'k', "KEY", "histogram per: none (default), comm, pid, tid, cpu, cgroup, pidns",
	  T_CUSTOM, FIELD(key_type), .set = set_key },
	{ "pids", 'P', NULL, "same as -k pid (one histogram per process)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_PID, .set = set_key },
	{ "tids", 'L', NULL, "same as -k tid (one histogram per thread)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_TID, .set = set_key },
	{ "pidnss", OPT_PIDNSS, NULL, "same as -k pidns (one histogram per PID namespace)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_PIDNS, .set = set_key },
	{ "interval", 'i', "DUR",
	  "print a report every DUR, 10ms to 1 day (seconds unless suffixed: 500ms, 2s)",
	  T_DURATION, FIELD(interval_ns), MIN_INTERVAL_NS, MAX_INTERVAL_NS, NSEC_PER_SEC,
	  .err = "invalid interval '%s': want a duration from 10ms to 1 day, e.g. 5 or 500ms" },
	{ "count", 'n', "N", "stop after N reports",
	  T_UINT, FIELD(count), 1, MAX_COUNT,
	  .err = "invalid count '%s': want an integer from 1 to " STR(MAX_COUNT),
	  .check = check_count },
	{ "duration", 'd', "DUR", "stop after DUR (seconds unless suffixed)",
	  T_DURATION, FIELD(duration_ns), 1, MAX_DURATION_NS, NSEC_PER_SEC,
	  .err = "invalid duration '%s': want e.g. 30, 90s or 10m" },
	{ "cumulative", OPT_CUMULATIVE, NULL,
	  "each report covers the time since start, not the interval",
	  T_FLAG, FIELD(cumulative) },
	{ "milliseconds", 'm', NULL, "show waits in milliseconds",
	  T_CONST, FIELD(unit), .min = SH_UNIT_MS },
	{ "unit", OPT_UNIT, "UNIT", "show waits in ns, us (default) or ms",
	  T_NAME, FIELD(unit), .lookup = unit_lookup,
	  .err = "unknown unit '%s': use ns, us or ms" },
	{ "timestamp", 'T', NULL, "print a timestamp before each text report",
	  T_FLAG, FIELD(timestamp) },
	{ "pid", 'p', "PID", "trace only the tasks of process PID",
	  T_UINT, FIELD(pid), 1, PID_MAX_LIMIT,
	  .err = "invalid pid '%s': want an integer from 1 to " STR(PID_MAX_LIMIT) },
	{ "cgroup", 'c', "PATH",
	  "trace only tasks in this cgroup's subtree (cgroupfs or relative path; --profile too)",
	  T_STRING, FIELD(cgroup_path), .err = "empty cgroup path" },
	{ "cgroup-depth", OPT_CGROUP_DEPTH, "N",
	  "-k cgroup: roll tasks up to their ancestor at depth N (1 = top level)",
	  T_UINT, FIELD(cgroup_depth), 1, 255,
	  .err = "invalid cgroup depth '%s': want 1 to 255", .check = check_cgroup_depth },
	{ "cgroup-hier", OPT_CGROUP_HIER, "CTRL",
	  "use the v1 hierarchy of controller CTRL (e.g. cpu) instead of cgroup2",
	  T_STRING, FIELD(cgroup_hier), .err = "empty cgroup controller name",
	  .check = check_cgroup_hier },
	{ "top", OPT_TOP, "N", "show only the N highest-ranked keys",
	  T_UINT, FIELD(top), 1, MAX_KEYS_LIMIT,
	  .err = "invalid --top '%s': want 1 to " STR(MAX_KEYS_LIMIT) },
	{ "sort", OPT_SORT, "BY", "rank keys by sum (default), count, avg, p99 or max",
	  T_NAME, FIELD(sort), .lookup = sort_lookup,
	  .err = "unknown sort '%s': use sum, count, avg, p99 or max" },
	{ "summary", OPT_SUMMARY, NULL, "one table line per key, no histograms",
	  T_FLAG, FIELD(summary) },
	{ "min-count", OPT_MIN_COUNT, "N",
	  "rank keys with fewer than N waits last (a p99 of a few waits is noise)",
	  T_UINT, FIELD(min_count), 1, MAX_COUNT,
	  .err = "invalid --min-count '%s': want an integer from 1 to " STR(MAX_COUNT) },
	{ "culprits", OPT_CULPRITS, NULL,
	  "-M runq: per key, whose running each wait ended behind (the top 5 and [rest])",
	  T_FLAG, FIELD(culprits), .check = check_culprits },
	{ "causes", OPT_CAUSES, NULL,
	  "-M runq: per key, waited time split by cause: self, neighbour, kernel, throttled, "
	  "steal, other",
	  T_FLAG, FIELD(causes), .check = check_causes },
	{ "culprit-mode", OPT_CULPRIT_MODE, "MODE",
	  "with --culprits: switch (default: the whole wait on the task that ran last) or time "
	  "(each task for the time it ran during the wait)",
	  T_NAME, FIELD(culprit_mode), .lookup = culprit_mode_lookup,
	  .err = "unknown --culprit-mode '%s': use switch or time", .check = check_culprit_mode },
	{ "stacks", OPT_STACKS, NULL,
	  "the kernel stack the task of each key's longest wait left the CPU with",
	  T_FLAG, FIELD(stacks) },
	{ "profile", OPT_PROFILE, NULL,
	  "wait time per (task, kernel stack, user stack): folded stacks, or -j top stacks",
	  T_FLAG, FIELD(profile), .check = check_profile },
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE",
	  "with --profile: write an SVG flame graph of the run so far to FILE each report",
	  T_STRING, FIELD(flamegraph), .err = "empty --flamegraph path", .check = check_flamegraph },
	{ "profile-stacks", OPT_PROFILE_STACKS, "LIST",
	  "with --profile: the stacks taken: kernel,user (default), kernel, user or none",
	  T_NAME, FIELD(profile_stacks), .lookup = profile_stacks_lookup,
	  .err = "invalid --profile-stacks '%s': use kernel,user, kernel, user or none",
	  .check = check_profile_stacks },
	{ "profile-sample", OPT_PROFILE_SAMPLE, "HOW",
	  "with --profile: the waits whose stacks are walked: DUR (default 1ms: waits expected "
	  "to last DUR all, shorter ones in proportion), 1/N (one in N) or exact (every one)",
	  T_CUSTOM, .set = set_profile_sample, .check = check_profile_stacks },
	{ "pprof", OPT_PPROF, "FILE",
	  "with --profile: write the run so far as a gzipped pprof profile to FILE each report",
	  T_STRING, FIELD(pprof), .err = "empty --pprof path", .check = check_flamegraph },
	{ "live", OPT_LIVE, NULL,
	  "full-screen live view in the terminal: keys sorted, p99 trend (q quits)",
	  T_FLAG, FIELD(live), .check = check_live },
	{ "min-wait", OPT_MIN_WAIT, "DUR",
	  "text histograms start at DUR; shorter waits fold into one row",
	  /* a unit is required: a bare number would be ambiguous here */
	  T_DURATION, FIELD(min_wait_ns), 0, MAX_INTERVAL_NS, 0,
	  .err = "invalid --min-wait '%s': want a duration with a unit, such as 500us or 2ms" },
	{ "schema", OPT_SCHEMA, "S",
	  "2^S buckets per power of two, S 0 (default) to 3: finer percentiles, 2^S x the histograms' memory",
	  T_UINT, FIELD(schema), 0, SH_SCHEMA_MAX,
	  .err = "invalid --schema '%s': want 0, 1, 2 or 3 (2^S buckets per power of two)" },
	{ "heatmap", OPT_HEATMAP, "FILE",
	  "write an SVG latency heatmap (one column per interval) to FILE",
	  T_STRING, FIELD(heatmap), .err = "empty heatmap path" },
	{ "heatmap-key", OPT_HEATMAP_KEY, "KEY",
	  "the heatmap shows this key only (default: all keys together)",
	  T_STRING, FIELD(heatmap_key), .check = check_heatmap_key },
	{ "heatmap-lines", OPT_HEATMAP_LINES, "LIST",
	  "percentile lines over the heatmap: p50,p99 (default), p50, p99 or none",
	  T_NAME, FIELD(heatmap_lines), .lookup = heatmap_lines_lookup,
	  .err = "invalid --heatmap-lines '%s': use p50,p99, p50, p99 or none",
	  .check = check_heatmap_lines },
	{ "max-keys", OPT_MAX_KEYS, "N",
	  "keys the kernel keeps, each in a slot of the key store (default 10240); new keys beyond go to [other]",
	  T_UINT, FIELD(max_keys), 1, MAX_KEYS_LIMIT,
	  .err = "invalid --max-keys '%s': want 1 to " STR(MAX_KEYS_LIMIT) },
	{ "max-kernel-mem", OPT_MAX_KERNEL_MEM, "MIB",
	  "kernel memory the maps may take at most, in MiB (default 64); fewer keys fit on more CPUs",
	  T_UINT, FIELD(max_kernel_mem_mib), 1, MAX_KERNEL_MEM_LIMIT,
	  .err = "invalid --max-kernel-mem '%s': want 1 to " STR(MAX_KERNEL_MEM_LIMIT) " (MiB)" },
	{ "task-table", OPT_TASK_TABLE, "N",
	  "task table entries, a power of two (default: pid_max's, at most 32768)",
	  T_UINT, FIELD(task_table), 1, TASK_TABLE_LIMIT,
	  .err = "invalid --task-table '%s': want a power of two from 1 to " STR(TASK_TABLE_LIMIT),
	  .check = check_task_table },
	{ "listen", OPT_LISTEN, "ADDR",
	  "serve Prometheus metrics at http://ADDR/metrics, a live page at / (its table: "
	  "/live.json; readiness: /healthz); ADDR: [IP:]PORT",
	  T_CUSTOM, FIELD(listen), .set = set_listen },
	{ "prom-file", OPT_PROM_FILE, "FILE",
	  "rewrite FILE with Prometheus metrics every interval (atomic rename)",
	  T_STRING, FIELD(prom_file), .err = "empty --prom-file path" },
	{ "prom-classic", OPT_PROM_CLASSIC, NULL,
	  "with --listen: classic histograms (le buckets) even to scrapers that ask for native",
	  T_FLAG, FIELD(prom_classic), .check = check_prom_classic },
	{ "user", OPT_USER, "NAME",
	  "with --listen/--prom-file/--profile: run as user NAME once attached (root: nobody)",
	  T_STRING, FIELD(user), .err = "empty --user name", .check = check_user },
	{ "print", OPT_PRINT, NULL,
	  "with --listen/--prom-file: print the reports on stdout too",
	  T_MARK, .check = check_print },
	{ "json", 'j', NULL, "print one JSON object per report (JSON Lines)",
	  T_FLAG, FIELD(json), .check = check_json },
	{ "verbose", 'v', NULL, "print event counters; twice: libbpf's log",
	  T_COUNT, FIELD(verbose) },
	{ "version", 'V', NULL, "print the version and exit", T_CUSTOM, .set = show_version },
	{ "help", 'h', NULL, "print this help and exit (also -?, as runqlat)",
	  T_CUSTOM, .set = show_help },
	{ "usage", OPT_USAGE, NULL, "print a short usage message and exit",
	  T_CUSTOM, .set = show_usage },
};

_Static_assert(N_OPTS <= sizeof(((struct parse_state *)0)->given), "parse_state.given too small");

static const char usage_head[] =
	"Usage: schedhist [OPTION...] [INTERVAL [COUNT]]\n"
	"Histograms of how long tasks wait, binned in the kernel (per CPU, 2^i s buckets).\n"
	"\n"
	"Metrics:\n"
	"  offcpu   off-CPU wait: switch-out -> the same task's next switch-in\n"
	"  runq     run-queue latency: runnable (woken, or preempted while runnable)\n"
	"           -> switch-in; the kernel's run_delay in /proc/PID/task/TID/schedstat\n"
	"  blocked  blocked time: switch-out while not runnable -> runnable again\n"
	"           (offcpu = runq + blocked; -M offcpu,runq,blocked measures all three)\n"
	"\n"
	"Options:\n";

static const char usage_tail[] =
	"\n"
	"Examples:\n"
	"  schedhist -i 5                 off-CPU wait, system-wide, every 5 s\n"
	"  schedhist -M runq -k comm 1 10 run-queue latency per task name, 10 reports\n"
	"  schedhist -M runq -L -p 1234   per-thread run-queue latency of process 1234\n"
	"  schedhist -M runq -k cgroup --cgroup-depth 2 -i 5   which container waits\n"
	"  schedhist -M runq -k comm --summary --sort p99 --top 10 -i 5   tail triage\n"
	"  schedhist -M runq -k comm --sort p99 --live   live view in the terminal (q quits)\n"
	"  schedhist -M runq -j -i 10     JSON Lines for collectors\n"
	"  schedhist --profile -M blocked -p 1234 -d 30 --flamegraph wait.svg > wait.folded\n"
	"                                 where process 1234 sleeps: folded stacks, flame graph\n"
	"  schedhist -M runq -k cgroup --cgroup-depth 2 --listen 9464 --user nobody\n"
	"                                 Prometheus exporter on 127.0.0.1:9464\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure, 2 usage error or a host it cannot run on.\n"
	"See schedhist(8) for the exact definitions and the output formats.\n";

static void print_help(FILE *f)
{
	size_t i;

	fputs(usage_head, f);
	for (i = 0; i < N_OPTS; i++) {
		const struct opt_def *d = &opt_defs[i];
		char left[64];
		int n;

		if (d->val < 256)
			n = snprintf(left, sizeof(left), "  -%c, --%s", d->val, d->name);
		else
			n = snprintf(left, sizeof(left), "      --%s", d->name);
		if (d->arg)
			snprintf(left + n, sizeof(left) - n, " %s", d->arg);
		fprintf(f, "%-28s %s\n", left, d->help);
	}
	fputs(usage_tail, f);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the message quotes the user's words: keep it one line, no escapes */
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "schedhist: %s (see schedhist --help)\n", msg);
	return SH_EXIT_USAGE;
}

/*
 * getopt refused @arg (with getopt's @opt): say why. A short letter that
 * is not ours is unknown; otherwise @arg is a long option that is
 * unknown, an ambiguous prefix, or a flag given "=VALUE" (for which
 * getopt sets @opt to the flag's letter, so "--json=1" is not "-j").
 */
static int option_error(const char *arg, int opt)
{
	const struct opt_def *hit = NULL;
	const char *name, *eq;
	size_t len, i, n = 0;

	if (opt > 0 && opt < 256) {
		for (i = 0; i < N_OPTS && opt_defs[i].val != opt; i++)
			;
		if (i == N_OPTS)
			return usage_error("unknown option '-%c'", opt);
	}
	if (strncmp(arg, "--", 2))
		return usage_error("unknown option '%s'", arg);
	name = arg + 2;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	if (!len)
		return usage_error("unknown option '%s'", arg);
	for (i = 0; i < N_OPTS; i++) {
		if (strncmp(opt_defs[i].name, name, len))
			continue;
		hit = &opt_defs[i];
		if (strlen(hit->name) == len) {
			n = 1;
			break;
		}
		n++;
	}
	if (n > 1)
		return usage_error("ambiguous option '--%.*s'", (int)len, name);
	if (n == 1 && eq && !hit->arg)
		return usage_error("option '--%s' takes no argument", hit->name);
	return usage_error("unknown option '--%.*s'", (int)len, name);
}


/* The usage error of a bad value @arg of option @d. */
static int bad_value(const struct opt_def *d, const char *arg)
{
	const char *p = strstr(d->err, "%s");

	if (!p)
		return usage_error("%s", d->err);
	return usage_error("%.*s%s%s", (int)(p - d->err), d->err, arg, p + 2);
}

static const struct opt_def *def_of(int val)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_defs[i].val == val)
			return &opt_defs[i];
	return NULL;
}

static bool given(const struct parse_state *st, int val)
{
	return st->given[def_of(val) - opt_defs];
}

static void *field(const struct parse_state *st, const struct opt_def *d)
{
	return (char *)st->o + d->off;
}

/* @v into an integer field of @d->size bytes. */
static void store_uint(void *p, size_t size, __u64 v)
{
	switch (size) {
	case sizeof(__u8): { __u8 x = (__u8)v; memcpy(p, &x, size); break; }
	case sizeof(__u16): { __u16 x = (__u16)v; memcpy(p, &x, size); break; }
	case sizeof(__u32): { __u32 x = (__u32)v; memcpy(p, &x, size); break; }
	default: memcpy(p, &v, sizeof(v)); break;
	}
}

/* Option @d with @arg (NULL for a flag): -1 when taken, or an exit code. */
static int apply(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	void *f = field(st, d);
	__u64 v;
	int r;

	switch (d->type) {
	case T_FLAG:
		*(bool *)f = true;
		break;
	case T_COUNT:
		(*(int *)f)++;
		break;
	case T_CONST:
		*(int *)f = (int)d->min;
		break;
	case T_MARK:
		break;
	case T_UINT:
		if (parse_u64(arg, d->min, d->max, &v))
			return bad_value(d, arg);
		store_uint(f, d->size, v);
		break;
	case T_DURATION:
		if ((!d->unit_ns && (!*arg || !strpbrk(arg, "nums"))) ||
		    parse_duration(arg, d->unit_ns ? d->unit_ns : 1, &v) || v < d->min || v > d->max)
			return bad_value(d, arg);
		*(__u64 *)f = v;
		break;
	case T_NAME:
		r = d->lookup(arg);
		if (r < 0)
			return bad_value(d, arg);
		*(int *)f = r;
		break;
	case T_STRING:
		if (d->err && !*arg)
			return bad_value(d, arg);
		*(const char **)f = arg;
		break;
	case T_CUSTOM:
		if ((r = d->set(st, d, arg)) >= 0)
			return r;
		break;
	}
	st->given[d - opt_defs] = true;
	return -1;
}

static int set_metrics(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	const char *bad;

	if (parse_metrics(arg, &o->metrics, &bad) && metric_lookup(bad) >= 0)
		return usage_error("metric '%s' named twice in '%s'", bad, arg);
	if (parse_metrics(arg, &o->metrics, &bad))
		return usage_error("unknown metric '%s': use offcpu, runq or blocked, "
				   "or a list of them such as offcpu,runq", bad);
	o->metric = __builtin_ctz(o->metrics);
	return -1;
}

static int set_method(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	int m = method_lookup(arg);

	if (m < SH_METHOD_AUTO)
		return usage_error("unknown method '%s': use auto, sched_info or wakeup", arg);
	st->o->method = m;
	return -1;
}

static int set_clock(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	int c = clock_lookup(arg);

	if (c < SH_CLOCK_AUTO)
		return usage_error("unknown clock '%s': use auto, rq or ktime", arg);
	st->o->clock = c;
	return -1;
}

/* -k KEY, -P, -L and --pidnss: one key, however spelled. */
static int set_key(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	int k = (int)d->min;

	if (d->arg) {
		k = key_lookup(arg);
		if (k < 0)
			return usage_error("unknown key '%s': use none, comm, pid, tid, cpu, cgroup "
					   "or pidns", arg);
	}
	if ((given(st, 'k') || given(st, 'P') || given(st, 'L') || given(st, OPT_PIDNSS)) &&
	    o->key_type != k)
		return usage_error("conflicting keys: -k %s and -k %s", key_name(o->key_type),
				   key_name(k));
	o->key_type = k;
	return -1;
}

static int set_listen(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	char err[256];

	if (listen_addr_parse(arg, &st->o->listen_addr, err, sizeof(err)))
		return usage_error("%s", err);
	st->o->listen = arg;
	return -1;
}

static int show_version(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	printf("schedhist %s\n", SCHEDHIST_VERSION);
	return SH_EXIT_OK;
}

static int show_help(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	print_help(stdout);
	return SH_EXIT_OK;
}

/* runqlat's --usage: the synopsis, every option on it, no explanations. */
static int show_usage(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	size_t i;
	int col = printf("Usage: schedhist");

	for (i = 0; i < N_OPTS; i++) {
		char item[64];
		int n;

		d = &opt_defs[i];
		if (d->val < 256)
			n = snprintf(item, sizeof(item), " [-%c%s%s]", d->val, d->arg ? " " : "",
				     d->arg ? d->arg : "");
		else
			n = snprintf(item, sizeof(item), " [--%s%s%s]", d->name, d->arg ? "=" : "",
				     d->arg ? d->arg : "");
		if (col + n > 79) {
			printf("\n           ");
			col = 16 - 5;
		}
		col += printf("%s", item);
	}
	printf("%s [INTERVAL [COUNT]]\n", col + 20 > 79 ? "\n           " : "");
	return SH_EXIT_OK;
}

static const char *check_count(const struct parse_state *st)
{
	return !given(st, 'i') ? "a count needs an interval (-i)" : NULL;
}

static const char *check_cgroup_depth(const struct parse_state *st)
{
	return st->o->key_type != SH_KEY_CGROUP ? "--cgroup-depth needs -k cgroup" : NULL;
}

static const char *check_culprits(const struct parse_state *st)
{
	if (!(st->o->metrics & (1U << SH_METRIC_RUNQ)))
		return "--culprits needs -M runq (it blames run-queue waits)";
	if (st->o->key_type == SH_KEY_NONE || st->o->key_type == SH_KEY_CPU)
		return "--culprits needs -k comm, pid, tid, cgroup or pidns (culprits are keys of that "
		       "type)";
	return NULL;
}

static const char *check_causes(const struct parse_state *st)
{
	if (!(st->o->metrics & (1U << SH_METRIC_RUNQ)))
		return "--causes needs -M runq (it splits run-queue waits)";
	if (st->o->method == SH_METHOD_WAKEUP || st->o->clock == SH_CLOCK_KTIME)
		return "--causes needs the sched_info method (a wait's start is its last_queued "
		       "stamp), not --method wakeup nor --clock ktime";
	return NULL;
}

static const char *check_cgroup_hier(const struct parse_state *st)
{
	return st->o->key_type != SH_KEY_CGROUP && !st->o->cgroup_path
		       ? "--cgroup-hier needs -k cgroup or -c" : NULL;
}

static const char *check_heatmap_key(const struct parse_state *st)
{
	if (!st->o->heatmap)
		return "--heatmap-key needs --heatmap";
	if (st->o->key_type == SH_KEY_NONE)
		return "--heatmap-key needs a key other than none (-k)";
	return NULL;
}

static const char *check_heatmap_lines(const struct parse_state *st)
{
	return !st->o->heatmap ? "--heatmap-lines needs --heatmap" : NULL;
}

static const char *check_user(const struct parse_state *st)
{
	return !st->fleet && !st->o->profile ? "--user needs --listen, --prom-file or --profile"
					       : NULL;
}

static const char *check_print(const struct parse_state *st)
{
	return !st->fleet ? "--print needs --listen or --prom-file" : NULL;
}

static const char *check_prom_classic(const struct parse_state *st)
{
	return !st->o->listen ? "--prom-classic needs --listen (--prom-file is always classic)"
			      : NULL;
}

static const char *check_json(const struct parse_state *st)
{
	return st->fleet && !given(st, OPT_PRINT) ? "-j with --listen or --prom-file needs --print"
						   : NULL;
}

/* the profile is its own mode: one metric, a task key, stdout only */
static const char *check_profile(const struct parse_state *st)
{
	const struct options *o = st->o;

	if (o->metrics & (o->metrics - 1))
		return "--profile measures one metric: -M offcpu, runq or blocked";
	if (o->key_type != SH_KEY_NONE && o->key_type != SH_KEY_COMM && o->key_type != SH_KEY_PID &&
	    o->key_type != SH_KEY_TID)
		return "--profile groups by -k none, comm, pid or tid";
	if (o->culprits || o->causes || o->stacks || o->heatmap || o->live || st->fleet ||
	    o->summary || given(st, OPT_SORT) || given(st, OPT_MIN_WAIT) ||
	    given(st, OPT_MIN_COUNT) || given(st, OPT_TASK_TABLE) || given(st, OPT_METHOD) ||
	    given(st, OPT_CLOCK) || given(st, OPT_SCHEMA))
		return "--profile takes only -M, -k, -p, -c, --cgroup-hier, -i, -n, -d, --cumulative, "
		       "--unit, -m, --top, --max-keys, --flamegraph, --pprof, --profile-stacks, "
		       "--profile-sample, --user, -j and -v";
	return NULL;
}

static const char *check_flamegraph(const struct parse_state *st)
{
	if (st->o->profile)
		return NULL;
	return given(st, OPT_FLAMEGRAPH) ? "--flamegraph needs --profile" : "--pprof needs --profile";
}

static const char *check_profile_stacks(const struct parse_state *st)
{
	if (st->o->profile)
		return NULL;
	return given(st, OPT_PROFILE_STACKS) ? "--profile-stacks needs --profile"
					      : "--profile-sample needs --profile";
}

/* --profile-sample exact, 1/N or a duration, the threshold of the expected wait */
static int set_profile_sample(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	__u64 v;

	if (!strcmp(arg, "exact")) {
		o->profile_sample_p = SH_PROF_P_ONE;
	} else if (!strncmp(arg, "1/", 2)) {
		if (parse_u64(arg + 2, 1, SH_PROF_P_ONE, &v))
			return usage_error("invalid --profile-sample '%s': want 1/N, N from 1 to "
					   "1048576", arg);
		o->profile_sample_p = (__u32)(SH_PROF_P_ONE / v);
	} else if (!parse_duration(arg, 0, &v) && v >= 1000 && v <= 3600 * NSEC_PER_SEC &&
		   strpbrk(arg, "nums")) {
		o->profile_sample_p = 0;
		o->profile_sample_ns = v;
	} else {
		return usage_error("invalid --profile-sample '%s': want exact, 1/N or a duration "
				   "from 1us to 1h such as 1ms", arg);
	}
	return -1;
}

static const char *check_live(const struct parse_state *st)
{
	if (st->o->json)
		return "--live draws on the terminal: not with -j";
	if (given(st, OPT_PRINT))
		return "--live draws on the terminal: not with --print";
	return NULL;
}

/* A positional [INTERVAL [COUNT]] as option @val; the option itself may not be given too. */
static int positional(struct parse_state *st, int val, const char *arg, const char *twice)
{
	if (given(st, val))
		return usage_error("%s", twice);
	return apply(st, def_of(val), arg);
}

int parse_options(int argc, char **argv, struct options *o)
{
	struct parse_state st = { .o = o };
	struct option longopts[N_OPTS + 1];
	char shortopts[N_OPTS * 2 + 2];
	const struct opt_def *d;
	const char *why;
	bool positional_interval;
	size_t i, n = 0;
	int c, r;

	memset(o, 0, sizeof(*o));
	o->metrics = 1U << SH_METRIC_OFFCPU;
	o->method = SH_METHOD_AUTO;
	o->clock = SH_CLOCK_AUTO;
	o->unit = SH_UNIT_US;
	o->max_keys = DEFAULT_MAX_KEYS;
	o->max_kernel_mem_mib = DEFAULT_MAX_KERNEL_MEM;
	o->heatmap_lines = HM_LINE_P50 | HM_LINE_P99;
	o->profile_stacks = SH_PROF_STACK_KERNEL | SH_PROF_STACK_USER;
	o->profile_sample_ns = SH_PROF_SAMPLE_NS;

	shortopts[n++] = ':';
	for (i = 0; i < N_OPTS; i++) {
		d = &opt_defs[i];
		longopts[i] = (struct option){ d->name, d->arg ? required_argument : no_argument,
					       NULL, d->val };
		if (d->val < 256) {
			shortopts[n++] = (char)d->val;
			if (d->arg)
				shortopts[n++] = ':';
		}
	}
	shortopts[n] = '\0';
	memset(&longopts[N_OPTS], 0, sizeof(longopts[N_OPTS]));

	opterr = 0;
	optind = 0;	/* 0, not 1: glibc then also forgets a half-parsed "-abc" */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == ':')
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		/* runqlat's -? is its help; getopt returns '?' for it and for an unknown option */
		if (c == '?' && optopt == '?')
			return show_help(&st, def_of('h'), NULL);
		d = def_of(c);
		if (!d)
			return option_error(argv[optind - 1], optopt);
		if ((r = apply(&st, d, optarg)) >= 0)
			return r;
	}

	/* runqlat-compatible positionals: [interval [count]] */
	positional_interval = optind < argc;
	if (optind < argc &&
	    (r = positional(&st, 'i', argv[optind++], "interval given twice (-i and positional)")) >= 0)
		return r;
	if (optind < argc &&
	    (r = positional(&st, 'n', argv[optind++], "count given twice (-n and positional)")) >= 0)
		return r;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	/*
	 * runqlat's command line, INTERVAL [COUNT] as arguments, asks runqlat's
	 * question: how long tasks wait for a CPU. schedhist's own -i keeps
	 * the default metric, off-CPU wait; -M always wins.
	 */
	if (positional_interval && !given(&st, 'M')) {
		o->metrics = 1U << SH_METRIC_RUNQ;
		o->metric = SH_METRIC_RUNQ;
	}

	/* the live view takes the terminal: no reports on it, a reading a second */
	if (o->live && !given(&st, 'i')) {
		o->interval_ns = NSEC_PER_SEC;
		st.given[def_of('i') - opt_defs] = true;
	}
	/* fleet mode: a daemon that prints nothing unless asked, 5 s readings */
	st.fleet = o->listen || o->prom_file;
	if (st.fleet && !given(&st, 'i')) {
		o->interval_ns = FLEET_INTERVAL_NS;
		st.given[def_of('i') - opt_defs] = true;
	}
	o->print = o->live ? false : st.fleet ? given(&st, OPT_PRINT) : true;
	o->sort_set = given(&st, OPT_SORT);
	o->max_keys_set = given(&st, OPT_MAX_KEYS);

	/* the rules between options, in the table's order */
	for (i = 0; i < N_OPTS; i++)
		if (st.given[i] && opt_defs[i].check && (why = opt_defs[i].check(&st)))
			return usage_error("%s", why);
	return -1;
}

int options_check_pid(const struct options *o)
{
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "schedhist: no such process: %d\n", o->pid);
		return SH_EXIT_USAGE;
	}
	return 0;
}
