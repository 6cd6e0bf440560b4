// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/lib/fmt.c: every formatter writes what snprintf writes,
 * over every digit count and width, ties of the rounding (to even on the
 * exact tie, as printf rounds the double), zero, the tiniest and the
 * largest values, and a million pseudo-random ones.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/fmt.h"
#include "output/bucket_labels.h"
#include "model/hist.h"
#include "lib/names.h"
#include "check.h"

/* A 64-bit xorshift: values with every digit in every place, the same every run. */
static __u64 next(__u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* 1 when fmt_u64() writes other than printf("%llu") does for @x, or says another length. */
static int fmt_differs(__u64 x)
{
	char a[24], b[24];
	int n = fmt_u64(a, x);

	snprintf(b, sizeof(b), "%llu", (unsigned long long)x);
	return strcmp(a, b) != 0 || n != (int)strlen(b);
}

/* fmt_u64() prints what printf("%llu") does, at every digit count */
static void test_fmt_u64(void)
{
	char a[24];
	__u64 v = 1;
	int i, bad = 0;

	for (i = 0; i < 200; i++) {
		bad += fmt_differs(v - 1) + fmt_differs(v) + fmt_differs(v + 7);
		v = v * 3 + (__u64)i;
	}
	/* every power of ten and its neighbours: each digit count's edges */
	for (i = 0, v = 1; i < 20; i++, v *= 10)
		bad += fmt_differs(v - 1) + fmt_differs(v) + fmt_differs(v + 1);
	/* and values with every digit in every place (a 64-bit LCG) */
	for (i = 0, v = 12345; i < 200000; i++) {
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		bad += fmt_differs(v >> (i % 64));
	}
	fmt_u64(a, UINT64_MAX);
	CHECK(!strcmp(a, "18446744073709551615"));
	CHECK_EQ_U64(bad, 0);
}

/* fmt_u64_right() writes what printf("%*llu") does, in place, at every width and digit count */
static void test_fmt_u64_right(void)
{
	char a[FMT_RIGHT_ROOM + 1], b[64];
	__u64 v = 1;
	int i, w, bad = 0;

	for (i = 0; i < 200; i++) {
		__u64 vals[3] = { v - 1, v, v + 7 };
		int j;

		for (j = 0; j < 3; j++)
			for (w = 0; w <= 16; w++) {
				int n = fmt_u64_right(a, vals[j], w);

				a[n] = '\0';
				snprintf(b, sizeof(b), "%*llu", w, (unsigned long long)vals[j]);
				bad += strcmp(a, b) != 0;
			}
		v = v * 3 + (__u64)i;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(fmt_u64_right(a, UINT64_MAX, 10), 20);
}

/*
 * What fmt_fixed(@ns, @u, @dec) must write into @b: printf's digits of the
 * double while ns * 10^dec < 2^52 (the double's error is then below the
 * distance to any rounding edge); beyond, the exact quotient rounded to
 * nearest, or printf's when the digits pass 2^64. false: an exact tie
 * beyond 2^52, where either answer is right.
 */
static bool fixed_want(char *b, size_t n, __u64 ns, __u64 u, int dec)
{
	unsigned __int128 x = (unsigned __int128)ns, p = 1, q, r;
	int i;

	for (i = 0; i < dec; i++)
		p *= 10;
	x *= p;
	q = x / u;
	r = x % u;
	if (x < (1ULL << 52) || q > UINT64_MAX) {
		snprintf(b, n, "%.*f", dec, (double)ns / (double)u);
		return true;
	}
	if (2 * r == u)
		return false;
	q += 2 * r > u;
	if (!dec)
		snprintf(b, n, "%llu", (unsigned long long)q);
	else
		snprintf(b, n, "%llu.%0*llu", (unsigned long long)(q / p), dec,
			 (unsigned long long)(q % p));
	return true;
}

/* 1 when fmt_fixed() writes other than fixed_want(), or says another length. */
static int fixed_differs(__u64 ns, __u64 u, int dec)
{
	char a[48], b[64];
	int n = fmt_fixed(a, ns, u, dec);

	if (!fixed_want(b, sizeof(b), ns, u, dec))
		return 0;
	if (strcmp(a, b) || n != (int)strlen(b)) {
		fprintf(stderr, "  %llu / %llu, %d decimals: %s, want %s\n",
			(unsigned long long)ns, (unsigned long long)u, dec, a, b);
		return 1;
	}
	return 0;
}

/*
 * fmt_fixed() rounds as printf rounds the double (fixed_want()), at every
 * unit and count of decimals: zero, ties (x.5 in the last place: up, or to
 * even on the exact tie), one below and above them, the tiniest, and
 * pseudo-random values of every magnitude up to 2^64 ns
 */
static void test_fmt_fixed(void)
{
	static const __u64 units[] = { 1, 3, 7, 1000, 1000000, 1000000000 };
	static const __u64 p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				     100000000 };
	__u64 x = 88172645463325252ULL, ns, half;
	char a[48];
	int ui, dec, k, i, bad = 0;

	for (ui = 0; ui < 6; ui++) {
		__u64 u = units[ui];

		for (dec = 0; dec <= 8; dec++) {
			bad += fixed_differs(0, u, dec) + fixed_differs(1, u, dec);
			/* the ties q + 1/2 of the last decimal, where the unit allows one */
			for (k = 0; k < 2000; k++) {
				if ((u * (__u64)(2 * k + 1)) % (2 * p10[dec]))
					break;
				half = u * (__u64)(2 * k + 1) / (2 * p10[dec]);
				bad += fixed_differs(half, u, dec) + fixed_differs(half + 1, u, dec) +
				       fixed_differs(half - 1, u, dec);
			}
			for (i = 0; i < 20000; i++) {
				ns = next(&x);
				bad += fixed_differs(ns >> (ns & 63), u, dec);
			}
		}
	}
	/* 1.5 us, 2.5 us: printf's double is exact there, so to even */
	fmt_fixed(a, 1500, 1000, 0);
	CHECK(!strcmp(a, "2"));
	fmt_fixed(a, 3500, 1000, 0);
	CHECK(!strcmp(a, "4"));
	fmt_fixed(a, 2500, 1000, 0);
	CHECK(!strcmp(a, "2"));
	fmt_fixed(a, 125, 1000, 2);
	CHECK(!strcmp(a, "0.12"));
	/* huge: beyond 2^53 the digits are the exact quotient's */
	CHECK_EQ_U64(fmt_fixed(a, UINT64_MAX, 1, 0), 20);
	CHECK(!strcmp(a, "18446744073709551615"));
	fmt_fixed(a, UINT64_MAX, 1000000000, 3);
	CHECK(!strcmp(a, "18446744073.710"));
	CHECK_EQ_U64(bad, 0);
}

/* printf's formatting of the double, which fmt_wait() reproduces in integers */
static void ref_wait(char *buf, size_t n, __u64 ns, int unit)
{
	double v = (double)ns / (double)unit_ns(unit), x;
	int dec = 2;

	if (unit == SH_UNIT_NS || v >= 100.0) {
		snprintf(buf, n, "%.0f", v);
	} else if (v >= 10.0) {
		snprintf(buf, n, "%.1f", v);
	} else {
		for (x = v; x > 0 && x < 1.0 && dec < 8; x *= 10)
			dec++;
		snprintf(buf, n, "%.*f", dec, v);
	}
}

/*
 * fmt_wait() prints what printf would, for bucket edges and a million other
 * waits below 2^53 ns (104 days: beyond, the double is no longer exact and
 * the integers are the better answer)
 */
static void test_fmt_wait_exact(void)
{
	__u64 x = 88172645463325252ULL, ns;
	char a[48], b[48];
	int u, i, bad = 0;

	for (u = SH_UNIT_NS; u <= SH_UNIT_MS; u++) {
		for (i = 0; i < 1000000 + 64 * 3; i++) {
			if (i < 64)
				ns = 1ULL << i;
			else if (i < 128)
				ns = (1ULL << (i - 64)) - 1;
			else if (i < 192)
				ns = (__u64)(i - 128) * 500;	/* ties: 1.5 us, 2.5 ms ... */
			else {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				ns = x >> (x & 63);
			}
			ns &= (1ULL << 53) - 1;
			fmt_wait(a, sizeof(a), ns, u);
			ref_wait(b, sizeof(b), ns, u);
			if (strcmp(a, b) && bad++ < 5)
				fprintf(stderr, "  %llu ns, unit %d: %s, printf says %s\n",
					(unsigned long long)ns, u, a, b);
		}
	}
	CHECK_EQ_U64(bad, 0);
}

static void test_fmt_wait(void)
{
	char b[32];

	fmt_wait(b, sizeof(b), 1536, SH_UNIT_US);
	CHECK(!strcmp(b, "1.54"));
	fmt_wait(b, sizeof(b), 1024, SH_UNIT_US);
	CHECK(!strcmp(b, "1.02"));
	fmt_wait(b, sizeof(b), 16800, SH_UNIT_US);
	CHECK(!strcmp(b, "16.8"));
	fmt_wait(b, sizeof(b), 131072, SH_UNIT_US);
	CHECK(!strcmp(b, "131"));
	fmt_wait(b, sizeof(b), 0, SH_UNIT_US);
	CHECK(!strcmp(b, "0.00"));
	fmt_wait(b, sizeof(b), 549755813888ULL, SH_UNIT_US);
	CHECK(!strcmp(b, "549755814"));
	/* below 1: still 3 significant digits */
	fmt_wait(b, sizeof(b), 512, SH_UNIT_US);
	CHECK(!strcmp(b, "0.512"));
	fmt_wait(b, sizeof(b), 64, SH_UNIT_US);
	CHECK(!strcmp(b, "0.0640"));
	fmt_wait(b, sizeof(b), 2, SH_UNIT_US);
	CHECK(!strcmp(b, "0.00200"));
	fmt_wait(b, sizeof(b), 2048, SH_UNIT_MS);
	CHECK(!strcmp(b, "0.00205"));
	fmt_wait(b, sizeof(b), 1, SH_UNIT_MS);
	CHECK(!strcmp(b, "0.00000100"));
	fmt_wait(b, sizeof(b), 1536, SH_UNIT_NS);
	CHECK(!strcmp(b, "1536"));
	fmt_wait(b, sizeof(b), 0, SH_UNIT_NS);
	CHECK(!strcmp(b, "0"));
	fmt_wait(b, sizeof(b), 2500000, SH_UNIT_MS);
	CHECK(!strcmp(b, "2.50"));
	fmt_wait(b, sizeof(b), 16777216, SH_UNIT_MS);
	CHECK(!strcmp(b, "16.8"));
}

/* fmt_wait_right() writes what printf("%*s") of fmt_wait() does, at every width. */
static void test_fmt_wait_right(void)
{
	__u64 x = 2463534242ULL, ns;
	char a[FMT_WAIT_ROOM + 1], w[48], b[64];
	int u, i, width, bad = 0;

	for (u = SH_UNIT_NS; u <= SH_UNIT_MS; u++)
		for (i = 0; i < 20000; i++) {
			/* powers of two and one below, ties of the last place, pseudo-random */
			if (i < 64)
				ns = 1ULL << i;
			else if (i < 128)
				ns = (1ULL << (i - 64)) - 1;
			else if (i < 4128)
				ns = (__u64)(2 * (i - 128) + 1) * (unit_ns(u) / 2 ? unit_ns(u) / 2 : 1);
			else
				ns = next(&x), ns >>= ns & 63;
			width = i % 17;
			a[fmt_wait_right(a, ns, u, width) - a] = '\0';
			fmt_wait(w, sizeof(w), ns, u);
			snprintf(b, sizeof(b), "%*s", width, w);
			if (strcmp(a, b) && bad++ < 5)
				fprintf(stderr, "  %llu ns, unit %d, width %d: '%s', want '%s'\n",
					(unsigned long long)ns, u, width, a, b);
		}
	CHECK_EQ_U64(bad, 0);
}

/*
 * The renderers' fixed pieces: snprintf's of their formats, whole (not cut
 * at FMT_LABEL_MAX), with the right length, for every unit and bucket;
 * the rows' bounds meet (each row's high bound is the next one's low).
 */
static void test_labels(void)
{
	const struct fmt_label *json = fmt_json_buckets();
	char want[2 * FMT_LABEL_MAX], lo[32], hi[32];
	int u, i;

	for (u = 0; u < SH_UNIT_NR; u++) {
		const struct fmt_label *rows = fmt_row_labels(u), *head = fmt_hist_head(u);

		snprintf(want, sizeof(want), "%10s%-5s%13s : count      distribution\n", "",
			 unit_name(u), "");
		CHECK(!strcmp(head->s, want) && head->len == strlen(want));
		for (i = 0; i < sh_nb; i++) {
			if (i == 0)
				strcpy(lo, "0");
			else
				fmt_wait(lo, sizeof(lo), bucket_floor(i), u);
			if (i == sh_nb - 1)
				strcpy(hi, "longer");
			else
				fmt_wait(hi, sizeof(hi), bucket_edge(i), u);
			snprintf(want, sizeof(want), "%13s -> %-11s : ", lo, hi);
			if (strcmp(rows[i].s, want) || rows[i].len != strlen(want))
				fprintf(stderr, "  unit %d, bucket %d: '%s', want '%s'\n", u, i,
					rows[i].s, want);
			CHECK(!strcmp(rows[i].s, want) && rows[i].len == strlen(want));
			if (i > 0)
				CHECK_EQ_U64(bucket_floor(i), bucket_edge(i - 1));
		}
	}
	for (i = 0; i < sh_nb; i++) {
		if (i == sh_nb - 1)
			snprintf(want, sizeof(want), ",{\"lo_ns\":%llu,\"hi_ns\":null,\"count\":",
				 (unsigned long long)bucket_lo(i));
		else
			snprintf(want, sizeof(want), ",{\"lo_ns\":%llu,\"hi_ns\":%llu,\"count\":",
				 (unsigned long long)bucket_lo(i), (unsigned long long)bucket_hi(i));
		CHECK(!strcmp(json[i].s, want) && json[i].len == strlen(want));
	}
}

int main(void)
{
	TEST(test_fmt_u64);
	TEST(test_fmt_u64_right);
	TEST(test_fmt_fixed);
	TEST(test_fmt_wait);
	TEST(test_fmt_wait_exact);
	TEST(test_fmt_wait_right);
	TEST(test_labels);
	return test_summary();
}
