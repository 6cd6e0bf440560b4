/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The outputs the poll loop feeds: the reports on stdout (text or JSON),
 * the heatmap (outputs.c), the live view (live.c), the exporter and the
 * live page (prom/prom_outputs.c). Each is one struct output behind the
 * same three calls, each reads the one struct tick (model/tick.h), so
 * the loop is a walk of a list and a new output touches one module and
 * the list in main.
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
	/*
	 * Once attached, privileges final (@as_user: the user switched to,
	 * NULL if none): the first write, which tells at once whether it
	 * works. NULL, or 0 / an exit code after printing why.
	 */
	int (*start)(void *ctx, const char *as_user);
	/* After each report tick: @t's reports, read only. */
	enum out_status (*emit)(void *ctx, const struct tick *t);
	/* Free everything (also after a failed set-up or start). */
	void (*close)(void *ctx);
};

#endif /* SH_OUTPUT_H */
