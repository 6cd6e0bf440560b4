// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reads the kernel maps into snapshots (batched; the key store and the
 * CPUs' caches of it in place, bpf/store.bpf.h). Keys whose task or
 * cgroup is gone are reclaimed by the kernel (folded into [exited]); the
 * ones it marked dead while this reading was under way are removed here,
 * with lookup-and-delete, which returns their final values atomically.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "schedhist.h"
#include "kernel/snapshot_read.h"

#define BATCH 128	/* keys per batch read */

int reader_init(struct snap_reader *r, int ncpus, int nmetrics)
{
	memset(r, 0, sizeof(*r));
	r->ncpus = ncpus;
	r->nmetrics = nmetrics;
	r->vsize = (size_t)nmetrics * hist_bytes();
	r->keys = calloc(BATCH, sizeof(struct sh_key));
	r->vals = calloc((size_t)BATCH * ncpus, r->vsize);
	r->exited = calloc(ncpus, r->vsize);
	r->pcpu = calloc(ncpus, sizeof(struct sh_pcpu));
	return r->keys && r->vals && r->exited && r->pcpu ? 0 : -1;
}

int reader_probe(struct snap_reader *r, const struct read_maps *m)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->pcpu_fd, &zero, r->pcpu) ? -errno : 0;
}

void reader_free(struct snap_reader *r)
{
	free(r->keys);
	free(r->vals);
	free(r->exited);
	free(r->dead);
	free(r->dead_dir);
	free(r->slot_seen);
	free(r->slot_ent);
	free(r->slot_used);
	free(r->slot_val);
	free(r->slot_prev);
	free(r->slot_seq0);
	free(r->cbuf);
	free(r->pcpu);
	memset(r, 0, sizeof(*r));
}

/*
 * One key's values (@ncopies of them, a CPU's or the store's, @stride
 * bytes apart, summed) into every snapshot;
 * @slot: where it is (SH_SLOT_HASH: key map). @ents: the key's entry in
 * each snapshot, or NULL to find them.
 */
int reader_ingest_ents(struct snapshot *snaps, int n, struct snap_reader *r,
		       const struct sh_key *key, struct snap_entry **ents, const void *vals,
		       int ncopies, size_t stride, bool final, __u32 slot)
{
	__u32 birth = 0;
	bool dead = false;
	int c, i;

	for (c = 0; c < ncopies; c++) {
		const struct sh_hist *h = (const void *)((const char *)vals + c * stride);

		birth |= h->birth & SH_BIRTH_ID;
		dead |= !!(h->birth & SH_BIRTH_DEAD);
	}
	if (dead && !final) {
		if (r->ndead == r->dead_cap) {
			size_t cap = r->dead_cap ? r->dead_cap * 2 : 64;
			struct keyloc *d = realloc(r->dead, cap * sizeof(*d));
			struct sh_key *k;

			if (!d)
				return -ENOMEM;
			r->dead = d;
			if (!(k = realloc(r->dead_dir, cap * sizeof(*k))))
				return -ENOMEM;
			r->dead_dir = k;
			r->dead_cap = cap;
		}
		r->dead[r->ndead].key = *key;
		r->dead[r->ndead++].slot = slot;
	}
	for (i = 0; i < n; i++) {
		const void *v = (const char *)vals + i * hist_bytes();

		if (!(ents ? snapshot_ingest_entry(&snaps[i], ents[i], v, ncopies, stride, birth,
						   final)
			   : snapshot_ingest_key(&snaps[i], key, v, ncopies, stride, birth, final)))
			return -ENOMEM;
	}
	return 0;
}

int reader_ingest_key(struct snapshot *snaps, int n, struct snap_reader *r,
		      const struct sh_key *key, const void *vals, int ncopies, size_t stride,
		      bool final, __u32 slot)
{
	return reader_ingest_ents(snaps, n, r, key, NULL, vals, ncopies, stride, final, slot);
}

static int ingest_batch(struct snapshot *snaps, int n, struct snap_reader *r, __u32 nkeys)
{
	__u32 i;
	int err;

	for (i = 0; i < nkeys; i++) {
		const void *v = (char *)r->vals + (size_t)i * r->ncpus * r->vsize;

		if (r->keys[i].id == SH_EXITED_ID && !r->keys[i].comm[0]) {
			/* fed last, once every folded key is known */
			memcpy(r->exited, v, r->ncpus * r->vsize);
			r->have_exited = true;
			continue;
		}
		err = reader_ingest_key(snaps, n, r, &r->keys[i], v, r->ncpus, r->vsize, false,
				 SH_SLOT_HASH);
		if (err)
			return err;
	}
	return 0;
}

/* Fallback for kernels without batch lookups on hash maps. */
static int read_one_by_one(struct snapshot *snaps, int n, struct snap_reader *r, int fd)
{
	struct sh_key cur, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (bpf_map_lookup_elem(fd, &cur, r->vals))
			continue;	/* deleted meanwhile */
		r->keys[0] = cur;
		if (ingest_batch(snaps, n, r, 1))
			return -ENOMEM;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int read_hash(struct snapshot *snaps, int n, struct snap_reader *r, int fd)
{
	struct sh_key in, out;
	void *inp = NULL;
	__u32 nkeys;
	int last, err;

	if (r->no_batch)
		return read_one_by_one(snaps, n, r, fd);
	for (;;) {
		nkeys = BATCH;
		last = bpf_map_lookup_batch(fd, inp, &out, r->keys, r->vals, &nkeys, NULL);
		if (last && errno != ENOENT) {
			if ((errno == EINVAL || errno == ENOTSUP || errno == 524) && !inp) {
				r->no_batch = true;
				return read_one_by_one(snaps, n, r, fd);
			}
			return -errno;
		}
		err = ingest_batch(snaps, n, r, nkeys);
		if (err)
			return err;
		if (last)	/* ENOENT: that was the last batch */
			return 0;
		in = out;
		inp = &in;
	}
}

/*
 * Only [other] and [exited]: the key map holds no other key (the kernel's
 * count of its keys is 0), so the batch walk over every bucket of a map
 * sized for --max-keys is spared. A key made meanwhile is read next time;
 * none can be folded meanwhile (docs/key-lifecycle.md), so no key read
 * before is missed.
 */
static int read_fixed(struct snapshot *snaps, int n, struct snap_reader *r, int fd)
{
	static const __u64 ids[] = { SH_OTHER_ID, SH_EXITED_ID };
	__u32 i, nkeys = 0;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memset(&r->keys[nkeys], 0, sizeof(r->keys[nkeys]));
		r->keys[nkeys].id = ids[i];
		if (!bpf_map_lookup_elem(fd, &r->keys[nkeys],
					 (char *)r->vals + (size_t)nkeys * r->ncpus * r->vsize))
			nkeys++;
		else if (errno != ENOENT)
			return -errno;
	}
	return ingest_batch(snaps, n, r, nkeys);
}

int snapshot_read(struct snapshot *snaps, int n, struct snap_reader *r,
		  const struct read_maps *m, __u32 epoch, bool interval)
{
	__u64 stats[SH_METRIC_NR][SH_STAT_NR] = {};
	__u32 zero = 0;
	int c, i, j, err;

	for (i = 0; i < n; i++) {
		if (interval)
			snapshot_begin(&snaps[i], epoch);
		else
			snapshot_begin_read(&snaps[i], epoch);
	}
	if (bpf_map_lookup_elem(m->pcpu_fd, &zero, r->pcpu))
		return -errno;
	r->reclaimed = 0;
	for (i = 0; i < n; i++)
		snaps[i].kmem.cache_hits = snaps[i].kmem.cache_misses = snaps[i].kmem.max_lost =
			snaps[i].kmem.stack_lost = 0;
	for (c = 0; c < r->ncpus; c++) {
		for (i = 0; i < n; i++) {
			snaps[i].kmem.cache_hits += r->pcpu[c].cache_hit;
			snaps[i].kmem.cache_misses += r->pcpu[c].cache_miss;
			snaps[i].kmem.max_lost += r->pcpu[c].max_lost;
			snaps[i].kmem.stack_lost += r->pcpu[c].stack_lost;
		}
		for (i = 0; i < SH_METRIC_NR; i++)
			for (j = 0; j < SH_STAT_NR; j++)
				stats[i][j] += r->pcpu[c].stats[i][j];
		r->reclaimed += r->pcpu[c].reclaimed;
	}

	if (m->key_type == SH_KEY_NONE) {
		struct sh_key k = {};

		for (i = 0; i < n; i++)
			if (!snapshot_ingest(&snaps[i], &k, (char *)r->pcpu[0].hist + i * hist_bytes(), r->ncpus,
					     sizeof(struct sh_pcpu), false))
				return -ENOMEM;
	} else if (m->key_type == SH_KEY_CPU) {
		for (c = 0; c < r->ncpus; c++) {
			struct sh_key k = { .id = (__u64)c };

			for (i = 0; i < n; i++)
				if (!snapshot_ingest(&snaps[i], &k, (char *)r->pcpu[c].hist + i * hist_bytes(), 1,
						     sizeof(struct sh_pcpu), false))
					return -ENOMEM;
		}
	} else {
		r->have_exited = false;
		r->ndead = 0;
		err = m->live_keys && !*(volatile __u32 *)m->live_keys ?
		      read_fixed(snaps, n, r, m->hists_fd) : read_hash(snaps, n, r, m->hists_fd);
		if (!err && m->nr_slots)
			err = reader_read_slots(snaps, n, r, m);
		if (!err)
			err = reader_remove_dead(snaps, n, r, m);
		if (err)
			return err;
		/*
		 * Keys go from the kernel maps unseen only by its folds, which
		 * count themselves in reclaimed (and none runs while we read:
		 * loader_read_begin()): none since the last reading, no pass
		 * over every entry to look for them
		 */
		if (!r->read_before || r->reclaimed != r->reclaimed_then)
			for (i = 0; i < n; i++)
				snapshot_vanished(&snaps[i]);
		r->reclaimed_then = r->reclaimed;
		r->read_before = true;
		if (r->have_exited) {
			struct sh_key ex = { .id = SH_EXITED_ID };

			for (i = 0; i < n; i++)
				if (!snapshot_ingest(&snaps[i], &ex,
						     (char *)r->exited + i * hist_bytes(),
						     r->ncpus, r->vsize, false))
					return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++)
		snapshot_stats(&snaps[i], stats[snaps[i].metric]);
	return 0;
}
