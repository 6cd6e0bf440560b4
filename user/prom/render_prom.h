/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Prometheus text exposition of the series table; families and labels: schedhist(8)'s contract. */
#ifndef SH_RENDER_PROM_H
#define SH_RENDER_PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "prom/prom_series.h"

#define PROM_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define PROM_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Classic lines per key: an "le" per power of two at any schema (+Inf last), _sum, _count. */
#define PROM_LINES_PER_KEY (SH_NBUCKETS(0) + 2)

/*
 * Write @nviews views (one per metric) as text 0.0.4, or OpenMetrics 1.0.0 with "# EOF";
 * series by key, [other] last. 0, or non-zero (write or memory).
 */
int render_prom(FILE *f, const struct prom_view *views, size_t nviews, bool openmetrics);

#endif /* SH_RENDER_PROM_H */
