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
 * Read culprit map @fd, then the pair caches and culprit_lost of per-CPU array @pcpu_fd:
 * in that order a count moved meanwhile is seen next reading, never twice. 0 or -errno.
 */
int culprits_read(struct culprits *c, int fd, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus);
void culprits_sweep_map(struct culprits *c, int fd);

/* After the reports: the keys snapshot @s pruned lose their stack entry too. */
void stacks_prune(int fd, struct snapshot *s);

/* --causes: a reading of cause map @fd (one value per key) into @t. 0 or a negative errno. */
int causes_read(struct cause_table *t, int fd, bool fresh);
/* After the reports: pruned keys lose their kernel cause entry, and @t's copy unless kept. */
void causes_prune(struct cause_table *t, int fd, struct snapshot *s);

struct extras {
	bool culprits, stacks, causes;	/* which are on */
	int culprit_fd, stack_fd, cause_fd;
	struct cause_table ctab;
	struct culprits cul;
	struct ksyms ksyms;
};

/* Set up what is on; --stacks loads kernel symbols: call before the privilege drop. 0 or -1. */
int extras_init(struct extras *x, bool culprits, int culprit_mode, bool stacks, bool causes,
		bool cumulative, int culprit_fd, int stack_fd, int cause_fd);
/* Each reading, after the key map's: culprits, pair caches, causes (@fresh: a new interval). */
int extras_read(struct extras *x, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus, bool fresh);
/* What tick_build() takes from them: the tables read, the symbols, the stack map's reader. */
struct tick_sources extras_sources(struct extras *x);
/* After the reports: idle culprit pairs and pruned keys' stacks out of the maps. */
void extras_done(struct extras *x, struct snapshot *snaps, int n);
void extras_free(struct extras *x);

#endif /* SH_EXTRA_READ_H */
