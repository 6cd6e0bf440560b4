// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --culprits: the culprit map's pairs, diffed, ranked per group of a report. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/culprits.h"
#include "model/report.h"
#include "model/cgroup.h"
#include "lib/hash.h"

#define INITIAL_BUCKETS 1024

static size_t pair_hash(const struct sh_culprit_key *k)
{
	return hash_bytes(k, sizeof(*k));
}

int culprits_init(struct culprits *c, bool cumulative)
{
	memset(c, 0, sizeof(*c));
	c->cumulative = cumulative;
	c->nbuckets = INITIAL_BUCKETS;
	c->table = calloc(c->nbuckets, sizeof(*c->table));
	c->keys = calloc(SH_CULPRIT_BATCH, sizeof(*c->keys));
	c->vals = calloc(SH_CULPRIT_BATCH, sizeof(*c->vals));
	return c->table && c->keys && c->vals ? 0 : -1;
}

static void free_lists(struct culprits *c)
{
	size_t i, j;

	for (i = 0; i < c->nlists; i++)
		for (j = 0; j < c->lists[i].n; j++)
			free(c->lists[i].c[j].name);
	c->nlists = 0;
}

void culprits_free(struct culprits *c)
{
	size_t i;

	for (i = 0; c->table && i < c->nbuckets; i++) {
		struct cpair *p = c->table[i], *n;

		for (; p; p = n) {
			n = p->next;
			free(p);
		}
	}
	free_lists(c);
	free(c->lists);
	free(c->table);
	free(c->keys);
	free(c->vals);
	free(c->sorted);
	memset(c, 0, sizeof(*c));
}

static void grow(struct culprits *c)
{
	size_t n = c->nbuckets * 2, i;
	struct cpair **t = calloc(n, sizeof(*t));

	if (!t)
		return;	/* longer chains: still correct */
	for (i = 0; i < c->nbuckets; i++) {
		struct cpair *p = c->table[i], *next;

		for (; p; p = next) {
			size_t h = pair_hash(&p->key) & (n - 1);

			next = p->next;
			p->next = t[h];
			t[h] = p;
		}
	}
	free(c->table);
	c->table = t;
	c->nbuckets = n;
}

static struct cpair *pair_get(struct culprits *c, const struct sh_culprit_key *key)
{
	size_t h = pair_hash(key) & (c->nbuckets - 1);
	struct cpair *p;

	for (p = c->table[h]; p; p = p->next)
		if (!memcmp(&p->key, key, sizeof(*key)))
			return p;
	if (c->npairs >= c->nbuckets) {
		grow(c);
		h = pair_hash(key) & (c->nbuckets - 1);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->key = *key;
	p->next = c->table[h];
	c->table[h] = p;
	c->npairs++;
	return p;
}

int culprits_ingest(struct culprits *c, const struct sh_culprit_key *key,
		    const struct sh_culprit_val *val, bool final)
{
	struct cpair *p = pair_get(c, key);
	__u64 n = val->count, s = val->sum_ns;

	if (!p)
		return -ENOMEM;
	if (p->gone) {
		/* made again by the kernel since we removed it: from zero */
		p->raw_count = p->raw_sum = 0;
		p->gone = false;
	}
	if (val->comm[0])
		memcpy(p->comm, val->comm, SH_COMM_LEN);
	p->comm[SH_COMM_LEN - 1] = '\0';
	/* 64-bit cumulative values: a plain difference */
	p->d_count += n - p->raw_count;
	p->d_sum += s - p->raw_sum;
	p->c_count += n - p->raw_count;
	p->c_sum += s - p->raw_sum;
	p->raw_count = n;
	p->raw_sum = s;
	p->gen = c->gen;
	if (final)
		p->gone = true;
	return 0;
}

void culprits_begin(struct culprits *c)
{
	c->gen++;
}

int culprits_add(struct culprits *c, const struct sh_culprit_key *key,
		 const struct sh_culprit_val *val, bool cached)
{
	struct cpair *p = pair_get(c, key);

	if (!p)
		return -ENOMEM;
	if (p->acc_gen != c->gen) {
		p->acc_gen = c->gen;
		p->acc_count = p->acc_sum = 0;
		p->acc_cached = false;
	}
	p->acc_count += val->count;
	p->acc_sum += val->sum_ns;
	if (val->comm[0])
		memcpy(p->comm, val->comm, SH_COMM_LEN);
	p->comm[SH_COMM_LEN - 1] = '\0';
	p->acc_cached |= cached;
	return 0;
}

void culprits_end(struct culprits *c)
{
	struct cpair *p;
	size_t i;

	for (i = 0; i < c->nbuckets; i++)
		for (p = c->table[i]; p; p = p->next) {
			if (p->acc_gen != c->gen) {
				p->cached = false;
				continue;
			}
			if (p->gone) {
				p->raw_count = p->raw_sum = 0;
				p->gone = false;
			}
			p->d_count += p->acc_count - p->raw_count;
			p->d_sum += p->acc_sum - p->raw_sum;
			p->c_count += p->acc_count - p->raw_count;
			p->c_sum += p->acc_sum - p->raw_sum;
			p->raw_count = p->acc_count;
			p->raw_sum = p->acc_sum;
			p->gen = c->gen;
			p->cached = p->acc_cached;
		}
}

/* qsort: pairs by waiter key, then larger sum first, then culprit key */
static bool sort_cum;

static int cmp_pair(const void *a, const void *b)
{
	const struct cpair *x = *(struct cpair *const *)a, *y = *(struct cpair *const *)b;
	__u64 sx = sort_cum ? x->c_sum : x->d_sum, sy = sort_cum ? y->c_sum : y->d_sum;
	int r = memcmp(&x->key.waiter, &y->key.waiter, sizeof(x->key.waiter));

	if (r)
		return r;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return memcmp(&x->key.culprit, &y->key.culprit, sizeof(x->key.culprit));
}

/* --culprit-mode time: the part of the waits the run rings did not hold. */
static bool is_unattributed(const struct sh_key *k)
{
	return k->id == SH_UNATTRIBUTED_ID && !k->comm[0];
}

/* The display name of culprit @k (as report.c names keys of @key_type) into @buf. */
static void culprit_name_into(const struct sh_key *k, int key_type, struct cgroups *cg,
			      __u64 gen, char *buf, size_t len)
{
	const char *path;

	if (k->id == SH_IDLE_ID && !k->comm[0]) {
		snprintf(buf, len, "[idle]");
	} else if (is_unattributed(k)) {
		snprintf(buf, len, "[unattributed]");
	} else if (key_type == SH_KEY_COMM) {
		snprintf(buf, len, "%.*s", SH_COMM_LEN - 1, k->comm);
	} else if (key_type == SH_KEY_CGROUP) {
		path = cg ? cg_path(cg, k->id, gen) : NULL;
		if (path)
			snprintf(buf, len, "%s", path);
		else
			snprintf(buf, len, "[%s id=%" PRIu64 "]",
				 cg && cg->partial ? "unresolved" : "removed", (uint64_t)k->id);
	} else {
		snprintf(buf, len, "%" PRIu64, (uint64_t)k->id);
	}
}

static char *culprit_name(const struct sh_key *k, int key_type, struct cgroups *cg, __u64 gen)
{
	char buf[PATH_MAX];

	culprit_name_into(k, key_type, cg, gen, buf, sizeof(buf));
	return strdup(buf);
}

static size_t first_of(struct culprits *c, size_t n, const struct sh_key *w)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(&c->sorted[mid]->key.waiter, w, sizeof(*w)) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* @c->sorted: the pairs with waits in the span (@cum: since start), by waiter. -1 or how many. */
static ssize_t sort_pairs(struct culprits *c, bool cum)
{
	struct cpair *p;
	size_t n = 0, it;

	if (c->npairs > c->sorted_cap) {
		struct cpair **s = realloc(c->sorted, c->npairs * sizeof(*s));

		if (!s)
			return -1;
		c->sorted = s;
		c->sorted_cap = c->npairs;
	}
	for (it = 0; it < c->nbuckets; it++)
		for (p = c->table[it]; p; p = p->next)
			if (cum ? p->c_count : p->d_count)
				c->sorted[n++] = p;
	sort_cum = cum;
	if (n)
		qsort(c->sorted, n, sizeof(*c->sorted), cmp_pair);
	return (ssize_t)n;
}

static void culprit_of(const struct culprits *c, const struct cpair *p, struct culprit *e)
{
	e->count = c->cumulative ? p->c_count : p->d_count;
	e->sum_ns = c->cumulative ? p->c_sum : p->d_sum;
}

static int list_add(struct culprit_list *l, const char *name, __u64 count, __u64 sum_ns)
{
	struct culprit *e = &l->c[l->n];

	e->count = count;
	e->sum_ns = sum_ns;
	if (!(e->name = strdup(name)))
		return -1;
	l->n++;
	return 0;
}

/*
 * --culprit-mode time: after the top, [unattributed] (@un, or found from @j), then [rest]: time
 * the others do not hold and the runs beyond the top (@sum: the top's). 0 or -1.
 */
static int list_tail_time(struct culprits *c, struct culprit_list *l,
			  const struct report_group *g, size_t j, size_t n,
			  const struct cpair *un, __u64 sum)
{
	__u64 runs = 0;
	struct culprit e;

	for (; j < n && !memcmp(&c->sorted[j]->key.waiter, &g->key, sizeof(g->key)); j++) {
		const struct cpair *p = c->sorted[j];

		if (is_unattributed(&p->key.culprit))
			un = p;
		else
			runs += c->cumulative ? p->c_count : p->d_count;
	}
	if (un) {
		culprit_of(c, un, &e);
		if (list_add(l, "[unattributed]", e.count, e.sum_ns))
			return -1;
		sum += e.sum_ns;
	}
	if (g->t.sum_ns > sum) {
		if (list_add(l, "[rest]", runs, g->t.sum_ns - sum))
			return -1;
		l->rest = true;
	}
	return 0;
}

/*
 * @g's list @l: its top SH_CULPRIT_TOP of the @n sorted pairs, then [rest] (the others, and
 * culprit_lost; clamped at zero: pairs are read after keys). 0 or -1.
 */
static int group_list(struct culprits *c, const struct report *r, const struct report_group *g,
		      size_t n, struct cgroups *cg, __u64 gen, struct culprit_list *l)
{
	bool named = r->key_type == SH_KEY_PID || r->key_type == SH_KEY_TID;
	const struct cpair *un = NULL;
	__u64 cnt = 0, sum = 0;
	size_t j, k;

	memset(l, 0, sizeof(*l));
	l->mode = c->mode;
	j = first_of(c, n, &g->key);
	for (k = 0; j < n && k < SH_CULPRIT_TOP &&
		    !memcmp(&c->sorted[j]->key.waiter, &g->key, sizeof(g->key)); j++, k++) {
		const struct cpair *p = c->sorted[j];
		struct culprit *e = &l->c[l->n];

		/* by time, [unattributed] comes after the top, never in it nor in [rest] */
		if (c->mode == SH_CULPRIT_TIME && is_unattributed(&p->key.culprit)) {
			un = p;
			k--;
			continue;
		}
		culprit_of(c, p, e);
		if (!(e->name = culprit_name(&p->key.culprit, r->key_type, cg, gen)))
			return -1;
		l->n++;
		if (named && p->key.culprit.id != SH_IDLE_ID &&
		    p->key.culprit.id != SH_UNATTRIBUTED_ID) {
			memcpy(e->commbuf, p->comm, SH_COMM_LEN);
			e->comm = e->commbuf;
		}
		cnt += e->count;
		sum += e->sum_ns;
	}
	if (c->mode == SH_CULPRIT_TIME)
		return list_tail_time(c, l, g, j, n, un, sum);
	if (g->t.count > cnt) {
		if (list_add(l, "[rest]", g->t.count - cnt, g->t.sum_ns > sum ? g->t.sum_ns - sum : 0))
			return -1;
		l->rest = true;
	}
	return 0;
}

int culprits_attach(struct culprits *c, struct report *r, struct cgroups *cg, __u64 gen)
{
	size_t n, i;
	ssize_t sn;

	free_lists(c);
	sn = sort_pairs(c, c->cumulative);
	if (sn < 0)
		return -1;
	n = (size_t)sn;
	if (r->ngroups > c->lists_cap) {
		struct culprit_list *l = realloc(c->lists, r->ngroups * sizeof(*l));

		if (!l)
			return -1;
		c->lists = l;
		c->lists_cap = r->ngroups;
	}
	for (i = 0; i < r->ngroups; i++) {
		struct report_group *g = &r->groups[i];
		struct culprit_list *l = &c->lists[c->nlists];

		g->culprits = NULL;
		if (g->synthetic)
			continue;
		/* counted before a failure: free_lists() frees the names made so far */
		c->nlists++;
		if (group_list(c, r, g, n, cg, gen, l))
			return -1;
		if (l->n)
			g->culprits = l;
		else
			c->nlists--;
	}
	return 0;
}

static int set_reserve(struct culprit_set *set, size_t n, size_t len)
{
	if (set->n + n > set->cap) {
		size_t cap = set->cap ? set->cap : 64;
		struct culprit *c;

		while (cap < set->n + n)
			cap *= 2;
		if (!(c = realloc(set->c, cap * sizeof(*c))))
			return -1;
		set->c = c;
		set->cap = cap;
	}
	if (set->names_len + len > set->names_cap) {
		size_t cap = set->names_cap ? set->names_cap : 4096;
		char *p;

		while (cap < set->names_len + len)
			cap *= 2;
		if (!(p = realloc(set->names, cap)))
			return -1;
		set->names = p;
		set->names_cap = cap;
	}
	return 0;
}

int culprits_every(struct culprits *c, const struct report *r, struct cgroups *cg,
		   __u64 gen, struct culprit_set *set)
{
	ssize_t sn = sort_pairs(c, false);
	char name[PATH_MAX];
	size_t n, i, j, k;

	if (sn < 0)
		return -1;
	n = (size_t)sn;
	set->n = set->names_len = 0;
	if (r->ngroups > set->groups_cap) {
		size_t *f = realloc(set->first, (r->ngroups + 1) * sizeof(*f));

		if (!f)
			return -1;
		set->first = f;
		set->groups_cap = r->ngroups;
	}
	for (i = 0; i < r->ngroups; i++) {
		const struct report_group *g = &r->groups[i];

		set->first[i] = set->n;
		if (g->synthetic)
			continue;
		for (j = first_of(c, n, &g->key);
		     j < n && !memcmp(&c->sorted[j]->key.waiter, &g->key, sizeof(g->key)); j++) {
			const struct cpair *p = c->sorted[j];

			culprit_name_into(&p->key.culprit, r->key_type, cg, gen, name, sizeof(name));
			k = strlen(name) + 1;
			if (set_reserve(set, 1, k))
				return -1;
			/* an offset until the names are all in: their block may move */
			set->c[set->n] = (struct culprit){ .name = (char *)(uintptr_t)set->names_len,
							   .count = p->d_count, .sum_ns = p->d_sum };
			memcpy(set->names + set->names_len, name, k);
			set->names_len += k;
			set->n++;
		}
	}
	set->first[r->ngroups] = set->n;
	set->ngroups = r->ngroups;
	for (i = 0; i < set->n; i++)
		set->c[i].name = set->names + (uintptr_t)set->c[i].name;
	return 0;
}

const struct culprit *culprit_set_of(const struct culprit_set *set, size_t group, size_t *n)
{
	if (group >= set->ngroups) {
		*n = 0;
		return NULL;
	}
	*n = set->first[group + 1] - set->first[group];
	return set->c + set->first[group];
}

void culprit_set_free(struct culprit_set *set)
{
	free(set->c);
	free(set->names);
	free(set->first);
	memset(set, 0, sizeof(*set));
}

void culprits_sweep(struct culprits *c, culprit_remove_fn remove, void *ctx)
{
	size_t i;

	for (i = 0; i < c->nbuckets; i++) {
		struct cpair **pp = &c->table[i], *p;

		while ((p = *pp)) {
			bool idle = !p->d_count;

			p->d_count = p->d_sum = 0;
			/* Idle: removed; its final values (read as removed) count next time. */
			if (idle && !p->gone && !p->cached) {
				if (!remove)
					p->gone = true;
				else if (!remove(ctx, &p->key, c->vals))
					culprits_ingest(c, &p->key, c->vals, true);
			}
			if (p->gone && !c->cumulative && !p->d_count) {
				*pp = p->next;
				free(p);
				c->npairs--;
				continue;
			}
			pp = &p->next;
		}
	}
}
