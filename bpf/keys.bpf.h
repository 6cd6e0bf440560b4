/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where each key's histograms are (schedhist.h "Keys"). Every key up to
 * the capacity takes a slot: an entry of the store (store.bpf.h), one for
 * all CPUs, which each CPU writes through its cache. A task keeps its
 * key's slot index in its state (task_core.kidx) and finds its
 * histograms with array lookups and a compare of the key against
 * slot_keys: no hash lookup. keydir (key -> slot, or SH_SLOT_HASH) says
 * where each key is; free_slots (a stack) holds the free slots. A key
 * made while no slot is free would go to hists, a per-CPU hash that
 * holds [other] and [exited] and nothing more: so to [other]. How a slot
 * is taken, marked and freed, by the kernel or the poller:
 * docs/key-lifecycle.md.
 * Cost: a key costs a slot lookup per switch over key none, and the
 * store's cache its own (store.bpf.h); a per-CPU hash in place of the
 * slots costs several times more (docs/overhead.md). Memory: slots x 296 B per metric at schema 0,
 * SH_HIST_SIZE(nbuckets) at --schema (user/model/kmem.c).
 */
#ifndef __SCHEDHIST_KEYS_BPF_H
#define __SCHEDHIST_KEYS_BPF_H

#include "task_state.bpf.h"
#include "task_key.bpf.h"
#include "store.bpf.h"

/* max_entries (--max-keys + [other] + [exited]) and value size (one
 * sh_hist per metric) are set by the poller. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10242);
	__type(key, struct sh_key);
	__uint(value_size, sizeof(struct sh_hist));	/* x metrics, with the buckets: set by the poller */
} hists SEC(".maps");

/*
 * slot_keys: the key each slot holds (SH_FREE_ID: none), mapped by the
 * poller; keydir: key -> its slot, or SH_SLOT_HASH; free_slots: the free
 * slots. Taken and freed: docs/key-lifecycle.md.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sh_key);
} slot_keys SEC(".maps");

/* not preallocated: a deleted entry is freed after a grace period, never reused under a reader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sh_key);
	__type(value, __u32);
} keydir SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 1);
	__type(value, __u32);
} free_slots SEC(".maps");

/* The value a new key starts from: zero, with its birth set (per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, sizeof(struct sh_hist));	/* x metrics, with the buckets: set by the poller */
} newval SEC(".maps");

/*
 * -k tid, a key of the key map (a key in a slot has its name in the store
 * and in the CPUs' cache entries): the task's latest name also goes to
 * CPU 0's copy (on a change
 * only), where the poller looks first; one task runs on one CPU at a
 * time, so it has one writer. @h0: CPU 0's copy, looked up only then.
 */
static __always_inline bool comm_changed(const struct sh_hist *h, struct task_struct *t, __u32 cpu)
{
	return key_type == SH_KEY_TID && cpu &&
	       (((__u64 *)h->comm)[0] != ((__u64 *)t->comm)[0] ||
		((__u64 *)h->comm)[1] != ((__u64 *)t->comm)[1]);
}

static __always_inline void comm_to_cpu0(struct sh_hist *h0, struct task_struct *t, const struct cfg *cf)
{
	if (!h0)
		return;
	if (has(cf, SH_METRIC_OFFCPU))
		copy_comm(hist_at(h0, idx(cf, SH_METRIC_OFFCPU))->comm, t->comm);
	if (has(cf, SH_METRIC_RUNQ))
		copy_comm(hist_at(h0, idx(cf, SH_METRIC_RUNQ))->comm, t->comm);
	if (has(cf, SH_METRIC_BLOCKED))
		copy_comm(hist_at(h0, idx(cf, SH_METRIC_BLOCKED))->comm, t->comm);
}

/*
 * Where @key is (see schedhist.h "Keys"): its slot, or SH_SLOT_HASH for
 * the key map. A key seen for the first time takes a free slot, unless
 * it is in the key map already (made while no slot was free); the key
 * directory's entry, made with BPF_NOEXIST, settles a race between two
 * CPUs making the same key. A directory entry the allocator had no
 * element for at that instant (-ENOMEM) sets *@over to SH_STAT_NO_MEM:
 * the key then takes the key map's path, full with [other] and [exited]
 * when every key has a slot, so that its wait is counted as no_mem, not
 * as map_full (which says: raise --max-keys).
 */
static __noinline __u32 key_slot(const struct sh_key *key, int *over)
{
	__u32 *ip, i = SH_SLOT_HASH, popped;
	struct sh_key *sk = 0;
	struct sh_hist *h = 0;
	long err;

	if (!key)
		return SH_SLOT_HASH;
	ip = bpf_map_lookup_elem(&keydir, key);
	if (ip)
		return *ip;
	/* (an empty stack's pop zeroes the value: only a success names a slot) */
	if (!bpf_map_lookup_elem(&hists, key) && !bpf_map_pop_elem(&free_slots, &popped)) {
		i = popped;
		h = i < nr_slots ? store_hists(i) : 0;
		sk = bpf_map_lookup_elem(&slot_keys, &i);
		if (!h || !sk) {
			/* never: every slot index is below nr_slots */
			bpf_map_push_elem(&free_slots, &i, 0);
			return SH_SLOT_HASH;
		}
		/* whoever freed the slot zeroed its store entry, and no cache holds it */
		h->birth = __sync_fetch_and_add(&sh_births, 1) & SH_BIRTH_ID;
	}
	err = bpf_map_update_elem(&keydir, key, &i, BPF_NOEXIST);
	if (!err) {
		if (sk) {
			*sk = *key;
			__sync_fetch_and_add(&sh_keys_made, 1);
			__sync_fetch_and_add(&sh_slots_taken, 1);
		}
		return i;
	}
	if (h) {
		h->birth = 0;
		bpf_map_push_elem(&free_slots, &i, 0);
	}
	/* made meanwhile on another CPU: where it went */
	if (err == -EEXIST && (ip = bpf_map_lookup_elem(&keydir, key)))
		return *ip;
	if (err == -ENOMEM)
		*over = SH_STAT_NO_MEM;
	return SH_SLOT_HASH;	/* no directory entry to be had: the key map */
}

/*
 * Histograms (one per metric) for @t's key in the key map, *@kp (zeroed
 * by the caller), created on first use; [other] once the map is full,
 * with *@over the reason (SH_STAT_MAP_FULL or SH_STAT_NO_MEM), else 0,
 * and *@kp [other].
 */
static __always_inline struct sh_hist *hash_hists(struct task_struct *t, __u32 cpu, int *over,
						  struct sh_key *kp, const struct cfg *cf)
{
	struct sh_key key = *kp;
	struct sh_hist *h, *nv;
	__u32 zero = 0;
	long err;

	h = bpf_map_lookup_elem(&hists, &key);
	if (h) {
		if (comm_changed(h, t, cpu))
			comm_to_cpu0(bpf_map_lookup_percpu_elem(&hists, &key, 0), t, cf);
		return h;
	}
	nv = bpf_map_lookup_elem(&newval, &zero);
	if (!nv)
		return 0;
	nv->birth = __sync_fetch_and_add(&sh_births, 1) & SH_BIRTH_ID;
	err = bpf_map_update_elem(&hists, &key, nv, BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&sh_live_keys, 1);
		__sync_fetch_and_add(&sh_keys_made, 1);
	}
	if (err && err != -EEXIST /* created meanwhile on another CPU */) {
		/*
		 * -E2BIG: full, unless key_slot() found no element for the
		 * key's directory entry (*over); -ENOMEM: no element free at
		 * this moment
		 */
		*over = err == -E2BIG && *over != SH_STAT_NO_MEM ? SH_STAT_MAP_FULL : SH_STAT_NO_MEM;
		__builtin_memset(&key, 0, sizeof(key));
		key.id = SH_OTHER_ID;
		*kp = key;
	} else {
		*over = 0;	/* under its own key */
	}
	return bpf_map_lookup_elem(&hists, &key);
}

/*
 * Histograms (one per metric) for @t's key, into *@kp (zeroed by the
 * caller): this CPU's cache entry for its slot when it has one (the slot
 * index kept in @c, while the slot still holds that key: no hash
 * lookup), else the key map's (hash_hists()). *@slot: the slot, or
 * SH_SLOT_HASH; *@spare: see cache_hists().
 */
static __always_inline struct sh_hist *keyed_hists(struct task_struct *t, struct task_core *c,
						   __u32 cpu, struct sh_pcpu *pc, int *over,
						   struct sh_key *kp, __u32 *slot, bool *spare,
						   const struct cfg *cf)
{
	struct sh_key key = {};
	struct sh_hist *h;
	__u32 i;

	task_key(t, &key);
	*kp = key;
	i = c->kidx;
	if (nr_slots && i != SH_SLOT_HASH) {
		struct sh_key *sk = bpf_map_lookup_elem(&slot_keys, &i);

		if (sk && sk->id == key.id && ((__u64 *)sk->comm)[0] == ((__u64 *)key.comm)[0] &&
		    ((__u64 *)sk->comm)[1] == ((__u64 *)key.comm)[1])
			goto slot;
	} else {
		h = bpf_map_lookup_elem(&hists, &key);
		if (h) {
			if (comm_changed(h, t, cpu))
				comm_to_cpu0(bpf_map_lookup_percpu_elem(&hists, &key, 0), t, cf);
			return h;
		}
	}
	i = nr_slots ? key_slot(&key, over) : SH_SLOT_HASH;
	c->kidx = i;
	if (i == SH_SLOT_HASH)
		return hash_hists(t, cpu, over, kp, cf);
slot:
	if (i >= nr_slots)	/* never: slot indexes are below nr_slots; a bound for the verifier */
		return 0;
	*slot = i;
	return cache_hists(i, cpu, pc, spare);
}

#endif /* __SCHEDHIST_KEYS_BPF_H */
