// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Key maker for bench/run.sh's poller measurement: N threads, each with
 * its own tid and its own comm ("key00042"), each sleeping PERIOD ms in a
 * loop (with staggered phases), so every one of them is switched out and
 * back in several times per schedhist interval and shows up as a live key
 * under -k tid (or -k comm). Prints "ready PID" once every thread runs;
 * exits after SECONDS.
 * usage: keys [-n N] [-p PERIOD_MS] [-t SECONDS]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_MSEC 1000000L
#define STACK_SIZE (64 * 1024)	/* the threads only sleep: keep RSS small */

static long period_ns = 250 * NSEC_PER_MSEC;
static long nthreads = 1;
static pthread_barrier_t ready;

static void ts_add(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static void *worker(void *arg)
{
	long i = (long)arg;
	char comm[16];
	struct timespec next;

	snprintf(comm, sizeof(comm), "key%05ld", i);
	prctl(PR_SET_NAME, comm);
	pthread_barrier_wait(&ready);
	clock_gettime(CLOCK_MONOTONIC, &next);
	/* spread the wakeups over the period instead of one burst */
	ts_add(&next, period_ns / nthreads * i);
	for (;;) {
		ts_add(&next, period_ns);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

static long parse(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "keys: invalid %s '%s': want %ld to %ld\n", what, s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long seconds = 60, i;
	pthread_attr_t attr;
	pthread_t t;
	int opt, err;

	while ((opt = getopt(argc, argv, "n:p:t:")) != -1) {
		switch (opt) {
		case 'n': nthreads = parse(optarg, 1, 100000, "thread count"); break;
		case 'p': period_ns = parse(optarg, 1, 60000, "period (ms)") * NSEC_PER_MSEC; break;
		case 't': seconds = parse(optarg, 1, 86400, "run time (s)"); break;
		default:
			fprintf(stderr, "usage: keys [-n N] [-p PERIOD_MS] [-t SECONDS]\n");
			return 2;
		}
	}
	if (pthread_barrier_init(&ready, NULL, (unsigned)nthreads + 1) ||
	    pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, STACK_SIZE) ||
	    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)) {
		fprintf(stderr, "keys: cannot set up threads\n");
		return 1;
	}
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&t, &attr, worker, (void *)i);
		if (err) {
			fprintf(stderr, "keys: cannot create thread %ld of %ld: %s "
				"(see ulimit -u and kernel.threads-max)\n", i + 1, nthreads,
				strerror(err));
			return 1;
		}
	}
	pthread_barrier_wait(&ready);
	printf("ready %d\n", getpid());
	fflush(stdout);
	sleep((unsigned)seconds);
	return 0;
}
