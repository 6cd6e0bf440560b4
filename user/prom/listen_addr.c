// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --listen: ADDR:PORT to a socket address; loopback unless told otherwise. */
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "prom/listen_addr.h"
#include "lib/parse.h"

#define LOOPBACK "127.0.0.1"

static int fail(char *err, size_t n, const char *s, const char *why)
{
	snprintf(err, n, "invalid --listen '%s': %s", s, why);
	return -1;
}

/* A numeric host of family @family (AF_INET or AF_INET6) into @a. */
static int resolve(const char *host, int family, unsigned int port, struct listen_addr *a)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res;
	char name[INET6_ADDRSTRLEN + 32];
	struct in_addr v4;

	/* getaddrinfo() takes the old inet_aton() forms ("1.2.3"): dotted quads only */
	if (family == AF_INET && inet_pton(AF_INET, host, &v4) != 1)
		return -1;
	if (getaddrinfo(host, NULL, &hints, &res))
		return -1;
	if (res->ai_addrlen > sizeof(a->ss)) {
		freeaddrinfo(res);
		return -1;
	}
	memset(&a->ss, 0, sizeof(a->ss));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	if (family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons((unsigned short)port);
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons((unsigned short)port);
	if (getnameinfo((struct sockaddr *)&a->ss, a->len, name, sizeof(name), NULL, 0,
			NI_NUMERICHOST))
		return -1;
	snprintf(a->text, sizeof(a->text), family == AF_INET6 ? "[%s]:%u" : "%s:%u", name, port);
	return 0;
}

int listen_addr_parse(const char *s, struct listen_addr *a, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 32];
	const char *port_s, *colon;
	size_t hlen;
	__u64 port;
	int family = AF_INET;

	memset(a, 0, sizeof(*a));
	if (!s || !*s)
		return fail(err, errlen, s ? s : "", "empty address");
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return fail(err, errlen, s, "want [IPV6]:PORT, e.g. [::1]:9464");
		hlen = (size_t)(close - s - 1);
		if (hlen >= sizeof(host))
			return fail(err, errlen, s, "address too long");
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		port_s = close + 2;
		family = AF_INET6;
	} else if ((colon = strrchr(s, ':'))) {
		if (strchr(s, ':') != colon)
			return fail(err, errlen, s, "IPv6 addresses go in brackets, e.g. [::1]:9464");
		hlen = (size_t)(colon - s);
		if (hlen >= sizeof(host))
			return fail(err, errlen, s, "address too long");
		memcpy(host, s, hlen);
		host[hlen] = '\0';
		port_s = colon + 1;
	} else {
		host[0] = '\0';
		port_s = s;
	}
	if (parse_u64(port_s, 1, 65535, &port))
		return fail(err, errlen, s, "the port must be a number from 1 to 65535");
	/* the default is loopback: any other address must be written out */
	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "%s", LOOPBACK);
	if (resolve(host, family, (unsigned int)port, a))
		return fail(err, errlen, s,
			    family == AF_INET6 ? "not a numeric IPv6 address"
					       : "not a numeric IPv4 address (or localhost)");
	return 0;
}
