// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload for time-weighted culprits: three threads pinned to one
 * CPU (-c CPU) for SECONDS (-t):
 *   mixvictim  CPU-bound: it waits on the run queue whenever it is preempted
 *   mixhog     CPU-bound: it runs whole slices while the victim waits
 *   mixburst   short bursts: spins BURST_US (-b), then sleeps SLEEP_US (-s),
 *              so it wakes and runs a little inside most of the victim's waits
 * so a wait of the victim is spent behind both the hog and the burster,
 * and the task that ran last (the switch that ends the wait) is only one
 * of them. At the start it prints one line per thread,
 *   role ROLE tid TID comm COMM
 * and, when the time is up, each thread's own schedstat,
 *   done ROLE tid TID run_time NS run_delay NS pcount N
 * then exits.
 *
 * usage: mixload [-c CPU] [-t SECONDS] [-b BURST_US] [-s SLEEP_US]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum role { VICTIM, HOG, BURST, NROLES };

static const char *const names[NROLES] = { "mixvictim", "mixhog", "mixburst" };
static double seconds = 3.0, burst_us = 300, sleep_us = 1000;
static pid_t tids[NROLES];
static pthread_barrier_t ready, done;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until @until (monotonic seconds). */
static void spin_until(double until)
{
	volatile unsigned long x = 0;

	while (now() < until)
		x++;
}

static void *run(void *arg)
{
	enum role r = (enum role)(long)arg;
	unsigned long long run_time = 0, run_delay = 0, pcount = 0;
	char path[64];
	double end;
	FILE *f;

	prctl(PR_SET_NAME, names[r]);
	tids[r] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&ready);
	/* (main prints the roles between the two barriers) */
	pthread_barrier_wait(&ready);
	end = now() + seconds;
	if (r == BURST) {
		struct timespec ts = { (time_t)(sleep_us / 1e6), (long)(sleep_us * 1e3) % 1000000000L };

		while (now() < end) {
			spin_until(now() + burst_us / 1e6);
			nanosleep(&ts, NULL);
		}
	} else {
		spin_until(end);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tids[r]);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu %llu", &run_time, &run_delay, &pcount) != 3) {
		perror(path);
		exit(1);
	}
	fclose(f);
	pthread_mutex_lock(&out_lock);
	printf("done %s tid %d run_time %llu run_delay %llu pcount %llu\n", names[r], tids[r],
	       run_time, run_delay, pcount);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	/* none exits before all are done: an exit would change the others' load */
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NROLES];
	int cpu = 0, opt, i;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "c:t:b:s:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'b': burst_us = atof(optarg); break;
		case 's': sleep_us = atof(optarg); break;
		default:
			fprintf(stderr, "usage: mixload [-c CPU] [-t SECONDS] [-b BURST_US] "
				"[-s SLEEP_US]\n");
			return 2;
		}
	}
	if (cpu < 0 || seconds <= 0 || burst_us <= 0 || sleep_us <= 0) {
		fprintf(stderr, "mixload: CPU, SECONDS, BURST_US and SLEEP_US must be positive\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* the main thread too: it only waits, but on the same CPU as the rest */
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	pthread_barrier_init(&ready, NULL, NROLES + 1);
	pthread_barrier_init(&done, NULL, NROLES);
	for (i = 0; i < NROLES; i++)
		if (pthread_create(&th[i], NULL, run, (void *)(long)i)) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&ready);
	for (i = 0; i < NROLES; i++)
		printf("role %s tid %d comm %s\n", names[i] + 3, tids[i], names[i]);
	fflush(stdout);
	pthread_barrier_wait(&ready);
	for (i = 0; i < NROLES; i++)
		pthread_join(th[i], NULL);
	return 0;
}
