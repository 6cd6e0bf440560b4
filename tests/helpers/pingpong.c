// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: a context-switch storm. PAIRS pairs of threads bounce one
 * byte back and forth over two pipes for SECONDS, so every round trip is
 * two blocking reads, two wakeups and (on 2 CPUs) several context
 * switches. Prints "ready PID" once all threads run, and at the end
 * "roundtrips N". With -g the threads are made, "ready PID" printed, and
 * the storm starts only once a line can be read from stdin (so that a
 * tracer filtering on PID can attach before the first round trip).
 * usage: pingpong [-g] [-p PAIRS] [-t SECONDS] [-N COMM]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct pair {
	int ab[2], ba[2];	/* pipes: A -> B, B -> A */
	unsigned long long trips;
};

static double seconds = 5;
static const char *comm = "pingpong";
static pthread_barrier_t start;
static volatile int stop;

static void *side_a(void *arg)
{
	struct pair *p = arg;
	char c = 0;

	prctl(PR_SET_NAME, comm);
	pthread_barrier_wait(&start);
	while (!stop) {
		if (write(p->ab[1], &c, 1) != 1 || read(p->ba[0], &c, 1) != 1)
			break;
		p->trips++;
	}
	close(p->ab[1]);	/* B sees EOF and ends */
	return NULL;
}

static void *side_b(void *arg)
{
	struct pair *p = arg;
	char c;

	prctl(PR_SET_NAME, comm);
	pthread_barrier_wait(&start);
	while (read(p->ab[0], &c, 1) == 1)
		if (write(p->ba[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	int npairs = 4, gate = 0, opt, i;
	char line[16];
	unsigned long long total = 0;
	struct timespec ts;
	struct pair *p;
	pthread_t *th;

	while ((opt = getopt(argc, argv, "gp:t:N:")) != -1) {
		switch (opt) {
		case 'g': gate = 1; break;
		case 'p': npairs = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'N': comm = optarg; break;
		default:
			fprintf(stderr, "usage: pingpong [-g] [-p PAIRS] [-t SECONDS] [-N COMM]\n");
			return 2;
		}
	}
	if (npairs < 1)
		return 2;
	p = calloc(npairs, sizeof(*p));
	th = calloc(2 * npairs, sizeof(*th));
	if (!p || !th)
		return 1;
	pthread_barrier_init(&start, NULL, 2 * npairs + 1);
	for (i = 0; i < npairs; i++) {
		if (pipe(p[i].ab) || pipe(p[i].ba) ||
		    pthread_create(&th[2 * i], NULL, side_a, &p[i]) ||
		    pthread_create(&th[2 * i + 1], NULL, side_b, &p[i])) {
			perror("pingpong");
			return 1;
		}
	}
	if (gate) {
		printf("ready %d\n", getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	pthread_barrier_wait(&start);
	if (!gate) {
		printf("ready %d\n", getpid());
		fflush(stdout);
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop = 1;
	for (i = 0; i < 2 * npairs; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < npairs; i++)
		total += p[i].trips;
	printf("roundtrips %llu\n", total);
	return 0;
}
