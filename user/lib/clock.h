/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The poller's one clock: CLOCK_MONOTONIC in ns (ticks, deadlines, ages). */
#ifndef SH_CLOCK_H
#define SH_CLOCK_H

#include <time.h>
#include <linux/types.h>

#define NSEC_PER_SEC 1000000000ULL

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

#endif /* SH_CLOCK_H */
