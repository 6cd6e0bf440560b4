// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Stop signals through a self-pipe, sleeps and whole writes that see them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/clock.h"
#include "lib/loop.h"
#include "lib/names.h"
#include "lib/util.h"


static int self_pipe[2] = { -1, -1 };
static volatile sig_atomic_t stops;
static volatile sig_atomic_t last_signo;
/* loop_watch(): the fd served while sleeping */
static int watch_fd = -1;
static void (*watch_fn)(void *arg);
static void *watch_arg;

static void on_stop(int sig)
{
	int saved = errno;
	char c = 0;

	stops++;
	last_signo = sig;
	/* non-blocking: a full pipe already holds a wakeup */
	if (write(self_pipe[1], &c, 1) < 0) {
	}
	errno = saved;
}

int loop_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop };
	size_t i;

	if (self_pipe[0] < 0) {
		if (pipe2(self_pipe, O_NONBLOCK | O_CLOEXEC))
			return -1;
		/* never on 0, 1 or 2 (closed at start): those mean stdin, stdout, stderr */
		for (i = 0; i < 2; i++) {
			if (self_pipe[i] <= STDERR_FILENO) {
				int fd = fcntl(self_pipe[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

				if (fd < 0)
					return -1;
				close(self_pipe[i]);
				self_pipe[i] = fd;
			}
		}
	}
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal also ends a blocking call in progress */
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction old;

		/* started ignoring SIGHUP (nohup): that was asked for, keep it */
		if (sigs[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(sigs[i], &sa, NULL))
			return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

unsigned int stop_count(void)
{
	return (unsigned int)stops;
}

int stop_signo(void)
{
	return last_signo;
}

static void drain(void)
{
	char buf[64];

	while (read(self_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void loop_watch(int fd, void (*fn)(void *arg), void *arg)
{
	watch_fd = fd;
	watch_fn = fn;
	watch_arg = arg;
}

void loop_request_stop(void)
{
	stops++;
}

void loop_sleep_until(__u64 t_ns)
{
	struct pollfd p[2] = { { .fd = self_pipe[0], .events = POLLIN },
			       { .fd = -1, .events = POLLIN } };

	for (;;) {
		struct timespec ts, *tp = NULL;
		__u64 now;
		int n;

		if (stops)
			return;
		if (t_ns) {
			now = now_ns();
			if (now >= t_ns)
				return;
			ts.tv_sec = (time_t)((t_ns - now) / NSEC_PER_SEC);
			ts.tv_nsec = (long)((t_ns - now) % NSEC_PER_SEC);
			tp = &ts;
		}
		/* the self-pipe: a signal before the call wakes it all the same */
		p[1].fd = watch_fn ? watch_fd : -1;
		p[1].revents = 0;
		n = ppoll(p, 2, tp, NULL);
		if (n > 0 && p[0].revents)
			drain();
		if (watch_fn && ((n > 0 && p[1].revents) || (n < 0 && errno == EINTR)))
			watch_fn(watch_arg);
		/* the input is gone (a hang-up): no longer watched, or it would spin */
		if (n > 0 && (p[1].revents & (POLLHUP | POLLERR | POLLNVAL)))
			watch_fn = NULL;
	}
}

int write_whole(int fd, const void *buf, size_t len)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLOUT },
			       { .fd = self_pipe[0], .events = POLLIN } };
	const char *b = buf;
	size_t chunk = len;
	struct stat st;

	/* Pipe or socket: at most PIPE_BUF per write once poll() says room: it never blocks. */
	if (!fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		chunk = PIPE_BUF;
	while (len) {
		size_t n = len < chunk ? len : chunk;
		/* after a second stop signal, go on only while no wait is needed */
		bool giving_up = stops >= 2;
		ssize_t w;
		int r = poll(p, 2, giving_up ? 0 : -1);

		if (r < 0) {
			if (errno != EINTR)
				return -errno;
			p[0].revents = p[1].revents = 0;	/* not set by a failed call */
		}
		if (p[1].revents & POLLIN)
			drain();
		if (!(p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			if (giving_up)
				return -ECANCELED;
			continue;
		}
		w = write(fd, b, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

__u64 schedule_next(__u64 next, __u64 now, __u64 interval)
{
	if (next > now)
		return next;
	/* the first grid point after @now: missed readings are skipped at once */
	return next + ((now - next) / interval + 1) * interval;
}
