// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* pprof.c: profile.proto's fields, and every mapping, location, function and string made once. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/pprof.h"

/* The top-level fields of a message: how many of field @f, and the last one's bytes. */
static int fields(const unsigned char *p, size_t n, unsigned int f, const unsigned char **last,
		  size_t *last_len)
{
	int count = 0;

	for (size_t i = 0; i < n;) {
		__u64 key = 0, v = 0;
		int sh = 0;

		do
			key |= (__u64)(p[i] & 0x7f) << sh, sh += 7;
		while (p[i++] & 0x80);
		sh = 0;
		do
			v |= (__u64)(p[i] & 0x7f) << sh, sh += 7;
		while (p[i++] & 0x80);
		if ((key & 7) == 2) {
			if (key >> 3 == f) {
				*last = p + i;
				*last_len = v;
			}
			i += v;
		} else if (key >> 3 == f) {
			*last = NULL;
			*last_len = v;
		}
		count += key >> 3 == f;
	}
	return count;
}

static void test_profile(void)
{
	struct pprof_frame k = { .name = "do_nanosleep", .map_file = "[kernel.kallsyms]",
				 .addr = 0xffffffff81000000ULL };
	struct pprof_frame u1 = { "nap_sleeper", "waiters.c", "/bin/waiters", "abcd", 0x1159, 0x1000,
				  0x2000, 0 };
	struct pprof_frame u2 = { "pipe_reader", "waiters.c", "/bin/waiters", "abcd", 0x1259, 0x1000,
				  0x2000, 0 };
	struct pprof_frame comm = { .name = "w_sleep" };
	struct pprof_frame a[] = { k, u1, comm }, b[] = { k, u2, comm };
	struct pprof *pp = pprof_new("offcpu");
	const unsigned char *m;
	size_t len, ml;
	char *buf;

	CHECK(pp);
	CHECK(!pprof_add(pp, a, 3, 10, 5000, "w_sleep", 1, 2));
	CHECK(!pprof_add(pp, b, 3, 20, 7000, "w_pipe", 1, 3));
	CHECK(!pprof_encode(pp, 1, 2, &buf, &len));
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 1, &m, &ml) == 2);		/* sample types: samples, offcpu */
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 2, &m, &ml) == 2);		/* two samples */
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 3, &m, &ml) == 2);		/* kernel and /bin/waiters, once each */
	CHECK(memmem(m, ml, "\x30", 1));		/* its build id: field 6, a string index */
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 4, &m, &ml) == 4);		/* do_nanosleep and w_sleep shared */
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 5, &m, &ml) == 4);		/* functions */
	CHECK(memmem(buf, len, "waiters.c", 9) && memmem(buf, len, "abcd", 4));
	CHECK(memmem(buf, len, "nanoseconds", 11) && memmem(buf, len, "offcpu", 6));
	m = (const unsigned char *)buf;
	CHECK(fields(m, len, 14, &m, &ml) == 1);	/* default sample type */
	free(buf);
	pprof_free(pp);
}

int main(void)
{
	TEST(test_profile);
	return test_summary();
}
