// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: one source, two programs (the Makefile builds progA with
 * SLEEPER=funcA_sleeper and progB with SLEEPER=funcB_sleeper: one layout,
 * so each program's function is at the same offset as the other's). Each
 * sleeps MS milliseconds in its function, then execs the other, COUNT
 * times in all: one process whose program changes every MS.
 * Prints "ready PID" once, at the first start.
 * usage: progA OTHER SELF COUNT [MS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef SLEEPER
#define SLEEPER funcA_sleeper
#endif

/* the libc call's caller is the frame a frame-pointer walk skips: not the one named */
static __attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void SLEEPER(long ms)
{
	nap(ms);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	char left[32];
	long n, ms;

	if (argc < 4) {
		fprintf(stderr, "usage: %s OTHER SELF COUNT [MS]\n", argv[0]);
		return 2;
	}
	n = atol(argv[3]);
	ms = argc > 4 ? atol(argv[4]) : 30;
	if (!getenv("EXECPAIR_STARTED")) {
		printf("ready %d\n", getpid());
		fflush(stdout);
		setenv("EXECPAIR_STARTED", "1", 1);
	}
	SLEEPER(ms);
	if (n <= 1)
		return 0;
	snprintf(left, sizeof(left), "%ld", n - 1);
	execl(argv[1], argv[1], argv[2], argv[1], left, argc > 4 ? argv[4] : "30", (char *)NULL);
	perror("execl");
	return 1;
}
