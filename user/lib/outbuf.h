/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The renderers' output: a reused, growable buffer with inline appends (docs/architecture.md). */
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
 * Rows go through a cursor into room taken once (ob_room(), ob_commit()): an append per
 * field reloads the length. LIT_LEN() of a literal is a constant, and so is a row's room.
 */
#define LIT_LEN(s) (sizeof(s) - 1)
#define put_lit(d, s) do {				\
	memcpy((d), (s), sizeof(s) - 1);		\
	(d) += sizeof(s) - 1;				\
} while (0)

void ob_fill(struct outbuf *b, char c, size_t n);
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
 * A stdio stream appending to @b (unbuffered: fclose() only ends it), keeping @b's memory across
 * readings. NULL when out of memory; a failed append sets ferror().
 */
FILE *ob_stream(struct outbuf *b);

/* The contents NUL-terminated (for tests and string consumers); NULL when out of memory. */
const char *ob_cstr(struct outbuf *b);

void ob_free(struct outbuf *b);

#endif /* SH_OUTBUF_H */
