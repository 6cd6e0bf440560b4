/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A valid ELF file made to cost a symbolizer memory: @nsyms STT_FUNC
 * symbols in .symtab whose names all point into one string of @len bytes
 * of .strtab (at its start, or each at its own offset into it with
 * @distinct), a page of code they cover, one PT_LOAD segment (r-x) over
 * the whole file so that it can be mapped executable. For
 * tests/unit/test_elf_syms.c and tests/helpers/bigsyms.c.
 */
#ifndef SH_ELFGEN_H
#define SH_ELFGEN_H

#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELFGEN_TEXT 0x1000	/* .text's offset and vaddr: one page in */

/* 0, or -1 if @path cannot be written. */
static inline int elfgen_write(const char *path, size_t nsyms, size_t len, bool distinct)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t sym_off = 2 * ELFGEN_TEXT, str_off = sym_off + (nsyms + 1) * sizeof(Elf64_Sym);
	size_t shstr_off = str_off + len + 2, sh_off = (shstr_off + sizeof(shstr) + 7) & ~7ul;
	size_t total = sh_off + 5 * sizeof(Elf64_Shdr);
	unsigned char *b = calloc(1, total);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(b + sh_off);
	Elf64_Sym *sym = (Elf64_Sym *)(b + sym_off);
	FILE *f;
	int ok;

	if (!b)
		return -1;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = sh_off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = total,
			    .p_memsz = total, .p_align = 0x1000 };
	memset(b + ELFGEN_TEXT, 0xc3, ELFGEN_TEXT);	/* ret */
	for (size_t i = 1; i <= nsyms; i++)
		sym[i] = (Elf64_Sym){ .st_name = (Elf64_Word)(distinct ? 1 + (i - 1) % len : 1),
				      .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				      .st_shndx = 1, .st_size = 1,
				      .st_value = ELFGEN_TEXT + (i - 1) % ELFGEN_TEXT };
	memset(b + str_off + 1, 'A', len);
	memcpy(b + shstr_off, shstr, sizeof(shstr));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC |
			      SHF_EXECINSTR, .sh_addr = ELFGEN_TEXT, .sh_offset = ELFGEN_TEXT,
			      .sh_size = ELFGEN_TEXT, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = sym_off,
			      .sh_size = (nsyms + 1) * sizeof(Elf64_Sym), .sh_link = 3,
			      .sh_info = 1, .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = str_off,
			      .sh_size = len + 2, .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = shstr_off,
			      .sh_size = sizeof(shstr), .sh_addralign = 1 };
	f = fopen(path, "w");
	ok = f && fwrite(b, 1, total, f) == total;
	if (f && fclose(f))
		ok = 0;
	free(b);
	return ok ? 0 : -1;
}

#endif /* SH_ELFGEN_H */
