/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's privileged broker: a child forked before the poller drops
 * its privileges, that only opens files read-only and hands their
 * descriptors back over a socketpair (SCM_RIGHTS). It keeps root and the
 * capabilities the files need (CAP_SYS_PTRACE: other users' maps;
 * CAP_DAC_READ_SEARCH: files they alone may read; CAP_CHECKPOINT_RESTORE,
 * else CAP_SYS_ADMIN: map_files), under a seccomp filter of its own that
 * allows only receiving, opening read-only, checking and sending. A
 * request names what it wants (symbolize.h's enum sym_file) and a tgid,
 * never a free path: only /proc/TGID/maps, /proc/TGID/stat,
 * /proc/TGID/map_files/START-END and /proc/TGID/root/PATH (an absolute
 * PATH without "..", resolved inside that root with openat2(2)'s
 * RESOLVE_IN_ROOT, O_NOFOLLOW), and only a regular file with the inode
 * the request names for the last two. It ends when the poller closes its
 * end or dies.
 */
#ifndef SH_BROKER_H
#define SH_BROKER_H

#include <linux/types.h>

#include "profile/symbolize.h"

struct broker;

/* Fork the broker. NULL after printing why. */
struct broker *broker_start(void);
/* symbolize.h's opener (sym_open_fn) through the broker @b. */
int broker_open(void *b, enum sym_file what, __u32 tgid, __u64 start, __u64 end, __u64 ino,
		const char *path);
/* Close the socket and reap the broker. */
void broker_stop(struct broker *b);

/* One request, as the socket carries it (for the fuzz target of its validation). */
struct broker_req {
	__u32 what;		/* enum sym_file */
	__u32 tgid;
	__u64 start, end;	/* SYM_MAP_FILE: the mapping */
	__u64 ino;		/* SYM_ROOT_FILE, SYM_MAP_FILE: the inode wanted, 0: any */
	char path[4096];	/* SYM_ROOT_FILE: the path in the process's root */
};

/* 0 if @r may be served, else -EINVAL (malformed) or -EPERM (not a file it opens). */
int broker_check(const struct broker_req *r);

#endif /* SH_BROKER_H */
