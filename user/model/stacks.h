/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* --stacks: each key's longest wait's kernel stack (bpf/maxstack.bpf.h), symbolized. */
#ifndef SH_STACKS_H
#define SH_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "schedhist.h"

struct ksym {
	__u64 addr;
	const char *name;	/* "func" or "func [module]" */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
	char *names;		/* one block holding every name */
};

/* Load @path's (/proc/kallsyms) text symbols before any privilege drop. 0 or -1. */
int ksyms_load(struct ksyms *k, const char *path);
int ksyms_parse(struct ksyms *k, const char *text);
void ksyms_free(struct ksyms *k);

/* @addr as "func+0x1a/0x40" into @buf; "0x..." when no symbol covers it. */
void ksyms_format(const struct ksyms *k, __u64 addr, char *buf, size_t len);

struct frames {
	size_t n;
	char f[SH_STACK_DEPTH][128];
};

/*
 * FNV-1a of @s's symbolized frames (each with its NUL): the same id in JSON and exemplars,
 * across readings and hosts of one kernel build (addresses differ by KASLR). 16 hex digits.
 */
__u64 frames_id(const struct frames *s);

struct report;

struct stacks_state {
	struct sh_stacks val, again;	/* a key's value, read twice (stacks_attach()) */
	struct frames *frames;	/* one per group of the last attach */
	size_t cap;
};

void stacks_init(struct stacks_state *st);
void stacks_free(struct stacks_state *st);

/*
 * Each group of @r gets its max wait's stack from @lookup (0 or -errno), read twice: the kernel
 * writes in place, so used only if both readings match that max. Only two epochs kept. 0 or -1.
 */
typedef int (*stack_lookup_fn)(void *ctx, const struct sh_key *key, struct sh_stacks *val);

int stacks_attach(struct stacks_state *st, stack_lookup_fn lookup, void *ctx,
		  const struct ksyms *k, struct report *r);

#endif /* SH_STACKS_H */
