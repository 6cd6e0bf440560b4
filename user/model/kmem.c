// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Kernel memory of the BPF maps, by map_mem_usage()'s formulas (docs/architecture.md, kmem.c). */
#include <stddef.h>

#include "schedhist.h"
#include "model/kmem.h"

#define KMEM_PAGE 4096ULL
/* struct bpf_array, struct bpf_queue_stack (the struct bpf_map they begin with, and theirs) */
#define KMEM_ARRAY_HEAD 312ULL
/* struct bpf_htab; no per-CPU part besides per-CPU values (no per-CPU busy counters). */
#define KMEM_HTAB_HEAD 896ULL
/* struct htab_elem before the key, plus the allocator's node; one per CPU for per-CPU values. */
#define KMEM_HTAB_ELEM 56ULL
#define KMEM_LLIST_NODE 8ULL
#define KMEM_HTAB_BUCKET 16ULL
/* sizeof(struct task_entry) in bpf/schedhist.bpf.c: owner, start, task_core */
#define KMEM_TASK_ENTRY 48ULL
/* sizeof(struct cause_cpu) in bpf/cause.bpf.h */
#define KMEM_CAUSE_CPU 40ULL
/* struct htab_elem of a preallocated hash, before the key (no allocator node) */
#define KMEM_HTAB_PREALLOC_ELEM 48ULL
/* the program's global sections, an mmapable array of one value each (under a page) */
#define KMEM_GLOBAL_SECTIONS 3ULL

const char *const kmem_map_names[KMEM_NR] = {
	[KMEM_TASKS] = "tasks", [KMEM_PCPU] = "pcpu", [KMEM_NEWVAL] = "newval",
	[KMEM_SLOTS] = "slots", [KMEM_SLOT_SEQ] = "slot_seq", [KMEM_CACHE] = "cache",
	[KMEM_CACHE_SPARE] = "cache_spare", [KMEM_SLOT_KEYS] = "slot_keys",
	[KMEM_FREE_SLOTS] = "free_slots", [KMEM_KEYDIR] = "keydir", [KMEM_HISTS] = "hists",
	[KMEM_CULPRITS] = "culprit_map", [KMEM_STACKS] = "stack_map",
	[KMEM_STACK_ZERO] = "stack_zero", [KMEM_RUN_RING] = "run_ring",
	[KMEM_CAUSES] = "cause_map", [KMEM_CAUSE_CPUS] = "cause_cpus",
	[KMEM_CAUSE_SELF] = "cause_self", [KMEM_GLOBALS] = "globals",
};

static __u64 round8(__u64 n)
{
	return (n + 7) / 8 * 8;
}

static __u64 page_align(__u64 n)
{
	return (n + KMEM_PAGE - 1) / KMEM_PAGE * KMEM_PAGE;
}

static __u64 pow2_ceil(__u64 n)
{
	__u64 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static __u64 array_bytes(__u64 entries, __u64 vsize, int ncpus, bool percpu, bool mmapable)
{
	if (percpu)
		return KMEM_ARRAY_HEAD + entries * 8 + entries * round8(vsize) * ncpus;
	if (mmapable)
		return page_align(KMEM_ARRAY_HEAD) + page_align(entries * round8(vsize));
	return KMEM_ARRAY_HEAD + entries * round8(vsize);
}

static __u64 hash_entry(__u64 ksize, __u64 vsize, int ncpus, bool percpu)
{
	return KMEM_HTAB_ELEM + round8(ksize) +
	       (percpu ? 8 + (round8(vsize) + KMEM_LLIST_NODE) * ncpus : round8(vsize));
}

static __u64 lru_percpu_bytes(__u64 entries, __u64 ksize, __u64 vsize, int ncpus)
{
	return KMEM_HTAB_HEAD + pow2_ceil(entries) * KMEM_HTAB_BUCKET +
	       entries * (KMEM_HTAB_PREALLOC_ELEM + round8(ksize) + 8) +
	       entries * round8(vsize) * ncpus;
}

static __u64 hash_bytes(__u64 entries, __u64 ksize, __u64 vsize, int ncpus, bool percpu)
{

	return KMEM_HTAB_HEAD + pow2_ceil(entries) * KMEM_HTAB_BUCKET +
	       entries * hash_entry(ksize, vsize, ncpus, percpu);
}

void kmem_layout(const struct kmem_cfg *c, struct kmem_plan *p)
{
	__u64 vsize = (__u64)c->nmetrics * SH_HIST_SIZE(SH_NBUCKETS(c->schema));
	__u64 csize = sh_cent_size(c->nmetrics, SH_NBUCKETS(c->schema));
	__u32 keys = c->keyed ? c->max_keys : 0, *n = p->max_entries;
	int i;

	/* every key has a slot: the store holds one entry per key, for all CPUs */
	p->nr_slots = keys;
	n[KMEM_TASKS] = c->task_entries;
	n[KMEM_PCPU] = n[KMEM_NEWVAL] = n[KMEM_STACK_ZERO] = n[KMEM_CACHE_SPARE] = 1;
	n[KMEM_RUN_RING] = c->culprits && c->culprit_time ? (__u32)c->ncpus : 1;
	n[KMEM_SLOTS] = n[KMEM_SLOT_SEQ] = p->nr_slots ? p->nr_slots : 1;
	n[KMEM_CACHE] = p->nr_slots ? (__u32)c->ncpus * c->cache_entries : 1;
	n[KMEM_SLOT_KEYS] = n[KMEM_FREE_SLOTS] = p->nr_slots ? p->nr_slots : 1;
	n[KMEM_KEYDIR] = p->nr_slots ? keys + 2 : 1;
	/* [other] and [exited] besides the keys */
	n[KMEM_HISTS] = c->keyed ? keys - p->nr_slots + 2 : 1;
	n[KMEM_CULPRITS] = c->culprits ? SH_CULPRITS_PER_KEY * (c->max_keys + 2) : 1;
	n[KMEM_STACKS] = !c->stacks ? 1 : c->keyed ? keys + 2 : c->key_cpu ? (__u32)c->ncpus : 1;
	n[KMEM_CAUSES] = !c->causes ? 1 : c->keyed ? keys + 2 : c->key_cpu ? (__u32)c->ncpus : 1;
	n[KMEM_CAUSE_CPUS] = 1;
	n[KMEM_CAUSE_SELF] = c->causes ? SH_CAUSE_GROUPS : 1;
	n[KMEM_GLOBALS] = KMEM_GLOBAL_SECTIONS;

	p->bytes[KMEM_TASKS] = array_bytes(n[KMEM_TASKS], KMEM_TASK_ENTRY, c->ncpus, false, false);
	p->bytes[KMEM_PCPU] = array_bytes(1, sizeof(struct sh_pcpu), c->ncpus, true, false);
	p->bytes[KMEM_NEWVAL] = array_bytes(1, vsize, c->ncpus, true, false);
	p->bytes[KMEM_SLOTS] = array_bytes(n[KMEM_SLOTS], vsize, c->ncpus, false, true);
	p->bytes[KMEM_SLOT_SEQ] = array_bytes(n[KMEM_SLOT_SEQ], sizeof(struct sh_slot_seq),
					      c->ncpus, false, true);
	p->bytes[KMEM_CACHE] = array_bytes(n[KMEM_CACHE], csize, c->ncpus, false, true);
	p->bytes[KMEM_CACHE_SPARE] = array_bytes(1, csize, c->ncpus, true, false);
	p->bytes[KMEM_SLOT_KEYS] = array_bytes(n[KMEM_SLOT_KEYS], sizeof(struct sh_key), c->ncpus,
					       false, true);
	p->bytes[KMEM_FREE_SLOTS] = KMEM_ARRAY_HEAD + ((__u64)n[KMEM_FREE_SLOTS] + 1) * 4;
	p->bytes[KMEM_KEYDIR] = hash_bytes(n[KMEM_KEYDIR], sizeof(struct sh_key), 4, c->ncpus,
					   false);
	p->bytes[KMEM_HISTS] = hash_bytes(n[KMEM_HISTS], sizeof(struct sh_key), vsize, c->ncpus,
					  true);
	/* shared by the CPUs (atomic adds, or a lock per stack): O(keys), whatever the CPUs */
	p->bytes[KMEM_CULPRITS] = hash_bytes(n[KMEM_CULPRITS], sizeof(struct sh_culprit_key),
					     sizeof(struct sh_culprit_val), c->ncpus, false);
	p->bytes[KMEM_STACKS] = hash_bytes(n[KMEM_STACKS], sizeof(struct sh_key),
					   sizeof(struct sh_stacks), c->ncpus, false);
	p->bytes[KMEM_STACK_ZERO] = array_bytes(1, sizeof(struct sh_stacks), c->ncpus, false, false);
	p->bytes[KMEM_RUN_RING] = array_bytes(n[KMEM_RUN_RING], sizeof(struct sh_run_ring),
					      c->ncpus, false, false);
	p->bytes[KMEM_CAUSES] = hash_bytes(n[KMEM_CAUSES], sizeof(struct sh_key),
					   sizeof(struct sh_causes), c->ncpus, false);
	p->bytes[KMEM_CAUSE_CPUS] = array_bytes(1, KMEM_CAUSE_CPU, c->ncpus, true, false);
	p->bytes[KMEM_CAUSE_SELF] = lru_percpu_bytes(n[KMEM_CAUSE_SELF], 8, 8, c->ncpus);
	p->bytes[KMEM_GLOBALS] = KMEM_GLOBAL_SECTIONS * (page_align(KMEM_ARRAY_HEAD) + KMEM_PAGE);
	for (i = 0; i < KMEM_NR; i++)
		p->entry_bytes[i] = 0;
	p->entry_bytes[KMEM_KEYDIR] = hash_entry(sizeof(struct sh_key), 4, c->ncpus, false);
	p->entry_bytes[KMEM_HISTS] = hash_entry(sizeof(struct sh_key), vsize, c->ncpus, true);
	p->entry_bytes[KMEM_CULPRITS] = hash_entry(sizeof(struct sh_culprit_key),
						   sizeof(struct sh_culprit_val), c->ncpus, false);
	p->entry_bytes[KMEM_STACKS] = hash_entry(sizeof(struct sh_key), sizeof(struct sh_stacks),
						 c->ncpus, false);
	p->entry_bytes[KMEM_CAUSES] = hash_entry(sizeof(struct sh_key), sizeof(struct sh_causes),
						 c->ncpus, false);
	p->total = 0;
	for (i = 0; i < KMEM_NR; i++)
		p->total += p->bytes[i];
}

int kmem_fit(struct kmem_cfg *c, __u64 budget, bool exact, struct kmem_plan *p)
{
	__u32 want = c->max_keys, lo = 1, hi = want;

	kmem_layout(c, p);
	if (p->total <= budget)
		return 0;
	if (exact || !c->keyed)
		return -1;
	/* the largest capacity that fits: memory only grows with the capacity */
	c->max_keys = 1;
	kmem_layout(c, p);
	if (p->total > budget) {
		c->max_keys = want;
		kmem_layout(c, p);
		return -1;
	}
	while (lo < hi) {
		__u32 mid = lo + (hi - lo + 1) / 2;

		c->max_keys = mid;
		kmem_layout(c, p);
		if (p->total <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	c->max_keys = lo;
	kmem_layout(c, p);
	return 0;
}
