// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: a task that changes its name mid-run. A new process
 * (one thread) named OLD sleeps MS milliseconds N1 times, renames itself to NEW with
 * prctl(PR_SET_NAME) and sleeps N2 more times. It reads its own
 * schedstat switch-in count (pcount, 3rd field) just after it takes the
 * name OLD, just before and just after the rename, and at the end, and
 * prints
 *   tid TID start PC0 before PC1 after PC2 end PC3
 * Every switch-in ends one off-CPU wait (the first: since the thread was
 * made), under the name the thread had then: the first PC0 switch-ins
 * under the parent's name or OLD (the thread may be preempted before it
 * names itself), those up to PC1 under OLD, those after PC2 under NEW (a
 * switch-in between two readings is the only ambiguity). The parent
 * waits for the child to exit without reaping it, reads the zombie's
 * final pcount (switch-ins after the last reading included) and prints
 *   final PC4
 * then reaps it.
 * usage: renamer [-m MS] [-a N1] [-b N2] [-o OLD] [-n NEW]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double ms = 5;
static int n1 = 100, n2 = 100;
static const char *old_name = "rn_before", *new_name = "rn_after";

static unsigned long long pcount(pid_t tid)
{
	unsigned long long run, delay, pc;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu %llu", &run, &delay, &pc) != 3) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return pc;
}

static void run(void)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (long)(ms / 1000) * 1000) * 1e6) };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	unsigned long long start, before, after;
	int i;

	prctl(PR_SET_NAME, old_name);
	start = pcount(tid);
	for (i = 0; i < n1; i++)
		nanosleep(&ts, NULL);
	before = pcount(tid);
	prctl(PR_SET_NAME, new_name);
	after = pcount(tid);
	for (i = 0; i < n2; i++)
		nanosleep(&ts, NULL);
	printf("tid %d start %llu before %llu after %llu end %llu\n", tid, start, before, after,
	       pcount(tid));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int opt, status;
	siginfo_t si;
	pid_t child;

	while ((opt = getopt(argc, argv, "m:a:b:o:n:")) != -1) {
		switch (opt) {
		case 'm': ms = atof(optarg); break;
		case 'a': n1 = atoi(optarg); break;
		case 'b': n2 = atoi(optarg); break;
		case 'o': old_name = optarg; break;
		case 'n': new_name = optarg; break;
		default:
			fprintf(stderr, "usage: renamer [-m MS] [-a N1] [-b N2] [-o OLD] [-n NEW]\n");
			return 2;
		}
	}
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child) {
		run();
		_exit(0);
	}
	/* exited but not reaped: its schedstat is final */
	if (waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT)) {
		perror("waitid");
		return 1;
	}
	printf("final %llu\n", pcount(child));
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "renamer: the child failed\n");
		return 1;
	}
	return 0;
}
