/*
 * api.h - the request layer of gq serve: routes /v1/... requests to the
 * server's operations, checks who asks, decodes and encodes JSON through
 * wire/ (wire/wire.h), and maps our errors to HTTP statuses. See gq-api(7).
 *
 * It decides nothing about jobs (ops.c does) and knows nothing of
 * sockets (http.c does).
 */
#ifndef GQ_SERVER_API_H
#define GQ_SERVER_API_H

#include "server/http.h"

/* The http_handler of gq serve; arg is the struct server. */
void api_handle(void *arg, const struct http_req *req, struct http_resp *resp);

/* Query parameter "state" ("completed,failed"): *out gets bit 1 << state
 * of each, 0 when absent; -1 with GQ_EINVAL for a state gq has no name for. */
int api_query_states(const struct http_req *req, unsigned *out, struct gq_err *e);
/* Query parameter "form": "lean" (*lean: each job with only the fields
 * that differ from a new job's, as a snapshot's) or absent; anything else
 * -1 with GQ_EINVAL. */
int api_query_lean(const struct http_req *req, bool *lean, struct gq_err *e);

/* The HTTP status for an error class. */
int err_http_status(enum gq_errcode code);

#endif
