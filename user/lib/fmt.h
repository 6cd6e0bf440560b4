/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The renderers' number formatting, printf's bytes without its cost; test_fmt.c checks each. */
#ifndef SH_FMT_H
#define SH_FMT_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#include "lib/names.h"

/* The 8 digits of @x (< 10^8), a byte each, first lowest, by fixed-point reciprocals. */
static inline __u64 digits8(__u32 x)
{
	__u64 halves = x / 10000 | (__u64)(x % 10000) << 32;
	__u64 hundreds = (halves * 10486 >> 20) & (0x7FULL << 32 | 0x7F);
	__u64 pairs = (halves - 100 * hundreds) << 16 | hundreds;
	__u64 tens = (pairs * 103 >> 10) & (0xFULL << 48 | 0xFULL << 32 | 0xFULL << 16 | 0xF);

	return tens | (pairs - 10 * tens) << 8;
}

static inline void put8(char *buf, __u64 d)
{
	d |= 0x3030303030303030ULL;
	memcpy(buf, &d, 8);
}

/* The leading zeros of @d, digits8(@x): zero bytes at the low end; 0 is one digit. */
static inline int digits8_zeros(__u32 x, __u64 d)
{
	return x ? __builtin_ctzll(d) >> 3 : 7;
}

/* @x (< 10^8) without leading zeros at @buf, which has room for 8 bytes; returns the length. */
static inline int put_upto8(char *buf, __u32 x)
{
	__u64 d = digits8(x);
	int zeros = digits8_zeros(x, d);

	put8(buf, d >> (8 * zeros));
	return 8 - zeros;
}

int fmt_u64_big(char *buf, __u64 v);

#define FMT_U64_ROOM 21

/* @v in decimal into @buf (FMT_U64_ROOM), terminated, as printf("%llu"); the length. */
static inline int fmt_u64(char *buf, __u64 v)
{
	int n;

	if (v >= 100000000)
		return fmt_u64_big(buf, v);
	n = put_upto8(buf, (__u32)v);
	buf[n] = '\0';
	return n;
}

#define FMT_RIGHT_ROOM 48

int fmt_u64_right_big(char *buf, __u64 v, int width);

/* @v right-aligned in @width (<= 16) at @buf (FMT_RIGHT_ROOM), unterminated; the bytes written. */
static inline int fmt_u64_right(char *buf, __u64 v, int width)
{
	__u64 d;
	int zeros, len, pad;

	if (v >= 100000000)
		return fmt_u64_right_big(buf, v, width);
	d = digits8((__u32)v);
	zeros = digits8_zeros((__u32)v, d);
	len = 8 - zeros;
	pad = width > len ? width - len : 0;
	memset(buf, ' ', 16);
	put8(buf + pad, d >> (8 * zeros));
	return pad + len;
}

/*
 * @ns / @u with @dec decimals (at most 8) into @buf (32 bytes) as printf("%.*f") writes it, in
 * integers; identical while ns * 10^dec < 2^52, beyond it the exact quotient rounded. The length.
 */
int fmt_fixed(char *buf, __u64 ns, __u64 u, int dec);

/* A wait of @ns in @unit, 3 significant digits ("16.8", "0.0640"); none from 100 up and in ns. */
void fmt_wait(char *buf, size_t n, __u64 ns, int unit);

/* What fmt_wait_right() may write: 16 columns of padding, a 31-byte wait, slack for copies. */
#define FMT_WAIT_ROOM 64

char *fmt_wait_right_any(char *d, __u64 ns, int unit, int width);

/* fmt_wait() right-aligned in @width (<= 16) at @d (FMT_WAIT_ROOM), unterminated; the end. */
static inline char *fmt_wait_right(char *d, __u64 ns, int unit, int width)
{
	__u64 u, q, r;

	_Static_assert(SH_UNIT_NR == 3, "the units are ns, us and ms");
	if (unit == SH_UNIT_NS)
		return d + fmt_u64_right(d, ns, width);
	u = unit == SH_UNIT_US ? 1000 : 1000000;
	if (ns < 100 * u)
		return fmt_wait_right_any(d, ns, unit, width);
	q = unit == SH_UNIT_US ? ns / 1000 : ns / 1000000;
	r = ns - q * u;
	if (2 * r == u)
		return fmt_wait_right_any(d, ns, unit, width);
	return d + fmt_u64_right(d, q + (2 * r > u), width);
}

#endif /* SH_FMT_H */
