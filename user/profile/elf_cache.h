/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ELF files --profile read, one per build id (else device and inode), bounded in files and
 * bytes (least recently used unreferenced file dropped). Build ids interned until elf_cache_free().
 */
#ifndef SH_ELF_CACHE_H
#define SH_ELF_CACHE_H

#include <stddef.h>
#include <linux/types.h>

#include "profile/elf_syms.h"

struct elf_cache;

/* One file of the cache. */
struct elf_file {
	__u64 dev, ino;		/* the key without a build id */
	struct elf_syms s;
	const char *id;		/* s.build_id_hex interned, or NULL */
	size_t refs;		/* mappings of known processes that use it */
	__u64 used;		/* the cache's clock at its last use: the eviction order */
	struct elf_file *next;	/* hash chain */
};

/* Files held and bytes of symbols held, at most (elf_cache_limits() sets others). */
#define ELF_CACHE_FILES_MAX 1024
#define ELF_CACHE_BYTES_MAX (64u << 20)
/* Build ids kept for the frames: past it, NULL. */
#define ELF_CACHE_IDS_MAX 65536

struct elf_cache *elf_cache_new(void);
void elf_cache_free(struct elf_cache *c);
void elf_cache_limits(struct elf_cache *c, size_t files, size_t bytes);

/* The file open on @fd (mapped from @dev, @ino), read unless known, with a reference; NULL: not kept. */
struct elf_file *elf_cache_get(struct elf_cache *c, int fd, __u64 dev, __u64 ino);
/* Drop a reference of elf_cache_get(); @e may be NULL. */
void elf_cache_put(struct elf_file *e);

/* Files held, bytes they hold, files dropped to stay within the bounds. */
size_t elf_cache_files(const struct elf_cache *c);
size_t elf_cache_bytes(const struct elf_cache *c);
size_t elf_cache_evicted(const struct elf_cache *c);

#endif /* SH_ELF_CACHE_H */
