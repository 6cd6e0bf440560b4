/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The renderers' output: one growable byte buffer per output, reused for
 * every report (its memory grows to the largest report once), written with
 * inline appends. A report of thousands of keys is hundreds of thousands
 * of small pieces; through stdio each would cost a call and a check of
 * the stream, most of the poller's CPU.
 */
#ifndef SH_OUTBUF_H
#define SH_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

struct outbuf {
	char *p;		/* the bytes; not NUL-terminated (ob_cstr) */
	size_t len;		/* bytes written */
	size_t cap;		/* bytes allocated */
	bool failed;		/* an allocation failed: the contents are cut */
};

/* Make room for @n more bytes; NULL (and ->failed) when out of memory. */
char *ob_grow(struct outbuf *b, size_t n);

/* Room for @n more bytes at the end: write them, then ob_commit(). NULL when out of memory. */
static inline char *ob_room(struct outbuf *b, size_t n)
{
	if (b->cap - b->len >= n)
		return b->p + b->len;
	return ob_grow(b, n);
}

static inline void ob_commit(struct outbuf *b, size_t n)
{
	b->len += n;
}

static inline void ob_mem(struct outbuf *b, const void *s, size_t n)
{
	char *d = ob_room(b, n);

	if (d) {
		memcpy(d, s, n);
		b->len += n;
	}
}

static inline void ob_str(struct outbuf *b, const char *s)
{
	ob_mem(b, s, strlen(s));
}

static inline void ob_chr(struct outbuf *b, char c)
{
	char *d = ob_room(b, 1);

	if (d) {
		*d = c;
		b->len++;
	}
}

/*
 * Rows written through a cursor @d into room taken once (ob_room(), then
 * ob_commit() of what was written): an append per field reloads and
 * stores the buffer's length. @s is a string literal: its length,
 * LIT_LEN(), is known at compile time, and so is the room a row takes.
 */
#define LIT_LEN(s) (sizeof(s) - 1)
#define put_lit(d, s) do {				\
	memcpy((d), (s), sizeof(s) - 1);		\
	(d) += sizeof(s) - 1;				\
} while (0)

/* @n copies of @c. */
void ob_fill(struct outbuf *b, char c, size_t n);
/* @v in decimal. */
void ob_u64(struct outbuf *b, __u64 v);
/* @s, padded with spaces to @width bytes: on the left (@right aligned) or the right. */
void ob_pad(struct outbuf *b, const char *s, size_t len, int width, bool right);
/* printf into the buffer: for the few lines of a report, not its per-key ones. */
void ob_printf(struct outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Empty it for the next report, keeping its memory. */
static inline void ob_reset(struct outbuf *b)
{
	b->len = 0;
	b->failed = false;
}

/*
 * A stdio stream that appends to @b, for the writers built on FILE (the
 * Prometheus text, the live page): unbuffered, so fclose() only ends the
 * stream. Unlike open_memstream(), @b keeps its memory from one reading
 * to the next (ob_reset() first): buffers made and freed every reading
 * left holes in the heap (docs/overhead.md, "Soak"). NULL when out of
 * memory; a failed append makes the stream's ferror() true.
 */
FILE *ob_stream(struct outbuf *b);

/* The contents NUL-terminated (for tests and string consumers); NULL when out of memory. */
const char *ob_cstr(struct outbuf *b);

void ob_free(struct outbuf *b);

#endif /* SH_OUTBUF_H */
