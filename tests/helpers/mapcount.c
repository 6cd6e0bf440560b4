// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test tool: how many keys a BPF map holds now. Opens map ID by id and
 * walks its keys with BPF_MAP_GET_NEXT_KEY (no values are copied, so it
 * is cheap even for large per-CPU maps), then prints
 *   entries N max_entries M
 * The walk is not atomic: a hash map restarts it from the first key when
 * the current one is deleted meanwhile, so keys are counted once each
 * (sorted, duplicates dropped); keys deleted and added during the walk can
 * still both count, so a caller comparing with a limit should walk again
 * before concluding.
 * usage: mapcount ID   (needs CAP_SYS_ADMIN)
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static size_t key_size;

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, key_size);
}

int main(int argc, char **argv)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	unsigned long n = 0, cap, i, uniq;
	char *key, *next, *seen;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mapcount ID\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_id = (unsigned)atoi(argv[1]);
	fd = (int)sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
	if (fd < 0) {
		fprintf(stderr, "mapcount: map %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (unsigned)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		perror("mapcount: BPF_OBJ_GET_INFO_BY_FD");
		return 1;
	}
	cap = 4 * (unsigned long)info.max_entries + 16;	/* walk restarts: bounded */
	key = calloc(1, info.key_size);
	next = calloc(1, info.key_size);
	seen = calloc(cap, info.key_size);
	if (!key || !next || !seen)
		return 1;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (unsigned)fd;
	attr.key = 0;	/* NULL: the first key */
	attr.next_key = (unsigned long)next;
	while (n < cap && !sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr)) {
		memcpy(seen + n++ * info.key_size, next, info.key_size);
		memcpy(key, next, info.key_size);
		attr.key = (unsigned long)key;
	}
	if (n < cap && errno != ENOENT) {
		perror("mapcount: BPF_MAP_GET_NEXT_KEY");
		return 1;
	}
	key_size = info.key_size;
	qsort(seen, n, key_size, cmp_key);
	for (i = 0, uniq = 0; i < n; i++)
		uniq += !i || memcmp(seen + i * key_size, seen + (i - 1) * key_size, key_size);
	printf("entries %lu max_entries %u\n", uniq, info.max_entries);
	return 0;
}
