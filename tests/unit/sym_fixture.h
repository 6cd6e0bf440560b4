/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * test_symbolize.c's fixtures: a C program with two functions built at
 * test time, run once to write its own /proc/self/maps and the functions'
 * addresses, and a /proc of the test's making (PID/maps, PID/stat,
 * PID/root -> /) in which the test decides which process has which tgid,
 * when it started and when it is gone.
 */
#ifndef SH_SYM_FIXTURE_H
#define SH_SYM_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"

static char dir[64];		/* the fixtures and the fake /proc */
static char proc[128];
static bool have_cc;

/* The fixture: NAME_a and NAME_b, and it prints where they are. */
static const char fixture_src[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) int NAME_a(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int NAME_b(int x) { return NAME_a(x) ^ 7; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	FILE *in = fopen(\"/proc/self/maps\", \"r\"), *out = fopen(argv[1], \"w\");\n"
	"	char line[4096];\n"
	"	if (!in || !out) return 1;\n"
	"	while (fgets(line, sizeof(line), in)) fputs(line, out);\n"
	"	fprintf(out, \"@ %p %p\\n\", (void *)NAME_a, (void *)NAME_b);\n"
	"	return fclose(out) || NAME_b(argc) == -1;\n"
	"}\n";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Build fixture @name (functions NAME_a, NAME_b renamed to @fn_a/@fn_b) with @flags. */
static bool build(const char *name, const char *fn, const char *flags)
{
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";

	return !sh("%s -O1 -DNAME_a=%s_a -DNAME_b=%s_b %s -x c %s/fixture.c -o %s/%s 2>%s/cc.err",
		   cc, fn, fn, flags, dir, dir, name, dir);
}

struct run {
	char maps[16384];	/* the fixture's /proc/self/maps */
	unsigned long long a, b; /* its functions' addresses */
};

/* Run fixture @name: its maps and addresses into @r. */
static bool run(const char *name, struct run *r)
{
	char path[256], *at;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s.maps", dir, name);
	if (sh("%s/%s %s", dir, name, path))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(r->maps, 1, sizeof(r->maps) - 1, f);
	fclose(f);
	r->maps[n] = '\0';
	at = strstr(r->maps, "@ ");
	if (!at || sscanf(at, "@ %llx %llx", &r->a, &r->b) != 2)
		return false;
	*at = '\0';
	return true;
}

/* Make process @tgid of the fake /proc: started at @start, mapping as @r did. */
static void fake_proc(unsigned int tgid, unsigned long long start, const struct run *r)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", proc, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/root", proc, tgid);
	if (symlink("/", path) && errno != EEXIST)
		CHECK(!"symlink");
	snprintf(path, sizeof(path), "%s/%u/maps", proc, tgid);
	f = fopen(path, "w");
	CHECK(f);
	if (f) {
		fputs(r->maps, f);
		fclose(f);
	}
	/* a comm with a space and a ')' of its own: fields count from the last ')' */
	snprintf(path, sizeof(path), "%s/%u/stat", proc, tgid);
	f = fopen(path, "w");
	CHECK(f);
	if (f) {
		fprintf(f, "%u (fix) ture) S 1 %u %u 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 %llu "
			"2453504 331 18446744073709551615\n", tgid, tgid, tgid, start);
		fclose(f);
	}
}

/* Every @from in @s (of size @n) becomes @to. */
static void replace_all(char *s, size_t n, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *p = s;

	while ((p = strstr(p, from))) {
		if (strlen(s) - fl + tl >= n)
			return;
		memmove(p + tl, p + fl, strlen(p + fl) + 1);
		memcpy(p, to, tl);
		p += tl;
	}
}

static void gone(unsigned int tgid)
{
	sh("rm -rf %s/%u", proc, tgid);
}

#endif /* SH_SYM_FIXTURE_H */
