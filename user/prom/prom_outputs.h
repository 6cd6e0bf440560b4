/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fleet mode's outputs (output.h): the exporter, and the live page its
 * HTTP server serves. Opened before anything is loaded; every open fills
 * @out so that out->close() frees what it made, also after a failure. 0,
 * or an exit code after printing why.
 */
#ifndef SH_PROM_OUTPUTS_H
#define SH_PROM_OUTPUTS_H

#include "output/output.h"
#include "output/live_page.h"
#include "prom/exporter.h"

/* Fleet mode (--listen, --prom-file); *@x is the exporter, for the live page. */
int exporter_output_open(struct output *out, const struct exporter_spec *sp,
			 struct exporter **x);

/*
 * The live page at "/" of --listen (live_page.h), served by @x's HTTP
 * server (opened before it in the list).
 */
int live_page_output_open(struct output *out, const struct live_page_spec *sp,
			  struct exporter *x);

#endif /* SH_PROM_OUTPUTS_H */
