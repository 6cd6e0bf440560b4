// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the renderers. render_text against golden files in
 * tests/unit/golden/ (histogram rows, the stats line, key lines, the
 * --summary table, --min-wait folding, lost/overflow/events lines, -T);
 * render_json parsed back by a real JSON parser (python3's json module),
 * including names with quotes, backslashes, control and non-UTF-8 bytes.
 *
 * Golden files are found under $SH_GOLDEN_DIR, else tests/unit/golden
 * (the runner runs from the repo root); after their SPDX line they hold the
 * exact output. SH_UPDATE_GOLDEN=1 rewrites them from the current output:
 * then read every changed line before committing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "schedhist.h"
#include "cli/options.h"
#include "model/report.h"
#include "output/render.h"
#include "cli/specs.h"
#include "check.h"


/* 2023-11-14T22:13:20.123Z */
static const struct timespec fixed_when = { .tv_sec = 1700000000, .tv_nsec = 123456789 };

/* ---- building reports ---- */

/* One key's cumulative values, as one CPU holds them. */
struct spec {
	__u64 id;		/* pid, tid, cpu, cgroup id; SH_OTHER_ID for [other] */
	const char *comm;	/* -k comm: the key; pid/tid: the task name */
	__u64 sum_ns;
	__u64 max_ns;		/* 0: no max this interval */
	__u32 max_tid;
	__u32 max_cpu;
	const char *max_comm;
	__u32 buckets[SH_NBUCKETS(0)];	/* the goldens' grid: schema 0 */
};

#define MAX_ARGS 16

static void opts(struct options *o, const char *const *args)
{
	char *argv[MAX_ARGS];
	int argc = 0;

	argv[argc++] = "schedhist";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	if (parse_options(argc, argv, o) != -1) {
		fprintf(stderr, "parse_options failed\n");
		exit(1);
	}
}

#define OPTS(o, ...) opts((o), (const char *const[]){ __VA_ARGS__, NULL })

static void ingest_spec(struct snapshot *s, int key_type, const struct spec *p, __u32 epoch,
			bool final)
{
	union {	/* a kernel histogram with its buckets */
		struct sh_hist h;
		char room[SH_HIST_SIZE(SH_NBUCKETS_MAX)];
	} u = {};
	struct sh_hist *hp = &u.h;
	struct sh_key k = { .id = p->id };
	int i;

	if (key_type == SH_KEY_COMM && p->id != SH_OTHER_ID) {
		k.id = 0;
		memcpy(k.comm, p->comm, strnlen(p->comm, SH_COMM_LEN - 1));
	}
	for (i = 0; i < SH_NBUCKETS(0); i++) {
		hp->buckets[i] = p->buckets[i];
		hp->count += p->buckets[i];
	}
	hp->sum_ns = p->sum_ns;
	if (p->max_ns) {
		struct sh_max *m = &hp->max[epoch & 1];

		m->epoch = epoch;
		m->ns = p->max_ns;
		m->tid = p->max_tid;
		m->pid = p->max_tid;
		m->cpu = p->max_cpu;
		memcpy(m->comm, p->max_comm, strnlen(p->max_comm, SH_COMM_LEN - 1));
		/* the exact min: the lowest non-empty bucket's lower bound */
		for (i = 0; i < SH_NBUCKETS(0) && !p->buckets[i]; i++)
			;
		m->min_ns = i < SH_NBUCKETS(0) ? bucket_lo(i) : 0;
	}
	if ((key_type == SH_KEY_PID || key_type == SH_KEY_TID) && p->comm)
		memcpy(hp->comm, p->comm, strnlen(p->comm, SH_COMM_LEN - 1));
	CHECK(snapshot_ingest(s, &k, hp, 1, hist_bytes(), final) != NULL);
}

/* One reading of @n keys and counters @stats, then the report of it. */
static void build(struct report *r, struct snapshot *s, const struct options *o,
		  const struct spec *specs, int n, const __u64 *stats, double span_s)
{
	struct report_spec sp = report_spec_of(o);
	__u64 zero[SH_STAT_NR] = {};
	int i;

	CHECK(!snapshot_init(s));
	snapshot_begin(s, 1);
	for (i = 0; i < n; i++)
		ingest_spec(s, o->key_type, &specs[i], 1, false);
	snapshot_stats(s, stats ? stats : zero);
	s->metric = o->metric;	/* the poller keeps one snapshot per metric */
	CHECK(!report_build(r, s, &sp, NULL, span_s));
	r->when = fixed_when;
}

/* ---- golden files ---- */

static const char *golden_dir(void)
{
	const char *d = getenv("SH_GOLDEN_DIR");

	return d && *d ? d : "tests/unit/golden";
}

/* Every golden file starts with this line; the rest is the exact output. */
static const char golden_head[] = "# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause\n";

/* Compare @text with golden file @name; SH_UPDATE_GOLDEN=1 rewrites it. */
static void check_golden(const char *name, const char *text)
{
	char path[512], *buf = NULL;
	const char *want;
	size_t cap = 0, len;
	const char *u = getenv("SH_UPDATE_GOLDEN");
	FILE *f;
	int line = 1;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", golden_dir(), name);
	if (u && !strcmp(u, "1")) {
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(golden_head, f);
			fputs(text, f);
			fclose(f);
		}
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "  cannot open golden file %s (run from the repo root, or set "
				"SH_GOLDEN_DIR)\n", path);
		CHECK(!"golden file missing");
		return;
	}
	len = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (len == (size_t)-1)
		len = 0;
	want = buf ? buf : "";
	if (len >= strlen(golden_head) && !strncmp(want, golden_head, strlen(golden_head))) {
		want += strlen(golden_head);
		len -= strlen(golden_head);
		line++;
	}
	if (len == strlen(text) && !memcmp(want, text, len)) {
		free(buf);
		return;
	}
	for (i = 0; i < len && text[i] && want[i] == text[i]; i++)
		line += want[i] == '\n';
	fprintf(stderr, "  %s differs from the output at line %d; the output was:\n%s", path,
		line, text);
	CHECK(!"output matches the golden file");
	free(buf);
}

/* render_text into a string (free it). */
static char *text_of(const struct report *r, const struct options *o)
{
	struct render_spec rs;
	struct outbuf b = {};

	rs = render_spec_of(o);
	char *t;

	render_text(&b, r, &rs);
	/* a copy: the buffer's memory is the outbuf's to free (ob_free) */
	if (!ob_cstr(&b) || !(t = strdup(b.p)))
		abort();
	ob_free(&b);
	return t;
}

static void golden_case(const char *name, const struct report *r, const struct options *o)
{
	char *t = text_of(r, o);

	check_golden(name, t);
	free(t);
}

/* ---- text ---- */

/* Every bucket of a histogram gets its own label, in every unit. */
static void test_bucket_labels_distinct(void)
{
	static const int units[] = { SH_UNIT_NS, SH_UNIT_US, SH_UNIT_MS };
	char a[32], b[32];
	size_t u;
	int i, sc, same = 0;

	/* at every schema: 2^(1/8) = 1.09 apart, three digits tell them apart */
	for (sc = 0; sc <= SH_SCHEMA_MAX; sc++) {
		grid_set(sc);
		for (u = 0; u < 3; u++) {
			for (i = 0; i + 1 < sh_nb; i++) {
				fmt_wait(a, sizeof(a), bucket_lo(i), units[u]);
				fmt_wait(b, sizeof(b), bucket_lo(i + 1), units[u]);
				if (!strcmp(a, b)) {
					fprintf(stderr, "  %s, schema %d: buckets %d and %d both start at %s\n",
						unit_name(units[u]), sc, i, i + 1, a);
					same++;
				}
			}
		}
	}
	grid_set(0);
	CHECK_EQ_U64(same, 0);
}

/* One system-wide histogram in us, with a gap (an empty bucket) in it. */
static const struct spec sys_hist = {
	.sum_ns = 18654321,
	.max_ns = 180000,
	.max_tid = 4242,
	.max_cpu = 3,
	.max_comm = "nginx",
	.buckets = { [1] = 120, [2] = 340, [3] = 800, [4] = 410, [5] = 95, [6] = 12,
		   [8] = 3 },
};

static void test_text_none(void)
{
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;

	OPTS(&o, "-i", "1");
	build(&r, &s, &o, &sys_hist, 1, NULL, 1.0);
	golden_case("none_us.txt", &r, &o);

	/* the same in ns and in ms */
	OPTS(&o, "-i", "1", "--unit", "ns");
	golden_case("none_ns.txt", &r, &o);
	OPTS(&o, "-i", "1", "-m");
	golden_case("none_ms.txt", &r, &o);

	/* -T: the wall-clock time first (local time: pinned to UTC here) */
	setenv("TZ", "UTC", 1);
	tzset();
	OPTS(&o, "-i", "1", "-T");
	golden_case("none_timestamp.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);

	/* the zero bucket reads "0 -> 0.953" (us); the next one its edges; the last "longer" */
	{
		static const struct spec tiny = { .sum_ns = 1, .buckets = { [0] = 3, [1] = 1,
									 [SH_NBUCKETS(0) - 1] = 2 } };
		char *t;

		OPTS(&o, "-i", "1");
		build(&r, &s, &o, &tiny, 1, NULL, 1.0);
		t = text_of(&r, &o);
		CHECK(strstr(t, "\n            0 -> 0.953       : 3 ") != NULL);
		CHECK(strstr(t, "\n        0.953 -> 1.91        : 1 ") != NULL);
		CHECK(strstr(t, " -> longer      : 2 ") != NULL);
		CHECK(strstr(t, "stacks:") == NULL);
		free(t);
		/* --stacks: new maxima whose stack another CPU was writing, said when there are */
		r.kmem.stack_lost = 4;
		t = text_of(&r, &o);
		CHECK(strstr(t, "\nstacks: 4 longer waits since the start without their stack "
				"(another CPU was writing the key's stack at the instant)\n") != NULL);
		free(t);
		report_free(&r);
		snapshot_free(&s);
	}
}

/* --min-wait: shorter waits fold into one "< X" row. */
static void test_text_min_wait(void)
{
	static const struct spec h = {
		.sum_ns = 9876543,
		.max_ns = 600000,
		.max_tid = 77,
		.max_cpu = 0,
		.max_comm = "postgres",
		.buckets = { [0] = 35, [1] = 200, [3] = 60, [7] = 4, [8] = 7,
			   [10] = 2 },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;

	/* 100 us lies in [65.5, 131) us: that row first, 295 waits below it */
	OPTS(&o, "--min-wait", "100us");
	build(&r, &s, &o, &h, 1, NULL, 5.0);
	golden_case("min_wait.txt", &r, &o);
	/* a --min-wait below every wait changes nothing */
	OPTS(&o, "--min-wait", "100ns");
	golden_case("min_wait_none.txt", &r, &o);
	/* above every wait: all of them fold, one empty row follows */
	OPTS(&o, "--min-wait", "10ms");
	golden_case("min_wait_all.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);
}

/* Per-thread runq with --top, [other], lost and overflow lines, -v. */
static const struct spec threads[] = {
	{ .id = 101, .comm = "alpha", .sum_ns = 2000000, .max_ns = 3900, .max_tid = 101,
	  .max_cpu = 1, .max_comm = "alpha", .buckets = { [1] = 600, [2] = 400 } },
	{ .id = 202, .comm = "beta", .sum_ns = 5000000, .max_ns = 700000, .max_tid = 202,
	  .max_cpu = 0, .max_comm = "beta", .buckets = { [9] = 8, [10] = 2 } },
	{ .id = 303, .comm = "gamma", .sum_ns = 1000000, .max_ns = 20000, .max_tid = 303,
	  .max_cpu = 2, .max_comm = "gamma", .buckets = { [4] = 90, [5] = 10 } },
	{ .id = 404, .comm = "delta", .sum_ns = 30000, .max_ns = 3000, .max_tid = 404,
	  .max_cpu = 3, .max_comm = "delta", .buckets = { [2] = 15 } },
	{ .id = SH_OTHER_ID, .sum_ns = 400000, .max_ns = 90000, .max_tid = 999,
	  .max_cpu = 5, .max_comm = "late", .buckets = { [6] = 4, [7] = 1 } },
};

static void test_text_tid(void)
{
	__u64 stats[SH_STAT_NR] = { [SH_STAT_SEEN] = 1500, [SH_STAT_NO_START] = 7,
				    [SH_STAT_FILTERED] = 360, [SH_STAT_DROPPED] = 1,
				    [SH_STAT_MAP_FULL] = 5 };
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;

	OPTS(&o, "-M", "runq", "-L", "-v", "-i", "2");
	build(&r, &s, &o, threads, 5, stats, 2.0);
	golden_case("tid_all.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-M", "runq", "-L", "--top", "2", "-i", "2");
	build(&r, &s, &o, threads, 5, stats, 2.0);
	golden_case("tid_top2.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);
}

/* --summary: one line per key, names padded to the widest. */
static void test_text_summary(void)
{
	static const struct spec comms[] = {
		{ .comm = "bash", .sum_ns = 40000000, .max_ns = 9000000, .max_tid = 1200,
		  .max_cpu = 1, .max_comm = "bash", .buckets = { [3] = 100, [14] = 3 } },
		{ .comm = "kworker/u16:3", .sum_ns = 3000000, .max_ns = 60000, .max_tid = 88,
		  .max_cpu = 7, .max_comm = "kworker/u16:3", .buckets = { [5] = 150 } },
		{ .comm = "sshd", .sum_ns = 700000, .max_ns = 70000, .max_tid = 900,
		  .max_cpu = 0, .max_comm = "sshd", .buckets = { [6] = 10 } },
		{ .comm = "cron", .sum_ns = 50000, .max_ns = 12000, .max_tid = 500,
		  .max_cpu = 2, .max_comm = "cron", .buckets = { [4] = 5 } },
		{ .comm = "systemd", .sum_ns = 20000, .max_ns = 0,
		  .buckets = { [2] = 8 } },
		{ .id = SH_OTHER_ID, .sum_ns = 10000, .max_ns = 5000, .max_tid = 31337,
		  .max_cpu = 4, .max_comm = "new", .buckets = { [3] = 2 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;

	OPTS(&o, "-M", "runq", "-k", "comm", "--summary", "-i", "5");
	build(&r, &s, &o, comms, 6, NULL, 5.0);
	golden_case("summary_comm.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-M", "runq", "-k", "comm", "--summary", "--top", "3", "--sort", "p99");
	build(&r, &s, &o, comms, 6, NULL, 5.0);
	golden_case("summary_comm_top3.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-M", "runq", "-L", "--summary", "-i", "2");
	build(&r, &s, &o, threads, 5, NULL, 2.0);
	golden_case("summary_tid.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);
}

/* Since start, per process, with an exited one; and an empty report. */
static void test_text_cumulative(void)
{
	struct spec p[3] = {
		{ .id = 1000, .comm = "server", .sum_ns = 500000, .max_ns = 40000,
		  .max_tid = 1003, .max_cpu = 2, .max_comm = "worker-3",
		  .buckets = { [3] = 20, [6] = 5 } },
		{ .id = 2000, .comm = "batch", .sum_ns = 90000, .max_ns = 9000, .max_tid = 2000,
		  .max_cpu = 1, .max_comm = "batch", .buckets = { [4] = 10 } },
		{ .id = 3000, .comm = "short", .sum_ns = 6000, .max_ns = 3000, .max_tid = 3000,
		  .max_cpu = 0, .max_comm = "short", .buckets = { [2] = 2 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct report_spec rspec;
	struct options o;
	int i;

	OPTS(&o, "-P", "--cumulative", "-i", "5");
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	for (i = 0; i < 3; i++)
		ingest_spec(&s, SH_KEY_PID, &p[i], 1, false);
	rspec = report_spec_of(&o);
	s.metric = o.metric;
	CHECK(!report_build(&r, &s, &rspec, NULL, 5.0));
	snapshot_gc(&s);
	/* 2nd interval: 1000 has 5 more waits, 3000 has exited */
	p[0].buckets[bucket_of(80000)] = 5;
	p[0].sum_ns += 5 * 80000;
	p[0].max_ns = 80000;
	snapshot_begin(&s, 2);
	ingest_spec(&s, SH_KEY_PID, &p[0], 2, false);
	ingest_spec(&s, SH_KEY_PID, &p[1], 2, false);
	ingest_spec(&s, SH_KEY_PID, &p[2], 2, true);
	snapshot_gc(&s);
	snapshot_begin(&s, 3);
	ingest_spec(&s, SH_KEY_PID, &p[0], 3, false);
	ingest_spec(&s, SH_KEY_PID, &p[1], 3, false);
	rspec = report_spec_of(&o);
	s.metric = o.metric;
	CHECK(!report_build(&r, &s, &rspec, NULL, 15.0));
	r.when = fixed_when;
	golden_case("pid_cumulative.txt", &r, &o);

	/* interval mode on the same reading: nothing happened */
	OPTS(&o, "-P", "-i", "5");
	rspec = report_spec_of(&o);
	s.metric = o.metric;
	CHECK(!report_build(&r, &s, &rspec, NULL, 5.0));
	golden_case("empty.txt", &r, &o);
	report_free(&r);
	snapshot_free(&s);
}

/* ---- JSON ---- */

static const char *python(void)
{
	const char *p = getenv("PYTHON");

	if (p && *p)
		return p;
	/* Debian's, if there: no version-manager shim to start up */
	return access("/usr/bin/python3", X_OK) ? "python3" : "/usr/bin/python3";
}

/*
 * Check the JSON Lines in @json with python3: a prelude loads the file
 * (exactly one line, strict json.loads) into `doc`, then @checks runs.
 * 0 when every assertion holds.
 */
static int py_check(const char *json, const char *checks)
{
	static const char prelude[] =
		"import json, re, sys\n"
		"text = open(sys.argv[1], encoding='utf-8').read()\n"
		"assert text.endswith('\\n') and text.count('\\n') == 1, 'one line'\n"
		"doc = json.loads(text)\n"
		"def group(key):\n"
		"    gs = [g for g in doc['groups'] if g['key'] == key]\n"
		"    assert len(gs) == 1, 'group %r: %d' % (key, len(gs))\n"
		"    return gs[0]\n"
		"def ints(g, *names):\n"
		"    for n in names:\n"
		"        assert type(g[n]) is int and g[n] >= 0, n\n"
		"# the grid (schedhist.h): upper edges floor(1e9 * 2^(j-20)) ns, [lo, hi) in JSON\n"
		"E = [10**9 << (j - 20) if j >= 20 else 10**9 >> (20 - j) for j in range(0, 40)]\n"
		"grid = {(0, E[0] + 1)} | {(E[j - 1] + 1, E[j] + 1) for j in range(1, 40)} | {(E[39] + 1, None)}\n";
	char dir[] = "/tmp/sh-json-XXXXXX", jpath[64], ppath[64], cmd[256];
	FILE *f;
	int st;

	if (!mkdtemp(dir))
		return -1;
	snprintf(jpath, sizeof(jpath), "%s/out.json", dir);
	snprintf(ppath, sizeof(ppath), "%s/check.py", dir);
	f = fopen(jpath, "w");
	if (!f)
		return -1;
	fputs(json, f);
	fclose(f);
	f = fopen(ppath, "w");
	if (!f)
		return -1;
	fputs(prelude, f);
	fputs(checks, f);
	fclose(f);
	fflush(stdout);
	/* -S: no site module, a faster start; json and re are enough */
	snprintf(cmd, sizeof(cmd), "%s -S %s %s", python(), ppath, jpath);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "  JSON check failed (%s), the JSON was:\n  %s", cmd, json);
	unlink(jpath);
	unlink(ppath);
	rmdir(dir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Validate @json against docs/report.schema.json with tests/check-reports.py
 * (Debian's python3: python3-jsonschema installs there). 0 when accepted.
 */
static int schema_check(const char *json)
{
	char path[] = "/tmp/sh-report-XXXXXX", cmd[256];
	int fd = mkstemp(path), st;

	if (fd < 0 || write(fd, json, strlen(json)) != (ssize_t)strlen(json)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 tests/check-reports.py %s >/dev/null", path);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 tests/check-reports.py %s >&2", path);
		if (system(cmd) == -1)
			perror("system");
	}
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every report the tests render is checked against the schema. */
static char *json_of(const struct report *r, const struct options *o)
{
	struct outbuf b = {};

	render_json(&b, r);
	if (!ob_cstr(&b))
		abort();
	CHECK(!schema_check(b.p));
	return b.p;
}

static void test_json_fields(void)
{
	__u64 stats[SH_STAT_NR] = { [SH_STAT_SEEN] = 1500, [SH_STAT_NO_START] = 7,
				    [SH_STAT_FILTERED] = 360, [SH_STAT_DROPPED] = 1,
				    [SH_STAT_MAP_FULL] = 5 };
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *j;

	OPTS(&o, "-M", "runq", "-L", "-j", "-i", "2");
	build(&r, &s, &o, threads, 5, stats, 2.0);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"import socket\n"
		"assert list(doc)[:3] == ['schema', 'host', 'time'], list(doc)\n"
		"assert doc['schema'] == 1 and doc['host'] == socket.gethostname(), doc['host']\n"
		"assert doc['time'] == '2023-11-14T22:13:20.123Z', doc['time']\n"
		"assert re.fullmatch(r'\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z', "
		"doc['time'])\n"
		"assert doc['interval_s'] == 2.0\n"
		"assert doc['cumulative'] is False\n"
		"assert doc['metric'] == 'runq' and doc['key'] == 'tid'\n"
		"keys = [g['key'] for g in doc['groups']]\n"
		"assert keys == ['202', '101', '303', '[other]', '404'], keys\n"
		"for g in doc['groups']:\n"
		"    ints(g, 'count', 'sum_ns', 'avg_ns', 'max_ns', 'p50_ns', 'p90_ns', 'p99_ns',"
		" 'p999_ns')\n"
		"    assert sum(b['count'] for b in g['buckets']) == g['count']\n"
		"    assert g['avg_ns'] == g['sum_ns'] // g['count']\n"
		"    assert g['p50_ns'] <= g['p90_ns'] <= g['p99_ns'] <= g['p999_ns']\n"
		"    assert g['p999_ns'] <= g['max_ns']\n"
		"    for b in g['buckets']:\n"
		"        assert (b['lo_ns'], b['hi_ns']) in grid, b\n"
		"        assert b['count'] > 0\n"
		"g = group('202')\n"
		"assert g['comm'] == 'beta'\n"
		"assert g['count'] == 10 and g['sum_ns'] == 5000000 and g['avg_ns'] == 500000\n"
		"assert g['max_ns'] == 700000 and g['max_tid'] == 202 and g['max_pid'] == 202\n"
		"assert g['max_cpu'] == 0 and g['max_comm'] == 'beta'\n"
		"assert g['buckets'] == [{'lo_ns': 244141, 'hi_ns': 488282, 'count': 8},"
		" {'lo_ns': 488282, 'hi_ns': 976563, 'count': 2}], g['buckets']\n"
		"o = group('[other]')\n"
		"assert 'comm' not in o and 'cgroup_id' not in o and 'keys' not in o\n"
		"assert o['count'] == 5 and o['max_comm'] == 'late'\n"
		"assert 'cgroup_id' not in group('101')\n"
		"lost = doc['lost']\n"
		"assert lost == {'no_start': 7, 'filtered': 360, 'dropped': 1, 'clock_skew': 0}, lost\n"
		"ev = doc['events']\n"
		"assert ev == {'seen': 1500, 'no_start': 7, 'filtered': 360, 'dropped': 1,"
		" 'map_full': 5, 'no_mem': 0, 'clock_skew': 0, 'merged': 0, 'recorded': 1130, 'live_keys': 4}, ev\n"
		"assert ev['recorded'] == sum(g['count'] for g in doc['groups'])\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);

	/* --top: the rest is one more group with its number of keys */
	OPTS(&o, "-M", "runq", "-L", "-j", "--top", "2", "--cumulative");
	build(&r, &s, &o, threads, 5, stats, 7.25);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"assert doc['cumulative'] is True and doc['interval_s'] == 7.25\n"
		"keys = [g['key'] for g in doc['groups']]\n"
		"assert keys == ['202', '101', '[rest]'], keys\n"
		"rest = group('[rest]')\n"
		"assert rest['keys'] == 3 and rest['count'] == 100 + 5 + 15, rest\n"
		"assert sum(g['count'] for g in doc['groups']) == doc['events']['recorded']\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);
}

/* An empty report, long waits, and the last bucket (hi null: its end is past 2^64 ns). */
static void test_json_edges(void)
{
	static const struct spec longest = {
		.sum_ns = UINT64_MAX,
		.max_ns = UINT64_MAX,
		.max_tid = 1,
		.max_cpu = 0,
		.max_comm = "init",
		.buckets = { [SH_NBUCKETS(0) - 1] = 1 },
	};
	static const struct spec huge = {
		.sum_ns = 3 * 600000000000ULL + 1000,
		.max_ns = 600000000000ULL,
		.max_tid = 1,
		.max_cpu = 0,
		.max_comm = "init",
		.buckets = { [0] = 1, [30] = 3 },	/* 0 ns, and 600 s in (512 s, 1024 s] */
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *j;

	OPTS(&o, "-j");
	build(&r, &s, &o, NULL, 0, NULL, 0.5);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"assert doc['groups'] == [] and doc['key'] == 'none'\n"
		"assert doc['metric'] == 'offcpu' and doc['interval_s'] == 0.5\n"
		"assert doc['lost'] == {'no_start': 0, 'filtered': 0, 'dropped': 0, 'clock_skew': 0}\n"
		"assert doc['events']['recorded'] == 0\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-j", "-M", "blocked");
	build(&r, &s, &o, &huge, 1, NULL, 1.0);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"g = group('all')\n"
		"assert doc['metric'] == 'blocked'\n"
		"assert g['buckets'] == [{'lo_ns': 0, 'hi_ns': 954, 'count': 1},"
		" {'lo_ns': 512000000001, 'hi_ns': 1024000000001, 'count': 3}], g['buckets']\n"
		"assert g['max_ns'] == 600000000000 and g['p999_ns'] <= g['max_ns']\n"
		"assert g['sum_ns'] == 1800000001000\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-j");
	build(&r, &s, &o, &longest, 1, NULL, 1.0);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"g = group('all')\n"
		"assert g['buckets'] == [{'lo_ns': 524288000000001, 'hi_ns': None, 'count': 1}],"
		" g['buckets']\n"
		"assert (g['buckets'][0]['lo_ns'], None) in grid\n"
		"assert g['max_ns'] == 2**64 - 1 and g['p50_ns'] == g['max_ns']\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);
}

/* Task names are bytes: quotes, backslashes, control bytes, >= 0x80, UTF-8. */
static void test_json_escapes(void)
{
	static const struct spec nasty[] = {
		{ .id = 7, .comm = "a\"b\\c\nd\xe9\x01\t\r\x7f", .sum_ns = 5000, .max_ns = 3000,
		  .max_tid = 7, .max_cpu = 0, .max_comm = "q\"\\\n\xff", .buckets = { [2] = 2 } },
	};
	static const struct spec comm_key[] = {
		{ .comm = "x\"y\\z\n\x80\x1f", .sum_ns = 5000, .buckets = { [2] = 2 } },
		{ .comm = "caf\xc3\xa9", .sum_ns = 4000, .buckets = { [2] = 2 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *j;

	OPTS(&o, "-j", "-L");
	build(&r, &s, &o, nasty, 1, NULL, 1.0);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"g = group('7')\n"
		"assert g['comm'] == r'a\"b\\\\c\\x0ad\\xe9\\x01\\x09\\x0d\\x7f', repr(g['comm'])\n"
		"assert g['max_comm'] == r'q\"\\\\\\x0a\\xff', repr(g['max_comm'])\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-j", "-k", "comm");
	build(&r, &s, &o, comm_key, 2, NULL, 1.0);
	j = json_of(&r, &o);
	/* UTF-8 stays UTF-8 (no mojibake), the rest is the rule of escape.h */
	CHECK(!py_check(j,
		"assert [g['key'] for g in doc['groups']] == [r'x\"y\\\\z\\x0a\\x80\\x1f', "
		"'caf\\u00e9'], doc['groups']\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);
}

/* No name reaches a terminal raw: no control byte but the line ends, no forged line. */
static bool text_clean(const char *t)
{
	const unsigned char *p = (const unsigned char *)t;

	for (; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return false;
	return !strstr(t, "\ncomm = root") && !strstr(t, "\ntid = 1\n");
}

static void test_text_escapes(void)
{
	static const struct spec comms[] = {
		{ .comm = "x\ncomm = root", .sum_ns = 5000, .max_ns = 3000, .max_tid = 9, .max_comm = "\x1b]0;t\x07",
		  .buckets = { [2] = 2 } },
		{ .comm = "\x1b[2J\xc2\x9b" "1m", .sum_ns = 4000, .buckets = { [2] = 2 } },
	};
	static const struct spec tids[] = {
		{ .id = 7, .comm = "a\ntid = 1", .sum_ns = 5000, .max_ns = 3000, .max_tid = 7, .max_comm = "a\ntid = 1",
		  .buckets = { [2] = 2 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *t;

	OPTS(&o, "-k", "comm");
	build(&r, &s, &o, comms, 2, NULL, 1.0);
	t = text_of(&r, &o);
	CHECK(text_clean(t));
	CHECK(strstr(t, "comm = x\\x0acomm = root\n"));
	CHECK(strstr(t, "tid 9 (\\x1b]0;t\\x07) cpu"));
	CHECK(strstr(t, "comm = \\x1b[2J\\xc2\\x9b1m\n"));
	free(t);
	OPTS(&o, "-k", "comm", "--summary");
	t = text_of(&r, &o);
	CHECK(text_clean(t));
	CHECK(strstr(t, "x\\x0acomm = root "));
	free(t);
	report_free(&r);
	snapshot_free(&s);

	OPTS(&o, "-L");
	build(&r, &s, &o, tids, 1, NULL, 1.0);
	t = text_of(&r, &o);
	CHECK(text_clean(t));
	CHECK(strstr(t, "tid = 7 (a\\x0atid = 1)\n"));
	free(t);
	OPTS(&o, "-L", "--summary");
	t = text_of(&r, &o);
	CHECK(text_clean(t));
	free(t);
	report_free(&r);
	snapshot_free(&s);
}

/* -k cgroup: a cgroup_id for real cgroups, none for [other]. */
static void test_json_cgroup(void)
{
	static const struct spec cgs[] = {
		{ .id = 4321, .sum_ns = 5000, .buckets = { [2] = 2 } },
		{ .id = SH_OTHER_ID, .sum_ns = 3000, .buckets = { [1] = 1 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *j;

	OPTS(&o, "-j", "-k", "cgroup");
	build(&r, &s, &o, cgs, 2, NULL, 1.0);
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"assert doc['key'] == 'cgroup'\n"
		"g = group('[removed id=4321]')\n"
		"assert g['cgroup_id'] == 4321\n"
		"assert 'cgroup_id' not in group('[other]')\n"
		"assert 'max_tid' not in g\n"
		"for f in ('unit', 'container_id', 'container_id_short', 'pod_uid', 'qos'):\n"
		"    assert f not in g and f not in group('[other]'), f\n"));
	free(j);

	/* names read from the path: as if cgroupfs had named the ids */
	r.groups[0].name = "/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/"
			   "3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";
	r.groups[0].name_in_idbuf = false;
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"g = doc['groups'][0]\n"
		"assert g['container_id'] == "
		"'3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f', g\n"
		"assert g['container_id_short'] == '3f4e1b2a9c8d'\n"
		"assert g['pod_uid'] == '0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b'\n"
		"assert g['qos'] == 'besteffort' and 'unit' not in g\n"));
	free(j);
	r.groups[0].name = "/system.slice/dev-disk-by\\x2duuid-0a1b.swap";
	j = json_of(&r, &o);
	CHECK(!py_check(j,
		"g = doc['groups'][0]\n"
		"assert g['unit'] == 'dev-disk-by\\\\\\\\x2duuid-0a1b.swap', g\n"
		"assert 'container_id' not in g and 'qos' not in g\n"));
	free(j);
	report_free(&r);
	snapshot_free(&s);
}

/* -k cgroup text: the short name beside the path, in histograms and in --summary. */
static void test_text_cgroup(void)
{
	static const struct spec cgs[] = {
		{ .id = 4321, .sum_ns = 5000, .buckets = { [1] = 2 } },
		{ .id = 999, .sum_ns = 3000, .buckets = { [0] = 1 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *buf;

	OPTS(&o, "-k", "cgroup");
	build(&r, &s, &o, cgs, 2, NULL, 1.0);
	r.groups[0].name = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
			   "0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b.slice/cri-containerd-"
			   "3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope";
	r.groups[0].name_in_idbuf = false;
	r.groups[1].name = "/system.slice/nginx.service";
	r.groups[1].name_in_idbuf = false;
	buf = text_of(&r, &o);
	CHECK(strstr(buf, "cri-containerd-3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4"
			  "d3e2f.scope (container 3f4e1b2a9c8d, pod 0f1e2d3c-4b5a-6978-8a9b-"
			  "0c1d2e3f4a5b, burstable)\n") != NULL);
	/* the path says it all: nothing beside it */
	CHECK(strstr(buf, "cgroup = /system.slice/nginx.service\n") != NULL);
	free(buf);
	OPTS(&o, "-k", "cgroup", "--summary");
	buf = text_of(&r, &o);
	CHECK(strstr(buf, ".scope (container 3f4e1b2a9c8d, pod 0f1e2d3c-4b5a-6978-8a9b-"
			  "0c1d2e3f4a5b, burstable) ") != NULL);
	free(buf);
	report_free(&r);
	snapshot_free(&s);
}

static void test_rfc3339(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 999999999 };
	char b[64];

	fmt_rfc3339(b, sizeof(b), &ts);
	CHECK(!strcmp(b, "1970-01-01T00:00:00.999Z"));
	ts.tv_sec = 951782400;	/* leap day 2000 */
	ts.tv_nsec = 5000000;
	fmt_rfc3339(b, sizeof(b), &ts);
	CHECK(!strcmp(b, "2000-02-29T00:00:00.005Z"));
	fmt_rfc3339(b, sizeof(b), &fixed_when);
	CHECK(!strcmp(b, "2023-11-14T22:13:20.123Z"));
}

/* ---- the docs' example output is this renderer's ---- */

/* @s with every run of blanks made one space, ends trimmed, into @out. */
static void squeeze(char *out, size_t n, const char *s)
{
	size_t j = 0;

	while (*s == ' ')
		s++;
	for (; *s && *s != '\n' && j + 1 < n; s++)
		if (*s != ' ' || (s[1] && s[1] != ' ' && s[1] != '\n'))
			out[j++] = *s;
	out[j] = '\0';
}

/*
 * @s with every run of digits (and the decimals after one) made "N", and
 * so the man page's placeholder words N and X.
 */
static void digits_to_n(char *out, size_t n, const char *s)
{
	const char *start = s;
	size_t j = 0;

	for (; *s && *s != '\n' && j + 2 < n; s++) {
		if (*s == 'X' && (s == start || s[-1] == ' ') && (!s[1] || s[1] == ' ')) {
			out[j++] = 'N';
		} else if (*s >= '0' && *s <= '9') {
			while ((s[1] >= '0' && s[1] <= '9') || s[1] == '.')
				s++;
			out[j++] = 'N';
		} else {
			out[j++] = *s;
		}
	}
	out[j] = '\0';
}

/* The line of @text that starts with (or, @anywhere, holds) @what, into @out ("" if none). */
static void line_of(char *out, size_t n, const char *text, const char *what, bool anywhere)
{
	const char *p = text;

	out[0] = '\0';
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *hit = anywhere ? strstr(p, what) : NULL;

		if ((anywhere && hit && hit < p + len) || (!anywhere && !strncmp(p, what, strlen(what)))) {
			snprintf(out, n, "%.*s", (int)len, p);
			return;
		}
	}
}

/*
 * The text report the binary prints for command line @args (split at
 * blanks, up to a pipe) over one key with a maximum and waits of no known
 * start: the header, lost and stats lines the docs show come from it.
 */
static char *example_text(const char *args)
{
	static const struct spec one = { .id = 101, .comm = "batch", .sum_ns = 8000000,
					 .max_ns = 7000000, .max_tid = 101, .max_cpu = 0,
					 .max_comm = "batch", .buckets = { [10] = 3, [13] = 5 } };
	__u64 stats[SH_STAT_NR] = { [SH_STAT_NO_START] = 3 };
	char copy[512], *argv[MAX_ARGS], *tok, *save;
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *t;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", args);
	for (tok = strtok_r(copy, " ", &save); tok && argc < MAX_ARGS - 1 && strcmp(tok, "|");
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	opts(&o, (const char *const *)argv);
	build(&r, &s, &o, &one, 1, stats, 5.0);
	t = text_of(&r, &o);
	report_free(&r);
	snapshot_free(&s);
	return t;
}

/* Is "@lo -> @hi" a row label of the histograms in @unit? */
static bool is_row_label(const char *lo, const char *hi, int unit)
{
	char a[32], b[32];
	int i;

	for (i = 0; i < sh_nb; i++) {
		fmt_wait(a, sizeof(a), bucket_floor(i), unit);
		if (!i)
			snprintf(a, sizeof(a), "0");
		if (bucket_edge(i) == UINT64_MAX)
			snprintf(b, sizeof(b), "longer");
		else
			fmt_wait(b, sizeof(b), bucket_edge(i), unit);
		if (!strcmp(a, lo) && !strcmp(b, hi))
			return true;
	}
	return false;
}

/* The man page's troff escapes of its examples, as they render. */
static void untroff(char *s)
{
	static const struct { const char *from, *to; } esc[] = {
		{ "\\-", "-" }, { "\\(aq", "'" }, { "\\(dq", "\"" }, { "\\e", "\\" }, { "\\&", "" },
	};
	size_t i;
	char *p;

	for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++)
		while ((p = strstr(s, esc[i].from)))
			memmove(p + strlen(esc[i].to), p + strlen(esc[i].from),
				strlen(p + strlen(esc[i].from)) + 1),
			memcpy(p, esc[i].to, strlen(esc[i].to));
}

/*
 * Every example output in README.md, docs/usage.md and the man page has the shape of
 * the binary's own: each --summary header, "lost:" line and stats line is
 * what the renderer prints for the example's command line (the man page's,
 * which show no command, for a runq summary of the key the header names),
 * and each histogram row's edges are a bucket's in the unit shown.
 */
static void check_examples(const char *path, int least)
{
	FILE *f = fopen(path, "r");
	char line[1024], args[512] = "", want[1024], a[1024], b[1024], lo[32], hi[32];
	bool man = strstr(path, ".8") != NULL, in_ex = false;
	int unit = SH_UNIT_US, lineno = 0, checked = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *t = NULL;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (man) {
			if (!strcmp(line, ".EX") || !strcmp(line, ".EE"))
				in_ex = line[2] == 'X';
			if (!in_ex && strncmp(line, ".RB", 3))
				continue;
			untroff(line);
		}
		if (!strncmp(line, "# schedhist ", 12) || !strncmp(line, "# .output/schedhist ", 20)) {
			snprintf(args, sizeof(args), "%s", strstr(line, "schedhist ") + 10);
			unit = strstr(args, "-m") ? SH_UNIT_MS : SH_UNIT_US;
			continue;
		}
		if (!strncmp(line, "```", 3)) {
			args[0] = '\0';
			continue;
		}
		if (strstr(line, " COUNT ") && strstr(line, "MAX_BY (")) {
			char cmd[512];

			if (args[0] && !man) {
				snprintf(cmd, sizeof(cmd), "%s", args);
			} else {
				sscanf(line, "%31s", lo);
				snprintf(cmd, sizeof(cmd), "-M runq -k %s --summary%s", lo,
					 strstr(line, "TOP_CULPRIT") ? " --culprits" : "");
			}
			t = example_text(cmd);
			line_of(want, sizeof(want), t, " COUNT ", true);
			squeeze(a, sizeof(a), line);
			squeeze(b, sizeof(b), want);
		} else if (strstr(line, "lost: ")) {
			t = example_text("-i 5");
			line_of(want, sizeof(want), t, "lost: ", false);
			digits_to_n(a, sizeof(a), strstr(line, "lost: "));
			if (strchr(a, '"'))
				*strchr(a, '"') = '\0';
			digits_to_n(b, sizeof(b), want);
		} else if (!strncmp(line, "count ", 6) && strstr(line, " p50 ")) {
			t = example_text(args[0] && !man ? args : "-i 5");
			line_of(want, sizeof(want), t, "count ", false);
			/* the field names: every other word up to "max" */
			digits_to_n(a, sizeof(a), line);
			digits_to_n(b, sizeof(b), want);
			if (strstr(a, " max N"))
				strstr(a, " max N")[6] = '\0';
			if (strstr(b, " max N"))
				strstr(b, " max N")[6] = '\0';
		} else if (sscanf(line, " %31s -> %31s : ", lo, hi) == 2 && strstr(line, " : ") &&
			   strchr(line, '|')) {
			if (!is_row_label(lo, hi, unit)) {
				fprintf(stderr, "  %s:%d: '%s -> %s' is no bucket's edges in %s\n", path,
					lineno, lo, hi, unit_name(unit));
				CHECK(!"a histogram row of the docs has real bucket edges");
			}
			checked++;
			continue;
		} else {
			if (sscanf(line, " %31s : count", lo) == 1 && strstr(line, "distribution"))
				unit = !strcmp(lo, "ms") ? SH_UNIT_MS : !strcmp(lo, "ns") ? SH_UNIT_NS
											 : SH_UNIT_US;
			continue;
		}
		if (strcmp(a, b)) {
			fprintf(stderr, "  %s:%d: the docs show\n    %s\n  the binary prints\n    %s\n",
				path, lineno, a, b);
			CHECK(!"an example line of the docs is the binary's");
		}
		checked++;
		free(t);
	}
	fclose(f);
	/* the docs have examples: a reader that finds fewer is broken */
	if (checked < least)
		fprintf(stderr, "  %s: %d example lines found, want %d\n", path, checked, least);
	CHECK(checked >= least);
}

static void test_doc_examples(void)
{
	check_examples("README.md", 23);
	check_examples("docs/usage.md", 97);
	check_examples("man/schedhist.8", 3);
}

/* --summary -k cgroup: a "-" is explained once under the table, and only then. */
static void test_summary_dash_footnote(void)
{
	static const struct spec cgs[] = {
		{ .id = 4321, .sum_ns = 900000, .max_ns = 500000, .max_tid = 7, .max_comm = "w",
		  .buckets = { [9] = 2 } },
	};
	struct snapshot s;
	struct report r = {};
	report_init(&r);
	struct options o;
	char *t;

	OPTS(&o, "-M", "runq", "-k", "cgroup", "--summary", "-i", "1");
	build(&r, &s, &o, cgs, 1, NULL, 1.0);
	t = text_of(&r, &o);
	CHECK(strstr(t, "\nTHROTTLED -: no throttling counters") != NULL);
	CHECK(strstr(t, "\nPSI_SOME -: no cpu.pressure") != NULL);
	free(t);
	r.groups[0].cgs.has_throttle = true;
	r.groups[0].cgs.has_some = true;
	t = text_of(&r, &o);
	CHECK(strstr(t, "      0.0%      0.0%") != NULL);
	CHECK(!strstr(t, "THROTTLED -:") && !strstr(t, "PSI_SOME -:"));
	free(t);
	report_free(&r);
	snapshot_free(&s);
}

int main(void)
{
	TEST(test_bucket_labels_distinct);
	TEST(test_text_none);
	TEST(test_text_min_wait);
	TEST(test_text_tid);
	TEST(test_text_summary);
	TEST(test_text_cumulative);
	TEST(test_json_fields);
	TEST(test_json_edges);
	TEST(test_json_escapes);
	TEST(test_text_escapes);
	TEST(test_json_cgroup);
	TEST(test_text_cgroup);
	TEST(test_rfc3339);
	TEST(test_doc_examples);
	TEST(test_summary_dash_footnote);
	return test_summary();
}
