/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The outputs the poll loop feeds (stdout, heatmap, live view, exporter, live page): each a
 * struct output behind three calls, reading one struct tick; a new one touches its module and main.
 */
#ifndef SH_OUTPUT_H
#define SH_OUTPUT_H

#include <stdbool.h>
#include "model/tick.h"

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
	/* Once attached, privileges final (@as_user): first write. May be NULL; 0 or exit code. */
	int (*start)(void *ctx, const char *as_user);
	/* After each report tick: @t's reports, read only. */
	enum out_status (*emit)(void *ctx, const struct tick *t);
	/* Free everything (also after a failed set-up or start). */
	void (*close)(void *ctx);
};

#endif /* SH_OUTPUT_H */
