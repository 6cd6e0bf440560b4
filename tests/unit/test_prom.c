// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the pure parts of fleet mode: --listen parsing and the
 * fleet-mode options, Accept negotiation, the exposition (exact lines,
 * le bounds, escaping, both formats), the view's guarantees (counters
 * never go backwards when keys are pruned, pass --top, or come back;
 * bounded labels; [other] only grows) and the atomic --prom-file writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "schedhist.h"
#include "cli/options.h"
#include "model/snapshot.h"
#include "model/report.h"
#include "cli/specs.h"
#include "prom/render_prom.h"
#include "model/stacks.h"
#include "prom/http_server.h"
#include "prom/listen_addr.h"
#include "check.h"


#define MAX_ARGS 16

/* parse_options on "schedhist" + @args (NULL-terminated); its return value. */
static int opts(struct options *o, const char *const *args)
{
	char *argv[MAX_ARGS];
	int argc = 0, ret;
	FILE *saved = stderr;

	argv[argc++] = "schedhist";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	/* the expected usage errors would clutter the test output */
	stderr = fopen("/dev/null", "w");
	ret = parse_options(argc, argv, o);
	fclose(stderr);
	stderr = saved;
	return ret;
}

#define OPTS(o, ...) opts((o), (const char *const[]){ __VA_ARGS__, NULL })

/* ---- --listen ---- */

static void check_addr(const char *s, int family, const char *text)
{
	struct listen_addr a;
	char err[256];

	if (listen_addr_parse(s, &a, err, sizeof(err))) {
		fprintf(stderr, "  '%s' refused: %s\n", s, err);
		check_failures++;
		return;
	}
	CHECK(a.ss.ss_family == family);
	if (strcmp(a.text, text)) {
		fprintf(stderr, "  '%s' -> '%s', want '%s'\n", s, a.text, text);
		check_failures++;
	}
	CHECK(a.len == (family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6)));
}

static void check_bad_addr(const char *s)
{
	struct listen_addr a;
	char err[256] = "";

	if (!listen_addr_parse(s, &a, err, sizeof(err))) {
		fprintf(stderr, "  '%s' accepted as %s\n", s, a.text);
		check_failures++;
	}
	CHECK(strstr(err, "--listen") != NULL);
}

static void test_listen_addr(void)
{
	/* the default is loopback */
	check_addr("9464", AF_INET, "127.0.0.1:9464");
	check_addr(":9464", AF_INET, "127.0.0.1:9464");
	check_addr("localhost:19000", AF_INET, "127.0.0.1:19000");
	/* anything else only when written out */
	check_addr("0.0.0.0:9464", AF_INET, "0.0.0.0:9464");
	check_addr("10.1.2.3:1", AF_INET, "10.1.2.3:1");
	check_addr("[::1]:9464", AF_INET6, "[::1]:9464");
	check_addr("[::]:65535", AF_INET6, "[::]:65535");
	check_addr("[2001:db8::7]:80", AF_INET6, "[2001:db8::7]:80");

	check_bad_addr("");
	check_bad_addr("0");
	check_bad_addr("65536");
	check_bad_addr("-1");
	check_bad_addr("+80");
	check_bad_addr("9464 ");
	check_bad_addr("http");
	check_bad_addr("127.0.0.1:");
	check_bad_addr("127.0.0.1");
	check_bad_addr("1.2.3:80");		/* inet_aton's shorthand */
	check_bad_addr("256.1.1.1:80");
	check_bad_addr("example.com:80");	/* no name resolution */
	check_bad_addr("::1:80");		/* IPv6 needs brackets */
	check_bad_addr("[::1]");
	check_bad_addr("[::1]80");
	check_bad_addr("[::1:80");
	check_bad_addr("[1.2.3.4]:80");
	check_bad_addr("[]:80");
}

static void test_fleet_options(void)
{
	struct options o;

	/* daemon defaults: 5 s readings, nothing printed */
	CHECK(OPTS(&o, "--listen", "9464") == -1);
	CHECK(o.listen && !strcmp(o.listen, "9464"));
	/* parsed once, by the option table: the exporter binds what was parsed */
	CHECK(!strcmp(o.listen_addr.text, "127.0.0.1:9464"));
	CHECK(exporter_spec_of(&o).listen == &o.listen_addr);
	CHECK(OPTS(&o, "--prom-file", "/tmp/x.prom") == -1);
	CHECK(exporter_spec_of(&o).listen == NULL);
	CHECK_EQ_U64(o.interval_ns, 5000000000ULL);
	CHECK(!o.print);
	CHECK(OPTS(&o, "--prom-file", "/tmp/x.prom", "-i", "1", "-n", "3") == -1);
	CHECK_EQ_U64(o.interval_ns, 1000000000ULL);
	CHECK_EQ_U64(o.count, 3);
	CHECK(!o.print);
	CHECK(OPTS(&o, "--listen", "[::1]:9464", "--print", "-j", "--user", "nobody") == -1);
	CHECK(o.print && o.json && o.user && !strcmp(o.user, "nobody"));
	/* a count alone is fine: the interval has a default there */
	CHECK(OPTS(&o, "--listen", "9464", "-n", "2") == -1);
	/* without fleet mode, reports are printed as always */
	CHECK(OPTS(&o, "-i", "1") == -1);
	CHECK(o.print);

	CHECK(OPTS(&o, "--listen", "1.2.3:4") == 2);
	CHECK(OPTS(&o, "--listen", "99999") == 2);
	CHECK(OPTS(&o, "--prom-file", "") == 2);
	CHECK(OPTS(&o, "--print") == 2);
	CHECK(OPTS(&o, "--user", "nobody") == 2);
	CHECK(OPTS(&o, "--listen", "9464", "--user", "") == 2);
	CHECK(OPTS(&o, "--listen", "9464", "-j") == 2);
}

/* ---- content negotiation ---- */

static void test_accept(void)
{
	CHECK(!http_accept_openmetrics(NULL));
	CHECK(!http_accept_openmetrics(""));
	CHECK(!http_accept_openmetrics("*/*"));
	CHECK(!http_accept_openmetrics("text/plain"));
	CHECK(!http_accept_openmetrics("text/plain;version=0.0.4;q=1,*/*;q=0.1"));
	/* what Prometheus 2.x sends */
	CHECK(http_accept_openmetrics("application/openmetrics-text;version=1.0.0,"
				      "application/openmetrics-text;version=0.0.1;q=0.75,"
				      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	CHECK(http_accept_openmetrics("application/openmetrics-text"));
	CHECK(http_accept_openmetrics("Application/OpenMetrics-Text ; version = 1.0.0"));
	CHECK(http_accept_openmetrics("text/plain;q=0.5, application/openmetrics-text;q=0.9"));
	CHECK(!http_accept_openmetrics("text/plain;q=1, application/openmetrics-text;q=0.5"));
	CHECK(!http_accept_openmetrics("application/openmetrics-text;q=0"));
	CHECK(!http_accept_openmetrics("application/openmetrics-text;q=x"));
	/* only the version we write */
	CHECK(!http_accept_openmetrics("application/openmetrics-text;version=0.0.1"));
	CHECK(!http_accept_openmetrics("application/openmetrics-text;version=2.0.0,text/plain"));
}

/* ---- readings: fake kernel values through snapshot -> reports -> view ---- */

struct fake {
	__u64 id;		/* pid, tid or cgroup id; SH_OTHER_ID for [other] */
	const char *comm;	/* the comm key (-k comm) */
	union {	/* with its buckets: room for the finest grid */
		struct sh_hist h;	/* cumulative kernel values, one CPU */
		char h_room[SH_HIST_SIZE(SH_NBUCKETS_MAX)];
	};
};

static void add_waits(struct fake *k, __u64 ns, __u32 n)
{
	int b = bucket_of(ns);

	k->h.buckets[b] += n;
	k->h.count += n;
	k->h.sum_ns += ns * n;
}

/* The kernel's max of epoch @epoch: a wait of @ns by task @tid named @comm (one of @n). */
static void set_max(struct fake *k, __u32 epoch, __u64 ns, __u32 tid, const char *comm)
{
	struct sh_max *m = &k->h.max[epoch & 1];

	memset(m, 0, sizeof(*m));
	m->ns = ns;
	m->min_ns = ns;
	m->epoch = epoch;
	m->tid = tid;
	m->pid = tid;
	snprintf(m->comm, sizeof(m->comm), "%s", comm);
}

static void feed(struct snapshot *s, struct fake *k, int key_type, bool final)
{
	struct sh_key key = { .id = k->id };

	if (key_type == SH_KEY_COMM && k->id != SH_OTHER_ID) {
		key.id = 0;
		snprintf(key.comm, SH_COMM_LEN, "%s", k->comm);
	}
	CHECK(snapshot_ingest(s, &key, &k->h, 1, sizeof(k->h), final) != NULL);
}

/* What the exporter does with a reading: two reports, the view, gc. */
struct rig {
	struct options o;
	struct snapshot s;
	struct report iv, since;
	struct prom_view v;
	__u64 stats[SH_STAT_NR];
	struct timespec when;		/* set: the reading's time (the exemplars') */
	const char *stack_key;		/* this group of the interval ... */
	const struct frames *stack;	/* ... has this max stack (--stacks) */
};

static void rig_init(struct rig *r, const char *const *args)
{
	memset(r, 0, sizeof(*r));
	CHECK(opts(&r->o, args) == -1);
	CHECK(!snapshot_init(&r->s));
	CHECK(!prom_view_init(&r->v, r->o.metric, r->o.key_type,
			      r->o.top ? r->o.top : r->o.max_keys));
	r->o.top = 0;
}

static void rig_begin(struct rig *r)
{
	snapshot_begin(&r->s, (__u32)r->v.updates + 1);
}

static void rig_end(struct rig *r)
{
	struct report_spec sp;
	size_t i;

	r->stats[SH_STAT_SEEN] += 7;
	r->stats[SH_STAT_NO_START] += 1;
	r->stats[SH_STAT_MAP_FULL] += 2;	/* the waits of [other], by reason */
	r->stats[SH_STAT_NO_MEM] += 3;
	snapshot_stats(&r->s, r->stats);
	sp = report_spec_of(&r->o);
	r->s.metric = r->o.metric;	/* the poller keeps one snapshot per metric */
	sp.cumulative = false;
	CHECK(!report_build(&r->iv, &r->s, &sp, NULL, 1));
	if (r->when.tv_sec)
		r->iv.when = r->when;
	for (i = 0; r->stack_key && i < r->iv.ngroups; i++)
		if (!strcmp(r->iv.groups[i].name, r->stack_key))
			r->iv.groups[i].max_stack = r->stack;
	sp.cumulative = true;
	CHECK(!report_build(&r->since, &r->s, &sp, NULL, 1));
	CHECK(!prom_view_update(&r->v, &r->iv, &r->since));
	snapshot_gc(&r->s);
}

static void rig_free(struct rig *r)
{
	prom_view_free(&r->v);
	report_free(&r->iv);
	report_free(&r->since);
	snapshot_free(&r->s);
}

/* The exposition as one string. */
static char *expose(const struct prom_view *v, bool om)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	CHECK(render_prom(f, v, 1, om) == 0);
	fclose(f);
	return buf;
}

/* The value of the sample line that starts with @series ("name{...}"), or -1. */
static double sample(const char *text, const char *series)
{
	size_t n = strlen(series);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, prefix, len))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

#define W(key_type, key) \
	"schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"" key_type "\",key=\"" key "\"}"

/*
 * Every sample of @before that is still in @after has not decreased
 * (gauges excepted), and no series appears twice in @after.
 */
static void check_monotone(const char *before, const char *after)
{
	const char *p = before;

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *sp;
		char series[512];
		double a, b;

		if (*p != '#' && strncmp(p, "schedhist_keys", 14) && eol &&
		    (sp = memchr(p, ' ', (size_t)(eol - p))) && (size_t)(sp - p) < sizeof(series)) {
			memcpy(series, p, (size_t)(sp - p));
			series[sp - p] = '\0';
			a = strtod(sp + 1, NULL);
			b = sample(after, series);
			if (b >= 0 && b < a) {
				fprintf(stderr, "  %s went back from %g to %g\n", series, a, b);
				check_failures++;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	for (p = after; p && *p;) {
		const char *eol = strchr(p, '\n'), *sp;
		char series[512];

		if (*p != '#' && eol && (sp = memchr(p, ' ', (size_t)(eol - p))) &&
		    (size_t)(sp - p) < sizeof(series) - 1) {
			memcpy(series, p, (size_t)(sp - p));
			series[sp - p] = ' ';
			series[sp - p + 1] = '\0';
			if (count_lines(after, series) != 1) {
				fprintf(stderr, "  duplicate series %s\n", series);
				check_failures++;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* ---- the exposition ---- */

static void test_render(void)
{
	const char *const args[] = { NULL };
	struct fake all = { .id = 0 };
	struct rig r;
	char *t, *om;

	rig_init(&r, args);
	/* before any reading: the one series at zero */
	t = expose(&r.v, false);
	CHECK(sample(t, W("none", "all")) == 0);
	free(t);

	rig_begin(&r);
	add_waits(&all, 3, 1);			/* [0, 2^-20 s]: the zero bucket, 0-953 ns */
	add_waits(&all, 1500000000ULL, 1);	/* (1 s, 2 s] */
	feed(&r.s, &all, SH_KEY_NONE, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(has_line(t, "# HELP schedhist_wait_seconds How long tasks waited, in seconds, since "
			  "schedhist started: off-CPU wait (switch-out to the same task's next "
			  "switch-in)."));
	CHECK(has_line(t, "# TYPE schedhist_wait_seconds histogram"));
	CHECK(has_line(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\",le=\"9.5367431640625e-07\"} 1"));
	CHECK(has_line(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\",le=\"1.9073486328125e-06\"} 1"));
	CHECK(has_line(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\",le=\"1\"} 1"));
	CHECK(has_line(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\",le=\"2\"} 2"));
	CHECK(has_line(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\",le=\"+Inf\"} 2"));
	CHECK(has_line(t, "schedhist_wait_seconds_sum{metric=\"offcpu\",key_type=\"none\","
			  "key=\"all\"} 1.500000003"));
	CHECK(has_line(t, W("none", "all") " 2"));
	/* the le bounds: 2^(i-20) s, Go's shortest 'g' form; the last +Inf */
	CHECK(count_lines(t, "schedhist_wait_seconds_bucket{") == SH_NBUCKETS(0));
	CHECK(count_lines(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			     "key=\"all\",le=\"9.5367431640625e-07\"}") == 1);
	CHECK(count_lines(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			     "key=\"all\",le=\"0.0009765625\"}") == 1);
	CHECK(count_lines(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			     "key=\"all\",le=\"1\"}") == 1);
	CHECK(count_lines(t, "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"none\","
			     "key=\"all\",le=\"524288\"}") == 1);
	/* no [other] for the key none */
	CHECK(!strstr(t, "key=\"[other]\",le="));
	CHECK(has_line(t, "# TYPE schedhist_events_total counter"));
	CHECK(has_line(t, "schedhist_events_total{metric=\"offcpu\"} 7"));
	CHECK(has_line(t, "schedhist_lost_events_total{metric=\"offcpu\",reason=\"no_start\"} 1"));
	CHECK(has_line(t, "schedhist_lost_events_total{metric=\"offcpu\",reason=\"filtered\"} 0"));
	CHECK(has_line(t, "schedhist_lost_events_total{metric=\"offcpu\",reason=\"dropped\"} 0"));
	/* [other] gets both: the counter has both, by reason */
	CHECK(has_line(t, "schedhist_overflow_events_total{metric=\"offcpu\",reason=\"map_full\"} 2"));
	CHECK(has_line(t, "schedhist_overflow_events_total{metric=\"offcpu\",reason=\"no_mem\"} 3"));
	CHECK(has_line(t, "# TYPE schedhist_keys gauge"));
	CHECK(has_line(t, "schedhist_keys{metric=\"offcpu\",key_type=\"none\"} 1"));
	CHECK(has_line(t, "schedhist_build_info{version=\"" SCHEDHIST_VERSION "\"} 1"));
	CHECK(!strstr(t, "# EOF"));
	CHECK(!strstr(t, "# UNIT"));
	CHECK(has_line(t, "# TYPE schedhist_kernel_memory_bytes gauge"));
	CHECK(has_line(t, "schedhist_kernel_memory_bytes{kind=\"reserved\"} 0"));
	CHECK(has_line(t, "schedhist_kernel_memory_keys{key_type=\"none\"} 0"));
	/* 42 series lines, 12 other samples, 2 comment lines per family */
	CHECK_EQ_U64(count_lines(t, ""), PROM_LINES_PER_KEY + 12 + 2 * 8);
	CHECK_EQ_U64(prom_view_series(&r.v), 1);

	om = expose(&r.v, true);
	CHECK(has_line(om, "# TYPE schedhist_events counter"));
	CHECK(has_line(om, "# TYPE schedhist_lost_events counter"));
	CHECK(has_line(om, "# TYPE schedhist_overflow_events counter"));
	CHECK(has_line(om, "# UNIT schedhist_wait_seconds seconds"));
	CHECK(has_line(om, "# TYPE schedhist_build info"));
	CHECK(has_line(om, "schedhist_build_info{version=\"" SCHEDHIST_VERSION "\"} 1"));
	CHECK(has_line(om, "schedhist_events_total{metric=\"offcpu\"} 7"));
	CHECK(!strstr(om, "# TYPE schedhist_events_total"));
	CHECK(strlen(om) > 6 && !strcmp(om + strlen(om) - 6, "# EOF\n"));
	CHECK(count_lines(om, "# EOF") == 1);
	CHECK(!strstr(t, "schedhist_stacks_lost") && !strstr(om, "schedhist_stacks_lost"));
	free(t);
	free(om);
	/* --stacks: the stacks not kept, one counter, before the build info */
	r.v.stacks = true;
	r.v.kmem.stack_lost = 3;
	t = expose(&r.v, false);
	om = expose(&r.v, true);
	CHECK(has_line(t, "# TYPE schedhist_stacks_lost_total counter"));
	CHECK(has_line(t, "schedhist_stacks_lost_total 3"));
	CHECK(has_line(om, "# TYPE schedhist_stacks_lost counter"));
	CHECK(has_line(om, "schedhist_stacks_lost_total 3"));
	CHECK(strstr(t, "schedhist_stacks_lost_total 3") < strstr(t, "schedhist_build_info{"));
	free(t);
	free(om);
	rig_free(&r);
}

static void test_escaping(void)
{
	const char *const args[] = { "-k", "comm", NULL };
	struct fake k[6] = {
		{ .comm = "a\"b\\c" }, { .comm = "new\nline" }, { .comm = "caf\xc3\xa9" },
		{ .comm = "bad\xff\xc3(" },
		/* two CJK comms cut at 15 bytes, different in their last, partial character */
		{ .comm = "\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8" },
		{ .comm = "\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe5\xb8" },
	};
	struct rig r;
	char *t;
	int i;

	rig_init(&r, args);
	rig_begin(&r);
	for (i = 0; i < 6; i++) {
		add_waits(&k[i], 1000, 1);
		feed(&r.s, &k[i], SH_KEY_COMM, false);
	}
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"a\\\"b\\\\\\\\c\"}") == 1);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"new\\\\x0aline\"}") == 1);
	/* valid UTF-8 passes; the rest is the rule of escape.h, as in text and JSON */
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"caf\xc3\xa9\"}") == 1);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"bad\\\\xff\\\\xc3(\"}") == 1);
	/* distinct names stay distinct series */
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\\\\xe4\\\\xb8\"}") == 1);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"comm\","
			"key=\"\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80\\\\xe5\\\\xb8\"}") == 1);
	free(t);
	rig_free(&r);
}

/* ---- the view's guarantees ---- */

/* A pid key pruned (task exited) withdraws its series; a reused pid resumes it. */
static void test_prune_monotone(void)
{
	const char *const args[] = { "-k", "pid", NULL };
	struct fake p100 = { .id = 100 }, p200 = { .id = 200 }, p100b = { .id = 100 };
	struct rig r;
	char *t[5];
	int i;

	rig_init(&r, args);
	rig_begin(&r);
	add_waits(&p100, 5000, 10);
	add_waits(&p200, 5000, 5);
	feed(&r.s, &p100, SH_KEY_PID, false);
	feed(&r.s, &p200, SH_KEY_PID, false);
	rig_end(&r);
	t[0] = expose(&r.v, false);
	CHECK(sample(t[0], W("pid", "100")) == 10);
	CHECK(sample(t[0], W("pid", "200")) == 5);
	CHECK(sample(t[0], W("pid", "[other]")) == 0);

	/* 100 exits: the poller reads its final values and prunes it */
	rig_begin(&r);
	add_waits(&p200, 5000, 3);
	feed(&r.s, &p200, SH_KEY_PID, false);
	add_waits(&p100, 5000, 2);
	feed(&r.s, &p100, SH_KEY_PID, true);
	rig_end(&r);
	t[1] = expose(&r.v, false);
	CHECK(sample(t[1], W("pid", "100")) == 12);	/* its last counts, exported once */
	CHECK(sample(t[1], W("pid", "200")) == 8);

	/* gone from the snapshot: withdrawn, the others carry on */
	rig_begin(&r);
	add_waits(&p200, 5000, 1);
	feed(&r.s, &p200, SH_KEY_PID, false);
	rig_end(&r);
	t[2] = expose(&r.v, false);
	CHECK(sample(t[2], W("pid", "100")) == -1);
	CHECK(sample(t[2], W("pid", "200")) == 9);
	CHECK_EQ_U64(r.v.nexported, 1);
	CHECK_EQ_U64(r.v.nwithdrawn, 1);

	/* a new process gets pid 100: the series resumes instead of restarting */
	rig_begin(&r);
	add_waits(&p100b, 5000, 4);
	feed(&r.s, &p200, SH_KEY_PID, false);
	feed(&r.s, &p100b, SH_KEY_PID, false);
	rig_end(&r);
	t[3] = expose(&r.v, false);
	CHECK(sample(t[3], W("pid", "100")) == 16);
	CHECK(sample(t[3], W("pid", "200")) == 9);
	CHECK_EQ_U64(r.v.nwithdrawn, 0);

	/* a quiet interval changes nothing */
	rig_begin(&r);
	feed(&r.s, &p200, SH_KEY_PID, false);
	feed(&r.s, &p100b, SH_KEY_PID, false);
	rig_end(&r);
	t[4] = expose(&r.v, false);
	CHECK(sample(t[4], W("pid", "100")) == 16);

	for (i = 0; i < 4; i++)
		check_monotone(t[i], t[i + 1]);
	for (i = 0; i < 5; i++)
		free(t[i]);
	rig_free(&r);
}

/* --top 2: the first two names keep their labels, the rest and late-comers go to [other]. */
static void test_top_other(void)
{
	const char *const args[] = { "-k", "comm", "--top", "2", NULL };
	struct fake a = { .comm = "a" }, b = { .comm = "b" }, c = { .comm = "c" };
	struct fake fake_other = { .comm = "[other]" }, overflow = { .id = SH_OTHER_ID };
	struct rig r;
	char *t[3];
	int i;

	rig_init(&r, args);
	rig_begin(&r);
	add_waits(&a, 30000, 3);	/* ranked by sum: a, b, then c */
	add_waits(&b, 20000, 3);
	add_waits(&c, 10000, 3);
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	rig_end(&r);
	t[0] = expose(&r.v, false);
	CHECK(sample(t[0], W("comm", "a")) == 3);
	CHECK(sample(t[0], W("comm", "b")) == 3);
	CHECK(sample(t[0], W("comm", "c")) == -1);
	CHECK(sample(t[0], W("comm", "[other]")) == 3);
	CHECK_EQ_U64(prom_view_series(&r.v), 3);

	/* c overtakes everyone: it stays in [other], which only grows; so do
	 * the kernel's overflow entry and a task named "[other]" */
	rig_begin(&r);
	add_waits(&c, 1000000, 50);
	add_waits(&a, 30000, 1);
	add_waits(&fake_other, 1000, 2);
	add_waits(&overflow, 1000, 5);
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	feed(&r.s, &fake_other, SH_KEY_COMM, false);
	feed(&r.s, &overflow, SH_KEY_COMM, false);
	rig_end(&r);
	t[1] = expose(&r.v, false);
	CHECK(sample(t[1], W("comm", "a")) == 4);
	CHECK(sample(t[1], W("comm", "b")) == 3);
	CHECK(sample(t[1], W("comm", "c")) == -1);
	CHECK(sample(t[1], W("comm", "[other]")) == 3 + 50 + 2 + 5);
	CHECK_EQ_U64(prom_view_series(&r.v), 3);

	rig_begin(&r);
	add_waits(&b, 1000, 1);
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	rig_end(&r);
	t[2] = expose(&r.v, false);
	CHECK(sample(t[2], W("comm", "b")) == 4);
	/* comm keys are never pruned: labels never withdrawn */
	CHECK_EQ_U64(r.v.nwithdrawn, 0);

	for (i = 0; i < 2; i++)
		check_monotone(t[i], t[i + 1]);
	for (i = 0; i < 3; i++)
		free(t[i]);
	rig_free(&r);
}

#define MAXG "schedhist_interval_max_wait_seconds{metric=\"offcpu\",key_type=\"comm\",key="

/*
 * The interval's exact max per exported key, with the task that had it:
 * the kernel's max, not a bucket edge; only the keys exported (the rest in
 * [other], the largest of them); the latest interval's only, absent for a
 * key without waits in it, the family absent when no key had any.
 */
static void test_interval_max(void)
{
	const char *const args[] = { "-k", "comm", "--top", "2", NULL };
	struct fake a = { .comm = "a" }, b = { .comm = "b" }, c = { .comm = "c" };
	struct fake d = { .comm = "d" };
	struct rig r;
	char *t, *om, help[512];

	rig_init(&r, args);
	rig_begin(&r);
	add_waits(&a, 3000000, 3);	/* ranked by sum: a, b; c and d to [other] */
	add_waits(&b, 2000000, 2);
	add_waits(&c, 1000, 1);
	add_waits(&d, 1000, 1);
	set_max(&a, (__u32)r.v.updates + 1, 5123457, 11, "a-worker \"x\"");
	set_max(&b, (__u32)r.v.updates + 1, 2000001, 22, "b");
	set_max(&c, (__u32)r.v.updates + 1, 1001, 33, "c");
	set_max(&d, (__u32)r.v.updates + 1, 1500, 44, "d");
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	feed(&r.s, &d, SH_KEY_COMM, false);
	rig_end(&r);
	t = expose(&r.v, false);
	snprintf(help, sizeof(help), "# HELP schedhist_interval_max_wait_seconds %s",
		 prom_families[PROM_INTERVAL_MAX].help);
	CHECK(has_line(t, help));
	CHECK(has_line(t, "# TYPE schedhist_interval_max_wait_seconds gauge"));
	CHECK(has_line(t, MAXG "\"a\",tid=\"11\",comm=\"a-worker \\\"x\\\"\"} 0.005123457"));
	CHECK(has_line(t, MAXG "\"b\",tid=\"22\",comm=\"b\"} 0.002000001"));
	CHECK(has_line(t, MAXG "\"[other]\",tid=\"44\",comm=\"d\"} 0.0000015"));
	/* bounded: one sample per exported key, none for c or d on their own */
	CHECK_EQ_U64(count_lines(t, "schedhist_interval_max_wait_seconds{"), 3);
	free(t);
	om = expose(&r.v, true);
	CHECK(has_line(om, "# TYPE schedhist_interval_max_wait_seconds gauge"));
	CHECK(has_line(om, "# UNIT schedhist_interval_max_wait_seconds seconds"));
	CHECK(has_line(om, MAXG "\"b\",tid=\"22\",comm=\"b\"} 0.002000001"));
	free(om);

	/* the next interval: a's new max, b and [other] had no wait */
	rig_begin(&r);
	add_waits(&a, 1000000, 1);
	set_max(&a, (__u32)r.v.updates + 1, 1000000, 12, "a");
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	feed(&r.s, &d, SH_KEY_COMM, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(has_line(t, MAXG "\"a\",tid=\"12\",comm=\"a\"} 0.001"));
	CHECK_EQ_U64(count_lines(t, "schedhist_interval_max_wait_seconds{"), 1);
	free(t);

	/* no wait at all: no family */
	rig_begin(&r);
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	feed(&r.s, &d, SH_KEY_COMM, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(!strstr(t, "schedhist_interval_max_wait_seconds"));
	free(t);
	rig_free(&r);
}

#define BKT "schedhist_wait_seconds_bucket{metric=\"offcpu\",key_type=\"comm\",key="

/* How many times @s occurs in @text. */
static size_t count_str(const char *text, const char *s)
{
	size_t n = 0;

	for (; (text = strstr(text, s)); text++)
		n++;
	return n;
}

/*
 * The characters of the exemplar's label names and values on @line, as a
 * scraper reads them (label syntax undone), as OpenMetrics limits them;
 * -1 when @line has no exemplar.
 */
static int exemplar_chars(const char *line)
{
	const char *p = strstr(line, " # {"), *end;
	int n = 0;

	if (!p)
		return -1;
	end = strchr(p, '}');
	for (p += 4; p && p < end; p++) {
		if (*p == '=' || *p == ',' || *p == '"')
			continue;
		if (*p == '\\')
			p++;		/* \\ or \": one character */
		if ((*p & 0xc0) != 0x80)
			n++;		/* UTF-8: lead bytes only */
	}
	return n;
}

/* The line of @text that starts with @prefix, in @buf; false if none. */
static bool line_of(const char *text, const char *prefix, char *buf, size_t n)
{
	const char *p = strstr(text, prefix), *eol;

	if (!p || (p != text && p[-1] != '\n'))
		return false;
	eol = strchr(p, '\n');
	snprintf(buf, n, "%.*s", (int)(eol ? eol - p : (long)strlen(p)), p);
	return true;
}

/*
 * Exemplars: in OpenMetrics only, the interval's worst wait of each
 * exported key (and [other]) on the bucket line it fell in: tid, comm
 * escaped, stack_id where a stack was captured, the exact wait in seconds,
 * the reading's time in ms; none for a key without waits in the interval;
 * the worst name in at most 128 characters.
 */
static void test_exemplars(void)
{
	const char *const args[] = { "-k", "comm", "--top", "2", NULL };
	struct fake a = { .comm = "a" }, b = { .comm = "b" }, c = { .comm = "c" };
	struct frames st = { .n = 2, .f = { "schedule+0x1/0x2", "do_nanosleep+0x3/0x4" } };
	char worst[SH_COMM_LEN], exp[512], got[1024], id[20];
	struct rig r;
	char *t, *om;

	/* the id of a stack is of its frames, one by one: not of their concatenation */
	{
		struct frames x = { .n = 2, .f = { "ab", "c" } }, y = { .n = 2, .f = { "a", "bc" } };
		struct frames z = { .n = 2, .f = { "ab", "c" } };

		CHECK(frames_id(&x) != frames_id(&y));
		CHECK(frames_id(&x) == frames_id(&z));
	}
	rig_init(&r, args);
	r.when = (struct timespec){ .tv_sec = 1700000000, .tv_nsec = 123999999 };
	r.stack_key = "a";
	r.stack = &st;
	rig_begin(&r);
	add_waits(&a, 3000000, 3);	/* ranked by sum: a, b; c to [other] */
	add_waits(&b, 2000000, 2);
	add_waits(&c, 1000, 1);
	set_max(&a, (__u32)r.v.updates + 1, 5123457, 11, "a-worker \"x\"");
	set_max(&b, (__u32)r.v.updates + 1, 2000001, 22, "b");
	set_max(&c, (__u32)r.v.updates + 1, 1001, 33, "c");
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(!strstr(t, " # {"));	/* the text format 0.0.4 has no exemplars */
	free(t);
	om = expose(&r.v, true);
	/* 5.12 ms lies in (2^-8, 2^-7] s; a's 3 waits of 3 ms are all below */
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)frames_id(&st));
	snprintf(exp, sizeof(exp), BKT "\"a\",le=\"0.0078125\"} 3 # {tid=\"11\","
		 "comm=\"a-worker \\\"x\\\"\",stack_id=\"%s\"} 0.005123457 1700000000.123", id);
	CHECK(has_line(om, exp));
	CHECK(has_line(om, BKT "\"b\",le=\"0.00390625\"} 2 # {tid=\"22\",comm=\"b\"} "
			   "0.002000001 1700000000.123"));
	CHECK(has_line(om, BKT "\"[other]\",le=\"1.9073486328125e-06\"} 1 # {tid=\"33\","
			   "comm=\"c\"} 0.000001001 1700000000.123"));
	CHECK_EQ_U64(count_str(om, " # {"), 3);	/* one per series, none elsewhere */
	free(om);

	/* the next interval: only b waited; a's exemplar is gone with its wait */
	rig_begin(&r);
	r.stack_key = NULL;
	add_waits(&b, 4000, 1);
	set_max(&b, (__u32)r.v.updates + 1, 4000, 23, "b");
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	rig_end(&r);
	om = expose(&r.v, true);
	CHECK(has_line(om, BKT "\"b\",le=\"7.62939453125e-06\"} 1 # {tid=\"23\",comm=\"b\"} "
			   "0.000004 1700000000.123"));
	CHECK(has_line(om, BKT "\"a\",le=\"0.0078125\"} 3"));
	CHECK_EQ_U64(count_str(om, " # {"), 1);
	free(om);

	/* the longest labels: the largest tid, 15 bytes escaped as \xNN each, a stack */
	memset(worst, 0x01, sizeof(worst) - 1);
	worst[sizeof(worst) - 1] = '\0';
	r.stack_key = "b";
	rig_begin(&r);
	add_waits(&b, 4000, 1);
	set_max(&b, (__u32)r.v.updates + 1, 4000, 4294967295u, worst);
	feed(&r.s, &a, SH_KEY_COMM, false);
	feed(&r.s, &b, SH_KEY_COMM, false);
	feed(&r.s, &c, SH_KEY_COMM, false);
	rig_end(&r);
	om = expose(&r.v, true);
	CHECK(line_of(om, BKT "\"b\",le=\"7.62939453125e-06\"}", got, sizeof(got)));
	CHECK_EQ_U64(exemplar_chars(got), 3 + 10 + 4 + 60 + 8 + 16);
	CHECK(exemplar_chars(got) <= 128);
	CHECK(strstr(got, "comm=\"\\\\x01\\\\x01") != NULL);
	free(om);
	rig_free(&r);
}

/*
 * Churn of short-lived tasks: labels and remembered names stay bounded,
 * and so does their memory: 200 series made and forgotten, at most 4 at a
 * time, all in the pool's first block (a freed slot is reused).
 */
static void test_churn_bounded(void)
{
	const char *const args[] = { "-k", "tid", "--top", "3", NULL };
	struct fake k[200];
	struct rig r;
	char *prev = NULL, *t;
	int i, j;

	memset(k, 0, sizeof(k));
	rig_init(&r, args);
	for (i = 0; i < 200; i += 4) {
		/* four new tasks appear, the four before them exit */
		rig_begin(&r);
		for (j = i; j < i + 4; j++) {
			k[j].id = 1000 + (__u64)j;
			add_waits(&k[j], 1000 * (__u64)(j + 1), 1);
			feed(&r.s, &k[j], SH_KEY_TID, false);
		}
		for (j = i - 4; j >= 0 && j < i; j++)
			feed(&r.s, &k[j], SH_KEY_TID, true);
		rig_end(&r);
		CHECK(r.v.nexported <= 3);
		CHECK(r.v.nwithdrawn <= 3);
		CHECK(prom_view_series(&r.v) <= 4);
		t = expose(&r.v, false);
		CHECK(count_lines(t, "schedhist_wait_seconds_count{") <= 4);
		if (prev)
			check_monotone(prev, t);
		free(prev);
		prev = t;
	}
	CHECK_EQ_U64(r.v.nblocks, 1);
	free(prev);
	rig_free(&r);
}

/*
 * Churn of keys that never come back (a cgroup per job, pids): a withdrawn name is
 * forgotten PROM_REMEMBER_NS after its withdrawal, however far the label
 * limit is, so the names remembered are those of the last minutes only;
 * one that comes back within them resumes its series, one that comes back
 * later starts again from zero.
 */
static void test_remember_horizon(void)
{
	const char *const args[] = { "-k", "pid", NULL };
	const time_t minute = 60, n = (time_t)(PROM_REMEMBER_NS / 1000000000ULL) / minute;
	struct fake k[40], back = { .id = 5 };
	struct rig r;
	char *t;
	int i;

	memset(k, 0, sizeof(k));
	rig_init(&r, args);
	prom_view_remember(&r.v, PROM_REMEMBER_NS);
	r.when.tv_sec = 1000000;
	for (i = 0; i < 40; i++) {
		/* process 1000 + i lives one reading (a minute), its final values in the next */
		r.when.tv_sec += minute;
		rig_begin(&r);
		k[i].id = 1000 + (__u64)i;
		add_waits(&k[i], 1000, 1);
		feed(&r.s, &k[i], SH_KEY_PID, false);
		if (i)
			feed(&r.s, &k[i - 1], SH_KEY_PID, true);
		rig_end(&r);
		/* withdrawn in the reading after its last: those of the last n minutes remembered */
		CHECK(r.v.nwithdrawn <= (size_t)n);
		CHECK(r.v.nexported <= 2);
		CHECK(prom_view_series(&r.v) <= (size_t)n + 3);
	}
	CHECK_EQ_U64(r.v.nwithdrawn, (__u64)n);

	/* a name withdrawn within the horizon resumes where it left */
	r.when.tv_sec += minute;
	rig_begin(&r);
	back.id = k[37].id;
	add_waits(&back, 1000, 2);
	feed(&r.s, &back, SH_KEY_PID, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(sample(t, W("pid", "1037")) == 3);
	free(t);

	/* one withdrawn before it starts again from zero */
	r.when.tv_sec += minute;
	rig_begin(&r);
	feed(&r.s, &back, SH_KEY_PID, true);
	back = (struct fake){ .id = k[3].id };
	add_waits(&back, 1000, 2);
	feed(&r.s, &back, SH_KEY_PID, false);
	rig_end(&r);
	t = expose(&r.v, false);
	CHECK(sample(t, W("pid", "1003")) == 2);
	free(t);

	/* a poller held up for the horizon forgets every name withdrawn before */
	r.when.tv_sec += (time_t)(PROM_REMEMBER_NS / 1000000000ULL);
	rig_begin(&r);
	feed(&r.s, &back, SH_KEY_PID, false);
	rig_end(&r);
	CHECK_EQ_U64(r.v.nwithdrawn, 0);
	rig_free(&r);
}

/* Pruned entries kept in the snapshot (--cumulative -k cgroup) still give their label back. */
static void test_keep_pruned(void)
{
	const char *const args[] = { "-k", "cgroup", "--top", "1", NULL };
	struct fake g1 = { .id = 11 }, g2 = { .id = 22 };
	struct rig r;
	char *t;

	rig_init(&r, args);
	r.s.keep_pruned = true;
	rig_begin(&r);
	add_waits(&g1, 1000, 2);
	feed(&r.s, &g1, SH_KEY_CGROUP, false);
	rig_end(&r);
	rig_begin(&r);
	feed(&r.s, &g1, SH_KEY_CGROUP, true);
	rig_end(&r);
	rig_begin(&r);
	add_waits(&g2, 1000, 3);
	feed(&r.s, &g2, SH_KEY_CGROUP, false);
	rig_end(&r);
	t = expose(&r.v, false);
	/* no cgroup names without a cgroupfs: ids show as [removed id=N] */
	CHECK(sample(t, W("cgroup", "[removed id=22]")) == 3);
	CHECK(sample(t, W("cgroup", "[removed id=11]")) == -1);
	CHECK(sample(t, W("cgroup", "[other]")) == 0);
	free(t);
	rig_free(&r);
}

/*
 * -k cgroup: the names read from the path are labels after key, those
 * found only; a unit's backslash is escaped like any label value, and
 * keys without a convention ([other], plain paths) get none.
 */
static void test_cgroup_labels(void)
{
	const char *const args[] = { "-k", "cgroup", NULL };
	/* the first longer than a series' slot holds (PROM_KEY_INLINE): a name of its own */
	static const char *const paths[] = {
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		"0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b.slice/cri-containerd-"
		"3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope",
		"/system.slice/dev-disk-by\\x2duuid-0a1b.swap",
		"/workload",
	};
	struct fake k[3] = { { .id = 11 }, { .id = 22 }, { .id = 33 } };
	struct report_spec sp;
	struct rig r;
	char *t;
	int i;

	rig_init(&r, args);
	rig_begin(&r);
	for (i = 0; i < 3; i++) {
		add_waits(&k[i], 1000, (__u32)i + 1);
		feed(&r.s, &k[i], SH_KEY_CGROUP, false);
	}
	snapshot_stats(&r.s, r.stats);
	/* as if cgroupfs had named the ids (report_build leaves them [removed]) */
	sp = report_spec_of(&r.o);
	r.s.metric = r.o.metric;
	CHECK(!report_build(&r.iv, &r.s, &sp, NULL, 1));
	sp.cumulative = true;
	CHECK(!report_build(&r.since, &r.s, &sp, NULL, 1));
	for (i = 0; i < 3; i++) {
		int j = (int)(r.iv.groups[i].key.id / 11) - 1;

		r.iv.groups[i].name = paths[j];
		r.iv.groups[i].name_in_idbuf = false;
		r.since.groups[i].name = paths[(int)(r.since.groups[i].key.id / 11) - 1];
		r.since.groups[i].name_in_idbuf = false;
	}
	CHECK(!prom_view_update(&r.v, &r.iv, &r.since));
	t = expose(&r.v, false);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"cgroup\",key=\""
		     "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		     "0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b.slice/cri-containerd-"
		     "3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope\","
		     "unit=\"cri-containerd-"
		     "3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope\","
		     "container_id=\"3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f\","
		     "container_id_short=\"3f4e1b2a9c8d\","
		     "pod_uid=\"0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b\",qos=\"burstable\"}") == 1);
	CHECK(sample(t, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"cgroup\",key=\""
		     "/system.slice/dev-disk-by\\\\\\\\x2duuid-0a1b.swap\","
		     "unit=\"dev-disk-by\\\\\\\\x2duuid-0a1b.swap\"}") == 2);
	CHECK(sample(t, W("cgroup", "/workload")) == 3);
	CHECK(sample(t, W("cgroup", "[other]")) == 0);
	/* every bucket line carries them too */
	CHECK(strstr(t, "container_id_short=\"3f4e1b2a9c8d\",pod_uid=\"0f1e2d3c-4b5a-6978-8a9b-"
			"0c1d2e3f4a5b\",qos=\"burstable\",le=\"+Inf\"} 1\n") != NULL);
	free(t);
	rig_free(&r);
}

/*
 * -M offcpu,runq: one view per metric, rendered as one exposition: each
 * family's HELP and TYPE once, the series of both metrics under it, told
 * apart by the metric label.
 */
static void test_two_metrics(void)
{
	static const char *const a_off[] = { "-M", "offcpu", "-k", "tid", NULL };
	static const char *const a_rq[] = { "-M", "runq", "-k", "tid", NULL };
	struct rig r[2];
	struct prom_view v[2];
	struct fake k = { .id = 42 };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	rig_init(&r[0], a_off);
	rig_init(&r[1], a_rq);
	for (i = 0; i < 2; i++) {
		memset(k.h_room, 0, sizeof(k.h_room));
		add_waits(&k, i ? 3000 : 70000, 5 + (__u32)i);
		rig_begin(&r[i]);
		feed(&r[i].s, &k, SH_KEY_TID, false);
		rig_end(&r[i]);
		v[i] = r[i].v;
	}
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	CHECK(render_prom(f, v, 2, false) == 0);
	fclose(f);
	CHECK_EQ_U64(count_lines(buf, "# TYPE schedhist_wait_seconds histogram"), 1);
	CHECK_EQ_U64(count_lines(buf, "# TYPE schedhist_events_total counter"), 1);
	CHECK_EQ_U64(count_lines(buf, "# TYPE schedhist_build_info gauge"), 1);
	CHECK(sample(buf, "schedhist_wait_seconds_count{metric=\"offcpu\",key_type=\"tid\","
			  "key=\"42\"}") == 5);
	CHECK(sample(buf, "schedhist_wait_seconds_count{metric=\"runq\",key_type=\"tid\","
			  "key=\"42\"}") == 6);
	CHECK(sample(buf, "schedhist_events_total{metric=\"runq\"}") == 7);
	CHECK(sample(buf, "schedhist_lost_events_total{metric=\"offcpu\",reason=\"clock_skew\"}")
	      == 0);
	/*
	 * two metrics: 2 x (42 x 2 keys + 8) samples + build info and the
	 * 3 kernel memory samples, 2 comment lines a family
	 */
	CHECK_EQ_U64(count_lines(buf, ""), 2 * (2 * PROM_LINES_PER_KEY + 8) + 4 + 2 * 8);
	free(buf);
	rig_free(&r[0]);
	rig_free(&r[1]);
}


/* ---- --culprits: schedhist_culprit_wait_seconds_total, sticky ---- */

#define CS(key, culprit) \
	"schedhist_culprit_wait_seconds_total{metric=\"runq\",key_type=\"comm\",key=\"" key \
	"\",culprit=\"" culprit "\",culprit_mode=\"switch\"}"
#define CW(key, culprit) \
	"schedhist_culprit_waits_total{metric=\"runq\",key_type=\"comm\",key=\"" key \
	"\",culprit=\"" culprit "\",culprit_mode=\"switch\"}"

/* One reading of @k's keys, ending with the view's update (the rig's). */
static void read_keys(struct rig *r, struct fake *k, int n)
{
	int i;

	rig_begin(r);
	for (i = 0; i < n; i++)
		feed(&r->s, &k[i], SH_KEY_COMM, false);
	rig_end(r);
}

/*
 * The per-key culprit set is sticky: the first 5 culprits (largest first)
 * keep their series, every later one and the waits blamed on nobody go to
 * [rest]; across readings whose top set changes, no sample goes back, no
 * key has more than 5 culprits plus [rest], and a key whose waits went to
 * [other] gets none.
 */
static void test_culprits_sticky(void)
{
	const char *const args[] = { "-M", "runq", "-k", "comm", "--culprits", "--top", "2",
				     NULL };
	struct fake k[3] = { { .comm = "a" }, { .comm = "b" }, { .comm = "c" } };
	struct culprit in[8];
	static char *names[] = { "c1", "c2", "c3", "c4", "c5", "c6", "c7", "[rest]" };
	struct rig r;
	char *t1, *t2, *t3, *om;
	int i;

	rig_init(&r, args);
	r.v.culprits = true;
	/* reading 1: a has 100 waits of 1 ms, 95 of them behind 7 culprits */
	add_waits(&k[0], 1000000, 100);
	add_waits(&k[1], 1000000, 10);
	read_keys(&r, k, 2);
	for (i = 0; i < 7; i++)
		in[i] = (struct culprit){ .name = names[i], .count = (__u64)(30 - 4 * i),
					     .sum_ns = (__u64)(30 - 4 * i) * 1000000 };
	/* 30+26+22+18+14+10+6 = 126 > 100: the pairs run ahead; rest never below zero */
	CHECK(!prom_view_culprits(&r.v, "a", 100, 100000000, in, 7));
	CHECK(!prom_view_culprits(&r.v, "b", 10, 10000000, NULL, 0));
	t1 = expose(&r.v, false);
	CHECK(has_line(t1, "# TYPE schedhist_culprit_wait_seconds_total counter"));
	CHECK(has_line(t1, "# TYPE schedhist_culprit_waits_total counter"));
	CHECK(sample(t1, CS("a", "c1")) == 0.03);
	CHECK(sample(t1, CS("a", "c5")) == 0.014);
	CHECK(sample(t1, CW("a", "c5")) == 14);
	CHECK(sample(t1, CS("a", "c6")) == -1);		/* no room: [rest] */
	CHECK(sample(t1, CS("a", "[rest]")) == 0.016);	/* c6 + c7 */
	CHECK(sample(t1, CW("a", "[rest]")) == 16);
	CHECK(sample(t1, CS("b", "[rest]")) == 0.01);	/* all blamed on nobody */
	CHECK_EQ_U64(count_lines(t1, "schedhist_culprit_wait_seconds_total{"), 6 + 1);

	/* reading 2: a new big culprit and c6 now lead; c1 is small: only c1 grows */
	add_waits(&k[0], 1000000, 100);
	read_keys(&r, k, 2);
	in[0] = (struct culprit){ .name = "x1", .count = 50, .sum_ns = 50000000 };
	in[1] = (struct culprit){ .name = "c6", .count = 20, .sum_ns = 20000000 };
	in[2] = (struct culprit){ .name = "c1", .count = 10, .sum_ns = 10000000 };
	in[3] = (struct culprit){ .name = "[rest]", .count = 1, .sum_ns = 1000000 };
	CHECK(!prom_view_culprits(&r.v, "a", 100, 100000000, in, 4));
	t2 = expose(&r.v, false);
	check_monotone(t1, t2);
	CHECK(sample(t2, CS("a", "c1")) == 0.04);
	CHECK(sample(t2, CS("a", "x1")) == -1);
	/* 16 + x1 50 + c6 20 + the one named [rest] + 19 blamed on nobody */
	CHECK(sample(t2, CW("a", "[rest]")) == 16 + 50 + 20 + 1 + 19);
	CHECK(sample(t2, CS("a", "[rest]")) == 0.106);
	CHECK_EQ_U64(count_lines(t2, "schedhist_culprit_wait_seconds_total{"), 6 + 1);

	/* reading 3: c takes the last label (--top 2: it goes to [other]), no culprits for it */
	add_waits(&k[2], 5000000, 1000);
	read_keys(&r, k, 3);
	CHECK(!prom_view_culprits(&r.v, "c", 1000, 5000000000ULL, in, 1));
	CHECK(!prom_view_culprits(&r.v, "a", 0, 0, NULL, 0));
	t3 = expose(&r.v, false);
	check_monotone(t2, t3);
	CHECK(!strstr(t3, "key=\"c\""));
	CHECK(!strstr(t3, "key=\"[other]\",culprit"));
	CHECK_EQ_U64(count_lines(t3, "schedhist_culprit_wait_seconds_total{"), 6 + 1);

	om = expose(&r.v, true);
	CHECK(has_line(om, "# TYPE schedhist_culprit_wait_seconds counter"));
	CHECK(has_line(om, "# UNIT schedhist_culprit_wait_seconds seconds"));
	CHECK(has_line(om, "# TYPE schedhist_culprit_waits counter"));
	CHECK(!strstr(om, "# UNIT schedhist_culprit_waits"));
	CHECK(sample(om, CS("a", "c1")) == 0.04);
	free(t1);
	free(t2);
	free(t3);
	free(om);
	rig_free(&r);
}

/* Without --culprits, or for another metric: no culprit family at all. */
static void test_culprits_off(void)
{
	const char *const args[] = { "-M", "runq", "-k", "comm", NULL };
	struct fake k = { .comm = "a" };
	struct culprit in = { .name = "x", .count = 1, .sum_ns = 1 };
	struct rig r;
	char *t;

	rig_init(&r, args);
	add_waits(&k, 1000, 1);
	read_keys(&r, &k, 1);
	CHECK(!prom_view_culprits(&r.v, "a", 1, 1000, &in, 1));
	t = expose(&r.v, false);
	CHECK(!strstr(t, "schedhist_culprit"));
	CHECK(!strstr(t, "schedhist_cgroup_"));
	free(t);
	rig_free(&r);
}

/* ---- -k cgroup: throttling and pressure counters ---- */

#define CG(name, key) \
	"schedhist_cgroup_" name "{metric=\"offcpu\",key_type=\"cgroup\",key=\"" key "\"}"

/*
 * A reading of cgroups @k named @paths (by index) with the deltas
 * @cgs (by index) on the report since start's groups, as the exporter's
 * tick_attach_cgstat() leaves them.
 */
static void read_cgroups(struct rig *r, struct fake *k, int n, const char *const *paths,
			 const struct cgstat *cgs)
{
	struct report_spec sp;
	size_t g;
	int i;

	rig_begin(r);
	for (i = 0; i < n; i++)
		feed(&r->s, &k[i], SH_KEY_CGROUP, false);
	snapshot_stats(&r->s, r->stats);
	sp = report_spec_of(&r->o);
	r->s.metric = r->o.metric;
	CHECK(!report_build(&r->iv, &r->s, &sp, NULL, 1));
	sp.cumulative = true;
	CHECK(!report_build(&r->since, &r->s, &sp, NULL, 1));
	for (i = 0; i < n; i++) {
		for (g = 0; g < r->iv.ngroups; g++)
			if (r->iv.groups[g].key.id == k[i].id) {
				r->iv.groups[g].name = paths[i];
				r->iv.groups[g].name_in_idbuf = false;
			}
		for (g = 0; g < r->since.ngroups; g++)
			if (r->since.groups[g].key.id == k[i].id) {
				r->since.groups[g].name = paths[i];
				r->since.groups[g].name_in_idbuf = false;
				r->since.groups[g].cgs = cgs[i];
			}
	}
	CHECK(!prom_view_update(&r->v, &r->iv, &r->since));
	snapshot_gc(&r->s);
}

/*
 * Absent, not zero, where the kernel gives nothing; zero where it gives
 * zero; the deltas summed; a cgroup re-created under the same path (a new
 * id) continues the series, which never goes back.
 */
static void test_cgroup_counters(void)
{
	const char *const args[] = { "-k", "cgroup", NULL };
	const char *const paths[] = { "/thr", "/nopsi", "/none", "/thr" };
	struct fake k[4] = { { .id = 11 }, { .id = 22 }, { .id = 33 }, { .id = 44 } };
	struct cgstat cgs[4] = {};
	struct rig r;
	char *t1, *t2, *t3;
	int i;

	rig_init(&r, args);
	for (i = 0; i < 3; i++)
		add_waits(&k[i], 1000, 1);
	/* the first reading of a cgroup has no delta yet: nothing anywhere */
	read_cgroups(&r, k, 3, paths, cgs);
	t1 = expose(&r.v, false);
	CHECK(!strstr(t1, "schedhist_cgroup_"));
	free(t1);

	cgs[0] = (struct cgstat){ .has_throttle = true, .has_some = true, .has_full = true,
				     .nr_periods = 12, .nr_throttled = 9, .throttled_ns = 900000000,
				     .pressure_some_ns = 950000000, .pressure_full_ns = 1500 };
	cgs[1] = (struct cgstat){ .has_throttle = true };	/* known zero, no cpu.pressure */
	read_cgroups(&r, k, 3, paths, cgs);
	t1 = expose(&r.v, false);
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_periods_total counter"));
	CHECK(has_line(t1, CG("periods_total", "/thr") " 12"));
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_throttled_periods_total counter"));
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_throttled_seconds_total counter"));
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_pressure_some_seconds_total counter"));
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_pressure_full_seconds_total counter"));
	CHECK(has_line(t1, CG("throttled_periods_total", "/thr") " 9"));
	CHECK(has_line(t1, CG("throttled_seconds_total", "/thr") " 0.9"));
	CHECK(has_line(t1, CG("pressure_some_seconds_total", "/thr") " 0.95"));
	CHECK(has_line(t1, CG("pressure_full_seconds_total", "/thr") " 0.0000015"));
	CHECK(has_line(t1, CG("throttled_periods_total", "/nopsi") " 0"));
	CHECK(has_line(t1, CG("throttled_seconds_total", "/nopsi") " 0"));
	CHECK(!strstr(t1, CG("pressure_some_seconds_total", "/nopsi")));
	/* /none and [other]: none; 5 of /thr, 3 of /nopsi */
	CHECK_EQ_U64(count_lines(t1, "schedhist_cgroup_"), 8);

	/* /thr removed and made again: id 44, whose first reading has no delta */
	for (i = 1; i < 4; i++)
		add_waits(&k[i], 1000, 1);
	memset(cgs, 0, sizeof(cgs));
	read_cgroups(&r, k + 1, 3, paths + 1, cgs + 1);
	t2 = expose(&r.v, false);
	check_monotone(t1, t2);
	CHECK(has_line(t2, CG("throttled_periods_total", "/thr") " 9"));
	cgs[3] = (struct cgstat){ .has_throttle = true, .nr_throttled = 1,
				     .throttled_ns = 100000000 };
	add_waits(&k[3], 1000, 1);
	read_cgroups(&r, k + 1, 3, paths + 1, cgs + 1);
	t3 = expose(&r.v, false);
	check_monotone(t2, t3);
	CHECK(has_line(t3, CG("throttled_periods_total", "/thr") " 10"));
	CHECK(has_line(t3, CG("throttled_seconds_total", "/thr") " 1"));
	CHECK(has_line(t3, CG("pressure_some_seconds_total", "/thr") " 0.95"));
	free(t1);
	free(t2);
	free(t3);
	t1 = expose(&r.v, true);
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_throttled_seconds counter"));
	CHECK(has_line(t1, "# UNIT schedhist_cgroup_throttled_seconds seconds"));
	CHECK(has_line(t1, "# TYPE schedhist_cgroup_throttled_periods counter"));
	CHECK(has_line(t1, CG("throttled_seconds_total", "/thr") " 1"));
	free(t1);
	rig_free(&r);
}

int main(void)
{
	TEST(test_listen_addr);
	TEST(test_fleet_options);
	TEST(test_accept);
	TEST(test_render);
	TEST(test_escaping);
	TEST(test_prune_monotone);
	TEST(test_top_other);
	TEST(test_interval_max);
	TEST(test_exemplars);
	TEST(test_churn_bounded);
	TEST(test_remember_horizon);
	TEST(test_keep_pruned);
	TEST(test_cgroup_labels);
	TEST(test_two_metrics);
	TEST(test_culprits_sticky);
	TEST(test_culprits_off);
	TEST(test_cgroup_counters);
	return test_summary();
}
