// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: user/profile/elf_syms.c (the ELF, symbol-table,
 * minidebuginfo and build-id readers) on arbitrary bytes, read as an ELF
 * file, and as patches to a valid one (tests/helpers/elfgen.h) so that
 * inputs reach the tables behind the headers. The input is an untrusted
 * file: any result is fine but a crash, a sanitizer report, or a table
 * that breaks its own invariants (a name outside the names, a table past
 * its bounds, symbols out of order, a lookup returning a symbol that does
 * not cover the address); every name is demangled too.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/demangle.h"
#include "profile/elf_syms.h"
#include "../helpers/elfgen.h"

static void check(const struct elf_syms *s)
{
	char buf[256];

	if (s->nsyms > ELF_SYMS_MAX_COUNT || s->names_len > ELF_SYMS_NAMES_MAX ||
	    elf_syms_bytes(s) > ELF_SYMS_MAX_BYTES || s->nseg > ELF_SEG_MAX ||
	    s->build_id_len > ELF_BUILD_ID_MAX || strlen(s->build_id_hex) != 2 * s->build_id_len)
		abort();
	for (size_t i = 0; i < s->nsyms; i++) {
		const struct elf_sym *y = &s->syms[i];
		const struct elf_sym *z;

		if (y->name >= s->names_len || y->file >= s->names_len ||
		    !memchr(s->names + y->name, '\0', s->names_len - y->name) ||
		    strlen(s->names + y->name) > ELF_SYMS_NAME_MAX ||
		    (i && s->syms[i - 1].addr > y->addr))
			abort();
		z = elf_syms_lookup(s, y->addr);
		if (z && (y->addr < z->addr || y->addr - z->addr >= (z->size ? z->size : 1)))
			abort();
		sym_demangle(elf_sym_name(s, y), buf, sizeof(buf));
	}
}

static unsigned char *template;
static size_t template_len;

/* A valid ELF of 8 functions, made once. */
static void make_template(void)
{
	char path[] = "/tmp/fuzz_elf_syms.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0 || elfgen_write(path, 8, 24, true))
		abort();
	close(fd);
	f = fopen(path, "r");
	fseek(f, 0, SEEK_END);
	template_len = (size_t)ftell(f);
	rewind(f);
	template = malloc(template_len);
	if (fread(template, 1, template_len, f) != template_len)
		abort();
	fclose(f);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct elf_syms s;
	unsigned char *copy = malloc(size ? size : 1), *patched;

	/* exactly @size bytes: ASan sees a read past the file */
	memcpy(copy, data, size);
	if (!elf_syms_read_mem(&s, copy, size)) {
		check(&s);
		elf_syms_free(&s);
	}
	free(copy);
	/* as patches: (offset, byte) pairs applied to the template */
	if (!template)
		make_template();
	patched = malloc(template_len);
	memcpy(patched, template, template_len);
	for (size_t i = 0; i + 2 < size; i += 3)
		patched[((size_t)data[i] << 8 | data[i + 1]) % template_len] = data[i + 2];
	if (!elf_syms_read_mem(&s, patched, template_len)) {
		check(&s);
		elf_syms_free(&s);
	}
	free(patched);
	return 0;
}
