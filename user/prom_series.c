// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The Prometheus series table: monotone, bounded series by key name (prom_series.h). */
#include <stdlib.h>
#include <string.h>

#include "prom_series.h"
#include "hash.h"

#define INITIAL_SLOTS 256

static size_t name_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static struct prom_series *find(const struct prom_view *v, const char *key)
{
	struct prom_series *s = v->table[name_hash(key) & (v->nslots - 1)];

	for (; s; s = s->next)
		if (!strcmp(s->key, key))
			return s;
	return NULL;
}

static void grow(struct prom_view *v)
{
	size_t n = v->nslots * 2, i;
	struct prom_series **t = calloc(n, sizeof(*t));

	if (!t)
		return;	/* longer chains, still correct */
	for (i = 0; i < v->nslots; i++) {
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
	v->nslots = n;
}

/* A new, exported name. */
static struct prom_series *admit(struct prom_view *v, const char *key)
{
	struct prom_series *s;
	size_t h;

	if (v->nexported + v->nwithdrawn >= v->nslots)
		grow(v);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->key = strdup(key);
	if (!s->key) {
		free(s);
		return NULL;
	}
	h = name_hash(key) & (v->nslots - 1);
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

/* Drop a withdrawn name for good. */
static void forget(struct prom_view *v, struct prom_series *s)
{
	struct prom_series **pp = &v->table[name_hash(s->key) & (v->nslots - 1)];

	list_unlink(v, s);
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	free(s->key);
	free(s);
}

static void withdraw(struct prom_view *v, struct prom_series *s)
{
	s->exported = false;
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
	v->metric = metric;
	v->key_type = key_type;
	v->limit = limit ? limit : 1;
	v->nslots = INITIAL_SLOTS;
	v->table = calloc(v->nslots, sizeof(*v->table));
	if (!v->table)
		return -1;
	/* the one series of key none exists from the start, at zero */
	if (key_type == SH_KEY_NONE && !admit(v, "all")) {
		prom_view_free(v);
		return -1;
	}
	return 0;
}

void prom_view_free(struct prom_view *v)
{
	size_t i;

	for (i = 0; v->table && i < v->nslots; i++) {
		struct prom_series *s = v->table[i], *next;

		for (; s; s = next) {
			next = s->next;
			free(s->key);
			free(s);
		}
	}
	free(v->table);
	memset(v, 0, sizeof(*v));
}

/* Groups that never get a label of their own. */
static bool folds_into_other(const struct sh_group *g)
{
	/* [exited] and [rest] are not kernel keys; [other] is the kernel's overflow
	 * entry, or a task that happens to be named "[other]" */
	return g->synthetic || g->key.id == SH_OTHER_ID || !strcmp(g->name, PROM_OTHER);
}

/* Only pid, tid and cgroup keys are ever pruned from the snapshot. */
static bool prunable(int key_type)
{
	return key_type == SH_KEY_PID || key_type == SH_KEY_TID || key_type == SH_KEY_CGROUP;
}

static const struct sh_group *group_at(const struct sh_report *r, size_t i)
{
	return i < r->ngroups ? &r->groups[i] : &r->rest;
}

int prom_view_update(struct prom_view *v, const struct sh_report *iv,
		     const struct sh_report *since)
{
	size_t n, i;

	v->updates++;
	/* which names still have a kernel key behind them */
	n = since->ngroups + (since->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(since, i);
		struct prom_series *s;

		if (!folds_into_other(g) && g->live && (s = find(v, g->name)))
			s->seen = v->updates;
	}
	/* the waits of names exported already, even if their key was just pruned */
	n = iv->ngroups + (iv->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(iv, i);
		struct prom_series *s;

		if (!folds_into_other(g) && (s = find(v, g->name)) && s->exported) {
			totals_add(&s->t, &g->t);
			s->seen = v->updates;
		}
	}
	/* names whose every kernel key was pruned give their room back */
	if (prunable(v->key_type)) {
		for (i = 0; i < v->nslots; i++) {
			struct prom_series *s = v->table[i], *next;

			for (; s; s = next) {
				next = s->next;
				if (s->exported && s->seen != v->updates)
					withdraw(v, s);
			}
		}
		/* remember the last @limit withdrawn names (after the walk: forget() unlinks) */
		while (v->nwithdrawn > v->limit)
			forget(v, v->oldest);
	}
	/* the other waits: to new (or returning) names in ranking order, or to [other] */
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(iv, i);
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
			s->seen = v->updates;
		} else {
			totals_add(&v->other, &g->t);
		}
	}
	memcpy(v->stats, since->stats, sizeof(v->stats));
	v->live_keys = since->live_keys;
	return 0;
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
	for (i = 0; i < v->nslots; i++)
		for (s = v->table[i]; s; s = s->next)
			if (s->exported)
				sorted[(*n)++] = s;
	qsort(sorted, *n, sizeof(*sorted), cmp_series);
	return sorted;
}
