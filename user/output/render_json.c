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

#include "output/render.h"
#include "lib/escape.h"
#include "model/cgroup_names.h"
#include "output/render_extra.h"
#include "output/bucket_labels.h"


void fmt_rfc3339(char *buf, size_t n, const struct timespec *ts)
{
	struct tm tm;
	char base[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03ldZ", base, ts->tv_nsec / 1000000);
}

/*
 * At cursor @d (outbuf.h put_lit()): a field's name (a string literal)
 * and @v in decimal (fmt_u64() writes a NUL after the digits: room for
 * it too).
 */
#define put_field(d, name, v) do {			\
	put_lit(d, name);				\
	(d) += fmt_u64((d), (v));			\
} while (0)
/*
 * A group's numbers (json_group()): at most 13 put_field()s, each a name
 * no longer than ',"p999_ns":' and a number (its NUL overwritten by the
 * next field), and the ',"max_comm":' that ends them.
 */
#define NUMBERS_ROOM (13 * (LIT_LEN(",\"p999_ns\":") + FMT_U64_ROOM) + LIT_LEN(",\"max_comm\":"))
/*
 * Its buckets: the head, each bucket's object (fmt_json_buckets(), a
 * number, the brace that overwrites its NUL), and the end.
 */
#define BUCKETS_ROOM (LIT_LEN(",\"buckets\":[") + (size_t)sh_nb * (FMT_LABEL_MAX + FMT_U64_ROOM) + \
		      LIT_LEN("]}"))

/* -k cgroup: the names read from the path (cgroup_names.h), those found only */
static void json_cgroup_labels(struct outbuf *b, const char *path)
{
	struct cg_labels l;
	const char *qos;

	if (!cg_labels_parse(path, &l))
		return;
	if (l.unit[0]) {
		ob_str(b, ",\"unit\":");
		json_string(b, l.unit);
	}
	if (l.container_id[0])
		ob_printf(b, ",\"container_id\":\"%s\",\"container_id_short\":\"%s\"",
			  l.container_id, l.container_id_short);
	if (l.pod_uid[0])
		ob_printf(b, ",\"pod_uid\":\"%s\"", l.pod_uid);
	if ((qos = cg_qos_name(l.qos)))
		ob_printf(b, ",\"qos\":\"%s\"", qos);
}

static void json_group(struct outbuf *b, const struct report_group *g)
{
	const struct fmt_label *heads;
	char *d, *start;
	int i, first = 1;

	ob_str(b, "{\"key\":");
	json_string(b, g->name);
	if (g->comm) {
		ob_str(b, ",\"comm\":");
		json_string(b, g->comm);
	}
	if (g->is_cgroup && !g->synthetic && g->key.id != SH_OTHER_ID) {
		ob_str(b, ",\"cgroup_id\":");
		ob_u64(b, g->key.id);
		json_cgroup_labels(b, g->name);
	}
	/*
	 * The numbers written through a cursor into room taken once (the
	 * names go through name_put(), whose escapes have no small bound):
	 * an append per field reloaded and stored the buffer's length, a
	 * chain of dozens of store-to-load round trips per group
	 */
	if (!(d = start = ob_room(b, NUMBERS_ROOM)))
		return;
	if (g->nkeys)
		put_field(d, ",\"keys\":", g->nkeys);
	put_field(d, ",\"count\":", g->t.count);
	put_field(d, ",\"sum_ns\":", g->t.sum_ns);
	put_field(d, ",\"avg_ns\":", g->t.count ? g->t.sum_ns / g->t.count : 0);
	put_field(d, ",\"max_ns\":", g->t.max_ns);
	if (g->t.has_min)
		put_field(d, ",\"min_ns\":", g->t.min_ns);
	put_field(d, ",\"p50_ns\":", g->pct.p50);
	put_field(d, ",\"p90_ns\":", g->pct.p90);
	put_field(d, ",\"p99_ns\":", g->pct.p99);
	put_field(d, ",\"p999_ns\":", g->pct.p999);
	if (g->t.max_tid) {
		put_field(d, ",\"max_tid\":", g->t.max_tid);
		put_field(d, ",\"max_pid\":", g->t.max_pid);
		put_field(d, ",\"max_cpu\":", g->t.max_cpu);
		put_lit(d, ",\"max_comm\":");
	}
	ob_commit(b, (size_t)(d - start));
	if (g->t.max_tid)
		json_string(b, g->t.max_comm);
	if (g->below_min_count)
		ob_str(b, ",\"below_min_count\":true");
	extra_json(b, g);
	heads = fmt_json_buckets();
	if (!(d = start = ob_room(b, BUCKETS_ROOM)))
		return;
	put_lit(d, ",\"buckets\":[");
	for (i = 0; i < sh_nb; i++) {
		if (!g->t.buckets[i])
			continue;
		const struct fmt_label *l = &heads[i];

		/* the first without its leading comma */
		memcpy(d, l->s + first, l->len - (size_t)first);
		d += l->len - (size_t)first;
		d += fmt_u64(d, g->t.buckets[i]);
		*d++ = '}';
		first = 0;
	}
	put_lit(d, "]}");
	ob_commit(b, (size_t)(d - start));
}

void render_json(struct outbuf *b, const struct report *r)
{
	struct utsname u;
	char ts[64];
	size_t i;
	int s;

	/* the host's name now: it may change while schedhist runs */
	if (uname(&u))
		u.nodename[0] = '\0';
	fmt_rfc3339(ts, sizeof(ts), &r->when);
	ob_printf(b, "{\"schema\":%d,\"host\":", SH_JSON_SCHEMA);
	json_string(b, u.nodename);
	ob_printf(b, ",\"time\":\"%s\",\"interval_s\":%.3f,\"cumulative\":%s,\"metric\":\"%s\","
		     "\"method\":\"%s\",\"clock\":\"%s\",\"key\":\"%s\",\"bucket_schema\":%d,\"groups\":[",
		  ts, r->span_s, r->cumulative ? "true" : "false", metric_name(r->metric),
		  method_name(r->method), clock_name(r->clock), key_name(r->key_type), sh_schema);
	for (i = 0; i < r->ngroups + (r->rest.nkeys ? 1 : 0); i++) {
		if (i)
			ob_chr(b, ',');
		json_group(b, i < r->ngroups ? &r->groups[i] : &r->rest);
	}
	ob_str(b, "],\"lost\":{");
	/* the waits not recorded, by reason: seen == recorded + the sum of these */
	for (s = 0; s < SH_NLOST; s++)
		ob_printf(b, "%s\"%s\":%" PRIu64, s ? "," : "", stat_name(sh_lost_stats[s]),
			  (uint64_t)r->stats[sh_lost_stats[s]]);
	ob_str(b, "},\"events\":{");
	for (s = 0; s < SH_STAT_NR; s++)
		ob_printf(b, "%s\"%s\":%" PRIu64, s ? "," : "", stat_name(s),
			  (uint64_t)r->stats[s]);
	ob_printf(b, ",\"recorded\":%" PRIu64 ",\"live_keys\":%" PRIu64 "},\"kernel_memory\":{"
		     "\"bytes\":%" PRIu64 ",\"budget\":%" PRIu64 ",\"keys\":%" PRIu64
		     ",\"cache_entries\":%" PRIu64 ",\"cache_hits\":%" PRIu64
		     ",\"cache_misses\":%" PRIu64 ",\"max_lost\":%" PRIu64
		     ",\"stack_lost\":%" PRIu64 "}}\n",
		  (uint64_t)r->all.count, (uint64_t)r->live_keys, (uint64_t)r->kmem.bytes,
		  (uint64_t)r->kmem.budget, (uint64_t)r->kmem.keys,
		  (uint64_t)r->kmem.cache_entries, (uint64_t)r->kmem.cache_hits,
		  (uint64_t)r->kmem.cache_misses, (uint64_t)r->kmem.max_lost,
		  (uint64_t)r->kmem.stack_lost);
}
