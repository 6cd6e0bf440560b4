/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --listen: pages served by libmicrohttpd in its own thread. The poller swaps each reading's
 * pages in under a mutex; a scrape sends its referenced copy unlocked, never a half-updated page.
 */
#ifndef SH_HTTP_SERVER_H
#define SH_HTTP_SERVER_H

#include <pthread.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "prom/listen_addr.h"
#include "prom/http_accept.h"

/*
 * Limits against hostile clients (slowloris): a new connection always gets in, closing its
 * address's or everyone's oldest (incomplete first); each request has HTTP_REQUEST_TIMEOUT_S.
 */
#define HTTP_MAX_CONNECTIONS 64		/* open at once, all addresses */
#define HTTP_MAX_PER_IP 16		/* open at once, from one address */
#define HTTP_HARD_LIMIT 256		/* libmicrohttpd refuses beyond: bounds the fds */
#define HTTP_REQUEST_TIMEOUT_S 10	/* a whole request and its response */
#define HTTP_TIMEOUT_S 10		/* an idle connection is closed */
#define HTTP_MEMORY_LIMIT (16 * 1024)	/* per connection: caps request headers */
/* /healthz fails once this many intervals pass without a reading: the poller is stuck */
#define HTTP_STALE_READINGS 3

/* The pages served. */
enum http_page_id {
	HTTP_PAGE_TEXT = 0,		/* /metrics, Prometheus text format */
	HTTP_PAGE_OPENMETRICS = 1,	/* /metrics, OpenMetrics */
	HTTP_PAGE_LIVE = 2,		/* "/", the live page */
	HTTP_PAGE_PROTOBUF = 3,		/* /metrics, the protobuf exposition (native histograms) */
	HTTP_PAGE_LIVE_JSON = 4,	/* /live.json, the live page's table */
	HTTP_PAGE_NR
};

struct http_page;
struct http_conn;
struct MHD_Daemon;

struct http_server {
	int fd;				/* the listening socket, -1 when none */
	struct MHD_Daemon *daemon;	/* NULL until http_start() */
	pthread_mutex_t lock;		/* guards @page and the pages' references */
	struct http_page *page[HTTP_PAGE_NR];	/* the current ones, by enum http_page_id */
	char where[96];			/* "127.0.0.1:9464", for messages */
	__u64 read_ns;			/* CLOCK_MONOTONIC of the last reading's page (@lock), 0: none */
	__u64 stale_ns;			/* /healthz: a reading older than this is stale; 0: never */
	/* the connections, for the limits above (under @conn_lock) */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;	/* wakes the reaper to stop */
	struct http_conn *oldest;	/* in the order they came */
	struct http_conn *newest;
	unsigned int nconns;		/* open, not closed by us yet */
	bool stopping;			/* the reaper ends */
	bool reaping;			/* the reaper runs */
	pthread_t reaper;		/* closes the connections past their deadline */
};

/* Bind and listen on @a (before privileges are dropped). 0 or -1 after printing why. */
int http_bind(struct http_server *h, const struct listen_addr *a);

/* Serve in libmicrohttpd's thread; /healthz 200 while readings are fresh, else 503. 0 or -1. */
int http_start(struct http_server *h);

/*
 * Copies of @text and @om become the pages served from now on (out of memory: the old stay).
 * Each page has its own mapping, unmapped after its last response: no heap holes.
 */
void http_publish(struct http_server *h, const char *text, size_t text_len, const char *om,
		  size_t om_len);

/* Copies of @html and @json served at "/" and /live.json from now on, as http_publish(). */
void http_publish_live(struct http_server *h, const char *html, size_t len, const char *json,
		       size_t json_len);

/* Stop serving (waits for the server thread) and free everything. */
void http_stop(struct http_server *h);

/* A copy of @pb served to scrapers that ask for protobuf, as http_publish(); else text. */
void http_publish_protobuf(struct http_server *h, const char *pb, size_t pb_len);

/* The pages just published hold a real reading: /healthz answers 200 from now on. */
void http_reading_done(struct http_server *h);

#endif /* SH_HTTP_SERVER_H */
