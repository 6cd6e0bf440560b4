/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one escaping rule for names (kernel bytes, maybe not UTF-8), schedhist(8) OUTPUT "Names":
 * valid UTF-8 passes, "\\" for a backslash, "\xNN" for invalid bytes and controls. Reversible,
 * so two names never print the same; each format then writes the result in its own syntax.
 */
#ifndef SH_ESCAPE_H
#define SH_ESCAPE_H

#include <stdio.h>
#include "lib/outbuf.h"

/* The syntax the escaped name is written in. */
enum esc_syntax {
	ESC_TEXT,	/* as is: the text reports */
	ESC_JSON,	/* inside a JSON string: \" and \\ */
	ESC_LABEL,	/* inside a Prometheus label value: \" and \\ */
	ESC_XML,	/* XML text or attribute: &lt; &gt; &amp; &quot; */
};

/* Write @name, escaped by the rule above, in @syntax (quotes not included). */
void name_write(FILE *f, const char *name, enum esc_syntax syntax);

/* The same, appended to @b (the renderers' buffer). */
void name_put(struct outbuf *b, const char *name, enum esc_syntax syntax);

/* @name as a JSON string literal, quotes included, appended to @b. */
void json_string(struct outbuf *b, const char *name);

/* @s, already escaped (or valid UTF-8 without controls), as XML text: only < > & " change. */
void escaped_write_xml(FILE *f, const char *s);

/* @s, already escaped (or built of such names), as a JSON string literal, quotes included. */
void escaped_write_json(FILE *f, const char *s);

/*
 * @name escaped (ESC_TEXT) into @buf of @n, cut before what would not fit: always valid.
 * Returns the whole escaped length (>= @n: it was cut).
 */
size_t name_escape(char *buf, size_t n, const char *name);

/* Decode escaped @s into @out of @n (strlen(@s) + 1 suffices). 0, or -1 if not escaped. */
int name_unescape(const char *s, char *out, size_t n);

#endif /* SH_ESCAPE_H */
