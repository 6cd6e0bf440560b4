// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Text output: runqlat-style histograms (power-of-two buckets), one per key, or a table. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/render.h"
#include "lib/escape.h"
#include "model/cgroup_names.h"
#include "output/render_extra.h"
#include "output/bucket_labels.h"

#define BAR_WIDTH 40

/* "%-10llu " then the bar: "|", @v of @max in BAR_WIDTH stars, "|", newline. */
static void count_and_bar(struct outbuf *b, __u64 v, __u64 max)
{
	/* stars then spaces: a bar of n stars is the BAR_WIDTH bytes from BAR_WIDTH - n */
	static const char stars[] = "****************************************"
				    "                                        ";
	int n = max ? (int)(v * BAR_WIDTH / max) : 0;
	char num[24], *d;
	int len = fmt_u64(num, v), pad = len < 10 ? 10 - len : 0;

	if (v && !n)
		n = 1;	/* a non-empty bucket always shows */
	d = ob_room(b, (size_t)(len + pad + BAR_WIDTH + 4));
	if (!d)
		return;
	memcpy(d, num, (size_t)len);
	memset(d + len, ' ', (size_t)pad + 1);
	d += len + pad + 1;
	*d++ = '|';
	memcpy(d, stars + BAR_WIDTH - n, BAR_WIDTH);
	d += BAR_WIDTH;
	*d++ = '|';
	*d = '\n';
	ob_commit(b, (size_t)(len + pad + BAR_WIDTH + 4));
}

static void print_histogram(struct outbuf *b, const struct totals *t,
			    const struct render_spec *sp)
{
	int first = -1, last = -1, start, i;
	const struct fmt_label *head, *labels;
	__u64 below = 0, max = 0;

	for (i = 0; i < sh_nb; i++) {
		if (!t->buckets[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	if (first < 0)
		return;
	start = first;
	if (sp->min_wait_ns) {
		int mb = bucket_of(sp->min_wait_ns);

		for (i = 0; i < mb && i < sh_nb; i++)
			below += t->buckets[i];
		if (mb > start)
			start = mb;
		if (start > last)
			last = start;
	}
	for (i = start; i <= last; i++)
		if (t->buckets[i] > max)
			max = t->buckets[i];
	if (below > max)
		max = below;

	head = fmt_hist_head(sp->unit);
	labels = fmt_row_labels(sp->unit);
	ob_mem(b, head->s, head->len);
	if (below) {
		char lim[32], left[64];

		fmt_wait(lim, sizeof(lim), bucket_floor(start), sp->unit);
		snprintf(left, sizeof(left), "<= %s", lim);
		ob_printf(b, "%28s : ", left);
		count_and_bar(b, below, max);
	}
	for (i = start; i <= last; i++) {
		ob_mem(b, labels[i].s, labels[i].len);
		count_and_bar(b, t->buckets[i], max);
	}
}

/*
 * "  @label @value" of the stats line at cursor @d (room taken): a literal label, a wait in @unit.
 */
#define stat_field(d, label, ns, unit) do {		\
	put_lit(d, label);				\
	(d) = fmt_wait_right((d), (ns), (unit), 0);		\
} while (0)

static void print_stats_line(struct outbuf *b, const struct totals *t, const struct pcts *p,
			     const struct render_spec *sp, bool who)
{
	char *d = ob_room(b, LIT_LEN("count ") + FMT_U64_ROOM +
			     7 * (LIT_LEN("  p99.9 ") + FMT_WAIT_ROOM)), *start = d;

	if (!d)
		return;
	put_lit(d, "count ");
	d += fmt_u64(d, t->count);
	stat_field(d, "  avg ", t->count ? t->sum_ns / t->count : 0, sp->unit);
	if (t->has_min)
		stat_field(d, "  min ", t->min_ns, sp->unit);
	stat_field(d, "  p50 ", p->p50, sp->unit);
	stat_field(d, "  p90 ", p->p90, sp->unit);
	stat_field(d, "  p99 ", p->p99, sp->unit);
	stat_field(d, "  p99.9 ", p->p999, sp->unit);
	stat_field(d, "  max ", t->max_ns, sp->unit);
	ob_commit(b, (size_t)(d - start));
	if (who && t->max_tid) {
		ob_str(b, "  tid ");
		ob_u64(b, t->max_tid);
		ob_str(b, " (");
		name_put(b, t->max_comm, ESC_TEXT);
		ob_str(b, ") cpu ");
		ob_u64(b, t->max_cpu);
	}
	ob_chr(b, '\n');
}

/*
 * -k cgroup: the recognisable name (cgroup_names.h), escaped like the path; "" if the path says it
 * all.
 */
static void cgroup_note(char *buf, size_t n, const struct report_group *g)
{
	struct cg_labels l;
	char raw[CG_UNIT_MAX + 64];

	buf[0] = '\0';
	if (g->is_cgroup && !g->synthetic && cg_labels_parse(g->name, &l) &&
	    cg_labels_describe(&l, g->name, raw, sizeof(raw)))
		name_escape(buf, n, raw);
}

/* Names are bytes from the kernel: escaped (escape.h), never printed raw. */
static void print_key_line(struct outbuf *b, const struct report_group *g, int key_type)
{
	char note[2 * CG_UNIT_MAX + 64];

	cgroup_note(note, sizeof(note), g);
	ob_str(b, key_name(key_type));
	ob_str(b, " = ");
	name_put(b, g->name, ESC_TEXT);
	if (g->synthetic || g->key.id == SH_OTHER_ID) {
		if (g->nkeys) {
			ob_str(b, " (");
			ob_u64(b, g->nkeys);
			ob_str(b, " keys)");
		}
	} else if (g->comm) {
		ob_str(b, " (");
		name_put(b, g->comm, ESC_TEXT);
		ob_chr(b, ')');
	} else if (note[0]) {
		ob_str(b, " (");
		ob_str(b, note);
		ob_chr(b, ')');
	}
	if (g->below_min_count)
		ob_str(b, " [below --min-count]");
	ob_chr(b, '\n');
}

#define SUMMARY_NAME 1024	/* bytes of a --summary name column, longer ones cut */

static void cat(char *buf, size_t *o, const char *s, size_t len)
{
	memcpy(buf + *o, s, len);
	*o += len;
}

/*
 * The name column of a --summary row into @buf (SUMMARY_BUF: every part at its longest), its
 * length: the name cut at SUMMARY_NAME, then comm, [rest]'s keys or the cgroup note, the mark.
 */
#define SUMMARY_BUF (SUMMARY_NAME + 2 * CG_UNIT_MAX + 160)
static size_t summary_name(char *buf, const struct report_group *g)
{
	char note[2 * CG_UNIT_MAX + 64], num[24];
	size_t o;

	name_escape(buf, SUMMARY_NAME, g->name);
	o = strlen(buf);
	if (g->comm) {
		cat(buf, &o, " (", 2);
		name_escape(buf + o, 64, g->comm);
		o += strlen(buf + o);
		cat(buf, &o, ")", 1);
	} else if (g->nkeys) {
		cat(buf, &o, " (", 2);
		cat(buf, &o, num, (size_t)fmt_u64(num, g->nkeys));
		cat(buf, &o, " keys)", 6);
	} else if (g->is_cgroup) {
		cgroup_note(note, sizeof(note), g);
		if (note[0]) {
			cat(buf, &o, " (", 2);
			cat(buf, &o, note, strlen(note));
			cat(buf, &o, ")", 1);
		}
	}
	if (g->below_min_count)
		cat(buf, &o, " [below --min-count]", 20);
	buf[o] = '\0';
	return o;
}

/* Which columns a summary has, and the "-" it showed (each said once, under the table). */
struct summary_cols {
	bool cul, cgs, cau;		/* --culprits, -k cgroup, --causes */
	bool no_throttle, no_psi;
};

static int summary_row(struct outbuf *b, const struct report *r, const struct render_spec *sp,
		       const struct report_group *g, const char *name, size_t len, int w,
		       struct summary_cols *c)
{
	__u64 v[6] = { g->t.count ? g->t.sum_ns / g->t.count : 0, g->pct.p50, g->pct.p90,
		       g->pct.p99, g->pct.p999, g->t.max_ns };
	char top[320], share[32], *d, *start;
	int i;

	ob_pad(b, name, len, w, false);
	/*
	 * Through a cursor into room taken once: an append per field reloaded the buffer's length.
	 */
	if (!(d = start = ob_room(b, 1 + FMT_RIGHT_ROOM + 6 * (1 + FMT_WAIT_ROOM))))
		return -1;
	*d++ = ' ';
	d += fmt_u64_right(d, g->t.count, 10);
	for (i = 0; i < 6; i++) {
		*d++ = ' ';
		d = fmt_wait_right(d, v[i], sp->unit, 9);
	}
	ob_commit(b, (size_t)(d - start));
	if (c->cgs) {
		c->no_throttle |= !g->cgs.has_throttle;
		c->no_psi |= !g->cgs.has_some;
		extra_share(share, sizeof(share), g->cgs.has_throttle, g->cgs.throttled_ns, r);
		ob_chr(b, ' ');
		ob_pad(b, share, strlen(share), 9, true);
		extra_pressure(share, sizeof(share), g->cgs.has_some, g->cgs.pressure_some_ns, r);
		ob_chr(b, ' ');
		ob_pad(b, share, strlen(share), 9, true);
	}
	if (c->cul) {
		extra_top_culprit(top, sizeof(top), g);
		ob_str(b, "  ");
		ob_pad(b, top, strlen(top), 24, false);
	}
	for (i = 0; c->cau && i < SH_CAUSE_NR; i++) {
		static const int width[SH_CAUSE_NR] = { 6, 9, 6, 9, 6, 6 };

		extra_cause(share, sizeof(share), g, i);
		ob_chr(b, ' ');
		ob_pad(b, share, strlen(share), width[i], true);
	}
	if (!g->t.max_tid) {
		ob_chr(b, '\n');
		return 0;
	}
	/* "  TID PID ": each number's NUL is overwritten by the space after it */
	if (!(d = start = ob_room(b, LIT_LEN("  ") + 2 * FMT_U64_ROOM)))
		return -1;
	put_lit(d, "  ");
	d += fmt_u64(d, g->t.max_tid);
	*d++ = ' ';
	d += fmt_u64(d, g->t.max_pid);
	*d++ = ' ';
	ob_commit(b, (size_t)(d - start));
	name_put(b, g->t.max_comm, ESC_TEXT);
	if (!(d = start = ob_room(b, 1 + FMT_U64_ROOM)))
		return -1;
	*d++ = ' ';
	d += fmt_u64(d, g->t.max_cpu);
	*d++ = '\n';
	ob_commit(b, (size_t)(d - start));
	return 0;
}

static void print_summary(struct outbuf *b, const struct report *r, const struct render_spec *sp)
{
	const char *kname = key_name(r->key_type);
	int w = (int)strlen(kname);
	size_t n = r->ngroups + (r->rest.nkeys ? 1 : 0), j, len, kept = 0;
	char name[SUMMARY_BUF];
	/* The width pass's names kept for the rows: row j's is names.p[at[j] .. at[j + 1]). */
	struct outbuf names = {};
	size_t *at = malloc((n + 1) * sizeof(*at));
	struct summary_cols c = { .cul = sp->culprits && r->metric == SH_METRIC_RUNQ,
				  .cgs = r->key_type == SH_KEY_CGROUP,
				  .cau = sp->causes && r->metric == SH_METRIC_RUNQ };

	for (j = 0; j < n && w < 60; j++) {
		len = summary_name(name, j < r->ngroups ? &r->groups[j] : &r->rest);
		if ((int)len > w)
			w = (int)len;
		if (kept == j && at) {
			at[j] = names.len;
			ob_mem(&names, name, len);
			at[j + 1] = names.len;
			kept += !names.failed;
		}
	}
	if (w > 60)
		w = 60;
	ob_printf(b, "%-*s %10s %9s %9s %9s %9s %9s %9s", w, kname, "COUNT", "AVG", "P50",
		  "P90", "P99", "P99.9", "MAX");
	if (c.cgs)
		ob_printf(b, " %9s %9s", "THROTTLED", "PSI_SOME");
	if (c.cul)
		ob_printf(b, "  %-24s", "TOP_CULPRIT");
	if (c.cau)
		ob_printf(b, " %6s %9s %6s %9s %6s %6s", "SELF", "NEIGHBOUR", "KERNEL", "THROTTLED",
			  "STEAL", "OTHER");
	ob_printf(b, "  %s\n", "MAX_BY (tid pid comm cpu)");
	for (j = 0; j < n; j++) {
		const struct report_group *g = j < r->ngroups ? &r->groups[j] : &r->rest;
		int err = j < kept ? summary_row(b, r, sp, g, names.p + at[j], at[j + 1] - at[j],
						 w, &c)
				   : summary_row(b, r, sp, g, name, summary_name(name, g), w, &c);

		if (err)
			goto out;
	}
	/* "-" is "not available here", never zero (that is 0.0%): once per table, why */
	if (c.no_throttle)
		ob_str(b, "THROTTLED -: no throttling counters in the cgroup's cpu.stat (the root cgroup, "
			  "or no cpu controller on this hierarchy: see --cgroup-hier)\n");
	if (c.no_psi)
		ob_str(b, "PSI_SOME -: no cpu.pressure (PSI off, or a v1 hierarchy), or the cgroup's "
			  "first reading (PSI needs two)\n");
out:
	ob_free(&names);
	free(at);
}

void render_text(struct outbuf *b, const struct report *r, const struct render_spec *sp)
{
	size_t i;
	__u64 lost = report_lost(r);

	if (sp->timestamp) {
		char ts[64];
		struct tm tm;

		localtime_r(&r->when.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		ob_printf(b, "%s\n", ts);
	}
	ob_printf(b, "%s, %s %.2f s, waits in %s\n", metric_words(r->metric),
		  r->cumulative ? "since start" : "interval", r->span_s, unit_name(sp->unit));
	if (lost)
		ob_printf(b, "lost: %" PRIu64 " waits not measured (no start timestamp %" PRIu64
			     ", dropped %" PRIu64 ", clock skew %" PRIu64 ")\n",
			  (uint64_t)lost, (uint64_t)r->stats[SH_STAT_NO_START],
			  (uint64_t)r->stats[SH_STAT_DROPPED], (uint64_t)r->stats[SH_STAT_CLOCK_SKEW]);
	if (r->stats[SH_STAT_MAP_FULL])
		ob_printf(b, "overflow: key map full, %" PRIu64 " waits of new keys counted "
			     "under [other] (raise --max-keys or --max-kernel-mem)\n",
			  (uint64_t)r->stats[SH_STAT_MAP_FULL]);
	if (r->stats[SH_STAT_NO_MEM])
		ob_printf(b, "overflow: no kernel memory for a new key at the time, %" PRIu64
			     " waits counted under [other] (transient, under heavy task churn)\n",
			  (uint64_t)r->stats[SH_STAT_NO_MEM]);
	if (r->kmem.stack_lost)
		ob_printf(b, "stacks: %" PRIu64 " longer waits since the start without their stack "
			     "(another CPU was writing the key's stack at the instant)\n",
			  (uint64_t)r->kmem.stack_lost);
	if (sp->counters) {
		ob_printf(b, "events: seen %" PRIu64 "  recorded %" PRIu64,
			  (uint64_t)r->stats[SH_STAT_SEEN], (uint64_t)r->all.count);
		for (i = 0; i < SH_NEVENT_STATS; i++)
			ob_printf(b, "  %s %" PRIu64, stat_name(sh_event_stats[i]),
				  (uint64_t)r->stats[sh_event_stats[i]]);
		ob_printf(b, "  keys %" PRIu64 "  method %s  clock %s\n", (uint64_t)r->live_keys,
			  method_name(r->method), clock_name(r->clock));
	}

	if (!r->ngroups) {
		ob_str(b, "(no waits recorded)\n\n");
		return;
	}
	if (sp->summary) {
		print_summary(b, r, sp);
		ob_chr(b, '\n');
		return;
	}
	for (i = 0; i < r->ngroups + (r->rest.nkeys ? 1 : 0); i++) {
		const struct report_group *g = i < r->ngroups ? &r->groups[i] : &r->rest;


		if (r->key_type != SH_KEY_NONE) {
			if (i)
				ob_chr(b, '\n');
			print_key_line(b, g, r->key_type);
		}
		print_histogram(b, &g->t, sp);
		print_stats_line(b, &g->t, &g->pct, sp, true);
		extra_text(b, g, r);
	}
	ob_chr(b, '\n');
}
