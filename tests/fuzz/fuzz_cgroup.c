// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: cg_lookup(), the -c PATH handling, against a small
 * fake hierarchy made once in a temporary directory:
 *   ROOT/mnt            stands in for the cgroup mount (level 0)
 *   ROOT/mnt/a, a/b, a/b/c, d          cgroups at levels 1, 2, 3, 1
 *   ROOT/mnt/a/f        a file, not a cgroup
 *   ROOT/mnt/in -> a/b, ROOT/mnt/out -> ../outside, ROOT/mnt/loop -> loop
 *   ROOT/outside, ROOT/mntx             directories outside the mount
 * (ROOT is under $TMPDIR, or /tmp; removed at exit)
 * The input is the path; a leading "@" stands for ROOT/mnt, so that paths
 * given absolute under the mount are reached too. The first byte sizes the
 * error buffer (1 to 256 bytes, allocated to the byte). A success must
 * name one of the five directories inside the mount with its level; a
 * failure must leave a NUL-terminated message.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cgroup.h"


static char root[PATH_MAX];
static struct cgroups cg;
static struct {
	const char *rel;
	__u32 level;
	ino_t ino;
} dirs[] = { { "", 0, 0 }, { "/a", 1, 0 }, { "/a/b", 2, 0 }, { "/a/b/c", 3, 0 }, { "/d", 1, 0 } };

static void remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

static void mk(const char *rel, int dir, const char *link_to)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	if (link_to ? symlink(link_to, p) : dir ? mkdir(p, 0755) : !(f = fopen(p, "w")) || fclose(f)) {
		perror(p);
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	char p[PATH_MAX];
	size_t i;

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/schedhist-fuzzcg.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(remove_tree);
	mk("/mnt", 1, NULL);
	mk("/mnt/a", 1, NULL);
	mk("/mnt/a/b", 1, NULL);
	mk("/mnt/a/b/c", 1, NULL);
	mk("/mnt/d", 1, NULL);
	mk("/mnt/a/f", 0, NULL);
	mk("/mnt/in", 0, "a/b");
	mk("/mnt/out", 0, "../outside");
	mk("/mnt/loop", 0, "loop");
	mk("/outside", 1, NULL);
	mk("/mntx", 1, NULL);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/mnt%s", root, dirs[i].rel);
		if (stat(p, &st))
			exit(1);
		dirs[i].ino = st.st_ino;
	}
	snprintf(cg.mount, sizeof(cg.mount), "%s/mnt", root);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *path, *err;
	size_t errlen, n, i;
	__u64 id = 0;
	__u32 level = 0;

	if (!size)
		return 0;
	errlen = (size_t)data[0] + 1;
	data++;
	size--;
	n = strnlen((const char *)data, size);
	path = malloc(strlen(cg.mount) + n + 1);
	err = malloc(errlen);
	if (!path || !err)
		abort();
	if (n && data[0] == '@')
		snprintf(path, strlen(cg.mount) + n + 1, "%s%.*s", cg.mount, (int)n - 1,
			 (const char *)data + 1);
	else
		snprintf(path, n + 1, "%.*s", (int)n, (const char *)data);

	memset(err, 'x', errlen);
	if (!cg_lookup(&cg, path, &id, &level, err, errlen)) {
		for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			if (dirs[i].ino == id)
				break;
		if (i == sizeof(dirs) / sizeof(dirs[0]) || dirs[i].level != level) {
			fprintf(stderr, "'%s' resolved to id %llu level %u\n", path,
				(unsigned long long)id, level);
			abort();
		}
	} else if (!memchr(err, '\0', errlen) || (errlen > 1 && !err[0])) {
		abort();
	}
	free(err);
	free(path);
	return 0;
}
