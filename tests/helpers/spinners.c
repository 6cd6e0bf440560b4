// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: N CPU-bound threads pinned to one CPU (-c CPU), so they
 * take turns on its run queue, or unpinned (-c -1); with -m the main
 * thread moves them between CPU 0 and CPU 1 every 2 ms (sched_setaffinity
 * on each in turn), so threads waiting on a run queue are migrated while
 * queued. Each thread spins for the run time (at DUTY percent:
 * spin, then sleep for the rest of each 10 ms period), then reads its own
 * /proc/self/task/TID/schedstat and prints
 *   tid TID run_delay NS pcount N comm NAME
 * where run_delay and pcount are the kernel's own accounting since the
 * thread started (it starts at 0). The threads then block (no further
 * waits) until the process gets SIGTERM/SIGINT, or exit at once with -x.
 *
 * With -E FILE the main thread first writes its own schedstat as it was
 * at the start of main(), "run_delay NS pcount N", to FILE: the waits it
 * had before execve() named it (under its parent's comm).
 *
 * usage: spinners [-n THREADS] [-c CPU] [-t SECONDS] [-d DUTY] [-N COMM] [-x] [-m] [-E FILE]
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int cpu = 0, duty = 100, exit_after, migrate;
static pid_t *tids;
static double seconds = 2.0;
static const char *comm = "spinner";
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start_barrier;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	pid_t *slot = arg;
	unsigned long long run_delay = 0, pcount = 0, run_time = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char path[64];
	double end, period_start;
	volatile unsigned long x = 0;
	FILE *f;

	prctl(PR_SET_NAME, comm);
	*slot = tid;
	pthread_barrier_wait(&start_barrier);
	end = now() + seconds;
	while ((period_start = now()) < end) {
		double busy = 0.010 * duty / 100.0;

		while (now() - period_start < busy)
			x++;
		if (duty < 100) {
			struct timespec ts = { 0, (long)((0.010 - busy) * 1e9) };

			nanosleep(&ts, NULL);
		}
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu %llu", &run_time, &run_delay, &pcount) != 3) {
		perror(path);
		exit(1);
	}
	fclose(f);
	pthread_mutex_lock(&out_lock);
	printf("tid %d run_delay %llu pcount %llu comm %s\n", tid, run_delay, pcount, comm);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (exit_after)
		return NULL;
	for (;;)
		pause();
}

/* -E: the main thread's schedstat now, as "run_delay NS pcount N" into @path */
static void write_exec_stat(const char *path)
{
	unsigned long long run_time, run_delay, pcount;
	FILE *f = fopen("/proc/self/schedstat", "r"), *out;

	if (!f || fscanf(f, "%llu %llu %llu", &run_time, &run_delay, &pcount) != 3) {
		perror("/proc/self/schedstat");
		exit(1);
	}
	fclose(f);
	out = fopen(path, "w");
	if (!out || fprintf(out, "run_delay %llu pcount %llu\n", run_delay, pcount) < 0 || fclose(out)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int n = 2, i, opt;
	pthread_t *th;
	cpu_set_t set;

	/* before anything else: the waits the main thread had under the old comm */
	for (i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-E"))
			write_exec_stat(argv[i + 1]);
	while ((opt = getopt(argc, argv, "n:c:t:d:N:xmE:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'd': duty = atoi(optarg); break;
		case 'N': comm = optarg; break;
		case 'x': exit_after = 1; break;
		case 'm': migrate = 1; break;
		case 'E': break;	/* written above */
		default:
			fprintf(stderr, "usage: spinners [-n N] [-c CPU] [-t SEC] [-d DUTY] [-N COMM] "
				"[-x] [-m] [-E FILE]\n");
			return 2;
		}
	}
	if (n < 1 || duty < 1 || duty > 100)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	th = calloc(n, sizeof(*th));
	tids = calloc(n, sizeof(*tids));
	pthread_barrier_init(&start_barrier, NULL, n + 1);
	for (i = 0; i < n; i++) {
		pthread_attr_t a;

		pthread_attr_init(&a);
		if (cpu >= 0)
			pthread_attr_setaffinity_np(&a, sizeof(set), &set);
		if (pthread_create(&th[i], &a, spin, &tids[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&start_barrier);
	if (migrate) {
		double end = now() + seconds;
		struct timespec ts = { 0, 2000000 };
		int flip = 0;

		while (now() < end) {
			CPU_ZERO(&set);
			CPU_SET(flip ^= 1, &set);
			for (i = 0; i < n; i++)
				sched_setaffinity(tids[i], sizeof(set), &set);
			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < n; i++)
		if (exit_after)
			pthread_join(th[i], NULL);
	if (!exit_after)
		for (;;)
			pause();
	return 0;
}
