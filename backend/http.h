/*
 * http.h - the one libcurl adapter of gq: a connection to one HTTP server
 * (a reused easy handle), requests on it, and curl's failures as a struct
 * gq_err. Both backends use it (native.c: gq serve over a unix socket or
 * TCP; slurm.c: slurmrestd over http or https); no other file of gq
 * touches libcurl.
 *
 * It knows URLs, sockets, TLS and headers, and nothing of what the bodies
 * mean: a non-2xx status is not an error here (each backend reads its
 * server's error bodies), only an exchange that brought no answer is.
 * A connection is used by one thread at a time.
 */
#ifndef GQ_BACKEND_HTTP_H
#define GQ_BACKEND_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util.h"

struct http_conn;

struct http_opts {
	const char *base; /* "http://HOST:PORT", "https://...", or any http:// with unix_path */
	const char *unix_path; /* a unix socket to connect to instead of TCP, or NULL */
	const char *ca_file;   /* https: a CA bundle, or NULL for the system's store */
	const char *describe;  /* the server in messages: "gq serve at 'unix:/...'" */
	/* What to do when the server cannot be reached, after "cannot reach
	 * DESCRIBE: curl's words; ". */
	const char *unreachable_hint;
	/* When not NULL, a timeout says "DESCRIBE did not answer in time; " and
	 * this, instead of the unreachable message. */
	const char *timeout_hint;
	long timeout_ms; /* a request's default limit (0: 30 s) */
	bool compressed; /* offer every encoding libcurl decodes */
};

/* NULL with e filled when libcurl cannot start. The strings are copied.
 * Free with http_close (accepts NULL). */
struct http_conn *http_open(const struct http_opts *o, struct gq_err *e);
void http_close(struct http_conn *h);
/* The server's name in later messages (copied). */
void http_set_describe(struct http_conn *h, const char *describe);

/* s with every byte a URL's query may not hold %-escaped; the caller
 * frees it. */
char *http_escape(struct http_conn *h, const char *s);

/* Called once a header line of the answer, name without its colon, both
 * trimmed; neither is NUL-terminated. */
typedef void http_header_fn(void *arg, const char *name, size_t nlen, const char *value,
			    size_t vlen);

struct http_req {
	const char *method;	    /* "GET", "POST", "DELETE" */
	const char *path;	    /* appended to the base: "/v1/jobs?..." */
	const char *body;	    /* JSON text, sent with its Content-Type; NULL for none */
	const char *const *headers; /* further "Name: value" lines, NULL-terminated; or NULL */
	long timeout_ms;	    /* 0: the connection's */
	http_header_fn *on_header;  /* or NULL */
	void *header_arg;
};

/*
 * One exchange. out is reset, then holds the answer's body (up to out's
 * maximum); *status is the HTTP status. -1 only when no whole answer came:
 * GQ_ETOOBIG (over out's maximum), GQ_EUNAVAIL (no connection, TLS refused,
 * timed out), GQ_EINVAL (a path too long for a URL).
 */
int http_do(struct http_conn *h, const struct http_req *r, struct buf *out, long *status,
	    struct gq_err *e);

#endif
