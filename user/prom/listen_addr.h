/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --listen ADDR:PORT, parsed without any network access (numeric
 * addresses only, plus "localhost"). A bare "PORT" or ":PORT" binds the
 * loopback address 127.0.0.1: serving anywhere else must be asked for.
 */
#ifndef SH_LISTEN_ADDR_H
#define SH_LISTEN_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage ss;	/* the address to bind */
	socklen_t len;			/* its length */
	char text[80];			/* "127.0.0.1:9464", "[::1]:9464": for messages */
};

/*
 * Parse "PORT", ":PORT", "IPV4:PORT", "localhost:PORT" or "[IPV6]:PORT"
 * (PORT 1-65535). 0, or -1 with the reason in @err.
 */
int listen_addr_parse(const char *s, struct listen_addr *a, char *err, size_t errlen);

#endif /* SH_LISTEN_ADDR_H */
