// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: one thread named COMM that sleeps MS milliseconds in a
 * loop for SECONDS, then exits. Prints "ready PID" once started.
 * usage: sleeper [-m MS] [-t SECONDS] [-N COMM]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double ms = 20, seconds = 3;
	const char *comm = "sleeper20";
	struct timespec end, now, ts;
	int opt;

	while ((opt = getopt(argc, argv, "m:t:N:")) != -1) {
		switch (opt) {
		case 'm': ms = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'N': comm = optarg; break;
		default:
			fprintf(stderr, "usage: sleeper [-m MS] [-t SEC] [-N COMM]\n");
			return 2;
		}
	}
	prctl(PR_SET_NAME, comm);
	printf("ready %d\n", getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1000) * 1e6);
	do {
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
