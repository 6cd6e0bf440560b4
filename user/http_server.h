/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --listen: GET /metrics over HTTP, served by libmicrohttpd in its own
 * thread. The poller renders each reading into fresh buffers and swaps
 * them in under a mutex; a scrape takes a reference to the current ones
 * and sends them without holding the lock, so scrapes never block the
 * poller and a slow client never sees a half-updated page.
 */
#ifndef SH_HTTP_SERVER_H
#define SH_HTTP_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include "listen_addr.h"

/* Limits that keep hostile or broken clients from harming the collector. */
#define HTTP_MAX_CONNECTIONS 16		/* at once; more are refused */
#define HTTP_TIMEOUT_S 10		/* an idle or stalled connection is closed */
#define HTTP_MEMORY_LIMIT (16 * 1024)	/* per connection: caps request headers */

struct http_page;
struct MHD_Daemon;

struct http_server {
	int fd;				/* the listening socket, -1 when none */
	struct MHD_Daemon *daemon;	/* NULL until http_start() */
	pthread_mutex_t lock;		/* guards @page and the pages' references */
	struct http_page *page[2];	/* current text [0] and OpenMetrics [1] pages */
	char where[96];			/* "127.0.0.1:9464", for messages */
};

/* Bind and listen on @a (before privileges are dropped). 0 or -1 after printing why. */
int http_bind(struct http_server *h, const struct listen_addr *a);

/* Serve, in libmicrohttpd's thread. 0 or -1 after printing why. */
int http_start(struct http_server *h);

/*
 * Make @text (the text format) and @om (OpenMetrics), both malloc()ed,
 * the pages served from now on. Takes them over, even on failure.
 */
void http_publish(struct http_server *h, char *text, size_t text_len, char *om, size_t om_len);

/* Stop serving (waits for the server thread) and free everything. */
void http_stop(struct http_server *h);

#endif /* SH_HTTP_SERVER_H */
