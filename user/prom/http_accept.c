// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* HTTP content negotiation of GET /metrics (http_accept.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom/http_accept.h"

/* The formats an Accept header can ask for, by the quality it gives each. */
enum { ACC_TEXT, ACC_OPENMETRICS, ACC_PROTOBUF, ACC_NR };

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	for (end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	return s;
}

/*
 * One media range: raise @q of the format it names (text/plain and its wildcards: classic text)
 * if its parameters fit what schedhist serves.
 */
static void accept_range(const char *p, size_t len, double q[ACC_NR])
{
	char buf[256], *save = NULL, *tok, *type;
	bool version_ok = true, proto_ok = false, delimited = false;
	double qv = 1.0;
	int kind;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, p, len);
	buf[len] = '\0';
	type = strtok_r(buf, ";", &save);
	if (!type)
		return;
	type = trim(type);
	if (!strcasecmp(type, "application/vnd.google.protobuf"))
		kind = ACC_PROTOBUF;
	else if (!strcasecmp(type, "application/openmetrics-text"))
		kind = ACC_OPENMETRICS;
	else if (!strcasecmp(type, "text/plain") || !strcasecmp(type, "text/*") ||
		 !strcmp(type, "*/*"))
		kind = ACC_TEXT;
	else
		return;
	while ((tok = strtok_r(NULL, ";", &save))) {
		char *eq = strchr(tok, '='), *val, *end;

		if (!eq)
			continue;
		*eq = '\0';
		val = trim(eq + 1);
		tok = trim(tok);
		if (!strcasecmp(tok, "q")) {
			qv = strtod(val, &end);
			if (*end || qv < 0 || qv > 1)
				qv = 0;
		} else if (kind == ACC_PROTOBUF && !strcasecmp(tok, "proto")) {
			proto_ok = !strcmp(val, "io.prometheus.client.MetricFamily");
		} else if (kind == ACC_PROTOBUF && !strcasecmp(tok, "encoding")) {
			delimited = !strcmp(val, "delimited");
		} else if (kind != ACC_PROTOBUF && !strcasecmp(tok, "version")) {
			version_ok = kind == ACC_OPENMETRICS ? !strcmp(val, "1.0.0")
							     : !strcmp(val, "0.0.4");
		}
	}
	if (kind == ACC_PROTOBUF ? !(proto_ok && delimited) : !version_ok)
		return;
	if (qv > q[kind])
		q[kind] = qv;
}

/* The quality @accept (or NULL) gives each format: 0 for those it does not name. */
static void accept_qualities(const char *accept, double q[ACC_NR])
{
	const char *p = accept, *comma;

	q[ACC_TEXT] = q[ACC_OPENMETRICS] = q[ACC_PROTOBUF] = 0;
	if (!accept)
		return;
	for (; *p; p = comma + 1) {
		comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		accept_range(p, (size_t)(comma - p), q);
		if (!*comma)
			break;
	}
}

bool http_accept_openmetrics(const char *accept)
{
	double q[ACC_NR];

	accept_qualities(accept, q);
	return q[ACC_OPENMETRICS] > 0 && q[ACC_OPENMETRICS] >= q[ACC_TEXT];
}

bool http_accept_protobuf(const char *accept)
{
	double q[ACC_NR];

	accept_qualities(accept, q);
	return q[ACC_PROTOBUF] > 0 && q[ACC_PROTOBUF] >= q[ACC_TEXT] &&
	       q[ACC_PROTOBUF] >= q[ACC_OPENMETRICS];
}
