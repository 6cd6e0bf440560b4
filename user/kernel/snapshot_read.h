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

/* Buffers for batched reads, allocated once (no allocation per interval). */
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
	/*
	 * The key each slot held at the last reading, once the key
	 * directory confirmed it (a key the kernel is still writing into
	 * slot_keys can be read torn); SH_FREE_ID: none. nr_slots of them.
	 */
	struct sh_key *slot_seen;
	struct snap_entry **slot_ent;	/* per slot, its key's entry in each snapshot */
	__u32 *slot_used;	/* the slots holding a key, this reading */
	/*
	 * per slot: its histograms this reading (the store's and every
	 * cache's summed), and as of the last reading (what a slot whose
	 * flushes never let a reading settle keeps); the seq read first
	 */
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

/* Which maps to read and how they are keyed. */
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
/* One lookup of @m's per-CPU array into @r (after a privilege drop: can it still poll?). 0 or -errno. */
int reader_probe(struct snap_reader *r, const struct read_maps *m);
void reader_free(struct snap_reader *r);

/*
 * One reading into @n snapshots, one per metric measured (snapshot i is
 * histogram i of every value; its ->metric picks the counters): counters,
 * histograms, and keys the kernel reclaimed or marked dead. Called
 * between loader_read_begin() and loader_read_end(). @epoch is the epoch
 * that just ended (loader_next_epoch()); @interval: this reading starts a
 * new interval (snapshot_begin), else it adds to the current one.
 * 0 or a negative errno.
 */
int snapshot_read(struct snapshot *snaps, int n, struct snap_reader *r,
		  const struct read_maps *m, __u32 epoch, bool interval);

/*
 * The reading's steps, shared by snapshot_read.c and snapshot_read_store.c.
 * One key's values (@ncopies of them, a CPU's or the store's, @stride
 * bytes apart, summed) into every snapshot; @slot: where it is
 * (SH_SLOT_HASH: key map); @ents: the key's entry in each snapshot, or
 * NULL to find them (reader_ingest_key()). 0 or a negative errno.
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
