/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --causes: the poller's copy of the kernel's cause map (per key, the
 * waited ns of its run-queue waits split by cause, schedhist.h enum
 * sh_cause), summed over CPUs and diffed per reading like the key map;
 * gives each group of a runq report its causes of the report's span.
 * Pure: extra_read.c does the map I/O.
 */
#ifndef SH_CAUSES_H
#define SH_CAUSES_H

#include <stdbool.h>
#include <stddef.h>
#include "schedhist.h"

struct sh_report;

/* One key's causes, in a report: waited ns per cause and the waits split. */
struct sh_cause_split {
	__u64 ns[SH_CAUSE_NR];
	__u64 count;
};

/* The poller's copy of one kernel entry. */
struct sh_cause_ent {
	struct sh_key key;
	struct sh_cause_ent *next;	/* hash chain */
	struct sh_cause_split raw;	/* last reading, summed over CPUs */
	struct sh_cause_split d;	/* this interval (valid when gen is the table's) */
	struct sh_cause_split c;	/* since start */
	__u32 gen;			/* interval it was last read in */
};

struct sh_causetab {
	struct sh_cause_ent **table;
	size_t nslots, n;
	__u32 gen;			/* intervals so far */
};

int causes_init(struct sh_causetab *t);
void causes_free(struct sh_causetab *t);

/*
 * A new reading (@fresh: the first of an interval; the poller also reads
 * between reports): causes_ingest() for every entry of the kernel map,
 * after this.
 */
void causes_begin(struct sh_causetab *t, bool fresh);
/* The @ncpus values @vals of key @key at this reading. 0, or -1 (no memory). */
int causes_ingest(struct sh_causetab *t, const struct sh_key *key, const struct sh_causes *vals,
		  int ncpus);
/* Forget key @key (its kernel entry is removed: the key is gone). */
void causes_forget(struct sh_causetab *t, const struct sh_key *key);

/*
 * Give every group of runq report @r its causes of the report's span
 * (sh_group::causes: the interval's, or since start with r->cumulative;
 * the table keeps both, so the exporter's interval deltas and cumulative
 * reports share it); zero for a key the kernel split no wait of; [rest]
 * those of every key not shown; [exited] none.
 */
void causes_attach(const struct sh_causetab *t, struct sh_report *r);

#endif /* SH_CAUSES_H */
