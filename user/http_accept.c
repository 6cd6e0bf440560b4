// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* HTTP content negotiation of GET /metrics: the Accept header (http_server.h):
 * OpenMetrics or the classic text format, and the protobuf exposition. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_server.h"

/* One media range of an Accept header: raises the quality found for either format. */
static void accept_range(const char *p, size_t len, double *q_om, double *q_text)
{
	char buf[256], *save = NULL, *tok, *type;
	bool om = false, text = false, version_ok = true;
	double q = 1.0;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, p, len);
	buf[len] = '\0';
	type = strtok_r(buf, ";", &save);
	if (!type)
		return;
	while (isspace((unsigned char)*type))
		type++;
	for (tok = type + strlen(type); tok > type && isspace((unsigned char)tok[-1]);)
		*--tok = '\0';
	if (!strcasecmp(type, "application/openmetrics-text"))
		om = true;
	else if (!strcasecmp(type, "text/plain") || !strcasecmp(type, "text/*") ||
		 !strcmp(type, "*/*"))
		text = true;
	else
		return;
	while ((tok = strtok_r(NULL, ";", &save))) {
		char *eq, *val, *end;

		while (isspace((unsigned char)*tok))
			tok++;
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		val = eq + 1;
		for (end = eq; end > tok && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		while (isspace((unsigned char)*val))
			val++;
		for (end = val + strlen(val); end > val && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!strcasecmp(tok, "q")) {
			q = strtod(val, &end);
			if (*end || q < 0 || q > 1)
				q = 0;
		} else if (!strcasecmp(tok, "version")) {
			version_ok = om ? !strcmp(val, "1.0.0") : !strcmp(val, "0.0.4");
		}
	}
	if (!version_ok)
		return;
	if (om && q > *q_om)
		*q_om = q;
	if (text && q > *q_text)
		*q_text = q;
}

bool http_accept_openmetrics(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *p = accept, *comma;

	if (!accept)
		return false;
	for (; *p; p = comma + 1) {
		comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		accept_range(p, (size_t)(comma - p), &q_om, &q_text);
		if (!*comma)
			break;
	}
	return q_om > 0 && q_om >= q_text;
}

/* Trim ASCII blanks at both ends, in place. */
static char *pb_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	for (end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	return s;
}

/* One media range: raises the quality found for protobuf or for the text formats. */
static void pb_accept_range(const char *p, size_t len, double *q_pb, double *q_text)
{
	char buf[256], *save = NULL, *tok, *type;
	bool pb = false, proto_ok = false, delimited = false, version_ok = true;
	bool om = false;
	double q = 1.0;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, p, len);
	buf[len] = '\0';
	type = strtok_r(buf, ";", &save);
	if (!type)
		return;
	type = pb_trim(type);
	if (!strcasecmp(type, "application/vnd.google.protobuf"))
		pb = true;
	else if (!strcasecmp(type, "application/openmetrics-text"))
		om = true;
	else if (strcasecmp(type, "text/plain") && strcasecmp(type, "text/*") &&
		 strcmp(type, "*/*"))
		return;
	while ((tok = strtok_r(NULL, ";", &save))) {
		char *eq = strchr(tok, '='), *val, *end;

		if (!eq)
			continue;
		*eq = '\0';
		val = pb_trim(eq + 1);
		tok = pb_trim(tok);
		if (!strcasecmp(tok, "q")) {
			q = strtod(val, &end);
			if (*end || q < 0 || q > 1)
				q = 0;
		} else if (pb && !strcasecmp(tok, "proto")) {
			proto_ok = !strcmp(val, "io.prometheus.client.MetricFamily");
		} else if (pb && !strcasecmp(tok, "encoding")) {
			delimited = !strcmp(val, "delimited");
		} else if (!pb && !strcasecmp(tok, "version")) {
			version_ok = om ? !strcmp(val, "1.0.0") : !strcmp(val, "0.0.4");
		}
	}
	if (pb) {
		if (proto_ok && delimited && q > *q_pb)
			*q_pb = q;
	} else if (version_ok && q > *q_text) {
		*q_text = q;
	}
}

bool http_accept_protobuf(const char *accept)
{
	double q_pb = 0, q_text = 0;
	const char *p = accept, *comma;

	if (!accept)
		return false;
	for (; *p; p = comma + 1) {
		comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		pb_accept_range(p, (size_t)(comma - p), &q_pb, &q_text);
		if (!*comma)
			break;
	}
	return q_pb > 0 && q_pb >= q_text;
}
