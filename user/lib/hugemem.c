// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Large arrays on transparent huge pages (hugemem.h). */
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/hugemem.h"

static size_t huge_round(size_t size)
{
	return (size + HUGE_MIN - 1) & ~(HUGE_MIN - 1);
}

void *huge_map(size_t size, bool huge)
{
	size_t len = huge_round(size), head;
	char *p;

	if (!size || len < size)
		return NULL;
	/* HUGE_MIN more than needed, then the unaligned head and tail given back */
	p = mmap(NULL, len + HUGE_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = (HUGE_MIN - ((uintptr_t)p & (HUGE_MIN - 1))) & (HUGE_MIN - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_MIN - head);
	p += head;
	/* advice only: where the kernel has no huge pages the mapping works as it is */
	if (huge)
		madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void huge_unmap(void *p, size_t size)
{
	if (p)
		munmap(p, huge_round(size));
}

void *big_realloc(void *p, size_t old, size_t size)
{
	void *q;

	if (size < HUGE_MIN && old < HUGE_MIN)
		return realloc(p, size);
	/* the same mapping while its rounded size holds @size (a shrink within it too) */
	if (old >= HUGE_MIN && size >= HUGE_MIN && huge_round(size) == huge_round(old))
		return p;
	if (size < HUGE_MIN) {
		if (!(q = malloc(size)))
			return NULL;
	} else if (!(q = huge_map(size, true))) {
		return NULL;
	}
	if (p)
		memcpy(q, p, old < size ? old : size);
	big_free(p, old);
	return q;
}

void big_free(void *p, size_t size)
{
	if (size < HUGE_MIN)
		free(p);
	else
		huge_unmap(p, size);
}

void heap_map_big(void)
{
	/* (a fixed threshold: glibc's own stops moving once it is set) */
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_MAP_MIN);
}

void heap_trim(unsigned long long now_ns)
{
	static unsigned long long last;

	if (last && now_ns - last < HEAP_TRIM_NS)
		return;
	last = now_ns;
	malloc_trim(0);
}
