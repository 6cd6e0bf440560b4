/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's exec watcher: loads bpf/profile_execs.bpf.c and, at each
 * execve() of a traced process, reads the new program's maps once it has
 * run EXECWATCH_DELAY_NS (the dynamic loader maps its libraries first),
 * while the loop sleeps (loop_watch()); and it is the symbolizer's exec
 * probe (sym_set_exec_probe()), so that a program's maps are kept only if
 * that program ran before and after the reading. A program that ends
 * within the delay, or past EXECWATCH_READS_PER_S in one second, is named
 * from its maps if its waits find it still running, else not at all:
 * never with another program's names.
 */
#ifndef SH_EXECWATCH_H
#define SH_EXECWATCH_H

#include <linux/types.h>

#include "profile/symbolize.h"

#define EXECWATCH_DELAY_NS 5000000ULL
#define EXECWATCH_READS_PER_S 256

struct execwatch_spec {
	__u32 tgid;		/* -p: 0 = every process */
	int cgroup_hier;	/* -c, as the profile's */
	__u64 cgroup_id;
	__u32 cgroup_level;
	__u64 ns_per_tick;	/* of /proc/PID/stat's starttime */
};

struct execwatch;

/* Load, attach, watch. NULL (after a warning): exec naming as without a probe. */
struct execwatch *execwatch_start(struct sym_cache *sym, const struct execwatch_spec *sp);
void execwatch_stop(struct execwatch *w);
/* execve()s seen, and programs whose maps were read at once. */
__u64 execwatch_seen(const struct execwatch *w);
__u64 execwatch_read(const struct execwatch *w);

#endif /* SH_EXECWATCH_H */
