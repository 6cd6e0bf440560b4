/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Prometheus exposition (--listen, --prom-file) of the series table
 * (prom_series.h). The metric families and labels are a contract,
 * defined in schedhist(8), section OUTPUT.
 */
#ifndef SH_RENDER_PROM_H
#define SH_RENDER_PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "prom/prom_series.h"

/* Content types of the two formats. */
#define PROM_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define PROM_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * Series lines per exported key, classic: one "le" bucket per power of
 * two at any schema, SH_NBUCKETS(0) (the last one +Inf), _sum, _count.
 */
#define PROM_LINES_PER_KEY (SH_NBUCKETS(0) + 2)

/*
 * Write the exposition of @nviews views (one per metric measured, each
 * family holding the series of all of them): the text format 0.0.4, or
 * OpenMetrics 1.0.0 (ending with "# EOF") when @openmetrics. Series are
 * sorted by key, [other] last. 0, or non-zero if writing to @f failed or memory ran out.
 */
int render_prom(FILE *f, const struct prom_view *views, size_t nviews, bool openmetrics);

#endif /* SH_RENDER_PROM_H */
