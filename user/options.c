// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Command line parsing: the table below is the single source of --help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "options.h"
#include "listen_addr.h"
#include "log.h"

#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

#define NSEC_PER_SEC 1000000000ULL
#define MAX_INTERVAL_NS (86400ULL * NSEC_PER_SEC)	/* one day */
/* shorter would spend the poller's time reading maps, not the workload's running */
#define MIN_INTERVAL_NS (10ULL * 1000000)		/* 10 ms */
#define MAX_DURATION_NS (365ULL * 86400 * NSEC_PER_SEC)	/* one year */
#define MAX_KEYS_LIMIT 1000000				/* --max-keys ceiling */
#define DEFAULT_MAX_KEYS 10240
#define FLEET_INTERVAL_NS (5 * NSEC_PER_SEC)		/* --listen/--prom-file without -i */
#define PID_MAX_LIMIT 4194304				/* kernel's PID_MAX_LIMIT */

/* Long-only options take values past the char range. */
enum {
	OPT_UNIT = 256,
	OPT_CUMULATIVE,
	OPT_MAX_KEYS,
	OPT_CGROUP_DEPTH,
	OPT_CGROUP_HIER,
	OPT_TOP,
	OPT_SORT,
	OPT_SUMMARY,
	OPT_MIN_WAIT,
	OPT_HEATMAP,
	OPT_HEATMAP_KEY,
	OPT_LISTEN,
	OPT_PROM_FILE,
	OPT_USER,
	OPT_PRINT,
	OPT_METHOD,
};

struct opt_def {
	const char *name;	/* long name */
	int val;		/* short letter or OPT_* */
	int has_arg;		/* no_argument / required_argument */
	const char *arg;	/* argument name in --help */
	const char *help;	/* one line of --help */
};

static const struct opt_def opt_defs[] = {
	{ "metric", 'M', required_argument, "LIST",
	  "what to measure: offcpu (default), runq, blocked, or a list: offcpu,runq" },
	{ "method", OPT_METHOD, required_argument, "HOW",
	  "runq/blocked from: auto (default), sched_info (kernel accounting), wakeup (hooks)" },
	{ "key", 'k', required_argument, "KEY",
	  "histogram per: none (default), comm, pid, tid, cpu, cgroup" },
	{ "pids", 'P', no_argument, NULL, "same as -k pid (one histogram per process)" },
	{ "tids", 'L', no_argument, NULL, "same as -k tid (one histogram per thread)" },
	{ "interval", 'i', required_argument, "DUR",
	  "print a report every DUR, 10ms to 1 day (seconds unless suffixed: 500ms, 2s)" },
	{ "count", 'n', required_argument, "N", "stop after N reports" },
	{ "duration", 'd', required_argument, "DUR", "stop after DUR (seconds unless suffixed)" },
	{ "cumulative", OPT_CUMULATIVE, no_argument, NULL,
	  "each report covers the time since start, not the interval" },
	{ "milliseconds", 'm', no_argument, NULL, "show waits in milliseconds" },
	{ "unit", OPT_UNIT, required_argument, "UNIT", "show waits in ns, us (default) or ms" },
	{ "timestamp", 'T', no_argument, NULL, "print a timestamp before each text report" },
	{ "pid", 'p', required_argument, "PID", "trace only the tasks of process PID" },
	{ "cgroup", 'c', required_argument, "PATH",
	  "trace only tasks in this cgroup's subtree (cgroupfs or relative path)" },
	{ "cgroup-depth", OPT_CGROUP_DEPTH, required_argument, "N",
	  "-k cgroup: roll tasks up to their ancestor at depth N (1 = top level)" },
	{ "cgroup-hier", OPT_CGROUP_HIER, required_argument, "CTRL",
	  "use the v1 hierarchy of controller CTRL (e.g. cpu) instead of cgroup2" },
	{ "top", OPT_TOP, required_argument, "N", "show only the N highest-ranked keys" },
	{ "sort", OPT_SORT, required_argument, "BY",
	  "rank keys by sum (default), count, avg, p99 or max" },
	{ "summary", OPT_SUMMARY, no_argument, NULL, "one table line per key, no histograms" },
	{ "min-wait", OPT_MIN_WAIT, required_argument, "DUR",
	  "text histograms start at DUR; shorter waits fold into one row" },
	{ "heatmap", OPT_HEATMAP, required_argument, "FILE",
	  "write an SVG latency heatmap (one column per interval) to FILE" },
	{ "heatmap-key", OPT_HEATMAP_KEY, required_argument, "KEY",
	  "the heatmap shows this key only (default: all keys together)" },
	{ "max-keys", OPT_MAX_KEYS, required_argument, "N",
	  "key map capacity (default 10240); new keys beyond go to [other]" },
	{ "listen", OPT_LISTEN, required_argument, "ADDR",
	  "serve Prometheus metrics at http://ADDR/metrics; ADDR: [IP:]PORT, IP 127.0.0.1" },
	{ "prom-file", OPT_PROM_FILE, required_argument, "FILE",
	  "rewrite FILE with Prometheus metrics every interval (atomic rename)" },
	{ "user", OPT_USER, required_argument, "NAME",
	  "with --listen/--prom-file: run as user NAME once attached (root: nobody)" },
	{ "print", OPT_PRINT, no_argument, NULL,
	  "with --listen/--prom-file: print the reports on stdout too" },
	{ "json", 'j', no_argument, NULL, "print one JSON object per report (JSON Lines)" },
	{ "verbose", 'v', no_argument, NULL, "print event counters; twice: libbpf's log" },
	{ "version", 'V', no_argument, NULL, "print the version and exit" },
	{ "help", 'h', no_argument, NULL, "print this help and exit" },
};

#define N_OPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

static const char usage_head[] =
	"Usage: schedhist [OPTION...] [INTERVAL [COUNT]]\n"
	"Histograms of how long tasks wait, binned in the kernel (log2, per CPU).\n"
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
	"  schedhist -M runq -j -i 10     JSON Lines for collectors\n"
	"  schedhist -M runq -k cgroup --cgroup-depth 2 --listen 9464 --user nobody\n"
	"                                 Prometheus exporter on 127.0.0.1:9464\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure, 2 usage error.\n"
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
	if (n == 1 && eq && hit->has_arg == no_argument)
		return usage_error("option '--%s' takes no argument", hit->name);
	return usage_error("unknown option '--%.*s'", (int)len, name);
}

int parse_u64(const char *s, __u64 min, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would skip any leading white space and take a sign */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	__u64 ns;
} dur_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC }, { "h", 3600 * NSEC_PER_SEC },
};

int parse_duration(const char *s, __u64 dflt_unit_ns, __u64 *out_ns)
{
	unsigned long long ip = 0, frac = 0, frac_div = 1, unit = dflt_unit_ns, fns;
	const char *p = s;
	size_t i;
	int digits = 0;

	if (!s)
		return -1;
	/* digits [. digits] [unit]; no sign, no exponent, no spaces */
	while (*p >= '0' && *p <= '9') {
		if (ip > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;	/* exact: 18446744073709551615ns still fits */
		ip = ip * 10 + (*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (frac_div < 1000000000ULL) {
				frac = frac * 10 + (*p - '0');
				frac_div *= 10;
			}
			p++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (*p) {
		for (i = 0; i < sizeof(dur_units) / sizeof(dur_units[0]); i++)
			if (!strcmp(p, dur_units[i].suffix))
				break;
		if (i == sizeof(dur_units) / sizeof(dur_units[0]))
			return -1;
		unit = dur_units[i].ns;
	}
	if (ip && unit > ULLONG_MAX / ip)
		return -1;
	/* frac * unit / frac_div, split so that nothing overflows (frac < frac_div) */
	fns = frac * (unit / frac_div) + frac * (unit % frac_div) / frac_div;
	if (fns > ULLONG_MAX - ip * unit)
		return -1;
	*out_ns = ip * unit + fns;
	return 0;
}

static const char *const metric_names[] = { "offcpu", "runq", "blocked" };
static const char *const metric_text[] = {
	"off-CPU wait (switch-out to the same task's next switch-in)",
	"run-queue latency (runnable: woken or preempted, to switch-in)",
	"blocked time (switch-out while not runnable, to runnable again)",
};
static const char *const key_names[] = { "none", "comm", "pid", "tid", "cpu", "cgroup" };
static const char *const unit_names[] = { "ns", "us", "ms" };
static const char *const sort_names[] = { "sum", "count", "avg", "p99", "max" };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

const char *metric_name(int m) { return metric_names[m]; }
const char *metric_words(int m) { return metric_text[m]; }
const char *method_name(int m) { return m == SH_METHOD_SCHED_INFO ? "sched_info" : "wakeup"; }
const char *key_name(int k) { return key_names[k]; }
const char *unit_name(int u) { return unit_names[u]; }

__u64 unit_ns(int u)
{
	return u == SH_UNIT_NS ? 1 : u == SH_UNIT_US ? 1000 : 1000000;
}

static int lookup_name(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

int parse_metrics(const char *s, __u32 *out, const char **bad)
{
	static char tok[32];
	const char *p = s, *end;
	__u32 m = 0;
	size_t len;
	int r;

	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		snprintf(tok, sizeof(tok), "%.*s", (int)(len < sizeof(tok) ? len : sizeof(tok) - 1), p);
		r = len < sizeof(tok) ? lookup_name(metric_names, ARRAY_LEN(metric_names), tok) : -1;
		if (r < 0 || (m & (1U << r))) {
			*bad = tok;	/* unknown (or empty), or named twice */
			return -1;
		}
		m |= 1U << r;
		if (end)
			p = end + 1;
	} while (end);
	*out = m;
	return 0;
}

static int set_key(struct options *o, int *key_set, int k)
{
	if (*key_set && o->key_type != k)
		return usage_error("conflicting keys: -k %s and -k %s", key_names[o->key_type],
				   key_names[k]);
	o->key_type = k;
	*key_set = 1;
	return -1;
}

int parse_options(int argc, char **argv, struct options *o)
{
	struct option longopts[N_OPTS + 1];
	char shortopts[N_OPTS * 2 + 2];
	int key_set = 0, interval_set = 0, count_set = 0, print_set = 0;
	size_t i, n = 0;
	const char *bad;
	__u64 v;
	int c, r;

	memset(o, 0, sizeof(*o));
	o->metrics = 1U << SH_METRIC_OFFCPU;
	o->method = SH_METHOD_AUTO;
	o->unit = SH_UNIT_US;
	o->max_keys = DEFAULT_MAX_KEYS;

	shortopts[n++] = ':';
	for (i = 0; i < N_OPTS; i++) {
		longopts[i] = (struct option){ opt_defs[i].name, opt_defs[i].has_arg, NULL,
					       opt_defs[i].val };
		if (opt_defs[i].val < 256) {
			shortopts[n++] = (char)opt_defs[i].val;
			if (opt_defs[i].has_arg == required_argument)
				shortopts[n++] = ':';
		}
	}
	shortopts[n] = '\0';
	memset(&longopts[N_OPTS], 0, sizeof(longopts[N_OPTS]));

	opterr = 0;
	optind = 0;	/* 0, not 1: glibc then also forgets a half-parsed "-abc" */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'M':
			if (parse_metrics(optarg, &o->metrics, &bad) &&
			    lookup_name(metric_names, ARRAY_LEN(metric_names), bad) >= 0)
				return usage_error("metric '%s' named twice in '%s'", bad, optarg);
			if (parse_metrics(optarg, &o->metrics, &bad))
				return usage_error("unknown metric '%s': use offcpu, runq or blocked, "
						   "or a list of them such as offcpu,runq", bad);
			o->metric = __builtin_ctz(o->metrics);
			break;
		case OPT_METHOD:
			if (!strcmp(optarg, "auto"))
				o->method = SH_METHOD_AUTO;
			else if (!strcmp(optarg, "sched_info"))
				o->method = SH_METHOD_SCHED_INFO;
			else if (!strcmp(optarg, "wakeup"))
				o->method = SH_METHOD_WAKEUP;
			else
				return usage_error("unknown method '%s': use auto, sched_info or "
						   "wakeup", optarg);
			break;
		case 'k':
			r = lookup_name(key_names, ARRAY_LEN(key_names), optarg);
			if (r < 0)
				return usage_error(
					"unknown key '%s': use none, comm, pid, tid, cpu or cgroup",
					optarg);
			if ((r = set_key(o, &key_set, r)) >= 0)
				return r;
			break;
		case 'P':
			if ((r = set_key(o, &key_set, SH_KEY_PID)) >= 0)
				return r;
			break;
		case 'L':
			if ((r = set_key(o, &key_set, SH_KEY_TID)) >= 0)
				return r;
			break;
		case 'i':
			if (parse_duration(optarg, NSEC_PER_SEC, &o->interval_ns) ||
			    o->interval_ns < MIN_INTERVAL_NS || o->interval_ns > MAX_INTERVAL_NS)
				return usage_error("invalid interval '%s': want a duration from 10ms "
						   "to 1 day, e.g. 5 or 500ms", optarg);
			interval_set = 1;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1000000000, &o->count))
				return usage_error("invalid count '%s': want an integer from 1 to "
						   "1000000000", optarg);
			count_set = 1;
			break;
		case 'd':
			if (parse_duration(optarg, NSEC_PER_SEC, &o->duration_ns) ||
			    !o->duration_ns || o->duration_ns > MAX_DURATION_NS)
				return usage_error("invalid duration '%s': want e.g. 30, 90s or 10m",
						   optarg);
			break;
		case OPT_CUMULATIVE:
			o->cumulative = true;
			break;
		case 'm':
			o->unit = SH_UNIT_MS;
			break;
		case OPT_UNIT:
			r = lookup_name(unit_names, ARRAY_LEN(unit_names), optarg);
			if (r < 0)
				return usage_error("unknown unit '%s': use ns, us or ms", optarg);
			o->unit = r;
			break;
		case 'T':
			o->timestamp = true;
			break;
		case 'p':
			if (parse_u64(optarg, 1, PID_MAX_LIMIT, &v))
				return usage_error("invalid pid '%s': want an integer from 1 to %d",
						   optarg, PID_MAX_LIMIT);
			o->pid = (pid_t)v;
			break;
		case 'c':
			if (!*optarg)
				return usage_error("empty cgroup path");
			o->cgroup_path = optarg;
			break;
		case OPT_CGROUP_DEPTH:
			if (parse_u64(optarg, 1, 255, &v))
				return usage_error("invalid cgroup depth '%s': want 1 to 255", optarg);
			o->cgroup_depth = (__u32)v;
			break;
		case OPT_CGROUP_HIER:
			if (!*optarg)
				return usage_error("empty cgroup controller name");
			o->cgroup_hier = optarg;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 1, MAX_KEYS_LIMIT, &v))
				return usage_error("invalid --top '%s': want 1 to %d", optarg,
						   MAX_KEYS_LIMIT);
			o->top = (__u32)v;
			break;
		case OPT_SORT:
			r = lookup_name(sort_names, ARRAY_LEN(sort_names), optarg);
			if (r < 0)
				return usage_error("unknown sort '%s': use sum, count, avg, p99 or max",
						   optarg);
			o->sort = r;
			o->sort_set = true;
			break;
		case OPT_SUMMARY:
			o->summary = true;
			break;
		case OPT_MIN_WAIT:
			/* a unit is required: a bare number would be ambiguous here */
			if (!*optarg || !strpbrk(optarg, "nums") ||
			    parse_duration(optarg, 1, &o->min_wait_ns) ||
			    o->min_wait_ns > MAX_INTERVAL_NS)
				return usage_error("invalid --min-wait '%s': want a duration with a "
						   "unit, such as 500us or 2ms", optarg);
			break;
		case OPT_HEATMAP:
			if (!*optarg)
				return usage_error("empty heatmap path");
			o->heatmap = optarg;
			break;
		case OPT_HEATMAP_KEY:
			o->heatmap_key = optarg;
			break;
		case OPT_LISTEN: {
			struct listen_addr a;
			char err[256];

			if (listen_addr_parse(optarg, &a, err, sizeof(err)))
				return usage_error("%s", err);
			o->listen = optarg;
			break;
		}
		case OPT_PROM_FILE:
			if (!*optarg)
				return usage_error("empty --prom-file path");
			o->prom_file = optarg;
			break;
		case OPT_USER:
			if (!*optarg)
				return usage_error("empty --user name");
			o->user = optarg;
			break;
		case OPT_PRINT:
			print_set = 1;
			break;
		case OPT_MAX_KEYS:
			if (parse_u64(optarg, 1, MAX_KEYS_LIMIT, &v))
				return usage_error("invalid --max-keys '%s': want 1 to %d", optarg,
						   MAX_KEYS_LIMIT);
			o->max_keys = (__u32)v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			printf("schedhist %s\n", SCHEDHIST_VERSION);
			return SH_EXIT_OK;
		case 'h':
			print_help(stdout);
			return SH_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return option_error(argv[optind - 1], optopt);
		}
	}

	/* runqlat-compatible positionals: [interval [count]] */
	if (optind < argc) {
		if (interval_set)
			return usage_error("interval given twice (-i and positional)");
		if (parse_duration(argv[optind], NSEC_PER_SEC, &o->interval_ns) ||
		    o->interval_ns < MIN_INTERVAL_NS || o->interval_ns > MAX_INTERVAL_NS)
			return usage_error("invalid interval '%s': want a duration from 10ms to "
					   "1 day, e.g. 5 or 500ms", argv[optind]);
		interval_set = 1;
		optind++;
	}
	if (optind < argc) {
		if (count_set)
			return usage_error("count given twice (-n and positional)");
		if (parse_u64(argv[optind], 1, 1000000000, &o->count))
			return usage_error("invalid count '%s': want an integer from 1 to "
					   "1000000000", argv[optind]);
		count_set = 1;
		optind++;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);

	/* fleet mode: a daemon that prints nothing unless asked, 5 s readings */
	if (o->listen || o->prom_file) {
		if (!interval_set)
			o->interval_ns = FLEET_INTERVAL_NS;
		interval_set = 1;
		if (o->json && !print_set)
			return usage_error("-j with --listen or --prom-file needs --print");
		o->print = print_set;
	} else {
		if (print_set)
			return usage_error("--print needs --listen or --prom-file");
		if (o->user)
			return usage_error("--user needs --listen or --prom-file");
		o->print = true;
	}
	if (count_set && !interval_set)
		return usage_error("a count needs an interval (-i)");
	if (o->cgroup_depth && o->key_type != SH_KEY_CGROUP)
		return usage_error("--cgroup-depth needs -k cgroup");
	if (o->cgroup_hier && o->key_type != SH_KEY_CGROUP && !o->cgroup_path)
		return usage_error("--cgroup-hier needs -k cgroup or -c");
	if (o->heatmap_key && !o->heatmap)
		return usage_error("--heatmap-key needs --heatmap");
	if (o->heatmap_key && o->key_type == SH_KEY_NONE)
		return usage_error("--heatmap-key needs a key other than none (-k)");
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		fprintf(stderr, "schedhist: no such process: %d\n", o->pid);
		return SH_EXIT_USAGE;
	}
	sh_log_level = o->verbose;
	return -1;
}
