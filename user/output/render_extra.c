// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Culprits, the max wait's stack and cgroup accounting, in text and JSON. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "output/render_extra.h"
#include "model/culprits.h"
#include "model/stacks.h"
#include "lib/escape.h"
#include "lib/names.h"

/* @part of @whole in whole percent, rounded (0 of 0). */
static unsigned pct(__u64 part, __u64 whole)
{
	return whole ? (unsigned)(((unsigned __int128)part * 200 + whole) / (2 * whole)) : 0;
}

static __u64 span_ns(const struct report *r)
{
	return (__u64)(r->span_s * 1e9 + 0.5);
}

void extra_share(char *buf, size_t n, bool known, __u64 ns, const struct report *r)
{
	__u64 span = span_ns(r);

	if (!known || !span)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100.0 * (double)ns / (double)span);
}

void extra_pressure(char *buf, size_t n, bool known, __u64 ns, const struct report *r)
{
	/* A stall is wall time, at most the span (the file is read apart from the maps). */
	extra_share(buf, n, known, ns < span_ns(r) ? ns : span_ns(r), r);
}

/* The waited ns a group's causes split (their sum: its runq waits, read just after). */
static __u64 causes_sum(const struct report_group *g)
{
	__u64 s = 0;
	int i;

	for (i = 0; i < SH_CAUSE_NR; i++)
		s += g->causes.ns[i];
	return s;
}

void extra_cause(char *buf, size_t n, const struct report_group *g, int cause)
{
	__u64 sum = causes_sum(g);

	if (!g->has_causes || !sum)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100.0 * (double)g->causes.ns[cause] / (double)sum);
}

static __u64 culprits_sum(const struct culprit_list *l)
{
	__u64 s = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		s += l->c[i].sum_ns;
	return s;
}

void extra_top_culprit(char *buf, size_t n, const struct report_group *g)
{
	const struct culprit_list *l = g->culprits;
	char name[256];

	/* The largest that is a key: [rest] is none, nor a task behind zero-length waits. */
	if (!l || !l->n || (l->rest && l->n == 1) || !l->c[0].sum_ns) {
		snprintf(buf, n, "-");
		return;
	}
	name_escape(name, sizeof(name), l->c[0].name);
	snprintf(buf, n, "%s %u%%", name, pct(l->c[0].sum_ns, culprits_sum(l)));
}

void extra_text(struct outbuf *b, const struct report_group *g, const struct report *r)
{
	const struct cgstat *cs = &g->cgs;
	char a[32];
	size_t i;

	if (cs->has_throttle || cs->has_some || cs->has_full) {
		ob_str(b, "cgroup cpu:");
		if (cs->has_throttle) {
			extra_share(a, sizeof(a), true, cs->throttled_ns, r);
			ob_printf(b, " throttled %s of the interval (%" PRIu64 " periods)", a,
				  (uint64_t)cs->nr_throttled);
		}
		if (cs->has_some) {
			extra_pressure(a, sizeof(a), true, cs->pressure_some_ns, r);
			ob_printf(b, "  pressure some %s", a);
		}
		if (cs->has_full) {
			extra_pressure(a, sizeof(a), true, cs->pressure_full_ns, r);
			ob_printf(b, "%s full %s", cs->has_some ? "" : "  pressure", a);
		}
		ob_chr(b, '\n');
	}
	/* waits of zero length made nobody wait: no shares of nothing */
	if (g->culprits && g->culprits->n && culprits_sum(g->culprits)) {
		const struct culprit_list *l = g->culprits;
		__u64 total = culprits_sum(l);

		/* by time: who ran while it waited, not whose switch ended the wait */
		ob_str(b, l->mode == SH_CULPRIT_TIME ? "waited behind, by time:" : "waited behind:");
		for (i = 0; i < l->n; i++) {
			ob_str(b, i ? ", " : " ");
			name_put(b, l->c[i].name, ESC_TEXT);
			if (l->c[i].comm) {
				ob_str(b, " (");
				name_put(b, l->c[i].comm, ESC_TEXT);
				ob_chr(b, ')');
			}
			ob_printf(b, " %u%% (%" PRIu64 ")", pct(l->c[i].sum_ns, total),
				  (uint64_t)l->c[i].count);
		}
		ob_chr(b, '\n');
	}
	if (g->has_causes && causes_sum(g)) {
		ob_str(b, "waited for:");
		for (i = 0; i < SH_CAUSE_NR; i++) {
			extra_cause(a, sizeof(a), g, (int)i);
			ob_printf(b, "%s %s %s", i ? "," : "", cause_name((int)i), a);
		}
		ob_chr(b, '\n');
	}
	if (g->max_stack && g->max_stack->n) {
		const struct frames *s = g->max_stack;

		ob_printf(b, "  stack of the max wait (tid %u):\n", g->t.max_tid);
		for (i = 0; i < s->n && i < SH_TEXT_FRAMES; i++) {
			ob_str(b, "    ");
			ob_str(b, s->f[i]);
			ob_chr(b, '\n');
		}
		if (s->n > SH_TEXT_FRAMES)
			ob_printf(b, "    ... %zu more (JSON has them all)\n", s->n - SH_TEXT_FRAMES);
	}
}

static void json_u64(struct outbuf *b, const char *name, __u64 v)
{
	ob_str(b, name);
	ob_u64(b, v);
}

void extra_json(struct outbuf *b, const struct report_group *g)
{
	const struct cgstat *cs = &g->cgs;
	size_t i;

	if (cs->has_throttle) {
		json_u64(b, ",\"nr_throttled\":", cs->nr_throttled);
		json_u64(b, ",\"throttled_ns\":", cs->throttled_ns);
	}
	if (cs->has_some)
		json_u64(b, ",\"pressure_some_ns\":", cs->pressure_some_ns);
	if (cs->has_full)
		json_u64(b, ",\"pressure_full_ns\":", cs->pressure_full_ns);
	if (g->culprits) {
		const struct culprit_list *l = g->culprits;

		ob_str(b, ",\"culprit_mode\":");
		json_string(b, culprit_mode_name(l->mode));
		ob_str(b, ",\"culprits\":[");
		for (i = 0; i < l->n; i++) {
			ob_str(b, i ? ",{\"key\":" : "{\"key\":");
			json_string(b, l->c[i].name);
			if (l->c[i].comm) {
				ob_str(b, ",\"comm\":");
				json_string(b, l->c[i].comm);
			}
			json_u64(b, ",\"count\":", l->c[i].count);
			json_u64(b, ",\"sum_ns\":", l->c[i].sum_ns);
			ob_chr(b, '}');
		}
		ob_chr(b, ']');
	}
	if (g->has_causes) {
		ob_str(b, ",\"causes\":{");
		for (i = 0; i < SH_CAUSE_NR; i++) {
			ob_str(b, i ? ",\"" : "\"");
			ob_str(b, cause_name((int)i));
			ob_str(b, "_ns\":");
			ob_u64(b, g->causes.ns[i]);
		}
		json_u64(b, ",\"count\":", g->causes.count);
		ob_chr(b, '}');
	}
	if (g->max_stack) {
		ob_str(b, ",\"max_stack\":[");
		for (i = 0; i < g->max_stack->n; i++) {
			if (i)
				ob_chr(b, ',');
			json_string(b, g->max_stack->f[i]);
		}
		/* the Prometheus exemplar's stack_id of the same stack */
		ob_printf(b, "],\"max_stack_id\":\"%016" PRIx64 "\"", (uint64_t)frames_id(g->max_stack));
	}
}
