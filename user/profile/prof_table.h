/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile's table: the poller's copy of every profile map entry, read
 * every second (an entry is named when first seen, while its process
 * runs), and the kernel's counters. What gone processes left in the
 * kernel is removed there (table_gc()): their entries (kept here, so no
 * report loses them) and then the stacks that no entry left in the
 * kernel references and no walk took recently (a wait in flight).
 */
#ifndef SH_PROF_TABLE_H
#define SH_PROF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "schedhist_profile.h"
#include "profile/prof_names.h"

#define PROF_BUCKETS 4096

/* One profile map entry as the poller knows it. */
struct entry {
	struct sh_prof_key k;
	struct sh_prof_val cur;		/* at the last reading */
	struct sh_prof_val base;	/* at the last report (0 for --cumulative) */
	struct sh_prof_val carry;	/* of the kernel entry removed, if the key comes back */
	struct named_stack ns;
	bool in_kernel;			/* not removed from the map */
	bool moved;			/* its count moved at the last reading */
	struct entry *next;		/* hash chain */
};

struct prof_table {
	struct entry *tab[PROF_BUCKETS];
	struct entry **all;		/* every entry, in order of first sight */
	size_t n, cap;
	int prof_fd, kfd, ufd, cnt_fd, ncpus;
	struct prof_names *names;
	int (*open_stat)(void *arg, __u32 tgid); /* /proc/TGID/stat read-only: an fd or -errno */
	void *open_arg;
	struct sh_prof_counters cnt, cnt_base;
	__u64 gc_last_ns;		/* the last stack GC */
	__u64 removed, kremoved, uremoved; /* entries and stacks removed from the kernel */
	size_t nstacks[2];		/* kernel and user stacks in the maps at the last GC */
};

/* Read the profile map and the counters into @t. 0 or -errno. */
int table_read(struct prof_table *t);
/*
 * Remove from the kernel the entries of gone processes and threads (their
 * counts kept here), then, at most every @period_ns, the stacks that no
 * entry left there references and that no walk took within @period_ns
 * of @now (bpf_ktime_get_ns()). 0 or -errno.
 */
int table_gc(struct prof_table *t, __u64 now, __u64 period_ns);
void table_free(struct prof_table *t);

#endif /* SH_PROF_TABLE_H */
