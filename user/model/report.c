// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Snapshot -> report: select the span, name keys, percentiles, rank. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/report.h"
#include "lib/fmt.h"
#include "lib/hugemem.h"

_Static_assert(sizeof(struct pcts) == 4 * sizeof(__u64) &&
	       offsetof(struct pcts, p90) == sizeof(__u64) &&
	       offsetof(struct pcts, p99) == 2 * sizeof(__u64) &&
	       offsetof(struct pcts, p999) == 3 * sizeof(__u64), "pcts is p50..p999 in order");

/* Into @p in place: returning a struct by value costs a store-forwarding stall per group. */
static void pcts_into(const struct totals *t, struct pcts *p)
{
	static const double q[4] = { 0.50, 0.90, 0.99, 0.999 };

	totals_quantiles(t, q, 4, &p->p50);
}

struct pcts totals_pcts(const struct totals *t)
{
	struct pcts p;

	pcts_into(t, &p);
	return p;
}

void group_percentiles(struct report_group *g)
{
	pcts_into(&g->t, &g->pct);
}

static void report_free_arrays(struct report *r)
{
	big_free(r->groups, r->cap * sizeof(*r->groups));
	big_free(r->spare, r->cap * sizeof(*r->spare));
	big_free(r->order, 2 * r->cap * sizeof(*r->order));
}

static int grow(struct report *r)
{
	/* 256 to start: a host's few hundred keys never regrow the arrays in steady state. */
	size_t cap = r->cap ? r->cap * 2 : 256, gsz = sizeof(struct report_group);
	size_t osz = 2 * sizeof(struct rank_rec);	/* the records and the merge sort's scratch */
	/* on huge pages once large (hugemem.h): the groups are made in rank order, a random walk */
	struct report_group *g = big_realloc(NULL, 0, cap * gsz);
	struct report_group *sp = big_realloc(NULL, 0, cap * gsz);
	struct rank_rec *ord = big_realloc(NULL, 0, cap * osz);

	if (!g || !sp || !ord) {
		big_free(g, cap * gsz);
		big_free(sp, cap * gsz);
		big_free(ord, cap * osz);
		return -1;
	}
	if (r->cap) {
		memcpy(g, r->groups, r->cap * gsz);
		memcpy(ord, r->order, r->cap * osz);
	}
	report_free_arrays(r);
	r->groups = g;
	r->spare = sp;
	r->order = ord;
	r->cap = cap;
	return 0;
}

/* @e's display name (NULL: [exited]): its own string, or written into @buf (40 bytes). */
static const char *entry_name(const struct snap_entry *e, int key_type, const struct cgroups *cg,
			      char *buf)
{
	const char *path;

	if (!e)
		return "[exited]";
	if (e->key.id == SH_OTHER_ID)
		return "[other]";
	switch (key_type) {
	case SH_KEY_NONE:
		return "all";
	case SH_KEY_COMM:
		return e->key.comm;
	case SH_KEY_CGROUP:
		/* pruned: the cgroup is gone (its id is never reused) */
		path = cg && !e->pruned ? cg_known(cg, e->key.id) : NULL;
		if (path)
			return path;
		/* not found by a walk that could not list everything: not "removed" */
		snprintf(buf, 40, "[%s id=%" PRIu64 "]",
			 cg && !e->pruned && cg->partial ? "unresolved" : "removed",
			 (uint64_t)e->key.id);
		return buf;
	}
	fmt_u64(buf, e->key.id);	/* pid, tid, cpu, pidns (its inode number) */
	return buf;
}

static void name_group(struct report_group *g, const struct snap_entry *e, int key_type,
		       const struct cgroups *cg)
{
	_Static_assert(sizeof(g->idbuf) >= 40, "entry_name() writes up to 40 bytes");

	g->name = entry_name(e, key_type, cg, g->idbuf);
	g->name_in_idbuf = g->name == g->idbuf;
	if (!e || e->key.id == SH_OTHER_ID)
		return;
	if (key_type == SH_KEY_PID || key_type == SH_KEY_TID) {
		memcpy(g->commbuf, e->comm, SH_COMM_LEN);
		g->comm = g->commbuf;
		g->comm_in_group = true;
	}
	g->is_cgroup = key_type == SH_KEY_CGROUP;
}

static int cmp_u64(__u64 a, __u64 b)
{
	return a > b ? -1 : a < b;
}

/* A group's own name: the ranking may move groups, leaving name at the old idbuf. */
static const char *group_name(const struct report_group *g)
{
	return g->name_in_idbuf ? g->idbuf : g->name;
}

static __u64 sort_key(const struct totals *t, __u64 p99, int sort)
{
	switch (sort) {
	case SH_SORT_COUNT:
		return t->count;
	case SH_SORT_AVG:
		return t->count ? t->sum_ns / t->count : 0;
	case SH_SORT_P99:
		return p99;
	case SH_SORT_MAX:
		return t->max_ns;
	}
	return t->sum_ns;
}

/* Where the names of tied records come from: groups (re-ranking), else entries. */
struct rank_ctx {
	const struct report_group *groups;
	int key_type;
	const struct cgroups *cg;
};

static const char *rec_name(const struct rank_rec *x, const struct rank_ctx *ctx, char *buf)
{
	return ctx->groups ? group_name(&ctx->groups[x->idx])
			   : entry_name(x->e, ctx->key_type, ctx->cg, buf);
}

static inline int cmp_rank(const struct rank_rec *x, const struct rank_rec *y,
			   const struct rank_ctx *ctx)
{
	char a[40], b[40];
	int c;

	if (x->below_min_count != y->below_min_count)
		return x->below_min_count ? 1 : -1;
	c = cmp_u64(x->key, y->key);
	if (!c)
		c = cmp_u64(x->sum_ns, y->sum_ns);
	if (!c)
		c = cmp_u64(x->count, y->count);
	if (!c)
		c = strcmp(rec_name(x, ctx, a), rec_name(y, ctx, b));
	return c;
}

/*
 * Stable merge sort by cmp_rank(), the comparison inlined (qsort's calls dominated);
 * runs of 8 by insertion, merged through @tmp.
 */
static void merge_ranks(struct rank_rec *a, struct rank_rec *tmp, size_t n,
			const struct rank_ctx *groups)
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

/* Below this many records the merge sort; above, the radix sort first. */
#define RADIX_MIN 256

struct radix_pair {
	__u64 k;
	__u64 at;
};

/*
 * Stable sort by cmp_rank(): a radix sort of (key, position) pairs over the differing
 * bytes, then each run of equal keys merge-sorted by the whole comparison.
 */
static void sort_ranks(struct rank_rec *a, struct rank_rec *tmp, size_t n,
		       const struct rank_ctx *ctx)
{
	_Static_assert(2 * sizeof(struct radix_pair) <= sizeof(struct rank_rec),
		       "radix pairs fit in the scratch records");
	struct radix_pair *p = (struct radix_pair *)tmp, *q = p + n, *t;
	__u64 all_or = 0, all_and = ~0ULL, flags = 0;
	size_t i, j, cnt[256];
	int b;

	if (n < RADIX_MIN) {
		merge_ranks(a, tmp, n, ctx);
		return;
	}
	for (i = 0; i < n; i++) {
		p[i].k = ~a[i].key;	/* largest key first */
		p[i].at = i;
		all_or |= p[i].k;
		all_and &= p[i].k;
		flags |= a[i].below_min_count;
	}
	/* least significant byte first; a byte every key shares orders nothing */
	for (b = 0; b < 8 + (flags != 0); b++) {
		int sh = 8 * b;

		if (b < 8 && !(((all_or ^ all_and) >> sh) & 0xff))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[b < 8 ? (p[i].k >> sh) & 0xff : !!a[p[i].at].below_min_count]++;
		for (i = 0, j = 0; i < 256; i++) {
			size_t c = cnt[i];

			cnt[i] = j;
			j += c;
		}
		for (i = 0; i < n; i++)
			q[cnt[b < 8 ? (p[i].k >> sh) & 0xff : !!a[p[i].at].below_min_count]++] = p[i];
		t = p;
		p = q;
		q = t;
	}
	/* Permute in place, one cycle at a time (a done position points at itself). */
	for (i = 0; i < n; i++) {
		struct rank_rec x;
		size_t k;

		if (p[i].at == i)
			continue;
		x = a[i];
		j = i;
		while ((k = p[j].at) != i) {
			a[j] = a[k];
			p[j].at = j;
			j = k;
		}
		a[j] = x;
		p[j].at = j;
	}
	/* Runs of equal (mark, key): the rest of the comparison decides. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && a[j].key == a[i].key &&
				a[j].below_min_count == a[i].below_min_count; j++)
			;
		if (j - i > 1)
			merge_ranks(a + i, tmp, j - i, ctx);
	}
}

/* Groups move (realloc, ranking): names kept inside a group follow it. */
static void fix_names(struct report *r)
{
	size_t i;

	for (i = 0; i < r->ngroups; i++) {
		if (r->groups[i].name_in_idbuf)
			r->groups[i].name = r->groups[i].idbuf;
		if (r->groups[i].comm_in_group)
			r->groups[i].comm = r->groups[i].commbuf;
	}
}

static void fold_rest(struct report *r, __u32 top)
{
	size_t i;

	memset(&r->rest, 0, sizeof(r->rest));
	totals_init(&r->rest.t, r->rest_buckets);
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

void report_rank(struct report *r, int sort, __u32 top, __u64 min_count)
{
	size_t i;

	r->ngroups = r->nall ? r->nall : r->ngroups;	/* re-ranking: all of them */
	fix_names(r);
	for (i = 0; i < r->ngroups; i++)
		r->groups[i].below_min_count = min_count && r->groups[i].t.count < min_count;
	/* Sort small records of the sort keys, not the groups (hundreds of bytes each). */
	if (r->ngroups) {	/* groups is NULL until the first one */
		struct rank_ctx ctx = { .groups = r->groups };
		struct report_group *t;

		for (i = 0; i < r->ngroups; i++) {
			const struct report_group *g = &r->groups[i];

			r->order[i] = (struct rank_rec){ .key = sort_key(&g->t, g->pct.p99, sort),
							 .sum_ns = g->t.sum_ns, .count = g->t.count,
							 .below_min_count = g->below_min_count,
							 .idx = (__u32)i };
		}
		sort_ranks(r->order, r->order + r->cap, r->ngroups, &ctx);
		for (i = 0; i < r->ngroups; i++)
			r->spare[i] = r->groups[r->order[i].idx];
		t = r->groups;
		r->groups = r->spare;
		r->spare = t;
	}
	fix_names(r);
	fold_rest(r, top);
}

static int add_rec(struct report *r, size_t *n, const struct snap_entry *e,
		   const struct totals *t, const struct report_spec *sp)
{
	if (*n == r->cap && grow(r))
		return -1;
	r->order[*n] = (struct rank_rec){
		.key = sort_key(t, sp->sort == SH_SORT_P99 ? totals_pcts(t).p99 : 0, sp->sort),
		.sum_ns = t->sum_ns, .count = t->count,
		.below_min_count = sp->min_count && t->count < sp->min_count, .e = e, .t = t,
		.buckets = t->buckets
	};
	(*n)++;
	return 0;
}

/*
 * Records of @s's entries with waits in the span, [exited] last, into r->order (*@n).
 * The interval reads only the entries with new counts. 0, or -1 when out of memory.
 */
static int gather(struct report *r, struct snapshot *s, const struct report_spec *sp, size_t *n)
{
	struct totals *exited = &r->exited_t;
	struct snap_entry *e = NULL;
	size_t it = 0, i;

	totals_init(exited, r->exited_buckets);
	if (sp->cumulative)
		totals_add(exited, &s->exited_cum);
	for (i = 0;; i++) {
		const struct totals *t;

		if (sp->cumulative) {
			if (!(e = snapshot_next(s, &it, e)))
				break;
			t = &e->cum;
		} else {
			if (i == s->ntouched)
				break;
			if (i + 8 < s->ntouched) {
				__builtin_prefetch(s->touched[i + 8]);
				__builtin_prefetch((char *)s->touched[i + 8] + 64);
			}
			e = s->touched[i];
			t = &e->delta;
		}
		if (e->key.id == SH_EXITED_ID) {
			/* the kernel's folds: one [exited] with the poller's own */
			totals_add(exited, t);
			continue;
		}
		if (t->count && add_rec(r, n, e, t, sp))
			return -1;
	}
	return exited->count && add_rec(r, n, NULL, exited, sp) ? -1 : 0;
}

/*
 * Groups are made once, in rank order, from sorted records (not made then moved).
 * report_build() clears a group around its totals and percentiles: they are adjacent.
 */
_Static_assert(offsetof(struct report_group, pct) == offsetof(struct report_group, t) +
	       sizeof(struct totals) && offsetof(struct report_group, nkeys) ==
	       offsetof(struct report_group, pct) + sizeof(struct pcts), "report_group layout");

int report_build(struct report *r, struct snapshot *s, const struct report_spec *sp,
		 const struct cgroups *cg, double span_s)
{
	struct rank_ctx ctx = { .key_type = sp->key_type, .cg = cg };
	size_t i, n = 0;

	clock_gettime(CLOCK_REALTIME, &r->when);
	r->span_s = span_s;
	r->metric = s->metric;
	r->method = s->method;
	r->clock = s->clock;
	r->key_type = sp->key_type;
	r->cumulative = sp->cumulative;
	r->ngroups = 0;
	r->nall = 0;
	totals_init(&r->all, r->all_buckets);
	memcpy(r->stats, sp->cumulative ? s->stats_cum : s->stats_delta, sizeof(r->stats));

	r->live_keys = s->nlive;
	r->kmem = s->kmem;
	if (gather(r, s, sp, &n))
		return -1;
	if (n)	/* order is NULL until the first record */
		sort_ranks(r->order, r->order + r->cap, n, &ctx);
	for (i = 0; i < n; i++) {
		const struct rank_rec *x = &r->order[i];
		struct report_group *g = &r->groups[i];

		/* Prefetch a few groups ahead: rank order is a random walk of the entries. */
		if (i + 4 < n) {
			const char *b = (const char *)r->order[i + 4].buckets;
			size_t o;

			if (r->order[i + 4].e)
				__builtin_prefetch(r->order[i + 4].e);
			__builtin_prefetch(r->order[i + 4].t);
			for (o = 0; o < (size_t)sh_nb * sizeof(__u64); o += 64)
				__builtin_prefetch(b + o);
		}

		memset(g, 0, offsetof(struct report_group, t));
		memset(&g->nkeys, 0, sizeof(*g) - offsetof(struct report_group, nkeys));
		name_group(g, x->e, sp->key_type, cg);
		if (x->e) {
			g->key = x->e->key;
			g->live = !x->e->pruned;
		} else {
			g->synthetic = true;	/* [exited] */
		}
		g->t = *x->t;
		g->below_min_count = x->below_min_count;
		/* From the copy's source: reading the group just written waits for its stores. */
		pcts_into(x->t, &g->pct);
		totals_add(&r->all, x->t);
	}
	pcts_into(&r->all, &r->all_pct);
	r->ngroups = n;
	fold_rest(r, sp->top);
	return 0;
}

void report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	totals_init(&r->all, r->all_buckets);
	totals_init(&r->rest.t, r->rest_buckets);
	totals_init(&r->exited_t, r->exited_buckets);
}

void report_free(struct report *r)
{
	report_free_arrays(r);
	memset(r, 0, sizeof(*r));
}

__u64 report_lost(const struct report *r)
{
	return r->stats[SH_STAT_NO_START] + r->stats[SH_STAT_DROPPED] +
	       r->stats[SH_STAT_CLOCK_SKEW];
}
