/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Map I/O of --culprits, --stacks and --causes: the only place they touch kernel maps. */
#ifndef SH_EXTRA_READ_H
#define SH_EXTRA_READ_H

#include "model/culprits.h"
#include "model/stacks.h"
#include "model/causes.h"
#include "model/tick.h"

struct snapshot;

/*
 * A reading of culprit map @fd, then of the pair caches and culprit_lost
 * counters of per-CPU array @pcpu_fd (into @pcpu, @ncpus of them): in
 * that order, a count the kernel moves from a cache to the map meanwhile
 * is seen at the next reading, never twice (schedhist.h). Its u64 values
 * never wrap. 0 or a negative errno.
 */
int culprits_read(struct culprits *c, int fd, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus);
/* culprits_sweep() removing idle pairs from map @fd. */
void culprits_sweep_map(struct culprits *c, int fd);

/* After the reports: the keys snapshot @s pruned lose their stack entry too. */
void stacks_prune(int fd, struct snapshot *s);

/* --causes: a reading of cause map @fd (one value per key) into @t. 0 or a negative errno. */
int causes_read(struct cause_table *t, int fd, bool fresh);
/*
 * After the reports: the keys snapshot @s pruned lose their kernel cause
 * entry, and their copy in @t unless the snapshot keeps them.
 */
void causes_prune(struct cause_table *t, int fd, struct snapshot *s);

/* Everything --culprits, --stacks and --causes keep between readings. */
struct extras {
	bool culprits, stacks, causes;	/* which are on */
	int culprit_fd, stack_fd, cause_fd;
	struct cause_table ctab;
	struct culprits cul;
	struct ksyms ksyms;
};

/*
 * Set up what is on (@culprit_mode: enum sh_culprit_mode; @cumulative:
 * reports since start; the maps' fds). Loads the
 * kernel's symbols for --stacks: call before privileges are dropped. 0, or -1 after saying why.
 */
int extras_init(struct extras *x, bool culprits, int culprit_mode, bool stacks, bool causes,
		bool cumulative, int culprit_fd, int stack_fd, int cause_fd);
/*
 * At every reading, after the key map's: the culprit map, then the pair
 * caches of per-CPU array @pcpu_fd (read into @pcpu); the cause map
 * (@fresh: the interval's first reading). 0 or a negative errno.
 */
int extras_read(struct extras *x, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus, bool fresh);
/* What tick_build() takes from them: the tables read, the symbols, the stack map's reader. */
struct tick_sources extras_sources(struct extras *x);
/* After the reports: idle culprit pairs and pruned keys' stacks out of the maps. */
void extras_done(struct extras *x, struct snapshot *snaps, int n);
void extras_free(struct extras *x);

#endif /* SH_EXTRA_READ_H */
