// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: one thread named COMM that sleeps MS milliseconds in a
 * loop for SECONDS, then exits. Prints "ready PID" once started and, at
 * the end, what it timed itself around each nanosleep() (CLOCK_MONOTONIC):
 *   slept N sum_ns S min_ns A max_ns B nivcsw P durations D1,D2,...
 * (D: each sleep's own time in ns, in order; P: the times it was
 * preempted, getrusage's involuntary switches). A sleep's off-CPU wait lies within
 * [MS, that sleep's own time], unless the task was preempted between
 * arming the timer and blocking (then its wait began at the preemption):
 * at most P sleeps are such.
 * -H: after the report, block in pause() until a signal ends it, so that
 * the task's switches stop where its report does and a reader of
 * /proc/PID/status (nonvoluntary_ctxt_switches) gets every preemption,
 * those of the report's own writing included.
 * usage: sleeper [-m MS] [-t SECONDS] [-N COMM] [-H]
 */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double ms = 20, seconds = 3;
	const char *comm = "sleeper20";
	struct timespec end, now, before, ts;
	struct rusage ru;
	unsigned long long n = 0, sum = 0, lo = ~0ULL, hi = 0, d, *all = NULL;
	size_t cap = 0, i;
	int opt, hold = 0;

	while ((opt = getopt(argc, argv, "m:t:N:H")) != -1) {
		switch (opt) {
		case 'm': ms = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'N': comm = optarg; break;
		case 'H': hold = 1; break;
		default:
			fprintf(stderr, "usage: sleeper [-m MS] [-t SEC] [-N COMM] [-H]\n");
			return 2;
		}
	}
	prctl(PR_SET_NAME, comm);
	printf("ready %d\n", getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1000) * 1e6);
	do {
		clock_gettime(CLOCK_MONOTONIC, &before);
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		d = (unsigned long long)(now.tv_sec - before.tv_sec) * 1000000000ULL +
		    (unsigned long long)now.tv_nsec - (unsigned long long)before.tv_nsec;
		n++;
		sum += d;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		if (n > cap) {
			cap = cap ? 2 * cap : 256;
			all = realloc(all, cap * sizeof(*all));
			if (!all) {
				perror("sleeper");
				return 1;
			}
		}
		all[n - 1] = d;
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	getrusage(RUSAGE_SELF, &ru);
	printf("slept %llu sum_ns %llu min_ns %llu max_ns %llu nivcsw %ld durations ", n, sum, lo,
	       hi, ru.ru_nivcsw);
	for (i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", all[i]);
	printf("\n");
	fflush(stdout);
	free(all);
	if (hold) {
		printf("held\n");	/* the report is whole in the file */
		fflush(stdout);
	}
	while (hold)
		pause();
	return 0;
}
