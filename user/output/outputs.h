/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The outputs of the poll loop (output.h), each opened before anything
 * is loaded (a bad path or a closed stdout fails at once). Every open
 * fills @out so that out->close() frees what it made, also after a
 * failure. 0, or an exit code after printing why.
 */
#ifndef SH_OUTPUTS_H
#define SH_OUTPUTS_H

#include <stdbool.h>
#include "output/output.h"
#include "output/render.h"
#include "output/heatmap.h"
#include "prom/exporter.h"
#include "output/live_page.h"

/* The reports on stdout: text (@sp), or JSON Lines with @json. */
int print_output_open(struct output *out, const struct render_spec *sp, bool json);

/* The SVG heatmap of the first metric measured. */
int heatmap_output_open(struct output *out, const struct heatmap_spec *sp);

/*
 * Fleet mode (--listen, --prom-file); *@x is the exporter, for the
 * privilege drop (exporter_drop()) between attaching and starting.
 */
int exporter_output_open(struct output *out, const struct exporter_spec *sp,
			 struct exporter **x);

/*
 * The live page at "/" of --listen (live_page.h), served by @x's HTTP
 * server (opened before it in the list).
 */
int live_page_output_open(struct output *out, const struct live_page_spec *sp,
			  struct exporter *x);

#endif /* SH_OUTPUTS_H */
