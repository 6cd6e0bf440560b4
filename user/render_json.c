// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * JSON Lines output: one object per report; the fields are in
 * schedhist(8), the JSON Schema in docs/report.schema.json (version
 * SH_JSON_SCHEMA).
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>

#include "render.h"
#include "escape.h"
#include "cgroup_names.h"
#include "render_extra.h"

/* @name then @v in decimal: printf's cost, thousands of times a report, avoided */
static void field(FILE *f, const char *name, __u64 v)
{
	char num[24];
	int n = fmt_u64(num, v);

	fputs_unlocked(name, f);
	fwrite_unlocked(num, 1, (size_t)n, f);
}

void json_string(FILE *f, const char *s)
{
	/* names are bytes: the one rule of escape.h makes them valid UTF-8 */
	fputc('"', f);
	name_write(f, s, ESC_JSON);
	fputc('"', f);
}

void fmt_rfc3339(char *buf, size_t n, const struct timespec *ts)
{
	struct tm tm;
	char base[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03ldZ", base, ts->tv_nsec / 1000000);
}

/* -k cgroup: the names read from the path (cgroup_names.h), those found only */
static void json_cgroup_labels(FILE *f, const char *path)
{
	struct cg_labels l;
	const char *qos;

	if (!cg_labels_parse(path, &l))
		return;
	if (l.unit[0]) {
		fputs_unlocked(",\"unit\":", f);
		json_string(f, l.unit);
	}
	if (l.container_id[0])
		fprintf(f, ",\"container_id\":\"%s\",\"container_id_short\":\"%s\"",
			l.container_id, l.container_id_short);
	if (l.pod_uid[0])
		fprintf(f, ",\"pod_uid\":\"%s\"", l.pod_uid);
	if ((qos = cg_qos_name(l.qos)))
		fprintf(f, ",\"qos\":\"%s\"", qos);
}

static void json_group(FILE *f, const struct sh_group *g)
{
	int i, first = 1;

	fputs_unlocked("{\"key\":", f);
	json_string(f, g->name);
	if (g->comm) {
		fputs(",\"comm\":", f);
		json_string(f, g->comm);
	}
	if (g->is_cgroup && !g->synthetic && g->key.id != SH_OTHER_ID) {
		fprintf(f, ",\"cgroup_id\":%" PRIu64, (uint64_t)g->key.id);
		json_cgroup_labels(f, g->name);
	}
	if (g->nkeys)
		fprintf(f, ",\"keys\":%" PRIu64, (uint64_t)g->nkeys);
	field(f, ",\"count\":", g->t.count);
	field(f, ",\"sum_ns\":", g->t.sum_ns);
	field(f, ",\"avg_ns\":", g->t.count ? g->t.sum_ns / g->t.count : 0);
	field(f, ",\"max_ns\":", g->t.max_ns);
	if (g->t.has_min)
		field(f, ",\"min_ns\":", g->t.min_ns);
	field(f, ",\"p50_ns\":", g->pct.p50);
	field(f, ",\"p90_ns\":", g->pct.p90);
	field(f, ",\"p99_ns\":", g->pct.p99);
	field(f, ",\"p999_ns\":", g->pct.p999);
	if (g->t.max_tid) {
		field(f, ",\"max_tid\":", g->t.max_tid);
		field(f, ",\"max_pid\":", g->t.max_pid);
		field(f, ",\"max_cpu\":", g->t.max_cpu);
		fputs_unlocked(",\"max_comm\":", f);
		json_string(f, g->t.max_comm);
	}
	if (g->below_min_count)
		fputs_unlocked(",\"below_min_count\":true", f);
	extra_json(f, g);
	fputs_unlocked(",\"buckets\":[", f);
	for (i = 0; i < SH_NBUCKETS; i++) {
		if (!g->t.slots[i])
			continue;
		field(f, first ? "{\"lo_ns\":" : ",{\"lo_ns\":", bucket_lo(i));
		if (bucket_hi(i) == UINT64_MAX)
			fputs_unlocked(",\"hi_ns\":null", f);
		else
			field(f, ",\"hi_ns\":", bucket_hi(i));
		field(f, ",\"count\":", g->t.slots[i]);
		fputc_unlocked('}', f);
		first = 0;
	}
	fputs_unlocked("]}", f);
}

void render_json(FILE *f, const struct sh_report *r)
{
	struct utsname u;
	char ts[64];
	size_t i;
	int s;

	/* the host's name now: it may change while schedhist runs */
	if (uname(&u))
		u.nodename[0] = '\0';
	flockfile(f);	/* once: the groups below use the _unlocked calls */
	fmt_rfc3339(ts, sizeof(ts), &r->when);
	fprintf(f, "{\"schema\":%d,\"host\":", SH_JSON_SCHEMA);
	json_string(f, u.nodename);
	fprintf(f, ",\"time\":\"%s\",\"interval_s\":%.3f,\"cumulative\":%s,\"metric\":\"%s\","
		   "\"method\":\"%s\",\"key\":\"%s\",\"groups\":[",
		ts, r->span_s, r->cumulative ? "true" : "false", metric_name(r->metric),
		method_name(r->method), key_name(r->key_type));
	for (i = 0; i < r->ngroups + (r->rest.nkeys ? 1 : 0); i++) {
		if (i)
			fputc(',', f);
		json_group(f, i < r->ngroups ? &r->groups[i] : &r->rest);
	}
	fputs("],\"lost\":{", f);
	/* the waits not recorded, by reason: seen == recorded + the sum of these */
	for (s = 0; s < SH_NLOST; s++)
		fprintf(f, "%s\"%s\":%" PRIu64, s ? "," : "", stat_name(sh_lost_stats[s]),
			(uint64_t)r->stats[sh_lost_stats[s]]);
	fputs("},\"events\":{", f);
	for (s = 0; s < SH_STAT_NR; s++)
		fprintf(f, "%s\"%s\":%" PRIu64, s ? "," : "", stat_name(s),
			(uint64_t)r->stats[s]);
	fprintf(f, ",\"recorded\":%" PRIu64 ",\"live_keys\":%" PRIu64 "}}\n",
		(uint64_t)r->all.count, (uint64_t)r->live_keys);
	funlockfile(f);
}
