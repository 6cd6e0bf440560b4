/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's exec watcher: loads bpf/profile_execs.bpf.c, whose exec log
 * (global memory, SH_PROF_EXEC_LOG slots) it reads through the mmap every
 * EXECWATCH_POLL_NS while the loop sleeps (a timerfd given to
 * loop_watch()), and reads each new program's maps once it has run
 * EXECWATCH_DELAY_NS (the dynamic loader maps its libraries first): one
 * not yet due waits for a later poll. It is the symbolizer's exec probe
 * (sym_set_exec_probe()), so that a program's maps are kept only if that
 * program ran before and after the reading. A program that ends within
 * the delay, past EXECWATCH_READS_PER_S in one second, or whose slot was
 * overwritten before a poll (counted missed), is named from its maps if
 * its waits find it still running, else not at all: never with another
 * program's names.
 */
#ifndef SH_EXECWATCH_H
#define SH_EXECWATCH_H

#include <linux/types.h>

#include "profile/symbolize.h"

#define EXECWATCH_DELAY_NS 5000000ULL
/* How often the log is read: a program's maps are read at most this long after they are due */
#define EXECWATCH_POLL_NS 10000000ULL
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
/* Detach and take the rest of the log (no map read): the counts below final. */
void execwatch_end(struct execwatch *w);
void execwatch_stop(struct execwatch *w);
/*
 * execve()s taken from the log, programs whose maps were read at once,
 * and execve()s missed (their slots overwritten before a poll took them,
 * or still being written at the end).
 * Taken and missed add up to every execve() traced until execwatch_end().
 */
__u64 execwatch_seen(const struct execwatch *w);
__u64 execwatch_read(const struct execwatch *w);
__u64 execwatch_missed(const struct execwatch *w);

#endif /* SH_EXECWATCH_H */
