// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Numbers, durations and metric lists, parsed strictly. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"
#include "lib/names.h"
#include "lib/util.h"

int parse_u64(const char *s, __u64 min, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would skip any leading white space and take a sign */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	__u64 ns;
} dur_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC }, { "h", 3600 * NSEC_PER_SEC },
};

int parse_duration(const char *s, __u64 dflt_unit_ns, __u64 *out_ns)
{
	unsigned long long ip = 0, frac = 0, frac_div = 1, unit = dflt_unit_ns, fns;
	const char *p = s;
	size_t i;
	int digits = 0;

	if (!s)
		return -1;
	/* digits [. digits] [unit]; no sign, no exponent, no spaces */
	while (*p >= '0' && *p <= '9') {
		if (ip > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;	/* exact: "18446744073709551615ns" still fits */
		ip = ip * 10 + (*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (frac_div < 1000000000ULL) {
				frac = frac * 10 + (*p - '0');
				frac_div *= 10;
			}
			p++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (*p) {
		for (i = 0; i < ARRAY_SIZE(dur_units); i++)
			if (!strcmp(p, dur_units[i].suffix))
				break;
		if (i == ARRAY_SIZE(dur_units))
			return -1;
		unit = dur_units[i].ns;
	}
	if (ip && unit > ULLONG_MAX / ip)
		return -1;
	/* frac * unit / frac_div, split so that nothing overflows (frac < frac_div) */
	fns = frac * (unit / frac_div) + frac * (unit % frac_div) / frac_div;
	if (fns > ULLONG_MAX - ip * unit)
		return -1;
	*out_ns = ip * unit + fns;
	return 0;
}

int parse_metrics(const char *s, __u32 *out, const char **bad)
{
	static char tok[32];
	const char *p = s, *end;
	__u32 m = 0;
	size_t len;
	int r;

	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		snprintf(tok, sizeof(tok), "%.*s", (int)(len < sizeof(tok) ? len : sizeof(tok) - 1), p);
		r = len < sizeof(tok) ? metric_lookup(tok) : -1;
		if (r < 0 || (m & (1U << r))) {
			*bad = tok;	/* unknown (or empty), or named twice */
			return -1;
		}
		m |= 1U << r;
		if (end)
			p = end + 1;
	} while (end);
	*out = m;
	return 0;
}
