// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload for --profile: three threads that block differently, each
 * timing its own blocking calls (CLOCK_MONOTONIC around each call):
 *   w_pipe   read(2) of one byte from a pipe that w_feed fills every MS
 *   w_sleep  nanosleep(2) of MS
 *   w_futex  FUTEX_WAIT with a timeout of MS on a word nobody changes
 *   w_rare   with -r: runs (spins) R ms, then nanosleep(2) of 10 x R ms: a
 *            thread that blocks rarely, and long when it does
 * (w_feed, the pipe's writer, sleeps MS between bytes.) Built with frame
 * pointers (the Makefile), so each thread's user stack walks back to its
 * own function: pipe_reader, nap_sleeper, futex_waiter, rare_sleeper.
 * Prints "ready PID" once the threads run and, after SECONDS, one line
 * per thread:
 *   thread COMM tid TID calls N blocked_ns S offcpu_ns O
 * S: the blocking calls' own time; O: the thread's time off the CPU over
 * its loop, its wall time less its schedstat run time (preemptions too).
 * usage: waiters [-m MS] [-t SECONDS] [-r R]
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double ms = 10, seconds = 3, rare_ms;
static int pipefd[2];
static volatile int stop;

struct waiter {
	const char *comm;
	void *(*fn)(void *);
	pid_t tid;
	unsigned long long calls, blocked_ns;
	unsigned long long wall0, cpu0, offcpu_ns;	/* at the loop's start; off CPU in it */
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

/* this thread's run time so far, ns (the first field of its schedstat) */
static unsigned long long cpu_ns(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void begin(struct waiter *w)
{
	prctl(PR_SET_NAME, w->comm);
	w->tid = (pid_t)syscall(SYS_gettid);
	w->cpu0 = cpu_ns();
	w->wall0 = now();
}

static void end(struct waiter *w)
{
	unsigned long long cpu = cpu_ns(), wall = now();

	w->offcpu_ns = (wall - w->wall0) - (cpu - w->cpu0);
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
	end(arg);
	return NULL;
}

static __attribute__((noinline)) void *nap_sleeper(void *arg)
{
	begin(arg);
	while (!stop)
		timed(arg, 1);
	end(arg);
	return NULL;
}

static __attribute__((noinline)) void *futex_waiter(void *arg)
{
	begin(arg);
	while (!stop)
		timed(arg, 2);
	end(arg);
	return NULL;
}

static __attribute__((noinline)) void *rare_sleeper(void *arg)
{
	struct waiter *w = arg;
	struct timespec ts = { (time_t)(rare_ms * 10 / 1000),
			       (long)((rare_ms * 10 - (int)(rare_ms * 10 / 1000) * 1000) * 1e6) };

	begin(w);
	while (!stop) {
		unsigned long long t0 = now(), t1;

		while (now() - t0 < (unsigned long long)(rare_ms * 1e6))
			;
		t1 = now();
		nanosleep(&ts, NULL);
		w->blocked_ns += now() - t1;
		w->calls++;
	}
	end(w);
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
		{ .comm = "w_rare", .fn = rare_sleeper },
	};
	pthread_t th[5];
	int opt, i, n;

	while ((opt = getopt(argc, argv, "m:t:r:")) != -1) {
		if (opt == 'm')
			ms = atof(optarg);
		else if (opt == 't')
			seconds = atof(optarg);
		else if (opt == 'r')
			rare_ms = atof(optarg);
		else
			return 2;
	}
	if (pipe(pipefd))
		return 1;
	n = rare_ms > 0 ? 5 : 4;
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, w[i].fn, &w[i]);
	printf("ready %d\n", getpid());
	fflush(stdout);
	usleep((useconds_t)(seconds * 1e6));
	stop = 1;
	/* the reader's last read: one more byte after the feeder stops */
	pthread_join(th[3], NULL);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	for (i = 0; i < n; i++)
		if (i != 3)
			pthread_join(th[i], NULL);
	for (i = 0; i < n; i++)
		if (i != 3)
			printf("thread %s tid %d calls %llu blocked_ns %llu offcpu_ns %llu\n",
			       w[i].comm, w[i].tid, w[i].calls, w[i].blocked_ns, w[i].offcpu_ns);
	return 0;
}
