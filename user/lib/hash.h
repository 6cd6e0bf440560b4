/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The hashes of the poller's tables: bytes (Prometheus series names), words (snapshot keys). */
#ifndef SH_HASH_H
#define SH_HASH_H

#include <stddef.h>
#include <linux/types.h>

/* FNV-1a of @n bytes at @p, its high bits folded in (tables take the low ones). */
static inline size_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	__u64 h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* The same for a fixed-size key of @n 64-bit words: a multiply and shift per word. */
static inline size_t hash_words(const __u64 *w, size_t n)
{
	__u64 h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	return (size_t)(h ^ (h >> 29));
}

#endif /* SH_HASH_H */
