/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* HTTP content negotiation of GET /metrics: which exposition an Accept header asks for. */
#ifndef SH_HTTP_ACCEPT_H
#define SH_HTTP_ACCEPT_H

#include <stdbool.h>

/* Does @accept ask for OpenMetrics 1.0.0 at least as much as for the text format? NULL: no. */
bool http_accept_openmetrics(const char *accept);

/* Does @accept (or NULL) ask for the delimited protobuf exposition at least as much as for text? */
bool http_accept_protobuf(const char *accept);

#endif /* SH_HTTP_ACCEPT_H */
