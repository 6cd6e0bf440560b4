// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Snapshot -> report: select the span, name keys, percentiles, rank. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct sh_pcts totals_pcts(const struct sh_totals *t)
{
	static const double q[4] = { 0.50, 0.90, 0.99, 0.999 };
	__u64 v[4];

	totals_quantiles(t, q, 4, v);
	return (struct sh_pcts){ .p50 = v[0], .p90 = v[1], .p99 = v[2], .p999 = v[3] };
}

void group_percentiles(struct sh_group *g)
{
	g->pct = totals_pcts(&g->t);
}

static struct sh_group *add_group(struct sh_report *r)
{
	if (r->ngroups == r->cap) {
		/*
		 * 256 to start: a host's few hundred live keys then never
		 * regrow the arrays in steady state (a doubling is a jump of
		 * tens of kB that would look like a leak in a flat-RSS check)
		 */
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct sh_group *g = realloc(r->groups, cap * sizeof(*g));
		struct sh_group *sp;
		struct rank_rec *ord;

		if (!g)
			return NULL;
		r->groups = g;
		sp = realloc(r->spare, cap * sizeof(*sp));
		if (!sp)
			return NULL;
		r->spare = sp;
		/* twice: the records and the merge sort's scratch */
		ord = realloc(r->order, 2 * cap * sizeof(*ord));
		if (!ord)
			return NULL;
		r->order = ord;
		r->cap = cap;
	}
	memset(&r->groups[r->ngroups], 0, sizeof(r->groups[0]));
	return &r->groups[r->ngroups++];
}

static void name_group(struct sh_group *g, const struct sh_entry *e, int key_type,
		       const struct sh_cgroups *cg)
{
	const char *path;

	if (e->key.id == SH_OTHER_ID) {
		g->name = "[other]";
		g->synthetic = false;
		return;
	}
	switch (key_type) {
	case SH_KEY_NONE:
		g->name = "all";
		break;
	case SH_KEY_COMM:
		g->name = e->key.comm;
		break;
	case SH_KEY_PID:
	case SH_KEY_TID:
		g->comm = e->comm;
		/* fall through */
	case SH_KEY_CPU:
		fmt_u64(g->idbuf, e->key.id);
		g->name_in_idbuf = true;
		break;
	case SH_KEY_CGROUP:
		g->is_cgroup = true;
		/* pruned: the cgroup is gone (its id is never reused) */
		path = cg && !e->pruned ? cg_known(cg, e->key.id) : NULL;
		if (path) {
			g->name = path;
		} else {
			/* not found by a walk that could not list everything: not "removed" */
			snprintf(g->idbuf, sizeof(g->idbuf), "[%s id=%" PRIu64 "]",
				 cg && !e->pruned && cg->partial ? "unresolved" : "removed",
				 (uint64_t)e->key.id);
			g->name_in_idbuf = true;
		}
		break;
	}
}

static int cmp_u64(__u64 a, __u64 b)
{
	return a > b ? -1 : a < b;
}

/* A group's own name: the ranking may move groups, leaving name at the old idbuf. */
static const char *group_name(const struct sh_group *g)
{
	return g->name_in_idbuf ? g->idbuf : g->name;
}

static __u64 sort_key(const struct sh_group *g, int sort)
{
	switch (sort) {
	case SH_SORT_COUNT:
		return g->t.count;
	case SH_SORT_AVG:
		return g->t.count ? g->t.sum_ns / g->t.count : 0;
	case SH_SORT_P99:
		return g->pct.p99;
	case SH_SORT_MAX:
		return g->t.max_ns;
	}
	return g->t.sum_ns;
}

/* Largest first, then by name. */
static inline int cmp_rank(const struct rank_rec *x, const struct rank_rec *y,
			   const struct sh_group *groups)
{
	int c;

	if (x->below_min_count != y->below_min_count)
		return x->below_min_count ? 1 : -1;
	c = cmp_u64(x->key, y->key);
	if (!c)
		c = cmp_u64(x->sum_ns, y->sum_ns);
	if (!c)
		c = cmp_u64(x->count, y->count);
	if (!c)
		c = strcmp(group_name(&groups[x->idx]), group_name(&groups[y->idx]));
	return c;
}

/*
 * Sort @n records by cmp_rank(), stably: a merge sort with the comparison
 * inlined (qsort's call per comparison was most of the ranking's time),
 * runs of 8 sorted by insertion, then merged through @tmp (@n records).
 */
static void sort_ranks(struct rank_rec *a, struct rank_rec *tmp, size_t n,
		       const struct sh_group *groups)
{
	struct rank_rec *src = a, *dst = tmp, *t;
	size_t i, j, k, w, lo, mid, hi;

	for (lo = 0; lo < n; lo += 8) {
		hi = lo + 8 < n ? lo + 8 : n;
		for (i = lo + 1; i < hi; i++) {
			struct rank_rec x = a[i];

			for (j = i; j > lo && cmp_rank(&x, &a[j - 1], groups) < 0; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
	}
	for (w = 8; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			i = lo;
			j = mid;
			k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_rank(&src[j], &src[i], groups) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Groups move (realloc, ranking): names kept inside a group follow it. */
static void fix_names(struct sh_report *r)
{
	size_t i;

	for (i = 0; i < r->ngroups; i++)
		if (r->groups[i].name_in_idbuf)
			r->groups[i].name = r->groups[i].idbuf;
}

void report_rank(struct sh_report *r, int sort, __u32 top, __u64 min_count)
{
	size_t i;

	r->ngroups = r->nall ? r->nall : r->ngroups;	/* re-ranking: all of them */
	fix_names(r);
	for (i = 0; i < r->ngroups; i++)
		r->groups[i].below_min_count = min_count && r->groups[i].t.count < min_count;
	/*
	 * Sort small records of the sort keys, not the groups (hundreds of
	 * bytes each: moving them in qsort, or reading them at every
	 * comparison, dominated the poller's CPU at thousands of keys),
	 * then lay the groups out once in rank order.
	 */
	if (r->ngroups) {	/* groups is NULL until the first one */
		struct sh_group *t;

		for (i = 0; i < r->ngroups; i++) {
			const struct sh_group *g = &r->groups[i];

			r->order[i] = (struct rank_rec){ .key = sort_key(g, sort), .sum_ns = g->t.sum_ns,
							 .count = g->t.count,
							 .below_min_count = g->below_min_count,
							 .idx = (__u32)i };
		}
		sort_ranks(r->order, r->order + r->cap, r->ngroups, r->groups);
		for (i = 0; i < r->ngroups; i++)
			r->spare[i] = r->groups[r->order[i].idx];
		t = r->groups;
		r->groups = r->spare;
		r->spare = t;
	}
	fix_names(r);
	memset(&r->rest, 0, sizeof(r->rest));
	r->nall = r->ngroups;
	if (!top || r->ngroups <= top)
		return;
	r->rest.name = "[rest]";
	r->rest.synthetic = true;
	for (i = top; i < r->ngroups; i++) {
		totals_add(&r->rest.t, &r->groups[i].t);
		r->rest.nkeys++;
	}
	group_percentiles(&r->rest);
	r->ngroups = top;
}

int report_build(struct sh_report *r, struct sh_snapshot *s, const struct report_spec *sp,
		 const struct sh_cgroups *cg, double span_s)
{
	struct sh_totals exited;
	struct sh_entry *e;
	struct sh_group *g;
	size_t it = 0, i;

	clock_gettime(CLOCK_REALTIME, &r->when);
	r->span_s = span_s;
	r->metric = s->metric;
	r->method = s->method;
	r->key_type = sp->key_type;
	r->cumulative = sp->cumulative;
	r->ngroups = 0;
	r->nall = 0;
	r->live_keys = 0;
	memset(&r->all, 0, sizeof(r->all));
	memcpy(r->stats, sp->cumulative ? s->stats_cum : s->stats_delta, sizeof(r->stats));

	memset(&exited, 0, sizeof(exited));
	if (sp->cumulative)
		exited = s->exited_cum;
	for (e = NULL, it = 0; (e = snapshot_next(s, &it, e));) {
		const struct sh_totals *t = sp->cumulative ? &e->cum : snapshot_delta(s, e);

		if (e->key.id == SH_EXITED_ID) {
			/* the kernel's folds: one [exited] with the poller's own */
			totals_add(&exited, t);
			continue;
		}
		if (!e->pruned && e->key.id != SH_OTHER_ID)
			r->live_keys++;
		if (!t->count)
			continue;
		g = add_group(r);
		if (!g)
			return -1;
		g->key = e->key;
		g->live = !e->pruned;
		g->t = *t;
		name_group(g, e, sp->key_type, cg);
	}
	if (exited.count) {
		g = add_group(r);
		if (!g)
			return -1;
		g->name = "[exited]";
		g->synthetic = true;
		g->t = exited;
	}
	for (i = 0; i < r->ngroups; i++) {
		group_percentiles(&r->groups[i]);
		totals_add(&r->all, &r->groups[i].t);
	}
	r->all_pct = totals_pcts(&r->all);
	report_rank(r, sp->sort, sp->top, sp->min_count);
	return 0;
}

void report_free(struct sh_report *r)
{
	free(r->groups);
	free(r->spare);
	free(r->order);
	memset(r, 0, sizeof(*r));
}

__u64 report_lost(const struct sh_report *r)
{
	return r->stats[SH_STAT_NO_START] + r->stats[SH_STAT_DROPPED] +
	       r->stats[SH_STAT_CLOCK_SKEW];
}
