// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* One ELF file's function symbols, segments and build id, bounded against hostile files. */
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "profile/elf_syms.h"

/* Names as they are kept: one copy each, found again by their string table offset. */
struct names {
	char *buf;
	size_t len, cap;
	__u64 *keys;		/* open addressing: (table << 32 | st_name) + 1, 0 = empty */
	__u32 *offs;
	size_t slots;		/* a power of two */
};

static int names_init(struct names *n)
{
	memset(n, 0, sizeof(*n));
	n->cap = 4096;
	n->buf = malloc(n->cap);
	if (!n->buf)
		return -1;
	n->buf[0] = '\0';	/* offset 0: "" (no file) */
	n->len = 1;
	return 0;
}

static int names_index(struct names *n, size_t want)
{
	size_t slots = 64;

	while (slots < 2 * want && slots < 4 * (size_t)ELF_SYMS_MAX_COUNT)
		slots *= 2;
	free(n->keys);
	free(n->offs);
	n->keys = calloc(slots, sizeof(*n->keys));
	n->offs = malloc(slots * sizeof(*n->offs));
	n->slots = slots;
	return n->keys && n->offs ? 0 : -1;
}

/* The offset of @str (string @idx of table @table) in @n, copied on first sight; 0: no room. */
static __u32 names_put(struct names *n, unsigned table, size_t idx, const char *str)
{
	__u64 key = ((__u64)table << 32 | (idx & 0xffffffffu)) + 1;
	size_t i = hash_words(&key, 1) & (n->slots - 1), len;
	__u32 off;

	while (n->keys[i] && n->keys[i] != key)
		i = (i + 1) & (n->slots - 1);
	if (n->keys[i])
		return n->offs[i];
	len = strnlen(str, ELF_SYMS_NAME_MAX);
	if (n->len + len + 1 > ELF_SYMS_NAMES_MAX)
		return 0;
	if (n->len + len + 1 > n->cap) {
		size_t nc = n->cap;
		char *nb;

		while (nc < n->len + len + 1)
			nc *= 2;
		nb = realloc(n->buf, nc);
		if (!nb)
			return 0;
		n->buf = nb;
		n->cap = nc;
	}
	off = (__u32)n->len;
	memcpy(n->buf + n->len, str, len);
	n->buf[n->len + len] = '\0';
	n->len += len + 1;
	n->keys[i] = key;
	n->offs[i] = off;
	return off;
}

/* The GNU build id of @elf, from its PT_NOTE segments, into @s. */
static void read_build_id(struct elf_syms *s, Elf *elf)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && i < 64; i++) {
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
			    !memcmp(name, "GNU", 4) && nh.n_descsz && nh.n_descsz <= ELF_BUILD_ID_MAX) {
				memcpy(s->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				s->build_id_len = nh.n_descsz;
				for (size_t k = 0; k < nh.n_descsz; k++)
					snprintf(s->build_id_hex + 2 * k, 3, "%02x", s->build_id[k]);
				return;
			}
		}
	}
}

static void read_segments(struct elf_syms *s, Elf *elf)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && s->nseg < ELF_SEG_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->seg[s->nseg].off = ph.p_offset;
		s->seg[s->nseg].vaddr = ph.p_vaddr;
		s->seg[s->nseg].filesz = ph.p_filesz;
		s->nseg++;
	}
}

/* Room for one more symbol in @s (capacity *@cap); false: at the bound or no memory. */
static bool sym_room(struct elf_syms *s, size_t *cap)
{
	struct elf_sym *ns;
	size_t nc;

	if (s->nsyms < *cap)
		return true;
	if (s->nsyms >= ELF_SYMS_MAX_COUNT)
		return false;
	nc = *cap ? *cap * 2 : 256;
	if (nc > ELF_SYMS_MAX_COUNT)
		nc = ELF_SYMS_MAX_COUNT;
	ns = realloc(s->syms, nc * sizeof(*ns));
	if (!ns)
		return false;
	s->syms = ns;
	*cap = nc;
	return true;
}

/*
 * The function symbols of section @scn (string table number @table) into
 * @s; an STT_FILE names the local symbols after it. Stops at a bound.
 */
static void add_symtab(struct elf_syms *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		       unsigned table, struct names *n, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	__u32 file = 0;

	if (!d || !count)
		return;
	if (names_index(n, count < ELF_SYMS_MAX_COUNT ? count : ELF_SYMS_MAX_COUNT))
		return;
	for (size_t i = 0; i < count && i < (size_t)1 << 31; i++) {
		GElf_Sym y;
		const char *name;
		int type;
		__u32 off;

		if (!gelf_getsym(d, (int)i, &y))
			break;
		type = GELF_ST_TYPE(y.st_info);
		if (type == STT_FILE) {
			name = elf_strptr(elf, sh->sh_link, y.st_name);
			file = name && *name ? names_put(n, table, y.st_name, name) : 0;
			continue;
		}
		if (GELF_ST_BIND(y.st_info) != STB_LOCAL)
			file = 0;	/* globals follow every file's locals: no file known */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || y.st_shndx == SHN_UNDEF ||
		    !y.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, y.st_name);
		if (!name || !*name)
			continue;
		if (!sym_room(s, cap) || !(off = names_put(n, table, y.st_name, name))) {
			s->capped = true;
			return;
		}
		s->syms[s->nsyms++] = (struct elf_sym){
			.addr = y.st_value, .name = off, .file = file,
			.size = y.st_size > 0xffffffffu ? 0xffffffffu : (__u32)y.st_size,
		};
	}
}

static Elf_Scn *find_section(Elf *elf, unsigned type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static Elf_Scn *find_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* @len bytes of xz at @in decoded into a buffer of its own (*@out, *@outlen); 0 or -1. */
static int unxz(const unsigned char *in, size_t len, unsigned char **out, size_t *outlen)
{
	lzma_stream st = LZMA_STREAM_INIT;
	size_t cap = len * 4 < 65536 ? 65536 : len * 4;
	unsigned char *buf;
	lzma_ret r;

	if (cap > ELF_SYMS_MINIDEBUG_MAX)
		cap = ELF_SYMS_MINIDEBUG_MAX;
	/* the decoder's own memory bounded too: a header can ask for a huge dictionary */
	if (lzma_stream_decoder(&st, 64u << 20, 0) != LZMA_OK)
		return -1;
	buf = malloc(cap);
	st.next_in = in;
	st.avail_in = len;
	st.next_out = buf;
	st.avail_out = cap;
	while (buf) {
		r = lzma_code(&st, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK && r != LZMA_BUF_ERROR)
			goto fail;
		if (st.avail_out)
			goto fail;	/* no progress possible: truncated input */
		if (cap >= ELF_SYMS_MINIDEBUG_MAX)
			goto fail;
		{
			size_t nc = cap * 2 > ELF_SYMS_MINIDEBUG_MAX ? ELF_SYMS_MINIDEBUG_MAX : cap * 2;
			unsigned char *nb = realloc(buf, nc);

			if (!nb)
				goto fail;
			buf = nb;
			st.next_out = buf + cap;
			st.avail_out = nc - cap;
			cap = nc;
		}
	}
	if (!buf)
		goto fail;
	*outlen = cap - st.avail_out;
	*out = buf;
	lzma_end(&st);
	return 0;
fail:
	lzma_end(&st);
	free(buf);
	return -1;
}

/* Minidebuginfo: the .symtab of the ELF file xz-compressed in .gnu_debugdata. */
static void add_minidebug(struct elf_syms *s, Elf *elf, struct names *n, size_t *cap)
{
	GElf_Shdr sh, msh;
	Elf_Scn *scn = find_named(elf, ".gnu_debugdata", &sh), *mscn;
	Elf_Data *d;
	unsigned char *buf;
	size_t len;
	Elf *mini;

	if (!scn || !(d = elf_rawdata(scn, NULL)) || !d->d_buf ||
	    unxz(d->d_buf, d->d_size, &buf, &len))
		return;
	mini = elf_memory((char *)buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF && (mscn = find_section(mini, SHT_SYMTAB, &msh))) {
		add_symtab(s, mini, mscn, &msh, 1, n, cap);
		s->symtab = s->minidebug = true;
	}
	if (mini)
		elf_end(mini);
	free(buf);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_elf(struct elf_syms *s, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	struct names n;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -1;
	read_build_id(s, elf);
	read_segments(s, elf);
	if (names_init(&n))
		return 0;
	if ((scn = find_section(elf, SHT_SYMTAB, &sh))) {
		add_symtab(s, elf, scn, &sh, 0, &n, &cap);
		s->symtab = true;
	} else {
		/* a stripped file keeps .dynsym (its exports) and maybe minidebuginfo */
		if ((scn = find_section(elf, SHT_DYNSYM, &sh)))
			add_symtab(s, elf, scn, &sh, 0, &n, &cap);
		add_minidebug(s, elf, &n, &cap);
	}
	free(n.keys);
	free(n.offs);
	if (s->nsyms) {
		qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
		/* shrink to fit: the cache accounts what is held */
		s->names = realloc(n.buf, n.len) ?: n.buf;
		s->names_len = n.len;
		if (s->nsyms < cap)
			s->syms = realloc(s->syms, s->nsyms * sizeof(*s->syms)) ?: s->syms;
	} else {
		free(n.buf);
		free(s->syms);
		s->syms = NULL;
	}
	return 0;
}

int elf_syms_read_fd(struct elf_syms *s, int fd)
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	r = read_elf(s, elf);
	if (elf)
		elf_end(elf);
	return r;
}

int elf_syms_read_mem(struct elf_syms *s, const void *buf, size_t len)
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, len);
	r = read_elf(s, elf);
	if (elf)
		elf_end(elf);
	return r;
}

int elf_syms_peek(struct elf_syms *s, int fd, bool *has_symtab)
{
	Elf *elf;
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -1;
	}
	read_build_id(s, elf);
	*has_symtab = find_section(elf, SHT_SYMTAB, &sh) != NULL;
	elf_end(elf);
	return 0;
}

void elf_syms_free(struct elf_syms *s)
{
	free(s->syms);
	free(s->names);
	s->syms = NULL;
	s->names = NULL;
	s->nsyms = s->names_len = 0;
}

bool elf_syms_vaddr(const struct elf_syms *s, __u64 off, __u64 *vaddr)
{
	for (int i = 0; i < s->nseg; i++) {
		if (off >= s->seg[i].off && off - s->seg[i].off < s->seg[i].filesz) {
			*vaddr = off - s->seg[i].off + s->seg[i].vaddr;
			return true;
		}
	}
	return false;
}

const struct elf_sym *elf_syms_lookup(const struct elf_syms *s, __u64 vaddr)
{
	size_t lo = 0, hi = s->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* several symbols at one address (aliases): the first sized one covering it */
	for (size_t i = lo; i-- > 0 && s->syms[i].addr == s->syms[lo - 1].addr;)
		if (vaddr - s->syms[i].addr < (s->syms[i].size ? s->syms[i].size : 1))
			return &s->syms[i];
	return NULL;
}

size_t elf_syms_bytes(const struct elf_syms *s)
{
	return s->nsyms * sizeof(*s->syms) + s->names_len;
}
