/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Files rewritten whole and atomically, the one writer of every file
 * output (--prom-file, --heatmap): each version is written to a new
 * temporary file in the same directory, with an unpredictable name
 * (another user cannot plant it in a shared sticky directory), and
 * renamed over the old one, so a reader (node_exporter's textfile
 * collector, a browser) sees the old contents or the new ones, never a
 * mix. A symlink or a non-regular file at the path is refused at start,
 * and later versions replace the directory entry itself, never following
 * a link.
 *
 * Nothing is created before the first write: a start-up check that wrote
 * as root would leave a root-owned file that the user of --user can then
 * not replace. The directory is opened at start (it may be unreachable
 * by path once privileges are dropped) and by path again at each write
 * (it may have been removed and created again). A write that fails (disk
 * full, read-only, directory gone) leaves the last good file in place;
 * atomic_file_update() warns once and once more when writing works again.
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

/*
 * Check @path (the argument of option @what) and open its directory.
 * Refuses a symlink, a directory or any other non-regular file at @path,
 * and a missing directory. Creates nothing. 0, or -1 with the reason in
 * @err.
 */
int atomic_file_open(struct atomic_file *f, const char *what, const char *path, char *err,
		     size_t errlen);

/* Replace the contents with @len bytes at @data, mode 0644. 0 or -errno. */
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);

/*
 * atomic_file_write(), for a long run: a failure is warned once (the
 * last good file stays), and writing again after failures once too. The
 * same return value.
 */
int atomic_file_update(struct atomic_file *f, const void *data, size_t len);

/*
 * What @fill writes to @out, a stdio stream on the new version, as the
 * contents (a picture written as it is drawn, never whole in memory: the
 * heatmap's grows with its window, to MiBs, and the poller's memory with
 * it). @fill returns 0 or -errno of its own; a write to @out that
 * failed (a full disk) is found here. The same return value as
 * atomic_file_write().
 */
typedef int (*atomic_fill)(FILE *out, void *ctx);
int atomic_file_write_fill(struct atomic_file *f, atomic_fill fill, void *ctx);

/* atomic_file_update() of atomic_file_write_fill(). */
int atomic_file_update_fill(struct atomic_file *f, atomic_fill fill, void *ctx);

/* Close the directory (the file stays). */
void atomic_file_close(struct atomic_file *f);

#endif /* SH_ATOMIC_FILE_H */
