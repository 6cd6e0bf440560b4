// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/cgroup.c: cg_find_mount on mountinfo texts (hybrid
 * v1+v2 host, pure v2, none, combined v1 controllers, optional fields,
 * escaped mount points, bind mounts, garbage lines), and id <-> path
 * resolution on a scratch directory tree standing in for cgroupfs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cgroup.h"
#include "check.h"


/* This machine's real layout: v1 controllers, cgroup2 at .../unified. */
static const char hybrid[] =
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	"39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* A systemd host in unified mode, with optional fields as the kernel prints them. */
static const char pure_v2[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
	"26 22 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=4012345k\n"
	"29 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:5 master:1 - "
	"cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

static const char no_cgroups[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"23 22 0:21 / /proc rw,relatime shared:12 - proc proc rw\n"
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n";

/* The common v1 layout: cpu and cpuacct mounted together. */
static const char combined_v1[] =
	"30 22 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"33 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 - "
	"cgroup cgroup rw,cpu,cpuacct\n"
	"34 30 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:16 - "
	"cgroup cgroup rw,memory\n";

static int find(const char *text, const char *ctrl, char *out, size_t len)
{
	memset(out, 0x55, len);	/* no stale result can pass */
	out[len - 1] = '\0';
	return cg_find_mount(text, ctrl, out, len);
}

static void test_hybrid(void)
{
	char m[4096];

	CHECK_EQ_U64(find(hybrid, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/unified"));
	CHECK_EQ_U64(find(hybrid, "cpu", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/cpu"));
	CHECK_EQ_U64(find(hybrid, "cpuacct", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/cpuacct"));
	/* controllers are whole comma-separated tokens */
	CHECK_EQ_U64(find(hybrid, "cpuset", m, sizeof(m)), -1);
	CHECK_EQ_U64(find(hybrid, "memory", m, sizeof(m)), -1);
	CHECK_EQ_U64(find(hybrid, "acct", m, sizeof(m)), -1);
	CHECK_EQ_U64(find(hybrid, "rw", m, sizeof(m)), 0);	/* a token, in a cgroup line */
	CHECK(!strcmp(m, "/sys/fs/cgroup/cpu"));
	CHECK_EQ_U64(find(hybrid, "name=systemd", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/systemd"));
	CHECK_EQ_U64(find(hybrid, "systemd", m, sizeof(m)), -1);
}

static void test_pure_v2(void)
{
	char m[4096];

	CHECK_EQ_U64(find(pure_v2, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup"));
	/* cgroup2 lines never answer for a v1 controller */
	CHECK_EQ_U64(find(pure_v2, "cpu", m, sizeof(m)), -1);
	CHECK_EQ_U64(find(pure_v2, "nsdelegate", m, sizeof(m)), -1);
}

static void test_none(void)
{
	char m[4096];

	CHECK_EQ_U64(find(no_cgroups, NULL, m, sizeof(m)), -1);
	CHECK_EQ_U64(find(no_cgroups, "cpu", m, sizeof(m)), -1);
	CHECK_EQ_U64(find("", NULL, m, sizeof(m)), -1);
	CHECK_EQ_U64(find("\n\n\n", NULL, m, sizeof(m)), -1);
	/* a v1-only host has no cgroup2 */
	CHECK_EQ_U64(find(combined_v1, NULL, m, sizeof(m)), -1);
}

static void test_combined_v1(void)
{
	char m[4096];

	CHECK_EQ_U64(find(combined_v1, "cpu", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/cpu,cpuacct"));
	CHECK_EQ_U64(find(combined_v1, "cpuacct", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/cpu,cpuacct"));
	CHECK_EQ_U64(find(combined_v1, "memory", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup/memory"));
	CHECK_EQ_U64(find(combined_v1, "cpuset", m, sizeof(m)), -1);
}

/* Optional fields (shared:N master:N propagate_from:N) before " - ". */
static void test_optional_fields(void)
{
	static const char text[] =
		"29 24 0:26 / /sys/fs/cgroup rw,relatime shared:5 master:1 propagate_from:2 "
		"unbindable - cgroup2 cgroup2 rw\n"
		"31 30 0:28 / /mnt/cpu rw,relatime shared:7 - cgroup cgroup rw,cpu\n";
	char m[4096];

	CHECK_EQ_U64(find(text, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/sys/fs/cgroup"));
	CHECK_EQ_U64(find(text, "cpu", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/mnt/cpu"));
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void test_escaped_mount_point(void)
{
	static const char text[] =
		"40 30 0:37 / /mnt/my\\040cgroups rw,relatime - cgroup2 cgroup2 rw\n"
		"41 30 0:38 / /mnt/a\\134b\\011c rw,relatime - cgroup cgroup rw,pids\n";
	char m[4096];

	CHECK_EQ_U64(find(text, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/mnt/my cgroups"));
	CHECK_EQ_U64(find(text, "pids", m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/mnt/a\\b\tc"));
}

/* A bind mount of a subdirectory (root not "/") is not the hierarchy. */
static void test_bind_mount_skipped(void)
{
	static const char text[] =
		"50 22 0:37 /system.slice/docker-1.scope /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
		"51 22 0:28 /user.slice /run/cpu rw - cgroup cgroup rw,cpu\n"
		"52 22 0:37 / /host/sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n";
	char m[4096];

	CHECK_EQ_U64(find(text, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/host/sys/fs/cgroup"));
	CHECK_EQ_U64(find(text, "cpu", m, sizeof(m)), -1);
}

/* The first hierarchy that matches wins; a mount point too long is skipped. */
static void test_first_match_and_length(void)
{
	static const char text[] =
		"40 30 0:37 / /a/very/long/mount/point rw - cgroup2 cgroup2 rw\n"
		"41 30 0:37 / /short rw - cgroup2 cgroup2 rw\n";
	char m[4096], small[8];

	CHECK_EQ_U64(find(text, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/a/very/long/mount/point"));
	CHECK_EQ_U64(find(text, NULL, small, sizeof(small)), 0);
	CHECK(!strcmp(small, "/short"));
	CHECK_EQ_U64(find(text, NULL, small, 6), -1);	/* "/short" needs 7 bytes */
}

/* Lines with garbage or too few fields: no crash, no false match. */
static void test_garbage(void)
{
	char *big = malloc(20000), m[4096];
	static const char *const bad[] = {
		"garbage\n",
		" - \n",
		" - cgroup2 cgroup2 rw\n",
		"1 2 3 - cgroup2\n",
		"1 2 3 / /x rw -\n",
		"1 2 3 / /x rw - cgroup2\n",
		"1 2 3 / /x rw - cgroup2 cgroup2\n",
		/* the mount point missing: fields would shift into the wrong places */
		"40 30 0:37 / - cgroup2 cgroup2 rw extra\n",
		"40 30 / - x cgroup2 rw extra\n",
		"-\n",
		"  \t \n",
		"40 30 0:37 / /x rw - cgroup2cgroup2 rw\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (find(bad[i], NULL, m, sizeof(m)) != -1) {
			fprintf(stderr, "  matched garbage line %zu: mount \"%s\"\n", i, m);
			CHECK(!"garbage matched");
		}
		CHECK_EQ_U64(find(bad[i], "cpu", m, sizeof(m)), -1);
	}

	/* garbage, an over-long line, a line without "\n", then the real one */
	if (!big)
		return;
	memset(big, 'x', 19999);
	big[19999] = '\0';
	memcpy(big, "1 2 3 / /huge rw - cgroup2 cgroup2 rw ", 38);
	big[15000] = '\n';
	memcpy(big + 15001, "garbage\n40 30 0:37 / /ok rw - cgroup2 cgroup2 rw", 49);
	big[15050] = '\0';
	CHECK_EQ_U64(find(big, NULL, m, sizeof(m)), 0);
	CHECK(!strcmp(m, "/ok"));
	free(big);
}

/* ---- id <-> path, on a scratch tree ---- */

static __u64 ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

static void test_lookup_and_paths(void)
{
	char root[] = "/tmp/sh-cgroup-XXXXXX", p[512], err[512];
	struct cgroups cg = {};
	__u64 id, a_id, b_id, root_id;
	__u32 level;

	CHECK(mkdtemp(root) != NULL);
	snprintf(cg.mount, sizeof(cg.mount), "%s", root);
	snprintf(p, sizeof(p), "%s/a.slice", root);
	CHECK(!mkdir(p, 0700));
	a_id = ino_of(p);
	snprintf(p, sizeof(p), "%s/a.slice/b.scope", root);
	CHECK(!mkdir(p, 0700));
	b_id = ino_of(p);
	root_id = ino_of(root);
	snprintf(p, sizeof(p), "%s/a.slice/file", root);
	fclose(fopen(p, "w"));

	/* relative to the hierarchy root, with or without a leading "/" */
	CHECK(!cg_lookup(&cg, "/a.slice", &id, &level, err, sizeof(err)));
	CHECK_EQ_U64(id, a_id);
	CHECK_EQ_U64(level, 1);
	CHECK(!cg_lookup(&cg, "a.slice/b.scope", &id, &level, err, sizeof(err)));
	CHECK_EQ_U64(id, b_id);
	CHECK_EQ_U64(level, 2);
	CHECK(!cg_lookup(&cg, "/", &id, &level, err, sizeof(err)));
	CHECK_EQ_U64(id, root_id);
	CHECK_EQ_U64(level, 0);
	/* an absolute path under the mount */
	snprintf(p, sizeof(p), "%s/a.slice/b.scope/", root);
	CHECK(!cg_lookup(&cg, p, &id, &level, err, sizeof(err)));
	CHECK_EQ_U64(id, b_id);
	CHECK_EQ_U64(level, 2);
	/* errors say what is wrong */
	err[0] = '\0';
	CHECK(cg_lookup(&cg, "/nope", &id, &level, err, sizeof(err)));
	CHECK(strstr(err, "not found") != NULL);
	CHECK(cg_lookup(&cg, "/a.slice/file", &id, &level, err, sizeof(err)));
	CHECK(strstr(err, "not a cgroup directory") != NULL);
	CHECK(cg_lookup(&cg, "/a.slice/../..", &id, &level, err, sizeof(err)));

	/* ids to paths: one walk, then answers from the cache */
	CHECK(cg_path(&cg, a_id, 1) && !strcmp(cg_path(&cg, a_id, 1), "/a.slice"));
	CHECK(cg_path(&cg, b_id, 1) && !strcmp(cg_path(&cg, b_id, 1), "/a.slice/b.scope"));
	CHECK(cg_path(&cg, root_id, 1) && !strcmp(cg_path(&cg, root_id, 1), "/"));
	CHECK(cg_path(&cg, 1, 1) == NULL);	/* unknown: removed */
	CHECK(cg_exists(&cg, b_id));

	/* a cgroup made after the walk is found in the next interval's walk */
	snprintf(p, sizeof(p), "%s/c.slice", root);
	CHECK(!mkdir(p, 0700));
	id = ino_of(p);
	CHECK(cg_path(&cg, id, 1) == NULL);	/* walked already in interval 1 */
	CHECK(cg_path(&cg, id, 2) && !strcmp(cg_path(&cg, id, 2), "/c.slice"));

	/* removed: cg_exists notices */
	snprintf(p, sizeof(p), "%s/a.slice/b.scope", root);
	CHECK(!rmdir(p));
	CHECK(!cg_exists(&cg, b_id));
	CHECK(cg_exists(&cg, a_id));
	CHECK(!cg_exists(&cg, 1));

	cg_close(&cg);
	CHECK_EQ_U64(cg.nnames, 0);
	snprintf(p, sizeof(p), "%s/a.slice/file", root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/a.slice", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/c.slice", root);
	rmdir(p);
	rmdir(root);
}

/* The real /proc/self/mountinfo: any answer must be an absolute path. */
static void test_open_real(void)
{
	struct cgroups cg;

	if (!cg_open(&cg, NULL))
		CHECK(cg.mount[0] == '/');
	cg_close(&cg);
	if (!cg_open(&cg, "no-such-controller"))
		CHECK(!"found a hierarchy of a controller that does not exist");
	cg_close(&cg);
}

int main(void)
{
	TEST(test_hybrid);
	TEST(test_pure_v2);
	TEST(test_none);
	TEST(test_combined_v1);
	TEST(test_optional_fields);
	TEST(test_escaped_mount_point);
	TEST(test_bind_mount_skipped);
	TEST(test_first_match_and_length);
	TEST(test_garbage);
	TEST(test_lookup_and_paths);
	TEST(test_open_real);
	return test_summary();
}
