// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Culprits, the max wait's stack and cgroup accounting, in text and JSON. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "render_extra.h"
#include "render.h"
#include "culprits.h"
#include "stacks.h"
#include "escape.h"

/* @part of @whole in whole percent, rounded (0 of 0). */
static unsigned pct(__u64 part, __u64 whole)
{
	return whole ? (unsigned)(((unsigned __int128)part * 200 + whole) / (2 * whole)) : 0;
}

static __u64 span_ns(const struct sh_report *r)
{
	return (__u64)(r->span_s * 1e9 + 0.5);
}

void extra_share(char *buf, size_t n, bool known, __u64 ns, const struct sh_report *r)
{
	__u64 span = span_ns(r);

	if (!known || !span)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100.0 * (double)ns / (double)span);
}

static __u64 culprits_sum(const struct sh_culprit_list *l)
{
	__u64 s = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		s += l->c[i].sum_ns;
	return s;
}

void extra_top_culprit(char *buf, size_t n, const struct sh_group *g)
{
	const struct sh_culprit_list *l = g->culprits;
	char name[256];

	/* the largest one that is a key: [rest] is not a culprit */
	if (!l || !l->n || (l->rest && l->n == 1)) {
		snprintf(buf, n, "-");
		return;
	}
	name_escape(name, sizeof(name), l->c[0].name);
	snprintf(buf, n, "%s %u%%", name, pct(l->c[0].sum_ns, culprits_sum(l)));
}

void extra_text(FILE *f, const struct sh_group *g, const struct sh_report *r)
{
	const struct sh_cgstat *cs = &g->cgs;
	char a[32];
	size_t i;

	if (cs->has_throttle || cs->has_some || cs->has_full) {
		fputs("cgroup cpu:", f);
		if (cs->has_throttle) {
			extra_share(a, sizeof(a), true, cs->throttled_ns, r);
			fprintf(f, " throttled %s of the interval (%" PRIu64 " periods)", a,
				(uint64_t)cs->nr_throttled);
		}
		if (cs->has_some) {
			extra_share(a, sizeof(a), true, cs->pressure_some_ns, r);
			fprintf(f, "  pressure some %s", a);
		}
		if (cs->has_full) {
			extra_share(a, sizeof(a), true, cs->pressure_full_ns, r);
			fprintf(f, "%s full %s", cs->has_some ? "" : "  pressure", a);
		}
		fputc('\n', f);
	}
	if (g->culprits && g->culprits->n) {
		const struct sh_culprit_list *l = g->culprits;
		__u64 total = culprits_sum(l);

		fputs("waited behind:", f);
		for (i = 0; i < l->n; i++) {
			fputs(i ? ", " : " ", f);
			name_write(f, l->c[i].name, ESC_TEXT);
			if (l->c[i].comm) {
				fputs(" (", f);
				name_write(f, l->c[i].comm, ESC_TEXT);
				fputc(')', f);
			}
			fprintf(f, " %u%% (%" PRIu64 ")", pct(l->c[i].sum_ns, total),
				(uint64_t)l->c[i].count);
		}
		fputc('\n', f);
	}
	if (g->max_stack && g->max_stack->n) {
		const struct sh_frames *s = g->max_stack;

		fprintf(f, "  stack of the max wait (tid %u):\n", g->t.max_tid);
		for (i = 0; i < s->n && i < SH_TEXT_FRAMES; i++)
			fprintf(f, "    %s\n", s->f[i]);
		if (s->n > SH_TEXT_FRAMES)
			fprintf(f, "    ... %zu more (JSON has them all)\n", s->n - SH_TEXT_FRAMES);
	}
}

void extra_json(FILE *f, const struct sh_group *g)
{
	const struct sh_cgstat *cs = &g->cgs;
	size_t i;

	if (cs->has_throttle)
		fprintf(f, ",\"nr_throttled\":%" PRIu64 ",\"throttled_ns\":%" PRIu64,
			(uint64_t)cs->nr_throttled, (uint64_t)cs->throttled_ns);
	if (cs->has_some)
		fprintf(f, ",\"pressure_some_ns\":%" PRIu64, (uint64_t)cs->pressure_some_ns);
	if (cs->has_full)
		fprintf(f, ",\"pressure_full_ns\":%" PRIu64, (uint64_t)cs->pressure_full_ns);
	if (g->culprits) {
		const struct sh_culprit_list *l = g->culprits;

		fputs(",\"culprits\":[", f);
		for (i = 0; i < l->n; i++) {
			fputs(i ? ",{\"key\":" : "{\"key\":", f);
			json_string(f, l->c[i].name);
			if (l->c[i].comm) {
				fputs(",\"comm\":", f);
				json_string(f, l->c[i].comm);
			}
			fprintf(f, ",\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64 "}",
				(uint64_t)l->c[i].count, (uint64_t)l->c[i].sum_ns);
		}
		fputc(']', f);
	}
	if (g->max_stack) {
		fputs(",\"max_stack\":[", f);
		for (i = 0; i < g->max_stack->n; i++) {
			if (i)
				fputc(',', f);
			json_string(f, g->max_stack->f[i]);
		}
		fputc(']', f);
	}
}
