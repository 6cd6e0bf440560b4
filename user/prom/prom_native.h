/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Prometheus native histograms (the protobuf exposition): one native series per key, mapped
 * exactly from the grid (bucket 0 the zero bucket, j the native j + SH_NATIVE_INDEX0).
 */
#ifndef SH_PROM_NATIVE_H
#define SH_PROM_NATIVE_H

#include <stdbool.h>
#include <stdio.h>
#include "prom/render_prom.h"

#define PROM_TYPE_PROTOBUF \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; " \
	"encoding=delimited"

/*
 * Write @nviews views as length-delimited MetricFamily messages. 0, or non-zero (write or memory).
 */
int render_prom_native(FILE *f, const struct prom_view *views, size_t nviews);

#endif /* SH_PROM_NATIVE_H */
