// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: parse_duration() and parse_u64(), checked against an
 * exact model in 128-bit arithmetic.
 *   duration: digits [ "." digits ] [ ns | us | ms | s | m | h ], at least
 *   one digit, nothing else; value = (integer + fraction truncated to 9
 *   digits) x unit, truncated to whole ns; refused if it exceeds 2^64 - 1.
 *   u64: decimal digits only, within [min, max].
 * The first input byte picks the default unit and the range; the rest,
 * up to a NUL, is the string.
 */
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "cli/options.h"
#include "lib/parse.h"


typedef unsigned __int128 u128;

static const struct {
	const char *s;
	unsigned long long ns;
} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL },
	      { "m", 60000000000ULL }, { "h", 3600000000000ULL } };

/* The model: 0 and *out, or -1. */
static int model_duration(const char *s, unsigned long long dflt, unsigned long long *out)
{
	u128 ip = 0, frac = 0, div = 1, unit = dflt, v;
	int digits = 0, fd = 0;
	size_t i;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		ip = ip * 10 + (unsigned)(*s - '0');
		if (ip > ~0ULL)
			return -1;
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++)
			if (fd++ < 9) {
				frac = frac * 10 + (unsigned)(*s - '0');
				div *= 10;
			}
	if (!digits)
		return -1;
	if (*s) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(s, units[i].s))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		unit = units[i].ns;
	}
	v = ip * unit + frac * unit / div;
	if (v > ~0ULL)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

static int model_u64(const char *s, unsigned long long min, unsigned long long max,
		     unsigned long long *out)
{
	u128 v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > ~0ULL)
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const unsigned long long dflts[] = { 1, 1000, 1000000, 1000000000ULL };
	static const unsigned long long maxes[] = { ~0ULL, 1000000000, 4194304, 255 };
	unsigned long long want = 0, dflt, max;
	__u64 got = 0;
	char *s;
	int r, m;

	if (!size)
		return 0;
	dflt = dflts[data[0] & 3];
	max = maxes[(data[0] >> 2) & 3];
	s = strndup((const char *)data + 1, size - 1);
	if (!s)
		return 0;

	r = parse_duration(s, dflt, &got);
	m = model_duration(s, dflt, &want);
	if (r != m || (!r && got != want))
		abort();
	r = parse_u64(s, 1, max, &got);
	m = model_u64(s, 1, max, &want);
	if (r != m || (!r && got != want))
		abort();
	free(s);
	return 0;
}
