/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The key store and the CPUs' caches of it (docs/design/shared-store.md).
 * A key's slot (keys.bpf.h) is one entry of the store, slots: a
 * histogram per metric for all CPUs together. Each CPU writes its waits
 * into its own small cache (cache: cache_mask + 1 entries per possible
 * CPU, direct-mapped by slot index, struct sh_cent) with plain
 * increments: one writer, and sched_switch never nests on a CPU. When another slot takes a CPU's entry (a miss), the entry's
 * counts move into its slot's store entry with atomic adds and its max
 * and min are merged under the slot's try-lock (cache_flush()), inside
 * the slot's seq bracket (struct sh_slot_seq): the poller reads the store,
 * then every cache, and reads again the few slots whose seq moved.
 * A reclaim takes a gone key's entries from every CPU's cache (a
 * cmpxchg of the entry's idx, which its own CPU's flush also takes), so
 * no cache holds a slot once it is freed.
 * Saves: memory in O(keys + CPUs x cache) instead of O(keys x CPUs): at
 * 384 possible CPUs and 1 000 keys of one metric, 4.4 MiB of maps against
 * 114 MB for a per-CPU histogram per key (docs/overhead.md, "Kernel memory";
 * bench/kmem prints every map for 2, 64 and 384 CPUs). The poller's
 * reading is O(keys + CPUs x cache) instead of O(keys x CPUs).
 * Costs: a hit is two array lookups and a compare more than a per-CPU
 * slot (bench/run.sh's sh:runq:tid and sh:runq:comm rows); a miss is a
 * flush: a look at each bucket and an atomic add for each one not 0 and
 * for the count and the sum, in store_move() (bench/run.sh's arm
 * sh:runq:tid:auto:allmiss, SCHEDHIST_CACHE_ENTRIES=1, every switch a miss,
 * and its pair with sh:runq:tid; the hit rates of the pipe, messaging and
 * churn workloads in the section "The key store's cache").
 */
#ifndef __SCHEDHIST_STORE_BPF_H
#define __SCHEDHIST_STORE_BPF_H

#include "settings.bpf.h"

/*
 * The store: slot i's histograms (one per metric) at entry i; value size
 * and max_entries (nr_slots) set by the poller, which maps it. slot_seq:
 * each slot's seq bracket and max lock (struct sh_slot_seq), mapped too.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, sizeof(struct sh_hist));	/* x metrics, with the buckets: set by the poller */
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_slot_seq);
} slot_seq SEC(".maps");

/* The caches: CPU c's entry for slot i at c * (cache_mask + 1) + (i & cache_mask). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, sizeof(struct sh_cent));	/* with the histograms: set by the poller */
} cache SEC(".maps");

/*
 * A miss whose entry a reclaim holds at that instant records into this
 * CPU's spare entry instead, flushed at once (record_waits()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, sizeof(struct sh_cent));	/* with the histograms: set by the poller */
} cache_spare SEC(".maps");

/* Attempts at a slot's max lock before the record is counted as max_lost. */
#define STORE_LOCK_TRIES 64

static __always_inline struct sh_hist *store_hists(__u32 i)
{
	return bpf_map_lookup_elem(&slots, &i);
}

static __always_inline struct sh_slot_seq *store_seq(__u32 i)
{
	return bpf_map_lookup_elem(&slot_seq, &i);
}

/* The index in the cache map of CPU @cpu's entry for slot @i (the only one of that CPU that can hold it). */
static __always_inline __u32 cache_index(__u32 cpu, __u32 i)
{
	return cpu * (cache_mask + 1) + (i & cache_mask);
}

/* @d merged with @s: per epoch parity the newer epoch, or the same epoch's longer max and shorter min. */
static __always_inline void max_merge(struct sh_max *d, const struct sh_max *s)
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

/*
 * One metric's counts of @src into the store's @dst, with atomic adds
 * (several CPUs flush one slot); @src's buckets are zeroed as they move
 * (its header is zeroed by the caller, after the max records are merged).
 * A plain loop over the buckets, most of them 0: it runs in store_move(),
 * a global function, verified once whatever its callers.
 */
static __always_inline void hist_add_atomic(struct sh_hist *dst, struct sh_hist *src)
{
	__u32 b, v;

	for (b = 0; b < SH_NBUCKETS_MAX && b < nbuckets; b++) {
		v = src->buckets[b];
		if (v) {
			__sync_fetch_and_add(&dst->buckets[b], v);
			src->buckets[b] = 0;
		}
	}
	if (src->count)
		__sync_fetch_and_add(&dst->count, src->count);
	if (src->sum_ns)
		__sync_fetch_and_add(&dst->sum_ns, src->sum_ns);
	if (src->comm[0])
		copy_comm(dst->comm, src->comm);
}

/* The max records of @src (both parities) into @dst's; the caller holds the lock. */
static __always_inline void hist_max_merge(struct sh_hist *dst, const struct sh_hist *src)
{
	max_merge(&dst->max[0], &src->max[0]);
	max_merge(&dst->max[1], &src->max[1]);
}

static __always_inline bool hist_has_max(const struct sh_hist *h)
{
	return h->max[0].epoch || h->max[1].epoch;
}

/*
 * Take @q's lock: a compare-and-swap, never a wait (bpf_spin_lock is not
 * allowed in tracing programs); the holder is a flush on another CPU,
 * which runs to its end with interrupts off, so a few attempts suffice.
 */
static __always_inline bool store_lock(struct sh_slot_seq *q)
{
	int k;

	for (k = 0; k < STORE_LOCK_TRIES; k++)
		if (!__sync_val_compare_and_swap(&q->lock, 0, 1))
			return true;
	return false;
}

static __always_inline void store_unlock(struct sh_slot_seq *q)
{
	__sync_lock_test_and_set(&q->lock, 0);
}

/*
 * Move the counts of @src (a cache entry's histograms, one per metric)
 * into the store entry @dst, merge their max records under @q's lock,
 * and zero @src (its buckets as they move, then the headers, struct
 * sh_hist without its buckets); inside @q's seq bracket, by the caller.
 */
static __always_inline void move_counts(struct sh_hist *dst, struct sh_hist *src,
					struct sh_slot_seq *q, struct sh_pcpu *pc)
{
	const struct cfg cfg = cfg_metrics(), *cf = &cfg;
	bool need;

	if (has(cf, SH_METRIC_OFFCPU))
		hist_add_atomic(hist_at(dst, idx(cf, SH_METRIC_OFFCPU)), hist_at(src, idx(cf, SH_METRIC_OFFCPU)));
	if (has(cf, SH_METRIC_RUNQ))
		hist_add_atomic(hist_at(dst, idx(cf, SH_METRIC_RUNQ)), hist_at(src, idx(cf, SH_METRIC_RUNQ)));
	if (has(cf, SH_METRIC_BLOCKED))
		hist_add_atomic(hist_at(dst, idx(cf, SH_METRIC_BLOCKED)), hist_at(src, idx(cf, SH_METRIC_BLOCKED)));
	/*
	 * the lock only for an entry that recorded a wait (a look at the
	 * store's records without it could read one being written, torn)
	 */
	need = (has(cf, SH_METRIC_OFFCPU) && hist_has_max(hist_at(src, idx(cf, SH_METRIC_OFFCPU)))) ||
	       (has(cf, SH_METRIC_RUNQ) && hist_has_max(hist_at(src, idx(cf, SH_METRIC_RUNQ)))) ||
	       (has(cf, SH_METRIC_BLOCKED) && hist_has_max(hist_at(src, idx(cf, SH_METRIC_BLOCKED))));
	if (need) {
		if (store_lock(q)) {
			if (has(cf, SH_METRIC_OFFCPU))
				hist_max_merge(hist_at(dst, idx(cf, SH_METRIC_OFFCPU)),
					       hist_at(src, idx(cf, SH_METRIC_OFFCPU)));
			if (has(cf, SH_METRIC_RUNQ))
				hist_max_merge(hist_at(dst, idx(cf, SH_METRIC_RUNQ)),
					       hist_at(src, idx(cf, SH_METRIC_RUNQ)));
			if (has(cf, SH_METRIC_BLOCKED))
				hist_max_merge(hist_at(dst, idx(cf, SH_METRIC_BLOCKED)),
					       hist_at(src, idx(cf, SH_METRIC_BLOCKED)));
			store_unlock(q);
		} else if (pc) {
			pc->max_lost++;
		}
	}
	if (has(cf, SH_METRIC_OFFCPU))
		__builtin_memset(hist_at(src, idx(cf, SH_METRIC_OFFCPU)), 0, sizeof(struct sh_hist));
	if (has(cf, SH_METRIC_RUNQ))
		__builtin_memset(hist_at(src, idx(cf, SH_METRIC_RUNQ)), 0, sizeof(struct sh_hist));
	if (has(cf, SH_METRIC_BLOCKED))
		__builtin_memset(hist_at(src, idx(cf, SH_METRIC_BLOCKED)), 0, sizeof(struct sh_hist));
}

/*
 * The counts of cache entry @ci (@spare: this CPU's spare entry instead)
 * into slot @j's store entry (move_counts()); its caller holds the entry
 * (its idx FLUSHING or CLAIMED) and @j's seq bracket open. A global
 * function (returns 0): verified once, apart from its callers, so its
 * loops over the buckets are plain loops; verified at each call site,
 * they took the switch program of three metrics with --culprit-mode time
 * past the verifier's million instructions, and a bpf_loop() instead (a
 * callback call per bucket) made every miss slower (bench/run.sh's arm
 * sh:runq:tid:auto:allmiss; docs/overhead.md).
 */
__noinline int store_move(__u32 ci, __u32 spare, __u32 j)
{
	__u32 zero = 0;
	struct sh_cent *e = spare ? bpf_map_lookup_elem(&cache_spare, &zero)
				  : bpf_map_lookup_elem(&cache, &ci);
	struct sh_hist *s = store_hists(j);
	struct sh_slot_seq *q = store_seq(j);

	if (e && s && q)
		move_counts(s, (struct sh_hist *)e->h, q, bpf_map_lookup_elem(&pcpu, &zero));
	return 0;
}

/*
 * Flush this CPU's cache entry @e (cache map index @ci; @spare: its spare
 * entry), which caches slot @j, into the store, in @j's seq bracket. The
 * bracket opens before the entry is taken (a compare-and-swap of its idx
 * to SH_CENT_FLUSHING): a reclaim that takes the entry first moves the
 * counts itself, and one that takes the other entries of @j then sees
 * this flush under way until it is done.
 */
static __always_inline void cache_flush(struct sh_cent *e, __u32 ci, __u32 spare, __u32 j)
{
	struct sh_slot_seq *q;

	if (!e || j >= nr_slots)
		return;
	q = store_seq(j);
	if (!q)
		return;	/* never: j is below nr_slots */
	__sync_fetch_and_add(&q->seq, SH_SEQ_OPEN);
	if (__sync_val_compare_and_swap(&e->idx, j, SH_CENT_FLUSHING) == j)
		store_move(ci, spare, j);
	__sync_fetch_and_add(&q->seq, SH_SEQ_CLOSE);
}

/*
 * This CPU's histograms for slot @i: its cache entry, taken over from the
 * slot it held (flushed) on a miss. *@spare: set when the entry was being
 * taken by a reclaim at that instant, and the histograms returned are the
 * CPU's spare entry, to be flushed into slot @i once the waits are in
 * (store_spare_flush()).
 */
static __always_inline struct sh_hist *cache_hists(__u32 i, __u32 cpu, struct sh_pcpu *pc,
						   bool *spare)
{
	__u32 old, zero = 0, ci = cache_index(cpu, i);
	struct sh_cent *e = bpf_map_lookup_elem(&cache, &ci);

	if (!e)
		return 0;
	old = e->idx;
	if (old == i) {
		pc->cache_hit++;
		return (struct sh_hist *)e->h;
	}
	pc->cache_miss++;
	if (old < nr_slots)
		cache_flush(e, ci, 0, old);
	/* zero: ours (FLUSHING), empty, or a reclaim's for an instant (CLAIMED) */
	if (e->idx == SH_CENT_CLAIMED) {
		e = bpf_map_lookup_elem(&cache_spare, &zero);
		if (!e)
			return 0;
		*spare = true;
	}
	e->idx = i;
	return (struct sh_hist *)e->h;
}

/* The spare entry's waits, recorded for slot @i, into the store. */
static __always_inline void store_spare_flush(__u32 i)
{
	__u32 zero = 0;

	cache_flush(bpf_map_lookup_elem(&cache_spare, &zero), 0, 1, i);
}

/*
 * A reclaim of slot @i takes CPU @cpu's entry for it, if that entry holds
 * @i, and moves its counts into the store (inside @i's seq bracket, which
 * the caller holds open): the entry is then empty, and no cache holds @i.
 */
static __always_inline void cache_claim(__u32 cpu, __u32 i)
{
	__u32 ci = cache_index(cpu, i);
	struct sh_cent *e = bpf_map_lookup_elem(&cache, &ci);

	if (!e || __sync_val_compare_and_swap(&e->idx, i, SH_CENT_CLAIMED) != i)
		return;
	store_move(ci, 0, i);
	__sync_lock_test_and_set(&e->idx, SH_CENT_EMPTY);
}

#endif /* __SCHEDHIST_STORE_BPF_H */
