/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Least privilege for the long-running modes (--listen, --prom-file).
 * Loading and attaching the programs needs CAP_BPF and CAP_PERFMON (or
 * CAP_SYS_ADMIN); once that is done, with the socket bound and the
 * --prom-file directory open, nothing the poller does needs a capability:
 * the map file descriptors stay usable (Linux 5.19 and later check the
 * capability when a map or program is created, not when an open one is
 * read), and the skeleton's mmapped data keeps working.
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

/*
 * Fleet mode's user, before anything is loaded: --user @name (NULL: none
 * given), else PRIVDROP_DEFAULT_USER when started as root. 0, or -1 after
 * printing why.
 */
int privdrop_fleet_user(const char *name, struct user *u);

/*
 * Drop privileges, in the only thread there is (threads started later
 * inherit the result): no new privileges (PR_SET_NO_NEW_PRIVS), an empty
 * bounding set when allowed to change it, no supplementary groups
 * (always), the user of @u if set (setgid, setuid), then empty
 * capability sets. -v says what it runs as.
 * @probe reads a BPF map with the fds already open, returning 0 or
 * -errno. If that fails with EPERM without capabilities (kernels before
 * 5.19 with kernel.unprivileged_bpf_disabled set refuse every bpf() call
 * to processes without CAP_BPF), CAP_BPF alone is kept (CAP_SYS_ADMIN if
 * CAP_BPF was not held), with a warning.
 * 0, or -1 after printing why.
 */
int privdrop(const struct user *u, int (*probe)(void *arg), void *arg);

#endif /* SH_PRIVDROP_H */
