// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * user/profile/elf_syms.c and demangle.c against ELF files built here at
 * test time ($CC, else cc; binutils' strip and objcopy, xz): PIE and not,
 * a local function's source file, stripped with a .gnu_debugdata
 * (minidebuginfo) and without; every truncation and single-byte
 * corruption of the headers reads as no symbols or some, never a crash
 * (run under ASan by make asan); files made to cost memory
 * (tests/helpers/elfgen.h) stay within the bounds; real mangled names.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "check.h"
#include "profile/demangle.h"
#include "profile/elf_syms.h"
#include "../helpers/elfgen.h"

static char dir[64];
static bool have_cc, have_xz;

static const char fixture_src[] =
	"__attribute__((noinline)) static int fx_local(int x) { return x * 5 + 2; }\n"
	"__attribute__((noinline)) int fx_a(int x) { return fx_local(x) * 3 + 1; }\n"
	"__attribute__((noinline)) int fx_b(int x) { return fx_a(x) ^ 7; }\n"
	"int main(int argc, char **argv) { (void)argv; return fx_b(argc) == -1; }\n";

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

/* The whole of file @name of the fixtures' directory, in a buffer of its own. */
static unsigned char *slurp(const char *name, size_t *len)
{
	char path[256];
	unsigned char *b;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc(n > 0 ? (size_t)n : 1);
	*len = b && n > 0 ? fread(b, 1, (size_t)n, f) : 0;
	fclose(f);
	return b;
}

static int read_file(struct elf_syms *s, const char *name)
{
	char path[256];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -2;
	r = elf_syms_read_fd(s, fd);
	close(fd);
	return r;
}

static const struct elf_sym *by_name(const struct elf_syms *s, const char *name)
{
	for (size_t i = 0; i < s->nsyms; i++)
		if (!strcmp(elf_sym_name(s, &s->syms[i]), name))
			return &s->syms[i];
	return NULL;
}

/* Symbols found again by address, through the segments' offsets too. */
static void check_named(const struct elf_syms *s, const char *name)
{
	const struct elf_sym *y = by_name(s, name), *z;
	__u64 off = 0, vaddr = 0;
	bool in_seg = false;

	CHECK(y);
	if (!y)
		return;
	z = elf_syms_lookup(s, y->addr + (y->size ? y->size - 1 : 0));
	CHECK(z && !strcmp(elf_sym_name(s, z), name));
	for (int i = 0; i < s->nseg; i++)
		if (y->addr >= s->seg[i].vaddr && y->addr < s->seg[i].vaddr + s->seg[i].filesz) {
			off = y->addr - s->seg[i].vaddr + s->seg[i].off;
			in_seg = true;
		}
	CHECK(in_seg && elf_syms_vaddr(s, off, &vaddr) && vaddr == y->addr);
}

static void test_built(void)
{
	CHECK(have_cc);
	CHECK(have_xz);
}

/* PIE and not: functions by name and by address, the build id, locals' source file */
static void test_pie_nopie(void)
{
	static const char *const files[] = { "pie", "nopie" };
	struct elf_syms s;

	for (size_t i = 0; i < 2; i++) {
		CHECK(read_file(&s, files[i]) == 0);
		CHECK(s.symtab && !s.minidebug && !s.capped);
		check_named(&s, "fx_a");
		check_named(&s, "fx_b");
		CHECK(!strcmp(s.build_id_hex, i ? "feedface00112233" : "0123456789abcdef"));
		CHECK_EQ_U64(s.build_id_len, i ? 8 : 8);
		/* a local function follows its file's STT_FILE; globals have none */
		CHECK(by_name(&s, "fx_local") && by_name(&s, "fx_local")->file &&
		      !strcmp(s.names + by_name(&s, "fx_local")->file, "fixture.c"));
		CHECK(by_name(&s, "fx_a") && !by_name(&s, "fx_a")->file);
		elf_syms_free(&s);
	}
}

/* stripped: .dynsym alone (no fx_a); with minidebuginfo: fx_a and fx_b again */
static void test_minidebuginfo(void)
{
	struct elf_syms s;

	CHECK(read_file(&s, "stripped") == 0);
	CHECK(!s.symtab && !by_name(&s, "fx_a"));
	CHECK(!strcmp(s.build_id_hex, "0123456789abcdef"));
	elf_syms_free(&s);
	CHECK(read_file(&s, "mini") == 0);
	CHECK(s.symtab && s.minidebug);
	check_named(&s, "fx_a");
	check_named(&s, "fx_b");
	elf_syms_free(&s);
	/* the xz data cut short: the .dynsym alone, no crash */
	CHECK(read_file(&s, "mini_cut") == 0);
	CHECK(!s.minidebug && !by_name(&s, "fx_a"));
	elf_syms_free(&s);
}

/* Every name kept is a NUL-terminated string inside the names. */
static bool names_sane(const struct elf_syms *s)
{
	for (size_t i = 0; i < s->nsyms; i++)
		if (s->syms[i].name >= s->names_len || s->syms[i].file >= s->names_len ||
		    !memchr(s->names + s->syms[i].name, '\0', s->names_len - s->syms[i].name))
			return false;
	return true;
}

/* every length of the file, and every byte of its headers changed: never a crash */
static void test_truncated_corrupt(void)
{
	static const char *const files[] = { "pie", "mini" };
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x01 };

	for (size_t fi = 0; fi < 2; fi++) {
		size_t len, bad = 0, cuts = 0;
		unsigned char *b = slurp(files[fi], &len), *copy;
		Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
		struct elf_syms s;

		CHECK(b && len > sizeof(*eh));
		if (!b || len <= sizeof(*eh))
			continue;
		/* cut anywhere (each of the first 4 KiB, then every 97th): */
		for (size_t n = 0; n < len; n += n < 4096 ? 1 : 97) {
			copy = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overruns */
			memcpy(copy, b, n);
			if (!elf_syms_read_mem(&s, copy, n)) {
				bad += !names_sane(&s);
				elf_syms_lookup(&s, 0x1000);
				elf_syms_free(&s);
			}
			free(copy);
			cuts++;
		}
		/* the ELF header, program headers and section headers, a byte at a time */
		for (size_t off = 0; off < len; off++) {
			bool hdr = off < eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize ||
				   (off >= eh->e_shoff &&
				    off < eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize);

			for (size_t v = 0; hdr && v < sizeof(vals); v++) {
				copy = malloc(len);
				memcpy(copy, b, len);
				copy[off] = vals[v];
				if (!elf_syms_read_mem(&s, copy, len)) {
					bad += !names_sane(&s);
					elf_syms_free(&s);
				}
				free(copy);
			}
		}
		CHECK(cuts > 4096);
		CHECK_EQ_U64(bad, 0);
		/* and a truncated file reads as no ELF or no symbols */
		CHECK(elf_syms_read_mem(&s, b, 40) == -1);
		free(b);
	}
}

/* 2 000 functions named by one 100 KB string: one copy, cut at the name bound */
static void test_bound_one_string(void)
{
	char path[128];
	struct elf_syms s;

	snprintf(path, sizeof(path), "%s/big1", dir);
	CHECK(!elfgen_write(path, 2000, 100000, false));
	CHECK(read_file(&s, "big1") == 0);
	CHECK_EQ_U64(s.nsyms, 2000);
	CHECK(!s.capped && names_sane(&s));
	CHECK_EQ_U64(strlen(elf_sym_name(&s, &s.syms[0])), ELF_SYMS_NAME_MAX);
	/* the table and one name: not 2 000 copies of 100 KB */
	CHECK(elf_syms_bytes(&s) <= 2000 * sizeof(struct elf_sym) + ELF_SYMS_NAME_MAX + 2);
	elf_syms_free(&s);
}

/* each name at its own offset of that string: the names' bound, then the count's */
static void test_bound_totals(void)
{
	char path[128];
	struct elf_syms s;

	snprintf(path, sizeof(path), "%s/big2", dir);
	CHECK(!elfgen_write(path, 20000, 100000, true));
	CHECK(read_file(&s, "big2") == 0);
	CHECK(s.capped && names_sane(&s));
	CHECK(s.names_len <= ELF_SYMS_NAMES_MAX);
	CHECK(s.nsyms < 20000 && s.nsyms > ELF_SYMS_NAMES_MAX / (ELF_SYMS_NAME_MAX + 1) - 1);
	CHECK(elf_syms_bytes(&s) <= ELF_SYMS_MAX_BYTES);
	elf_syms_free(&s);
	snprintf(path, sizeof(path), "%s/big3", dir);
	CHECK(!elfgen_write(path, ELF_SYMS_MAX_COUNT + 1000, 8, false));
	CHECK(read_file(&s, "big3") == 0);
	CHECK(s.capped);
	CHECK_EQ_U64(s.nsyms, ELF_SYMS_MAX_COUNT);
	CHECK(elf_syms_bytes(&s) <= ELF_SYMS_MAX_BYTES);
	elf_syms_free(&s);
}

/* real names: libstdc++'s, Rust std's (legacy and v0); C names untouched */
static void test_demangle(void)
{
	static const char *const cases[][2] = {
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4sizeEv",
		  "std::__cxx11::basic_string<char, std::char_traits<char>, "
		  "std::allocator<char> >::size() const" },
		{ "_ZN9__gnu_cxx13new_allocatorIcED2Ev",
		  "__gnu_cxx::new_allocator<char>::~new_allocator()" },
		{ "_ZN3std2rt10lang_start17h5c0ac9d6b2e5d0f3E", "std::rt::lang_start" },
		{ "_ZN4core3fmt9Formatter3pad17h0f1e4b9a8c2d3e4fE", "core::fmt::Formatter::pad" },
		{ "_RNvMs_NtCs4fqI2P2rA04_4core3fmtNtB4_9Formatter3pad",
		  "<core::fmt::Formatter>::pad" },
		{ "_RNvNtCs1234_3std2rt10lang_start", "std::rt::lang_start" },
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(sym_demangle(cases[i][0], buf, sizeof(buf)));
		if (strcmp(buf, cases[i][1]))
			fprintf(stderr, "  %s -> '%s', want '%s'\n", cases[i][0], buf, cases[i][1]);
		CHECK(!strcmp(buf, cases[i][1]));
	}
	strcpy(buf, "keep");
	CHECK(!sym_demangle("main", buf, sizeof(buf)) && !strcmp(buf, "keep"));
	CHECK(!sym_demangle("_Zgarbage", buf, sizeof(buf)) && !strcmp(buf, "keep"));
	CHECK(!sym_demangle("_R", buf, sizeof(buf)));
	/* cut to fit */
	CHECK(sym_demangle(cases[0][0], buf, 8) && !strcmp(buf, "std::ve"));
}

static bool setup(void)
{
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	char path[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/test_elf_syms.XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(path, sizeof(path), "%s/fixture.c", dir);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(fixture_src, f);
	fclose(f);
	/* cd: the STT_FILE holds the name as the compiler was given it */
	return !sh("cd %s && %s -O1 -fPIE -pie -Wl,--build-id=0x0123456789abcdef fixture.c -o pie "
		   "2>cc.err && %s -O1 -fno-PIE -no-pie -Wl,--build-id=0xfeedface00112233 "
		   "fixture.c -o nopie 2>>cc.err && strip --strip-all -o stripped pie", dir, cc, cc);
}

/* Minidebuginfo as distributions make it: the functions' .symtab, xz'ed, in .gnu_debugdata. */
static bool setup_mini(void)
{
	return !sh("cd %s && objcopy --only-keep-debug pie debug 2>>cc.err && "
		   "objcopy -S --keep-symbol=fx_a --keep-symbol=fx_b debug mini.dbg 2>>cc.err && "
		   "xz -c mini.dbg > mini.xz && objcopy --add-section .gnu_debugdata=mini.xz "
		   "stripped mini 2>>cc.err && head -c 200 mini.xz > cut.xz && "
		   "objcopy --add-section .gnu_debugdata=cut.xz stripped mini_cut 2>>cc.err", dir);
}

int main(void)
{
	have_cc = setup();
	have_xz = have_cc && setup_mini();
	if (!have_cc || !have_xz)
		sh("cat %s/cc.err >&2", dir);
	TEST(test_built);
	TEST(test_demangle);
	TEST(test_bound_one_string);
	TEST(test_bound_totals);
	if (have_cc) {
		TEST(test_pie_nopie);
		TEST(test_truncated_corrupt);
	}
	if (have_xz)
		TEST(test_minidebuginfo);
	if (!getenv("KEEP"))
		sh("rm -rf %s", dir);
	return test_summary();
}
