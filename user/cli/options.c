// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Command line parsing, driven by opt_defs[] (options_table.c); options_rules.c has the rest. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist_profile.h"
#include "cli/options_defs.h"
#include "lib/parse.h"

__attribute__((format(printf, 1, 2)))
int opt_usage_error(const char *fmt, ...)
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

/* getopt refused @arg (@opt): unknown, ambiguous, or a flag given "=VALUE" ("--json=1"). */
static int option_error(const char *arg, int opt)
{
	const struct opt_def *hit = NULL;
	const char *name, *eq;
	size_t len, i, n = 0;

	if (opt > 0 && opt < 256) {
		for (i = 0; i < N_OPTS && opt_defs[i].val != opt; i++)
			;
		if (i == N_OPTS)
			return opt_usage_error("unknown option '-%c'", opt);
	}
	if (strncmp(arg, "--", 2))
		return opt_usage_error("unknown option '%s'", arg);
	name = arg + 2;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	if (!len)
		return opt_usage_error("unknown option '%s'", arg);
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
		return opt_usage_error("ambiguous option '--%.*s'", (int)len, name);
	if (n == 1 && eq && !hit->arg)
		return opt_usage_error("option '--%s' takes no argument", hit->name);
	return opt_usage_error("unknown option '--%.*s'", (int)len, name);
}


int opt_bad_value(const struct opt_def *d, const char *arg)
{
	const char *p = strstr(d->err, "%s");

	if (!p)
		return opt_usage_error("%s", d->err);
	return opt_usage_error("%.*s%s%s", (int)(p - d->err), d->err, arg, p + 2);
}

const struct opt_def *opt_def_of(int val)
{
	size_t i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_defs[i].val == val)
			return &opt_defs[i];
	return NULL;
}

bool opt_given(const struct parse_state *st, int val)
{
	return st->given[opt_def_of(val) - opt_defs];
}

void *opt_field(const struct parse_state *st, const struct opt_def *d)
{
	return (char *)st->o + d->off;
}

static void store_uint(void *p, size_t size, __u64 v)
{
	switch (size) {
	case sizeof(__u8): { __u8 x = (__u8)v; memcpy(p, &x, size); break; }
	case sizeof(__u16): { __u16 x = (__u16)v; memcpy(p, &x, size); break; }
	case sizeof(__u32): { __u32 x = (__u32)v; memcpy(p, &x, size); break; }
	default: memcpy(p, &v, sizeof(v)); break;
	}
}

static int apply(struct parse_state *st, const struct opt_def *d, const char *arg)
{
	void *f = opt_field(st, d);
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
			return opt_bad_value(d, arg);
		store_uint(f, d->size, v);
		break;
	case T_DURATION:
		if ((!d->unit_ns && (!*arg || !strpbrk(arg, "nums"))) ||
		    parse_duration(arg, d->unit_ns ? d->unit_ns : 1, &v) || v < d->min || v > d->max)
			return opt_bad_value(d, arg);
		*(__u64 *)f = v;
		break;
	case T_NAME:
		r = d->lookup(arg);
		if (r < 0)
			return opt_bad_value(d, arg);
		*(int *)f = r;
		break;
	case T_STRING:
		if (d->err && !*arg)
			return opt_bad_value(d, arg);
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

/* A positional [INTERVAL [COUNT]] as option @val; the option itself may not be given too. */
static int positional(struct parse_state *st, int val, const char *arg, const char *twice)
{
	if (opt_given(st, val))
		return opt_usage_error("%s", twice);
	return apply(st, opt_def_of(val), arg);
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
			return opt_usage_error("option '%s' needs an argument", argv[optind - 1]);
		/* runqlat's -? is its help; getopt returns '?' for it and for an unknown option */
		if (c == '?' && optopt == '?')
			return opt_show_help(&st, opt_def_of('h'), NULL);
		d = opt_def_of(c);
		if (!d)
			return option_error(argv[optind - 1], optopt);
		if ((r = apply(&st, d, optarg)) >= 0)
			return r;
	}

	positional_interval = optind < argc;
	if (optind < argc &&
	    (r = positional(&st, 'i', argv[optind++], "interval given twice (-i and positional)")) >= 0)
		return r;
	if (optind < argc &&
	    (r = positional(&st, 'n', argv[optind++], "count given twice (-n and positional)")) >= 0)
		return r;
	if (optind < argc)
		return opt_usage_error("unexpected argument '%s'", argv[optind]);
	/* runqlat's INTERVAL [COUNT] asks runqlat's question (runq); -i keeps offcpu; -M wins. */
	if (positional_interval && !opt_given(&st, 'M')) {
		o->metrics = 1U << SH_METRIC_RUNQ;
		o->metric = SH_METRIC_RUNQ;
	}

	/* the live view takes the terminal: no reports on it, a reading a second */
	if (o->live && !opt_given(&st, 'i')) {
		o->interval_ns = NSEC_PER_SEC;
		st.given[opt_def_of('i') - opt_defs] = true;
	}
	/* fleet mode: a daemon that prints nothing unless asked, 5 s readings */
	st.fleet = o->listen || o->prom_file;
	if (st.fleet && !opt_given(&st, 'i')) {
		o->interval_ns = FLEET_INTERVAL_NS;
		st.given[opt_def_of('i') - opt_defs] = true;
	}
	o->print = o->live ? false : st.fleet ? opt_given(&st, OPT_PRINT) : true;
	o->sort_set = opt_given(&st, OPT_SORT);
	o->max_keys_set = opt_given(&st, OPT_MAX_KEYS);

	/* the rules between options, in the table's order */
	for (i = 0; i < N_OPTS; i++)
		if (st.given[i] && opt_defs[i].check && (why = opt_defs[i].check(&st)))
			return opt_usage_error("%s", why);
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
