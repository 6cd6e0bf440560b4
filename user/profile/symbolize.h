/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names of stack frames for --profile: kallsyms for the kernel, ELF symbols of mapped files
 * for processes (cached by build id); docs/architecture.md (symbolize.c) has the rules.
 */
#ifndef SH_SYMBOLIZE_H
#define SH_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "model/stacks.h"

struct sym_cache;
struct sym_proc;

/* A cache over @k (kept by the caller, may be NULL: kernel frames as addresses). */
struct sym_cache *sym_new(const struct ksyms *k, const char *proc_root);
void sym_free(struct sym_cache *c);

/* The files the cache reads, each named by what it is, not by a path. */
enum sym_file {
	SYM_MAPS,		/* PROC/TGID/maps */
	SYM_STAT,		/* PROC/TGID/stat */
	SYM_MAP_FILE,		/* PROC/TGID/map_files/START-END: the inode mapped */
	SYM_ROOT_FILE,		/* PROC/TGID/root/PATH: the path in the process's root */
};
/* Opens one read-only: fd or -errno. @start, @end: the mapping; @ino: the inode required, 0 any. */
typedef int (*sym_open_fn)(void *arg, enum sym_file what, __u32 tgid, __u64 start, __u64 end,
			   __u64 ino, const char *path);
/* Open through @fn (the privileged broker) instead of open() under proc_root. */
void sym_set_opener(struct sym_cache *c, sym_open_fn fn, void *arg);
/* A process's execve() count now (the kernel's, as the BPF side reads it), -1: unknown. */
typedef __s64 (*sym_exec_fn)(void *arg, __u32 tgid);
void sym_set_exec_probe(struct sym_cache *c, sym_exec_fn fn, void *arg);
int sym_open_direct(void *proc_root, enum sym_file what, __u32 tgid, __u64 start, __u64 end,
		    __u64 ino, const char *path);

/* Processes whose maps are kept: past it, the least recently named is forgotten. */
#define SYM_PROCS_MAX 16384
/* Other bounds than these and elf_cache.h's (tests); @procs 0 counts as 1. */
void sym_set_limits(struct sym_cache *c, size_t files, size_t bytes, size_t procs);

/*
 * The maps of program @exec_id of process @tgid started at @start_ticks (0: the newest kept),
 * read unless kept; valid until the next call. NULL: gone before its maps were read.
 */
const struct sym_proc *sym_process(struct sym_cache *c, __u32 tgid, __u64 start_ticks,
				   __u32 exec_id);

struct sym_frame {
	const char *name;	/* demangled function, "module+0xOFF", "[unknown]+0xADDR";
				 * valid until the next sym_process() */
	const char *source;	/* source file name where the ELF has one (STT_FILE), else NULL */
	const char *path;	/* the mapped file's path as /proc/PID/maps shows it, NULL if none */
	const char *build_id;	/* hex GNU build id of that file, NULL if none; valid until
				 * sym_free() */
	__u64 map_start, map_limit, map_pgoff; /* the executable mapping holding the frame
						* (0s if none) */
	__u64 sym_addr;		/* the function's start (file-relative), 0 if unknown */
	bool in_exec_map;	/* false: the address is in no executable mapping of the
				 * process (a stack cut there: "[truncated]") */
};

/* User frame @addr of @p (or NULL) into @f, valid until sym_process(); @ret: look up @addr - 1. */
void sym_user_frame(const struct sym_proc *p, __u64 addr, bool ret, struct sym_frame *f);

/* User frame @addr of @p as "func", "module+0xOFF" or "[unknown]+0xADDR", *@build_id or NULL. */
void sym_user(const struct sym_proc *p, __u64 addr, bool ret, char *buf, size_t len,
	      const char **build_id);
/* Kernel frame @addr: "func" or "[unknown]+0xADDR"; "func [module]" for modules. */
void sym_kernel(const struct sym_cache *c, __u64 addr, bool ret, char *buf, size_t len);

size_t sym_nprocs(const struct sym_cache *c);
size_t sym_nbytes(const struct sym_cache *c);
size_t sym_nevicted(const struct sym_cache *c);
size_t sym_nreused(const struct sym_cache *c);
size_t sym_nexecs(const struct sym_cache *c);
size_t sym_nfiles(const struct sym_cache *c);

#endif /* SH_SYMBOLIZE_H */
