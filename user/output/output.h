/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The outputs the poll loop feeds (outputs.c): the reports on stdout
 * (text or JSON), the heatmap, the Prometheus exporter. Each is one
 * struct output behind the same three calls, so the loop is a walk of
 * a list and a new output touches one module and the list in main.
 */
#ifndef SH_OUTPUT_H
#define SH_OUTPUT_H

#include <stdbool.h>
#include "model/report.h"
#include "model/snapshot.h"
#include "model/cgroup.h"
#include "model/culprits.h"
#include "kernel/extra_read.h"

/* What one report tick hands every output. */
struct tick {
	const struct report *reps;	/* one report per metric measured, in enum order */
	struct snapshot *snaps;	/* the snapshots they were built from (as many) */
	int n;				/* metrics measured */
	struct cgroups *cg;		/* cgroup names learnt so far, or NULL (the
					 * exporter names the culprits of every key) */
	struct culprits *culprits;	/* --culprits: this interval's pairs, else NULL */
	const struct cause_table *causes;	/* --causes: the keys' causes, else NULL */
	struct extras *extras;	/* the stack map and symbols, for extras_stacks() */
};

/* What an output's emit() asks of the loop. */
enum out_status {
	OUT_OK = 0,	/* go on */
	OUT_DONE,	/* nobody reads it any more: end after this tick, quietly */
	OUT_FAILED,	/* failed (said why): end after this tick, exit status 1 */
	OUT_FATAL,	/* failed (said why, e.g. out of memory): end now, exit status 1 */
};

struct output {
	const char *name;		/* for messages: "stdout", "--heatmap", "exporter" */
	void *ctx;			/* the output's own state */
	/*
	 * Once attached, privileges final (@as_user: the user switched to,
	 * NULL if none): the first write, which tells at once whether it
	 * works. NULL, or 0 / an exit code after printing why.
	 */
	int (*start)(void *ctx, const char *as_user);
	/* After each report tick. */
	enum out_status (*emit)(void *ctx, const struct tick *t);
	/* Free everything (also after a failed set-up or start). */
	void (*close)(void *ctx);
};

#endif /* SH_OUTPUT_H */
