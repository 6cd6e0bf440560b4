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
 * before concluding. With -c COMM (schedhist's key map, -k pid or tid) it
 * also looks up each key and prints "comm N": how many keys hold the task
 * name COMM (struct sh_hist::comm of the first histogram, on any CPU).
 * usage: mapcount [-c COMM] ID   (needs CAP_SYS_ADMIN)
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "schedhist.h"

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static size_t key_size;

/* Possible CPUs, as the kernel sizes per-CPU values: /sys/devices/system/cpu/possible. */
static int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int n = 0, a, b;
	char sep;

	if (!f)
		return -1;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-' && fscanf(f, "%d%c", &b, &sep) < 1)
			break;
		n += b - a + 1;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, key_size);
}

int main(int argc, char **argv)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	unsigned long n = 0, cap, i, uniq;
	char *key, *next, *seen, *val;
	const char *comm = argc == 4 && !strcmp(argv[1], "-c") ? argv[2] : NULL;
	unsigned long ncomm = 0;
	int fd, ncpu = possible_cpus(), c;

	if (argc != (comm ? 4 : 2)) {
		fprintf(stderr, "usage: mapcount [-c COMM] ID\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_id = (unsigned)atoi(argv[argc - 1]);
	fd = (int)sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
	if (fd < 0) {
		fprintf(stderr, "mapcount: map %s: %s\n", argv[argc - 1], strerror(errno));
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
	/* per-CPU values: one per possible CPU, each rounded up to 8 bytes */
	if (ncpu <= 0) {
		fprintf(stderr, "mapcount: cannot read /sys/devices/system/cpu/possible\n");
		return 1;
	}
	val = calloc(ncpu, (info.value_size + 7) & ~7U);
	if (!key || !next || !seen || !val)
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
	for (i = 0, uniq = 0; i < n; i++) {
		if (i && !memcmp(seen + i * key_size, seen + (i - 1) * key_size, key_size))
			continue;
		uniq++;
		if (!comm)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (unsigned)fd;
		attr.key = (unsigned long)(seen + i * key_size);
		attr.value = (unsigned long)val;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;	/* deleted meanwhile */
		for (c = 0; c < ncpu; c++) {
			const struct sh_hist *h = (const void *)(val + (size_t)c *
								 ((info.value_size + 7) & ~7U));

			if (!strncmp(h->comm, comm, SH_COMM_LEN)) {
				ncomm++;
				break;
			}
		}
	}
	printf("entries %lu max_entries %u\n", uniq, info.max_entries);
	if (comm)
		printf("comm %lu\n", ncomm);
	return 0;
}
