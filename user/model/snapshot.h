/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Snapshots: the kernel's cumulative per-CPU histograms, summed over CPUs
 * and diffed against the previous reading, per key. The kernel maps are
 * never cleared; this table remembers the last reading of every key.
 */
#ifndef SH_SNAPSHOT_H
#define SH_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include "model/hist.h"
#include "model/kmem.h"

struct snap_entry {
	/*
	 * What every pass over the entries reads first, in one cache line:
	 * a pass that skips an entry touches nothing else of it
	 */
	struct sh_key key;
	struct snap_entry *next;		/* hash chain */
	__u32 interval;			/* of @delta (see there) */
	__u32 gen;			/* generation it was last read in */
	__u32 birth;			/* the kernel key's incarnation (sh_hist::birth) */
	__u32 raw_count;
	__u64 raw_sum_ns;
	bool pruned;			/* removed from the kernel map: freed after the report */
	bool kept;			/* pruned, but kept (keep_pruned) */
	/*
	 * This interval, when @interval is the snapshot's: it is emptied
	 * at the entry's first reading of an interval, not by a pass over
	 * every entry at its start (read it with snapshot_delta())
	 */
	struct totals delta;
	__u32 *raw_buckets;		/* last reading, summed mod 2^32 */
	char comm[SH_COMM_LEN];		/* pid/tid keys: latest task name */
	struct totals cum;		/* since start */
	/*
	 * The buckets, sh_nb each, sized by the grid in use: the raw ones
	 * (32-bit), the delta's, the cum's (with cum_buckets only)
	 */
	__u64 bucket_store[];
};

/* Raw (kernel-side, modulo 2^32) counts of keys the kernel folded. */
struct snap_raw {
	__u32 buckets[SH_NBUCKETS_MAX];
	__u32 count;
	__u64 sum_ns;
};

struct snapshot {
	struct snap_entry **table;	/* hash table of entries */
	size_t nbuckets;		/* hash buckets, a power of two */
	size_t nentries;		/* live entries */
	int metric;			/* enum sh_metric of this snapshot */
	int method;			/* enum sh_method that measured it */
	int clock;			/* enum sh_clock it was measured with */
	struct kmem_usage kmem;		/* the kernel maps' memory (set by the poller) */
	__u32 gen;			/* generation of the current reading */
	__u32 interval;			/* of the current interval (snap_entry::interval) */
	__u32 epoch;			/* kernel epoch this interval's maxes belong to */
	__u64 stats_raw[SH_STAT_NR];	/* last reading of the event counters */
	__u64 stats_delta[SH_STAT_NR];	/* this interval */
	__u64 stats_cum[SH_STAT_NR];	/* since start */
	struct totals exited_cum;	/* cumulative totals of pruned keys */
	__u64 exited_cum_buckets[SH_NBUCKETS_MAX];
	bool keep_pruned;		/* keep pruned entries (cgroups, since start) */
	/*
	 * Keep each entry's buckets since start (snap_entry::cum.buckets; by
	 * default): only reports since start read them, the rest of cum is
	 * always kept
	 */
	bool cum_buckets;
	size_t keep_limit;		/* ... at most this many; the rest go to exited */
	size_t nkept;			/* pruned entries kept so far */
	__u64 exited_keys;		/* how many keys were pruned */
	/*
	 * This reading: the last raw counts of keys the kernel folded into
	 * [exited] since the previous one. They are in the [exited] entry's
	 * new kernel counts but were counted under their own key already.
	 */
	struct snap_raw gone;
	__u64 wraps;			/* readings with >= 2^32 events since the last */
	size_t newly_pruned;		/* entries pruned since the last snapshot_gc() */
	size_t nlive;			/* entries of kernel keys not pruned ([other], [exited] not) */
	/*
	 * The entries read with new counts in this interval, in the order
	 * read: the only ones whose delta is not empty. A report of the
	 * interval walks these, not the hash table of every entry (a cache
	 * miss per entry, most of them idle on a big host). Room for every
	 * entry: an entry is listed once an interval.
	 */
	struct snap_entry **touched;
	size_t ntouched;
	size_t touched_cap;
	/*
	 * Entries come from blocks of HUGE_MIN bytes (hugemem.h), the second
	 * and later ones on huge pages: entries made one after the other lie
	 * side by side, and walking thousands of them costs few TLB misses.
	 * A freed entry is kept for the next new key; the blocks are given
	 * back by snapshot_free() (the most entries ever live at once)
	 */
	size_t entry_bytes;		/* an entry and its buckets, whole cache lines */
	void **blocks;			/* the mapped blocks */
	size_t nblocks;
	char *bump, *bump_end;		/* the newest block's unused part */
	struct snap_entry *free_entries;	/* freed entries, chained by next */
};

int snapshot_init(struct snapshot *s);
void snapshot_free(struct snapshot *s);

/* Start an interval, and its first reading, whose maxes belong to kernel epoch @epoch. */
void snapshot_begin(struct snapshot *s, __u32 epoch);

/*
 * Start another reading within the interval (the poller reads at least
 * every SH_READ_PERIOD_S so 32-bit kernel counters cannot wrap unseen);
 * its counts add to the interval's.
 */
void snapshot_begin_read(struct snapshot *s, __u32 epoch);

/*
 * Feed one key's per-CPU values: @ncpu values of struct sh_hist, @stride
 * bytes apart, of incarnation @birth. Called once per key per reading (a
 * key removed by the poller has its final values fed again with @final
 * set). A different @birth than last time means the kernel folded the
 * key and made it anew. Returns the entry or NULL on allocation failure.
 */
struct snap_entry *snapshot_ingest_key(struct snapshot *s, const struct sh_key *key,
				     const void *vals, int ncpu, size_t stride, __u32 birth,
				     bool final);
/* The same for the entry of a key, found (or made) by snapshot_entry(). */
struct snap_entry *snapshot_ingest_entry(struct snapshot *s, struct snap_entry *e,
				       const void *vals, int ncpu, size_t stride, __u32 birth,
				       bool final);
/*
 * @key's entry, made if new (NULL: out of memory): valid until the
 * snapshot_gc() after a reading that pruned it.
 */
struct snap_entry *snapshot_entry(struct snapshot *s, const struct sh_key *key);
/* The same for a key that is never reclaimed (birth 0). */
struct snap_entry *snapshot_ingest(struct snapshot *s, const struct sh_key *key,
				 const void *vals, int ncpu, size_t stride, bool final);

/*
 * After every key of a reading but [exited] was fed: keys not read this
 * time were folded into [exited] by the kernel; mark them pruned and
 * remember their raw counts (s->gone) for the [exited] entry, fed next.
 */
void snapshot_vanished(struct snapshot *s);

/* Feed the event counters, already summed over CPUs (64-bit, never wrap). */
void snapshot_stats(struct snapshot *s, const __u64 *stats);

/* @e's totals of this interval (zero if it was not read in it). */
const struct totals *snapshot_delta(const struct snapshot *s, const struct snap_entry *e);

/* Find an entry, NULL if absent. */
struct snap_entry *snapshot_find(struct snapshot *s, const struct sh_key *key);

/* Waits recorded since start, over every key (pruned ones included). */
__u64 snapshot_recorded(struct snapshot *s);

/*
 * After the report: fold pruned entries into exited_cum and free them;
 * with keep_pruned they stay, under their own key, with no new counts.
 */
void snapshot_gc(struct snapshot *s);

/* Iterate: for (e = NULL; (e = snapshot_next(s, &it, e)); ) */
struct snap_entry *snapshot_next(struct snapshot *s, size_t *it, struct snap_entry *e);

#endif /* SH_SNAPSHOT_H */
