// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload for the percentiles: four threads that sleep in a loop and
 * time each sleep themselves (CLOCK_MONOTONIC around clock_nanosleep()),
 * and the thread's own CPU time in that span (CLOCK_THREAD_CPUTIME_ID):
 *   ps1ms    1 ms, N1 times        ps10ms   10 ms, N10 times
 *   ps100ms  100 ms, N100 times    psu1to3  uniform in [1, 3] ms, N1 times
 * A sleep's off-CPU wait lies in [own - cpu, own]: the span less the
 * thread's time on the CPU inside it (entering and leaving the system
 * call), unless the thread was preempted inside it (then the span holds
 * two waits, each shorter).
 * Prints "ready PID" once the threads run; when all are done, per thread:
 *   thread TID COMM n N nivcsw P nvcsw V p50 A p90 B p99 C own D1,... cpu C1,...
 * (A, B, C: the thread's own quantiles of its spans, the rank ceil(q * N)
 * of the sorted spans, as schedhist ranks; D: each span, C: its CPU time,
 * in order; P and V: the thread's involuntary and voluntary switches in
 * its loop: a sleep whose timer fires before the thread gets to block
 * makes none, so V can be below N). Then the
 * threads block until a signal ends the process, so they stay keys of
 * their own (no exit) and record nothing more while a tracer reads them.
 * usage: pctsleep [-n N1] [-m N10] [-c N100]
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct sleeper {
	const char *comm;
	long lo_ns, hi_ns;		/* each sleep uniform in [lo, hi] */
	long n;
	pid_t tid;
	long nivcsw, nvcsw;
	unsigned long long *own, *cpu;
	pthread_t th;
};

static sem_t done;

static unsigned long long ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

static void *run(void *arg)
{
	struct sleeper *s = arg;
	unsigned int seed = (unsigned int)(s->lo_ns ^ s->hi_ns);
	struct rusage r0, r1;
	long i;

	prctl(PR_SET_NAME, s->comm);
	s->tid = (pid_t)syscall(SYS_gettid);
	getrusage(RUSAGE_THREAD, &r0);
	for (i = 0; i < s->n; i++) {
		long d = s->lo_ns + (s->hi_ns > s->lo_ns ?
				     (long)((double)rand_r(&seed) / RAND_MAX * (s->hi_ns - s->lo_ns)) : 0);
		struct timespec ts = { d / 1000000000L, d % 1000000000L };
		unsigned long long t0, c0;

		c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
		t0 = ns_of(CLOCK_MONOTONIC);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		s->own[i] = ns_of(CLOCK_MONOTONIC) - t0;
		s->cpu[i] = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
	}
	getrusage(RUSAGE_THREAD, &r1);
	s->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	s->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	sem_post(&done);
	for (;;)
		pause();
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The rank ceil(q * n) of the sorted @v (schedhist's and Prometheus' rank). */
static unsigned long long quantile(const unsigned long long *v, long n, double q)
{
	long r = (long)(q * (double)n);

	if ((double)r < q * (double)n)
		r++;

	return v[(r < 1 ? 1 : r > n ? n : r) - 1];
}

int main(int argc, char **argv)
{
	struct sleeper s[4] = {
		{ .comm = "ps1ms", .lo_ns = 1000000, .hi_ns = 1000000, .n = 3000 },
		{ .comm = "ps10ms", .lo_ns = 10000000, .hi_ns = 10000000, .n = 400 },
		{ .comm = "ps100ms", .lo_ns = 100000000, .hi_ns = 100000000, .n = 100 },
		{ .comm = "psu1to3", .lo_ns = 1000000, .hi_ns = 3000000, .n = 2000 },
	};
	int opt, i;
	long j;

	while ((opt = getopt(argc, argv, "n:m:c:")) != -1) {
		switch (opt) {
		case 'n': s[0].n = s[3].n = atol(optarg); break;
		case 'm': s[1].n = atol(optarg); break;
		case 'c': s[2].n = atol(optarg); break;
		default:
			fprintf(stderr, "usage: pctsleep [-n N1] [-m N10] [-c N100]\n");
			return 2;
		}
	}
	sem_init(&done, 0, 0);
	for (i = 0; i < 4; i++) {
		s[i].own = calloc((size_t)s[i].n, sizeof(*s[i].own));
		s[i].cpu = calloc((size_t)s[i].n, sizeof(*s[i].cpu));
		if (!s[i].own || !s[i].cpu || s[i].n < 1) {
			fprintf(stderr, "pctsleep: out of memory\n");
			return 1;
		}
		if (pthread_create(&s[i].th, NULL, run, &s[i])) {
			fprintf(stderr, "pctsleep: pthread_create failed\n");
			return 1;
		}
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (i = 0; i < 4; i++)
		while (sem_wait(&done))
			;
	for (i = 0; i < 4; i++) {
		unsigned long long *sorted = malloc((size_t)s[i].n * sizeof(*sorted));

		if (!sorted)
			return 1;
		memcpy(sorted, s[i].own, (size_t)s[i].n * sizeof(*sorted));
		qsort(sorted, (size_t)s[i].n, sizeof(*sorted), cmp);
		printf("thread %d %s n %ld nivcsw %ld nvcsw %ld p50 %llu p90 %llu p99 %llu own ",
		       s[i].tid, s[i].comm, s[i].n, s[i].nivcsw, s[i].nvcsw,
		       quantile(sorted, s[i].n, 0.50),
		       quantile(sorted, s[i].n, 0.90), quantile(sorted, s[i].n, 0.99));
		for (j = 0; j < s[i].n; j++)
			printf("%s%llu", j ? "," : "", s[i].own[j]);
		printf(" cpu ");
		for (j = 0; j < s[i].n; j++)
			printf("%s%llu", j ? "," : "", s[i].cpu[j]);
		printf("\n");
		free(sorted);
	}
	fflush(stdout);
	for (;;)
		pause();
}
