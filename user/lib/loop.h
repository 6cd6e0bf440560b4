/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The poll loop's waits: stop signals through a self-pipe that every wait polls, the schedule
 * of readings, whole writes of reports (docs/architecture.md, loop.c).
 */
#ifndef SH_LOOP_H
#define SH_LOOP_H

#include <stddef.h>
#include <linux/types.h>

/* Install the handlers (no SA_RESTART) and the self-pipe; ignore SIGPIPE. 0, or -1 with errno. */
int loop_init(void);

/* Stop signals received so far (0: none). */
unsigned int stop_count(void);

/* The last stop signal received, 0 if none. */
int stop_signo(void);

/* Sleep until CLOCK_MONOTONIC reaches @t_ns (0: no limit) or a stop signal; serves loop_watch(). */
void loop_sleep_until(__u64 t_ns);

/* Serve @fd while sleeping (--live's keys): @fn(@arg) when readable or on SIGWINCH. -1: none. */
void loop_watch(int fd, void (*fn)(void *arg), void *arg);

/* Ask for a stop, as a stop signal does (the --live view's "q"). */
void loop_request_stop(void);

/*
 * Write all @len bytes, waiting out a slow reader, until a second stop signal: then only while
 * the reader keeps up. 0, -EPIPE (reader gone), -ECANCELED (report cut), or -errno.
 */
int write_whole(int fd, const void *buf, size_t len);

/* The next reading after @next (just taken) at @now on the grid of @interval; stalls skip, O(1). */
__u64 schedule_next(__u64 next, __u64 now, __u64 interval);

#endif /* SH_LOOP_H */
