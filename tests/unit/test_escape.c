// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the escaping rule for names (user/lib/escape.c): the cases the
 * man page lists, the round trip on random bytes (reversible, valid UTF-8,
 * no control character out), cutting into a short buffer, and the same
 * name decoding to the same string from every syntax (text, JSON, label,
 * XML).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/escape.h"


/* @name written in @syn; name_put() (the renderers' buffer) writes the same bytes. */
static char *written(const char *name, enum esc_syntax syn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct outbuf b = {};

	name_write(f, name, syn);
	fclose(f);
	name_put(&b, name, syn);
	CHECK(ob_cstr(&b) && !strcmp(b.p, buf));
	ob_free(&b);
	return buf;
}

static void expect(const char *name, const char *want)
{
	char *got = written(name, ESC_TEXT), buf[256];

	if (strcmp(got, want))
		fprintf(stderr, "  escaping %s: got '%s', want '%s'\n", want, got, want);
	CHECK(!strcmp(got, want));
	name_escape(buf, sizeof(buf), name);
	CHECK(!strcmp(buf, want));
	free(got);
}

static void test_cases(void)
{
	expect("bash", "bash");
	expect("caf\xc3\xa9", "caf\xc3\xa9");			/* UTF-8 passes */
	expect("\xe4\xb8\x80\xf0\x9f\x98\x80", "\xe4\xb8\x80\xf0\x9f\x98\x80");
	expect("a\\b", "a\\\\b");				/* the escape character */
	expect("caf\xe9", "caf\\xe9");				/* Latin-1, not UTF-8 */
	expect("\xe4\xb8\x80\xe4\xb8", "\xe4\xb8\x80\\xe4\\xb8");	/* a CJK comm cut at 15 bytes */
	expect("\x1b]0;owned\x07", "\\x1b]0;owned\\x07");	/* terminal title */
	expect("x\nkey = root", "x\\x0akey = root");		/* a forged line */
	expect("\t\r\x7f", "\\x09\\x0d\\x7f");
	expect("\xc2\x9b" "31m", "\\xc2\\x9b31m");		/* C1 CSI */
	expect("\xc2\xa0", "\xc2\xa0");				/* U+00A0 is no control */
	expect("\xe2\x80\xae" "gpj", "\\xe2\\x80\\xaegpj");	/* bidi override */
	expect("\xe2\x80\xa8", "\\xe2\\x80\\xa8");		/* line separator */
	expect("\xef\xbf\xbe\xef\xbf\xbf", "\\xef\\xbf\\xbe\\xef\\xbf\\xbf");	/* not XML */
	expect("\xef\xbf\xbd", "\xef\xbf\xbd");			/* U+FFFD itself passes */
	expect("\xc0\xaf", "\\xc0\\xaf");			/* overlong '/' */
	expect("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* a surrogate */
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");	/* beyond U+10FFFF */
	expect("\xe4" "a", "\\xe4a");				/* lead byte, no continuation */
	expect("", "");
}

/* An independent check that @s is valid UTF-8 without C0/DEL/C1 controls. */
static bool clean_utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 :
			(*s & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t c = n == 1 ? *s : n == 2 ? *s & 0x1f : n == 3 ? *s & 0x0f : *s & 0x07;
		int i;

		if (!n)
			return false;
		for (i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			c = c << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
		    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			return false;
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f))
			return false;
		s += n;
	}
	return true;
}

/* Random byte strings: valid UTF-8 out, and reversible (so two names never collide). */
static void test_round_trip(void)
{
	unsigned int seed = 12;	/* fixed: the same strings every run */
	char in[32], out[32 * 16 + 1], back[sizeof(out)];
	int i, j, n, bad = 0;

	for (i = 0; i < 200000; i++) {
		n = rand_r(&seed) % 16;
		for (j = 0; j < n; j++) {
			int r = rand_r(&seed);

			/* mostly bytes that make UTF-8 sequences, valid or not */
			in[j] = (char)(r & 1 ? 0x80 + (r >> 1) % 0x80 : (r >> 1) % 0x100);
			if (!in[j])
				in[j] = 'a';
		}
		in[n] = '\0';
		if (name_escape(out, sizeof(out), in) >= sizeof(out) ||
		    !clean_utf8((const unsigned char *)out) ||
		    name_unescape(out, back, sizeof(back)) || strcmp(back, in)) {
			if (bad++ < 3)
				fprintf(stderr, "  round trip failed on a %d-byte name\n", n);
		}
	}
	CHECK(bad == 0);
}

static void test_unescape_rejects(void)
{
	char out[64];

	CHECK(name_unescape("a\\", out, sizeof(out)) == -1);
	CHECK(name_unescape("a\\n", out, sizeof(out)) == -1);
	CHECK(name_unescape("\\xg0", out, sizeof(out)) == -1);
	CHECK(name_unescape("\\x00", out, sizeof(out)) == -1);	/* not a C string byte */
	CHECK(name_unescape("abc", out, 3) == -1);		/* does not fit */
	CHECK(!name_unescape("\\x41\\\\", out, sizeof(out)) && !strcmp(out, "A\\"));
}

/* Cut into a short buffer: never inside an escape or a character. */
static void test_cut(void)
{
	char b[8];

	CHECK(name_escape(b, sizeof(b), "\xff\xff") == 8 && !strcmp(b, "\\xff"));
	CHECK(name_escape(b, sizeof(b), "ab\xe4\xb8\x80\xe4\xb8\x80") == 8 &&
	      !strcmp(b, "ab\xe4\xb8\x80"));
	CHECK(name_escape(b, sizeof(b), "1234567") == 7 && !strcmp(b, "1234567"));
	CHECK(name_escape(b, 1, "x") == 1 && !b[0]);
}

/* Undo one syntax's quoting: JSON and labels use \" \\, XML entities. */
static char *unquote(const char *s, enum esc_syntax syn)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	while (*s) {
		if ((syn == ESC_JSON || syn == ESC_LABEL) && *s == '\\') {
			CHECK(s[1] == '\\' || s[1] == '"');
			*o++ = s[1];
			s += 2;
		} else if (syn == ESC_XML && *s == '&') {
			static const char *const ent[][2] = {
				{ "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" },
			};
			size_t k;

			for (k = 0; k < 4 && strncmp(s, ent[k][0], strlen(ent[k][0])); k++)
				;
			CHECK(k < 4);
			if (k == 4)
				break;
			*o++ = ent[k][1][0];
			s += strlen(ent[k][0]);
		} else {
			CHECK(*s != '"' && (syn != ESC_XML || (*s != '<' && *s != '>')));
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* The same name reads the same in every output. */
static void test_same_everywhere(void)
{
	static const char *const names[] = {
		"a\"b<c>&d\\e", "caf\xc3\xa9", "caf\xe9", "x\ny", "\x1b[2J", "\xe4\xb8\x80\xe4",
	};
	static const enum esc_syntax syns[] = { ESC_JSON, ESC_LABEL, ESC_XML };
	size_t i, k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *text = written(names[i], ESC_TEXT);

		for (k = 0; k < 3; k++) {
			char *w = written(names[i], syns[k]), *u = unquote(w, syns[k]);

			if (strcmp(u, text))
				fprintf(stderr, "  name %zu, syntax %d: '%s' vs text '%s'\n", i,
					(int)syns[k], u, text);
			CHECK(!strcmp(u, text));
			free(w);
			free(u);
		}
		free(text);
	}
}

/*
 * escaped_write_json(): an escaped name, as the live page's table and the
 * profile's JSON write it, is the JSON string json_string() writes of the
 * raw name (the same rule, the same syntax).
 */
static void test_escaped_json(void)
{
	static const char *const names[] = {
		"plain", "a\"b\\c", "caf\xe9", "x\ny", "\x1b[2J", "\xe2\x80\xa8",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char esc[256], *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct outbuf b = {};

		name_escape(esc, sizeof(esc), names[i]);
		escaped_write_json(f, esc);
		fclose(f);
		json_string(&b, names[i]);
		CHECK(ob_cstr(&b) && !strcmp(b.p, buf));
		ob_free(&b);
		free(buf);
	}
}

int main(void)
{
	TEST(test_cases);
	TEST(test_round_trip);
	TEST(test_unescape_rejects);
	TEST(test_cut);
	TEST(test_same_everywhere);
	TEST(test_escaped_json);
	return test_summary();
}
