// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The ELF files read for --profile: by build id, bounded, least recently used dropped. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "profile/elf_cache.h"

#define FILE_BUCKETS 1024
#define ID_BUCKETS 4096

/* An interned build id: frames keep the pointer after the file is dropped. */
struct id_node {
	struct id_node *next;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
};

struct elf_cache {
	struct elf_file *files[FILE_BUCKETS];
	size_t nfiles, nbytes, nevicted, max_files, max_bytes;
	__u64 clock;
	struct id_node *ids[ID_BUCKETS];
	size_t nids;
};

struct elf_cache *elf_cache_new(void)
{
	struct elf_cache *c = calloc(1, sizeof(*c));

	if (c)
		elf_cache_limits(c, ELF_CACHE_FILES_MAX, ELF_CACHE_BYTES_MAX);
	return c;
}

void elf_cache_limits(struct elf_cache *c, size_t files, size_t bytes)
{
	c->max_files = files;
	c->max_bytes = bytes;
}

void elf_cache_free(struct elf_cache *c)
{
	if (!c)
		return;
	for (size_t b = 0; b < FILE_BUCKETS; b++) {
		for (struct elf_file *e = c->files[b], *nx; e; e = nx) {
			nx = e->next;
			elf_syms_free(&e->s);
			free(e);
		}
	}
	for (size_t b = 0; b < ID_BUCKETS; b++) {
		for (struct id_node *n = c->ids[b], *nx; n; n = nx) {
			nx = n->next;
			free(n);
		}
	}
	free(c);
}

size_t elf_cache_files(const struct elf_cache *c)
{
	return c->nfiles;
}

size_t elf_cache_bytes(const struct elf_cache *c)
{
	return c->nbytes;
}

size_t elf_cache_evicted(const struct elf_cache *c)
{
	return c->nevicted;
}

void elf_cache_put(struct elf_file *e)
{
	if (e && e->refs)
		e->refs--;
}

/* @hex kept until elf_cache_free(), one copy per id; NULL past ELF_CACHE_IDS_MAX. */
static const char *intern_id(struct elf_cache *c, const char *hex)
{
	size_t h = hash_bytes(hex, strlen(hex)) % ID_BUCKETS;
	struct id_node *n;

	for (n = c->ids[h]; n; n = n->next)
		if (!strcmp(n->hex, hex))
			return n->hex;
	if (c->nids >= ELF_CACHE_IDS_MAX || !(n = malloc(sizeof(*n))))
		return NULL;
	snprintf(n->hex, sizeof(n->hex), "%s", hex);
	n->next = c->ids[h];
	c->ids[h] = n;
	c->nids++;
	return n->hex;
}

static size_t file_bucket(const struct elf_syms *s, __u64 dev, __u64 ino)
{
	__u64 w[2] = { dev, ino };

	return (s->build_id_len ? hash_bytes(s->build_id, s->build_id_len) : hash_words(w, 2)) %
	       FILE_BUCKETS;
}

static struct elf_file *file_find(const struct elf_cache *c, const struct elf_syms *s, __u64 dev,
				  __u64 ino)
{
	struct elf_file *e = c->files[file_bucket(s, dev, ino)];

	for (; e; e = e->next)
		if (s->build_id_len ? e->s.build_id_len == s->build_id_len &&
					      !memcmp(e->s.build_id, s->build_id, s->build_id_len)
				    : !e->s.build_id_len && e->dev == dev && e->ino == ino)
			return e;
	return NULL;
}

/* Drop unused files, least recently used first, until @need more bytes and a file fit. */
static bool make_room(struct elf_cache *c, size_t need)
{
	while (c->nfiles >= c->max_files || c->nbytes + need > c->max_bytes) {
		struct elf_file **victim = NULL, *e;

		for (size_t b = 0; b < FILE_BUCKETS; b++)
			for (struct elf_file **pp = &c->files[b]; *pp; pp = &(*pp)->next)
				if (!(*pp)->refs && (!victim || (*pp)->used < (*victim)->used))
					victim = pp;
		if (!victim)
			return false;
		e = *victim;
		*victim = e->next;
		c->nbytes -= elf_syms_bytes(&e->s);
		c->nfiles--;
		c->nevicted++;
		elf_syms_free(&e->s);
		free(e);
	}
	return true;
}

static struct elf_file *file_add(struct elf_cache *c, struct elf_syms *s, __u64 dev, __u64 ino)
{
	size_t b = file_bucket(s, dev, ino);
	struct elf_file *e;

	if (!make_room(c, elf_syms_bytes(s)) || !(e = calloc(1, sizeof(*e)))) {
		elf_syms_free(s);
		return NULL;
	}
	e->dev = dev;
	e->ino = ino;
	e->s = *s;
	e->id = s->build_id_len ? intern_id(c, s->build_id_hex) : NULL;
	e->next = c->files[b];
	c->files[b] = e;
	c->nfiles++;
	c->nbytes += elf_syms_bytes(s);
	return e;
}

struct elf_file *elf_cache_get(struct elf_cache *c, int fd, __u64 dev, __u64 ino)
{
	struct elf_file *e;
	struct elf_syms s;
	bool has_symtab;

	/* the build id first: a file known by it is not read again */
	if (elf_syms_peek(&s, fd, &has_symtab))
		return NULL;
	e = file_find(c, &s, dev, ino);
	if (e && !e->s.symtab && has_symtab && !elf_syms_read_fd(&s, fd)) {
		c->nbytes -= elf_syms_bytes(&e->s);
		elf_syms_free(&e->s);
		e->s = s;	/* the unstripped copy of that build: its names */
		c->nbytes += elf_syms_bytes(&s);
	} else if (!e && !elf_syms_read_fd(&s, fd)) {
		e = file_add(c, &s, dev, ino);
	}
	if (e) {
		e->refs++;
		e->used = ++c->clock;
	}
	return e;
}
