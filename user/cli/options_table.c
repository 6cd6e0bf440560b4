// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The one option table (names, --help line, field, parser, rule), and --help from it. */
#include <stdio.h>

#include "cli/options_defs.h"
#include "lib/names.h"

const struct opt_def opt_defs[] = {
	{ "metric", 'M', "LIST",
	  "what to measure: offcpu, runq, blocked or a list (default offcpu; runq for INTERVAL [COUNT])",
	  T_CUSTOM, .set = opt_set_metrics },
	{ "method", OPT_METHOD, "HOW",
	  "runq/blocked from: auto (default), sched_info (kernel accounting), wakeup (hooks)",
	  T_CUSTOM, FIELD(method), .set = opt_set_method },
	{ "clock", OPT_CLOCK, "CLOCK",
	  "times from: auto (default), rq (run queue clock), ktime (wakeup method only)",
	  T_CUSTOM, FIELD(clock), .set = opt_set_clock, .check = opt_check_clock },
	{ "key", 'k', "KEY", "histogram per: none (default), comm, pid, tid, cpu, cgroup, pidns",
	  T_CUSTOM, FIELD(key_type), .set = opt_set_key },
	{ "pids", 'P', NULL, "same as -k pid (one histogram per process)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_PID, .set = opt_set_key },
	{ "tids", 'L', NULL, "same as -k tid (one histogram per thread)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_TID, .set = opt_set_key },
	{ "pidnss", OPT_PIDNSS, NULL, "same as -k pidns (one histogram per PID namespace)",
	  T_CUSTOM, FIELD(key_type), .min = SH_KEY_PIDNS, .set = opt_set_key },
	{ "interval", 'i', "DUR",
	  "print a report every DUR, 10ms to 1 day (seconds unless suffixed: 500ms, 2s)",
	  T_DURATION, FIELD(interval_ns), MIN_INTERVAL_NS, MAX_INTERVAL_NS, NSEC_PER_SEC,
	  .err = "invalid interval '%s': want a duration from 10ms to 1 day, e.g. 5 or 500ms" },
	{ "count", 'n', "N", "stop after N reports",
	  T_UINT, FIELD(count), 1, MAX_COUNT,
	  .err = "invalid count '%s': want an integer from 1 to " STR(MAX_COUNT),
	  .check = opt_check_count },
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
	  .err = "invalid cgroup depth '%s': want 1 to 255", .check = opt_check_cgroup_depth },
	{ "cgroup-hier", OPT_CGROUP_HIER, "CTRL",
	  "use the v1 hierarchy of controller CTRL (e.g. cpu) instead of cgroup2",
	  T_STRING, FIELD(cgroup_hier), .err = "empty cgroup controller name",
	  .check = opt_check_cgroup_hier },
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
	  T_FLAG, FIELD(culprits), .check = opt_check_culprits },
	{ "causes", OPT_CAUSES, NULL,
	  "-M runq: per key, waited time split by cause: self, neighbour, kernel, throttled, "
	  "steal, other",
	  T_FLAG, FIELD(causes), .check = opt_check_causes },
	{ "culprit-mode", OPT_CULPRIT_MODE, "MODE",
	  "with --culprits: switch (default: the whole wait on the task that ran last) or time "
	  "(each task for the time it ran during the wait)",
	  T_NAME, FIELD(culprit_mode), .lookup = culprit_mode_lookup,
	  .err = "unknown --culprit-mode '%s': use switch or time", .check = opt_check_culprit_mode },
	{ "stacks", OPT_STACKS, NULL,
	  "the kernel stack the task of each key's longest wait left the CPU with",
	  T_FLAG, FIELD(stacks) },
	{ "profile", OPT_PROFILE, NULL,
	  "wait time per (task, kernel stack, user stack): folded stacks, or -j top stacks",
	  T_FLAG, FIELD(profile), .check = opt_check_profile },
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE",
	  "with --profile: write an SVG flame graph of the run so far to FILE each report",
	  T_STRING, FIELD(flamegraph), .err = "empty --flamegraph path", .check = opt_check_flamegraph },
	{ "profile-stacks", OPT_PROFILE_STACKS, "LIST",
	  "with --profile: the stacks taken: kernel,user (default), kernel, user or none",
	  T_NAME, FIELD(profile_stacks), .lookup = profile_stacks_lookup,
	  .err = "invalid --profile-stacks '%s': use kernel,user, kernel, user or none",
	  .check = opt_check_profile_stacks },
	{ "profile-sample", OPT_PROFILE_SAMPLE, "HOW",
	  "with --profile: the waits whose stacks are walked: DUR (default 1ms: waits expected "
	  "to last DUR all, shorter ones in proportion), 1/N (one in N) or exact (every one)",
	  T_CUSTOM, .set = opt_set_profile_sample, .check = opt_check_profile_stacks },
	{ "pprof", OPT_PPROF, "FILE",
	  "with --profile: write the run so far as a gzipped pprof profile to FILE each report",
	  T_STRING, FIELD(pprof), .err = "empty --pprof path", .check = opt_check_flamegraph },
	{ "live", OPT_LIVE, NULL,
	  "full-screen live view in the terminal: keys sorted, p99 trend (q quits)",
	  T_FLAG, FIELD(live), .check = opt_check_live },
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
	  T_STRING, FIELD(heatmap_key), .check = opt_check_heatmap_key },
	{ "heatmap-lines", OPT_HEATMAP_LINES, "LIST",
	  "percentile lines over the heatmap: p50,p99 (default), p50, p99 or none",
	  T_NAME, FIELD(heatmap_lines), .lookup = heatmap_lines_lookup,
	  .err = "invalid --heatmap-lines '%s': use p50,p99, p50, p99 or none",
	  .check = opt_check_heatmap_lines },
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
	  .check = opt_check_task_table },
	{ "listen", OPT_LISTEN, "ADDR",
	  "serve Prometheus metrics at http://ADDR/metrics, a live page at / (its table: "
	  "/live.json; readiness: /healthz); ADDR: [IP:]PORT",
	  T_CUSTOM, FIELD(listen), .set = opt_set_listen },
	{ "prom-file", OPT_PROM_FILE, "FILE",
	  "rewrite FILE with Prometheus metrics every interval (atomic rename)",
	  T_STRING, FIELD(prom_file), .err = "empty --prom-file path" },
	{ "prom-classic", OPT_PROM_CLASSIC, NULL,
	  "with --listen: classic histograms (le buckets) even to scrapers that ask for native",
	  T_FLAG, FIELD(prom_classic), .check = opt_check_prom_classic },
	{ "user", OPT_USER, "NAME",
	  "with --listen/--prom-file/--profile: run as user NAME once attached (root: nobody)",
	  T_STRING, FIELD(user), .err = "empty --user name", .check = opt_check_user },
	{ "print", OPT_PRINT, NULL,
	  "with --listen/--prom-file: print the reports on stdout too",
	  T_MARK, .check = opt_check_print },
	{ "json", 'j', NULL, "print one JSON object per report (JSON Lines)",
	  T_FLAG, FIELD(json), .check = opt_check_json },
	{ "verbose", 'v', NULL, "print event counters; twice: libbpf's log",
	  T_COUNT, FIELD(verbose) },
	{ "version", 'V', NULL, "print the version and exit", T_CUSTOM, .set = opt_show_version },
	{ "help", 'h', NULL, "print this help and exit (also -?, as runqlat)",
	  T_CUSTOM, .set = opt_show_help },
	{ "usage", OPT_USAGE, NULL, "print a short usage message and exit",
	  T_CUSTOM, .set = opt_show_usage },
};

const size_t opt_ndefs = ARRAY_SIZE(opt_defs);

_Static_assert(ARRAY_SIZE(opt_defs) <= sizeof(((struct parse_state *)0)->given), "parse_state.given too small");

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

void opt_print_help(FILE *f)
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
