// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reads the kernel maps into a snapshot (batched), and prunes keys of
 * tasks and cgroups that are gone: lookup-and-delete returns the final
 * values atomically, so even the last counts of a pruned key are kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "schedhist.h"
#include "snapshot_read.h"
#include "log.h"

#define BATCH 128	/* keys per batch read */

int reader_init(struct sh_reader *r, int ncpus)
{
	memset(r, 0, sizeof(*r));
	r->ncpus = ncpus;
	r->keys = calloc(BATCH, sizeof(struct sh_key));
	r->vals = calloc((size_t)BATCH * ncpus, sizeof(struct sh_hist));
	r->pcpu = calloc(ncpus, sizeof(struct sh_pcpu));
	return r->keys && r->vals && r->pcpu ? 0 : -1;
}

void reader_free(struct sh_reader *r)
{
	free(r->keys);
	free(r->vals);
	free(r->pcpu);
	memset(r, 0, sizeof(*r));
}

static size_t val_size(const struct sh_reader *r)
{
	return (size_t)r->ncpus * sizeof(struct sh_hist);
}

static int ingest_batch(struct sh_snapshot *s, struct sh_reader *r, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (!snapshot_ingest(s, &r->keys[i], (char *)r->vals + i * val_size(r), r->ncpus,
				     sizeof(struct sh_hist), false))
			return -ENOMEM;
	return 0;
}

/* Fallback for kernels without batch lookups on hash maps. */
static int read_one_by_one(struct sh_snapshot *s, struct sh_reader *r, int fd)
{
	struct sh_key cur, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (bpf_map_lookup_elem(fd, &cur, r->vals))
			continue;	/* deleted meanwhile */
		r->keys[0] = cur;
		if (ingest_batch(s, r, 1))
			return -ENOMEM;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int read_hash(struct sh_snapshot *s, struct sh_reader *r, int fd)
{
	struct sh_key in, out;
	void *inp = NULL;
	__u32 n;
	int err;

	if (r->no_batch)
		return read_one_by_one(s, r, fd);
	for (;;) {
		n = BATCH;
		err = bpf_map_lookup_batch(fd, inp, &out, r->keys, r->vals, &n, NULL);
		if (err && errno != ENOENT) {
			if ((errno == EINVAL || errno == ENOTSUP || errno == 524) && !inp) {
				r->no_batch = true;
				return read_one_by_one(s, r, fd);
			}
			return -errno;
		}
		if (ingest_batch(s, r, n))
			return -ENOMEM;
		if (err)	/* ENOENT: that was the last batch */
			return 0;
		in = out;
		inp = &in;
	}
}

/* Is the task or cgroup behind this key gone for good? */
static bool key_gone(const struct sh_entry *e, int key_type, struct sh_cgroups *cg)
{
	if (e->key.id == SH_OTHER_ID)
		return false;
	switch (key_type) {
	case SH_KEY_PID:
	case SH_KEY_TID:
		return kill((pid_t)e->key.id, 0) && errno == ESRCH;
	case SH_KEY_CGROUP:
		return cg && !cg_exists(cg, e->key.id);
	default:
		return false;
	}
}

static void prune(struct sh_snapshot *s, struct sh_reader *r, int fd, int key_type,
		  struct sh_cgroups *cg)
{
	struct sh_entry *e;
	size_t it = 0;

	for (e = NULL; (e = snapshot_next(s, &it, e));) {
		if (e->gen != s->gen || e->delta.count || e->pruned || !key_gone(e, key_type, cg))
			continue;
		if (bpf_map_lookup_and_delete_elem(fd, &e->key, r->vals))
			continue;	/* not supported or raced: try next time */
		snapshot_ingest(s, &e->key, r->vals, r->ncpus, sizeof(struct sh_hist), true);
		r->pruned++;
	}
}

int snapshot_read(struct sh_snapshot *s, struct sh_reader *r, const struct sh_maps *m,
		  __u32 epoch, struct sh_cgroups *cg)
{
	__u64 stats[SH_STAT_NR] = {};
	__u32 zero = 0;
	int c, i, err;

	snapshot_begin(s, epoch);
	if (bpf_map_lookup_elem(m->pcpu_fd, &zero, r->pcpu))
		return -errno;
	for (c = 0; c < r->ncpus; c++)
		for (i = 0; i < SH_STAT_NR; i++)
			stats[i] += r->pcpu[c].stats[i];

	if (m->key_type == SH_KEY_NONE) {
		struct sh_key k = {};

		if (!snapshot_ingest(s, &k, &r->pcpu[0].hist, r->ncpus, sizeof(struct sh_pcpu),
				     false))
			return -ENOMEM;
	} else if (m->key_type == SH_KEY_CPU && m->metric != SH_METRIC_BLOCKED) {
		for (c = 0; c < r->ncpus; c++) {
			struct sh_key k = { .id = (__u64)c };

			if (!snapshot_ingest(s, &k, &r->pcpu[c].hist, 1, sizeof(struct sh_pcpu),
					     false))
				return -ENOMEM;
		}
	} else {
		err = read_hash(s, r, m->hists_fd);
		if (err)
			return err;
		prune(s, r, m->hists_fd, m->key_type, cg);
	}
	snapshot_stats(s, stats);
	return 0;
}
