// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: task churn. For SECONDS, creates short-lived tasks in
 * batches of CONC and reaps them: threads (pthread_create/join, i.e.
 * clone with CLONE_THREAD) and/or processes, each kind in its own loop,
 * both at once in "both" mode. Processes are mostly clone(CLONE_VM) (a new
 * thread group without the cost of copying the address space, ~30 times
 * faster than fork here) with one real fork() batch in every 8. Each task
 * sleeps 50 us (so it waits at least once) and exits; with -k tid or
 * -k pid each is a new key that the poller must prune once it is gone. Prints "ready PID" at start and at
 * the end "created T threads P processes".
 * usage: churn [-t SECONDS] [-m threads|procs|both] [-c CONC] [-N COMM]
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct timespec nap = { 0, 50000 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *short_thread(void *arg)
{
	(void)arg;
	nanosleep(&nap, NULL);
	return NULL;
}

/* a clone(CLONE_VM) child: a process of its own on a stack of ours */
static int short_proc(void *arg)
{
	(void)arg;
	nanosleep(&nap, NULL);
	return 0;
}

#define STACK_SIZE (64 * 1024)

static double end;
static int conc = 16;
static unsigned long long threads, procs;

static void *thread_churn(void *arg)
{
	pthread_t *th = calloc(conc, sizeof(*th));
	int i;

	(void)arg;
	if (!th)
		exit(1);
	while (now() < end) {
		for (i = 0; i < conc; i++)
			if (pthread_create(&th[i], NULL, short_thread, NULL)) {
				perror("pthread_create");
				exit(1);
			}
		for (i = 0; i < conc; i++)
			pthread_join(th[i], NULL);
		threads += conc;
	}
	free(th);
	return NULL;
}

static void *proc_churn(void *arg)
{
	pid_t *pids = calloc(conc, sizeof(*pids));
	char *stacks = malloc((size_t)conc * STACK_SIZE);
	unsigned long round = 0;
	int i;

	(void)arg;
	if (!pids || !stacks)
		exit(1);
	while (now() < end) {
		int use_fork = round++ % 8 == 0;

		for (i = 0; i < conc; i++) {
			if (use_fork) {
				pids[i] = fork();
				if (!pids[i]) {
					nanosleep(&nap, NULL);
					_exit(0);
				}
			} else {
				pids[i] = clone(short_proc, stacks + (size_t)(i + 1) * STACK_SIZE,
						CLONE_VM | SIGCHLD, NULL);
			}
			if (pids[i] < 0) {
				perror(use_fork ? "fork" : "clone");
				exit(1);
			}
		}
		for (i = 0; i < conc; i++)
			waitpid(pids[i], NULL, 0);
		procs += conc;
	}
	free(stacks);
	free(pids);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = "both", *comm = "churn";
	double seconds = 5;
	pthread_t t1, t2;
	int opt, use_threads, use_procs;

	while ((opt = getopt(argc, argv, "t:m:c:N:")) != -1) {
		switch (opt) {
		case 't': seconds = atof(optarg); break;
		case 'm': mode = optarg; break;
		case 'c': conc = atoi(optarg); break;
		case 'N': comm = optarg; break;
		default:
			fprintf(stderr, "usage: churn [-t SEC] [-m threads|procs|both] [-c CONC] "
				"[-N COMM]\n");
			return 2;
		}
	}
	use_threads = !strcmp(mode, "threads") || !strcmp(mode, "both");
	use_procs = !strcmp(mode, "procs") || !strcmp(mode, "both");
	if (conc < 1 || (!use_threads && !use_procs))
		return 2;
	prctl(PR_SET_NAME, comm);
	printf("ready %d\n", getpid());
	fflush(stdout);
	end = now() + seconds;
	if ((use_threads && pthread_create(&t1, NULL, thread_churn, NULL)) ||
	    (use_procs && pthread_create(&t2, NULL, proc_churn, NULL))) {
		perror("pthread_create");
		return 1;
	}
	if (use_threads)
		pthread_join(t1, NULL);
	if (use_procs)
		pthread_join(t2, NULL);
	printf("created %llu threads %llu processes\n", threads, procs);
	return 0;
}
