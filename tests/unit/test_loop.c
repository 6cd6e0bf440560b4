// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/lib/loop.c: the schedule skips missed readings in O(1);
 * write_whole() into a one-page pipe delivers every byte to a reader that
 * reads only after a stop signal, gives up on a second stop signal, ends
 * with EPIPE when the reader is gone, and never sets O_NONBLOCK.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "check.h"
#include "lib/loop.h"


#define MS 1000000ULL
#define BIG (1 << 20)	/* 256 times the pipe */

static void test_schedule(void)
{
	CHECK_EQ_U64(schedule_next(100, 100, 10), 110);
	CHECK_EQ_U64(schedule_next(100, 109, 10), 110);
	CHECK_EQ_U64(schedule_next(100, 110, 10), 120);
	CHECK_EQ_U64(schedule_next(100, 135, 10), 140);	/* 3 missed: skipped */
	CHECK_EQ_U64(schedule_next(200, 150, 10), 200);	/* not yet due */
	/*
	 * A stall of 2^62 ns at a 10 ms interval: a loop adding one interval
	 * at a time would run 4.6e11 times (many minutes on any machine, 1e10
	 * times the O(1) answer's cost), so alarm() below ends this test binary
	 * long before; this bound does not depend on the machine's speed.
	 */
	CHECK_EQ_U64(schedule_next(10 * MS, (1ULL << 62) + 5 * MS, 10 * MS),
		     (((1ULL << 62) + 5 * MS) / (10 * MS) + 1) * (10 * MS));
	/* 1 ns steps over 2^63 ns: would never end */
	CHECK_EQ_U64(schedule_next(1, 1ULL << 63, 1), (1ULL << 63) + 1);
}

struct reader {
	int fd;			/* read end */
	int signals;		/* stop signals to send once the pipe is full */
	bool read_all;		/* then read to EOF; else close the read end */
	size_t got;
	bool ok;		/* the bytes are the pattern written */
};

/* Until the pipe holds its whole capacity: the writer is then blocked. */
static void wait_full(int fd)
{
	int cap = fcntl(fd, F_GETPIPE_SZ), n = 0;

	while (ioctl(fd, FIONREAD, &n) == 0 && n < cap)
		usleep(1000);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[4096];
	ssize_t n;
	int i;

	wait_full(r->fd);
	for (i = 0; i < r->signals; i++) {
		unsigned int before = stop_count();

		kill(getpid(), SIGINT);
		while (stop_count() == before)	/* handled (by the writer's thread) */
			usleep(1000);
	}
	if (!r->read_all) {
		close(r->fd);
		return NULL;
	}
	r->ok = true;
	while ((n = read(r->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] != (char)((r->got + (size_t)i) % 251))
				r->ok = false;
		r->got += (size_t)n;
	}
	close(r->fd);
	return NULL;
}

/* Write BIG bytes through a one-page pipe; the reader does what @r says. */
static int run(struct reader *r, int *flags)
{
	char *data = malloc(BIG);
	int p[2], err, i;
	pthread_t t;
	sigset_t block, old;

	for (i = 0; i < BIG; i++)
		data[i] = (char)(i % 251);
	CHECK(!pipe(p));
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	r->fd = p[0];
	/* the reader's thread blocks SIGINT: the handler runs in the writer's */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	pthread_create(&t, NULL, reader_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	err = write_whole(p[1], data, BIG);
	*flags = fcntl(p[1], F_GETFL);
	close(p[1]);
	pthread_join(t, NULL);
	free(data);
	return err;
}

static void test_slow_reader(void)
{
	struct reader r = { .signals = 1, .read_all = true };
	int flags, err;

	CHECK(stop_count() == 0);
	err = run(&r, &flags);
	CHECK(err == 0);
	CHECK_EQ_U64(r.got, BIG);
	CHECK(r.ok);
	CHECK(!(flags & O_NONBLOCK));
	CHECK(stop_count() == 1 && stop_signo() == SIGINT);
}

/* After test_slow_reader's signal: the next one, while blocked, gives up (and from then on). */
static void test_second_stop(void)
{
	struct reader r = { .signals = 1, .read_all = true };
	int flags, err;

	err = run(&r, &flags);
	CHECK(err == -ECANCELED);
	CHECK(r.got < BIG);
	CHECK(!(flags & O_NONBLOCK));
}

static void test_reader_gone(void)
{
	struct reader r = { .signals = 0, .read_all = false };
	int flags;

	CHECK(run(&r, &flags) == -EPIPE);
}

/* A stop signal ends a sleep, and one that came before it too. */
static void test_sleep(void)
{
	loop_sleep_until(1);	/* in the past: returns */
	/* stop_count() > 0 now: a sleep for a year returns at once */
	loop_sleep_until(~0ULL);
	CHECK(stop_count() > 0);
}

int main(void)
{
	alarm(60);	/* see test_schedule: a hang fails the binary instead */
	CHECK(!loop_init());
	TEST(test_schedule);
	TEST(test_slow_reader);
	TEST(test_reader_gone);
	TEST(test_second_stop);	/* the second stop signal of the run: last */
	TEST(test_sleep);
	return test_summary();
}
