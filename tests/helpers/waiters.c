// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload for --profile: three threads that block differently, each
 * timing its own blocking calls (CLOCK_MONOTONIC around each call):
 *   w_pipe   read(2) of one byte from a pipe that w_feed fills every MS
 *   w_sleep  nanosleep(2) of MS
 *   w_futex  FUTEX_WAIT with a timeout of MS on a word nobody changes
 * (w_feed, the pipe's writer, sleeps MS between bytes.) Built with frame
 * pointers (the Makefile), so each thread's user stack walks back to its
 * own function: pipe_reader, nap_sleeper, futex_waiter. Prints "ready
 * PID" once the threads run and, after SECONDS, one line per thread:
 *   thread COMM tid TID calls N blocked_ns S
 * usage: waiters [-m MS] [-t SECONDS]
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double ms = 10, seconds = 3;
static int pipefd[2];
static volatile int stop;

struct waiter {
	const char *comm;
	void *(*fn)(void *);
	pid_t tid;
	unsigned long long calls, blocked_ns;
};

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct timespec ms_ts(void)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (int)(ms / 1000) * 1000) * 1e6) };

	return ts;
}

static void begin(struct waiter *w)
{
	prctl(PR_SET_NAME, w->comm);
	w->tid = (pid_t)syscall(SYS_gettid);
}

/* the blocking call itself, timed */
static __attribute__((noinline)) void timed(struct waiter *w, int kind)
{
	struct timespec ts = ms_ts();
	unsigned long long t0 = now();
	static int word;
	char c;

	if (kind == 0) {
		if (read(pipefd[0], &c, 1) != 1)
			stop = 1;
	} else if (kind == 1) {
		nanosleep(&ts, NULL);
	} else {
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	}
	w->blocked_ns += now() - t0;
	w->calls++;
}

static __attribute__((noinline)) void *pipe_reader(void *arg)
{
	begin(arg);
	while (!stop)
		timed(arg, 0);
	return NULL;
}

static __attribute__((noinline)) void *nap_sleeper(void *arg)
{
	begin(arg);
	while (!stop)
		timed(arg, 1);
	return NULL;
}

static __attribute__((noinline)) void *futex_waiter(void *arg)
{
	begin(arg);
	while (!stop)
		timed(arg, 2);
	return NULL;
}

static void *pipe_feeder(void *arg)
{
	struct timespec ts = ms_ts();

	begin(arg);
	while (!stop) {
		nanosleep(&ts, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct waiter w[] = {
		{ .comm = "w_pipe", .fn = pipe_reader }, { .comm = "w_sleep", .fn = nap_sleeper },
		{ .comm = "w_futex", .fn = futex_waiter }, { .comm = "w_feed", .fn = pipe_feeder },
	};
	pthread_t th[4];
	int opt, i;

	while ((opt = getopt(argc, argv, "m:t:")) != -1) {
		if (opt == 'm')
			ms = atof(optarg);
		else if (opt == 't')
			seconds = atof(optarg);
		else
			return 2;
	}
	if (pipe(pipefd))
		return 1;
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, w[i].fn, &w[i]);
	printf("ready %d\n", getpid());
	fflush(stdout);
	usleep((useconds_t)(seconds * 1e6));
	stop = 1;
	/* the reader's last read: one more byte after the feeder stops */
	pthread_join(th[3], NULL);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 3; i++)
		printf("thread %s tid %d calls %llu blocked_ns %llu\n", w[i].comm, w[i].tid,
		       w[i].calls, w[i].blocked_ns);
	return 0;
}
