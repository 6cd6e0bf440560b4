/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fleet mode's outputs: the exporter and its live page. An open fills @out for out->close() even on
 * failure.
 */
#ifndef SH_PROM_OUTPUTS_H
#define SH_PROM_OUTPUTS_H

#include "output/output.h"
#include "output/live_page.h"
#include "prom/exporter.h"

/* Fleet mode (--listen, --prom-file); *@x is the exporter, for the live page. */
int exporter_output_open(struct output *out, const struct exporter_spec *sp,
			 struct exporter **x);

/* The live page at "/" of --listen, served by @x's HTTP server (opened before it). */
int live_page_output_open(struct output *out, const struct live_page_spec *sp,
			  struct exporter *x);

#endif /* SH_PROM_OUTPUTS_H */
