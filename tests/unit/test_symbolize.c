// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * user/profile/symbolize.c against ELF files built here ($CC, else cc; g++):
 * two functions, PIE and not, stripped, with and without a build id, C++,
 * run in a /proc of the test's making (sym_fixture.h): names, build ids,
 * the frame API, tgid reuse and execve() (with and without an exec probe),
 * the cache's bounds, a truncated and a corrupt mapped file.
 */
#include "check.h"
#include "profile/elf_cache.h"
#include "profile/symbolize.h"
#include "sym_fixture.h"

static void name_of(const struct sym_proc *p, unsigned long long addr, char *buf, size_t len,
		    const char **id)
{
	sym_user(p, addr, false, buf, len, id);
}

/* The build id given on the link line, in the order the note holds it. */
#define BUILD_ID "0123456789abcdef0011223344556677deadbeef"
/* nopie's: another build, so another id (one id is one file's contents) */
#define BUILD_ID_NOPIE "feedface00112233"

static struct run pie, nopie, stripped, noid, copy, gamma_run, cxx;
static bool have_cxx;

static void test_fixtures_built(void)
{
	CHECK(have_cc);
}

/* PIE and not: both functions named, the build id from the note */
static void test_lookup(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	const char *id;
	char name[256];

	fake_proc(100, 5000, &pie);
	fake_proc(101, 5001, &nopie);
	p = sym_process(c, 100, 5000, 1);
	CHECK(p);
	name_of(p, pie.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	CHECK(id && !strcmp(id, BUILD_ID));
	name_of(p, pie.b + 1, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	/* a return address: looked up at the call, one byte before */
	sym_user(p, pie.b + 1, true, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	p = sym_process(c, 101, 0, 1);
	CHECK(p);
	name_of(p, nopie.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	CHECK(id && !strcmp(id, BUILD_ID_NOPIE));
	CHECK_EQ_U64(sym_nprocs(c), 2);
	gone(100);
	gone(101);
	sym_free(c);
}

/* stripped: module+offset (the file offset of the address), with the build id */
static void test_stripped(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	unsigned long long start, end, off, want = 0;
	const struct sym_proc *p;
	char name[256], expect[128], path[256], *l;
	const char *id;

	fake_proc(102, 7, &stripped);
	p = sym_process(c, 102, 7, 1);
	CHECK(p);
	/* the offset from the maps line covering the address, computed here */
	snprintf(path, sizeof(path), "%s/stripped", dir);
	for (l = stripped.maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%llx-%llx %*s %llx", &start, &end, &off) == 3 &&
		    stripped.a >= start && stripped.a < end)
			want = stripped.a - start + off;
	CHECK(want);
	snprintf(expect, sizeof(expect), "stripped+0x%llx", want);
	name_of(p, stripped.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, expect));
	CHECK(id && !strcmp(id, BUILD_ID));
	/* outside every mapping: the address, no build id */
	name_of(p, 0x10, name, sizeof(name), &id);
	CHECK(!strcmp(name, "[unknown]+0x10"));
	CHECK(!id);
	/* no process: the address */
	name_of(NULL, stripped.a, name, sizeof(name), &id);
	CHECK(!strncmp(name, "[unknown]+0x", 12));
	/* the unstripped build (the same build id) seen: its names serve both */
	fake_proc(110, 8, &pie);
	CHECK(sym_process(c, 110, 8, 1));
	name_of(p, stripped.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	gone(102);
	gone(110);
	sym_free(c);
}

/* a file without a build id: named all the same, no id */
static void test_no_build_id(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	const char *id;
	char name[256];

	fake_proc(103, 9, &noid);
	p = sym_process(c, 103, 9, 1);
	CHECK(p);
	name_of(p, noid.b, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	CHECK(!id);
	gone(103);
	sym_free(c);
}

/*
 * two paths to one build share one ELF entry; a file rebuilt under a path
 * the cache has read (another build id) gets its own, and the process
 * that mapped the old file keeps the old names
 */
static void test_build_id_key(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	size_t files;
	const char *id;
	char name[256];

	fake_proc(104, 1, &pie);
	CHECK(sym_process(c, 104, 1, 1));
	files = sym_nfiles(c);
	fake_proc(105, 1, &copy);	/* "copy": the same bytes under another path */
	CHECK(sym_process(c, 105, 1, 1));
	CHECK_EQ_U64(sym_nfiles(c), files);
	/* "pie" rebuilt in place with other functions and another build id */
	CHECK(!sh("mv %s/gamma %s/pie", dir, dir));
	{
		struct run moved = gamma_run;
		char from[128], to[128];

		snprintf(from, sizeof(from), "%s/gamma", dir);
		snprintf(to, sizeof(to), "%s/pie", dir);
		replace_all(moved.maps, sizeof(moved.maps), from, to);
		fake_proc(106, 2, &moved);
		p = sym_process(c, 106, 2, 1);
		CHECK(p);
		CHECK_EQ_U64(sym_nfiles(c), files + 1);
		name_of(p, moved.a, name, sizeof(name), &id);
		CHECK(!strcmp(name, "gx_a"));
		CHECK(id && strcmp(id, BUILD_ID));
	}
	p = sym_process(c, 104, 1, 1);
	CHECK(p);
	name_of(p, pie.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	gone(104);
	gone(105);
	gone(106);
	sym_free(c);
}

/*
 * a tgid reused by a new process: its own maps, the old ones dropped; a
 * process that exited keeps the maps it had when first seen
 */
static void test_tgid_reuse(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	const char *id;
	char name[256];

	fake_proc(107, 300, &copy);
	p = sym_process(c, 107, 300, 1);
	CHECK(p);
	/* it exits: the maps stay */
	gone(107);
	p = sym_process(c, 107, 300, 1);
	CHECK(p);
	name_of(p, copy.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	CHECK(sym_process(c, 107, 0, 1) == p);
	/* a new process gets tgid 107: another start, other maps */
	fake_proc(107, 400, &noid);
	p = sym_process(c, 107, 400, 1);
	CHECK(p);
	CHECK_EQ_U64(sym_nreused(c), 1);
	CHECK_EQ_U64(sym_nprocs(c), 1);
	name_of(p, noid.b, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	CHECK(!id);
	/* the first process's maps stay, for its waits named later: its own names */
	p = sym_process(c, 107, 300, 1);
	CHECK(p);
	name_of(p, copy.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	/* a process never seen, its tgid taken by another since: nothing either */
	CHECK(!sym_process(c, 107, 350, 1));
	CHECK(sym_process(c, 107, 400, 1));
	gone(107);
	sym_free(c);
}

/* execve(): the same process, a new program: its maps replace the old */
static void test_exec(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	const char *id;
	char name[256];

	fake_proc(108, 500, &copy);
	p = sym_process(c, 108, 500, 7);
	CHECK(p);
	name_of(p, copy.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	fake_proc(108, 500, &noid);	/* it runs execve() */
	CHECK(sym_process(c, 108, 500, 7) == p);	/* a wait of the old program, known */
	p = sym_process(c, 108, 500, 8);
	CHECK(p);
	CHECK_EQ_U64(sym_nexecs(c), 1);
	CHECK_EQ_U64(sym_nreused(c), 0);
	name_of(p, noid.b, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	CHECK(!id);
	/* the old program keeps its maps, for its waits named later */
	p = sym_process(c, 108, 500, 7);
	CHECK(p);
	name_of(p, copy.a, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_a"));
	/* maps read before any wait (-p): the first wait's program is theirs */
	fake_proc(109, 600, &copy);
	p = sym_process(c, 109, 0, 0);
	CHECK(p && sym_process(c, 109, 600, 3) == p);
	CHECK_EQ_U64(sym_nexecs(c), 1);
	gone(108);
	gone(109);
	sym_free(c);
}

/* the frame API: every field, for a named frame, a module+offset and a cut (on "copy": "pie" was rebuilt) */
static void test_frame(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	unsigned long long start, end, off;
	const struct sym_proc *p;
	struct sym_frame f, g;
	char path[256], want[160], *l;
	bool found = false;

	fake_proc(111, 11, &copy);
	p = sym_process(c, 111, 11, 1);
	CHECK(p);
	sym_user_frame(p, copy.a, false, &f);
	CHECK(f.name && !strcmp(f.name, "fx_a"));
	CHECK(f.build_id && !strcmp(f.build_id, BUILD_ID));
	CHECK(f.in_exec_map);
	snprintf(path, sizeof(path), "%s/copy", dir);
	CHECK(f.path && !strcmp(f.path, path));
	CHECK(f.map_start <= copy.a && copy.a < f.map_limit);
	/* the function's start: one value for every address inside it */
	CHECK(f.sym_addr);
	sym_user_frame(p, copy.a + 1, false, &g);
	CHECK(g.sym_addr == f.sym_addr && !strcmp(g.name, "fx_a"));
	for (l = copy.maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%llx-%llx %*s %llx", &start, &end, &off) == 3 && copy.a >= start &&
		    copy.a < end)
			found = start == f.map_start && end == f.map_limit && off == f.map_pgoff;
	CHECK(found);
	/* a second frame's name does not overwrite the first's */
	sym_user_frame(p, copy.b, true, &g);
	CHECK(!strcmp(f.name, "fx_a"));
	/* outside every mapping: a cut, named by its address */
	sym_user_frame(p, 0x10, false, &g);
	CHECK(!g.in_exec_map && !g.path && !g.build_id && !g.map_start && !g.sym_addr);
	CHECK(g.name && !strcmp(g.name, "[unknown]+0x10"));
	CHECK(!strcmp(f.name, "fx_a"));
	/* the stripped build's mapping, in a cache that has not seen its names: module+offset */
	sym_free(c);
	c = sym_new(NULL, proc);
	fake_proc(112, 12, &stripped);
	p = sym_process(c, 112, 12, 1);
	CHECK(p);
	sym_user_frame(p, stripped.a, false, &f);
	snprintf(want, sizeof(want), "stripped+0x%llx",
		 (unsigned long long)(stripped.a - f.map_start + f.map_pgoff));
	CHECK(f.in_exec_map && !strcmp(f.name, want) && !f.sym_addr);
	/* no process at all: a cut too */
	sym_user_frame(NULL, 0x1234, false, &f);
	CHECK(!f.in_exec_map && !strcmp(f.name, "[unknown]+0x1234"));
	gone(111);
	gone(112);
	sym_free(c);
}

/* The fake kernel's execve() count of a process: each call may see the next value. */
static __s64 exec_seq[4];
static int exec_calls;

static __s64 fake_probe(void *arg, __u32 tgid)
{
	(void)arg;
	(void)tgid;
	return exec_seq[exec_calls < 3 ? exec_calls++ : 3];
}

/*
 * with an exec probe, maps are kept only for the program that ran before
 * and after the reading: a program already gone, or one replaced during
 * the reading, gets nothing rather than the next program's maps
 */
static void test_exec_probe(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	const char *id;
	char name[256];

	sym_set_exec_probe(c, fake_probe, NULL);
	fake_proc(114, 14, &noid);	/* the process runs program 9 now */
	exec_calls = 0;
	exec_seq[0] = exec_seq[1] = exec_seq[2] = exec_seq[3] = 9;
	CHECK(!sym_process(c, 114, 14, 8));	/* program 8: gone, never read */
	exec_calls = 0;
	p = sym_process(c, 114, 14, 9);
	CHECK(p);
	name_of(p, noid.b, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	/* program 10 runs execve() while its maps are read: not kept */
	exec_calls = 0;
	exec_seq[0] = 10;
	exec_seq[1] = exec_seq[2] = exec_seq[3] = 11;
	CHECK(!sym_process(c, 114, 14, 10));
	/* and program 9's maps are still there */
	CHECK(sym_process(c, 114, 14, 9) == p);
	/* not known to the probe (no execve() since it started): read and kept */
	exec_calls = 0;
	exec_seq[0] = exec_seq[1] = exec_seq[2] = exec_seq[3] = -1;
	fake_proc(115, 15, &copy);
	CHECK(sym_process(c, 115, 15, 1));
	gone(114);
	gone(115);
	sym_free(c);
}

/* a C++ build: its functions demangled, parameters and all */
static void test_cxx(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	struct sym_frame f;

	CHECK(have_cxx);
	fake_proc(113, 13, &cxx);
	p = sym_process(c, 113, 13, 1);
	CHECK(p);
	sym_user_frame(p, cxx.a, false, &f);
	CHECK(f.name && !strcmp(f.name, "cx_a(int)"));
	sym_user_frame(p, cxx.b + 1, false, &f);
	CHECK(f.name && !strcmp(f.name, "cx_b(int)"));
	gone(113);
	sym_free(c);
}

/*
 * the cache's bounds: processes (least recently named forgotten) and files
 * (dropped only when no process kept maps them; a file that does not fit
 * is named module+offset)
 */
static void test_bounds(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	char name[256], want[128];
	const char *id;

	sym_set_limits(c, 2, ELF_CACHE_BYTES_MAX, 2);
	fake_proc(120, 1, &copy);
	fake_proc(121, 1, &nopie);
	fake_proc(122, 1, &noid);
	fake_proc(123, 1, &noid);
	CHECK(sym_process(c, 120, 1, 1) && sym_process(c, 121, 1, 1));
	CHECK_EQ_U64(sym_nfiles(c), 2);
	/* both files in use: noid's does not fit */
	p = sym_process(c, 122, 1, 1);
	CHECK(p);
	name_of(p, noid.b, name, sizeof(name), &id);
	snprintf(want, sizeof(want), "noid+0x");
	CHECK(!strncmp(name, want, strlen(want)));
	CHECK_EQ_U64(sym_nfiles(c), 2);
	CHECK_EQ_U64(sym_nevicted(c), 0);
	/* 120, least recently named, was forgotten: its file goes for noid's */
	p = sym_process(c, 123, 1, 1);
	CHECK(p);
	name_of(p, noid.b, name, sizeof(name), &id);
	CHECK(!strcmp(name, "fx_b"));
	CHECK_EQ_U64(sym_nevicted(c), 1);
	CHECK_EQ_U64(sym_nfiles(c), 2);
	CHECK(sym_nbytes(c) > 0 && sym_nbytes(c) < 2 * ELF_SYMS_MAX_BYTES);
	/* a forgotten process still running is read again */
	p = sym_process(c, 120, 1, 1);
	CHECK(p);
	CHECK_EQ_U64(sym_nprocs(c), 5);
	for (unsigned int t = 120; t <= 123; t++)
		gone(t);
	sym_free(c);
}

/*
 * (last: it damages fixtures) a mapped file truncated, and one whose
 * section headers point past its end: no name, no crash, module+offset
 */
static void test_hostile(void)
{
	struct sym_cache *c = sym_new(NULL, proc);
	const struct sym_proc *p;
	struct sym_frame f;

	CHECK(!sh("truncate -s 2000 %s/noid && printf '\\377\\377\\377\\377' | "
		  "dd of=%s/nopie bs=1 seek=40 conv=notrunc status=none", dir, dir));
	fake_proc(116, 16, &noid);
	fake_proc(117, 17, &nopie);
	p = sym_process(c, 116, 16, 1);
	sym_user_frame(p, noid.b, false, &f);
	CHECK(p && f.in_exec_map && !strncmp(f.name, "noid+0x", 7) && !f.sym_addr);
	p = sym_process(c, 117, 17, 1);
	sym_user_frame(p, nopie.a, false, &f);
	CHECK(p && f.in_exec_map && !strncmp(f.name, "nopie+0x", 8) && !f.sym_addr);
	gone(116);
	gone(117);
	sym_free(c);
}

static bool setup(void)
{
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/test_symbolize.XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	mkdir(proc, 0755);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/fixture.c", dir);
		f = fopen(path, "w");
		if (!f)
			return false;
		fputs(fixture_src, f);
		fclose(f);
	}
	return build("pie", "fx", "-fPIE -pie -Wl,--build-id=0x" BUILD_ID) &&
	       build("nopie", "fx", "-fno-PIE -no-pie -Wl,--build-id=0x" BUILD_ID_NOPIE) &&
	       !sh("strip --strip-all -o %s/stripped %s/pie", dir, dir) &&
	       build("noid", "fx", "-fPIE -pie -Wl,--build-id=none") &&
	       build("gamma", "gx", "-fPIE -pie -Wl,--build-id=sha1") &&
	       !sh("cp %s/pie %s/copy", dir, dir) &&
	       run("pie", &pie) && run("nopie", &nopie) && run("stripped", &stripped) &&
	       run("noid", &noid) && run("copy", &copy) && run("gamma", &gamma_run);
}

static bool setup_cxx(void)
{
	return !sh("g++ -O1 -DNAME_a=cx_a -DNAME_b=cx_b -x c++ %s/fixture.c -o %s/cxx 2>>%s/cc.err",
		   dir, dir, dir) && run("cxx", &cxx);
}

int main(void)
{
	have_cc = setup();
	have_cxx = have_cc && setup_cxx();
	if (!have_cc)
		sh("cat %s/cc.err >&2", dir);
	TEST(test_fixtures_built);
	if (have_cc) {
		TEST(test_lookup);
		TEST(test_stripped);
		TEST(test_no_build_id);
		TEST(test_build_id_key);
		TEST(test_tgid_reuse);
		TEST(test_exec);
		TEST(test_frame);
		TEST(test_exec_probe);
		TEST(test_cxx);
		TEST(test_bounds);
		TEST(test_hostile);
	}
	if (!getenv("KEEP")) sh("rm -rf %s", dir);
	return test_summary();
}
