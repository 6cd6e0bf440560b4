// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Atomic whole-file rewrites: a new, randomly named file beside it + rename. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "lib/atomic_file.h"
#include "lib/log.h"

#define FILE_MODE 0644
#define TMP_TRIES 16	/* names already taken in a row before giving up (EEXIST) */

int atomic_file_open(struct atomic_file *f, const char *what, const char *path, char *err,
		     size_t errlen)
{
	char *d = NULL, *b = NULL;
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
	f->what = what;
	if (!*path || path[strlen(path) - 1] == '/') {
		snprintf(err, errlen, "invalid %s '%s': want a file name", what, path);
		return -1;
	}
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "refusing %s '%s': it is a symbolic link "
				 "(give the real path)", what, path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "refusing %s '%s': it exists and is not a "
				 "regular file", what, path);
			return -1;
		}
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot check %s '%s': %s", what, path, strerror(errno));
		return -1;
	}
	/* dirname() and basename() may modify their argument: two copies */
	d = strdup(path);
	b = strdup(path);
	f->path = strdup(path);
	if (!d || !b || !f->path)
		goto nomem;
	f->base = strdup(basename(b));
	f->dir = strdup(dirname(d));
	if (!f->base || !f->dir)
		goto nomem;
	if (!strcmp(f->base, ".") || !strcmp(f->base, "..")) {
		snprintf(err, errlen, "invalid %s '%s': want a file name", what, path);
		goto fail;
	}
	f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0) {
		snprintf(err, errlen, "cannot open the directory of %s '%s': %s", what, path,
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

/*
 * The directory at the path now if it opens (maybe made anew), else the one opened at start
 * (the path may not be searchable once unprivileged).
 */
static int current_dir(struct atomic_file *f)
{
	struct stat a, b;
	int fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return f->dirfd;
	if (fstat(fd, &a) || fstat(f->dirfd, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(f->dirfd);
		f->dirfd = fd;
	} else {
		close(fd);
	}
	return f->dirfd;
}

/* A new file with an unpredictable name: hidden, and not ending in .prom. */
static int open_tmp(int dirfd, const char *base, char *name, size_t n)
{
	unsigned char r[8];
	int i, fd;

	for (i = 0; i < TMP_TRIES; i++) {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -errno;
		snprintf(name, n, ".%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", base, r[0], r[1],
			 r[2], r[3], r[4], r[5], r[6], r[7]);
		/* O_EXCL|O_NOFOLLOW: never write through something planted at the name */
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    FILE_MODE);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* A new version: @len bytes at @data, or (@fill) what it writes. 0 or -errno. */
static int replace(struct atomic_file *f, const void *data, size_t len, atomic_fill fill,
		   void *ctx)
{
	size_t n = strlen(f->base) + 32;
	char *tmp = malloc(n);
	int dirfd = current_dir(f), fd, err;
	FILE *out = NULL;

	if (!tmp)
		return -ENOMEM;
	fd = open_tmp(dirfd, f->base, tmp, n);
	if (fd < 0) {
		free(tmp);
		return fd;
	}
	/* the umask must not make it unreadable for the collector */
	err = fchmod(fd, FILE_MODE) ? -errno : 0;
	if (!err && !fill)
		err = write_all(fd, data, len);
	if (!err && fill) {
		out = fdopen(fd, "w");
		if (!out) {
			err = -errno;
		} else {
			errno = 0;
			err = fill(out, ctx);
		}
		/* a write that failed in the fill: the stream keeps its error, errno its cause */
		if (!err && out && (fflush(out) || ferror(out)))
			err = errno ? -errno : -EIO;
	}
	if (out) {
		if (fclose(out) && !err)
			err = -errno;
	} else if (close(fd) && !err) {
		err = -errno;
	}
	/* rename replaces the entry at base, even a symlink, without following it */
	if (!err && renameat(dirfd, tmp, dirfd, f->base))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return err;
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	return replace(f, data, len, NULL, NULL);
}

int atomic_file_write_fill(struct atomic_file *f, atomic_fill fill, void *ctx)
{
	return replace(f, NULL, 0, fill, ctx);
}

/* A long run outlives a full disk: say so once, and once when it is over. @err returned. */
static int updated(struct atomic_file *f, int err)
{
	if (err && err != f->err)
		pr_warn("cannot write %s %s: %s (the last good file stays; will retry every "
			"interval)\n", f->what, f->path, strerror(-err));
	else if (!err && f->err)
		pr_warn("%s %s written again\n", f->what, f->path);
	f->err = err;
	return err;
}

int atomic_file_update(struct atomic_file *f, const void *data, size_t len)
{
	return updated(f, atomic_file_write(f, data, len));
}

int atomic_file_update_fill(struct atomic_file *f, atomic_fill fill, void *ctx)
{
	return updated(f, atomic_file_write_fill(f, fill, ctx));
}

void atomic_file_close(struct atomic_file *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->dir);
	free(f->base);
	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
}
