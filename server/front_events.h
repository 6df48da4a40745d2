/*
 * front_events.h - the journal of gq serve --slurm (front.h): each good
 * poll's changes become gq events (core/polldiff.h), kept in SQLite in the
 * state directory as gq serve keeps its own (server/db.c), with the last
 * known state of every job, so that a restart over the same directory
 * resumes: what changed while it was down is recorded once, marked late.
 * It answers GET /v1/events (the same page and long poll as gq serve) and
 * GET /v1/stats (stats_compute over the journal).
 *
 * Ids reset: when a poll shows that the cluster numbers new jobs with ids
 * already known (polldiff.h), the journal is moved aside to
 * gq.db.reset-YYYYMMDDTHHMMSSZ, a new one is started whose first event
 * (kind "reset", job 0) says so and names the old file, its sequence
 * numbers continuing the old ones, and the cluster's jobs are recorded as
 * first seen.
 */
#ifndef GQ_SERVER_FRONT_EVENTS_H
#define GQ_SERVER_FRONT_EVENTS_H

#include <stdbool.h>

#include "core/job.h"
#include "core/util.h"
#include "server/http.h"

struct fjournal;

/* Opens (creating) the journal in dir, locking dir against another gq
 * serve. */
int fjournal_open(const char *dir, struct fjournal **out, struct gq_err *e);
/* Ends the long polls (before the listener stops); then close, once no
 * handler runs. */
void fjournal_wake(struct fjournal *j);
void fjournal_close(struct fjournal *j);

/* Records a good poll's snapshot: late when changes may have happened
 * unwatched (the first good poll since the start, or after failed ones).
 * Called by the poller alone. */
int fjournal_poll(struct fjournal *j, const struct snapshot *s, bool late, struct gq_err *e);

/* What of the cluster the stats read besides the journal: its nodes,
 * policy and clock, and its jobs by state now. */
struct fcluster {
	bool have; /* false: no good poll yet */
	int64_t now;
	struct policy policy;
	struct node *nodes; /* owned (fcluster_release) */
	size_t nnodes;
	int counts[JOB_STATE_COUNT];
};
void fcluster_release(struct fcluster *c);

/* GET /v1/events (peer_api: the client's API version, for the late mark)
 * and GET /v1/stats. */
void fjournal_h_events(struct fjournal *j, const struct http_req *req, int peer_api,
		       struct http_resp *resp);
void fjournal_h_stats(struct fjournal *j, const struct fcluster *c, const struct http_req *req,
		      struct http_resp *resp);

#endif
