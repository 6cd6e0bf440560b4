/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* HTTP content negotiation of GET /metrics: which exposition an Accept header asks for. */
#ifndef SH_HTTP_ACCEPT_H
#define SH_HTTP_ACCEPT_H

#include <stdbool.h>

/*
 * Content negotiation: does this Accept header value ask for OpenMetrics
 * 1.0.0 (application/openmetrics-text, version 1.0.0 or unspecified) at
 * least as much as for the text format? NULL (no header) is no.
 */
bool http_accept_openmetrics(const char *accept);

/*
 * Does @accept (an Accept header, or NULL) ask for the protobuf exposition
 * (application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
 * encoding=delimited) at least as much as for a text format?
 */
bool http_accept_protobuf(const char *accept);

#endif /* SH_HTTP_ACCEPT_H */
