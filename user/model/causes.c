// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --causes: the cause map's entries, diffed per reading (causes.h). */
#include <stdlib.h>
#include <string.h>

#include "model/causes.h"
#include "lib/hash.h"

int causes_init(struct cause_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 256;
	t->table = calloc(t->nbuckets, sizeof(*t->table));
	return t->table ? 0 : -1;
}

void causes_free(struct cause_table *t)
{
	struct cause_entry *e, *next;
	size_t i;

	for (i = 0; t->table && i < t->nbuckets; i++)
		for (e = t->table[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	free(t->table);
	memset(t, 0, sizeof(*t));
}

static size_t bucket_of(const struct cause_table *t, const struct sh_key *k)
{
	return hash_words((const __u64 *)k, sizeof(*k) / 8) & (t->nbuckets - 1);
}

static struct cause_entry *find(const struct cause_table *t, const struct sh_key *k)
{
	struct cause_entry *e;

	for (e = t->table[bucket_of(t, k)]; e; e = e->next)
		if (!memcmp(&e->key, k, sizeof(*k)))
			return e;
	return NULL;
}

/* Double the table once it holds twice as many entries as buckets. */
static int grow(struct cause_table *t)
{
	struct cause_entry **old = t->table, *e, *next;
	size_t i, n = t->nbuckets;

	t->table = calloc(2 * n, sizeof(*t->table));
	if (!t->table) {
		t->table = old;
		return -1;
	}
	t->nbuckets = 2 * n;
	for (i = 0; i < n; i++)
		for (e = old[i]; e; e = next) {
			size_t s = bucket_of(t, &e->key);

			next = e->next;
			e->next = t->table[s];
			t->table[s] = e;
		}
	free(old);
	return 0;
}

void causes_begin(struct cause_table *t, bool fresh)
{
	t->gen += fresh;
}

int causes_ingest(struct cause_table *t, const struct sh_key *key, const struct sh_causes *val)
{
	struct cause_entry *e = find(t, key);
	struct cause_sums sum = { .count = val->count };
	int i;

	for (i = 0; i < SH_CAUSE_NR; i++)
		sum.ns[i] = val->ns[i];
	if (!e) {
		size_t s;

		if (t->n >= 2 * t->nbuckets && grow(t))
			return -1;
		e = calloc(1, sizeof(*e));
		if (!e)
			return -1;
		e->key = *key;
		s = bucket_of(t, key);
		e->next = t->table[s];
		t->table[s] = e;
		t->n++;
	}
	/* the interval's first reading of the key starts its deltas */
	if (e->gen != t->gen) {
		memset(&e->d, 0, sizeof(e->d));
		e->gen = t->gen;
	}
	/* 64-bit cumulative counters: a difference, never a wrap */
	for (i = 0; i < SH_CAUSE_NR; i++) {
		e->d.ns[i] += sum.ns[i] - e->raw.ns[i];
		e->c.ns[i] += sum.ns[i] - e->raw.ns[i];
	}
	e->d.count += sum.count - e->raw.count;
	e->c.count += sum.count - e->raw.count;
	e->raw = sum;
	return 0;
}

void causes_forget(struct cause_table *t, const struct sh_key *key)
{
	struct cause_entry **p, *e;

	for (p = &t->table[bucket_of(t, key)]; (e = *p); p = &e->next)
		if (!memcmp(&e->key, key, sizeof(*key))) {
			*p = e->next;
			free(e);
			t->n--;
			return;
		}
}

static const struct cause_sums none;

static const struct cause_sums *span_of(const struct cause_table *t,
					const struct cause_entry *e, bool since_start)
{
	if (since_start)
		return &e->c;
	return e->gen == t->gen ? &e->d : &none;
}

const struct cause_sums *causes_of(const struct cause_table *t, const struct sh_key *k,
				   bool since_start)
{
	const struct cause_entry *e = find(t, k);

	return e ? span_of(t, e, since_start) : &none;
}

void causes_add(const struct cause_sums *x, int sign, struct cause_sums *to)
{
	int i;

	for (i = 0; i < SH_CAUSE_NR; i++)
		to->ns[i] += sign * x->ns[i];
	to->count += sign * x->count;
}

void causes_total(const struct cause_table *t, bool since_start, struct cause_sums *all)
{
	const struct cause_entry *e;
	size_t i;

	memset(all, 0, sizeof(*all));
	for (i = 0; i < t->nbuckets; i++)
		for (e = t->table[i]; e; e = e->next)
			causes_add(span_of(t, e, since_start), 1, all);
}
