// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: a thread that changes its name mid-run. A new thread
 * named OLD sleeps MS milliseconds N1 times, renames itself to NEW with
 * prctl(PR_SET_NAME) and sleeps N2 more times. It reads its own
 * schedstat switch-in count (pcount, 3rd field) just before and just
 * after the rename, and at the end, and prints
 *   tid TID before PC1 after PC2 end PC3
 * Every switch-in of the thread after its first ends one off-CPU wait, so
 * waits under OLD = PC1 - 1 and waits under NEW = PC3 - PC2 (a switch-in
 * between the two readings, if any, is the only ambiguity).
 * usage: renamer [-m MS] [-a N1] [-b N2] [-o OLD] [-n NEW]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu %llu", &run, &delay, &pc) != 3) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return pc;
}

static void *run(void *arg)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (long)(ms / 1000) * 1000) * 1e6) };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	unsigned long long before, after;
	int i;

	(void)arg;
	prctl(PR_SET_NAME, old_name);
	for (i = 0; i < n1; i++)
		nanosleep(&ts, NULL);
	before = pcount(tid);
	prctl(PR_SET_NAME, new_name);
	after = pcount(tid);
	for (i = 0; i < n2; i++)
		nanosleep(&ts, NULL);
	printf("tid %d before %llu after %llu end %llu\n", tid, before, after, pcount(tid));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int opt;

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
	if (pthread_create(&th, NULL, run, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(th, NULL);
	return 0;
}
