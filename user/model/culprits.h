/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --culprits: the kernel's culprit map (waiting key, key that held the CPU) diffed like the
 * key map; each runq group gets its largest culprits: SH_CULPRIT_TOP and [rest].
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

struct culprit {
	char *name;			/* display key, as a group's ("[rest]", "[idle]") */
	const char *comm;		/* pid/tid keys: the culprit's name, else NULL */
	char commbuf[SH_COMM_LEN];
	/* switch mode: the waits ended behind it, their sum; time: its runs in the waits. */
	__u64 count;
	__u64 sum_ns;
};

/* A group's n culprits: the last [rest] if rest; --culprit-mode time: [unattributed] before it. */
struct culprit_list {
	size_t n;
	bool rest;
	int mode;			/* enum sh_culprit_mode: what count and sum_ns are */
	struct culprit c[SH_CULPRIT_TOP + 2];
};

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

/* Feed the value of pair @key directly (the unit tests' way in, and read's): one shared value. */
int culprits_ingest(struct culprits *c, const struct sh_culprit_key *key,
		    const struct sh_culprit_val *val, bool final);

/*
 * One reading: begin, add every pair of the map (@cached false) then of every CPU's cache,
 * end. Map before caches: a count moved between them counts next reading, never twice.
 */
void culprits_begin(struct culprits *c);
int culprits_add(struct culprits *c, const struct sh_culprit_key *key,
		 const struct sh_culprit_val *val, bool cached);
void culprits_end(struct culprits *c);

/* Give each non-synthetic group of runq report @r its culprit list, named as @r names keys. */
int culprits_attach(struct culprits *c, struct report *r, struct cgroups *cg, __u64 gen);

struct culprit_set {
	struct culprit *c;		/* names point into @names; comm unset */
	size_t n, cap;
	size_t *first;			/* group i's culprits: c[first[i]] to c[first[i + 1]] */
	size_t ngroups, groups_cap;
	char *names;			/* every name, NUL-terminated, one after the other */
	size_t names_len, names_cap;
};

/*
 * Every culprit of this interval of each non-synthetic group of @r into @set, largest first,
 * without [rest]; call between a reading and culprits_sweep(). 0, or -1 when out of memory.
 */
int culprits_every(struct culprits *c, const struct report *r, struct cgroups *cg,
		   __u64 gen, struct culprit_set *set);
/* Group @group's culprits in @set (*@n of them). */
const struct culprit *culprit_set_of(const struct culprit_set *set, size_t group, size_t *n);
void culprit_set_free(struct culprit_set *set);

/* Removes a pair from the kernel map, its final value into @val, atomically: 0 or -errno. */
typedef int (*culprit_remove_fn)(void *ctx, const struct sh_culprit_key *key,
				 struct sh_culprit_val *val);

/*
 * After the report: remove the pairs unchanged this interval (final values count next time);
 * @remove NULL: poller side only. A pair seen in a CPU's cache stays (it would count twice).
 */
void culprits_sweep(struct culprits *c, culprit_remove_fn remove, void *ctx);

#endif /* SH_CULPRITS_H */
