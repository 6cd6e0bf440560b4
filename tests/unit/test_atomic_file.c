// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the one file writer (user/lib/atomic_file.c), used by
 * --prom-file and --heatmap: whole rewrites, mode 0644 whatever the umask,
 * nothing left beside the file, a symlink replaced and never written
 * through; nothing created at open; a name planted where a predictable
 * temporary name would be does not stop it; a removed and recreated
 * directory is written again, the failures meanwhile warned once and the
 * recovery once; bad paths refused at open; a version written through a
 * stream (atomic_file_write_fill()) whole, and a failed one leaving the
 * last good file and nothing beside it. A full or read-only disk:
 * tests/integration/file_outputs.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"
#include "lib/atomic_file.h"


static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* Directory entries but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_rewrites(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], link[256], other[256];
	struct atomic_file f;
	struct stat st;
	char err[512];
	mode_t old;
	char *s;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/schedhist.prom", dir);
	snprintf(link, sizeof(link), "%s/link.prom", dir);
	snprintf(other, sizeof(other), "%s/target", dir);

	CHECK(!atomic_file_open(&f, "--prom-file", path, err, sizeof(err)));
	CHECK(entries(dir) == 0);	/* nothing created before the first write */
	old = umask(077);	/* the file is 0644 whatever the umask */
	CHECK(atomic_file_write(&f, "a 1\n", 4) == 0);
	umask(old);
	s = slurp(path);
	CHECK(s && !strcmp(s, "a 1\n"));
	CHECK(!lstat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644);
	CHECK(atomic_file_write(&f, "b 2\nc 3\n", 8) == 0);
	s = slurp(path);
	CHECK(s && !strcmp(s, "b 2\nc 3\n"));
	CHECK(entries(dir) == 1);	/* no temporary file left behind */

	/* a symlink planted later is replaced, never written through */
	CHECK(!close(open(other, O_WRONLY | O_CREAT, 0600)));
	CHECK(!unlink(path) && !symlink(other, path));
	CHECK(atomic_file_write(&f, "d 4\n", 4) == 0);
	CHECK(!lstat(path, &st) && S_ISREG(st.st_mode));
	CHECK(!stat(other, &st) && st.st_size == 0);
	atomic_file_close(&f);

	/* refused at start-up: a symlink, a directory, a missing directory, no name */
	CHECK(!symlink(path, link));
	CHECK(atomic_file_open(&f, "--prom-file", link, err, sizeof(err)) == -1);
	CHECK(strstr(err, "symbolic link") != NULL);
	CHECK(atomic_file_open(&f, "--heatmap", dir, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--heatmap") && strstr(err, "not a regular file"));
	snprintf(err, sizeof(err), "%s/nodir/x.prom", dir);
	CHECK(atomic_file_open(&f, "--prom-file", strdupa(err), err, sizeof(err)) == -1);
	CHECK(atomic_file_open(&f, "--prom-file", "/tmp/", err, sizeof(err)) == -1);

	unlink(link);
	unlink(other);
	unlink(path);
	CHECK(!rmdir(dir));
}

/*
 * Whatever sits at predictable temporary names (".BASE.PID.tmp",
 * here directories, which no unlink removes, as another user's file in a
 * sticky directory is for us) does not stop a write.
 */
static void test_planted_names(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], plant[300];
	struct atomic_file f;
	char err[512];
	char *s;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	snprintf(plant, sizeof(plant), "%s/.x.prom.%d.tmp", dir, (int)getpid());
	CHECK(!mkdir(plant, 0755));
	CHECK(!atomic_file_open(&f, "--prom-file", path, err, sizeof(err)));
	CHECK(atomic_file_write(&f, "a 1\n", 4) == 0);
	s = slurp(path);
	CHECK(s && !strcmp(s, "a 1\n"));
	atomic_file_close(&f);
	rmdir(plant);
	unlink(path);
	CHECK(!rmdir(dir));
}

/* Count the lines written to stderr by @fn. */
static int warnings(int (*fn)(struct atomic_file *, const void *, size_t), struct atomic_file *f,
		    const char *data, int *ret)
{
	char tmpl[] = "/tmp/schedhist-unit-err.XXXXXX", buf[4096];
	int fd = mkstemp(tmpl), saved = dup(2), n = 0;
	ssize_t len, i;

	fflush(stderr);
	dup2(fd, 2);
	*ret = fn(f, data, strlen(data));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = pread(fd, buf, sizeof(buf), 0);
	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	close(fd);
	unlink(tmpl);
	return n;
}

/* The directory removed (writes fail, warned once), then made again (recovers). */
static void test_dir_recreated(void)
{
	char base[] = "/tmp/schedhist-unit.XXXXXX", dir[256], path[300];
	struct atomic_file f;
	char err[512];
	int ret;
	char *s;

	CHECK(mkdtemp(base) != NULL);
	snprintf(dir, sizeof(dir), "%s/d", base);
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	CHECK(!mkdir(dir, 0755));
	CHECK(!atomic_file_open(&f, "--prom-file", path, err, sizeof(err)));
	CHECK(warnings(atomic_file_update, &f, "a 1\n", &ret) == 0 && ret == 0);
	CHECK(!unlink(path) && !rmdir(dir));
	CHECK(warnings(atomic_file_update, &f, "b 2\n", &ret) == 1 && ret == -ENOENT);
	CHECK(warnings(atomic_file_update, &f, "b 2\n", &ret) == 0 && ret == -ENOENT);
	CHECK(!mkdir(dir, 0755));
	CHECK(warnings(atomic_file_update, &f, "c 3\n", &ret) == 1 && ret == 0);
	s = slurp(path);
	CHECK(s && !strcmp(s, "c 3\n"));
	CHECK(warnings(atomic_file_update, &f, "d 4\n", &ret) == 0 && ret == 0);
	atomic_file_close(&f);
	unlink(path);
	rmdir(dir);
	CHECK(!rmdir(base));
}

/* @ctx's lines "%05d\n" of its count: past stdio's buffer, so written in several pieces. */
static int fill_lines(FILE *out, void *ctx)
{
	int n = *(int *)ctx, i;

	for (i = 0; i < n; i++)
		fprintf(out, "%05d\n", i);
	return 0;
}

static int fill_fails(FILE *out, void *ctx)
{
	(void)ctx;
	fputs("half a picture", out);
	return -ENOSPC;
}

static void test_fill(void)
{
	char dir[] = "/tmp/schedhist-unit.XXXXXX", path[256], err[512];
	struct atomic_file f;
	struct stat st;
	int n = 2000, i, bad = 0;
	char line[16], got[16];
	FILE *in;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/heatmap.svg", dir);
	CHECK(!atomic_file_open(&f, "--heatmap", path, err, sizeof(err)));
	CHECK(atomic_file_write_fill(&f, fill_lines, &n) == 0);
	CHECK(!lstat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644);
	CHECK_EQ_U64(st.st_size, 6 * n);
	in = fopen(path, "r");
	CHECK(in != NULL);
	for (i = 0; in && i < n; i++) {
		snprintf(line, sizeof(line), "%05d\n", i);
		bad += !fgets(got, sizeof(got), in) || strcmp(got, line);
	}
	if (in)
		fclose(in);
	CHECK_EQ_U64(bad, 0);
	/* the fill fails: the last good version stays, no temporary file */
	CHECK(atomic_file_update_fill(&f, fill_fails, NULL) == -ENOSPC);
	CHECK(!lstat(path, &st) && st.st_size == 6 * n);
	CHECK(entries(dir) == 1);
	atomic_file_close(&f);
	unlink(path);
	CHECK(!rmdir(dir));
}

int main(void)
{
	TEST(test_rewrites);
	TEST(test_fill);
	TEST(test_planted_names);
	TEST(test_dir_recreated);
	return test_summary();
}
