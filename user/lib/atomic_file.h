/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Files rewritten whole and atomically (temporary file, rename): a reader sees old or new, never
 * a mix. Symlinks refused; nothing created before the first write (docs/architecture.md).
 */
#ifndef SH_ATOMIC_FILE_H
#define SH_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

struct atomic_file {
	int dirfd;		/* the file's directory, -1 when closed */
	char *path;		/* as given, for messages */
	char *dir;		/* the directory's path, opened again at each write */
	char *base;		/* the file's name in the directory */
	const char *what;	/* the option, for messages: "--prom-file" */
	int err;		/* the last write's error (warned once), 0 = ok */
};

/* Check @path (option @what's) and open its directory; non-regular refused. 0, or -1 and @err. */
int atomic_file_open(struct atomic_file *f, const char *what, const char *path, char *err,
		     size_t errlen);

/* Replace the contents with @len bytes at @data, mode 0644. 0 or -errno. */
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);

/* atomic_file_write() for a long run: a failure and the recovery are warned once each. */
int atomic_file_update(struct atomic_file *f, const void *data, size_t len);

/*
 * Contents written by @fill to a stream on the new version (never whole in memory); 0 or
 * -errno of its own; a failed write to @out is found here. As atomic_file_write().
 */
typedef int (*atomic_fill)(FILE *out, void *ctx);
int atomic_file_write_fill(struct atomic_file *f, atomic_fill fill, void *ctx);

/* atomic_file_update() of atomic_file_write_fill(). */
int atomic_file_update_fill(struct atomic_file *f, atomic_fill fill, void *ctx);

/* Close the directory (the file stays). */
void atomic_file_close(struct atomic_file *f);

#endif /* SH_ATOMIC_FILE_H */
