// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The /metrics endpoint on libmicrohttpd: routing, negotiation, page swaps. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "http_server.h"
#include "render_prom.h"
#include "log.h"

#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

#define LISTEN_BACKLOG 64

/* A rendered exposition, shared by the server and the responses in flight. */
struct http_page {
	char *data;
	size_t len;
	unsigned int refs;		/* under @owner's lock */
	struct http_server *owner;
};

static const char index_html[] =
	"<!DOCTYPE html>\n"
	"<html><head><meta charset=\"utf-8\"><title>schedhist</title></head>\n"
	"<body><h1>schedhist " SCHEDHIST_VERSION "</h1>\n"
	"<p>Task wait-time histograms from eBPF, for Prometheus: "
	"<a href=\"/metrics\">/metrics</a></p>\n"
	"</body></html>\n";

static void page_unref(struct http_page *p)
{
	if (p && !--p->refs) {
		free(p->data);
		free(p);
	}
}

/* libmicrohttpd frees a response's buffer through this. */
static void response_done(void *cls)
{
	struct http_page *p = cls;
	struct http_server *h = p->owner;

	pthread_mutex_lock(&h->lock);
	page_unref(p);
	pthread_mutex_unlock(&h->lock);
}

static enum MHD_Result send_static(struct MHD_Connection *c, unsigned int status,
				   const char *type, const char *body, bool allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_metrics(struct http_server *h, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool om = prom_accept_openmetrics(accept);
	struct MHD_Response *r;
	struct http_page *p;
	enum MHD_Result ret;

	pthread_mutex_lock(&h->lock);
	p = h->page[om];
	if (p)
		p->refs++;
	pthread_mutex_unlock(&h->lock);
	if (!p)
		return send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
				   "no reading yet\n", false);
	r = MHD_create_response_from_buffer_with_free_callback_cls(p->len, p->data, response_done,
								   p);
	if (!r) {
		response_done(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? PROM_TYPE_OPENMETRICS : PROM_TYPE_TEXT);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct http_server *h = cls;

	/* answered at once, on the headers: a request body is never read */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return send_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				   "method not allowed: use GET\n", true);
	if (!strcmp(url, "/metrics"))
		return send_metrics(h, c);
	if (!strcmp(url, "/"))
		return send_static(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_html, false);
	return send_static(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			   "not found: the metrics are at /metrics\n", false);
}

/* libmicrohttpd's complaints (bad requests, limits hit): only with -vv. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	if (sh_log_level < SH_LOG_DEBUG)
		return;
	fputs("schedhist: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

int http_bind(struct http_server *h, const struct listen_addr *a)
{
	int one = 1, err;

	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	snprintf(h->where, sizeof(h->where), "%s", a->text);
	h->fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0) {
		pr_warn("cannot create a socket for --listen %s: %s\n", h->where, strerror(errno));
		return -1;
	}
	/* a restart must not wait for the old connections' TIME_WAIT */
	setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->fd, (const struct sockaddr *)&a->ss, a->len) ||
	    listen(h->fd, LISTEN_BACKLOG)) {
		err = errno;
		pr_warn("cannot listen on %s: %s%s\n", h->where, strerror(err),
			err == EADDRINUSE ? " (is another exporter running on that port?)" :
			err == EACCES ? " (ports below 1024 need CAP_NET_BIND_SERVICE)" :
			err == EADDRNOTAVAIL ? " (no such local address)" : "");
		close(h->fd);
		h->fd = -1;
		return -1;
	}
	return 0;
}

int http_start(struct http_server *h)
{
	sigset_t block, old;

	/* the server thread inherits this mask: stop signals go to the poller */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	h->daemon = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		pr_warn("cannot start the HTTP server on %s (libmicrohttpd refused; -vv says why)\n",
			h->where);
		return -1;
	}
	/* libmicrohttpd owns the socket now and closes it when stopped */
	h->fd = -1;
	return 0;
}

static struct http_page *new_page(struct http_server *h, char *data, size_t len)
{
	struct http_page *p = calloc(1, sizeof(*p));

	if (!p) {
		free(data);
		return NULL;
	}
	p->data = data;
	p->len = len;
	p->refs = 1;
	p->owner = h;
	return p;
}

void http_publish(struct http_server *h, char *text, size_t text_len, char *om, size_t om_len)
{
	struct http_page *fresh[2] = { new_page(h, text, text_len), new_page(h, om, om_len) };
	struct http_page *old[2];
	int i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < 2; i++) {
		/* out of memory: keep serving the previous reading */
		old[i] = fresh[i] ? h->page[i] : NULL;
		if (fresh[i])
			h->page[i] = fresh[i];
		page_unref(old[i]);
	}
	pthread_mutex_unlock(&h->lock);
}

void http_stop(struct http_server *h)
{
	int i;

	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	h->daemon = NULL;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	for (i = 0; i < 2; i++) {
		page_unref(h->page[i]);
		h->page[i] = NULL;
	}
	pthread_mutex_destroy(&h->lock);
}
