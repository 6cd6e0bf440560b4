/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one escaping rule for names (task names, cgroup paths, the
 * --heatmap-key), used by every renderer: text, JSON, Prometheus labels
 * and the SVG heatmap. Names are bytes from the kernel, not necessarily
 * UTF-8, and may hold terminal control sequences or newlines. The rule,
 * documented in schedhist(8) under OUTPUT, "Names":
 *  - a well-formed UTF-8 character passes as it is, except the controls
 *    below;
 *  - a backslash becomes "\\";
 *  - every other byte becomes "\xNN" (two lower-case hex digits): bytes
 *    that are not part of a well-formed UTF-8 sequence, the C0 controls
 *    (0x00-0x1f), DEL (0x7f), and each byte of the C1 controls
 *    (U+0080-U+009F), of U+2028/U+2029 (line and paragraph separators),
 *    of the bidirectional controls (U+200E, U+200F, U+202A-U+202E,
 *    U+2066-U+2069) and of the non-characters U+FFFE, U+FFFF (not allowed
 *    in XML).
 * The result is valid UTF-8 without a control character, and the rule is
 * reversible (name_unescape): two different names never print the same.
 * Each format then writes that string in its own syntax (JSON string,
 * label value, XML text), so a name decodes to the same string in all.
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

/*
 * @s, a name already escaped by name_escape() (or any valid UTF-8 text
 * without controls), written as XML text: only < > & " change.
 */
void escaped_write_xml(FILE *f, const char *s);

/*
 * @s, a name already escaped by name_escape() (or text built of such
 * names), written as a JSON string literal, quotes included.
 */
void escaped_write_json(FILE *f, const char *s);

/*
 * @name escaped (ESC_TEXT) into @buf of @n bytes, cut before an escape or
 * a character that would not fit: always a whole, valid result. Returns
 * the length of the whole escaped name (>= @n: it was cut).
 */
size_t name_escape(char *buf, size_t n, const char *name);

/*
 * The reverse: @s (an escaped name) decoded into @out of @n bytes
 * (strlen(@s) + 1 always suffices). 0, or -1 if @s is not an escaped name
 * (a backslash not followed by "\" or "xNN").
 */
int name_unescape(const char *s, char *out, size_t n);

#endif /* SH_ESCAPE_H */
