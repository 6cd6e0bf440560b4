/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A task's cgroup in one hierarchy (cgroup2 or a v1 controller's) and
 * the -c test, is the task in a subtree: the main program's filter
 * (task_key.bpf.h) and --profile's (profile.bpf.c) both. Direct BTF
 * loads, CO-RE for the ancestors (their layout changed in 6.1), no map,
 * no helper call: about ten loads per task tested, and a task outside
 * the subtree then costs nothing more (no key, no stack walk). No bench
 * row: bench/run.sh has no -c arm (its workload would be the only task
 * traced either way).
 */
#ifndef __SCHEDHIST_CGROUP_BPF_H
#define __SCHEDHIST_CGROUP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "schedhist.h"

/* Kernels before 6.1 kept ancestor ids instead of ancestor pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

/* @t's cgroup in hierarchy @hier (SH_CGROUP_V2 or a v1 cgroup_subsys_id). */
static __always_inline struct cgroup *cgroup_of(struct task_struct *t, int hier)
{
	struct css_set *cs = t->cgroups;
	struct cgroup_subsys_state *css;

	if (!cs)
		return 0;
	if (hier < 0)
		return cs->dfl_cgrp;
	if (hier >= SH_CGROUP_SUBSYS_MAX)
		return 0;
	css = cs->subsys[hier & (SH_CGROUP_SUBSYS_MAX - 1)];
	return css ? css->cgroup : 0;
}

/*
 * Id of @cg's ancestor at @level (0 = root), with @level <= cg->level.
 * CO-RE: the ancestors array replaced ancestor_ids in 6.1.
 */
static __always_inline __u64 cgroup_ancestor_id(struct cgroup *cg, __u32 level)
{
	if (bpf_core_field_exists(cg->ancestors)) {
		struct cgroup *anc = 0;

		bpf_core_read(&anc, sizeof(anc), &cg->ancestors[level & 0xff]);
		return anc ? BPF_CORE_READ(anc, kn, id) : 0;
	} else {
		struct cgroup___old *old = (void *)cg;
		__u64 id = 0;

		bpf_core_read(&id, sizeof(id), &old->ancestor_ids[level & 0xff]);
		return id;
	}
}

/* -c: is @t in the subtree of cgroup @id, at @level of hierarchy @hier? */
static __always_inline bool in_cgroup_subtree(struct task_struct *t, int hier, __u64 id,
					      __u32 level)
{
	struct cgroup *cg = cgroup_of(t, hier);

	return cg && cg->level >= level && cgroup_ancestor_id(cg, level) == id;
}

#endif /* __SCHEDHIST_CGROUP_BPF_H */
