// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/lib/hugemem.c: mappings aligned to HUGE_MIN, and
 * big_realloc() keeping the contents as an array grows from malloc()'s
 * memory to a mapping of its own and back.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hugemem.h"
#include "check.h"

/* @n bytes at @p hold the pattern of their offsets from @seed. */
static int pattern_ok(const unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 + seed))
			return 0;
	return 1;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

/*
 * 1 when the mapping that starts at @p is marked for huge pages ("hg" in
 * its VmFlags, /proc/self/smaps), 0 when not, -1 when not found.
 */
static int advised_huge(const void *p)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0, ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = lo == (uintptr_t)p;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* huge_map(): zeroed, aligned to a huge page, whole huge pages writable, advised as asked */
static void test_map(void)
{
	int huge, thp = !access("/sys/kernel/mm/transparent_hugepage", F_OK);

	for (huge = 0; huge < 2; huge++) {
		size_t size = HUGE_MIN + 100;
		unsigned char *p = huge_map(size, huge);
		size_t i, nonzero = 0;

		CHECK(p != NULL);
		if (!p)
			continue;
		CHECK(((uintptr_t)p & (HUGE_MIN - 1)) == 0);
		/*
		 * its own mapping: the advice is on it alone (a kernel built
		 * without transparent huge pages takes none)
		 */
		CHECK_EQ_U64(advised_huge(p), huge && thp);
		for (i = 0; i < 2 * HUGE_MIN; i += 4096)
			nonzero += p[i] != 0;
		CHECK_EQ_U64(nonzero, 0);
		/* the size rounded up to whole huge pages: the last byte of the second is ours */
		p[2 * HUGE_MIN - 1] = 1;
		huge_unmap(p, size);
	}
	CHECK(huge_map(0, true) == NULL);
}

/* big_realloc(): the contents kept across every change of size and of kind of memory */
static void test_realloc(void)
{
	static const size_t sizes[] = { 4096, HUGE_MIN - 1, HUGE_MIN, 3 * HUGE_MIN + 5,
					3 * HUGE_MIN + 900, 8 * HUGE_MIN, 1000, 16 };
	unsigned char *p = NULL;
	size_t old = 0, i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t keep = old < sizes[i] ? old : sizes[i];
		unsigned char *q = big_realloc(p, old, sizes[i]);

		CHECK(q != NULL);
		if (!q)
			break;
		CHECK(pattern_ok(q, keep, 3));
		if (sizes[i] >= HUGE_MIN)
			CHECK(((uintptr_t)q & (HUGE_MIN - 1)) == 0);
		fill(q, sizes[i], 3);
		p = q;
		old = sizes[i];
	}
	big_free(p, old);
}

/*
 * heap_map_big(): a buffer of HEAP_MAP_MIN or more gets a mapping of its
 * own even after a larger one was freed (which moves glibc's own
 * threshold up to its size, and the next buffers into the heap), and
 * the mapping goes when it is freed. (Not under ASan, whose allocator
 * has no such threshold and no mallinfo2.)
 */
static void test_heap_map_big(void)
{
#ifndef __SANITIZE_ADDRESS__
	struct mallinfo2 before, during, after;
	unsigned char *big, *p;

	heap_map_big();
	big = malloc(8 << 20);
	CHECK(big != NULL);
	memset(big, 1, 8 << 20);
	free(big);
	before = mallinfo2();
	p = malloc(HEAP_MAP_MIN * 4);
	CHECK(p != NULL);
	memset(p, 1, HEAP_MAP_MIN * 4);
	during = mallinfo2();
	free(p);
	after = mallinfo2();
	CHECK_EQ_U64(during.hblks, before.hblks + 1);
	CHECK(during.hblkhd >= before.hblkhd + HEAP_MAP_MIN * 4);
	CHECK_EQ_U64(after.hblks, before.hblks);
#endif
}

#ifndef __SANITIZE_ADDRESS__
/* (ASan's allocator is not glibc's: heap_trim() is tested without it) */
/* kB of this process's anonymous memory resident (/proc/self/status RssAnon) */
static long rss_anon_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#define TRIM_CHUNKS 8192
#define TRIM_CHUNK 1000	/* below the mmap threshold: from the heap */

/* TRIM_CHUNKS chunks written, then freed below a chunk still in use: free pages inside the heap */
static void *heap_hole(void **chunks)
{
	void *pin;
	int i;

	for (i = 0; i < TRIM_CHUNKS; i++) {
		chunks[i] = malloc(TRIM_CHUNK);
		CHECK(chunks[i] != NULL);
		memset(chunks[i], 1, TRIM_CHUNK);
	}
	pin = malloc(64);
	for (i = 0; i < TRIM_CHUNKS; i++)
		free(chunks[i]);
	return pin;
}
#endif

/*
 * heap_trim(): the whole free pages inside the heap (8 MB freed below a
 * chunk in use, which glibc's trim at the top never reaches) go back to
 * the kernel: at the first call, then at most once every HEAP_TRIM_NS.
 * The bound, half of what was freed: what glibc keeps of it (its bins'
 * headers, partial pages) is far less.
 */
static void test_heap_trim(void)
{
#ifndef __SANITIZE_ADDRESS__
	static void *chunks[TRIM_CHUNKS];
	const long freed_kb = (long)TRIM_CHUNKS * TRIM_CHUNK / 1024;
	unsigned long long t0 = 1000000000ULL;
	long before, after;
	void *pin1, *pin2, *pin3;

	heap_map_big();
	pin1 = heap_hole(chunks);
	before = rss_anon_kb();
	heap_trim(t0);
	after = rss_anon_kb();
	CHECK(before > 0 && after >= 0);
	CHECK(before - after > freed_kb / 2);
	/* within HEAP_TRIM_NS of the last trim: nothing given back */
	pin2 = heap_hole(chunks);
	before = rss_anon_kb();
	heap_trim(t0 + HEAP_TRIM_NS - 1);
	after = rss_anon_kb();
	CHECK(before - after < freed_kb / 2);
	/* then, once it has passed, all of it */
	heap_trim(t0 + HEAP_TRIM_NS);
	after = rss_anon_kb();
	CHECK(before - after > freed_kb / 2);
	pin3 = malloc(1);
	free(pin1);
	free(pin2);
	free(pin3);
#endif
}

int main(void)
{
	TEST(test_heap_map_big);
	TEST(test_heap_trim);
	TEST(test_map);
	TEST(test_realloc);
	return test_summary();
}
