/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Prometheus native histograms: the protobuf exposition (--listen), one
 * native series of the grid's schema (--schema) per key instead of the classic 43 (41 le
 * buckets, _sum, _count). The grid of schedhist.h makes the mapping exact:
 * bucket 0 is the native zero bucket (threshold 2^-20 s: the waits up to
 * it), bucket j >= 1 the native bucket of index j + SH_NATIVE_INDEX0
 * (the last one, above 2^19 s, index 20: exact up to 2^20 s).
 * The same view (render_prom.h) as the text formats: same families, series,
 * labels and help texts, only the histogram is native.
 */
#ifndef SH_PROM_NATIVE_H
#define SH_PROM_NATIVE_H

#include <stdbool.h>
#include <stdio.h>
#include "prom/render_prom.h"

/* The content type, as Prometheus asks for it and checks it. */
#define PROM_TYPE_PROTOBUF \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; " \
	"encoding=delimited"

/*
 * Write the exposition of @nviews views: length-delimited
 * io.prometheus.client.MetricFamily messages. 0, or non-zero if writing to
 * @f failed or memory ran out.
 */
int render_prom_native(FILE *f, const struct prom_view *views, size_t nviews);

#endif /* SH_PROM_NATIVE_H */
