// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Text output: runqlat-style histograms (power-of-two buckets), one per key, or a table. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "render.h"
#include "escape.h"
#include "cgroup_names.h"
#include "render_extra.h"

#define BAR_WIDTH 40

/*
 * ns / u with @dec decimals, rounded to nearest, in integers: what
 * printf("%.*f") prints of the double, but without its cost. An exact
 * tie is left to printf (its rounding of the double decides there).
 */
static void fmt_fixed(char *buf, size_t n, __u64 ns, __u64 u, int dec)
{
	static const __u64 p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				     100000000 };
	unsigned __int128 x = (unsigned __int128)ns * p10[dec];
	__u64 q = (__u64)(x / u), r = (__u64)(x % u);
	char digits[48];
	int len, i, o = 0;

	if (2 * (unsigned __int128)r == u) {
		snprintf(buf, n, "%.*f", dec, (double)ns / (double)u);
		return;
	}
	q += 2 * (unsigned __int128)r > u;
	len = fmt_u64(digits, q);
	if (n < (size_t)len + (size_t)dec + 3) {
		snprintf(buf, n, "%.*f", dec, (double)ns / (double)u);
		return;
	}
	if (len <= dec) {	/* 0.0042: leading zeros */
		buf[o++] = '0';
		buf[o++] = '.';
		for (i = len; i < dec; i++)
			buf[o++] = '0';
		memcpy(buf + o, digits, (size_t)len);
		o += len;
	} else {
		memcpy(buf, digits, (size_t)(len - dec));
		o = len - dec;
		if (dec) {
			buf[o++] = '.';
			memcpy(buf + o, digits + len - dec, (size_t)dec);
			o += dec;
		}
	}
	buf[o] = '\0';
}

void fmt_wait(char *buf, size_t n, __u64 ns, int unit)
{
	__u64 u = unit_ns(unit), s;
	int dec = 2;

	if (unit == SH_UNIT_NS || ns >= 100 * u) {
		fmt_fixed(buf, n, ns, u, 0);
	} else if (ns >= 10 * u) {
		fmt_fixed(buf, n, ns, u, 1);
	} else {
		/* below 1 too: 3 significant digits, or small buckets all read "0.00" */
		for (s = ns; s > 0 && s < u && dec < 8; s *= 10)
			dec++;
		fmt_fixed(buf, n, ns, u, dec);
	}
}

static void bar(FILE *f, __u64 v, __u64 max)
{
	int i, n = max ? (int)(v * BAR_WIDTH / max) : 0;

	if (v && !n)
		n = 1;	/* a non-empty bucket always shows */
	fputc('|', f);
	for (i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '*' : ' ', f);
	fputc('|', f);
}

static void print_histogram(FILE *f, const struct sh_totals *t, const struct render_spec *sp)
{
	int first = -1, last = -1, start, i;
	__u64 below = 0, max = 0;
	char lo[32], hi[32];

	for (i = 0; i < SH_NBUCKETS; i++) {
		if (!t->slots[i])
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

		for (i = 0; i < mb && i < SH_NBUCKETS; i++)
			below += t->slots[i];
		if (mb > start)
			start = mb;
		if (start > last)
			last = start;
	}
	for (i = start; i <= last; i++)
		if (t->slots[i] > max)
			max = t->slots[i];
	if (below > max)
		max = below;

	fprintf(f, "%*s%-5s%*s : count      distribution\n", 10, "", unit_name(sp->unit), 13, "");
	if (below) {
		char lim[32], left[64];

		fmt_wait(lim, sizeof(lim), bucket_floor(start), sp->unit);
		snprintf(left, sizeof(left), "<= %s", lim);
		fprintf(f, "%28s : %-10" PRIu64 " ", left, (uint64_t)below);
		bar(f, below, max);
		fputc('\n', f);
	}
	for (i = start; i <= last; i++) {
		/* a row counts the waits w with lo < w <= hi; the first 0 <= w <= hi */
		fmt_wait(lo, sizeof(lo), bucket_floor(i), sp->unit);
		if (i == 0)
			snprintf(lo, sizeof(lo), "0");
		if (bucket_edge(i) == UINT64_MAX)
			snprintf(hi, sizeof(hi), "longer");
		else
			fmt_wait(hi, sizeof(hi), bucket_edge(i), sp->unit);
		fprintf(f, "%13s -> %-11s : %-10" PRIu64 " ", lo, hi, (uint64_t)t->slots[i]);
		bar(f, t->slots[i], max);
		fputc('\n', f);
	}
}

static void print_stats_line(FILE *f, const struct sh_totals *t, const struct sh_pcts *p,
			     const struct render_spec *sp, bool who)
{
	char avg[32], a[32], b[32], c[32], d[32], m[32], mn[32];

	fmt_wait(avg, sizeof(avg), t->count ? t->sum_ns / t->count : 0, sp->unit);
	fmt_wait(a, sizeof(a), p->p50, sp->unit);
	fmt_wait(b, sizeof(b), p->p90, sp->unit);
	fmt_wait(c, sizeof(c), p->p99, sp->unit);
	fmt_wait(d, sizeof(d), p->p999, sp->unit);
	fmt_wait(m, sizeof(m), t->max_ns, sp->unit);
	fmt_wait(mn, sizeof(mn), t->min_ns, sp->unit);
	fprintf(f, "count %" PRIu64 "  avg %s", (uint64_t)t->count, avg);
	/* the exact min, where the kernel kept it (not for [exited]) */
	if (t->has_min)
		fprintf(f, "  min %s", mn);
	fprintf(f, "  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s", a, b, c, d, m);
	if (who && t->max_tid) {
		fprintf(f, "  tid %u (", t->max_tid);
		name_write(f, t->max_comm, ESC_TEXT);
		fprintf(f, ") cpu %u", t->max_cpu);
	}
	fputc('\n', f);
}

/*
 * -k cgroup: the name people recognise (cgroup_names.h), escaped like the
 * path (a unit name may hold a backslash), or "" when the path says it all.
 */
static void cgroup_note(char *buf, size_t n, const struct sh_group *g)
{
	struct cg_labels l;
	char raw[CG_UNIT_MAX + 64];

	buf[0] = '\0';
	if (g->is_cgroup && !g->synthetic && cg_labels_parse(g->name, &l) &&
	    cg_labels_describe(&l, g->name, raw, sizeof(raw)))
		name_escape(buf, n, raw);
}

/* Names are bytes from the kernel: escaped (escape.h), never printed raw. */
static void print_key_line(FILE *f, const struct sh_group *g, int key_type)
{
	char note[2 * CG_UNIT_MAX + 64];

	cgroup_note(note, sizeof(note), g);
	fprintf(f, "%s = ", key_name(key_type));
	name_write(f, g->name, ESC_TEXT);
	if (g->synthetic || g->key.id == SH_OTHER_ID) {
		if (g->nkeys)
			fprintf(f, " (%" PRIu64 " keys)", (uint64_t)g->nkeys);
	} else if (g->comm) {
		fputs(" (", f);
		name_write(f, g->comm, ESC_TEXT);
		fputc(')', f);
	} else if (note[0]) {
		fprintf(f, " (%s)", note);
	}
	if (g->below_min_count)
		fputs(" [below --min-count]", f);
	fputc('\n', f);
}

#define SUMMARY_NAME 1024	/* bytes of a --summary name column, longer ones cut */

static void summary_name(char *buf, size_t n, const struct sh_group *g)
{
	char name[SUMMARY_NAME], comm[64], note[2 * CG_UNIT_MAX + 64];

	name_escape(name, sizeof(name), g->name);
	cgroup_note(note, sizeof(note), g);
	if (g->comm) {
		name_escape(comm, sizeof(comm), g->comm);
		snprintf(buf, n, "%s (%s)", name, comm);
	} else if (g->nkeys) {
		snprintf(buf, n, "%s (%" PRIu64 " keys)", name, (uint64_t)g->nkeys);
	} else if (note[0]) {
		snprintf(buf, n, "%s (%s)", name, note);
	} else {
		snprintf(buf, n, "%s", name);
	}
	if (g->below_min_count) {
		size_t l = strlen(buf);

		snprintf(buf + l, n - l, " [below --min-count]");
	}
}

static void print_summary(FILE *f, const struct sh_report *r, const struct render_spec *sp)
{
	const char *kname = key_name(r->key_type);
	int w = (int)strlen(kname), i;
	size_t n = r->ngroups + (r->rest.nkeys ? 1 : 0), j;
	char name[SUMMARY_NAME + 2 * CG_UNIT_MAX + 160], v[6][32];

	for (j = 0; j < n; j++) {
		summary_name(name, sizeof(name), j < r->ngroups ? &r->groups[j] : &r->rest);
		if ((int)strlen(name) > w)
			w = (int)strlen(name);
	}
	if (w > 60)
		w = 60;
	bool cul = sp->culprits && r->metric == SH_METRIC_RUNQ, cgs = r->key_type == SH_KEY_CGROUP;
	char top[320], share[32];

	fprintf(f, "%-*s %10s %9s %9s %9s %9s %9s %9s", w, kname, "COUNT", "AVG", "P50",
		"P90", "P99", "P99.9", "MAX");
	if (cgs)
		fprintf(f, " %9s %9s", "THROTTLED", "PSI_SOME");
	if (cul)
		fprintf(f, "  %-24s", "TOP_CULPRIT");
	fprintf(f, "  %s\n", "MAX_BY (tid pid comm cpu)");
	for (j = 0; j < n; j++) {
		const struct sh_group *g = j < r->ngroups ? &r->groups[j] : &r->rest;

		summary_name(name, sizeof(name), g);
		fmt_wait(v[0], 32, g->t.count ? g->t.sum_ns / g->t.count : 0, sp->unit);
		fmt_wait(v[1], 32, g->pct.p50, sp->unit);
		fmt_wait(v[2], 32, g->pct.p90, sp->unit);
		fmt_wait(v[3], 32, g->pct.p99, sp->unit);
		fmt_wait(v[4], 32, g->pct.p999, sp->unit);
		fmt_wait(v[5], 32, g->t.max_ns, sp->unit);
		fprintf(f, "%-*s %10" PRIu64, w, name, (uint64_t)g->t.count);
		for (i = 0; i < 6; i++)
			fprintf(f, " %9s", v[i]);
		if (cgs) {
			extra_share(share, sizeof(share), g->cgs.has_throttle, g->cgs.throttled_ns, r);
			fprintf(f, " %9s", share);
			extra_share(share, sizeof(share), g->cgs.has_some, g->cgs.pressure_some_ns, r);
			fprintf(f, " %9s", share);
		}
		if (cul) {
			extra_top_culprit(top, sizeof(top), g);
			fprintf(f, "  %-24s", top);
		}
		if (g->t.max_tid) {
			fprintf(f, "  %u %u ", g->t.max_tid, g->t.max_pid);
			name_write(f, g->t.max_comm, ESC_TEXT);
			fprintf(f, " %u", g->t.max_cpu);
		}
		fputc('\n', f);
	}
}

void render_text(FILE *f, const struct sh_report *r, const struct render_spec *sp)
{
	size_t i;
	__u64 lost = report_lost(r);

	if (sp->timestamp) {
		char ts[64];
		struct tm tm;

		localtime_r(&r->when.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		fprintf(f, "%s\n", ts);
	}
	fprintf(f, "%s, %s %.2f s, waits in %s\n", metric_words(r->metric),
		r->cumulative ? "since start" : "interval", r->span_s, unit_name(sp->unit));
	if (lost)
		fprintf(f, "lost: %" PRIu64 " waits not measured (no start timestamp %" PRIu64
			   ", dropped %" PRIu64 ", clock skew %" PRIu64 ")\n",
			(uint64_t)lost, (uint64_t)r->stats[SH_STAT_NO_START],
			(uint64_t)r->stats[SH_STAT_DROPPED], (uint64_t)r->stats[SH_STAT_CLOCK_SKEW]);
	if (r->stats[SH_STAT_MAP_FULL])
		fprintf(f, "overflow: key map full, %" PRIu64 " waits of new keys counted "
			   "under [other] (raise --max-keys)\n",
			(uint64_t)r->stats[SH_STAT_MAP_FULL]);
	if (r->stats[SH_STAT_NO_MEM])
		fprintf(f, "overflow: no kernel memory for a new key at the time, %" PRIu64
			   " waits counted under [other] (transient, under heavy task churn)\n",
			(uint64_t)r->stats[SH_STAT_NO_MEM]);
	if (sp->counters)
		fprintf(f, "events: seen %" PRIu64 "  recorded %" PRIu64 "  no_start %" PRIu64
			   "  filtered %" PRIu64 "  dropped %" PRIu64 "  map_full %" PRIu64
			   "  no_mem %" PRIu64 "  clock_skew %" PRIu64 "  keys %" PRIu64
			   "  method %s\n",
			(uint64_t)r->stats[SH_STAT_SEEN], (uint64_t)r->all.count,
			(uint64_t)r->stats[SH_STAT_NO_START], (uint64_t)r->stats[SH_STAT_FILTERED],
			(uint64_t)r->stats[SH_STAT_DROPPED], (uint64_t)r->stats[SH_STAT_MAP_FULL],
			(uint64_t)r->stats[SH_STAT_NO_MEM], (uint64_t)r->stats[SH_STAT_CLOCK_SKEW],
			(uint64_t)r->live_keys, method_name(r->method));

	if (!r->ngroups) {
		fprintf(f, "(no waits recorded)\n\n");
		return;
	}
	if (sp->summary) {
		print_summary(f, r, sp);
		fputc('\n', f);
		return;
	}
	for (i = 0; i < r->ngroups + (r->rest.nkeys ? 1 : 0); i++) {
		const struct sh_group *g = i < r->ngroups ? &r->groups[i] : &r->rest;

		if (r->key_type != SH_KEY_NONE) {
			if (i)
				fputc('\n', f);
			print_key_line(f, g, r->key_type);
		}
		print_histogram(f, &g->t, sp);
		print_stats_line(f, &g->t, &g->pct, sp, true);
		extra_text(f, g, r);
	}
	fputc('\n', f);
}
