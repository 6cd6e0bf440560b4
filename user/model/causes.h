/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --causes: the poller's copy of the kernel's cause map (each key's run-queue waits split by
 * cause), diffed per reading like the key map. Pure: kernel/extra_read.c does the I/O.
 */
#ifndef SH_CAUSES_H
#define SH_CAUSES_H

#include <stdbool.h>
#include <stddef.h>
#include "schedhist.h"

/* One key's causes, in a report: waited ns per cause and the waits split. */
struct cause_sums {
	__u64 ns[SH_CAUSE_NR];
	__u64 count;
};

/* The poller's copy of one kernel entry. */
struct cause_entry {
	struct sh_key key;
	struct cause_entry *next;	/* hash chain */
	struct cause_sums raw;	/* last reading */
	struct cause_sums d;	/* this interval (valid when gen is the table's) */
	struct cause_sums c;	/* since start */
	__u32 gen;			/* interval it was last read in */
};

struct cause_table {
	struct cause_entry **table;
	size_t nbuckets, n;		/* hash buckets (a power of two), entries */
	__u32 gen;			/* intervals so far */
};

int causes_init(struct cause_table *t);
void causes_free(struct cause_table *t);

/* A new reading (@fresh: an interval's first), then causes_ingest() for every kernel entry. */
void causes_begin(struct cause_table *t, bool fresh);
/* The value @val of key @key at this reading. 0, or -1 (no memory). */
int causes_ingest(struct cause_table *t, const struct sh_key *key, const struct sh_causes *val);
/* Forget key @key (its kernel entry is removed: the key is gone). */
void causes_forget(struct cause_table *t, const struct sh_key *key);

/* Key @k's causes since start or this interval's; NULL if none (not read, or no wait split). */
const struct cause_sums *causes_of(const struct cause_table *t, const struct sh_key *k,
				   bool since_start);
/* Every key's causes together, of the same span. */
void causes_total(const struct cause_table *t, bool since_start, struct cause_sums *all);
/* @to += @sign * @x (unsigned: a sum less the shown keys' is exact). */
void causes_add(const struct cause_sums *x, int sign, struct cause_sums *to);

#endif /* SH_CAUSES_H */
