// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Atomic whole-file rewrites: temporary file in the same directory + rename. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "atomic_file.h"

#define FILE_MODE 0644

int atomic_file_open(struct atomic_file *f, const char *path, char *err, size_t errlen)
{
	char *d = NULL, *b = NULL;
	struct stat st;
	size_t n;

	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
	if (!*path || path[strlen(path) - 1] == '/') {
		snprintf(err, errlen, "invalid --prom-file '%s': want a file name", path);
		return -1;
	}
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "refusing --prom-file '%s': it is a symbolic link "
				 "(give the real path)", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "refusing --prom-file '%s': it exists and is not a "
				 "regular file", path);
			return -1;
		}
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot check --prom-file '%s': %s", path, strerror(errno));
		return -1;
	}
	/* dirname() and basename() may modify their argument: two copies */
	d = strdup(path);
	b = strdup(path);
	f->path = strdup(path);
	if (!d || !b || !f->path)
		goto nomem;
	f->base = strdup(basename(b));
	if (!f->base)
		goto nomem;
	if (!strcmp(f->base, ".") || !strcmp(f->base, "..")) {
		snprintf(err, errlen, "invalid --prom-file '%s': want a file name", path);
		goto fail;
	}
	n = strlen(f->base) + 40;
	f->tmp = malloc(n);
	if (!f->tmp)
		goto nomem;
	/* hidden, and not ending in .prom: the textfile collector skips it */
	snprintf(f->tmp, n, ".%s.%d.tmp", f->base, (int)getpid());
	f->dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0) {
		snprintf(err, errlen, "cannot open the directory of --prom-file '%s': %s", path,
			 strerror(errno));
		goto fail;
	}
	free(d);
	free(b);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	free(d);
	free(b);
	atomic_file_close(f);
	return -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	int fd, err;

	/* a leftover of an earlier failed write of ours */
	unlinkat(f->dirfd, f->tmp, 0);
	/* O_EXCL|O_NOFOLLOW: never write through something planted at the name */
	fd = openat(f->dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    FILE_MODE);
	if (fd < 0)
		return -errno;
	/* the umask must not make it unreadable for the collector */
	err = fchmod(fd, FILE_MODE) ? -errno : 0;
	if (!err)
		err = write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	/* rename replaces the entry at base, even a symlink, without following it */
	if (!err && renameat(f->dirfd, f->tmp, f->dirfd, f->base))
		err = -errno;
	if (err)
		unlinkat(f->dirfd, f->tmp, 0);
	return err;
}

void atomic_file_close(struct atomic_file *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->base);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
}
