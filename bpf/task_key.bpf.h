/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which tasks are traced (-p, -c) and each task's key (-k comm, pid, tid,
 * cgroup, pidns), read from the task_struct with direct BTF loads (the
 * cgroup's from cgroup.bpf.h). No map, no helper call: a key's cost is
 * where its histograms are (keys.bpf.h).
 */
#ifndef __SCHEDHIST_TASK_KEY_BPF_H
#define __SCHEDHIST_TASK_KEY_BPF_H

#include "settings.bpf.h"
#include "cgroup.bpf.h"

/* @t's cgroup in the hierarchy looked at (-k cgroup, -c, --cgroup-hier). */
static __always_inline struct cgroup *task_cgroup(struct task_struct *t)
{
	return cgroup_of(t, cgroup_hier);
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
	if (filter_cgid && !in_cgroup_subtree(t, cgroup_hier, filter_cgid, filter_cglevel))
		return false;
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
