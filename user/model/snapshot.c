// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Snapshot table: sums per-CPU values, diffs readings, keeps totals. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/snapshot.h"
#include "lib/hash.h"
#include "lib/hugemem.h"

#define INITIAL_BUCKETS 1024
/*
 * An entry on cache lines of its own (the first holds what every pass
 * reads), its buckets after it: sized by the grid in use, and without
 * the buckets since start when no report reads them.
 */
static size_t entry_bytes(const struct snapshot *s)
{
	size_t b = sizeof(struct snap_entry) + (size_t)sh_nb * ((s->cum_buckets ? 16 : 8) + 4);

	return (b + 63) / 64 * 64;
}

_Static_assert(sizeof(struct sh_key) % sizeof(__u64) == 0, "sh_key is whole 64-bit words");

static size_t key_hash(const struct sh_key *k)
{
	__u64 w[sizeof(*k) / sizeof(__u64)];

	memcpy(w, k, sizeof(w));
	return hash_words(w, sizeof(w) / sizeof(w[0]));
}

int snapshot_init(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->cum_buckets = true;
	totals_init(&s->exited_cum, s->exited_cum_buckets);
	/* a new entry's interval (0) is never the snapshot's: its delta starts empty */
	s->interval = 1;
	s->nbuckets = INITIAL_BUCKETS;
	s->table = calloc(s->nbuckets, sizeof(*s->table));
	s->touched_cap = INITIAL_BUCKETS;
	s->touched = calloc(s->touched_cap, sizeof(*s->touched));
	return s->table && s->touched ? 0 : -1;
}

/* [other] and [exited]: the snapshot's own keys, not a task's or a cgroup's, never pruned. */
static bool synthetic_key(const struct sh_key *k)
{
	return k->id == SH_OTHER_ID || k->id == SH_EXITED_ID;
}

/* @e pruned (its kernel key gone) or not, counted in nlive. */
static void set_pruned(struct snapshot *s, struct snap_entry *e, bool pruned)
{
	if (e->pruned == pruned)
		return;
	e->pruned = pruned;
	if (!synthetic_key(&e->key))
		s->nlive += pruned ? (size_t)-1 : 1;
}

void snapshot_free(struct snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nblocks; i++)
		huge_unmap(s->blocks[i], HUGE_MIN);
	free(s->blocks);
	free(s->table);
	free(s->touched);
	memset(s, 0, sizeof(*s));
}

/* Room for an entry: a freed one, else the next of the newest block. NULL when out of memory. */
static struct snap_entry *entry_alloc(struct snapshot *s)
{
	struct snap_entry *e = s->free_entries;
	void **blocks, *b;

	if (e) {
		s->free_entries = e->next;
		return e;
	}
	if (!s->entry_bytes)	/* the first entry: cum_buckets and the grid are set */
		s->entry_bytes = entry_bytes(s);
	if (s->bump == s->bump_end) {
		blocks = realloc(s->blocks, (s->nblocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		s->blocks = blocks;
		/* the first block on small pages: a host of a few hundred keys uses a part of it */
		if (!(b = huge_map(HUGE_MIN, s->nblocks > 0)))
			return NULL;
		s->blocks[s->nblocks++] = b;
		s->bump = b;
		s->bump_end = s->bump + HUGE_MIN / s->entry_bytes * s->entry_bytes;
	}
	e = (struct snap_entry *)s->bump;
	s->bump += s->entry_bytes;
	return e;
}

static void entry_free(struct snapshot *s, struct snap_entry *e)
{
	e->next = s->free_entries;
	s->free_entries = e;
}

struct snap_entry *snapshot_find(struct snapshot *s, const struct sh_key *key)
{
	struct snap_entry *e = s->table[key_hash(key) & (s->nbuckets - 1)];

	for (; e; e = e->next)
		if (!memcmp(&e->key, key, sizeof(*key)))
			return e;
	return NULL;
}

static void grow(struct snapshot *s)
{
	size_t n = s->nbuckets * 2, i;
	struct snap_entry **t = calloc(n, sizeof(*t));

	if (!t)
		return;	/* keep the longer chains; still correct */
	for (i = 0; i < s->nbuckets; i++) {
		struct snap_entry *e = s->table[i], *next;

		for (; e; e = next) {
			size_t h = key_hash(&e->key) & (n - 1);

			next = e->next;
			e->next = t[h];
			t[h] = e;
		}
	}
	free(s->table);
	s->table = t;
	s->nbuckets = n;
}

void snapshot_begin_read(struct snapshot *s, __u32 epoch)
{
	s->gen++;
	s->epoch = epoch;
	memset(&s->gone, 0, sizeof(s->gone));
}

void snapshot_begin(struct snapshot *s, __u32 epoch)
{
	/*
	 * Every entry's delta is stale from now on: each is emptied when
	 * next read (a pass over every entry here only to clear it cost as
	 * much as the reading at thousands of keys: cold cache lines)
	 */
	s->interval++;
	s->ntouched = 0;
	memset(s->stats_delta, 0, sizeof(s->stats_delta));
	snapshot_begin_read(s, epoch);
}

const struct totals *snapshot_delta(const struct snapshot *s, const struct snap_entry *e)
{
	static const struct totals zero = { .buckets = (__u64 *)sh_zero_buckets };

	return e->interval == s->interval ? &e->delta : &zero;
}

/* The kernel folded @e's incarnation we last read: its raw counts are in [exited]'s. */
static void fold_gone(struct snapshot *s, struct snap_entry *e)
{
	int i;

	for (i = 0; i < sh_nb; i++) {
		s->gone.buckets[i] += e->raw_buckets[i];
		e->raw_buckets[i] = 0;
	}
	s->gone.count += e->raw_count;
	s->gone.sum_ns += e->raw_sum_ns;
	e->raw_count = 0;
	e->raw_sum_ns = 0;
}

static struct snap_entry *entry_get(struct snapshot *s, const struct sh_key *key)
{
	struct snap_entry *e = snapshot_find(s, key);
	size_t h;

	if (e)
		return e;
	if (s->nentries >= s->nbuckets)
		grow(s);
	if (s->nentries >= s->touched_cap) {
		/* room to list every entry, this one too: listing one never fails */
		size_t cap = 2 * s->touched_cap;
		struct snap_entry **t = realloc(s->touched, cap * sizeof(*t));

		if (!t)
			return NULL;
		s->touched = t;
		s->touched_cap = cap;
	}
	if (!(e = entry_alloc(s)))
		return NULL;
	memset(e, 0, sizeof(*e));
	/* the raw counts first: every reading of a changed key reads them, then the delta's */
	e->raw_buckets = (__u32 *)e->bucket_store;
	memset(e->raw_buckets, 0, (size_t)sh_nb * sizeof(*e->raw_buckets));
	totals_init(&e->delta, e->bucket_store + (sh_nb + 1) / 2);
	if (s->cum_buckets) {
		totals_init(&e->cum, e->delta.buckets + sh_nb);
	} else {
		/* never written: only the reports since start read them (zero) */
		e->cum.buckets = (__u64 *)sh_zero_buckets;
	}
	e->key = *key;
	h = key_hash(key) & (s->nbuckets - 1);
	e->next = s->table[h];
	s->table[h] = e;
	s->nentries++;
	if (!synthetic_key(key))
		s->nlive++;
	return e;
}

struct snap_entry *snapshot_ingest_key(struct snapshot *s, const struct sh_key *key,
				     const void *vals, int ncpu, size_t stride, __u32 birth,
				     bool final)
{
	struct snap_entry *e = entry_get(s, key);

	return e ? snapshot_ingest_entry(s, e, vals, ncpu, stride, birth, final) : NULL;
}

struct snap_entry *snapshot_entry(struct snapshot *s, const struct sh_key *key)
{
	return entry_get(s, key);
}

/*
 * Nothing new since the last reading: no CPU's count moved (a wait adds
 * to its count and its bucket together, so equal counts are equal
 * buckets), same incarnation, not pruned. Most keys of a big host are
 * idle in a given interval; for those the reading stops here.
 */
static bool unchanged(const struct snap_entry *e, const void *vals, int ncpu, size_t stride,
		      __u32 birth, bool final)
{
	__u32 count = 0;
	int c;

	if (final || e->pruned || e->birth != birth || e->key.id == SH_EXITED_ID)
		return false;
	for (c = 0; c < ncpu; c++)
		count += ((const struct sh_hist *)((const char *)vals + c * stride))->count;
	return count == e->raw_count;
}

/* An entry read with new counts: from zero if it was removed and made again, or refolded. */
static inline void renew(struct snapshot *s, struct snap_entry *e, __u32 birth, bool final,
			 int nb)
{
	if (e->pruned && !final) {
		/* removed, and made again since (a reused id): counts from zero */
		memset(e->raw_buckets, 0, (size_t)nb * sizeof(*e->raw_buckets));
		e->raw_count = 0;
		e->raw_sum_ns = 0;
		set_pruned(s, e, false);
		if (e->kept) {
			e->kept = false;
			s->nkept--;
		}
	} else if (e->birth != birth) {
		/* folded into [exited] and made anew between two readings */
		fold_gone(s, e);
	}
	e->birth = birth;
}

/*
 * The CPUs' @ncpu values (@stride bytes apart) summed: buckets, count and
 * sum; the epoch's max and min into @d; the latest name into @e.
 */
static __attribute__((always_inline)) inline void
sum_cpus(const struct snapshot *s, struct snap_entry *e, const void *vals, int ncpu,
	 size_t stride, const int nb, __u32 *buckets, __u32 *count, __u64 *sum, struct totals *d)
{
	bool seen_comm = false;
	int c, i;

	memcpy(buckets, ((const struct sh_hist *)vals)->buckets, (size_t)nb * sizeof(*buckets));
	for (c = 0; c < ncpu; c++) {
		const struct sh_hist *v = (const void *)((const char *)vals + c * stride);
		const struct sh_max *m = &v->max[s->epoch & 1];

		/*
		 * (CPU 0's are copied above) 40 << schema buckets, then the
		 * last: a multiple of the vector width, so -O2 vectorizes it
		 */
		if (c) {
			for (i = 0; i < nb - 1; i++)
				buckets[i] += v->buckets[i];
			buckets[nb - 1] += v->buckets[nb - 1];
		}
		*count += v->count;
		*sum += v->sum_ns;
		if (m->epoch == s->epoch && v->count) {
			totals_merge_max(d, m->ns, m->tid, m->pid, m->cpu, m->comm);
			totals_merge_min(d, m->min_ns);
		}
		/* the latest name: CPU 0's copy has it (tid keys), else any */
		if (v->comm[0] && (!c || !seen_comm))
			memcpy(e->comm, v->comm, SH_COMM_LEN);
		seen_comm |= v->comm[0] != 0;
	}
	e->comm[SH_COMM_LEN - 1] = '\0';
}

/*
 * snapshot_ingest_entry() for histograms of @nb buckets: inlined with
 * the default schema's constant, its loops are unrolled and vectorized
 * as they are for a fixed length (the other schemas take nb)
 */
static __attribute__((always_inline)) inline struct snap_entry *
ingest_nb(struct snapshot *s, struct snap_entry *e, const void *vals, int ncpu, size_t stride,
	  __u32 birth, bool final, const int nb)
{
	__u32 buckets[SH_NBUCKETS_MAX], dv[SH_NBUCKETS_MAX], count = 0;
	__u64 sum = 0;
	struct totals d;	/* all but the buckets (added in place): cleared below */
	bool exited = e->key.id == SH_EXITED_ID && !e->key.comm[0];
	int i;

	if (unchanged(e, vals, ncpu, stride, birth, final)) {
		e->gen = s->gen;
		return e;
	}
	renew(s, e, birth, final, nb);

	/* (a memset of all 400 bytes, or of the buckets, was a slow "rep stos" per key) */
	memset(&d, 0, offsetof(struct totals, buckets));
	sum_cpus(s, e, vals, ncpu, stride, nb, buckets, &count, &sum, &d);

	/*
	 * Differences modulo 2^32, less (for [exited]) what folded keys had
	 * already counted: exact across counter wrap-around as long as the
	 * true difference stays below 2^32 (see SH_READ_PERIOD_S).
	 */
	for (i = 0; i < nb; i++)
		dv[i] = buckets[i] - e->raw_buckets[i] - (exited ? s->gone.buckets[i] : 0);
	memcpy(e->raw_buckets, buckets, (size_t)nb * sizeof(*e->raw_buckets));
	/*
	 * The differences into the interval's buckets (set by the interval's
	 * first reading of the entry, added by the others) and, when reports
	 * since start are made, the total's
	 */
	if (e->interval != s->interval) {
		memset(&e->delta, 0, offsetof(struct totals, buckets));
		e->interval = s->interval;
		s->touched[s->ntouched++] = e;
		for (i = 0; i < nb; i++)
			e->delta.buckets[i] = dv[i];
	} else {
		for (i = 0; i < nb; i++)
			e->delta.buckets[i] += dv[i];
	}
	if (s->cum_buckets)
		for (i = 0; i < nb; i++)
			e->cum.buckets[i] += dv[i];
	d.count = (__u32)(count - e->raw_count - (exited ? s->gone.count : 0));
	d.sum_ns = sum - e->raw_sum_ns - (exited ? s->gone.sum_ns : 0);
	e->raw_count = count;
	e->raw_sum_ns = sum;
	if (exited)
		memset(&s->gone, 0, sizeof(s->gone));
	if (!d.count) {
		d.max_ns = 0;
		d.has_min = false;
	}
	d.max_epoch = s->epoch;

	totals_add_meta(&e->delta, &d);
	totals_add_meta(&e->cum, &d);
	e->gen = s->gen;
	if (final && !e->pruned) {
		set_pruned(s, e, true);
		s->newly_pruned++;
	}
	return e;
}

struct snap_entry *snapshot_ingest_entry(struct snapshot *s, struct snap_entry *e,
				       const void *vals, int ncpu, size_t stride, __u32 birth,
				       bool final)
{
	return sh_nb == SH_NBUCKETS(0) ? ingest_nb(s, e, vals, ncpu, stride, birth, final, SH_NBUCKETS(0))
				       : ingest_nb(s, e, vals, ncpu, stride, birth, final, sh_nb);
}

struct snap_entry *snapshot_ingest(struct snapshot *s, const struct sh_key *key,
				 const void *vals, int ncpu, size_t stride, bool final)
{
	return snapshot_ingest_key(s, key, vals, ncpu, stride, 0, final);
}

void snapshot_vanished(struct snapshot *s)
{
	struct snap_entry *e;
	size_t it = 0;

	for (e = NULL; (e = snapshot_next(s, &it, e));) {
		if (e->gen == s->gen || e->pruned || e->key.id == SH_OTHER_ID ||
		    e->key.id == SH_EXITED_ID)
			continue;
		fold_gone(s, e);
		set_pruned(s, e, true);
		s->newly_pruned++;
	}
}

void snapshot_stats(struct snapshot *s, const __u64 *stats)
{
	__u64 d;
	int i;

	for (i = 0; i < SH_STAT_NR; i++) {
		d = stats[i] - s->stats_raw[i];
		s->stats_delta[i] += d;
		s->stats_cum[i] += d;
		s->stats_raw[i] = stats[i];
		/* no key can have moved by 2^32 when all events together did not */
		if (i == SH_STAT_SEEN && d >= (1ULL << 32))
			s->wraps++;
	}
}

struct snap_entry *snapshot_next(struct snapshot *s, size_t *it, struct snap_entry *e)
{
	if (e && e->next)
		return e->next;
	if (e)
		(*it)++;
	for (; *it < s->nbuckets; (*it)++) {
		/*
		 * an entry some buckets ahead on its way into the cache
		 * meanwhile, its first two lines (what a pass reads: the
		 * header, the interval's totals): a walk of thousands of
		 * entries is otherwise a cache miss after another
		 */
		if (*it + 8 < s->nbuckets && s->table[*it + 8]) {
			__builtin_prefetch(s->table[*it + 8]);
			__builtin_prefetch((char *)s->table[*it + 8] + 64);
		}
		if (s->table[*it])
			return s->table[*it];
	}
	return NULL;
}

void snapshot_gc(struct snapshot *s)
{
	struct snap_entry *doomed = NULL, *e;
	bool listed = false;
	size_t i, j;

	/* only entries pruned since the last call are new to keep or free: no pass for none */
	if (!s->newly_pruned)
		return;
	s->newly_pruned = 0;
	for (i = 0; i < s->nbuckets; i++) {
		struct snap_entry **pp = &s->table[i];

		while ((e = *pp)) {
			if (e->pruned && !e->kept && s->keep_pruned && s->nkept < s->keep_limit) {
				e->kept = true;
				s->nkept++;
			}
			if (!e->pruned || e->kept) {
				pp = &e->next;
				continue;
			}
			totals_add(&s->exited_cum, &e->cum);
			s->exited_keys++;
			*pp = e->next;
			/* freed below, once the list of this interval's entries is rid of it */
			listed |= e->interval == s->interval;
			e->next = doomed;
			doomed = e;
			s->nentries--;
		}
	}
	if (listed) {
		/* what stays in the table now is not pruned, or kept */
		for (i = 0, j = 0; i < s->ntouched; i++)
			if (!s->touched[i]->pruned || s->touched[i]->kept)
				s->touched[j++] = s->touched[i];
		s->ntouched = j;
	}
	while ((e = doomed)) {
		doomed = e->next;
		entry_free(s, e);
	}
}

__u64 snapshot_recorded(struct snapshot *s)
{
	struct snap_entry *e;
	size_t it = 0;
	__u64 n = s->exited_cum.count;

	for (e = NULL; (e = snapshot_next(s, &it, e));)
		n += e->cum.count;
	return n;
}
