/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Map reading for snapshots: the only place the poller reads kernel maps. */
#ifndef SH_SNAPSHOT_READ_H
#define SH_SNAPSHOT_READ_H

#include <stdbool.h>
#include "model/snapshot.h"

/* A key and where it is: a slot, or SH_SLOT_HASH for the key map. */
struct keyloc {
	struct sh_key key;
	__u32 slot;
};

/* Buffers for batched reads, allocated once. */
struct snap_reader {
	int ncpus;		/* possible CPUs */
	int nmetrics;		/* histograms per key and CPU */
	size_t vsize;		/* one CPU's value: nmetrics struct sh_hist */
	struct sh_key *keys;	/* one batch of keys */
	void *vals;		/* one batch of per-CPU values */
	void *exited;		/* the [exited] entry's values, fed last */
	bool have_exited;	/* ... read in this reading */
	struct keyloc *dead;	/* keys marked dead in this reading */
	size_t ndead, dead_cap;
	struct sh_key *dead_dir;	/* ... those in slots: their directory entries (dead_cap) */
	/* Each slot's key at the last reading, once keydir confirmed it (SH_FREE_ID: none). */
	struct sh_key *slot_seen;
	struct snap_entry **slot_ent;	/* per slot, its key's entry in each snapshot */
	__u32 *slot_used;	/* the slots holding a key, this reading */
	/* Per slot: this reading's summed histograms, the last reading's, the first seq. */
	void *slot_val, *slot_prev;
	__u64 *slot_seq0;
	void *cbuf;		/* one cache entry's histograms, as read */
	struct sh_pcpu *pcpu;	/* the per-CPU array element, all CPUs */
	bool no_batch;		/* kernel lacks batch lookups: one by one */
	__u64 pruned;		/* keys the poller removed (marked dead while it read) */
	__u64 reclaimed;	/* keys the kernel folded into [exited] */
	__u64 reclaimed_then;	/* ... as of the last reading */
	bool read_before;	/* a reading of the keyed maps was made */
};

struct read_maps {
	int pcpu_fd;
	int hists_fd;
	int key_type;
	__u32 *live_keys;	/* the kernel's count of its keys (sh_live_keys), or NULL */
	__u32 *slots_taken;	/* ... of its slots taken (sh_slots_taken), or NULL */
	__u32 nr_slots;		/* the store (schedhist.h "Keys"), 0 = none: */
	__u32 cache_entries;	/*   cache entries per CPU */
	void *slots_mem;	/*   slot -> histograms, mapped */
	struct sh_key *slot_keys_mem;	/*   slot -> key, mapped */
	struct sh_slot_seq *slot_seq_mem;	/*   slot -> seq bracket and max lock, mapped */
	void *cache_mem;	/*   (CPU, entry) -> struct sh_cent, mapped */
	int keydir_fd;		/*   key -> slot */
	int free_fd;		/*   the free slots */
	void (*grace_period)(void);	/* waits until no program run of before is running */
};

int reader_init(struct snap_reader *r, int ncpus, int nmetrics);
/* A lookup of @m's per-CPU array: can it still poll after the privilege drop? 0 or -errno. */
int reader_probe(struct snap_reader *r, const struct read_maps *m);
void reader_free(struct snap_reader *r);

/*
 * One reading into @n snapshots (one per metric), between loader_read_begin() and _end();
 * @epoch just ended; @interval: start a new interval. 0 or -errno.
 */
int snapshot_read(struct snapshot *snaps, int n, struct snap_reader *r,
		  const struct read_maps *m, __u32 epoch, bool interval);

/*
 * Shared steps: one key's @ncopies values (@stride apart, summed) into every snapshot; @slot
 * where it is; @ents its entries, or NULL to find them. 0 or -errno.
 */
int reader_ingest_ents(struct snapshot *snaps, int n, struct snap_reader *r,
		       const struct sh_key *key, struct snap_entry **ents, const void *vals,
		       int ncopies, size_t stride, bool final, __u32 slot);
int reader_ingest_key(struct snapshot *snaps, int n, struct snap_reader *r,
		      const struct sh_key *key, const void *vals, int ncopies, size_t stride,
		      bool final, __u32 slot);
/* The keys in slots, read in place. 0 or a negative errno. */
int reader_read_slots(struct snapshot *snaps, int n, struct snap_reader *r,
		      const struct read_maps *m);
/* The keys marked dead during this reading removed, their final values fed. 0 or -errno. */
int reader_remove_dead(struct snapshot *snaps, int n, struct snap_reader *r,
		       const struct read_maps *m);

#endif /* SH_SNAPSHOT_READ_H */
