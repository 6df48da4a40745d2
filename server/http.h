/*
 * http.h - gq serve's HTTP front: listening sockets, one libmicrohttpd
 * daemon per address, requests handed to one handler as plain structs.
 *
 * This file is the only libmicrohttpd user. It knows nothing of the API's
 * paths or JSON (api.c does); it reads bodies up to a limit, tells the
 * handler which kind of socket the request came on and its descriptor (for
 * SO_PEERCRED), and sends what the handler answers.
 *
 * Connections are served one thread each, so a handler may block (the
 * events long-poll does); handlers run concurrently.
 *
 * Limits, so that one client cannot stall the others: a connection idle
 * for HTTP_TIMEOUT seconds is closed (a handler that waits, like the
 * long-poll, is not idle); each listener holds at most HTTP_MAX_CONNS
 * connections, and at most HTTP_MAX_PER_CLIENT from one client: one IP
 * address on TCP, one uid on a unix socket (answered 503 beyond it).
 * A client that trickles bytes (slowloris) keeps its connections, but only
 * its own share of them. On a unix socket at most HTTP_MAX_ACTIVE requests
 * of one uid are handled at once (a long poll, with "wait", not counted);
 * its others wait their turn, so that one user's heavy reads take at most
 * that many threads from the others.
 */
#ifndef GQ_SERVER_HTTP_H
#define GQ_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util.h"

#define HTTP_TIMEOUT 30
#define HTTP_MAX_CONNS 512
#define HTTP_MAX_PER_CLIENT 64
#define HTTP_MAX_ACTIVE 4

struct http_req {
	const char *method;
	const char *path; /* without the query string */
	const char *body; /* NUL-terminated; "" when none */
	size_t body_len;
	bool too_big; /* the body was over the limit and was dropped */
	bool unix_socket;
	int fd; /* the connection's socket */
	void *conn;
};

/* A query parameter or a header of req; NULL when absent. Borrowed for the
 * duration of the handler. */
const char *http_query(const struct http_req *req, const char *name);
const char *http_header(const struct http_req *req, const char *name);
/* Query parameter name as an integer in [min, max]; def when absent or
 * empty. -1 with GQ_EINVAL naming the parameter otherwise. Inline: on
 * http_query alone, which the API's fuzz target provides itself. */
static inline int http_query_int(const struct http_req *req, const char *name, int64_t min,
				 int64_t max, int64_t def, int64_t *out, struct gq_err *e)
{
	const char *v = http_query(req, name);
	if (!v || !v[0]) {
		*out = def;
		return 0;
	}
	if (parse_int64(v, min, max, out, e) < 0) {
		err_prefix(e, "query parameter '%s'", name);
		e->code = GQ_EINVAL;
		return -1;
	}
	return 0;
}

#define HTTP_MAX_HEADERS 6

struct http_resp {
	int status;
	char *body; /* owned; freed after sending */
	size_t len;
	const char *content_type; /* static */
	/* Or, when stream is set, the body made a piece at a time after the
	 * handler returned (an answer too big to hold whole): stream fills
	 * at most max bytes of buf and returns how many, 0 at the end;
	 * stream_free(stream_cls) is called once the answer is over. */
	size_t (*stream)(void *cls, char *buf, size_t max);
	void (*stream_free)(void *cls);
	void *stream_cls;
	const char *hname[HTTP_MAX_HEADERS];
	char hvalue[HTTP_MAX_HEADERS][64];
	int nheaders;
};

/* Adds a header (name static); silently ignores more than HTTP_MAX_HEADERS. */
void http_resp_header(struct http_resp *r, const char *name, const char *fmt, ...) GQ_PRINTF(3, 4);

typedef void (*http_handler)(void *arg, const struct http_req *req, struct http_resp *resp);

struct http_server;

/*
 * Listens on each address ("unix:PATH" or "HOST:PORT"; a stale socket file
 * at PATH is replaced, a live one is an error) and serves requests with
 * fn(arg, ...). Unix sockets are made 0666 when mode_world is true (a
 * root server serving every user), else 0600. max_body bounds bodies.
 */
int http_start(char *const *addrs, int naddrs, bool mode_world, size_t max_body, http_handler fn,
	       void *arg, struct http_server **out, struct gq_err *e);
/* Stops accepting, waits for running handlers, closes and unlinks sockets. */
void http_stop(struct http_server *h);

#endif
