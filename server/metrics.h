/*
 * metrics.h - gq serve's GET /metrics: the queue, the GPUs, preemptions,
 * permits, downgrades and the server's own timings as Prometheus series
 * (wire/prom.h writes the format; gq-api(7) lists every series).
 *
 * The request layer (api.c) serves it on the API's listeners, to whoever
 * the API lets in (a peer on the unix socket, a bearer token on TCP); the
 * optional metrics listener (gq serve --metrics-listen) serves it and
 * nothing else, without authentication, for a Prometheus that has no token.
 */
#ifndef GQ_SERVER_METRICS_H
#define GQ_SERVER_METRICS_H

#include <stddef.h>

#include "core/util.h"
#include "server/http.h"

struct server;

/* The exposition text (the caller frees), its length in *len; NULL with e
 * when the journal cannot be read. Takes the server's lock itself. */
char *metrics_text(struct server *s, size_t *len, struct gq_err *e);

/* Answers a request for the metrics into resp (text, or a JSON error). */
void metrics_reply(struct server *s, struct http_resp *resp);

/* The http_handler of the metrics listener (arg: the struct server): GET
 * /metrics only, no identity asked; 405 for another method, 404 for
 * another path. */
void metrics_handle(void *arg, const struct http_req *req, struct http_resp *resp);

#endif
