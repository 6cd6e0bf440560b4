/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * cgroup hierarchies: find the mount (from mountinfo, never hard-coded),
 * turn a user's path into a cgroup, and cgroup ids into paths.
 */
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

/*
 * Find the mount point of the cgroup2 hierarchy (@ctrl NULL) or of the v1
 * hierarchy that carries controller @ctrl, in the mountinfo text at
 * @mountinfo. 0 on success, -1 if no such hierarchy is mounted.
 */
int cg_find_mount(const char *mountinfo, const char *ctrl, char *out, size_t len);

/*
 * v1 controllers whose mount option differs from the kernel's subsystem
 * name (cgroup_subsys_id is <subsys>_cgrp_id): blkio is mounted as
 * "blkio" but its subsystem is "io". Either name is accepted.
 */
const char *cg_subsys_name(const char *ctrl);
const char *cg_mount_option(const char *ctrl);

/* Read /proc/self/mountinfo and set up @cg for hierarchy @ctrl. */
int cg_open(struct cgroups *cg, const char *ctrl);
void cg_close(struct cgroups *cg);

/*
 * Resolve @user_path (absolute under the mount, or relative to the
 * hierarchy root like "/system.slice") to its id and level (0 = root).
 * On error returns -1 with a message in @err.
 */
int cg_lookup(struct cgroups *cg, const char *user_path, __u64 *id, __u32 *level,
	      char *err, size_t errlen);

/*
 * Path of cgroup @id relative to the root. Unknown ids trigger one walk of
 * the hierarchy per @gen (the poller's interval counter); an id still
 * unknown is a removed cgroup and gets NULL.
 */
const char *cg_path(struct cgroups *cg, __u64 id, __u64 gen);

/* Path of cgroup @id as learnt so far (no walk, no file touched), or NULL. */
const char *cg_known(const struct cgroups *cg, __u64 id);

/*
 * Walk the hierarchy now (interval @gen) and learn every cgroup it can
 * list. Called before the privilege drop, so that the cgroups of then are
 * named whatever the dropped user may list: later walks keep the names of
 * cgroups below directories they cannot list (and mark the walk partial).
 */
void cg_walk(struct cgroups *cg, __u64 gen);

/*
 * Is cgroup @id still there? One stat of its cached path; false only when
 * it is known gone (no such path, or another cgroup there, or unknown
 * after a walk that could list everything). A cgroup this user cannot
 * reach is kept: it is never called removed.
 */
bool cg_exists(struct cgroups *cg, __u64 id);

#endif /* SH_CGROUP_H */
