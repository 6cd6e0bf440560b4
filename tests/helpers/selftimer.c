// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: a thread that times its own sleeps. Prints "ready TID",
 * waits for SIGUSR1 (so that its first timed sleep begins after schedhist
 * attached: the wait for the signal began before), then sleeps MS milliseconds COUNT
 * times with clock_nanosleep, timing each on CLOCK_MONOTONIC, and prints
 *   tid TID n N min NS median NS max NS nivcsw N
 * (nivcsw: the involuntary switches during the loop, from getrusage), and
 * waits for SIGUSR1 again, so that the test can read the thread's switch
 * counts in /proc after schedhist stopped.
 * usage: selftimer [-m MS] [-n COUNT] [-N COMM]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double ms = 10;
	int count = 50, opt, i;
	const char *comm = "selftimer";
	struct timespec ts, a, b;
	struct rusage r0, r1;
	long long *d;
	sigset_t set;
	int sig;

	while ((opt = getopt(argc, argv, "m:n:N:")) != -1) {
		switch (opt) {
		case 'm': ms = atof(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'N': comm = optarg; break;
		default:
			fprintf(stderr, "usage: selftimer [-m MS] [-n COUNT] [-N COMM]\n");
			return 2;
		}
	}
	if (count < 1 || !(d = calloc(count, sizeof(*d))))
		return 1;
	prctl(PR_SET_NAME, comm);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1000.0) * 1e6);
	getrusage(RUSAGE_THREAD, &r0);
	for (i = 0; i < count; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		d[i] = ns_of(&b) - ns_of(&a);
	}
	getrusage(RUSAGE_THREAD, &r1);
	qsort(d, count, sizeof(*d), cmp);
	printf("tid %ld n %d min %lld median %lld max %lld nivcsw %ld\n", (long)syscall(SYS_gettid),
	       count, d[0], d[(count - 1) / 2], d[count - 1], r1.ru_nivcsw - r0.ru_nivcsw);
	fflush(stdout);
	return sigwait(&set, &sig) != 0;
}
