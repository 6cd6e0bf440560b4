/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A tiny unit-test harness: CHECK() records a failure with its location,
 * each TEST() prints one PASS/FAIL line, and test_summary() prints
 * "N passed, N failed" and returns the exit code.
 */
#ifndef SH_CHECK_H
#define SH_CHECK_H

#include <stdio.h>
#include <string.h>
#include "model/hist.h"

/*
 * Buckets for the totals of a test's groups declared zero (struct
 * totals keeps its buckets in its owner's storage): the finest grid's
 * room, from a pool used round robin.
 */
static __u64 check_buckets[256][SH_NBUCKETS_MAX];
static unsigned check_nbuckets;

static inline __u64 *test_buckets(void)
{
	__u64 *b = check_buckets[check_nbuckets++ % 256];

	memset(b, 0, sizeof(check_buckets[0]));
	return b;
}

static int check_failures;	/* failed CHECKs in the current test */
static int tests_passed, tests_failed;

#define CHECK(cond)                                                                 \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__,    \
				__LINE__, #cond);                                   \
			check_failures++;                                           \
		}                                                                   \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                          \
	do {                                                                        \
		unsigned long long a_ = (a), b_ = (b);                              \
		if (a_ != b_) {                                                     \
			fprintf(stderr, "  %s:%d: %s == %llu, want %s == %llu\n",   \
				__FILE__, __LINE__, #a, a_, #b, b_);                \
			check_failures++;                                           \
		}                                                                   \
	} while (0)

#define TEST(fn)                                                                    \
	do {                                                                        \
		check_failures = 0;                                                 \
		fn();                                                               \
		if (check_failures) {                                               \
			printf("FAIL %s\n", #fn);                                   \
			tests_failed++;                                             \
		} else {                                                            \
			printf("PASS %s\n", #fn);                                   \
			tests_passed++;                                             \
		}                                                                   \
	} while (0)

static inline int test_summary(void)
{
	printf("%d passed, %d failed\n", tests_passed, tests_failed);
	return tests_failed ? 1 : 0;
}

#endif /* SH_CHECK_H */
