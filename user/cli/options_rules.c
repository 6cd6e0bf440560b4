// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The options whose value needs its own parser, and the rules between options. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist_profile.h"
#include "cli/options_defs.h"
#include "lib/parse.h"
#include "prom/listen_addr.h"

const char *opt_check_culprit_mode(const struct parse_state *st)
{
	return !st->o->culprits ? "--culprit-mode needs --culprits" : NULL;
}

const char *opt_check_task_table(const struct parse_state *st)
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
const char *opt_check_clock(const struct parse_state *st)
{
	return st->o->clock == SH_CLOCK_KTIME && st->o->method == SH_METHOD_SCHED_INFO
		       ? "--clock ktime needs the wakeup method (sched_info reads the run queue clock)"
		       : NULL;
}

int opt_set_metrics(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	const char *bad;

	if (parse_metrics(arg, &o->metrics, &bad) && metric_lookup(bad) >= 0)
		return opt_usage_error("metric '%s' named twice in '%s'", bad, arg);
	if (parse_metrics(arg, &o->metrics, &bad))
		return opt_usage_error("unknown metric '%s': use offcpu, runq or blocked, "
				   "or a list of them such as offcpu,runq", bad);
	o->metric = __builtin_ctz(o->metrics);
	return -1;
}

int opt_set_method(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	int m = method_lookup(arg);

	if (m < SH_METHOD_AUTO)
		return opt_usage_error("unknown method '%s': use auto, sched_info or wakeup", arg);
	st->o->method = m;
	return -1;
}

int opt_set_clock(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	int c = clock_lookup(arg);

	if (c < SH_CLOCK_AUTO)
		return opt_usage_error("unknown clock '%s': use auto, rq or ktime", arg);
	st->o->clock = c;
	return -1;
}

/* -k KEY, -P, -L and --pidnss: one key, however spelled. */
int opt_set_key(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	int k = (int)d->min;

	if (d->arg) {
		k = key_lookup(arg);
		if (k < 0)
			return opt_usage_error("unknown key '%s': use none, comm, pid, tid, cpu, cgroup "
					   "or pidns", arg);
	}
	if ((opt_given(st, 'k') || opt_given(st, 'P') || opt_given(st, 'L') || opt_given(st, OPT_PIDNSS)) &&
	    o->key_type != k)
		return opt_usage_error("conflicting keys: -k %s and -k %s", key_name(o->key_type),
				   key_name(k));
	o->key_type = k;
	return -1;
}

int opt_set_listen(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	char err[256];

	if (listen_addr_parse(arg, &st->o->listen_addr, err, sizeof(err)))
		return opt_usage_error("%s", err);
	st->o->listen = arg;
	return -1;
}

int opt_show_version(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	printf("schedhist %s\n", SCHEDHIST_VERSION);
	return SH_EXIT_OK;
}

int opt_show_help(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	opt_print_help(stdout);
	return SH_EXIT_OK;
}

/* runqlat's --usage: the synopsis, every option on it, no explanations. */
int opt_show_usage(struct parse_state *st, const struct opt_def *d, const char *arg)
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

const char *opt_check_count(const struct parse_state *st)
{
	return !opt_given(st, 'i') ? "a count needs an interval (-i)" : NULL;
}

const char *opt_check_cgroup_depth(const struct parse_state *st)
{
	return st->o->key_type != SH_KEY_CGROUP ? "--cgroup-depth needs -k cgroup" : NULL;
}

const char *opt_check_culprits(const struct parse_state *st)
{
	if (!(st->o->metrics & (1U << SH_METRIC_RUNQ)))
		return "--culprits needs -M runq (it blames run-queue waits)";
	if (st->o->key_type == SH_KEY_NONE || st->o->key_type == SH_KEY_CPU)
		return "--culprits needs -k comm, pid, tid, cgroup or pidns (culprits are keys of that "
		       "type)";
	return NULL;
}

const char *opt_check_causes(const struct parse_state *st)
{
	if (!(st->o->metrics & (1U << SH_METRIC_RUNQ)))
		return "--causes needs -M runq (it splits run-queue waits)";
	if (st->o->method == SH_METHOD_WAKEUP || st->o->clock == SH_CLOCK_KTIME)
		return "--causes needs the sched_info method (a wait's start is its last_queued "
		       "stamp), not --method wakeup nor --clock ktime";
	return NULL;
}

const char *opt_check_cgroup_hier(const struct parse_state *st)
{
	return st->o->key_type != SH_KEY_CGROUP && !st->o->cgroup_path
		       ? "--cgroup-hier needs -k cgroup or -c" : NULL;
}

const char *opt_check_heatmap_key(const struct parse_state *st)
{
	if (!st->o->heatmap)
		return "--heatmap-key needs --heatmap";
	if (st->o->key_type == SH_KEY_NONE)
		return "--heatmap-key needs a key other than none (-k)";
	return NULL;
}

const char *opt_check_heatmap_lines(const struct parse_state *st)
{
	return !st->o->heatmap ? "--heatmap-lines needs --heatmap" : NULL;
}

const char *opt_check_user(const struct parse_state *st)
{
	return !st->fleet && !st->o->profile ? "--user needs --listen, --prom-file or --profile"
					       : NULL;
}

const char *opt_check_print(const struct parse_state *st)
{
	return !st->fleet ? "--print needs --listen or --prom-file" : NULL;
}

const char *opt_check_prom_classic(const struct parse_state *st)
{
	return !st->o->listen ? "--prom-classic needs --listen (--prom-file is always classic)"
			      : NULL;
}

const char *opt_check_json(const struct parse_state *st)
{
	return st->fleet && !opt_given(st, OPT_PRINT) ? "-j with --listen or --prom-file needs --print"
						   : NULL;
}

/* the profile is its own mode: one metric, a task key, stdout only */
const char *opt_check_profile(const struct parse_state *st)
{
	const struct options *o = st->o;

	if (o->metrics & (o->metrics - 1))
		return "--profile measures one metric: -M offcpu, runq or blocked";
	if (o->key_type != SH_KEY_NONE && o->key_type != SH_KEY_COMM && o->key_type != SH_KEY_PID &&
	    o->key_type != SH_KEY_TID)
		return "--profile groups by -k none, comm, pid or tid";
	if (o->culprits || o->causes || o->stacks || o->heatmap || o->live || st->fleet ||
	    o->summary || opt_given(st, OPT_SORT) || opt_given(st, OPT_MIN_WAIT) ||
	    opt_given(st, OPT_MIN_COUNT) || opt_given(st, OPT_TASK_TABLE) || opt_given(st, OPT_METHOD) ||
	    opt_given(st, OPT_CLOCK) || opt_given(st, OPT_SCHEMA))
		return "--profile takes only -M, -k, -p, -c, --cgroup-hier, -i, -n, -d, --cumulative, "
		       "--unit, -m, --top, --max-keys, --flamegraph, --pprof, --profile-stacks, "
		       "--profile-sample, --user, -j and -v";
	return NULL;
}

const char *opt_check_flamegraph(const struct parse_state *st)
{
	if (st->o->profile)
		return NULL;
	return opt_given(st, OPT_FLAMEGRAPH) ? "--flamegraph needs --profile" : "--pprof needs --profile";
}

const char *opt_check_profile_stacks(const struct parse_state *st)
{
	if (st->o->profile)
		return NULL;
	return opt_given(st, OPT_PROFILE_STACKS) ? "--profile-stacks needs --profile"
						  : "--profile-sample needs --profile";
}

/* --profile-sample exact, 1/N or a duration, the threshold of the expected wait */
int opt_set_profile_sample(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	struct options *o = st->o;
	__u64 v;

	if (!strcmp(arg, "exact")) {
		o->profile_sample_p = SH_PROF_P_ONE;
	} else if (!strncmp(arg, "1/", 2)) {
		if (parse_u64(arg + 2, 1, SH_PROF_P_ONE, &v))
			return opt_usage_error("invalid --profile-sample '%s': want 1/N, N from 1 to "
					   "1048576", arg);
		o->profile_sample_p = (__u32)(SH_PROF_P_ONE / v);
	} else if (!parse_duration(arg, 0, &v) && v >= 1000 && v <= 3600 * NSEC_PER_SEC &&
		   strpbrk(arg, "nums")) {
		o->profile_sample_p = 0;
		o->profile_sample_ns = v;
	} else {
		return opt_usage_error("invalid --profile-sample '%s': want exact, 1/N or a duration "
				   "from 1us to 1h such as 1ms", arg);
	}
	return -1;
}

const char *opt_check_live(const struct parse_state *st)
{
	if (st->o->json)
		return "--live draws on the terminal: not with -j";
	if (opt_given(st, OPT_PRINT))
		return "--live draws on the terminal: not with --print";
	return NULL;
}
