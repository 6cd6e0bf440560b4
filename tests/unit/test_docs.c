// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The docs quote the size of a histogram, struct sh_hist, in several
 * places (man page: --max-keys and OVERHEAD; docs/overhead.md: "Kernel
 * memory of the maps"; docs/guarantees.md: "Memory is bounded"):
 * every one of them must be SH_HIST_SIZE(SH_NBUCKETS(0)), schema 0's (the default).
 * Run from the source tree (as make unit does).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "check.h"
#include "schedhist.h"


static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Every match of @re in @text: its group 1 is a size of struct sh_hist. Returns matches. */
static int sizes(const char *path, const char *text, const char *re)
{
	regex_t rx;
	regmatch_t m[2];
	const char *p = text;
	int n = 0;

	CHECK(!regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE));
	while (!regexec(&rx, p, 2, m, 0)) {
		unsigned long v = strtoul(p + m[1].rm_so, NULL, 10);

		if (v != SH_HIST_SIZE(SH_NBUCKETS(0)))
			fprintf(stderr, "  %s: '%.*s' says %lu, SH_HIST_SIZE(SH_NBUCKETS(0)) is %zu\n", path,
				(int)(m[0].rm_eo - m[0].rm_so), p + m[0].rm_so, v,
				SH_HIST_SIZE(SH_NBUCKETS(0)));
		CHECK(v == SH_HIST_SIZE(SH_NBUCKETS(0)));
		n++;
		p += m[0].rm_eo;
	}
	regfree(&rx);
	return n;
}

static void test_hist_size(void)
{
	char *man = slurp("man/schedhist.8"), *overhead = slurp("docs/overhead.md"),
	     *guarantees = slurp("docs/guarantees.md");

	CHECK(man && overhead && guarantees);
	if (!man || !overhead || !guarantees)
		return;
	/* each phrase that names it, at least once */
	CHECK(sizes("man/schedhist.8", man, "about ([0-9]+) bytes per metric, allocated") == 1);
	CHECK(sizes("man/schedhist.8", man, "^([0-9]+) bytes per metric, plus about") == 1);
	CHECK(sizes("man/schedhist.8", man, "metrics \" x ([0-9]+)( \\+ 150)?\\)") == 2);
	CHECK(sizes("docs/guarantees.md", guarantees, "takes ([0-9]+) bytes per key and metric") == 1);
	CHECK(sizes("docs/guarantees.md", guarantees, "\\(8 \\+ ([0-9]+)\\) bytes per metric") == 1);
	CHECK(sizes("docs/overhead.md", overhead, "`struct sh_hist` \\(([0-9]+) B\\)") == 1);
	CHECK(sizes("docs/overhead.md", overhead, "M x ([0-9]+)( B \\+ about|\\) B)") == 2);
	free(man);
	free(overhead);
	free(guarantees);
}

int main(void)
{
	TEST(test_hist_size);
	return test_summary();
}
