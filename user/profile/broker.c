// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile's privileged broker: opens /proc files and mapped files, hands descriptors back. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cap-ng.h>

#include "kernel/seccomp.h"
#include "lib/log.h"
#include "profile/broker.h"

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40	/* Linux 5.9 */
#endif

struct broker {
	pid_t pid;
	int sock;		/* the poller's end */
};

int broker_check(const struct broker_req *r)
{
	const char *p = r->path;

	if (!r->tgid || r->tgid > 0x7fffffffu)
		return -EINVAL;
	switch (r->what) {
	case SYM_MAPS:
	case SYM_STAT:
		return 0;
	case SYM_MAP_FILE:
		return r->start < r->end ? 0 : -EINVAL;
	case SYM_ROOT_FILE:
		break;
	default:
		return -EINVAL;
	}
	if (!memchr(p, '\0', sizeof(r->path)) || p[0] != '/' || !p[1])
		return -EINVAL;
	/* no ".." component: the path stays below the root even before RESOLVE_IN_ROOT */
	for (const char *c = p; (c = strstr(c, "/..")); c += 3)
		if (c[3] == '/' || c[3] == '\0')
			return -EPERM;
	return 0;
}

/* An O_PATH descriptor of what @r names (no open of a device, FIFO or socket yet). */
static int open_path(const struct broker_req *r)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	char path[128];
	int root, fd;

	switch (r->what) {
	case SYM_MAPS:
	case SYM_STAT:
		snprintf(path, sizeof(path), "/proc/%u/%s", r->tgid,
			 r->what == SYM_MAPS ? "maps" : "stat");
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	case SYM_MAP_FILE:
		/* a magic link to the file mapped: followed, that is what it is for */
		snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", r->tgid,
			 (unsigned long long)r->start, (unsigned long long)r->end);
		fd = open(path, O_PATH | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	default:
		break;
	}
	snprintf(path, sizeof(path), "/proc/%u/root", r->tgid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	/* symbolic links resolved inside that root, never the broker's */
	fd = (int)syscall(SYS_openat2, root, r->path + 1, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(root, r->path + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	close(root);
	return fd;
}

/* @r opened read-only, checked: a regular file, with the inode asked for. */
static int open_req(const struct broker_req *r)
{
	struct stat a, b;
	char self[64];
	int pfd = open_path(r), fd;

	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &a) || !S_ISREG(a.st_mode) || (r->ino && a.st_ino != r->ino)) {
		close(pfd);
		return -EPERM;
	}
	/* reopened through the pinned inode: the path cannot change in between */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	else if (fstat(fd, &b) || b.st_ino != a.st_ino || b.st_dev != a.st_dev) {
		close(fd);
		fd = -EPERM;
	}
	close(pfd);
	return fd;
}

static int send_fd(int sock, int err, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* Only the capabilities the files need, of those it has (all of them as root). */
static int broker_caps(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = 0, want[3] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN }, have[3];

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = 0;
		fclose(f);
	}
	if (last >= CAP_CHECKPOINT_RESTORE)
		want[2] = CAP_CHECKPOINT_RESTORE;	/* map_files without CAP_SYS_ADMIN */
	if (capng_get_caps_process())
		return -1;
	for (int i = 0; i < 3; i++)
		have[i] = capng_have_capability(CAPNG_PERMITTED, (unsigned int)want[i]);
	capng_clear(CAPNG_SELECT_BOTH);
	for (int i = 0; i < 3; i++)
		if (have[i] && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
					    (unsigned int)want[i]))
			return -1;
	return capng_apply(CAPNG_SELECT_BOTH) ? -1 : 0;
}

static void __attribute__((noreturn)) serve(int sock, pid_t parent)
{
	struct broker_req r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "schedhist-brk");
	signal(SIGINT, SIG_IGN);	/* Ctrl-C is for the poller: the broker ends with it */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* nothing of the poller's but the socket and stderr: no BPF map, no output */
	if (dup2(sock, 3) < 0 || syscall(SYS_close_range, 4, ~0u, 0)) {
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	}
	close(0);
	close(1);
	sock = 3;
	if (broker_caps() || seccomp_broker()) {
		pr_warn("broker: cannot restrict itself (capabilities, seccomp)\n");
		_exit(1);
	}
	for (;;) {
		struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(sock, &mh, 0);
		int err, fd = -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);	/* the poller closed its end */
		err = n != (ssize_t)sizeof(r) || (mh.msg_flags & MSG_TRUNC) ? -EINVAL
									    : broker_check(&r);
		if (!err) {
			fd = open_req(&r);
			err = fd < 0 ? fd : 0;
		}
		if (send_fd(sock, err, fd))
			_exit(0);
		if (fd >= 0)
			close(fd);
	}
}

struct broker *broker_start(void)
{
	struct broker *b = calloc(1, sizeof(*b));
	pid_t parent = getpid();
	int sv[2];

	if (!b || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		pr_warn("cannot start the file broker: %s\n", strerror(b ? errno : ENOMEM));
		free(b);
		return NULL;
	}
	fflush(NULL);
	b->pid = fork();
	if (b->pid < 0) {
		pr_warn("cannot fork the file broker: %s\n", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(b);
		return NULL;
	}
	if (!b->pid) {
		close(sv[0]);
		serve(sv[1], parent);
	}
	close(sv[1]);
	b->sock = sv[0];
	return b;
}

int broker_open(void *arg, enum sym_file what, __u32 tgid, __u64 start, __u64 end, __u64 ino,
		const char *path)
{
	struct broker *b = arg;
	static struct broker_req r;	/* 4 KiB: not on the stack */
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int err = -EIO, fd = -1;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	memset(&r, 0, sizeof(r));
	r = (struct broker_req){ .what = what, .tgid = tgid, .start = start, .end = end,
				 .ino = ino };
	if (path && strlen(path) >= sizeof(r.path))
		return -ENAMETOOLONG;
	if (path)
		strcpy(r.path, path);
	if (send(b->sock, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
		return -EIO;
	do
		n = recvmsg(b->sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err))
		return -EIO;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (err) {
		if (fd >= 0)
			close(fd);
		return err < 0 ? err : -EIO;
	}
	return fd >= 0 ? fd : -EIO;
}

void broker_stop(struct broker *b)
{
	if (!b)
		return;
	close(b->sock);
	while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(b);
}
