/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names of stack frames for --profile. Kernel frames from /proc/kallsyms
 * (stacks.h); user frames from the ELF symbol tables (.symtab, else
 * .dynsym) of the files a process maps executable, read with libelf
 * through /proc/PID/root (so files inside containers and other mount
 * namespaces resolve). A process's maps are read when it is first seen
 * and kept, so frames of a process that exits before the reading still
 * resolve. ELF files are read once per (device, inode). A frame nothing
 * covers is named by its module and file offset ("libfoo.so+0x1a2b"),
 * or its address ("[unknown]+0x7f12..."), never dropped.
 */
#ifndef SH_SYMBOLIZE_H
#define SH_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "stacks.h"

struct sym_cache;

/* A cache over @k (kept by the caller, may be NULL: kernel frames as addresses). */
struct sym_cache *sym_new(const struct sh_ksyms *k, const char *proc_root);
void sym_free(struct sym_cache *c);

/* Read process @tgid's maps unless already known. false: it is gone (or unreadable). */
bool sym_see_process(struct sym_cache *c, __u32 tgid);

/*
 * The name of user frame @addr of @tgid into @buf: "func", or
 * "module+0xOFF", or "[unknown]+0xADDR". @ret: a return address (every
 * frame but the innermost), looked up at @addr - 1 (the call).
 */
void sym_user(struct sym_cache *c, __u32 tgid, __u64 addr, bool ret, char *buf, size_t len);
/* Kernel frame @addr: "func" or "[unknown]+0xADDR"; "func [module]" for modules. */
void sym_kernel(const struct sym_cache *c, __u64 addr, bool ret, char *buf, size_t len);

/* Processes and ELF files held. */
size_t sym_nprocs(const struct sym_cache *c);

#endif /* SH_SYMBOLIZE_H */
