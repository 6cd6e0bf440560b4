/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --stacks: the kernel stack captured with each key's longest wait (see
 * the stack map in bpf/maxstack.bpf.h), symbolized from /proc/kallsyms
 * as "function+0xoff/0xsize", innermost first.
 */
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

/* The kernel's symbols, sorted by address. */
struct ksyms {
	struct ksym *syms;
	size_t n;
	char *names;		/* one block holding every name */
};

/*
 * Load the text symbols of @path (/proc/kallsyms). Must run with the
 * privileges that show real addresses (before any drop). 0 or -1.
 */
int ksyms_load(struct ksyms *k, const char *path);
/* The text of a kallsyms file (the unit tests' way in). */
int ksyms_parse(struct ksyms *k, const char *text);
void ksyms_free(struct ksyms *k);

/* @addr as "func+0x1a/0x40" into @buf; "0x..." when no symbol covers it. */
void ksyms_format(const struct ksyms *k, __u64 addr, char *buf, size_t len);

/* One group's stack in a report. */
struct frames {
	size_t n;
	char f[SH_STACK_DEPTH][128];
};

/*
 * The id of stack @s: FNV-1a of its symbolized frames, each with its
 * terminating NUL, so the same stack has the same id in JSON
 * (max_stack_id) and in the Prometheus exemplars, across readings and
 * across hosts of the same kernel build (addresses would differ with
 * KASLR). Written as 16 lower-case hex digits.
 */
__u64 frames_id(const struct frames *s);

struct report;

/* Per metric: the frames of the groups of its last report. */
struct stacks_state {
	struct sh_stacks val, again;	/* a key's value, read twice (stacks_attach()) */
	struct frames *frames;	/* one per group of the last attach */
	size_t cap;
};

void stacks_init(struct stacks_state *st);
void stacks_free(struct stacks_state *st);

/*
 * Each group of @r gets the stack of its max wait (g->max_stack), from
 * the stack map's value of its key that @lookup(@ctx, key, val) reads
 * (one value, shared by the CPUs; 0 or a negative errno), twice: the
 * kernel writes it in place, so a stack is used when both readings hold
 * the one of that max, the same, not being written. The map keeps the
 * stacks of the last two epochs (readings), so a max from an earlier
 * reading of a long interval (-i above SH_READ_PERIOD_S) may have none.
 * 0 or -1 (no memory).
 */
typedef int (*stack_lookup_fn)(void *ctx, const struct sh_key *key, struct sh_stacks *val);

int stacks_attach(struct stacks_state *st, stack_lookup_fn lookup, void *ctx,
		  const struct ksyms *k, struct report *r);

#endif /* SH_STACKS_H */
