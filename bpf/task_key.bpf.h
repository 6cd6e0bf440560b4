/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which tasks are traced (-p, -c) and each task's key (-k comm, pid, tid,
 * cgroup, pidns), read from the task_struct with direct BTF loads (CO-RE
 * for the cgroup ancestors, whose layout changed in 6.1). No map, no
 * helper call: a key's cost is where its histograms are (keys.bpf.h).
 */
#ifndef __SCHEDHIST_TASK_KEY_BPF_H
#define __SCHEDHIST_TASK_KEY_BPF_H

#include "settings.bpf.h"

/* Kernels before 6.1 kept ancestor ids instead of ancestor pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

/* @t's cgroup in the hierarchy looked at. Direct BTF loads throughout. */
static __always_inline struct cgroup *task_cgroup(struct task_struct *t)
{
	struct css_set *cs = t->cgroups;
	struct cgroup_subsys_state *css;

	if (!cs)
		return 0;
	if (cgroup_hier < 0)
		return cs->dfl_cgrp;
	if (cgroup_hier >= SH_CGROUP_SUBSYS_MAX)
		return 0;
	css = cs->subsys[cgroup_hier & (SH_CGROUP_SUBSYS_MAX - 1)];
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

/* The cgroup key: the task's cgroup id, rolled up to cgroup_depth. */
static __always_inline __u64 task_cgroup_id(struct task_struct *t)
{
	struct cgroup *cg = task_cgroup(t);

	if (!cg)
		return 0;
	if (cgroup_depth && cg->level > cgroup_depth)
		return cgroup_ancestor_id(cg, cgroup_depth);
	return cg->kn->id;
}

/* -p and -c: is @t one of the tasks traced? */
static __always_inline bool task_traced(struct task_struct *t, const struct cfg *cf)
{
	if (plain(cf))
		return true;
	if (filter_tgid && t->tgid != filter_tgid)
		return false;
	if (filter_cgid) {
		struct cgroup *cg = task_cgroup(t);

		if (!cg || cg->level < filter_cglevel)
			return false;
		if (cgroup_ancestor_id(cg, filter_cglevel) != filter_cgid)
			return false;
	}
	return true;
}

/* @t's key in the key map (-k comm, pid, tid, cgroup) into *@key (zeroed). */
static __always_inline void task_key(struct task_struct *t, struct sh_key *key)
{
	switch (key_type) {
	case SH_KEY_COMM:
		copy_comm(key->comm, t->comm);
		break;
	case SH_KEY_PID:
		key->id = (__u32)t->tgid;
		break;
	case SH_KEY_TID:
		key->id = (__u32)t->pid;
		break;
	case SH_KEY_CGROUP:
		key->id = task_cgroup_id(t);
		break;
	case SH_KEY_PIDNS:
		/* an exiting task has no nsproxy any more: 0, never a namespace's inode */
		key->id = t->nsproxy ? t->nsproxy->pid_ns_for_children->ns.inum : 0;
		break;
	}
}

#endif /* __SCHEDHIST_TASK_KEY_BPF_H */
