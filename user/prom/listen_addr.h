/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* --listen ADDR:PORT, parsed without network access; a bare PORT binds 127.0.0.1 only. */
#ifndef SH_LISTEN_ADDR_H
#define SH_LISTEN_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage ss;	/* the address to bind */
	socklen_t len;			/* its length */
	char text[80];			/* "127.0.0.1:9464", "[::1]:9464": for messages */
};

/* Parse "PORT", ":PORT", "IPV4:PORT", "localhost:PORT", "[IPV6]:PORT". 0, or -1 and @err. */
int listen_addr_parse(const char *s, struct listen_addr *a, char *err, size_t errlen);

#endif /* SH_LISTEN_ADDR_H */
