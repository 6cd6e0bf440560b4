/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The Prometheus series table: monotone series named by key label, at most @limit
 * of them, the rest in [other]; docs/fleet.md has the rules (admission, withdrawal).
 */
#ifndef SH_PROM_SERIES_H
#define SH_PROM_SERIES_H

#include <stdbool.h>
#include "model/report.h"
#include "model/culprits.h"
#include "prom/prom_family.h"

#define PROM_OTHER "[other]"

/* How long a withdrawn name is remembered: Prometheus' default lookback (5 minutes). */
#define PROM_REMEMBER_NS (300ULL * 1000000000ULL)

#define PROM_CULPRIT_REST "[rest]"

/* --culprits: one sticky culprit of a series (at most SH_CULPRIT_TOP; the rest to [rest]). */
struct prom_culprit {
	char *name;			/* the culprit label */
	__u64 count, sum_ns;		/* the key's waits behind it since it was admitted */
};

/* The last interval's exact longest wait of a series, and its task (the kernel's sh_max). */
struct prom_max {
	__u64 ns;			/* longest wait, ns; 0: none */
	__u32 tid;			/* who had it */
	char comm[SH_COMM_LEN];
	bool has_stack;			/* --stacks: its stack was captured ... */
	__u64 stack_id;			/* ... and has this id (frames_id()) */
	struct timespec when;		/* the reading's wall clock (report::when) */
	__u64 update;			/* prom_view_update() call it belongs to */
};

/* Key names up to this long live inside their series' pool entry. */
#define PROM_KEY_INLINE 96

struct prom_series {
	char *key;			/* the key label: @key_inline, or malloc()ed */
	struct totals t;		/* its waits since it was first exported */
	__u64 seen;			/* last update in which a kernel key had this name */
	__u64 admitted;			/* update in which it was (re)admitted */
	__u64 withdrawn_ns;		/* when it was last withdrawn (the reading's wall clock) */
	bool exported;			/* false: withdrawn, remembered in case it returns */
	struct prom_max max;		/* the last interval's exact max */
	struct prom_culprit culprits[SH_CULPRIT_TOP];	/* --culprits: admitted, in order */
	size_t nculprits;
	bool has_rest;			/* culprit [rest] exported (once any culprit data came) */
	__u64 rest_count, rest_sum_ns;	/* culprit [rest] */
	struct cgstat cg;		/* -k cgroup: cpu.stat / cpu.pressure deltas summed
					 * since it was first exported; has_*: ever known */
	bool has_causes;		/* --causes: @causes has data */
	struct cause_sums causes;	/* its waits by cause since it was first exported */
	struct prom_series *next;	/* hash chain */
	struct prom_series *older;	/* withdrawn list, oldest first */
	struct prom_series *newer;
	char key_inline[PROM_KEY_INLINE];
	__u64 bucket_store[];		/* @t's buckets, sh_nb */
};

struct prom_view {
	int metric;			/* enum sh_metric */
	int key_type;			/* enum sh_key_type */
	__u32 limit;			/* names exported under their own label */
	struct prom_series **table;	/* every remembered name, by hash */
	size_t nbuckets;		/* hash buckets, a power of two */
	size_t nexported;		/* names exported now (<= limit) */
	size_t nwithdrawn;		/* withdrawn names remembered (<= limit) */
	__u64 remember_ns;		/* how long a withdrawn name is remembered
					 * (0: until @limit newer ones are) */
	struct prom_series *oldest;	/* withdrawn list */
	struct prom_series *newest;
	struct prom_series *free_series;	/* the series' pool (prom_series.c): entries to reuse, */
	char **blocks;			/* ... in these blocks of PROM_SERIES_PER_BLOCK */
	size_t nblocks;
	struct totals other;		/* key="[other]" (every key type but none) */
	__u64 other_buckets[SH_NBUCKETS_MAX];	/* its buckets (one set per view) */
	struct prom_max other_max;	/* its last interval's exact max */
	__u64 stats[SH_STAT_NR];	/* event counters since start */
	__u64 live_keys;		/* keys in the kernel map at the last update */
	struct kmem_usage kmem;		/* the kernel maps' memory */
	__u64 updates;			/* prom_view_update() calls */
	bool culprits;			/* export the culprit families (--culprits, runq) */
	bool causes;			/* export the cause family (--causes, runq) */
	bool stacks;			/* export schedhist_stacks_lost_total (--stacks) */
	bool other_has_causes;		/* key="[other]"'s causes have data */
	struct cause_sums other_causes;
	int culprit_mode;		/* ... with this label culprit_mode (enum sh_culprit_mode) */
};

/* An empty view; key "none" exports its one series ("all") at once. */
int prom_view_init(struct prom_view *v, int metric, int key_type, __u32 limit);

/* Forget withdrawn names @ns after withdrawal (by the readings' wall clock). */
void prom_view_remember(struct prom_view *v, __u64 ns);
void prom_view_free(struct prom_view *v);

/* Add a reading's @interval deltas and @since_start totals (top 0, before pruned keys go). 0/-1. */
int prom_view_update(struct prom_view *v, const struct report *interval,
		     const struct report *since_start);

/* --culprits, after prom_view_update(): group @key's culprits @in[0..n) to its series. 0 or -1. */
int prom_view_culprits(struct prom_view *v, const char *key, __u64 count, __u64 sum_ns,
		       const struct culprit *in, size_t n);

/* --causes: @fn(@ctx, label, causes) for each exported series in label order, then [other]. */
typedef int (*prom_cause_fn)(void *ctx, const char *key, const struct cause_sums *c);
int prom_view_causes(const struct prom_view *v, prom_cause_fn fn, void *ctx);

bool prom_series_cgstat(const struct prom_series *s, int f, __u64 *val);

size_t prom_series_culprits(const struct prom_series *s, struct prom_culprit out[SH_CULPRIT_TOP + 1]);

/* The interval max gauge of @m: false when the last interval had no wait there. */
bool prom_max_now(const struct prom_view *v, const struct prom_max *m);

/* Has family @f a sample in the @nv views? (Some families are left out while empty.) */
bool prom_family_present(const struct prom_view *views, size_t nv, int f);

/* Histogram series exported now (names plus [other]), PROM_LINES_PER_KEY lines each. */
size_t prom_view_series(const struct prom_view *v);

struct prom_series **prom_view_sorted(const struct prom_view *v, size_t *n);

#endif /* SH_PROM_SERIES_H */
