// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: one process that runs execve() COUNT times in a row, as
 * fast as it can (each program execs the next at once). Prints "ready
 * PID", stops itself (SIGSTOP) until continued, then execs; the last
 * program prints "execs N", N the execve()s that succeeded: each program
 * is told by its arguments how many execve()s brought it there.
 * usage: execstorm COUNT
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char count[32], done[32];
	long n, made = 0;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s COUNT\n", argv[0]);
		return 2;
	}
	n = atol(argv[1]);
	if (argc == 2) {
		printf("ready %d\n", getpid());
		fflush(stdout);
		raise(SIGSTOP);
	} else {
		made = atol(argv[2]);
	}
	if (made >= n) {
		printf("execs %ld\n", made);
		return 0;
	}
	snprintf(count, sizeof(count), "%ld", n);
	snprintf(done, sizeof(done), "%ld", made + 1);
	execl("/proc/self/exe", argv[0], count, done, (char *)NULL);
	perror("execl");
	printf("execs %ld\n", made);
	return 1;
}
