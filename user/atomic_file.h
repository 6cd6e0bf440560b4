/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A file rewritten whole and atomically (--prom-file): each version is
 * written to a temporary file in the same directory and renamed over the
 * old one, so a reader (node_exporter's textfile collector) sees the old
 * contents or the new ones, never a mix. The directory is opened once at
 * start-up; a symlink at the path is refused there, and later versions
 * replace the directory entry itself, never following a link.
 */
#ifndef SH_ATOMIC_FILE_H
#define SH_ATOMIC_FILE_H

#include <stddef.h>

struct atomic_file {
	int dirfd;		/* the file's directory, -1 when closed */
	char *path;		/* as given, for messages */
	char *base;		/* the file's name in the directory */
	char *tmp;		/* temporary name there: ".BASE.PID.tmp" */
};

/*
 * Check @path and open its directory. Refuses a symlink, a directory or
 * any other non-regular file at @path, and a missing directory. 0, or -1
 * with the reason in @err.
 */
int atomic_file_open(struct atomic_file *f, const char *path, char *err, size_t errlen);

/* Replace the contents with @len bytes at @data, mode 0644. 0 or -errno. */
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);

/* Close the directory (the file stays). */
void atomic_file_close(struct atomic_file *f);

#endif /* SH_ATOMIC_FILE_H */
