/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Kernel memory of the BPF maps from their definitions, as map_mem_usage accounts it (bpftool's
 * bytes_memlock), every hash entry taken. Pure, for the bench and the loader's fit.
 */
#ifndef SH_KMEM_H
#define SH_KMEM_H

#include <stdbool.h>
#include <linux/types.h>

/* --culprits: culprit map entries per key map entry. */
#define SH_CULPRITS_PER_KEY 8
/* --causes: groups whose run time each CPU keeps (bpf/cause.bpf.h cause_self) */
#define SH_CAUSE_GROUPS 8192
/*
 * Store slots: one entry per key for all CPUs, written through each CPU's SH_CACHE-entry cache
 * (SCHEDHIST_CACHE_ENTRIES: a power of two up to SH_CACHE_MAX overrides it).
 */
#define SH_CACHE_MAX 1024U

enum kmem_map {
	KMEM_TASKS,		/* array: the task table */
	KMEM_PCPU,		/* per-CPU array: counters, keys none/cpu, pair cache */
	KMEM_NEWVAL,		/* per-CPU array: a new key's value */
	KMEM_SLOTS,		/* array (mmapable): the store, a slot's histograms per key */
	KMEM_SLOT_SEQ,		/* array (mmapable): each slot's seq bracket and max lock */
	KMEM_CACHE,		/* array (mmapable): each CPU's cache of the store */
	KMEM_CACHE_SPARE,	/* per-CPU array: a cache entry for a miss that finds its entry claimed */
	KMEM_SLOT_KEYS,		/* array (mmapable): each slot's key */
	KMEM_FREE_SLOTS,	/* stack: the free slots */
	KMEM_KEYDIR,		/* hash: key -> slot */
	KMEM_HISTS,		/* per-CPU hash: the key map */
	KMEM_CULPRITS,		/* hash, shared by the CPUs: --culprits pairs */
	KMEM_STACKS,		/* hash, shared by the CPUs: --stacks */
	KMEM_STACK_ZERO,	/* array of one: a new stack entry's value */
	KMEM_RUN_RING,		/* array, an entry per CPU: --culprit-mode time's runs */
	KMEM_CAUSES,		/* hash, shared by the CPUs: --causes, per key */
	KMEM_CAUSE_CPUS,	/* per-CPU array: --causes, each CPU's counters */
	KMEM_CAUSE_SELF,	/* LRU per-CPU hash (preallocated): --causes, each group's run time */
	KMEM_GLOBALS,		/* .rodata, .data, .bss (arrays of one page each) */
	KMEM_NR,
};

/* What a report says of the maps' memory (JSON kernel_memory, schedhist_kernel_memory_*). */
struct kmem_usage {
	__u64 bytes;		/* reserved: the maps at the worst (every hash entry taken) */
	__u64 budget;		/* --max-kernel-mem, bytes */
	__u64 keys;		/* keys the maps hold (the key capacity; 0 for keys none and cpu) */
	__u64 cache_entries;	/* the store's cache entries per CPU (0 for keys none and cpu) */
	/* since the start, all CPUs: keyed switch-ins whose slot was in the CPU's cache, or not */
	__u64 cache_hits, cache_misses;
	__u64 max_lost;		/* flushed max records not merged (the slot's lock stayed taken) */
	__u64 stack_lost;	/* --stacks: a new max's stack not kept (another CPU was writing it) */
};

struct kmem_cfg {
	int ncpus;		/* possible CPUs */
	int nmetrics;		/* histograms per key */
	int schema;		/* --schema: SH_NBUCKETS(schema) buckets per histogram */
	bool keyed;		/* -k comm, pid, tid, cgroup (the key maps are used) */
	bool key_cpu;		/* -k cpu (--stacks keeps one entry per CPU) */
	__u32 max_keys;		/* key capacity (slots and key map), [other] beyond */
	__u32 task_entries;	/* task table entries */
	bool culprits, stacks, causes;
	__u32 cache_entries;	/* cache entries per CPU */
	bool culprit_time;	/* --culprit-mode time: a run ring per CPU */
};

struct kmem_plan {
	__u32 nr_slots;		/* slots of the store */
	__u32 max_entries[KMEM_NR];
	__u64 bytes[KMEM_NR];	/* each map at the worst */
	/* a hash's bytes per entry taken (entries are allocated as made), 0 for the rest */
	__u64 entry_bytes[KMEM_NR];
	__u64 total;		/* their sum */
};

/* Map names as bpftool shows them (the first 15 characters of the BPF names). */
extern const char *const kmem_map_names[KMEM_NR];

void kmem_layout(const struct kmem_cfg *c, struct kmem_plan *p);

/*
 * Fit the key capacity into @budget: c->max_keys if it fits, else with !@exact the largest that
 * does. 0 with *@p, or -1 (*@p the layout asked for, over budget).
 */
int kmem_fit(struct kmem_cfg *c, __u64 budget, bool exact, struct kmem_plan *p);

#endif /* SH_KMEM_H */
