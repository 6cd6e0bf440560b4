/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The poller's large arrays on transparent huge pages (why: docs/architecture.md, hugemem.c). */
#ifndef SH_HUGEMEM_H
#define SH_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>

/* A huge page of x86-64 and arm64 (4 KiB base pages): the unit of these mappings. */
#define HUGE_MIN ((size_t)2 << 20)

/* @size zeroed bytes, own mapping, HUGE_MIN-aligned, huge if @huge; NULL. Free: huge_unmap(). */
void *huge_map(size_t size, bool huge);
void huge_unmap(void *p, size_t size);

/*
 * Resize @p (@old bytes) to @size: malloc() below HUGE_MIN, huge_map() from there.
 * NULL when out of memory (@p kept); free with big_free(@p, @size).
 */
void *big_realloc(void *p, size_t old, size_t size);
void big_free(void *p, size_t size);

/* Buffers from HEAP_MAP_MIN on their own mapping, returned on free (else glibc's bar rises). */
#define HEAP_MAP_MIN ((size_t)256 << 10)
void heap_map_big(void);

/* Give the heap's free pages back (malloc_trim()), at most once every HEAP_TRIM_NS. */
#define HEAP_TRIM_NS (60ULL * 1000000000ULL)
void heap_trim(unsigned long long now_ns);

#endif /* SH_HUGEMEM_H */
