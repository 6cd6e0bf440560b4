// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The growable output buffer of the renderers (outbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/outbuf.h"
#include "lib/fmt.h"
#include "lib/hugemem.h"

char *ob_grow(struct outbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->failed)
		return NULL;
	while (cap - b->len < n) {
		if (cap > ((size_t)-1) / 2) {
			b->failed = true;
			return NULL;
		}
		cap *= 2;
	}
	/* a report of thousands of keys is MiBs: on huge pages then (hugemem.h) */
	p = big_realloc(b->p, b->cap, cap);
	if (!p) {
		b->failed = true;
		return NULL;
	}
	b->p = p;
	b->cap = cap;
	return b->p + b->len;
}

void ob_fill(struct outbuf *b, char c, size_t n)
{
	char *d = ob_room(b, n);

	if (d) {
		memset(d, c, n);
		b->len += n;
	}
}

void ob_u64(struct outbuf *b, __u64 v)
{
	char *d = ob_room(b, 24);

	if (d)
		b->len += (size_t)fmt_u64(d, v);
}

void ob_pad(struct outbuf *b, const char *s, size_t len, int width, bool right)
{
	size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	char *d = ob_room(b, len + pad);

	if (!d)
		return;
	if (right) {
		memset(d, ' ', pad);
		memcpy(d + pad, s, len);
	} else {
		memcpy(d, s, len);
		memset(d + len, ' ', pad);
	}
	b->len += len + pad;
}

void ob_printf(struct outbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room = b->cap - b->len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n >= room) {
		/* did not fit: grow, then print again */
		if (!ob_grow(b, (size_t)n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct outbuf *b = cookie;

	ob_mem(b, buf, n);
	return b->failed ? -1 : (ssize_t)n;
}

FILE *ob_stream(struct outbuf *b)
{
	cookie_io_functions_t io = { .write = stream_write };
	FILE *f = fopencookie(b, "w", io);

	/* no stdio buffer: each call's bytes go to @b at once */
	if (f && setvbuf(f, NULL, _IONBF, 0)) {
		fclose(f);
		return NULL;
	}
	return f;
}

const char *ob_cstr(struct outbuf *b)
{
	if (!ob_room(b, 1))
		return NULL;
	b->p[b->len] = '\0';
	return b->p;
}

void ob_free(struct outbuf *b)
{
	big_free(b->p, b->cap);
	memset(b, 0, sizeof(*b));
}
