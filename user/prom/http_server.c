// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The /metrics endpoint on libmicrohttpd: routing, negotiation, page swaps. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "lib/clock.h"
#include "prom/http_server.h"
#include "lib/names.h"
#include "prom/render_prom.h"
#include "prom/prom_native.h"
#include "lib/log.h"
#include "lib/util.h"

#define LISTEN_BACKLOG 64
#define REAP_PERIOD_NS (NSEC_PER_SEC / 4)	/* how often deadlines are checked */

struct http_conn {
	struct http_conn *older, *newer;	/* arrival order */
	int fd;
	struct sockaddr_storage peer;		/* address and port */
	socklen_t peer_len;
	unsigned long long deadline_ns;		/* CLOCK_MONOTONIC: the request ends by then */
	bool answering;				/* its request is complete */
	bool closed;				/* shut down by us; libmicrohttpd closes it next */
};

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * NSEC_PER_SEC + (unsigned long long)ts.tv_nsec;
}

static bool same_ip(const struct http_conn *a, const struct http_conn *b)
{
	if (a->peer.ss_family != b->peer.ss_family)
		return false;
	if (a->peer.ss_family == AF_INET)
		return ((const struct sockaddr_in *)&a->peer)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&b->peer)->sin_addr.s_addr;
	if (a->peer.ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)&a->peer)->sin6_addr,
			       &((const struct sockaddr_in6 *)&b->peer)->sin6_addr,
			       sizeof(struct in6_addr));
	return true;
}

/*
 * Shut @c's socket down so libmicrohttpd's thread closes it; the entry goes (NOTIFY_CLOSED,
 * same lock) before the fd does, and the peer check guards reuse. Under conn_lock.
 */
static void conn_end(struct http_server *h, struct http_conn *c)
{
	struct sockaddr_storage now;
	socklen_t len = sizeof(now);

	if (c->closed)
		return;
	if (!getpeername(c->fd, (struct sockaddr *)&now, &len) && len == c->peer_len &&
	    !memcmp(&now, &c->peer, len))
		shutdown(c->fd, SHUT_RDWR);
	c->closed = true;
	h->nconns--;
}

static struct http_conn *oldest(struct http_server *h, const struct http_conn *ip)
{
	struct http_conn *c, *any = NULL;

	for (c = h->oldest; c; c = c->newer) {
		if (c->closed || (ip && !same_ip(c, ip)))
			continue;
		if (!c->answering)
			return c;
		if (!any)
			any = c;
	}
	return any;
}

/* A new connection, @c: make room under the limits, oldest first. Under conn_lock. */
static void admit(struct http_server *h, struct http_conn *c)
{
	struct http_conn *o;
	unsigned int n = 0;

	for (o = h->oldest; o; o = o->newer)
		if (!o->closed && same_ip(o, c))
			n++;
	c->older = h->newest;
	if (h->newest)
		h->newest->newer = c;
	else
		h->oldest = c;
	h->newest = c;
	h->nconns++;
	if (n >= HTTP_MAX_PER_IP && (o = oldest(h, c)) && o != c)
		conn_end(h, o);
	if (h->nconns > HTTP_MAX_CONNECTIONS && (o = oldest(h, NULL)) && o != c)
		conn_end(h, o);
}

static void conn_unlink(struct http_server *h, struct http_conn *c)
{
	if (c->older)
		c->older->newer = c->newer;
	else
		h->oldest = c->newer;
	if (c->newer)
		c->newer->older = c->older;
	else
		h->newest = c->older;
	if (!c->closed)
		h->nconns--;
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *h = cls;
	struct http_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd, *addr;

		c = calloc(1, sizeof(*c));
		fd = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
		addr = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (!c || !fd || !addr || !addr->client_addr) {
			/* out of memory: not tracked, the idle timeout still applies */
			free(c);
			*socket_context = NULL;
			return;
		}
		c->fd = fd->connect_fd;
		c->peer_len = addr->client_addr->sa_family == AF_INET6 ?
			      sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
		memcpy(&c->peer, addr->client_addr, c->peer_len);
		c->deadline_ns = mono_ns() + HTTP_REQUEST_TIMEOUT_S * NSEC_PER_SEC;
		pthread_mutex_lock(&h->conn_lock);
		admit(h, c);
		pthread_mutex_unlock(&h->conn_lock);
		*socket_context = c;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && c) {
		pthread_mutex_lock(&h->conn_lock);
		conn_unlink(h, c);
		pthread_mutex_unlock(&h->conn_lock);
		free(c);
		*socket_context = NULL;
	}
}

static struct http_conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* A request answered in full: the next one on this connection gets its own time. */
static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;
	struct http_conn *c = conn_of(mc);

	if (!c)
		return;
	pthread_mutex_lock(&h->conn_lock);
	c->answering = false;
	c->deadline_ns = mono_ns() + HTTP_REQUEST_TIMEOUT_S * NSEC_PER_SEC;
	pthread_mutex_unlock(&h->conn_lock);
}

/* Ends the connections whose request ran out of time, however active. */
static void *reaper_main(void *arg)
{
	struct http_server *h = arg;
	struct timespec ts;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
		unsigned long long now = mono_ns(), next = now + REAP_PERIOD_NS;
		struct http_conn *c;

		for (c = h->oldest; c; c = c->newer)
			if (!c->closed && c->deadline_ns <= now)
				conn_end(h, c);
		ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
		ts.tv_nsec = (long)(next % NSEC_PER_SEC);
		pthread_cond_timedwait(&h->conn_cond, &h->conn_lock, &ts);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return NULL;
}

/*
 * A rendered exposition shared with responses in flight: its own mapping, this header, then the
 * bytes.
 */
struct http_page {
	char *data;			/* right after the header */
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
	if (p && !--p->refs)
		munmap(p, sizeof(*p) + p->len);
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

/* Send page @which (HTTP_PAGE_*) as @type; *@none: there is none yet (nothing sent). */
static enum MHD_Result send_page(struct http_server *h, struct MHD_Connection *c, int which,
				 const char *type, bool *none)
{
	struct MHD_Response *r;
	struct http_page *p;
	enum MHD_Result ret;

	pthread_mutex_lock(&h->lock);
	p = h->page[which];
	if (p)
		p->refs++;
	pthread_mutex_unlock(&h->lock);
	*none = !p;
	if (!p)
		return MHD_NO;
	r = MHD_create_response_from_buffer_with_free_callback_cls(p->len, p->data, response_done,
								   p);
	if (!r) {
		response_done(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_index(struct http_server *h, struct MHD_Connection *c)
{
	bool none;
	enum MHD_Result ret = send_page(h, c, HTTP_PAGE_LIVE, "text/html; charset=utf-8", &none);

	return none ? send_static(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_html, false)
		    : ret;
}

static enum MHD_Result send_live_json(struct http_server *h, struct MHD_Connection *c)
{
	bool none;
	enum MHD_Result ret = send_page(h, c, HTTP_PAGE_LIVE_JSON, "application/json", &none);

	return none ? send_static(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
				  "not found: no live page\n", false) : ret;
}

static enum MHD_Result send_metrics(struct http_server *h, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool om = http_accept_openmetrics(accept), none;
	enum MHD_Result ret;

	if (http_accept_protobuf(accept)) {
		ret = send_page(h, c, HTTP_PAGE_PROTOBUF, PROM_TYPE_PROTOBUF, &none);
		if (!none)
			return ret;
	}
	ret = send_page(h, c, om ? HTTP_PAGE_OPENMETRICS : HTTP_PAGE_TEXT,
			om ? PROM_TYPE_OPENMETRICS : PROM_TYPE_TEXT, &none);

	return none ? send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
				  "no reading yet\n", false) : ret;
}

/*
 * /healthz for readiness probes: ready after the first published reading, not while readings stop.
 */
static enum MHD_Result send_healthz(struct http_server *h, struct MHD_Connection *c)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned int status = MHD_HTTP_OK;
	char body[128];
	__u64 at, age;
	int n;

	pthread_mutex_lock(&h->lock);
	at = h->read_ns;
	pthread_mutex_unlock(&h->lock);
	age = at ? now_ns() - at : 0;
	if (!at) {
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
		n = snprintf(body, sizeof(body), "starting: attached, no reading yet\n");
	} else if (h->stale_ns && age > h->stale_ns) {
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
		n = snprintf(body, sizeof(body), "stale: last reading %.1f s ago (%d intervals)\n",
			     age / 1e9, HTTP_STALE_READINGS);
	} else {
		n = snprintf(body, sizeof(body), "ok: last reading %.1f s ago\n", age / 1e9);
	}
	r = MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct http_server *h = cls;
	struct http_conn *hc;

	if (!*req_cls && (hc = conn_of(c))) {
		pthread_mutex_lock(&h->conn_lock);
		hc->answering = true;
		pthread_mutex_unlock(&h->conn_lock);
	}
	*req_cls = h;
	/* answered at once, on the headers: a request body is never read */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return send_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				   "method not allowed: use GET\n", true);
	if (!strcmp(url, "/metrics"))
		return send_metrics(h, c);
	if (!strcmp(url, "/"))
		return send_index(h, c);
	if (!strcmp(url, "/healthz"))
		return send_healthz(h, c);
	if (!strcmp(url, "/live.json"))
		return send_live_json(h, c);
	return send_static(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			   "not found: the metrics are at /metrics, readiness at /healthz\n", false);
}

/* libmicrohttpd's complaints (bad requests, limits hit): only with -vv. */
__attribute__((format(printf, 2, 0)))
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	if (log_level() < SH_LOG_DEBUG)
		return;
	fputs("schedhist: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

int http_bind(struct http_server *h, const struct listen_addr *a)
{
	pthread_condattr_t ca;
	int one = 1, err;

	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->conn_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->conn_cond, &ca);
	pthread_condattr_destroy(&ca);
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
	pthread_sigmask(SIG_BLOCK, &block, &old);	/* the reaper's too */
	h->daemon = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, h->fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_HARD_LIMIT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_END);
	if (h->daemon && !pthread_create(&h->reaper, NULL, reaper_main, h)) {
		/* libmicrohttpd names its thread ("MHD-single"): top -H tells all three apart */
		pthread_setname_np(h->reaper, "schedhist-reap");
		h->reaping = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon || !h->reaping) {
		pr_warn("cannot start the HTTP server on %s (%s; -vv says why)\n", h->where,
			h->daemon ? "no thread for the request deadlines" : "libmicrohttpd refused");
		return -1;
	}
	/* libmicrohttpd owns the socket now and closes it when stopped */
	h->fd = -1;
	return 0;
}

static struct http_page *new_page(struct http_server *h, const char *data, size_t len)
{
	struct http_page *p = mmap(NULL, sizeof(*p) + len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p->data = (char *)(p + 1);
	if (len)
		memcpy(p->data, data, len);
	p->len = len;
	p->refs = 1;
	p->owner = h;
	return p;
}

void http_publish(struct http_server *h, const char *text, size_t text_len, const char *om,
		  size_t om_len)
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

void http_reading_done(struct http_server *h)
{
	__u64 t = now_ns();

	pthread_mutex_lock(&h->lock);
	h->read_ns = t;
	pthread_mutex_unlock(&h->lock);
}

void http_publish_protobuf(struct http_server *h, const char *pb, size_t pb_len)
{
	struct http_page *fresh = new_page(h, pb, pb_len), *old;

	if (!fresh)
		return;	/* out of memory: keep serving the previous reading */
	pthread_mutex_lock(&h->lock);
	old = h->page[HTTP_PAGE_PROTOBUF];
	h->page[HTTP_PAGE_PROTOBUF] = fresh;
	page_unref(old);
	pthread_mutex_unlock(&h->lock);
}

static void publish_one(struct http_server *h, int which, const char *data, size_t len)
{
	struct http_page *fresh = new_page(h, data, len), *old;

	if (!fresh)
		return;
	pthread_mutex_lock(&h->lock);
	old = h->page[which];
	h->page[which] = fresh;
	page_unref(old);
	pthread_mutex_unlock(&h->lock);
}

void http_publish_live(struct http_server *h, const char *html, size_t len, const char *json,
		       size_t json_len)
{
	publish_one(h, HTTP_PAGE_LIVE, html, len);
	publish_one(h, HTTP_PAGE_LIVE_JSON, json, json_len);
}

void http_stop(struct http_server *h)
{
	int i;

	if (h->reaping) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = true;
		pthread_cond_signal(&h->conn_cond);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->reaper, NULL);
		h->reaping = false;
	}
	/* closes every connection: their entries go with MHD_CONNECTION_NOTIFY_CLOSED */
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	h->daemon = NULL;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	for (i = 0; i < HTTP_PAGE_NR; i++) {
		page_unref(h->page[i]);
		h->page[i] = NULL;
	}
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->conn_lock);
	pthread_cond_destroy(&h->conn_cond);
}
