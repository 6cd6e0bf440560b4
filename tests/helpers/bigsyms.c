// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test workload: writes the ELF file of tests/helpers/elfgen.h to FILE
 * (NSYMS function symbols named into one LEN-byte string: at its start,
 * or each at its own offset with -d), maps it r-x, prints "ready PID" and
 * sleeps in 10 ms steps for SECONDS (waits for a profile to name, with
 * the file among its mappings).
 * usage: bigsyms [-d] FILE NSYMS LEN SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../helpers/elfgen.h"

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 10000000 };
	bool distinct = argc > 1 && !strcmp(argv[1], "-d");
	char **a = argv + distinct;
	struct stat st;
	long steps;
	void *m;
	int fd;

	if (argc - distinct < 5) {
		fprintf(stderr, "usage: bigsyms [-d] FILE NSYMS LEN SECONDS\n");
		return 2;
	}
	if (elfgen_write(a[1], strtoul(a[2], NULL, 10), strtoul(a[3], NULL, 10), distinct)) {
		perror(a[1]);
		return 1;
	}
	fd = open(a[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(a[1]);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (steps = atol(a[4]) * 100; steps > 0; steps--)
		nanosleep(&ts, NULL);
	return 0;
}
