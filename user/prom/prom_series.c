// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The Prometheus series table: monotone, bounded series by key name (prom_series.h). */
#include <stdlib.h>
#include <string.h>

#include "prom/prom_series.h"
#include "lib/hash.h"
#include "model/stacks.h"

#define INITIAL_BUCKETS 256

/*
 * The series' pool: fixed-size entries in blocks, freed ones reused. Series churn with keys,
 * and on the heap freed ones were carved up meanwhile: it grew with used bytes flat.
 */
#define PROM_SERIES_PER_BLOCK 64

static size_t pool_entry_bytes(void)
{
	return sizeof(struct prom_series) + (size_t)sh_nb * sizeof(__u64);
}

static void pool_put(struct prom_view *v, struct prom_series *s)
{
	s->next = v->free_series;
	v->free_series = s;
}

static struct prom_series *pool_get(struct prom_view *v)
{
	struct prom_series *s;

	if (!v->free_series) {
		char **blocks = realloc(v->blocks, (v->nblocks + 1) * sizeof(*blocks));
		char *b;
		size_t i;

		if (!blocks)
			return NULL;
		v->blocks = blocks;
		b = malloc(PROM_SERIES_PER_BLOCK * pool_entry_bytes());
		if (!b)
			return NULL;
		v->blocks[v->nblocks++] = b;
		for (i = PROM_SERIES_PER_BLOCK; i-- > 0;)
			pool_put(v, (struct prom_series *)(b + i * pool_entry_bytes()));
	}
	s = v->free_series;
	v->free_series = s->next;
	memset(s, 0, pool_entry_bytes());
	return s;
}

static size_t name_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static struct prom_series *find(const struct prom_view *v, const char *key)
{
	struct prom_series *s = v->table[name_hash(key) & (v->nbuckets - 1)];

	for (; s; s = s->next)
		if (!strcmp(s->key, key))
			return s;
	return NULL;
}

static void grow(struct prom_view *v)
{
	size_t n = v->nbuckets * 2, i;
	struct prom_series **t = calloc(n, sizeof(*t));

	if (!t)
		return;	/* longer chains, still correct */
	for (i = 0; i < v->nbuckets; i++) {
		struct prom_series *s = v->table[i], *next;

		for (; s; s = next) {
			size_t h = name_hash(s->key) & (n - 1);

			next = s->next;
			s->next = t[h];
			t[h] = s;
		}
	}
	free(v->table);
	v->table = t;
	v->nbuckets = n;
}

static struct prom_series *admit(struct prom_view *v, const char *key)
{
	struct prom_series *s;
	size_t h;

	if (v->nexported + v->nwithdrawn >= v->nbuckets)
		grow(v);
	s = pool_get(v);
	if (!s)
		return NULL;
	s->t.buckets = s->bucket_store;
	s->key = strlen(key) < sizeof(s->key_inline) ? strcpy(s->key_inline, key) : strdup(key);
	if (!s->key) {
		pool_put(v, s);
		return NULL;
	}
	h = name_hash(key) & (v->nbuckets - 1);
	s->next = v->table[h];
	v->table[h] = s;
	s->exported = true;
	s->admitted = v->updates;
	v->nexported++;
	return s;
}

static void list_unlink(struct prom_view *v, struct prom_series *s)
{
	if (s->older)
		s->older->newer = s->newer;
	else
		v->oldest = s->newer;
	if (s->newer)
		s->newer->older = s->older;
	else
		v->newest = s->older;
	s->older = s->newer = NULL;
	v->nwithdrawn--;
}

static void series_free(struct prom_view *v, struct prom_series *s)
{
	size_t i;

	for (i = 0; i < s->nculprits; i++)
		free(s->culprits[i].name);
	if (s->key != s->key_inline)
		free(s->key);
	pool_put(v, s);
}

static void forget(struct prom_view *v, struct prom_series *s)
{
	struct prom_series **pp = &v->table[name_hash(s->key) & (v->nbuckets - 1)];

	list_unlink(v, s);
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	series_free(v, s);
}

static void withdraw(struct prom_view *v, struct prom_series *s, __u64 now_ns)
{
	s->exported = false;
	s->withdrawn_ns = now_ns;
	v->nexported--;
	s->older = v->newest;
	s->newer = NULL;
	if (v->newest)
		v->newest->newer = s;
	else
		v->oldest = s;
	v->newest = s;
	v->nwithdrawn++;
}

static void readmit(struct prom_view *v, struct prom_series *s)
{
	list_unlink(v, s);
	s->exported = true;
	s->admitted = v->updates;
	v->nexported++;
}

int prom_view_init(struct prom_view *v, int metric, int key_type, __u32 limit)
{
	memset(v, 0, sizeof(*v));
	totals_init(&v->other, v->other_buckets);
	v->metric = metric;
	v->key_type = key_type;
	v->limit = limit ? limit : 1;
	v->nbuckets = INITIAL_BUCKETS;
	v->table = calloc(v->nbuckets, sizeof(*v->table));
	if (!v->table)
		return -1;
	/* the one series of key none exists from the start, at zero */
	if (key_type == SH_KEY_NONE && !admit(v, "all")) {
		prom_view_free(v);
		return -1;
	}
	return 0;
}

void prom_view_remember(struct prom_view *v, __u64 ns)
{
	v->remember_ns = ns;
}

void prom_view_free(struct prom_view *v)
{
	size_t i;

	for (i = 0; v->table && i < v->nbuckets; i++) {
		struct prom_series *s = v->table[i], *next;

		for (; s; s = next) {
			next = s->next;
			series_free(v, s);
		}
	}
	for (i = 0; i < v->nblocks; i++)
		free(v->blocks[i]);
	free(v->blocks);
	free(v->table);
	memset(v, 0, sizeof(*v));
}

static bool folds_into_other(const struct report_group *g)
{
	/* [exited], [rest]: not kernel keys; [other]: the overflow entry, or a task named so. */
	return g->synthetic || g->key.id == SH_OTHER_ID || !strcmp(g->name, PROM_OTHER);
}

/* Only pid, tid and cgroup keys are ever pruned from the snapshot. */
static bool prunable(int key_type)
{
	return key_type == SH_KEY_PID || key_type == SH_KEY_TID || key_type == SH_KEY_CGROUP;
}

static const struct report_group *group_at(const struct report *r, size_t i)
{
	return i < r->ngroups ? &r->groups[i] : &r->rest;
}

/* Take group @g's max into @m, the max of update @now (reading @r) so far. */
static void max_merge(struct prom_max *m, const struct report_group *g, const struct report *r,
		      __u64 now)
{
	const struct totals *t = &g->t;

	if (m->update != now) {
		m->update = now;
		m->ns = 0;
	}
	if (!t->count || t->max_ns <= m->ns)
		return;
	m->ns = t->max_ns;
	m->tid = t->max_tid;
	memcpy(m->comm, t->max_comm, sizeof(m->comm));
	m->comm[sizeof(m->comm) - 1] = '\0';
	m->has_stack = g->max_stack != NULL;
	m->stack_id = m->has_stack ? frames_id(g->max_stack) : 0;
	m->when = r->when;
}

bool prom_max_now(const struct prom_view *v, const struct prom_max *m)
{
	return m->update == v->updates && m->ns;
}

static bool max_present(const struct prom_view *views, size_t nv)
{
	size_t j, i;

	for (j = 0; j < nv; j++) {
		const struct prom_view *v = &views[j];

		if (v->key_type != SH_KEY_NONE && prom_max_now(v, &v->other_max))
			return true;
		for (i = 0; i < v->nbuckets; i++) {
			const struct prom_series *s;

			for (s = v->table[i]; s; s = s->next)
				if (s->exported && prom_max_now(v, &s->max))
					return true;
		}
	}
	return false;
}

/* --causes: group @g's causes of the interval into a series' (*@has: it has some). */
static void causes_merge(bool *has, struct cause_sums *to, const struct report_group *g)
{
	int i;

	if (!g->has_causes)
		return;
	*has = true;
	for (i = 0; i < SH_CAUSE_NR; i++)
		to->ns[i] += g->causes.ns[i];
	to->count += g->causes.count;
}

int prom_view_update(struct prom_view *v, const struct report *iv,
		     const struct report *since)
{
	__u64 now_ns = (__u64)iv->when.tv_sec * 1000000000ULL + (__u64)iv->when.tv_nsec;
	size_t n, i;

	v->updates++;
	n = since->ngroups + (since->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct report_group *g = group_at(since, i);
		struct prom_series *s;

		if (!folds_into_other(g) && g->live && (s = find(v, g->name)))
			s->seen = v->updates;
	}
	/* the waits of names exported already, even if their key was just pruned */
	n = iv->ngroups + (iv->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct report_group *g = group_at(iv, i);
		struct prom_series *s;

		if (!folds_into_other(g) && (s = find(v, g->name)) && s->exported) {
			totals_add(&s->t, &g->t);
			causes_merge(&s->has_causes, &s->causes, g);
			max_merge(&s->max, g, iv, v->updates);
			s->seen = v->updates;
		}
	}
	/* names whose every kernel key was pruned give their room back */
	if (prunable(v->key_type)) {
		for (i = 0; i < v->nbuckets; i++) {
			struct prom_series *s = v->table[i], *next;

			for (; s; s = next) {
				next = s->next;
				if (s->exported && s->seen != v->updates)
					withdraw(v, s, now_ns);
			}
		}
		/*
		 * Keep the last @limit withdrawn names for remember_ns, oldest first (after the
		 * walk: forget() unlinks); a clock set back keeps them until it passes them again.
		 */
		while (v->oldest &&
		       (v->nwithdrawn > v->limit ||
			(v->remember_ns &&
			 (__s64)(now_ns - v->oldest->withdrawn_ns) >= (__s64)v->remember_ns)))
			forget(v, v->oldest);
	}
	/* the other waits: to new (or returning) names in ranking order, or to [other] */
	for (i = 0; i < n; i++) {
		const struct report_group *g = group_at(iv, i);
		struct prom_series *s = NULL;

		if (!folds_into_other(g)) {
			s = find(v, g->name);
			if (s && s->exported && s->admitted != v->updates)
				continue;	/* counted above */
			if (s && !s->exported && v->nexported < v->limit)
				readmit(v, s);
			if (!s && v->nexported < v->limit && !(s = admit(v, g->name)))
				return -1;
		}
		if (s && s->exported) {
			totals_add(&s->t, &g->t);
			causes_merge(&s->has_causes, &s->causes, g);
			max_merge(&s->max, g, iv, v->updates);
			s->seen = v->updates;
		} else {
			totals_add(&v->other, &g->t);
			causes_merge(&v->other_has_causes, &v->other_causes, g);
			max_merge(&v->other_max, g, iv, v->updates);
		}
	}
	/* -k cgroup: the counters of the cgroups behind each exported name */
	n = since->ngroups + (since->rest.nkeys ? 1 : 0);
	for (i = 0; v->key_type == SH_KEY_CGROUP && i < n; i++) {
		const struct report_group *g = group_at(since, i);
		struct prom_series *s;

		if (!folds_into_other(g) && g->live && (s = find(v, g->name)) && s->exported)
			cgstat_add(&s->cg, &g->cgs);
	}
	memcpy(v->stats, since->stats, sizeof(v->stats));
	v->live_keys = since->live_keys;
	v->kmem = since->kmem;
	return 0;
}

static struct prom_culprit *culprit_find(struct prom_series *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nculprits; i++)
		if (!strcmp(s->culprits[i].name, name))
			return &s->culprits[i];
	return NULL;
}

int prom_view_culprits(struct prom_view *v, const char *key, __u64 count, __u64 sum_ns,
		       const struct culprit *in, size_t n)
{
	struct prom_series *s = find(v, key);
	__u64 cnt = 0, sum = 0;
	size_t i;

	if (!s || !s->exported)
		return 0;	/* its waits went to [other] */
	s->has_rest = true;
	for (i = 0; i < n; i++) {
		struct prom_culprit *c = NULL;

		if (strcmp(in[i].name, PROM_CULPRIT_REST)) {
			c = culprit_find(s, in[i].name);
			if (!c && s->nculprits < SH_CULPRIT_TOP) {
				c = &s->culprits[s->nculprits];
				c->name = strdup(in[i].name);
				if (!c->name)
					return -1;
				c->count = c->sum_ns = 0;
				s->nculprits++;
			}
		}
		if (c) {
			c->count += in[i].count;
			c->sum_ns += in[i].sum_ns;
		} else {
			s->rest_count += in[i].count;
			s->rest_sum_ns += in[i].sum_ns;
		}
		cnt += in[i].count;
		sum += in[i].sum_ns;
	}
	/* Waits blamed on nobody; the culprit map is read after the key map, so clamp at zero. */
	s->rest_count += count > cnt ? count - cnt : 0;
	s->rest_sum_ns += sum_ns > sum ? sum_ns - sum : 0;
	return 0;
}

int prom_view_causes(const struct prom_view *v, prom_cause_fn fn, void *ctx)
{
	struct prom_series **sorted;
	size_t i, n;
	int err = 0;

	if (!v->causes)
		return 0;
	sorted = prom_view_sorted(v, &n);
	if (!sorted)
		return -1;
	for (i = 0; i < n && !err; i++)
		if (sorted[i]->has_causes)
			err = fn(ctx, sorted[i]->key, &sorted[i]->causes);
	free(sorted);
	if (!err && v->key_type != SH_KEY_NONE && v->other_has_causes)
		err = fn(ctx, PROM_OTHER, &v->other_causes);
	return err;
}

bool prom_series_cgstat(const struct prom_series *s, int f, __u64 *val)
{
	switch (f) {
	case PROM_CG_PERIODS:
		*val = s->cg.nr_periods;
		return s->cg.has_throttle;
	case PROM_THROTTLED_PERIODS:
		*val = s->cg.nr_throttled;
		return s->cg.has_throttle;
	case PROM_THROTTLED_SECONDS:
		*val = s->cg.throttled_ns;
		return s->cg.has_throttle;
	case PROM_PRESSURE_SOME:
		*val = s->cg.pressure_some_ns;
		return s->cg.has_some;
	case PROM_PRESSURE_FULL:
		*val = s->cg.pressure_full_ns;
		return s->cg.has_full;
	}
	return false;
}

static int cmp_culprit(const void *a, const void *b)
{
	return strcmp(((const struct prom_culprit *)a)->name, ((const struct prom_culprit *)b)->name);
}

size_t prom_series_culprits(const struct prom_series *s, struct prom_culprit out[SH_CULPRIT_TOP + 1])
{
	size_t n = s->nculprits;

	memcpy(out, s->culprits, n * sizeof(*out));
	qsort(out, n, sizeof(*out), cmp_culprit);
	if (s->has_rest)
		out[n++] = (struct prom_culprit){ .name = (char *)PROM_CULPRIT_REST,
						  .count = s->rest_count,
						  .sum_ns = s->rest_sum_ns };
	return n;
}

static bool counter_present(const struct prom_view *views, size_t nv, int f)
{
	bool per_culprit = prom_families[f].source == PROM_FROM_CULPRIT;
	const struct prom_series *s;
	size_t i, j;
	__u64 val;

	for (j = 0; j < nv; j++) {
		const struct prom_view *v = &views[j];

		if (per_culprit ? !v->culprits : v->key_type != SH_KEY_CGROUP)
			continue;
		for (i = 0; i < v->nbuckets; i++)
			for (s = v->table[i]; s; s = s->next)
				if (s->exported && (per_culprit ? s->has_rest || s->nculprits
								: prom_series_cgstat(s, f, &val)))
					return true;
	}
	return false;
}

bool prom_family_present(const struct prom_view *views, size_t nv, int f)
{
	size_t j;

	if (f == PROM_INTERVAL_MAX)
		return max_present(views, nv);
	if (prom_families[f].source == PROM_FROM_CAUSE) {
		for (j = 0; j < nv; j++)
			if (views[j].causes)
				return true;
		return false;
	}
	if (prom_families[f].source == PROM_FROM_STACKS)
		return nv && views[0].stacks;
	return prom_families[f].source == PROM_FROM_VIEW || counter_present(views, nv, f);
}

size_t prom_view_series(const struct prom_view *v)
{
	return v->nexported + (v->key_type != SH_KEY_NONE ? 1 : 0);
}

static int cmp_series(const void *a, const void *b)
{
	const struct prom_series *x = *(const struct prom_series *const *)a;
	const struct prom_series *y = *(const struct prom_series *const *)b;

	return strcmp(x->key, y->key);
}

struct prom_series **prom_view_sorted(const struct prom_view *v, size_t *n)
{
	struct prom_series **sorted, *s;
	size_t i;

	*n = 0;
	sorted = malloc((v->nexported ? v->nexported : 1) * sizeof(*sorted));
	if (!sorted)
		return NULL;
	for (i = 0; i < v->nbuckets; i++)
		for (s = v->table[i]; s; s = s->next)
			if (s->exported)
				sorted[(*n)++] = s;
	qsort(sorted, *n, sizeof(*sorted), cmp_series);
	return sorted;
}
