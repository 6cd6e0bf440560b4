// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/lib/outbuf.c's stream (ob_stream()): what stdio writes
 * lands in the buffer at once, in order, and a buffer written again every
 * reading keeps its memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/outbuf.h"
#include "check.h"

/* fprintf, fputs, fputc and fwrite append, each at once (no stdio buffer to flush). */
static void test_stream_appends(void)
{
	struct outbuf b = {};
	FILE *f = ob_stream(&b);

	CHECK(f != NULL);
	fprintf(f, "a=%d;", 42);
	CHECK_EQ_U64(b.len, 5);
	fputs("bc", f);
	fputc('d', f);
	fwrite("\0e", 1, 2, f);
	CHECK_EQ_U64(b.len, 10);
	CHECK(!memcmp(b.p, "a=42;bcd\0e", 10));
	CHECK(!fclose(f));
	CHECK_EQ_U64(b.len, 10);
	/* a second stream on the same buffer goes on after it */
	f = ob_stream(&b);
	CHECK(f != NULL);
	fputs("!", f);
	CHECK(!fclose(f));
	CHECK(!strcmp(ob_cstr(&b), "a=42;bcd"));
	CHECK(!memcmp(b.p + 8, "\0e!", 3));
	ob_free(&b);
}

/*
 * A page of 100 000 bytes written line by line: every byte in place, the
 * capacity grown by doubling past it. Written again after ob_reset(): the
 * same bytes in the same memory, nothing allocated for it.
 */
static void test_stream_reuse(void)
{
	struct outbuf b = {};
	char *first = NULL;
	size_t cap = 0, i;
	int bad = 0;

	for (int round = 0; round < 3; round++) {
		FILE *f;

		ob_reset(&b);
		f = ob_stream(&b);
		CHECK(f != NULL);
		for (i = 0; i < 10000; i++)
			fprintf(f, "%09zu\n", i);
		CHECK(!fclose(f) && !b.failed);
		CHECK_EQ_U64(b.len, 100000);
		for (i = 0; i < 10000; i++) {
			char want[11];

			snprintf(want, sizeof(want), "%09zu\n", i);
			bad += memcmp(b.p + 10 * i, want, 10) != 0;
		}
		CHECK_EQ_U64(bad, 0);
		if (round == 0) {
			first = b.p;
			cap = b.cap;
			CHECK(cap >= 100000 && cap < 200000);
		}
		CHECK(b.p == first && b.cap == cap);
	}
	ob_free(&b);
}

int main(void)
{
	TEST(test_stream_appends);
	TEST(test_stream_reuse);
	return test_summary();
}
