/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names of a profile entry's stacks: the folded line and its frames. Kernel stacks named once
 * per id; a user stack cut at its first address outside the executable mappings ("[truncated]").
 */
#ifndef SH_PROF_NAMES_H
#define SH_PROF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "schedhist_profile.h"
#include "model/stacks.h"

/* One frame, for JSON and pprof. */
struct pframe {
	char *name;		/* "func", "module+0xOFF", "[unknown]+0xADDR", a marker */
	char *source;		/* its source file where the ELF names one, else NULL */
	char *path;		/* user frames: the mapped file, NULL if none */
	const char *build_id;	/* user frames: its file's GNU build id (hex), NULL if none */
	__u64 addr;		/* the address walked; 0 for a marker ("[truncated]", ...) */
	__u64 map_start, map_limit, map_pgoff; /* user frames: the mapping (0s if none) */
};

/* A kernel stack's names, shared by every entry with its id. */
struct kstack_names {
	__u64 id;
	char *folded;		/* "f1_[k];...;fn_[k]", outermost first */
	struct pframe *fr;	/* outermost first */
	size_t n;
	struct kstack_names *next;
};

/* An entry's stacks, named. */
struct named_stack {
	char *folded;			/* "comm;user...;kernel..._[k]" */
	struct pframe *uf;		/* user frames, outermost first */
	size_t nuser;
	const struct kstack_names *ks;	/* kernel frames; NULL: not taken */
	bool truncated;			/* the user stack was cut */
	bool ulost, klost;		/* a stack that did not fit, or is gone */
};

struct prof_names;

/* Names from @ks (kept by the caller) and the stack maps @kfd and @ufd. NULL: no memory. */
struct prof_names *pn_new(const struct ksyms *ks, int kfd, int ufd);
void pn_free(struct prof_names *pn);
/* The symbolizer's cache (the exec watcher and the sandbox set it up). */
struct sym_cache *pn_sym(struct prof_names *pn);
/* Read the maps of process @tgid now (-p: before its first wait). */
void pn_process(struct prof_names *pn, __u32 tgid);

/* Name the stacks of the entry @k into @out. 0, or -1 (no memory). */
int pn_name(struct prof_names *pn, const struct sh_prof_key *k, struct named_stack *out);
void pn_stack_free(struct named_stack *s);

/* Processes, tgids reused, execve()s and ELF files the symbolizer saw. */
void pn_sym_counts(const struct prof_names *pn, size_t *procs, size_t *reused, size_t *execs,
		   size_t *files);

#endif /* SH_PROF_NAMES_H */
