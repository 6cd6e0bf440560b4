// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: cgroup churn. Every PERIOD ms (on an absolute schedule,
 * so the rate holds however long each step takes), creates cgroup
 * PARENT/cg-N (and V1PARENT/cg-N when given, e.g. under the v1 cpu
 * controller), starts a task in it that sleeps 1 ms LIFE times (so it
 * waits, is woken and queued: with -k cgroup each cgroup is a new key, its
 * waits blamed on others and others' on it) and exits, then reaps it and
 * removes the cgroup(s). Up to 4 cgroups are alive at once, so a task's
 * life longer than PERIOD does not slow the schedule. Stops after COUNT
 * cgroups or SECONDS, or at SIGINT/SIGTERM, always removing what it made.
 * Prints "ready PID" at start, with -v "cgroup ID" for each cgroup made
 * under PARENT (its id: the directory's inode number, as schedhist keys
 * it), and at the end
 *   created N removed N failed N seconds S rate R
 * (rate: cgroups created and removed per second).
 * usage: cgchurn -d PARENT [-D V1PARENT] [-p PERIOD_MS] [-l LIFE] [-t SECONDS] [-n COUNT] [-v]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define INFLIGHT 4

struct cg {
	pid_t pid;		/* its task, 0 when none */
	unsigned long n;	/* its number, in the names */
};

static volatile sig_atomic_t stop;
static const char *parent, *v1parent;
static unsigned long created, removed, failed;
static int verbose;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void path_of(char *buf, size_t len, const char *dir, unsigned long n, const char *file)
{
	snprintf(buf, len, "%s/cg-%lu%s%s", dir, n, file ? "/" : "", file ? file : "");
}

/* Writes our own pid into DIR/cg-N/cgroup.procs (v1: cgroup.procs too). */
static int join(const char *dir, unsigned long n)
{
	char p[4096], s[32];
	int fd, len, ok;

	path_of(p, sizeof(p), dir, n, "cgroup.procs");
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(s, sizeof(s), "%d\n", getpid());
	ok = write(fd, s, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/* rmdir, again while the kernel still counts the reaped task in it */
static int remove_dir(const char *dir, unsigned long n)
{
	struct timespec ms = { 0, 1000000 };
	char p[4096];
	int i;

	path_of(p, sizeof(p), dir, n, NULL);
	for (i = 0; i < 1000; i++) {
		if (!rmdir(p) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "cgchurn: rmdir %s: %s\n", p, strerror(errno));
	return -1;
}

static void finish(struct cg *c)
{
	int bad = 0;

	if (c->pid > 0) {
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	bad |= remove_dir(parent, c->n);
	if (v1parent)
		bad |= remove_dir(v1parent, c->n);
	if (bad)
		failed++;
	else
		removed++;
	c->n = 0;
}

static int start(struct cg *c, unsigned long n, int life)
{
	char p[4096];
	pid_t pid;

	path_of(p, sizeof(p), parent, n, NULL);
	if (mkdir(p, 0755)) {
		fprintf(stderr, "cgchurn: mkdir %s: %s\n", p, strerror(errno));
		return -1;
	}
	c->n = n;
	if (verbose) {
		struct stat st;

		if (!stat(p, &st))
			printf("cgroup %llu\n", (unsigned long long)st.st_ino);
	}
	if (v1parent) {
		path_of(p, sizeof(p), v1parent, n, NULL);
		if (mkdir(p, 0755)) {
			fprintf(stderr, "cgchurn: mkdir %s: %s\n", p, strerror(errno));
			finish(c);
			return -1;
		}
	}
	created++;
	pid = fork();
	if (pid < 0) {
		finish(c);
		return -1;
	}
	if (!pid) {
		struct timespec ms = { 0, 1000000 };
		int i;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (join(parent, n) || (v1parent && join(v1parent, n)))
			_exit(1);
		for (i = 0; i < life; i++)
			nanosleep(&ms, NULL);
		_exit(0);
	}
	c->pid = pid;
	return 0;
}

int main(int argc, char **argv)
{
	struct cg cgs[INFLIGHT] = {};
	double seconds = 0, t0, next, period = 0.1;
	unsigned long count = 0, n = 0;
	struct sigaction sa = {};
	int opt, life = 5, i;

	while ((opt = getopt(argc, argv, "d:D:p:l:t:n:v")) != -1) {
		switch (opt) {
		case 'd': parent = optarg; break;
		case 'D': v1parent = optarg; break;
		case 'p': period = atof(optarg) / 1000; break;
		case 'l': life = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 10); break;
		case 'v': verbose = 1; break;
		default:
			goto usage;
		}
	}
	if (!parent || period <= 0 || life < 0 || optind != argc)
		goto usage;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ready %d\n", getpid());
	fflush(stdout);
	t0 = next = now();
	while (!stop && (!count || n < count) && (!seconds || now() - t0 < seconds)) {
		struct cg *c = &cgs[n % INFLIGHT];
		struct timespec ts;
		double d;

		if (c->n)
			finish(c);
		if (start(c, ++n, life))
			failed++;	/* (said why on stderr) */
		next += period;
		d = next - now();
		if (d > 0) {
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < INFLIGHT; i++)
		if (cgs[i].n)
			finish(&cgs[i]);
	printf("created %lu removed %lu failed %lu seconds %.3f rate %.2f\n", created, removed,
	       failed, now() - t0, (double)removed / (now() - t0));
	return failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: cgchurn -d PARENT [-D V1PARENT] [-p PERIOD_MS] [-l LIFE] "
		"[-t SECONDS] [-n COUNT] [-v]\n");
	return 2;
}
