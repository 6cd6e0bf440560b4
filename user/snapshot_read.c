// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reads the kernel maps into snapshots (batched). Keys whose task or
 * cgroup is gone are reclaimed by the kernel (folded into [exited]); the
 * ones it marked dead while this reading was under way are removed here,
 * with lookup-and-delete, which returns their final values atomically.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "schedhist.h"
#include "snapshot_read.h"

#define BATCH 128	/* keys per batch read */

int reader_init(struct sh_reader *r, int ncpus, int nmetrics)
{
	memset(r, 0, sizeof(*r));
	r->ncpus = ncpus;
	r->nmetrics = nmetrics;
	r->vsize = (size_t)nmetrics * sizeof(struct sh_hist);
	r->keys = calloc(BATCH, sizeof(struct sh_key));
	r->dirvals = calloc(BATCH, sizeof(__u32));
	r->vals = calloc((size_t)BATCH * ncpus, r->vsize);
	r->exited = calloc(ncpus, r->vsize);
	r->pcpu = calloc(ncpus, sizeof(struct sh_pcpu));
	return r->keys && r->dirvals && r->vals && r->exited && r->pcpu ? 0 : -1;
}

void reader_free(struct sh_reader *r)
{
	free(r->keys);
	free(r->vals);
	free(r->exited);
	free(r->dead);
	free(r->dirvals);
	free(r->slotted);
	free(r->svals);
	free(r->sarr);
	free(r->pcpu);
	memset(r, 0, sizeof(*r));
}

/* One key's values (all CPUs) into every snapshot; @slot: where it is (SH_SLOT_HASH: key map). */
static int ingest_key(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		      const struct sh_key *key, const void *vals, bool final, __u32 slot)
{
	__u32 birth = 0;
	bool dead = false;
	int c, i;

	for (c = 0; c < r->ncpus; c++) {
		const struct sh_hist *h = (const void *)((const char *)vals + c * r->vsize);

		birth |= h->birth & SH_BIRTH_ID;
		dead |= !!(h->birth & SH_BIRTH_DEAD);
	}
	if (dead && !final) {
		if (r->ndead == r->dead_cap) {
			size_t cap = r->dead_cap ? r->dead_cap * 2 : 64;
			struct sh_keyloc *d = realloc(r->dead, cap * sizeof(*d));

			if (!d)
				return -ENOMEM;
			r->dead = d;
			r->dead_cap = cap;
		}
		r->dead[r->ndead].key = *key;
		r->dead[r->ndead++].slot = slot;
	}
	for (i = 0; i < n; i++)
		if (!snapshot_ingest_key(&snaps[i], key, (const char *)vals + i * sizeof(struct sh_hist),
					 r->ncpus, r->vsize, birth, final))
			return -ENOMEM;
	return 0;
}

static int ingest_batch(struct sh_snapshot *snaps, int n, struct sh_reader *r, __u32 nkeys)
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
		err = ingest_key(snaps, n, r, &r->keys[i], v, false, SH_SLOT_HASH);
		if (err)
			return err;
	}
	return 0;
}

/* Fallback for kernels without batch lookups on hash maps. */
static int read_one_by_one(struct sh_snapshot *snaps, int n, struct sh_reader *r, int fd)
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

static int read_hash(struct sh_snapshot *snaps, int n, struct sh_reader *r, int fd)
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

/* Room for @n slots' values in r->svals (and their indexes in r->sarr). */
static int slot_room(struct sh_reader *r, size_t n)
{
	void *v;
	__u32 *a;

	if (n <= r->svals_cap)
		return 0;
	v = realloc(r->svals, n * r->ncpus * r->vsize);
	if (!v)
		return -ENOMEM;
	r->svals = v;
	a = realloc(r->sarr, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->sarr = a;
	/* the kernel fills them; zeroed so that tools that cannot see it (valgrind) agree */
	memset((char *)v + r->svals_cap * r->ncpus * r->vsize, 0,
	       (n - r->svals_cap) * r->ncpus * r->vsize);
	memset(a + r->svals_cap, 0, (n - r->svals_cap) * sizeof(*a));
	r->svals_cap = n;
	return 0;
}

/* The values of slots 0 .. @n - 1 of the slot array into r->svals. */
static int read_slot_values(struct sh_reader *r, const struct sh_maps *m, __u32 n)
{
	__u32 done = 0, in, out, cnt, i;
	void *inp = NULL;
	int last;

	while (done < n) {
		cnt = n - done;
		last = r->no_batch ? -1 :
		       bpf_map_lookup_batch(m->slots_fd, inp, &out, r->sarr + done,
					    (char *)r->svals + (size_t)done * r->ncpus * r->vsize,
					    &cnt, NULL);
		if (last && (r->no_batch || errno != ENOENT)) {
			/* one by one (kernels without batch lookups) */
			for (i = done; i < n; i++)
				if (bpf_map_lookup_elem(m->slots_fd, &i,
							(char *)r->svals + (size_t)i * r->ncpus * r->vsize))
					return -errno;
			return 0;
		}
		done += cnt;
		if (last || !cnt)
			break;
		in = out;
		inp = &in;
	}
	return done < n ? -EIO : 0;
}

/*
 * The keys in slots (schedhist.h "Keys"): the key directory's entries
 * that name a slot, then the values of the slots up to the highest one
 * named (read after the directory: a slot named there has its values
 * since before; only the poller frees slots, after the reading).
 */
static int read_slots(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		      const struct sh_maps *m)
{
	struct sh_key in, out, cur, next;
	void *inp = NULL;
	__u32 cnt, i, top = 0;
	size_t j;
	int last, err;

	r->nslot = 0;
	for (;;) {
		if (r->no_batch) {
			/* one by one: at most BATCH per round, like a batch */
			for (cnt = 0; cnt < BATCH; cnt++) {
				if (bpf_map_get_next_key(m->keydir_fd, inp, &next))
					break;
				cur = next;
				inp = &cur;
				if (bpf_map_lookup_elem(m->keydir_fd, &cur, &r->dirvals[cnt])) {
					cnt--;	/* removed meanwhile */
					continue;
				}
				r->keys[cnt] = cur;
			}
			last = cnt < BATCH ? -1 : 0;
			errno = ENOENT;
		} else {
			cnt = BATCH;
			last = bpf_map_lookup_batch(m->keydir_fd, inp, &out, r->keys, r->dirvals, &cnt,
						    NULL);
			if (last && errno != ENOENT)
				return -errno;
		}
		for (i = 0; i < cnt; i++) {
			if (r->dirvals[i] == SH_SLOT_HASH || r->dirvals[i] >= m->nr_slots)
				continue;
			if (r->nslot == r->slot_cap) {
				size_t cap = r->slot_cap ? r->slot_cap * 2 : 256;
				struct sh_keyloc *k = realloc(r->slotted, cap * sizeof(*k));

				if (!k)
					return -ENOMEM;
				r->slotted = k;
				r->slot_cap = cap;
			}
			r->slotted[r->nslot].key = r->keys[i];
			r->slotted[r->nslot++].slot = r->dirvals[i];
			if (r->dirvals[i] + 1 > top)
				top = r->dirvals[i] + 1;
		}
		if (last)
			break;
		if (!r->no_batch) {
			in = out;
			inp = &in;
		}
	}
	if (!r->nslot)
		return 0;
	if ((err = slot_room(r, top)) || (err = read_slot_values(r, m, top)))
		return err;
	for (j = 0; j < r->nslot; j++) {
		const struct sh_keyloc *l = &r->slotted[j];

		err = ingest_key(snaps, n, r, &l->key,
				 (char *)r->svals + (size_t)l->slot * r->ncpus * r->vsize, false,
				 l->slot);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Keys marked dead during this reading: their task or cgroup is gone and
 * the kernel left them to us. Remove each, feeding its final values. A
 * key in the key map goes with lookup-and-delete (atomic). A slot is
 * first taken from its key (slot_keys, then the directory), then, once
 * no program run that could still have found it is running (a grace
 * period), read a last time, zeroed and freed.
 */
static int remove_dead(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		       const struct sh_maps *m)
{
	struct sh_key free_key = { .id = SH_FREE_ID };
	bool slots = false;
	size_t i;
	int err;

	for (i = 0; i < r->ndead; i++) {
		struct sh_keyloc *d = &r->dead[i];

		if (d->slot != SH_SLOT_HASH) {
			if (bpf_map_update_elem(m->slot_keys_fd, &d->slot, &free_key, BPF_ANY) ||
			    bpf_map_delete_elem(m->keydir_fd, &d->key))
				d->slot = SH_SLOT_HASH - 1;	/* not ours to free (never) */
			else
				slots = true;
			continue;
		}
		if (bpf_map_lookup_and_delete_elem(m->hists_fd, &d->key, r->vals))
			continue;	/* not there any more: nothing to remove */
		if (m->nr_slots)
			bpf_map_delete_elem(m->keydir_fd, &d->key);
		if (m->live_keys)
			__sync_fetch_and_sub(m->live_keys, 1);
		err = ingest_key(snaps, n, r, &d->key, r->vals, true, SH_SLOT_HASH);
		if (err)
			return err;
		r->pruned++;
	}
	if (slots && m->grace_period)
		m->grace_period();
	for (i = 0; slots && i < r->ndead; i++) {
		struct sh_keyloc *d = &r->dead[i];

		if (d->slot >= m->nr_slots)
			continue;
		if (bpf_map_lookup_elem(m->slots_fd, &d->slot, r->vals))
			return -errno;
		err = ingest_key(snaps, n, r, &d->key, r->vals, true, d->slot);
		if (err)
			return err;
		memset(r->vals, 0, r->ncpus * r->vsize);
		if (bpf_map_update_elem(m->slots_fd, &d->slot, r->vals, BPF_ANY) ||
		    bpf_map_update_elem(m->free_fd, NULL, &d->slot, BPF_ANY))
			return -errno;
		r->pruned++;
	}
	r->ndead = 0;
	return 0;
}

int snapshot_read(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		  const struct sh_maps *m, __u32 epoch, bool interval)
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
	for (c = 0; c < r->ncpus; c++) {
		for (i = 0; i < SH_METRIC_NR; i++)
			for (j = 0; j < SH_STAT_NR; j++)
				stats[i][j] += r->pcpu[c].stats[i][j];
		r->reclaimed += r->pcpu[c].reclaimed;
	}

	if (m->key_type == SH_KEY_NONE) {
		struct sh_key k = {};

		for (i = 0; i < n; i++)
			if (!snapshot_ingest(&snaps[i], &k, &r->pcpu[0].hist[i], r->ncpus,
					     sizeof(struct sh_pcpu), false))
				return -ENOMEM;
	} else if (m->key_type == SH_KEY_CPU) {
		for (c = 0; c < r->ncpus; c++) {
			struct sh_key k = { .id = (__u64)c };

			for (i = 0; i < n; i++)
				if (!snapshot_ingest(&snaps[i], &k, &r->pcpu[c].hist[i], 1,
						     sizeof(struct sh_pcpu), false))
					return -ENOMEM;
		}
	} else {
		r->have_exited = false;
		r->ndead = 0;
		err = read_hash(snaps, n, r, m->hists_fd);
		if (!err && m->nr_slots)
			err = read_slots(snaps, n, r, m);
		if (!err)
			err = remove_dead(snaps, n, r, m);
		if (err)
			return err;
		for (i = 0; i < n; i++)
			snapshot_vanished(&snaps[i]);
		if (r->have_exited) {
			struct sh_key ex = { .id = SH_EXITED_ID };

			for (i = 0; i < n; i++)
				if (!snapshot_ingest(&snaps[i], &ex,
						     (char *)r->exited + i * sizeof(struct sh_hist),
						     r->ncpus, r->vsize, false))
					return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++)
		snapshot_stats(&snaps[i], stats[snaps[i].metric]);
	return 0;
}
