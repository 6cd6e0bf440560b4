// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Frame names for --profile: kallsyms for the kernel, libelf for processes. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"

struct elf_sym {
	__u64 addr;
	__u64 size;
	char *name;
};

/* One ELF file's text symbols and loadable segments. */
struct elf_file {
	__u64 dev, ino;		/* from the maps line: the cache key */
	struct elf_sym *syms;	/* sorted by address */
	size_t nsyms;
	struct {
		__u64 off, vaddr, filesz;
	} seg[16];		/* PT_LOAD segments */
	int nseg;
	struct elf_file *next;
};

struct mapping {
	__u64 start, end, off;
	const char *module;	/* basename of the path, or "[vdso]" etc. */
	struct elf_file *elf;	/* NULL: not an ELF file we could read */
};

struct process {
	__u32 tgid;
	struct mapping *maps;
	size_t n;
	char *names;		/* the modules' names */
	struct process *next;
};

#define PROC_BUCKETS 1024

struct sym_cache {
	const struct sh_ksyms *k;
	char proc_root[64];
	struct process *procs[PROC_BUCKETS];
	size_t nprocs;
	struct elf_file *elves;
};

struct sym_cache *sym_new(const struct sh_ksyms *k, const char *proc_root)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->k = k;
	snprintf(c->proc_root, sizeof(c->proc_root), "%s", proc_root ? proc_root : "/proc");
	elf_version(EV_CURRENT);
	return c;
}

void sym_free(struct sym_cache *c)
{
	if (!c)
		return;
	for (size_t b = 0; b < PROC_BUCKETS; b++) {
		for (struct process *p = c->procs[b], *nx; p; p = nx) {
			nx = p->next;
			free(p->maps);
			free(p->names);
			free(p);
		}
	}
	for (struct elf_file *e = c->elves, *nx; e; e = nx) {
		nx = e->next;
		for (size_t i = 0; i < e->nsyms; i++)
			free(e->syms[i].name);
		free(e->syms);
		free(e);
	}
	free(c);
}

size_t sym_nprocs(const struct sym_cache *c)
{
	return c->nprocs;
}

static int cmp_esym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function symbols of section @scn into @e. 0 or -1 (no memory). */
static int add_symtab(struct elf_file *e, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		      size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		if ((GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC)
		    || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (e->nsyms == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			struct elf_sym *ns = realloc(e->syms, nc * sizeof(*ns));

			if (!ns)
				return -1;
			e->syms = ns;
			*cap = nc;
		}
		e->syms[e->nsyms].addr = s.st_value;
		e->syms[e->nsyms].size = s.st_size;
		e->syms[e->nsyms].name = strdup(name);
		if (!e->syms[e->nsyms].name)
			return -1;
		e->nsyms++;
	}
	return 0;
}

/* Read the ELF file at @path: its segments and symbols (.symtab, else .dynsym). */
static void elf_read(struct elf_file *e, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	size_t cap = 0, nph = 0;
	Elf *elf;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	if (!elf_getphdrnum(elf, &nph)) {
		for (size_t i = 0; i < nph && e->nseg < 16; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			e->seg[e->nseg].off = ph.p_offset;
			e->seg[e->nseg].vaddr = ph.p_vaddr;
			e->seg[e->nseg].filesz = ph.p_filesz;
			e->nseg++;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		}
	}
	/* a stripped file keeps .dynsym: its exported functions */
	if (symtab)
		add_symtab(e, elf, symtab, &symsh, &cap);
	else if (dynsym)
		add_symtab(e, elf, dynsym, &dynsh, &cap);
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_esym);
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct elf_file *elf_get(struct sym_cache *c, __u64 dev, __u64 ino, const char *path)
{
	struct elf_file *e;

	for (e = c->elves; e; e = e->next)
		if (e->dev == dev && e->ino == ino)
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dev = dev;
	e->ino = ino;
	elf_read(e, path);
	e->next = c->elves;
	c->elves = e;
	return e;
}

static struct process *proc_find(const struct sym_cache *c, __u32 tgid)
{
	for (struct process *p = c->procs[tgid % PROC_BUCKETS]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

bool sym_see_process(struct sym_cache *c, __u32 tgid)
{
	char path[128], line[4352], *names = NULL;
	size_t cap = 0, ncap = 0, noff = 0;
	struct process *p;
	FILE *f;

	if (proc_find(c, tgid))
		return true;
	snprintf(path, sizeof(path), "%s/%u/maps", c->proc_root, tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return false;
	}
	p->tgid = tgid;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int major, minor;
		char perms[8], *file;
		int pos = 0;
		struct mapping *m;
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &major, &minor, &ino, &pos) < 7 || !strchr(perms, 'x'))
			continue;
		file = line + pos;
		file[strcspn(file, "\n")] = '\0';
		if (p->n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			struct mapping *nm = realloc(p->maps, nc * sizeof(*nm));

			if (!nm)
				break;
			p->maps = nm;
			cap = nc;
		}
		m = &p->maps[p->n];
		m->start = start;
		m->end = end;
		m->off = off;
		m->elf = NULL;
		if (ino && file[0] == '/') {
			char fpath[4500];

			snprintf(fpath, sizeof(fpath), "%s/%u/root%s", c->proc_root, tgid, file);
			m->elf = elf_get(c, ((__u64)major << 32) | minor, ino, fpath);
		}
		/* the module's name: the path's basename, "[vdso]", or "[anon]" */
		if (file[0] == '/')
			file = strrchr(file, '/') + 1;
		else if (!file[0])
			file = "[anon]";
		len = strlen(file) + 1;
		if (noff + len > ncap) {
			size_t nc = (noff + len) * 2 + 256;
			char *nn = realloc(names, nc);

			if (!nn)
				break;
			names = nn;
			ncap = nc;
		}
		memcpy(names + noff, file, len);
		m->module = (const char *)(uintptr_t)noff;
		noff += len;
		p->n++;
	}
	fclose(f);
	for (size_t i = 0; i < p->n; i++)
		p->maps[i].module = names + (uintptr_t)p->maps[i].module;
	p->names = names;
	p->next = c->procs[tgid % PROC_BUCKETS];
	c->procs[tgid % PROC_BUCKETS] = p;
	c->nprocs++;
	return true;
}

/* The symbol of @e covering @vaddr, or NULL. */
static const struct elf_sym *elf_lookup(const struct elf_file *e, __u64 vaddr)
{
	size_t lo = 0, hi = e->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* several symbols at one address (aliases): the first sized one covering it */
	for (size_t i = lo; i-- > 0 && e->syms[i].addr == e->syms[lo - 1].addr;)
		if (vaddr < e->syms[i].addr + (e->syms[i].size ? e->syms[i].size : 1))
			return &e->syms[i];
	return NULL;
}

void sym_user(struct sym_cache *c, __u32 tgid, __u64 addr, bool ret, char *buf, size_t len)
{
	__u64 a = ret && addr ? addr - 1 : addr;
	const struct process *p = proc_find(c, tgid);

	for (size_t i = 0; p && i < p->n; i++) {
		const struct mapping *m = &p->maps[i];
		__u64 off;

		if (a < m->start || a >= m->end)
			continue;
		off = a - m->start + m->off;
		for (int s = 0; m->elf && s < m->elf->nseg; s++) {
			const struct elf_sym *sym;

			if (off < m->elf->seg[s].off ||
			    off >= m->elf->seg[s].off + m->elf->seg[s].filesz)
				continue;
			sym = elf_lookup(m->elf, off - m->elf->seg[s].off + m->elf->seg[s].vaddr);
			if (sym) {
				snprintf(buf, len, "%s", sym->name);
				return;
			}
			break;
		}
		snprintf(buf, len, "%s+0x%llx", m->module, (unsigned long long)off);
		return;
	}
	snprintf(buf, len, "[unknown]+0x%llx", (unsigned long long)addr);
}

void sym_kernel(const struct sym_cache *c, __u64 addr, bool ret, char *buf, size_t len)
{
	const struct sh_ksyms *k = c->k;
	__u64 a = ret && addr ? addr - 1 : addr;
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		/* "func [module]" keeps its module; a folded frame has no spaces */
		const char *n = k->syms[lo - 1].name;
		size_t fl = strcspn(n, " ");

		if (n[fl])
			snprintf(buf, len, "%.*s_%s", (int)fl, n, n + fl + 1);
		else
			snprintf(buf, len, "%s", n);
		return;
	}
	snprintf(buf, len, "[unknown]+0x%llx", (unsigned long long)addr);
}
