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
	r->vals = calloc((size_t)BATCH * ncpus, r->vsize);
	r->exited = calloc(ncpus, r->vsize);
	r->pcpu = calloc(ncpus, sizeof(struct sh_pcpu));
	return r->keys && r->vals && r->exited && r->pcpu ? 0 : -1;
}

void reader_free(struct sh_reader *r)
{
	free(r->keys);
	free(r->vals);
	free(r->exited);
	free(r->dead);
	free(r->pcpu);
	memset(r, 0, sizeof(*r));
}

/* One key's values (all CPUs) into every snapshot. */
static int ingest_key(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		      const struct sh_key *key, const void *vals, bool final)
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
			struct sh_key *d = realloc(r->dead, cap * sizeof(*d));

			if (!d)
				return -ENOMEM;
			r->dead = d;
			r->dead_cap = cap;
		}
		r->dead[r->ndead++] = *key;
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
		err = ingest_key(snaps, n, r, &r->keys[i], v, false);
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

/*
 * Keys marked dead during this reading: their task or cgroup is gone and
 * the kernel left them to us. Remove each, feeding its final values.
 */
static int remove_dead(struct sh_snapshot *snaps, int n, struct sh_reader *r,
		       const struct sh_maps *m)
{
	size_t i;
	int err;

	for (i = 0; i < r->ndead; i++) {
		if (bpf_map_lookup_and_delete_elem(m->hists_fd, &r->dead[i], r->vals))
			continue;	/* not there any more: nothing to remove */
		if (m->live_keys)
			__sync_fetch_and_sub(m->live_keys, 1);
		err = ingest_key(snaps, n, r, &r->dead[i], r->vals, true);
		if (err)
			return err;
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
