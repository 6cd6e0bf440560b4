/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the poll loop (main.c) waits on: stop signals, the schedule of
 * readings, and whole writes of the reports. SIGINT, SIGTERM and SIGHUP
 * (unless started with SIGHUP ignored, as nohup does) ask for a stop: the
 * handler only counts them and writes a byte to a self-pipe, so
 * that every wait of the poller (the sleep between readings, a write into
 * a full pipe) is a poll() on that pipe too and sees the signal however
 * late it comes, without the race of checking a flag before sleeping.
 * Reports are written with write_whole(): nothing ever sets O_NONBLOCK
 * on the standard output, which other processes share.
 */
#ifndef SH_LOOP_H
#define SH_LOOP_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Install the handlers (without SA_RESTART) and the self-pipe; ignore
 * SIGPIPE (a closed reader shows as EPIPE). 0, or -1 with errno.
 */
int loop_init(void);

/* Stop signals received so far (0: none). */
unsigned int stop_count(void);

/* The last stop signal received, 0 if none. */
int stop_signo(void);

/*
 * Sleep until CLOCK_MONOTONIC reaches @t_ns (0: no limit) or a stop
 * signal arrives; returns at once if one has arrived already. While it
 * sleeps, the fd given to loop_watch() is served.
 */
void loop_sleep_until(__u64 t_ns);

/*
 * Serve @fd while sleeping (the --live view's keyboard): @fn(@arg) runs
 * when @fd is readable, and after any other signal that interrupts the
 * sleep (SIGWINCH: the terminal was resized). @fd -1: none.
 */
void loop_watch(int fd, void (*fn)(void *arg), void *arg);

/* Ask for a stop, as a stop signal does (the --live view's "q"). */
void loop_request_stop(void);

/*
 * Write all @len bytes at @buf to @fd, waiting (poll) as long as the
 * reader is slow: a report is written whole, the first stop signal
 * included (it asks for the final report, which is written whole too).
 * Once a second stop signal has come (the second Ctrl-C), before or
 * during the write, it goes on only while the reader takes the bytes
 * without a wait, and gives up instead of waiting. 0; -EPIPE (the reader
 * is gone); -ECANCELED (given up: the report is cut); or another -errno.
 */
int write_whole(int fd, const void *buf, size_t len);

/*
 * The next reading after @next when the clock shows @now, on the grid
 * @start + k x @interval: readings missed by a stall are skipped, in
 * O(1). @next is the reading just taken (<= @now).
 */
__u64 schedule_next(__u64 next, __u64 now, __u64 interval);

#endif /* SH_LOOP_H */
