/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Loader: opens, configures, loads and attaches the BPF side. */
#ifndef SH_LOADER_H
#define SH_LOADER_H

#include <linux/types.h>
#include "options.h"

struct schedhist_bpf;

struct sh_loader {
	struct schedhist_bpf *skel;
	int ncpus;		/* possible CPUs: per-CPU values per key */
	int hists_fd;		/* per-CPU hash: key -> histogram */
	int pcpu_fd;		/* per-CPU array: counters + key-none histogram */
	int nlinks;		/* programs attached */
};

/* What the cgroup options resolved to (see user/cgroup.h). */
struct sh_cgroup_cfg {
	int hier;		/* SH_CGROUP_V2 or a v1 cgroup_subsys_id */
	__u64 filter_id;	/* -c subtree root id, 0 = none */
	__u32 filter_level;	/* its level */
};

/*
 * Load and attach. On failure prints one line saying what failed and why,
 * cleans up, and returns -1 (nothing stays loaded).
 */
int loader_start(struct sh_loader *l, const struct options *o, const struct sh_cgroup_cfg *cg);
/* Detach the programs (the maps stay readable for a final snapshot). */
void loader_detach(struct sh_loader *l);
void loader_close(struct sh_loader *l);

/* Advance the max epoch; returns the epoch that just ended. */
__u32 loader_next_epoch(struct sh_loader *l);

/* The cgroup_subsys_id of v1 controller @name from kernel BTF, or -1. */
int loader_cgroup_subsys_id(const char *name);

#endif /* SH_LOADER_H */
