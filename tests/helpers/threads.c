// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: many live threads. N threads named COMM each sleep MS
 * milliseconds in a loop for SECONDS, then the process exits. Prints
 * "ready PID" once all N threads exist.
 * usage: threads [-n N] [-m MS] [-t SECONDS] [-N COMM]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double ms = 10, seconds = 5;
static const char *comm = "threads";
static pthread_barrier_t started;
static struct timespec end;

static void *sleeper(void *arg)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (long)(ms / 1000) * 1000) * 1e6) };
	struct timespec now;

	(void)arg;
	prctl(PR_SET_NAME, comm);
	pthread_barrier_wait(&started);
	do {
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return NULL;
}

int main(int argc, char **argv)
{
	int n = 100, opt, i;
	pthread_attr_t attr;
	pthread_t *th;

	while ((opt = getopt(argc, argv, "n:m:t:N:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'm': ms = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'N': comm = optarg; break;
		default:
			fprintf(stderr, "usage: threads [-n N] [-m MS] [-t SEC] [-N COMM]\n");
			return 2;
		}
	}
	if (n < 1)
		return 2;
	th = calloc(n, sizeof(*th));
	if (!th)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	pthread_barrier_init(&started, NULL, n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);	/* 500 threads stay small */
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, sleeper, NULL)) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&started);
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
