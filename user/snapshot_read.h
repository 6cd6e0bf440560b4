/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Map reading for snapshots: the only place the poller reads kernel maps. */
#ifndef SH_SNAPSHOT_READ_H
#define SH_SNAPSHOT_READ_H

#include <stdbool.h>
#include "snapshot.h"
#include "cgroup.h"

/* Buffers for batched reads, allocated once (no allocation per interval). */
struct sh_reader {
	int ncpus;		/* possible CPUs */
	struct sh_key *keys;	/* one batch of keys */
	void *vals;		/* one batch of per-CPU values */
	struct sh_pcpu *pcpu;	/* the per-CPU array element, all CPUs */
	bool no_batch;		/* kernel lacks batch lookups: one by one */
	__u64 pruned;		/* keys removed from the kernel map so far */
};

/* Which maps to read and how they are keyed. */
struct sh_maps {
	int pcpu_fd;
	int hists_fd;
	int key_type;
	int metric;
};

int reader_init(struct sh_reader *r, int ncpus);
void reader_free(struct sh_reader *r);

/*
 * One reading: counters, histograms, pruning of keys whose task or cgroup
 * is gone. @epoch is the epoch that just ended (loader_next_epoch()).
 * 0 or a negative errno.
 */
int snapshot_read(struct sh_snapshot *s, struct sh_reader *r, const struct sh_maps *m,
		  __u32 epoch, struct sh_cgroups *cg);

#endif /* SH_SNAPSHOT_READ_H */
