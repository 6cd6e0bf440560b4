/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * One ELF file's function symbols, PT_LOAD segments and build id (libelf). The file is
 * untrusted: every count and length bounded (ELF_SYMS_*); an unreadable file has no symbols.
 */
#ifndef SH_ELF_SYMS_H
#define SH_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Function symbols kept per file: 24 bytes each (libxul-sized files fit). */
#define ELF_SYMS_MAX_COUNT (256u * 1024)
/* A name longer than this is cut (C++ and Rust names rarely reach it). */
#define ELF_SYMS_NAME_MAX 1024u
/* Bytes of names kept per file, each distinct name (string table offset) once. */
#define ELF_SYMS_NAMES_MAX (8u << 20)
/* The decoded .gnu_debugdata at most (it is a symbol table and little else). */
#define ELF_SYMS_MINIDEBUG_MAX (32u << 20)
/* The most one file's symbols can take: the per-file bound of the ELF cache. */
#define ELF_SYMS_MAX_BYTES ((size_t)ELF_SYMS_MAX_COUNT * sizeof(struct elf_sym) + \
			    ELF_SYMS_NAMES_MAX)
/* The longest build id kept (GNU build ids are 20 bytes, SHA-1). */
#define ELF_BUILD_ID_MAX 64
/* PT_LOAD segments kept. */
#define ELF_SEG_MAX 16

struct elf_sym {
	__u64 addr;		/* st_value: the function's start (file vaddr) */
	__u32 size;		/* st_size, at most 4 GiB */
	__u32 name;		/* offset of its name in elf_syms.names */
	__u32 file;		/* offset of its STT_FILE's name, 0: none */
	__u32 pad;
};

struct elf_syms {
	unsigned char build_id[ELF_BUILD_ID_MAX]; /* NT_GNU_BUILD_ID's bytes */
	size_t build_id_len;	/* 0: none */
	char build_id_hex[2 * ELF_BUILD_ID_MAX + 1];
	struct {
		__u64 off, vaddr, filesz;
	} seg[ELF_SEG_MAX];	/* PT_LOAD segments */
	int nseg;
	struct elf_sym *syms;	/* sorted by address */
	size_t nsyms;
	char *names;		/* "\0" then each name once, NUL-terminated */
	size_t names_len;
	bool symtab;		/* the names come from a .symtab (the file's or minidebuginfo's) */
	bool minidebug;		/* ... from .gnu_debugdata's */
	bool capped;		/* a bound cut the table */
};

/* Read the ELF file open on @fd (not closed) into @s. 0, or -1: not an ELF file libelf reads. */
int elf_syms_read_fd(struct elf_syms *s, int fd);
/* The same from @len bytes at @buf. */
int elf_syms_read_mem(struct elf_syms *s, const void *buf, size_t len);
void elf_syms_free(struct elf_syms *s);

/* Only the build id of the file on @fd, and whether it has a .symtab: 0, or -1 as above. */
int elf_syms_peek(struct elf_syms *s, int fd, bool *has_symtab);

/* File offset @off as a vaddr, through the segment holding it. false: in none. */
bool elf_syms_vaddr(const struct elf_syms *s, __u64 off, __u64 *vaddr);
/* The symbol covering @vaddr, or NULL. */
const struct elf_sym *elf_syms_lookup(const struct elf_syms *s, __u64 vaddr);
/* The heap bytes @s holds (the ELF cache's accounting). */
size_t elf_syms_bytes(const struct elf_syms *s);

static inline const char *elf_sym_name(const struct elf_syms *s, const struct elf_sym *y)
{
	return s->names + y->name;
}

#endif /* SH_ELF_SYMS_H */
