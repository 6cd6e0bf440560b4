// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Frame names for --profile: kallsyms for the kernel, ELF symbol tables for processes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/proc_stat.h"
#include "profile/demangle.h"
#include "profile/elf_cache.h"
#include "profile/symbolize.h"

struct mapping {
	__u64 start, end, off;
	const char *path;	/* as the maps line has it: "/usr/lib/...", "[vdso]", "" */
	const char *module;	/* basename of the path, or "[vdso]" etc. */
	struct elf_file *elf;	/* NULL: not an ELF file we could read (holds a ref) */
};

struct sym_proc {
	__u32 tgid;
	__u64 start_ticks;	/* /proc/PID/stat's starttime: which process has @tgid */
	__u32 exec_id;		/* its execve() count when the maps were read */
	bool exec_known;	/* ... known (not for maps read before any wait) */
	struct mapping *maps;
	size_t n;
	char *names;		/* the mappings' paths */
	struct sym_cache *c;	/* its cache: the frame names' arena */
	struct sym_proc *next;	/* hash chain */
	struct sym_proc *lru_prev, *lru_next; /* most recently used first */
};

/* Frame names made since the last sym_process(): blocks never move, so names stay put. */
struct arena_block {
	struct arena_block *next;
	size_t used;
	char buf[16384];
};

#define PROC_BUCKETS 1024

struct sym_cache {
	const struct ksyms *k;
	char proc_root[64];
	sym_open_fn open;
	void *open_arg;
	sym_exec_fn probe;	/* a process's execve() count now, or NULL */
	void *probe_arg;
	struct sym_proc *procs[PROC_BUCKETS];
	struct sym_proc *lru_head, *lru_tail;
	size_t nprocs, nreused, nexecs, nheld;
	size_t max_procs;
	struct elf_cache *files;
	struct arena_block *arena;
};

int sym_open_direct(void *proc_root, enum sym_file what, __u32 tgid, __u64 start, __u64 end,
		    __u64 ino, const char *path)
{
	const char *root = proc_root;
	char p[4500];
	int fd;

	if (what == SYM_MAP_FILE)
		snprintf(p, sizeof(p), "%s/%u/map_files/%llx-%llx", root, tgid,
			 (unsigned long long)start, (unsigned long long)end);
	else if (what == SYM_ROOT_FILE)
		snprintf(p, sizeof(p), "%s/%u/root%s", root, tgid, path);
	else
		snprintf(p, sizeof(p), "%s/%u/%s", root, tgid, what == SYM_MAPS ? "maps" : "stat");
	(void)ino;	/* open_mapped() checks it */
	fd = open(p, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

struct sym_cache *sym_new(const struct ksyms *k, const char *proc_root)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->k = k;
	snprintf(c->proc_root, sizeof(c->proc_root), "%s", proc_root ? proc_root : "/proc");
	c->open = sym_open_direct;
	c->open_arg = c->proc_root;
	c->files = elf_cache_new();
	if (!c->files) {
		free(c);
		return NULL;
	}
	c->max_procs = SYM_PROCS_MAX;
	return c;
}

void sym_set_limits(struct sym_cache *c, size_t files, size_t bytes, size_t procs)
{
	elf_cache_limits(c->files, files, bytes);
	c->max_procs = procs ? procs : 1;
}

static void lru_unlink(struct sym_cache *c, struct sym_proc *p)
{
	*(p->lru_prev ? &p->lru_prev->lru_next : &c->lru_head) = p->lru_next;
	*(p->lru_next ? &p->lru_next->lru_prev : &c->lru_tail) = p->lru_prev;
	p->lru_prev = p->lru_next = NULL;
}

static void lru_front(struct sym_cache *c, struct sym_proc *p)
{
	p->lru_prev = NULL;
	p->lru_next = c->lru_head;
	*(c->lru_head ? &c->lru_head->lru_prev : &c->lru_tail) = p;
	c->lru_head = p;
}

void sym_set_opener(struct sym_cache *c, sym_open_fn fn, void *arg)
{
	c->open = fn;
	c->open_arg = arg;
}

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

/* A copy of @s (cut to a block) in the arena; a constant if out of memory. */
static const char *arena_put(struct sym_cache *c, const char *s)
{
	size_t len = strnlen(s, sizeof(c->arena->buf) - 1);
	struct arena_block *b = c->arena;
	char *r;

	if (!b || b->used + len + 1 > sizeof(b->buf)) {
		b = malloc(sizeof(*b));
		if (!b)
			return "[no memory]";
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

static void proc_free(struct sym_proc *p)
{
	for (size_t i = 0; i < p->n; i++)
		elf_cache_put(p->maps[i].elf);
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
	elf_cache_free(c->files);
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
	return elf_cache_files(c->files);
}

size_t sym_nbytes(const struct sym_cache *c)
{
	return elf_cache_bytes(c->files);
}

size_t sym_nevicted(const struct sym_cache *c)
{
	return elf_cache_evicted(c->files);
}

/*
 * The mapped file itself: map_files/START-END (the inode mapped; CAP_SYS_ADMIN), else the path
 * under the process's root if still that inode. -1: neither.
 */
static int open_mapped(const struct sym_cache *c, __u32 tgid, __u64 start, __u64 end,
		       __u64 ino, const char *file)
{
	struct stat st;
	int fd;

	fd = c->open(c->open_arg, SYM_MAP_FILE, tgid, start, end, ino, NULL);
	if (fd < 0)
		fd = c->open(c->open_arg, SYM_ROOT_FILE, tgid, start, end, ino, file);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_ino != ino || !S_ISREG(st.st_mode)) {
		close(fd);	/* another file now has the path: its symbols would lie */
		return -1;
	}
	return fd;
}

/* Field 22 of /proc/PID/stat, the process's start in clock ticks since boot; 0: gone. */
static __u64 proc_start(const struct sym_cache *c, __u32 tgid)
{
	int fd = c->open(c->open_arg, SYM_STAT, tgid, 0, 0, 0, NULL);

	return fd < 0 ? 0 : proc_stat_start(fd);
}

static struct sym_proc **proc_link(struct sym_cache *c, const struct sym_proc *p)
{
	struct sym_proc **pp = &c->procs[p->tgid % PROC_BUCKETS];

	while (*pp != p)
		pp = &(*pp)->next;
	return pp;
}

static void proc_drop(struct sym_cache *c, struct sym_proc *p)
{
	*proc_link(c, p) = p->next;
	lru_unlink(c, p);
	proc_free(p);
	c->nheld--;
}

/* Mappings kept per process: more is a hostile or broken process. */
#define MAPS_MAX 65536

static int add_mapping(struct sym_cache *c, struct sym_proc *p, char *line, size_t *cap,
		       char **names, size_t *ncap, size_t *noff)
{
	unsigned long long start, end, off, ino;
	unsigned int major, minor;
	char perms[8], *file;
	int pos = 0;
	struct mapping *m;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &major,
		   &minor, &ino, &pos) < 7 || !strchr(perms, 'x'))
		return 0;
	file = line + pos;
	file[strcspn(file, "\n")] = '\0';
	if (p->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct mapping *nm = nc <= MAPS_MAX ? realloc(p->maps, nc * sizeof(*nm)) : NULL;

		if (!nm)
			return -1;
		p->maps = nm;
		*cap = nc;
	}
	len = strlen(file) + 1;
	if (*noff + len > *ncap) {
		size_t nc = (*noff + len) * 2 + 256;
		char *nn = realloc(*names, nc);

		if (!nn)
			return -1;
		*names = nn;
		*ncap = nc;
	}
	m = &p->maps[p->n++];
	m->start = start;
	m->end = end;
	m->off = off;
	m->elf = NULL;
	if (ino && file[0] == '/') {
		int fd = open_mapped(c, p->tgid, start, end, ino, file);

		if (fd >= 0) {
			m->elf = elf_cache_get(c->files, fd, ((__u64)major << 32) | minor, ino);
			close(fd);
		}
	}
	memcpy(*names + *noff, file, len);
	m->path = (const char *)(uintptr_t)*noff;
	*noff += len;
	return 0;
}

static struct sym_proc *maps_read(struct sym_cache *c, __u32 tgid)
{
	char line[4352], *names = NULL;
	size_t cap = 0, ncap = 0, noff = 0;
	struct sym_proc *p;
	int fd = c->open(c->open_arg, SYM_MAPS, tgid, 0, 0, 0, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return NULL;
	}
	p->tgid = tgid;
	p->c = c;
	while (fgets(line, sizeof(line), f))
		if (add_mapping(c, p, line, &cap, &names, &ncap, &noff))
			break;
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

/*
 * The maps kept for (@tgid, @start_ticks, @exec_id), or with @start_ticks 0 @tgid's newest;
 * *@newest: that process's newest, for a program not kept.
 */
static struct sym_proc *proc_find(struct sym_cache *c, __u32 tgid, __u64 start_ticks,
				  __u32 exec_id, struct sym_proc **newest)
{
	struct sym_proc *p, *hit = NULL;

	*newest = NULL;
	for (p = c->procs[tgid % PROC_BUCKETS]; p; p = p->next) {
		if (p->tgid != tgid || (start_ticks && p->start_ticks != start_ticks))
			continue;
		if (!*newest || (__s32)(p->exec_id - (*newest)->exec_id) > 0 ||
		    (!start_ticks && p->start_ticks > (*newest)->start_ticks))
			*newest = p;
		if (start_ticks && p->exec_known && p->exec_id == exec_id)
			hit = p;
	}
	return start_ticks ? hit : *newest;
}

/* The maps of @tgid now, if they are of program @exec_id (per the probe); NULL otherwise. */
static struct sym_proc *read_program(struct sym_cache *c, __u32 tgid, __u64 start_ticks,
				     __u32 exec_id, __u64 *now)
{
	struct sym_proc *p;
	__s64 before = -1;

	*now = proc_start(c, tgid);
	if (!*now || (start_ticks && *now != start_ticks))
		return NULL;	/* that process is gone: its maps were never read */
	if (c->probe && start_ticks) {
		before = c->probe(c->probe_arg, tgid);
		if (before >= 0 && (__u32)before != exec_id)
			return NULL;	/* that program is gone: its maps were never read */
	}
	p = maps_read(c, tgid);
	/* the maps are of that process and program only if it still runs them */
	if (p && (proc_start(c, tgid) != *now ||
		  (before >= 0 && c->probe(c->probe_arg, tgid) != before))) {
		proc_free(p);
		p = NULL;
	}
	return p;
}

const struct sym_proc *sym_process(struct sym_cache *c, __u32 tgid, __u64 start_ticks,
				   __u32 exec_id)
{
	struct sym_proc *newest, *p = proc_find(c, tgid, start_ticks, exec_id, &newest);
	__u64 now;

	arena_reset(c);
	if (!p && newest && !newest->exec_known) {
		/* read for -p before any wait: the program then */
		newest->exec_id = exec_id;
		newest->exec_known = true;
		p = newest;
	}
	if (p) {
		lru_unlink(c, p);
		lru_front(c, p);
		return p;
	}
	/* without a probe, an earlier program than one kept is gone for sure */
	if (!c->probe && newest && (__s32)(exec_id - newest->exec_id) < 0)
		return NULL;
	p = read_program(c, tgid, start_ticks, exec_id, &now);
	if (!p)
		return NULL;
	p->start_ticks = now;
	p->exec_id = exec_id;
	p->exec_known = start_ticks != 0;
	if (newest && newest->start_ticks == now)
		c->nexecs++;	/* a new program: the earlier ones' maps stay for their waits */
	else if (proc_find(c, tgid, 0, 0, &newest))
		c->nreused++;	/* a reused tgid: the old process's maps stay for its waits */
	else
		c->nprocs++;
	p->next = c->procs[tgid % PROC_BUCKETS];
	c->procs[tgid % PROC_BUCKETS] = p;
	lru_front(c, p);
	c->nheld++;
	/* bounded: the maps least recently asked for go (their files may go then) */
	while (c->nheld > c->max_procs && c->lru_tail != p)
		proc_drop(c, c->lru_tail);
	return p;
}

void sym_set_exec_probe(struct sym_cache *c, sym_exec_fn fn, void *arg)
{
	c->probe = fn;
	c->probe_arg = arg;
}

static const char *sym_name(struct sym_cache *c, const struct elf_file *e,
			    const struct elf_sym *y)
{
	char buf[ELF_SYMS_NAME_MAX + 256];
	const char *raw = elf_sym_name(&e->s, y);

	return sym_demangle(raw, buf, sizeof(buf)) ? arena_put(c, buf) : raw;
}

void sym_user_frame(const struct sym_proc *p, __u64 addr, bool ret, struct sym_frame *f)
{
	__u64 a = ret && addr ? addr - 1 : addr, vaddr;
	char buf[320];

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; p && i < p->n; i++) {
		const struct mapping *m = &p->maps[i];
		const struct elf_file *e = m->elf;
		const struct elf_sym *y;
		__u64 off;

		if (a < m->start || a >= m->end)
			continue;
		off = a - m->start + m->off;
		f->in_exec_map = true;
		f->map_start = m->start;
		f->map_limit = m->end;
		f->map_pgoff = m->off;
		f->path = m->path[0] ? m->path : NULL;
		if (e) {
			f->build_id = e->id;
			if (elf_syms_vaddr(&e->s, off, &vaddr) && (y = elf_syms_lookup(&e->s, vaddr))) {
				f->name = sym_name(p->c, e, y);
				f->source = y->file ? e->s.names + y->file : NULL;
				f->sym_addr = y->addr;
				return;
			}
		}
		snprintf(buf, sizeof(buf), "%.255s+0x%llx", m->module, (unsigned long long)off);
		f->name = arena_put(p->c, buf);
		return;
	}
	if (p) {
		snprintf(buf, sizeof(buf), "[unknown]+0x%llx", (unsigned long long)addr);
		f->name = arena_put(p->c, buf);
	} else {
		static __thread char unk[64];	/* no process, no arena: until the next call */

		snprintf(unk, sizeof(unk), "[unknown]+0x%llx", (unsigned long long)addr);
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
