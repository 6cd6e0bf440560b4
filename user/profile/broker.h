/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's privileged broker: a child forked before the drop that only opens the few /proc
 * files a request names (never a free path) read-only and passes their fds (SCM_RIGHTS).
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
