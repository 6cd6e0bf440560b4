// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The escaping rule for names (see escape.h), and its reverse. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/escape.h"

/* Length of the well-formed, shortest UTF-8 sequence at @p, or 0. */
static size_t utf8_len(const unsigned char *p, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		c = p[0] & 0x07;
	} else {
		return 0;
	}
	/* a NUL ends the string: it is never a continuation byte */
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||	/* overlong */
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)		/* surrogates, too big */
		return 0;
	*cp = c;
	return len;
}

/* Characters that are well-formed but escaped all the same. */
static bool is_control(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||	/* C0, DEL, C1 */
	       c == 0x2028 || c == 0x2029 ||				/* line separators */
	       c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) ||				/* bidi controls */
	       c == 0xfffe || c == 0xffff;				/* not XML characters */
}

/*
 * The next unit of @p's escaped form: *@in the name bytes it stands for, written into @out (at
 * most 4 bytes, or an escape of up to 16). The length written.
 */
static size_t next_unit(const unsigned char *p, size_t *in, char out[16])
{
	static const char hex[] = "0123456789abcdef";
	uint32_t c;
	size_t len = utf8_len(p, &c), i;

	if (len && !is_control(c) && c != '\\') {
		memcpy(out, p, len);
		*in = len;
		return len;
	}
	if (len == 1 && c == '\\') {
		out[0] = out[1] = '\\';
		*in = 1;
		return 2;
	}
	/* a control character: each of its bytes; an invalid byte: that one alone */
	if (!len)
		len = 1;
	for (i = 0; i < len; i++) {
		out[4 * i] = '\\';
		out[4 * i + 1] = 'x';
		out[4 * i + 2] = hex[p[i] >> 4];
		out[4 * i + 3] = hex[p[i] & 0xf];
	}
	*in = len;
	return 4 * len;
}

/* Length of the run at @p of ASCII that no rule changes in @syntax: nearly every name. */
static size_t plain_run(const unsigned char *p, enum esc_syntax syntax)
{
	size_t n = 0;

	for (;; n++) {
		unsigned char c = p[n];

		if (c < 0x20 || c > 0x7e || c == '\\')
			return n;
		if (syntax != ESC_TEXT && c == '"')
			return n;
		if (syntax == ESC_XML && (c == '<' || c == '>' || c == '&'))
			return n;
	}
}

void name_put(struct outbuf *b, const char *name, enum esc_syntax syntax)
{
	const unsigned char *p = (const unsigned char *)name;
	char u[16], *d;
	size_t in, n, i, o;

	while (*p) {
		n = plain_run(p, syntax);
		if (n) {
			ob_mem(b, p, n);
			p += n;
			continue;
		}
		n = next_unit(p, &in, u);
		p += in;
		/* at most 6 bytes per escaped one (&quot;) */
		d = ob_room(b, 6 * n);
		if (!d)
			return;
		for (i = 0, o = 0; i < n; i++) {
			char c = u[i];

			switch (syntax) {
			case ESC_TEXT:
				d[o++] = c;
				break;
			case ESC_JSON:
			case ESC_LABEL:
				/* no control character is left for these to escape */
				if (c == '"' || c == '\\')
					d[o++] = '\\';
				d[o++] = c;
				break;
			case ESC_XML:
				if (c == '<')
					memcpy(d + o, "&lt;", 4), o += 4;
				else if (c == '>')
					memcpy(d + o, "&gt;", 4), o += 4;
				else if (c == '&')
					memcpy(d + o, "&amp;", 5), o += 5;
				else if (c == '"')
					memcpy(d + o, "&quot;", 6), o += 6;
				else
					d[o++] = c;
				break;
			}
		}
		ob_commit(b, o);
	}
}

void json_string(struct outbuf *b, const char *name)
{
	/* names are bytes: the one rule above makes them valid UTF-8 */
	ob_chr(b, '"');
	name_put(b, name, ESC_JSON);
	ob_chr(b, '"');
}

void name_write(FILE *f, const char *name, enum esc_syntax syntax)
{
	const unsigned char *p = (const unsigned char *)name;
	char u[16];
	size_t in, n, i;

	while (*p) {
		n = next_unit(p, &in, u);
		p += in;
		for (i = 0; i < n; i++) {
			char c = u[i];

			switch (syntax) {
			case ESC_TEXT:
				fputc(c, f);
				break;
			case ESC_JSON:
			case ESC_LABEL:
				if (c == '"' || c == '\\')
					fputc('\\', f);
				fputc(c, f);
				break;
			case ESC_XML:
				if (c == '<')
					fputs("&lt;", f);
				else if (c == '>')
					fputs("&gt;", f);
				else if (c == '&')
					fputs("&amp;", f);
				else if (c == '"')
					fputs("&quot;", f);
				else
					fputc(c, f);
				break;
			}
		}
	}
}

void escaped_write_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

void escaped_write_json(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)	/* not in an escaped name; still valid JSON */
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

size_t name_escape(char *buf, size_t n, const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t used = 0, total = 0, in, len;
	bool cut = false;
	char u[16];

	while (*p) {
		len = plain_run(p, ESC_TEXT);
		if (len) {
			if (!cut && used + len < n) {
				memcpy(buf + used, p, len);
				used += len;
			} else if (!cut) {
				/* plain bytes are units of one: keep those that fit */
				size_t fit = n > used + 1 ? n - used - 1 : 0;

				if (fit)
					memcpy(buf + used, p, fit);
				used += fit;
				cut = true;
			}
			p += len;
			total += len;
			continue;
		}
		len = next_unit(p, &in, u);
		p += in;
		if (!cut && used + len < n) {
			memcpy(buf + used, u, len);
			used += len;
		} else {
			cut = true;
		}
		total += len;
	}
	if (n)
		buf[used] = '\0';
	return total;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int name_unescape(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s; s++) {
		char c = *s;

		if (c == '\\') {
			if (s[1] == '\\') {
				s++;
			} else if (s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0 &&
				   (hexval(s[2]) || hexval(s[3]))) {
				c = (char)(hexval(s[2]) * 16 + hexval(s[3]));
				s += 3;
			} else {
				return -1;
			}
		}
		if (o + 1 >= n)
			return -1;
		out[o++] = c;
	}
	if (!n)
		return -1;
	out[o] = '\0';
	return 0;
}
