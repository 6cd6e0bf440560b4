/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Least privilege for the long-running modes: once attached nothing needs a capability, and
 * open map fds stay usable (docs/architecture.md, privdrop.c).
 */
#ifndef SH_PRIVDROP_H
#define SH_PRIVDROP_H

#include <stdbool.h>
#include <sys/types.h>

/* Fleet mode started as root switches to this user unless --user names another. */
#define PRIVDROP_DEFAULT_USER "nobody"

struct user {
	bool set;		/* switch to it (--user, or the default when root) */
	uid_t uid;
	gid_t gid;		/* its primary group, the only group kept */
	char name[64];
};

/* Look up --user NAME before anything is loaded. 0, or -1 after printing why. */
int privdrop_lookup(const char *name, struct user *u);

/* Fleet mode's user: --user @name, else PRIVDROP_DEFAULT_USER when root. 0 or -1. */
int privdrop_fleet_user(const char *name, struct user *u);

/*
 * Drop privileges in the only thread: no new privileges, empty bounding set, no groups, @u's
 * user, empty capabilities. If @probe (a map read) then fails with EPERM, CAP_BPF stays. 0 or -1.
 */
int privdrop(const struct user *u, int (*probe)(void *arg), void *arg);

#endif /* SH_PRIVDROP_H */
