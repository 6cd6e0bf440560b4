/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* cgroup hierarchies: the mount (from mountinfo), a user's path to a cgroup, ids to paths. */
#ifndef SH_CGROUP_H
#define SH_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct cg_name {
	__u64 id;		/* kernfs id (the directory's inode number) */
	char *path;		/* relative to the hierarchy root, "/" for the root */
};

struct cgroups {
	char mount[4096];	/* where the hierarchy is mounted */
	const char *ctrl;	/* NULL = cgroup2, else the v1 controller */
	struct cg_name *names;	/* id -> path, sorted by id */
	size_t nnames;
	__u64 walk_gen;		/* interval of the last full walk */
	bool partial;		/* that walk could not list some directories */
};

/* The mount of cgroup2 (@ctrl NULL) or of v1 controller @ctrl in @mountinfo. 0 or -1. */
int cg_find_mount(const char *mountinfo, const char *ctrl, char *out, size_t len);

/* The kernel subsystem of v1 controller @ctrl where it differs from the mount option. */
const char *cg_subsys_name(const char *ctrl);
const char *cg_mount_option(const char *ctrl);

/* Read /proc/self/mountinfo and set up @cg for hierarchy @ctrl. */
int cg_open(struct cgroups *cg, const char *ctrl);
void cg_close(struct cgroups *cg);

/* Resolve @user_path (under the mount, or from the root) to id and level (0: root). -1, @err. */
int cg_lookup(struct cgroups *cg, const char *user_path, __u64 *id, __u32 *level,
	      char *err, size_t errlen);

/*
 * Path of cgroup @id from the root; unknown ids cause one walk per @gen (the interval);
 * NULL if still unknown (removed).
 */
const char *cg_path(struct cgroups *cg, __u64 id, __u64 gen);

/* Path of cgroup @id as learnt so far (no walk, no file touched), or NULL. */
const char *cg_known(const struct cgroups *cg, __u64 id);

/*
 * Learn every cgroup the walk can list now (interval @gen). Run before the privilege drop:
 * later walks keep names below directories they cannot list (the walk marked partial).
 */
void cg_walk(struct cgroups *cg, __u64 gen);

/* Is cgroup @id still there? False only when known gone; one this user cannot reach is kept. */
bool cg_exists(struct cgroups *cg, __u64 id);

#endif /* SH_CGROUP_H */
