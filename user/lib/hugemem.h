/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The poller's large arrays on transparent huge pages. At 10 000 keys a
 * report walks tens of MiB (the snapshot's entries, the groups, the
 * ranking's records, the output) in an order no prefetcher follows; with
 * 4 KiB pages nearly every entry is a TLB miss too, a third of building
 * the report (docs/overhead.md, "The poller"). Only mappings of at
 * least HUGE_MIN bytes are marked for huge pages (madvise MADV_HUGEPAGE,
 * which the kernel's "madvise" mode, the usual default, honours): a host
 * with a few hundred keys keeps its small arrays on small pages, so the
 * resident memory does not grow by a 2 MiB page per array.
 */
#ifndef SH_HUGEMEM_H
#define SH_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>

/* A huge page of x86-64 and arm64 (4 KiB base pages): the unit of these mappings. */
#define HUGE_MIN ((size_t)2 << 20)

/*
 * @size bytes of zeroed memory mapped on their own, aligned to HUGE_MIN
 * (@size rounded up to it), marked for huge pages when @huge. NULL when
 * out of memory. Free with huge_unmap().
 */
void *huge_map(size_t size, bool huge);
void huge_unmap(void *p, size_t size);

/*
 * Grow or shrink @p, of @old bytes (NULL when 0), to @size bytes, keeping
 * the first min(@old, @size): below HUGE_MIN from malloc(), from there on
 * huge_map(), marked for huge pages. NULL when out of memory (@p kept).
 * Free with big_free(@p, the last @size).
 */
void *big_realloc(void *p, size_t old, size_t size);
void big_free(void *p, size_t size);

/*
 * Buffers of HEAP_MAP_MIN bytes or more that malloc() gives each on a
 * mapping of its own, given back to the kernel when freed: glibc's
 * threshold for that otherwise rises to the largest buffer freed, and
 * later ones are carved from the heap, which small allocations then keep
 * from shrinking. Called once, at start.
 */
#define HEAP_MAP_MIN ((size_t)256 << 10)
void heap_map_big(void);

/*
 * The heap's free pages given back to the kernel (malloc_trim(): the
 * whole pages inside free chunks, anywhere in the heap, not only at its
 * top), at most once every HEAP_TRIM_NS of @now_ns; called after each
 * report: under key churn the poller frees memory in the middle of the
 * heap faster than it reuses it (docs/overhead.md, "Soak"). Partly used
 * pages stay.
 */
#define HEAP_TRIM_NS (60ULL * 1000000000ULL)
void heap_trim(unsigned long long now_ns);

#endif /* SH_HUGEMEM_H */
