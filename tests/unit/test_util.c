// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of user/lib/util.h: ARRAY_SIZE, and array_reserve() growing an array and keeping it. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/util.h"
#include "check.h"

static void test_array_size(void)
{
	static const short a[7];
	char b[3][5];

	CHECK_EQ_U64(ARRAY_SIZE(a), 7);
	CHECK_EQ_U64(ARRAY_SIZE(b), 3);
}

/* 1000 appends: room at every one, the values kept across every move, the capacity doubled. */
static void test_array_reserve(void)
{
	size_t *v = NULL;
	size_t n, cap = 0, grows = 0, last = 0;
	int bad = 0;

	for (n = 0; n < 1000; n++) {
		CHECK(!array_reserve(&v, &cap, n, sizeof(*v), 16));
		CHECK(cap > n);
		if (cap != last) {
			grows++;
			CHECK(last == 0 ? cap == 16 : cap == 2 * last);
			last = cap;
		}
		v[n] = n * 3;
	}
	for (n = 0; n < 1000; n++)
		bad += v[n] != n * 3;
	CHECK_EQ_U64(bad, 0);
	/* 16, 32, ..., 1024 */
	CHECK_EQ_U64(grows, 7);
	CHECK_EQ_U64(cap, 1024);
	/* not full: nothing moves */
	CHECK(!array_reserve(&v, &cap, 10, sizeof(*v), 16));
	CHECK_EQ_U64(cap, 1024);
	free(v);
}

int main(void)
{
	TEST(test_array_size);
	TEST(test_array_reserve);
	return test_summary();
}
