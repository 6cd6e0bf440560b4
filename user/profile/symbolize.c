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
#include <sys/stat.h>

#include "profile/symbolize.h"

struct elf_sym {
	__u64 addr;
	__u64 size;
	char *name;
};

/* The longest build id kept (GNU build ids are 20 bytes, SHA-1). */
#define BUILD_ID_MAX 64

/* One ELF file's build id, text symbols and loadable segments. */
struct elf_file {
	__u64 dev, ino;		/* from the first maps line seen: the key without a build id */
	unsigned char build_id[BUILD_ID_MAX]; /* NT_GNU_BUILD_ID: the key with one */
	size_t build_id_len;	/* 0: the file has none (or was not readable) */
	char build_id_hex[2 * BUILD_ID_MAX + 1];
	struct elf_sym *syms;	/* sorted by address */
	size_t nsyms;
	bool symtab;		/* @syms are .symtab's (else .dynsym's, or none) */
	struct {
		__u64 off, vaddr, filesz;
	} seg[16];		/* PT_LOAD segments */
	int nseg;
	struct elf_file *next;
};

struct mapping {
	__u64 start, end, off;
	const char *path;	/* as the maps line has it: "/usr/lib/...", "[vdso]", "" */
	const char *module;	/* basename of the path, or "[vdso]" etc. */
	struct elf_file *elf;	/* NULL: not an ELF file we could read */
};

struct sym_proc {
	__u32 tgid;
	__u64 start_ticks;	/* /proc/PID/stat's starttime: which process has @tgid */
	__u32 exec_id;		/* its execve() count when the maps were read */
	bool exec_known;	/* ... known (not for maps read before any wait) */
	struct mapping *maps;
	size_t n;
	char *names;		/* the modules' paths */
	struct sym_cache *c;	/* its cache: the frame names' arena */
	struct sym_proc *next;
};

/* Frame names made since the last sym_process(): blocks never moved, so names stay put. */
struct arena_block {
	struct arena_block *next;
	size_t used;
	char buf[16384];
};

#define PROC_BUCKETS 1024

struct sym_cache {
	const struct ksyms *k;
	char proc_root[64];
	struct sym_proc *procs[PROC_BUCKETS];
	size_t nprocs, nreused, nexecs;
	struct elf_file *elves;
	struct arena_block *arena;
};

static void arena_reset(struct sym_cache *c)
{
	struct arena_block *b = c->arena;

	while (b && b->next) {
		struct arena_block *nx = b->next;

		free(b);
		b = nx;
	}
	c->arena = b;
	if (b)
		b->used = 0;
}

/* A copy of @s (at most the block's size) in the arena; "" if out of memory. */
static const char *arena_put(struct sym_cache *c, const char *s)
{
	size_t len = strnlen(s, sizeof(c->arena->buf) - 1);
	struct arena_block *b = c->arena;
	char *r;

	if (!b || b->used + len + 1 > sizeof(b->buf)) {
		b = malloc(sizeof(*b));
		if (!b)
			return "";
		b->used = 0;
		b->next = c->arena;
		c->arena = b;
	}
	r = b->buf + b->used;
	memcpy(r, s, len);
	r[len] = '\0';
	b->used += len + 1;
	return r;
}

struct sym_cache *sym_new(const struct ksyms *k, const char *proc_root)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->k = k;
	snprintf(c->proc_root, sizeof(c->proc_root), "%s", proc_root ? proc_root : "/proc");
	elf_version(EV_CURRENT);
	return c;
}

static void elf_syms_free(struct elf_file *e)
{
	for (size_t i = 0; i < e->nsyms; i++)
		free(e->syms[i].name);
	free(e->syms);
	e->syms = NULL;
	e->nsyms = 0;
	e->nseg = 0;
}

static void proc_free(struct sym_proc *p)
{
	free(p->maps);
	free(p->names);
	free(p);
}

void sym_free(struct sym_cache *c)
{
	if (!c)
		return;
	for (size_t b = 0; b < PROC_BUCKETS; b++) {
		for (struct sym_proc *p = c->procs[b], *nx; p; p = nx) {
			nx = p->next;
			proc_free(p);
		}
	}
	for (struct elf_file *e = c->elves, *nx; e; e = nx) {
		nx = e->next;
		elf_syms_free(e);
		free(e);
	}
	arena_reset(c);
	free(c->arena);
	free(c);
}

size_t sym_nprocs(const struct sym_cache *c)
{
	return c->nprocs;
}

size_t sym_nreused(const struct sym_cache *c)
{
	return c->nreused;
}

size_t sym_nexecs(const struct sym_cache *c)
{
	return c->nexecs;
}

size_t sym_nfiles(const struct sym_cache *c)
{
	size_t n = 0;

	for (const struct elf_file *e = c->elves; e; e = e->next)
		n++;
	return n;
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

/* The GNU build id of @elf from its PT_NOTE segments into @id; its length, 0: none. */
static size_t read_build_id(Elf *elf, unsigned char *id)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
			const char *name = (const char *)d->d_buf + name_off;

			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh.n_descsz && nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* The segments and symbols (.symtab, else .dynsym) of @elf into @e. */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

static void elf_read(struct elf_file *e, Elf *elf)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	size_t cap = 0, nph = 0;

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
	e->symtab = symtab != NULL;
	if (symtab)
		add_symtab(e, elf, symtab, &symsh, &cap);
	else if (dynsym)
		add_symtab(e, elf, dynsym, &dynsh, &cap);
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_esym);
}

/*
 * The mapped file itself: /proc/PID/map_files/START-END (the inode mapped,
 * even deleted or replaced under its path; needs CAP_SYS_ADMIN), else the
 * path through /proc/PID/root if it is still the inode mapped. -1: neither.
 */
static int open_mapped(const struct sym_cache *c, __u32 tgid, __u64 start, __u64 end,
		       __u64 ino, const char *file)
{
	char path[4500];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", c->proc_root, tgid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/%u/root%s", c->proc_root, tgid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || st.st_ino != ino)) {
		close(fd);	/* another file now has the path: its symbols would lie */
		return -1;
	}
	return fd;
}

/*
 * The cached ELF file of a mapping: found by its build id (one entry for
 * every path and copy of one build, a new one for a rebuilt file under an
 * old path), else by (device, inode); read on first sight.
 */
static struct elf_file *elf_get(struct sym_cache *c, __u32 tgid, __u64 start, __u64 end,
				__u64 dev, __u64 ino, const char *file)
{
	unsigned char id[BUILD_ID_MAX];
	size_t idlen = 0;
	struct elf_file *e;
	Elf *elf = NULL;
	int fd = open_mapped(c, tgid, start, end, ino, file);

	if (fd >= 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_kind(elf) != ELF_K_ELF) {
			elf_end(elf);
			elf = NULL;
		}
		if (elf)
			idlen = read_build_id(elf, id);
	}
	for (e = c->elves; e; e = e->next) {
		if (idlen ? e->build_id_len == idlen && !memcmp(e->build_id, id, idlen)
			  : !e->build_id_len && e->dev == dev && e->ino == ino)
			break;
	}
	if (e) {
		/*
		 * one build, stripped and not (a stripped copy keeps the build
		 * id): the names come from the copy that has them
		 */
		if (!e->symtab && elf && has_symtab(elf)) {
			elf_syms_free(e);
			elf_read(e, elf);
		}
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto out;
	e->dev = dev;
	e->ino = ino;
	memcpy(e->build_id, id, idlen);
	e->build_id_len = idlen;
	for (size_t i = 0; i < idlen; i++)
		snprintf(e->build_id_hex + 2 * i, 3, "%02x", id[i]);
	if (elf)
		elf_read(e, elf);
	e->next = c->elves;
	c->elves = e;
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return e;
}

/* Field 22 of /proc/PID/stat, the process's start in clock ticks since boot; 0: gone. */
static __u64 proc_start(const struct sym_cache *c, __u32 tgid)
{
	char path[128], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/stat", c->proc_root, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the comm may hold spaces and parentheses: fields 3 on follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

static struct sym_proc **proc_slot(struct sym_cache *c, __u32 tgid)
{
	struct sym_proc **pp = &c->procs[tgid % PROC_BUCKETS];

	while (*pp && (*pp)->tgid != tgid)
		pp = &(*pp)->next;
	return pp;
}

/* The executable mappings of @tgid, NULL if gone or out of memory. */
static struct sym_proc *maps_read(struct sym_cache *c, __u32 tgid)
{
	char path[128], line[4352], *names = NULL;
	size_t cap = 0, ncap = 0, noff = 0;
	struct sym_proc *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/maps", c->proc_root, tgid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return NULL;
	}
	p->tgid = tgid;
	p->c = c;
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
		if (ino && file[0] == '/')
			m->elf = elf_get(c, tgid, start, end, ((__u64)major << 32) | minor, ino, file);
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
		m->path = (const char *)(uintptr_t)noff;
		noff += len;
		p->n++;
	}
	fclose(f);
	for (size_t i = 0; i < p->n; i++) {
		struct mapping *m = &p->maps[i];

		m->path = names + (uintptr_t)m->path;
		/* the module's name: the path's basename, "[vdso]", or "[anon]" */
		m->module = m->path[0] == '/' ? strrchr(m->path, '/') + 1
					       : m->path[0] ? m->path : "[anon]";
	}
	p->names = names;
	return p;
}

const struct sym_proc *sym_process(struct sym_cache *c, __u32 tgid, __u64 start_ticks,
				   __u32 exec_id)
{
	struct sym_proc **pp = proc_slot(c, tgid), *p = *pp;
	bool same_process = p && (!start_ticks || p->start_ticks == start_ticks);
	__u64 now;

	arena_reset(c);
	if (same_process) {
		if (!start_ticks)
			return p;
		if (!p->exec_known) {
			/* read for -p before any wait: the program then */
			p->exec_id = exec_id;
			p->exec_known = true;
		}
		if (exec_id == p->exec_id)
			return p;
		if ((__s32)(exec_id - p->exec_id) < 0)
			return NULL;	/* an earlier program of it: its maps are gone */
		/* a later program (execve): its maps replace these */
	}
	now = proc_start(c, tgid);
	if (!now || (start_ticks && now != start_ticks))
		return NULL;	/* that process is gone: its maps were never read */
	p = maps_read(c, tgid);
	/* the maps are of the process that started then only if it still has the tgid */
	if (p && proc_start(c, tgid) != now) {
		proc_free(p);
		p = NULL;
	}
	if (!p)
		return NULL;
	p->start_ticks = now;
	p->exec_id = exec_id;
	p->exec_known = start_ticks != 0;
	if (*pp) {
		/* a reused tgid, or a new program: the old maps go */
		if (same_process)
			c->nexecs++;
		else
			c->nreused++;
		p->next = (*pp)->next;
		proc_free(*pp);
	} else {
		p->next = NULL;
		c->nprocs++;
	}
	*pp = p;
	return p;
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

void sym_user_frame(const struct sym_proc *p, __u64 addr, bool ret, struct sym_frame *f)
{
	__u64 a = ret && addr ? addr - 1 : addr;
	char buf[64];

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; p && i < p->n; i++) {
		const struct mapping *m = &p->maps[i];
		const struct elf_file *e = m->elf;
		__u64 off;

		if (a < m->start || a >= m->end)
			continue;
		off = a - m->start + m->off;
		f->in_exec_map = true;
		f->map_start = m->start;
		f->map_limit = m->end;
		f->map_pgoff = m->off;
		f->path = m->path[0] ? m->path : NULL;
		if (e && e->build_id_len)
			f->build_id = e->build_id_hex;
		for (int s = 0; e && s < e->nseg; s++) {
			const struct elf_sym *sym;

			if (off < e->seg[s].off || off >= e->seg[s].off + e->seg[s].filesz)
				continue;
			sym = elf_lookup(e, off - e->seg[s].off + e->seg[s].vaddr);
			if (sym) {
				f->name = sym->name;
				f->sym_addr = sym->addr;
				return;
			}
			break;
		}
		snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)off);
		{
			char nm[320];

			snprintf(nm, sizeof(nm), "%.255s%s", m->module, buf);
			f->name = arena_put(p->c, nm);
		}
		return;
	}
	snprintf(buf, sizeof(buf), "[unknown]+0x%llx", (unsigned long long)addr);
	f->name = p ? arena_put(p->c, buf) : NULL;
	if (!f->name) {
		static __thread char unk[64];

		memcpy(unk, buf, sizeof(unk));
		f->name = unk;
	}
}

void sym_user(const struct sym_proc *p, __u64 addr, bool ret, char *buf, size_t len,
	      const char **build_id)
{
	struct sym_frame f;

	sym_user_frame(p, addr, ret, &f);
	snprintf(buf, len, "%s", f.name);
	*build_id = f.build_id;
}

void sym_kernel(const struct sym_cache *c, __u64 addr, bool ret, char *buf, size_t len)
{
	const struct ksyms *k = c->k;
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
