/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Loader: opens, configures, loads and attaches the BPF side. */
#ifndef SH_LOADER_H
#define SH_LOADER_H

#include <stdbool.h>
#include <linux/types.h>
#include <sys/types.h>
#include "lib/names.h"
#include "schedhist.h"
#include "kernel/snapshot_read.h"

struct schedhist_bpf;
struct bpf_link;


struct loader {
	struct schedhist_bpf *skel;
	int ncpus;		/* possible CPUs: per-CPU values per key */
	int hists_fd;		/* per-CPU hash: key -> histogram */
	int pcpu_fd;		/* per-CPU array: counters + key-none histogram */
	int culprit_fd;		/* --culprits: per-CPU hash (waiter, culprit), else -1 */
	int stack_fd;		/* --stacks: per-CPU hash key -> stacks, else -1 */
	int cause_fd;		/* --causes: per-CPU hash key -> struct sh_causes, else -1 */
	__u32 nr_slots;		/* slots of the store, 0 = none */
	__u32 cache_entries;	/* cache entries per CPU (a power of two) */
	int slots_fd;		/* array: slot -> histograms (the store) */
	int slot_keys_fd;	/* array: slot -> its key (SH_FREE_ID: free) */
	int slot_seq_fd;	/* array: slot -> its seq bracket and max lock */
	int cache_fd;		/* array: (CPU, entry) -> cached histograms */
	void *slots_mem;	/* the four arrays, mapped (NULL without slots) */
	struct sh_key *slot_keys_mem;
	struct sh_slot_seq *slot_seq_mem;
	void *cache_mem;
	size_t slots_len, slot_keys_len, slot_seq_len, cache_len;	/* their mappings' lengths */
	int keydir_fd;		/* hash: key -> slot or SH_SLOT_HASH */
	int free_fd;		/* stack: the free slots */
	int nlinks;		/* programs attached */
	struct bpf_link **switch_link;	/* the sched_switch program's (NULL once detached) */
	__u32 task_entries;	/* task table entries (1 with the wakeup method: unused) */
	int method;		/* enum sh_method in use */
	int clock;		/* enum sh_clock in use */
	__u32 metrics;		/* bit per enum sh_metric measured */
	int nmetrics;		/* histograms per key (one per metric) */
	bool reclaims;		/* the kernel folds gone keys into [exited] */
	__u32 *live_keys;	/* the BPF side's count of its keys (its .bss) */
	__u32 *slots_taken;	/* ... and of its slots taken (sh_slots_taken) */
	__u32 max_keys;		/* keys the maps hold (--max-keys, or what the budget fits) */
	__u64 kmem_bytes;	/* kernel memory of the maps at the worst (user/model/kmem.h) */
	__u64 kmem_budget;	/* --max-kernel-mem, bytes */
};

/* What the cgroup options resolved to (see user/model/cgroup.h). */
struct cgroup_cfg {
	int hier;		/* SH_CGROUP_V2 or a v1 cgroup_subsys_id */
	__u64 filter_id;	/* -c subtree root id, 0 = none */
	__u32 filter_level;	/* its level */
};

struct loader_spec {
	__u32 metrics;		/* bit per enum sh_metric */
	int method;		/* enum sh_method, or SH_METHOD_AUTO */
	int clock;		/* enum sh_clock, or SH_CLOCK_AUTO */
	int key_type;		/* enum sh_key_type */
	pid_t pid;		/* only this process, 0 = all */
	__u32 cgroup_depth;	/* -k cgroup roll-up depth, 0 = none */
	__u32 max_keys;		/* key map capacity, [other] beyond */
	bool max_keys_set;	/* ... given: refused, not lowered, when over the budget */
	__u64 max_kernel_mem;	/* the maps' kernel memory at most, bytes */
	__u32 task_table;	/* task table entries (a power of two), 0 = from pid_max */
	bool culprits;		/* --culprits: the culprit map (runq waits blamed on prev) */
	int culprit_mode;	/* --culprit-mode: enum sh_culprit_mode */
	bool stacks;		/* --stacks: the stack map (the max wait's kernel stack) */
	bool causes;		/* --causes: the cause map (runq waits split by cause) */
	struct cgroup_cfg cg; /* hierarchy and -c filter */
};

/*
 * Load and attach; on failure one line why, nothing stays loaded: -1, or -2 if over --max-kernel-
 * mem.
 */
int loader_start(struct loader *l, const struct loader_spec *sp);
/*
 * The sizing step (loader_size.c): task table and keys to fit --max-kernel-mem. 0, -2 (no key
 * fits), -1.
 */
int loader_size(struct loader *l, const struct loader_spec *sp);
/* Keys that live in the key maps (cpu keys are the per-CPU index, none has one). */
bool loader_keyed(const struct loader_spec *sp);

/* The maps a reading reads (snapshot_read()), keyed by @key_type (enum sh_key_type). */
struct read_maps loader_maps(const struct loader *l, int key_type);

void loader_detach(struct loader *l);
void loader_close(struct loader *l);

/* Wait until every tracepoint program run begun before now has ended (an RCU grace period). */
void loader_grace_period(void);

/* Advance the max epoch; returns the epoch that just ended. */
__u32 loader_next_epoch(struct loader *l);

/* No fold runs from loader_read_begin() to _end() (docs/key-lifecycle.md). */
void loader_read_begin(struct loader *l);
void loader_read_end(struct loader *l);



/* Keys the kernel side has made in the key map since the start. */
__u64 loader_keys_made(const struct loader *l);


#endif /* SH_LOADER_H */
