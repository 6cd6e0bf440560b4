// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A reading's part in the key store (bpf/store.bpf.h): slots read in place, dead keys removed. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "schedhist.h"
#include "kernel/snapshot_read.h"

/* Solo re-reads of a slot whose flush overlapped the bulk reading (a flush is short, irqs off). */
#define SETTLE_TRIES 1000

/* The same epoch's longer max and shorter min, or the newer epoch (bpf/store.bpf.h max_merge()). */
static void max_merge(struct sh_max *d, const struct sh_max *s)
{
	__u64 mn;

	if (!s->epoch)
		return;
	if ((__s32)(s->epoch - d->epoch) > 0) {
		*d = *s;
	} else if (s->epoch == d->epoch) {
		mn = s->min_ns < d->min_ns ? s->min_ns : d->min_ns;
		if (s->ns > d->ns)
			*d = *s;
		d->min_ns = mn;
	}
}

/* A cache entry's @n histograms @src added to a slot's @dst (counts modulo 2^32, as the kernel's). */
static void hists_add(struct sh_hist *dst, const struct sh_hist *src, int n)
{
	int m, b;

	for (m = 0; m < n; m++, dst = (struct sh_hist *)((char *)dst + hist_bytes()),
	     src = (const struct sh_hist *)((const char *)src + hist_bytes())) {
		for (b = 0; b < sh_nb; b++)
			dst->buckets[b] += src->buckets[b];
		dst->count += src->count;
		dst->sum_ns += src->sum_ns;
		if (src->comm[0])
			memcpy(dst->comm, src->comm, sizeof(dst->comm));
		max_merge(&dst->max[0], &src->max[0]);
		max_merge(&dst->max[1], &src->max[1]);
	}
}

static struct sh_cent *cache_at(const struct snap_reader *r, const struct read_maps *m, __u32 j)
{
	return (struct sh_cent *)((char *)m->cache_mem + (size_t)j * (8 + r->vsize));
}

static __u32 load_idx(const struct sh_cent *e)
{
	return __atomic_load_n(&e->idx, __ATOMIC_ACQUIRE);
}

static __u64 load_seq(const struct read_maps *m, __u32 i)
{
	return __atomic_load_n(&m->slot_seq_mem[i].seq, __ATOMIC_ACQUIRE);
}

/*
 * Cache entry @e added to its slot's values if it holds @want (SH_CENT_EMPTY: any): read idx,
 * histograms, idx again, so an entry taken meanwhile is skipped.
 */
static void add_cache_entry(struct snap_reader *r, const struct read_maps *m, const struct sh_cent *e,
			    __u32 want, const bool *used)
{
	__u32 a = load_idx(e);

	if (a >= m->nr_slots || (want != SH_CENT_EMPTY && a != want) || (used && !used[a]))
		return;
	memcpy(r->cbuf, e->h, r->vsize);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (load_idx(e) != a)
		return;
	hists_add((struct sh_hist *)((char *)r->slot_val + (size_t)a * r->vsize), r->cbuf,
		  r->nmetrics);
}

/* Slot @i re-read on its own (seq, entry, each CPU's entry, seq) until no flush overlaps. */
static bool settle_slot(struct snap_reader *r, const struct read_maps *m, __u32 i)
{
	char *v = (char *)r->slot_val + (size_t)i * r->vsize;
	int t, c;

	for (t = 0; t < SETTLE_TRIES; t++) {
		__u64 s0 = load_seq(m, i);

		if (s0 & SH_SEQ_BUSY) {
			sched_yield();
			continue;
		}
		memcpy(v, (char *)m->slots_mem + (size_t)i * r->vsize, r->vsize);
		for (c = 0; c < r->ncpus; c++)
			add_cache_entry(r, m,
					cache_at(r, m, c * m->cache_entries + (i & (m->cache_entries - 1))),
					i, NULL);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (load_seq(m, i) == s0)
			return true;
	}
	return false;
}

/*
 * The slots read in place, seq before and after; a slot whose seq moved is settled alone.
 * docs/architecture.md (snapshot_read.c) has the protocol; a free slot's key was folded.
 */
int reader_read_slots(struct snapshot *snaps, int n, struct snap_reader *r,
		      const struct read_maps *m)
{
	__u32 i, j, at, nused = 0, ncache = (__u32)r->ncpus * m->cache_entries;
	bool *used;
	struct sh_key k;
	int err, x;

	if (!r->slot_seen) {
		r->slot_seen = calloc(m->nr_slots, sizeof(*r->slot_seen));
		r->slot_ent = calloc((size_t)m->nr_slots * n, sizeof(*r->slot_ent));
		r->slot_used = calloc(m->nr_slots, sizeof(*r->slot_used));
		r->slot_val = calloc(m->nr_slots, r->vsize);
		r->slot_prev = calloc(m->nr_slots, r->vsize);
		r->slot_seq0 = calloc(m->nr_slots, sizeof(*r->slot_seq0));
		r->cbuf = calloc(1, r->vsize + m->nr_slots);
		if (!r->slot_seen || !r->slot_ent || !r->slot_used || !r->slot_val ||
		    !r->slot_prev || !r->slot_seq0 || !r->cbuf)
			return -ENOMEM;
		for (i = 0; i < m->nr_slots; i++)
			r->slot_seen[i].id = SH_FREE_ID;
	}
	used = (bool *)((char *)r->cbuf + r->vsize);
	memset(used, 0, m->nr_slots);
	for (i = 0; i < m->nr_slots; i++) {
		memcpy(&k, (const void *)&m->slot_keys_mem[i], sizeof(k));
		if (k.id == SH_FREE_ID) {
			/* Freed by the kernel: its last key's entry is not this slot's now. */
			if (r->slot_seen[i].id != SH_FREE_ID) {
				r->slot_seen[i].id = SH_FREE_ID;
				memset(&r->slot_ent[(size_t)i * n], 0, n * sizeof(*r->slot_ent));
			}
			continue;
		}
		if (memcmp(&k, &r->slot_seen[i], sizeof(k))) {
			if (bpf_map_lookup_elem(m->keydir_fd, &k, &at) || at != i)
				continue;	/* being written, or torn: next reading */
			r->slot_seen[i] = k;
			memset((char *)r->slot_prev + (size_t)i * r->vsize, 0, r->vsize);
			for (x = 0; x < n; x++)
				if (!(r->slot_ent[(size_t)i * n + x] = snapshot_entry(&snaps[x], &k)))
					return -ENOMEM;
		}
		r->slot_used[nused++] = i;
		used[i] = true;
	}
	for (j = 0; j < nused; j++) {
		i = r->slot_used[j];
		r->slot_seq0[i] = load_seq(m, i);
		memcpy((char *)r->slot_val + (size_t)i * r->vsize,
		       (char *)m->slots_mem + (size_t)i * r->vsize, r->vsize);
	}
	for (j = 0; j < ncache; j++)
		add_cache_entry(r, m, cache_at(r, m, j), SH_CENT_EMPTY, used);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (j = 0; j < nused; j++) {
		char *v, *pv;

		if (j + 4 < nused) {
			__u32 a = r->slot_used[j + 4];
			size_t o;

			for (x = 0; x < n; x++)
				for (o = 0; o < snaps[x].entry_bytes; o += 64)	/* with its buckets */
					__builtin_prefetch((char *)r->slot_ent[(size_t)a * n + x] + o, 1);
		}
		i = r->slot_used[j];
		v = (char *)r->slot_val + (size_t)i * r->vsize;
		pv = (char *)r->slot_prev + (size_t)i * r->vsize;
		/* Unsettled: its last values stay (counts only grow: read next time, once). */
		if ((r->slot_seq0[i] & SH_SEQ_BUSY || load_seq(m, i) != r->slot_seq0[i]) &&
		    !settle_slot(r, m, i))
			memcpy(v, pv, r->vsize);
		memcpy(pv, v, r->vsize);
		err = reader_ingest_ents(snaps, n, r, &r->slot_seen[i], &r->slot_ent[(size_t)i * n], v, 1,
				  r->vsize, false, i);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Reclaim slot @i (no program run can hit it any more): its cache entries into the store,
 * as recycle_slot() does, then wait out flushes. False if one never ends.
 */
static bool claim_slot(struct snap_reader *r, const struct read_maps *m, __u32 i)
{
	struct sh_slot_seq *q = &m->slot_seq_mem[i];
	struct sh_hist *dst = (struct sh_hist *)((char *)m->slots_mem + (size_t)i * r->vsize);
	int c, t, x, b;

	__sync_fetch_and_add(&q->seq, SH_SEQ_OPEN);
	for (c = 0; c < r->ncpus; c++) {
		struct sh_cent *e = cache_at(r, m, c * m->cache_entries + (i & (m->cache_entries - 1)));
		struct sh_hist *src = (struct sh_hist *)e->h;

		if (!__sync_bool_compare_and_swap(&e->idx, i, SH_CENT_CLAIMED))
			continue;
		for (x = 0; x < r->nmetrics; x++) {
			struct sh_hist *d = (struct sh_hist *)((char *)dst + x * hist_bytes());
			const struct sh_hist *sx = (const struct sh_hist *)((char *)src + x * hist_bytes());

			for (b = 0; b < sh_nb; b++)
				__sync_fetch_and_add(&d->buckets[b], sx->buckets[b]);
			__sync_fetch_and_add(&d->count, sx->count);
			__sync_fetch_and_add(&d->sum_ns, sx->sum_ns);
			if (sx->comm[0])
				memcpy(d->comm, sx->comm, sizeof(d->comm));
		}
		/* the max lock: its holder is a flush in the kernel, which ends */
		while (!__sync_bool_compare_and_swap(&q->lock, 0, 1))
			sched_yield();
		for (x = 0; x < r->nmetrics; x++) {
			struct sh_hist *d = (struct sh_hist *)((char *)dst + x * hist_bytes());
			const struct sh_hist *sx = (const struct sh_hist *)((char *)src + x * hist_bytes());

			max_merge(&d->max[0], &sx->max[0]);
			max_merge(&d->max[1], &sx->max[1]);
		}
		__sync_lock_test_and_set(&q->lock, 0);
		memset(src, 0, r->vsize);
		__sync_lock_test_and_set(&e->idx, SH_CENT_EMPTY);
	}
	__sync_fetch_and_add(&q->seq, SH_SEQ_CLOSE);
	for (t = 0; t < SETTLE_TRIES * 10; t++) {
		if (!(load_seq(m, i) & SH_SEQ_BUSY))
			return true;
		sched_yield();
	}
	return false;
}

int reader_remove_dead(struct snapshot *snaps, int n, struct snap_reader *r,
		       const struct read_maps *m)
{
	struct sh_key free_key = { .id = SH_FREE_ID };
	__u32 ndir = 0, done;
	size_t i, j;
	int err;

	for (i = 0; i < r->ndead; i++) {
		struct keyloc *d = &r->dead[i];

		if (d->slot != SH_SLOT_HASH) {
			/* A program comparing its key with one half-overwritten finds no match. */
			memcpy((void *)&m->slot_keys_mem[d->slot], &free_key, sizeof(free_key));
			r->dead_dir[ndir++] = d->key;
			continue;
		}
		if (bpf_map_lookup_and_delete_elem(m->hists_fd, &d->key, r->vals))
			continue;	/* not there any more: nothing to remove */
		if (m->nr_slots)
			bpf_map_delete_elem(m->keydir_fd, &d->key);
		if (m->live_keys)
			__sync_fetch_and_sub(m->live_keys, 1);
		err = reader_ingest_key(snaps, n, r, &d->key, r->vals, r->ncpus, r->vsize, true,
				 SH_SLOT_HASH);
		if (err)
			return err;
		r->pruned++;
	}
	/* A batch stops at a key it cannot delete: the rest one by one (never: only we delete). */
	done = ndir;
	if (ndir && bpf_map_delete_batch(m->keydir_fd, r->dead_dir, &done, NULL) && done < ndir) {
		for (i = 0, j = 0; i < r->ndead; i++) {
			struct keyloc *d = &r->dead[i];

			if (d->slot == SH_SLOT_HASH)
				continue;
			if (j++ >= done && bpf_map_delete_elem(m->keydir_fd, &d->key))
				d->slot = SH_SLOT_HASH - 1;	/* not ours to free */
		}
	}
	if (ndir && m->grace_period)
		m->grace_period();
	for (i = 0; ndir && i < r->ndead; i++) {
		struct keyloc *d = &r->dead[i];
		char *v;

		if (d->slot >= m->nr_slots)
			continue;
		if (!claim_slot(r, m, d->slot))
			return -EBUSY;
		v = (char *)m->slots_mem + (size_t)d->slot * r->vsize;
		err = reader_ingest_key(snaps, n, r, &d->key, v, 1, r->vsize, true, d->slot);
		if (err)
			return err;
		memset(v, 0, r->vsize);
		/* the entries are pruned: snapshot_gc() may free them */
		r->slot_seen[d->slot] = free_key;
		memset(&r->slot_ent[(size_t)d->slot * n], 0, n * sizeof(*r->slot_ent));
		/* (the push, a system call, orders the zeroing before the slot's next taker) */
		if (bpf_map_update_elem(m->free_fd, NULL, &d->slot, BPF_ANY))
			return -errno;
		if (m->slots_taken)
			__sync_fetch_and_sub(m->slots_taken, 1);
		r->pruned++;
	}
	r->ndead = 0;
	return 0;
}
