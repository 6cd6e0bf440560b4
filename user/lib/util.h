/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The few helpers every module of the poller would otherwise define again. */
#ifndef SH_UTIL_H
#define SH_UTIL_H

#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The version the Makefile passes (git describe); a build outside it says so. */
#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

/*
 * Room for one more of @size-byte elements in *@arr (*@cap, @n taken): doubled when full,
 * @first at the start. 0, or -1 when out of memory (the array as it was).
 */
static inline int array_reserve(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return 0;
	memcpy(&p, arr, sizeof(p));
	if (!(p = realloc(p, c * size)))
		return -1;
	memcpy(arr, &p, sizeof(p));
	*cap = c;
	return 0;
}

#endif /* SH_UTIL_H */
