/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --listen: GET /metrics over HTTP, served by libmicrohttpd in its own
 * thread. The poller publishes each reading's pages, copied onto
 * mappings of their own, and swaps them in under a mutex; a scrape takes
 * a reference to the current ones and sends them without holding the
 * lock, so scrapes never block the poller and a slow client never sees a
 * half-updated page.
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
 * Limits that keep hostile or broken clients (slowloris: many connections
 * that send their request a byte at a time, or nothing) from harming the
 * collector or locking out the scrapes. A new connection always gets in:
 * when its address already has HTTP_MAX_PER_IP connections, or all
 * addresses together HTTP_MAX_CONNECTIONS, the oldest one is closed
 * (first those whose request is still incomplete), so a scraper that
 * sends its request at once is answered whatever the others do. Each
 * request, from its connection's start or the end of the previous
 * response to the end of its own response, has HTTP_REQUEST_TIMEOUT_S in
 * all, however busy the client keeps it.
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

/*
 * Serve, in libmicrohttpd's thread: /metrics, "/" and /healthz (200 once
 * a reading is published and while the last is younger than @stale_ns,
 * else 503 with the reason). 0 or -1 after printing why.
 */
int http_start(struct http_server *h);

/*
 * Make copies of @text (the text format) and @om (OpenMetrics) the pages
 * served from now on; out of memory, the previous ones stay. Each page
 * has a mapping of its own (with its header), unmapped when its last
 * response is sent: pages of changing sizes made every reading left holes
 * in the heap, which long-lived small objects then pinned.
 */
void http_publish(struct http_server *h, const char *text, size_t text_len, const char *om,
		  size_t om_len);

/*
 * Make copies of @html and @json the pages served at "/" and /live.json
 * from now on (the live page and its table, live_page.h), as
 * http_publish(); until the first call "/" links to /metrics and
 * /live.json is not found.
 */
void http_publish_live(struct http_server *h, const char *html, size_t len, const char *json,
		       size_t json_len);

/* Stop serving (waits for the server thread) and free everything. */
void http_stop(struct http_server *h);

/*
 * Make a copy of @pb (the protobuf exposition) the page served to the
 * scrapers that ask for it (http_accept_protobuf()), as http_publish();
 * until the first one, and without it (--prom-classic), they get a text
 * format.
 */
void http_publish_protobuf(struct http_server *h, const char *pb, size_t pb_len);

/*
 * The pages just published hold a reading of the maps (not the zeros of
 * the start): /healthz answers 200 from now on, while they keep coming.
 */
void http_reading_done(struct http_server *h);

#endif /* SH_HTTP_SERVER_H */
