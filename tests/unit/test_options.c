// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/cli/options.c: the strict number and duration parsers,
 * and parse_options on argv arrays (defaults, runqlat positionals, every
 * usage error exits 2 with one "schedhist: " line on stderr, --help and
 * --version exit 0 on stdout).
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedhist.h"
#include "schedhist_profile.h"
#include "cli/options.h"
#include "lib/names.h"
#include "lib/parse.h"
#include "lib/log.h"
#include "check.h"


#define NS 1ULL
#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL

/* Output of fd @fd while a parse runs, read back afterwards. */
struct capture {
	int fd;		/* the fd captured: 1 or 2 */
	int saved;	/* its original, restored after */
	FILE *tmp;	/* where it went */
	char text[8192];
};

static void capture_start(struct capture *c, int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	c->fd = fd;
	c->tmp = tmpfile();
	c->saved = dup(fd);
	if (!c->tmp || c->saved < 0) {
		perror("capture");
		exit(1);
	}
	dup2(fileno(c->tmp), fd);
}

static void capture_end(struct capture *c)
{
	size_t n;

	fflush(c->fd == 1 ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->tmp);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->tmp);
	c->text[n] = '\0';
	fclose(c->tmp);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#define MAX_ARGS 32

/*
 * Run parse_options on "schedhist" + @args (NULL-terminated) with stdout
 * and stderr captured into @out and @err.
 */
static int parse_cap(struct options *o, const char *const *args, struct capture *out,
		     struct capture *err)
{
	char *argv[MAX_ARGS];
	int argc = 0, rc;

	argv[argc++] = "schedhist";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	capture_start(out, 1);
	capture_start(err, 2);
	rc = parse_options(argc, argv, o);
	capture_end(err);
	capture_end(out);
	return rc;
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Parse expecting success: -1, nothing on stdout or stderr. */
static int parse_ok_at(int line, struct options *o, const char *const *args)
{
	struct capture out, err;
	int rc = parse_cap(o, args, &out, &err);

	if (rc != -1 || out.text[0] || err.text[0]) {
		fprintf(stderr, "  %s:%d: parse_options returned %d, stderr: %s", __FILE__, line,
			rc, err.text[0] ? err.text : "(empty)\n");
		return 0;
	}
	return 1;
}

#define PARSE_OK(o, ...) CHECK(parse_ok_at(__LINE__, (o), ARGS(__VA_ARGS__)))

/* Parse expecting a usage error: 2 and exactly one "schedhist: " line on stderr. */
static int parse_usage_at(int line, const char *const *args)
{
	struct capture out, err;
	struct options o;
	int rc = parse_cap(&o, args, &out, &err);
	int ok = rc == SH_EXIT_USAGE && count_lines(err.text) == 1 &&
		 !strncmp(err.text, "schedhist: ", 11) && !out.text[0];

	if (!ok)
		fprintf(stderr, "  %s:%d: want a usage error, got %d, stderr: %s", __FILE__, line,
			rc, err.text[0] ? err.text : "(empty)\n");
	return ok;
}

#define PARSE_USAGE(...) CHECK(parse_usage_at(__LINE__, ARGS(__VA_ARGS__)))

/*
 * "-p @pid" parses (the range is right) but options_check_pid() refuses
 * it: 2 and exactly one "schedhist: " line on stderr naming the pid.
 */
static int parse_no_pid_at(int line, const char *pid)
{
	struct capture out, err;
	struct options o;
	int rc = parse_cap(&o, ARGS("-p", pid), &out, &err);
	int ok = rc == -1 && !err.text[0] && !out.text[0];

	if (ok) {
		capture_start(&err, 2);
		rc = options_check_pid(&o);
		capture_end(&err);
		ok = rc == SH_EXIT_USAGE && count_lines(err.text) == 1 &&
		     !strncmp(err.text, "schedhist: no such process: ", 28) &&
		     strstr(err.text, pid);
	}
	if (!ok)
		fprintf(stderr, "  %s:%d: want -p %s refused as no such process, got %d, "
			"stderr: %s", __FILE__, line, pid, rc, err.text[0] ? err.text : "(empty)\n");
	return ok;
}

#define PARSE_NO_PID(pid) CHECK(parse_no_pid_at(__LINE__, (pid)))

static void test_parse_u64(void)
{
	__u64 v = 0;

	CHECK(!parse_u64("5", 0, 10, &v));
	CHECK_EQ_U64(v, 5);
	CHECK(!parse_u64("0", 0, 10, &v));
	CHECK_EQ_U64(v, 0);
	CHECK(!parse_u64("10", 0, 10, &v));
	CHECK_EQ_U64(v, 10);
	CHECK(!parse_u64("007", 0, 10, &v));	/* decimal, not octal */
	CHECK_EQ_U64(v, 7);
	CHECK(!parse_u64("18446744073709551615", 0, UINT64_MAX, &v));
	CHECK_EQ_U64(v, UINT64_MAX);

	v = 42;
	CHECK(parse_u64(NULL, 0, 10, &v));
	CHECK(parse_u64("", 0, 10, &v));
	CHECK(parse_u64("-1", 0, 10, &v));
	CHECK(parse_u64("+1", 0, 10, &v));
	CHECK(parse_u64(" 5", 0, 10, &v));
	CHECK(parse_u64("\t5", 0, 10, &v));
	CHECK(parse_u64("\n5", 0, 10, &v));
	CHECK(parse_u64("5 ", 0, 10, &v));
	CHECK(parse_u64("5x", 0, 10, &v));
	CHECK(parse_u64("0x5", 0, 10, &v));
	CHECK(parse_u64("1e3", 0, 10000, &v));
	CHECK(parse_u64("5.0", 0, 10, &v));
	CHECK(parse_u64("11", 0, 10, &v));	/* above max */
	CHECK(parse_u64("0", 1, 10, &v));	/* below min */
	CHECK(parse_u64("18446744073709551616", 0, UINT64_MAX, &v));	/* 2^64 */
	CHECK(parse_u64("99999999999999999999", 0, UINT64_MAX, &v));
	CHECK_EQ_U64(v, 42);	/* untouched on error */
}

static __u64 dur(const char *s, __u64 dflt)
{
	__u64 v = 0xdeadbeef;

	if (parse_duration(s, dflt, &v))
		return 0xbadbadbadULL;
	return v;
}

static void test_parse_duration_good(void)
{
	CHECK_EQ_U64(dur("5", SEC), 5 * SEC);
	CHECK_EQ_U64(dur("5", NS), 5);
	CHECK_EQ_U64(dur("0", SEC), 0);
	CHECK_EQ_U64(dur("500ms", SEC), 500 * MS);
	CHECK_EQ_U64(dur("1.5s", NS), 1500 * MS);
	CHECK_EQ_U64(dur("1.5", SEC), 1500 * MS);
	CHECK_EQ_U64(dur("0.5", SEC), 500 * MS);
	CHECK_EQ_U64(dur(".25s", SEC), 250 * MS);
	CHECK_EQ_U64(dur("2.", SEC), 2 * SEC);
	CHECK_EQ_U64(dur("250us", SEC), 250 * US);
	CHECK_EQ_U64(dur("100ns", SEC), 100);
	CHECK_EQ_U64(dur("2m", SEC), 120 * SEC);
	CHECK_EQ_U64(dur("1h", SEC), 3600 * SEC);
	CHECK_EQ_U64(dur("1.5h", SEC), 5400 * SEC);
	CHECK_EQ_U64(dur("1.000000001s", SEC), SEC + 1);
	/* digits past the 9th decimal are dropped, not rounded */
	CHECK_EQ_U64(dur("1.0000000019s", SEC), SEC + 1);
	CHECK_EQ_U64(dur("0.999999999h", SEC), 999999999ULL * 3600);
	CHECK_EQ_U64(dur("0.999999999m", SEC), 999999999ULL * 60);
	CHECK_EQ_U64(dur("18446744073s", SEC), 18446744073ULL * SEC);
	CHECK_EQ_U64(dur("18446744073.7s", SEC), 18446744073700000000ULL);
}

static void test_parse_duration_bad(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", "5x", "1e9", " 5", "5 ", "\t5", "ms", "s", ".", ".s", "1..2",
		"1.2.3", "5S", "5sec", "5 s", "0x10", "1,5",
		"99999999999999999999",		/* above 2^64 ns */
		"18446744073709551615s",	/* 2^64-1 seconds */
		"18446744074s",			/* just above 2^64 ns */
		"18446744073.8s",		/* the fraction pushes it past 2^64 ns */
		"5124095576040h",		/* hours past 2^64 ns */
	};
	__u64 v = 7;
	size_t i;

	CHECK(parse_duration(NULL, SEC, &v));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!parse_duration(bad[i], SEC, &v)) {
			fprintf(stderr, "  parse_duration(\"%s\") accepted: %llu\n", bad[i],
				(unsigned long long)v);
			CHECK(!"bad duration accepted");
			v = 7;
		}
	}
	CHECK_EQ_U64(v, 7);	/* untouched on error */
}

static void test_defaults(void)
{
	struct options o;

	PARSE_OK(&o, NULL);
	CHECK_EQ_U64(o.metric, SH_METRIC_OFFCPU);
	CHECK_EQ_U64(o.key_type, SH_KEY_NONE);
	CHECK_EQ_U64(o.unit, SH_UNIT_US);
	CHECK_EQ_U64(o.max_keys, 10240);
	CHECK_EQ_U64(o.interval_ns, 0);
	CHECK_EQ_U64(o.count, 0);
	CHECK_EQ_U64(o.duration_ns, 0);
	CHECK_EQ_U64(o.pid, 0);
	CHECK_EQ_U64(o.top, 0);
	CHECK_EQ_U64(o.sort, SH_SORT_SUM);
	CHECK(!o.sort_set);
	CHECK(!o.cumulative && !o.json && !o.timestamp && !o.summary);
	CHECK(!o.cgroup_path && !o.cgroup_hier && !o.heatmap && !o.heatmap_key);
	CHECK_EQ_U64(o.verbose, 0);
	CHECK_EQ_U64(log_level(), SH_LOG_WARN);
}

static void test_positionals(void)
{
	struct options o;

	PARSE_OK(&o, "5", "3");
	CHECK_EQ_U64(o.interval_ns, 5 * SEC);
	CHECK_EQ_U64(o.count, 3);

	PARSE_OK(&o, "1");
	CHECK_EQ_U64(o.interval_ns, SEC);
	CHECK_EQ_U64(o.count, 0);

	PARSE_OK(&o, "250ms", "10");
	CHECK_EQ_U64(o.interval_ns, 250 * MS);
	CHECK_EQ_U64(o.count, 10);

	/* --culprits blames by switch unless --culprit-mode says otherwise */
	PARSE_OK(&o, "-M", "runq", "-k", "comm", "--culprits");
	CHECK_EQ_U64(o.culprit_mode, SH_CULPRIT_SWITCH);
	PARSE_OK(&o, "-M", "runq", "-k", "comm", "--culprits", "--culprit-mode", "time");
	CHECK_EQ_U64(o.culprit_mode, SH_CULPRIT_TIME);

	/* --profile takes both stacks unless --profile-stacks says otherwise */
	PARSE_OK(&o, "--profile");
	CHECK_EQ_U64(o.profile_stacks, SH_PROF_STACK_KERNEL | SH_PROF_STACK_USER);
	PARSE_OK(&o, "--profile", "--profile-stacks", "user");
	CHECK_EQ_U64(o.profile_stacks, SH_PROF_STACK_USER);
	PARSE_OK(&o, "--profile", "--profile-stacks", "none");
	CHECK_EQ_U64(o.profile_stacks, 0);

	PARSE_OK(&o, "-i", "10ms");		/* the minimum */
	CHECK_EQ_U64(o.interval_ns, 10 * MS);

	/* options and positionals mixed (GNU order) */
	PARSE_OK(&o, "-M", "runq", "5", "-m", "3");
	CHECK_EQ_U64(o.metric, SH_METRIC_RUNQ);
	CHECK_EQ_U64(o.unit, SH_UNIT_MS);
	CHECK_EQ_U64(o.interval_ns, 5 * SEC);
	CHECK_EQ_U64(o.count, 3);

	/* -i with -n */
	PARSE_OK(&o, "-i", "2", "-n", "4");
	CHECK_EQ_U64(o.interval_ns, 2 * SEC);
	CHECK_EQ_U64(o.count, 4);

	/* "--" ends the options */
	PARSE_OK(&o, "--", "7");
	CHECK_EQ_U64(o.interval_ns, 7 * SEC);

	/* runqlat's command line measures runqlat's metric; -i keeps offcpu; -M wins */
	PARSE_OK(&o, "-P", "1", "3");
	CHECK_EQ_U64(o.metric, SH_METRIC_RUNQ);
	CHECK_EQ_U64(o.metrics, 1U << SH_METRIC_RUNQ);
	CHECK_EQ_U64(o.key_type, SH_KEY_PID);
	PARSE_OK(&o, "-i", "1", "-n", "3");
	CHECK_EQ_U64(o.metrics, 1U << SH_METRIC_OFFCPU);
	PARSE_OK(&o, "-M", "offcpu", "1");
	CHECK_EQ_U64(o.metrics, 1U << SH_METRIC_OFFCPU);
	PARSE_OK(&o, "-M", "blocked,runq", "1");
	CHECK_EQ_U64(o.metrics, (1U << SH_METRIC_RUNQ) | (1U << SH_METRIC_BLOCKED));
}

static void test_options_set(void)
{
	struct options o;
	char pid[32];

	PARSE_OK(&o, "-m");
	CHECK_EQ_U64(o.unit, SH_UNIT_MS);
	PARSE_OK(&o, "--unit", "ns");
	CHECK_EQ_U64(o.unit, SH_UNIT_NS);
	PARSE_OK(&o, "--unit=ms");
	CHECK_EQ_U64(o.unit, SH_UNIT_MS);

	PARSE_OK(&o, "-L");
	CHECK_EQ_U64(o.key_type, SH_KEY_TID);
	PARSE_OK(&o, "-P");
	CHECK_EQ_U64(o.key_type, SH_KEY_PID);
	PARSE_OK(&o, "--tids");
	CHECK_EQ_U64(o.key_type, SH_KEY_TID);
	PARSE_OK(&o, "-k", "tid", "-L");	/* the same key twice is fine */
	CHECK_EQ_U64(o.key_type, SH_KEY_TID);
	PARSE_OK(&o, "-P", "-P");
	CHECK_EQ_U64(o.key_type, SH_KEY_PID);
	/* runqlat's histogram per PID namespace */
	PARSE_OK(&o, "--pidnss");
	CHECK_EQ_U64(o.key_type, SH_KEY_PIDNS);
	PARSE_OK(&o, "-k", "pidns", "--pidnss");
	CHECK_EQ_U64(o.key_type, SH_KEY_PIDNS);
	CHECK(!strcmp(key_name(SH_KEY_PIDNS), "pidns"));
	PARSE_OK(&o, "-k", "comm");
	CHECK_EQ_U64(o.key_type, SH_KEY_COMM);
	PARSE_OK(&o, "--key=cpu");
	CHECK_EQ_U64(o.key_type, SH_KEY_CPU);
	PARSE_OK(&o, "-kcgroup");
	CHECK_EQ_U64(o.key_type, SH_KEY_CGROUP);

	PARSE_OK(&o, "-M", "runq");
	CHECK_EQ_U64(o.metric, SH_METRIC_RUNQ);
	PARSE_OK(&o, "--metric", "blocked");
	CHECK_EQ_U64(o.metric, SH_METRIC_BLOCKED);

	PARSE_OK(&o, "-i", "500ms", "-n", "3", "-d", "10m", "--cumulative", "-T", "-j");
	CHECK_EQ_U64(o.interval_ns, 500 * MS);
	CHECK_EQ_U64(o.count, 3);
	CHECK_EQ_U64(o.duration_ns, 600 * SEC);
	CHECK(o.cumulative && o.timestamp && o.json);

	PARSE_OK(&o, "-k", "comm", "--summary", "--sort", "p99", "--top", "10", "--min-wait",
		 "500us", "--max-keys", "100");
	CHECK(o.summary);
	CHECK_EQ_U64(o.sort, SH_SORT_P99);
	CHECK(o.sort_set);
	CHECK_EQ_U64(o.top, 10);
	CHECK_EQ_U64(o.min_wait_ns, 500 * US);
	CHECK_EQ_U64(o.max_keys, 100);
	PARSE_OK(&o, "--min-wait", "750ns");
	CHECK_EQ_U64(o.min_wait_ns, 750);
	PARSE_OK(&o, "--sort", "count");
	CHECK_EQ_U64(o.sort, SH_SORT_COUNT);
	PARSE_OK(&o, "--sort", "avg");
	CHECK_EQ_U64(o.sort, SH_SORT_AVG);
	PARSE_OK(&o, "--sort", "max");
	CHECK_EQ_U64(o.sort, SH_SORT_MAX);
	PARSE_OK(&o, "--sort", "sum");
	CHECK_EQ_U64(o.sort, SH_SORT_SUM);
	CHECK(o.sort_set);

	PARSE_OK(&o, "-k", "cgroup", "--cgroup-depth", "2", "--cgroup-hier", "cpu");
	CHECK_EQ_U64(o.cgroup_depth, 2);
	CHECK(o.cgroup_hier && !strcmp(o.cgroup_hier, "cpu"));
	PARSE_OK(&o, "-c", "/system.slice", "--cgroup-hier", "cpu");
	CHECK(o.cgroup_path && !strcmp(o.cgroup_path, "/system.slice"));
	CHECK_EQ_U64(o.key_type, SH_KEY_NONE);

	PARSE_OK(&o, "-M", "offcpu,runq", "-k", "pid", "--causes");
	CHECK(o.causes);
	PARSE_OK(&o, "-k", "comm", "--heatmap", "h.svg", "--heatmap-key", "bash");
	CHECK(o.heatmap && !strcmp(o.heatmap, "h.svg"));
	CHECK(o.heatmap_key && !strcmp(o.heatmap_key, "bash"));

	/* -p takes an existing process: ours */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	PARSE_OK(&o, "-p", pid);
	CHECK_EQ_U64(o.pid, getpid());
	CHECK_EQ_U64(options_check_pid(&o), 0);

	/* -v counts; parsing leaves the log level alone (main sets it) */
	log_set_level(SH_LOG_INFO);
	PARSE_OK(&o, "-v", "-v");
	CHECK_EQ_U64(o.verbose, 2);
	CHECK_EQ_U64(log_level(), SH_LOG_INFO);
	PARSE_OK(&o, NULL);
	CHECK_EQ_U64(o.verbose, 0);
	CHECK_EQ_U64(log_level(), SH_LOG_INFO);
	log_set_level(SH_LOG_WARN);
}

/* --live: no reports printed, a reading a second unless -i; not with -j or --print. */
static void test_live(void)
{
	struct options o;

	PARSE_OK(&o, "--live");
	CHECK(o.live && !o.print);
	CHECK_EQ_U64(o.interval_ns, SEC);
	PARSE_OK(&o, "--live", "-i", "250ms", "-k", "comm", "--sort", "p99");
	CHECK_EQ_U64(o.interval_ns, 250 * MS);
	PARSE_OK(&o, "--live", "--listen", "9999");
	CHECK(o.live && !o.print);
	CHECK_EQ_U64(o.interval_ns, SEC);
	PARSE_USAGE("--live", "-j");
	PARSE_USAGE("--live", "--listen", "9999", "--print");
	/* --heatmap-lines */
	PARSE_OK(&o, "--heatmap", "/tmp/x.svg", "--heatmap-lines", "p99,p50");
	CHECK(o.heatmap_lines == (HM_LINE_P50 | HM_LINE_P99));
	PARSE_USAGE("--heatmap-lines", "none");
	PARSE_USAGE("--heatmap", "/tmp/x.svg", "--heatmap-lines", "p50,p50");
	PARSE_USAGE("--heatmap", "/tmp/x.svg", "--heatmap-lines", "p90");
	PARSE_USAGE("--heatmap", "/tmp/x.svg", "--heatmap-lines", "p50,");
	PARSE_USAGE("--heatmap", "/tmp/x.svg", "--heatmap-lines", "");
}

static void test_usage_errors(void)
{
	PARSE_USAGE("-z");
	PARSE_USAGE("--bogus");
	PARSE_USAGE("--bogus=1");
	PARSE_USAGE("-M", "foo");
	PARSE_USAGE("-M", "");
	PARSE_USAGE("-k", "foo");
	PARSE_USAGE("-k", "TID");
	PARSE_USAGE("--unit", "s");
	PARSE_USAGE("--sort", "foo");
	/* conflicting keys */
	PARSE_USAGE("-L", "-P");
	PARSE_USAGE("-P", "-L");
	PARSE_USAGE("-LP");
	PARSE_USAGE("-k", "comm", "-P");
	PARSE_USAGE("--pidnss", "-P");
	PARSE_USAGE("-L", "--pidnss");
	PARSE_USAGE("-k", "pidnss");
	PARSE_USAGE("-L", "-k", "cpu");
	/* --profile groups by task keys only: every other key is refused */
	PARSE_USAGE("--profile", "-k", "cpu");
	PARSE_USAGE("--profile", "-k", "cgroup");
	PARSE_USAGE("--profile", "--pidnss");
	PARSE_USAGE("--profile", "-M", "runq,blocked");
	PARSE_USAGE("--profile-stacks", "kernel");	/* without --profile */
	PARSE_USAGE("--profile", "--profile-stacks", "stack");
	PARSE_USAGE("--profile", "--profile-stacks", "");
	PARSE_USAGE("-M", "runq", "-k", "comm", "--culprit-mode", "time");	/* without --culprits */
	PARSE_USAGE("-M", "runq", "-k", "comm", "--culprits", "--culprit-mode", "weight");
	/* counts, intervals, durations */
	PARSE_USAGE("--count", "0");
	PARSE_USAGE("-i", "1", "--count", "0");
	PARSE_USAGE("-i", "1", "-n", "1000000001");
	PARSE_USAGE("--interval", "0");
	PARSE_USAGE("-i", "1ns");		/* below the 10 ms minimum */
	PARSE_USAGE("-i", "9.999ms");
	PARSE_USAGE("0.009");			/* positional, 9 ms */
	PARSE_USAGE("--interval", "1e9");
	PARSE_USAGE("--interval", "86401");	/* more than a day */
	PARSE_USAGE("-i", "-5");
	PARSE_USAGE("-i", "5x");
	PARSE_USAGE("-d", "0");
	PARSE_USAGE("-d", "366d");
	PARSE_USAGE("-d", "9000h");		/* more than a year */
	PARSE_USAGE("-n", "3");			/* a count without an interval */
	PARSE_USAGE("0");			/* positional interval 0 */
	PARSE_USAGE("5", "0");			/* positional count 0 */
	PARSE_USAGE("5", "3x");
	PARSE_USAGE("5", "3", "7");		/* too many positionals */
	PARSE_USAGE("-i", "5", "5");		/* interval twice: the 1st positional is one */
	PARSE_USAGE("-i", "5", "5", "3");
	PARSE_USAGE("-i", "5", "-n", "2", "5", "2");	/* count twice */
	/* pids */
	PARSE_USAGE("-p", "0");
	PARSE_USAGE("-p", "-1");
	PARSE_USAGE("-p", "5x");
	PARSE_USAGE("-p", "");
	PARSE_USAGE("-p", "4194305");		/* above PID_MAX_LIMIT */
	PARSE_NO_PID("4194304");		/* in range, but no such process */
	/* dependent options */
	PARSE_USAGE("--cgroup-depth", "3");
	PARSE_USAGE("-M", "offcpu", "--causes");
	PARSE_USAGE("-M", "runq", "--method", "wakeup", "--causes");
	PARSE_USAGE("-M", "runq", "--clock", "ktime", "--causes");
	PARSE_USAGE("--profile", "-M", "runq", "--causes");
	PARSE_USAGE("-k", "cgroup", "--cgroup-depth", "0");
	PARSE_USAGE("-k", "cgroup", "--cgroup-depth", "256");
	PARSE_USAGE("--cgroup-hier", "cpu");
	PARSE_USAGE("-k", "cgroup", "--cgroup-hier", "");
	PARSE_USAGE("-c", "");
	PARSE_USAGE("--heatmap-key", "x");
	PARSE_USAGE("--heatmap", "h.svg", "--heatmap-key", "x");	/* key none */
	PARSE_USAGE("--heatmap", "");
	PARSE_USAGE("--top", "0");
	PARSE_USAGE("--top", "1000001");
	PARSE_USAGE("--max-keys", "0");
	PARSE_USAGE("--max-keys", "1000001");
	PARSE_USAGE("--min-wait", "2x");
	PARSE_USAGE("--min-wait", "750");	/* a unit is required */
	PARSE_USAGE("--min-wait", "25h");	/* more than a day */
	/* a missing argument */
	PARSE_USAGE("-i");
	PARSE_USAGE("--interval");
	PARSE_USAGE("-M");
	PARSE_USAGE("--cumulative=1");		/* an argument where none is taken */
}

/* --help and --version: exit 0, output on stdout, nothing on stderr. */
static void test_help_version(void)
{
	struct capture out, err;
	struct options o;

	CHECK_EQ_U64(parse_cap(&o, ARGS("--help"), &out, &err), SH_EXIT_OK);
	CHECK(!strncmp(out.text, "Usage: schedhist", 16));
	CHECK(strstr(out.text, "--metric LIST") != NULL);
	CHECK(strstr(out.text, "Examples:") != NULL);
	CHECK(!err.text[0]);

	CHECK_EQ_U64(parse_cap(&o, ARGS("-h"), &out, &err), SH_EXIT_OK);
	CHECK(!strncmp(out.text, "Usage: schedhist", 16));

	CHECK_EQ_U64(parse_cap(&o, ARGS("--version"), &out, &err), SH_EXIT_OK);
	CHECK(!strncmp(out.text, "schedhist ", 10));
	CHECK_EQ_U64(count_lines(out.text), 1);
	CHECK(!err.text[0]);
	CHECK_EQ_U64(parse_cap(&o, ARGS("-V"), &out, &err), SH_EXIT_OK);
	CHECK(!strncmp(out.text, "schedhist ", 10));

	/* runqlat's -? is --help; its --usage prints the synopsis */
	CHECK_EQ_U64(parse_cap(&o, ARGS("-?"), &out, &err), SH_EXIT_OK);
	CHECK(strstr(out.text, "Examples:") != NULL);
	CHECK(!err.text[0]);
	CHECK_EQ_U64(parse_cap(&o, ARGS("--usage"), &out, &err), SH_EXIT_OK);
	CHECK(!strncmp(out.text, "Usage: schedhist [-M LIST]", 26));
	CHECK(strstr(out.text, "[--listen=ADDR]") != NULL);
	CHECK(strstr(out.text, "[INTERVAL [COUNT]]\n") != NULL);
	CHECK(!strstr(out.text, "Examples:"));
	CHECK(!err.text[0]);
	/* an unknown letter is still a usage error, not help */
	PARSE_USAGE("-z");
}

/*
 * parse_options can run many times in one process (tests, fuzzing): an
 * error in the middle of "-zL" must not leave getopt inside that word.
 */
static void test_reparse(void)
{
	struct options o;

	PARSE_USAGE("-zL");
	PARSE_OK(&o, "-P");
	CHECK_EQ_U64(o.key_type, SH_KEY_PID);

	PARSE_USAGE("-LPm");
	PARSE_OK(&o, "-i", "3");
	CHECK_EQ_U64(o.unit, SH_UNIT_US);
	CHECK_EQ_U64(o.key_type, SH_KEY_NONE);
	CHECK_EQ_U64(o.interval_ns, 3 * SEC);

	PARSE_USAGE("5", "3", "7");
	PARSE_OK(&o, "-m", "2");
	CHECK_EQ_U64(o.unit, SH_UNIT_MS);
	CHECK_EQ_U64(o.interval_ns, 2 * SEC);
	CHECK_EQ_U64(o.count, 0);
}

static void test_names(void)
{
	CHECK(!strcmp(metric_name(SH_METRIC_OFFCPU), "offcpu"));
	CHECK(!strcmp(metric_name(SH_METRIC_RUNQ), "runq"));
	CHECK(!strcmp(metric_name(SH_METRIC_BLOCKED), "blocked"));
	CHECK(!strcmp(key_name(SH_KEY_NONE), "none"));
	CHECK(!strcmp(key_name(SH_KEY_TID), "tid"));
	CHECK(!strcmp(key_name(SH_KEY_CGROUP), "cgroup"));
	CHECK(!strcmp(unit_name(SH_UNIT_NS), "ns"));
	CHECK(!strcmp(unit_name(SH_UNIT_US), "us"));
	CHECK(!strcmp(unit_name(SH_UNIT_MS), "ms"));
	CHECK_EQ_U64(unit_ns(SH_UNIT_NS), 1);
	CHECK_EQ_U64(unit_ns(SH_UNIT_US), 1000);
	CHECK_EQ_U64(unit_ns(SH_UNIT_MS), 1000000);
	CHECK(!strcmp(sort_name(SH_SORT_P99), "p99"));
	CHECK(!strcmp(stat_name(SH_STAT_NO_START), "no_start"));
	CHECK(!strcmp(stat_name(SH_STAT_MERGED), "merged"));
	CHECK(!strcmp(method_name(SH_METHOD_SCHED_INFO), "sched_info"));
	CHECK(!strcmp(method_name(SH_METHOD_WAKEUP), "wakeup"));
	CHECK(!strcmp(clock_name(SH_CLOCK_RQ), "rq"));
	CHECK(!strcmp(clock_name(SH_CLOCK_KTIME), "ktime"));
}

/* Every name looks up to its value, and back; anything else is refused. */
static void test_lookups(void)
{
	int i;

	for (i = 0; i < SH_METRIC_NR; i++)
		CHECK_EQ_U64(metric_lookup(metric_name(i)), i);
	for (i = SH_KEY_NONE; i <= SH_KEY_CGROUP; i++)
		CHECK_EQ_U64(key_lookup(key_name(i)), i);
	for (i = 0; i < SH_UNIT_NR; i++)
		CHECK_EQ_U64(unit_lookup(unit_name(i)), i);
	for (i = 0; i < SH_SORT_NR; i++)
		CHECK_EQ_U64(sort_lookup(sort_name(i)), i);
	for (i = 0; i < SH_STAT_NR; i++)
		CHECK(stat_name(i) && stat_name(i)[0]);
	CHECK_EQ_U64(method_lookup("auto"), (__u64)SH_METHOD_AUTO);
	CHECK_EQ_U64(method_lookup("sched_info"), SH_METHOD_SCHED_INFO);
	CHECK_EQ_U64(method_lookup("wakeup"), SH_METHOD_WAKEUP);
	CHECK(method_lookup("Wakeup") < SH_METHOD_AUTO);
	CHECK(method_lookup("") < SH_METHOD_AUTO);
	CHECK_EQ_U64(clock_lookup("auto"), (__u64)SH_CLOCK_AUTO);
	CHECK_EQ_U64(clock_lookup("rq"), SH_CLOCK_RQ);
	CHECK_EQ_U64(clock_lookup("ktime"), SH_CLOCK_KTIME);
	CHECK(clock_lookup("tsc") < SH_CLOCK_AUTO);
	CHECK(clock_lookup("") < SH_CLOCK_AUTO);
	CHECK_EQ_U64(metric_lookup("OFFCPU"), (__u64)-1);
	CHECK_EQ_U64(key_lookup(""), (__u64)-1);
	CHECK_EQ_U64(unit_lookup("s"), (__u64)-1);
	CHECK_EQ_U64(sort_lookup("median"), (__u64)-1);
}

int main(void)
{
	TEST(test_parse_u64);
	TEST(test_parse_duration_good);
	TEST(test_parse_duration_bad);
	TEST(test_defaults);
	TEST(test_positionals);
	TEST(test_options_set);
	TEST(test_usage_errors);
	TEST(test_help_version);
	TEST(test_reparse);
	TEST(test_names);
	TEST(test_lookups);
	TEST(test_live);
	return test_summary();
}
