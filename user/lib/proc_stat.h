/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* /proc/PID/stat's starttime (field 22), read from an open descriptor. */
#ifndef SH_PROC_STAT_H
#define SH_PROC_STAT_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

/* The process's start in clock ticks since boot, read from @fd (closed); 0: unreadable. */
static inline __u64 proc_stat_start(int fd)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the comm may hold spaces and parentheses: fields 3 on follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

#endif /* SH_PROC_STAT_H */
