// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The poller's fast number formatting (fmt.h). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fmt.h"
#include "lib/names.h"

int fmt_u64_big(char *buf, __u64 v)
{
	int n;

	if (v < 10000000000000000ULL) {
		n = put_upto8(buf, (__u32)(v / 100000000));
		put8(buf + n, digits8((__u32)(v % 100000000)));
		n += 8;
	} else {
		__u64 hi = v / 100000000;

		n = put_upto8(buf, (__u32)(hi / 100000000));
		put8(buf + n, digits8((__u32)(hi % 100000000)));
		put8(buf + n + 8, digits8((__u32)(v % 100000000)));
		n += 16;
	}
	buf[n] = '\0';
	return n;
}

int fmt_u64_right_big(char *buf, __u64 v, int width)
{
	/* 9 digits and more (v >= 10^8): the length from the digits' own count */
	int len = v >= 10000000000000000ULL ? 17 + (v >= 100000000000000000ULL) +
						(v >= 1000000000000000000ULL) +
						(v >= 10000000000000000000ULL)
					    : 16 - (__builtin_ctzll(digits8((__u32)(v / 100000000))) >> 3);
	int pad = width > len ? width - len : 0;

	memset(buf, ' ', 16);
	fmt_u64_big(buf + pad, v);
	return pad + len;
}

/*
 * The exact tie q + 1/2 of ns / u: printf rounds the double d = ns / u, a little off the tie or on
 * it (to even). ns - d * u is exact as one fma(): its sign says which. 1 to round up; -1 unknown.
 */
static int tie_rounds_up(__u64 ns, __u64 u, __u64 q)
{
	double d, rem;

	if (ns > (1ULL << 53))
		return -1;
	d = (double)ns / (double)u;
	rem = fma(-d, (double)u, (double)ns);
	if (rem != 0)
		return rem < 0;	/* d above the true value: above the tie */
	return q & 1;		/* exactly on it: to even */
}

/*
 * ns / u in units of 10^-@dec into *@q, rounded as printf rounds the double, in integers; false
 * when the double cannot tell (a tie beyond 2^53) or the digits pass 2^64.
 */
static bool scaled_round(__u64 ns, __u64 u, int dec, __u64 *q_out)
{
	static const __u64 p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				     100000000 };
	__u64 q, r;
	int up;

	if (ns <= UINT64_MAX / p10[dec]) {
		__u64 x = ns * p10[dec];

		/* the units' divisors as constants: a multiply, not a 64-bit division, per field */
		switch (u) {
		case 1000:
			q = x / 1000;
			r = x % 1000;
			break;
		case 1000000:
			q = x / 1000000;
			r = x % 1000000;
			break;
		case 1000000000:
			q = x / 1000000000;
			r = x % 1000000000;
			break;
		default:
			q = x / u;
			r = x % u;
		}
	} else {
		unsigned __int128 x = (unsigned __int128)ns * p10[dec];

		if (x / u > UINT64_MAX)
			return false;
		q = (__u64)(x / u);
		r = (__u64)(x % u);
	}
	if (2 * (unsigned __int128)r == u) {
		up = tie_rounds_up(ns, u, q);
		if (up < 0)
			return false;
		q += (__u64)up;
	} else {
		q += 2 * (unsigned __int128)r > u;
	}
	*q_out = q;
	return true;
}

int fmt_fixed(char *buf, __u64 ns, __u64 u, int dec)
{
	char digits[48];
	int len, i, o = 0;
	__u64 q;

	if (!scaled_round(ns, u, dec, &q))
		return snprintf(buf, 32, "%.*f", dec, (double)ns / (double)u);
	if (!dec)	/* whole units, most waits: the digits are the string */
		return fmt_u64(buf, q);
	len = fmt_u64(digits, q);
	if (len + dec + 3 > 32)
		return snprintf(buf, 32, "%.*f", dec, (double)ns / (double)u);
	if (len <= dec) {	/* 0.0042: leading zeros */
		buf[o++] = '0';
		buf[o++] = '.';
		for (i = len; i < dec; i++)
			buf[o++] = '0';
		memcpy(buf + o, digits, (size_t)len);
		o += len;
	} else {
		memcpy(buf, digits, (size_t)(len - dec));
		o = len - dec;
		buf[o++] = '.';
		memcpy(buf + o, digits + len - dec, (size_t)dec);
		o += dec;
	}
	buf[o] = '\0';
	return o;
}

/* The decimals a wait of @ns shows in @unit: none from 100 units (and in ns), else 3 digits. */
static int wait_decimals(__u64 ns, int unit)
{
	__u64 u = unit_ns(unit), s;
	int dec = 2;

	if (unit == SH_UNIT_NS || ns >= 100 * u)
		return 0;
	if (ns >= 10 * u)
		return 1;
	/* below 1 too: 3 significant digits, or small buckets all read "0.00" */
	for (s = ns; s > 0 && s < u && dec < 8; s *= 10)
		dec++;
	return dec;
}

static int wait_str(char *buf, __u64 ns, int unit)
{
	return fmt_fixed(buf, ns, unit_ns(unit), wait_decimals(ns, unit));
}

void fmt_wait(char *buf, size_t n, __u64 ns, int unit)
{
	char w[32];
	int len = wait_str(w, ns, unit);

	if (!n)
		return;
	if ((size_t)len >= n)
		len = (int)n - 1;
	memcpy(buf, w, (size_t)len);
	buf[len] = '\0';
}

/*
 * Whole units (most waits) are written in place; the rest via wait_str() with fixed-size
 * copies the compiler inlines (library memset/memcpy per field cost a tenth of a row).
 */
char *fmt_wait_right_any(char *d, __u64 ns, int unit, int width)
{
	char w[32];
	int len, pad;
	__u64 q;

	if (!wait_decimals(ns, unit) && scaled_round(ns, unit_ns(unit), 0, &q))
		return d + fmt_u64_right(d, q, width);
	len = wait_str(w, ns, unit);
	pad = width > len ? width - len : 0;
	memset(d, ' ', 16);
	memcpy(d + pad, w, 32);
	return d + pad + len;
}
