/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --culprits: reads the kernel's culprit map (per (waiting key, key of the
 * task that held the CPU when the wait ended): count and sum of run-queue
 * waits), diffs it like the key map, and gives each group of a runq
 * report its culprits, largest first: at most SH_CULPRIT_TOP and [rest].
 */
#ifndef SH_CULPRITS_H
#define SH_CULPRITS_H

#include <stdbool.h>
#include <stddef.h>
#include "schedhist.h"

struct report;
struct report_group;
struct cgroups;

/* Pairs per batch read of the culprit map. */
#define SH_CULPRIT_BATCH 128

/* Culprits shown per key before [rest]. */
#define SH_CULPRIT_TOP 5

/* One culprit of one group, in a report. */
struct culprit {
	char *name;			/* display key, as a group's ("[rest]", "[idle]") */
	const char *comm;		/* pid/tid keys: the culprit's name, else NULL */
	char commbuf[SH_COMM_LEN];
	/*
	 * --culprit-mode switch: the waits that ended behind it, and their
	 * sum; time: its runs during the waits, and the time it ran in them
	 */
	__u64 count;
	__u64 sum_ns;
};

/*
 * A group's culprits: n of them, the last one [rest] when rest is set;
 * --culprit-mode time: [unattributed] after the top and before [rest].
 */
struct culprit_list {
	size_t n;
	bool rest;
	int mode;			/* enum sh_culprit_mode: what count and sum_ns are */
	struct culprit c[SH_CULPRIT_TOP + 2];
};

/* The poller's copy of one kernel pair. */
struct cpair {
	struct sh_culprit_key key;
	struct cpair *next;		/* hash chain */
	__u64 raw_count, raw_sum;	/* last reading, summed over CPUs */
	__u64 d_count, d_sum;		/* this interval */
	__u64 c_count, c_sum;		/* since start */
	char comm[SH_COMM_LEN];
	__u32 gen;			/* reading it was last seen in */
	__u32 acc_gen;			/* reading being summed in acc_* */
	__u64 acc_count, acc_sum;	/* the reading: map value plus CPUs' cache entries */
	bool gone;			/* removed from the kernel map (idle) */
	bool cached;			/* in a CPU's pair cache at the last reading */
	bool acc_cached;		/* ... in this one */
};

struct culprits {
	struct cpair **table;
	size_t nbuckets, npairs;
	bool cumulative;		/* reports since start: keep removed pairs' totals */
	int mode;			/* enum sh_culprit_mode (culprits_init(): switch) */
	__u32 gen;
	struct sh_culprit_key *keys;	/* batch buffers (the map is shared: one value a key) */
	struct sh_culprit_val *vals;
	bool no_batch;
	struct cpair **sorted;	/* attach scratch: pairs by waiter */
	size_t sorted_cap;
	struct culprit_list *lists;	/* one per group of the last attach */
	size_t nlists, lists_cap;
	__u64 lost_raw;			/* culprit_lost, summed over CPUs, at the last reading */
	__u64 lost;			/* ... this interval */
};

int culprits_init(struct culprits *c, bool cumulative);
void culprits_free(struct culprits *c);

/*
 * Feed pair values directly (the unit tests' way in, and read's): @vals
 * is the value of the pair @key (the culprit map is shared by the CPUs:
 * one value).
 */
int culprits_ingest(struct culprits *c, const struct sh_culprit_key *key,
		    const struct sh_culprit_val *val, bool final);

/*
 * One reading: culprits_begin(), then culprits_add() for every pair of
 * the culprit map (@cached false, @val its value) and every non-empty
 * entry of every CPU's pair cache (@cached true),
 * then culprits_end(): a pair's total is the sum of what was added for
 * it. The map is read before the caches, so a count the kernel moves from
 * a cache to the map in between is added at the next reading, never twice.
 */
void culprits_begin(struct culprits *c);
int culprits_add(struct culprits *c, const struct sh_culprit_key *key,
		 const struct sh_culprit_val *val, bool cached);
void culprits_end(struct culprits *c);

/*
 * Give each non-synthetic group of runq report @r its culprit list
 * (g->culprits), naming culprit keys as the report names its keys
 * (cgroups through @cg, may be NULL).
 */
int culprits_attach(struct culprits *c, struct report *r, struct cgroups *cg, __u64 gen);

/* Every culprit of every group of a report, group after group (culprits_every()). */
struct culprit_set {
	struct culprit *c;		/* names point into @names; comm unset */
	size_t n, cap;
	size_t *first;			/* group i's culprits: c[first[i]] to c[first[i + 1]] */
	size_t ngroups, groups_cap;
	char *names;			/* every name, NUL-terminated, one after the other */
	size_t names_len, names_cap;
};

/*
 * Every culprit, not only the top: each non-synthetic group of report @r
 * (cgroups named through @cg, may be NULL) gets its culprits of this
 * interval in @set, largest sum first, named as culprits_attach() names
 * them, without [rest]. Interval deltas whatever @c's span; call between
 * a reading and culprits_sweep(). 0, or -1 when out of memory.
 */
int culprits_every(struct culprits *c, const struct report *r, struct cgroups *cg,
		   __u64 gen, struct culprit_set *set);
/* Group @group's culprits in @set (*@n of them). */
const struct culprit *culprit_set_of(const struct culprit_set *set, size_t group, size_t *n);
void culprit_set_free(struct culprit_set *set);

/*
 * Removes a pair from the kernel map, its final value into @val,
 * atomically: 0, or a negative errno (nothing removed).
 */
typedef int (*culprit_remove_fn)(void *ctx, const struct sh_culprit_key *key,
				 struct sh_culprit_val *val);

/*
 * After the report: remove the pairs that did not change this interval
 * with @remove(@ctx, ...) (their final values count in the next
 * interval), so the kernel map holds the pairs in use; @remove NULL:
 * the poller's side only (the pair is taken as removed). A pair in a
 * CPU's pair cache at the last reading stays: part of its total is
 * there, and a removal would count it again.
 */
void culprits_sweep(struct culprits *c, culprit_remove_fn remove, void *ctx);

#endif /* SH_CULPRITS_H */
