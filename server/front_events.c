/*
 * front_events.c - the journal of gq serve --slurm (front_events.h).
 *
 * One mutex guards the database and the known jobs; the poller writes a
 * poll's events and changed jobs in one transaction, then wakes the long
 * polls of GET /v1/events.
 */
#include "front_events.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/polldiff.h"
#include "core/stats.h"
#include "os/mono.h"
#include "server/api.h"
#include "server/db.h"
#include "server/log.h"
#include "server/server.h"
#include "wire/wire.h"

#define FJ_MAX_WAIT_MS 60000
#define FJ_WINDOW 86400 /* GET /v1/stats without from: the last day */

struct fjournal {
	char *dir, *path;
	int lockfd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool closing;
	struct db *db;
	int64_t last_seq, created;
	struct pknown *known; /* sorted by id */
	size_t nknown;
};

/* Opens the journal at j->path: its last seq, known jobs and creation
 * time; on failure j->db is NULL. */
static int load(struct fjournal *j, struct gq_err *e)
{
	struct db *db = NULL;
	struct pknown *known = NULL;
	size_t nknown = 0;
	int64_t last = 0;
	char born[32] = "";
	if (db_open(j->path, &db, e) < 0)
		return -1;
	if (db_event_last(db, &last, e) < 0 || db_known_load(db, &known, &nknown, e) < 0 ||
	    db_meta_get(db, "created", born, sizeof(born), e) < 0)
		goto fail;
	int64_t created = born[0] ? strtoll(born, NULL, 10) : (int64_t)time(NULL);
	if (!born[0]) {
		snprintf(born, sizeof(born), "%" PRId64, created);
		if (db_meta_set(db, "created", born, e) < 0)
			goto fail;
	}
	j->db = db;
	free(j->known);
	j->known = known;
	j->nknown = nknown;
	j->last_seq = last;
	j->created = created;
	return 0;
fail:
	free(known);
	db_close(db);
	return -1;
}

int fjournal_open(const char *dir, struct fjournal **out, struct gq_err *e)
{
	struct fjournal *j = xcalloc(1, sizeof(*j));
	j->lockfd = -1;
	j->dir = xstrdup(dir);
	j->path = xasprintf("%s/gq.db", dir);
	pthread_mutex_init(&j->mu, NULL);
	mono_cond_init(&j->cv);
	if (server_state_dir_open(dir, 0700, &j->lockfd, e) < 0 || load(j, e) < 0) {
		fjournal_close(j);
		return -1;
	}
	if (j->last_seq || j->nknown)
		log_info("journal '%s': %zu jobs known, last event %" PRId64
			 "; what changed meanwhile is recorded as seen late",
			 j->path, j->nknown, j->last_seq);
	*out = j;
	return 0;
}

void fjournal_wake(struct fjournal *j)
{
	pthread_mutex_lock(&j->mu);
	j->closing = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

void fjournal_close(struct fjournal *j)
{
	if (!j)
		return;
	db_close(j->db);
	free(j->known);
	if (j->lockfd >= 0)
		close(j->lockfd);
	free(j->dir);
	free(j->path);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j);
}

/* Under mu: the events of d and its changed known jobs, in one transaction. */
static int record(struct fjournal *j, struct pdiff *d, const struct event *first, struct gq_err *e)
{
	if (db_begin(j->db, e) < 0)
		return -1;
	int64_t seq = j->last_seq;
	if (first) {
		struct event ev = *first;
		ev.seq = ++seq;
		if (db_event_insert(j->db, &ev, e) < 0)
			goto fail;
	}
	for (size_t i = 0; i < d->nev; i++) {
		d->ev[i].seq = ++seq;
		if (db_event_insert(j->db, &d->ev[i], e) < 0)
			goto fail;
	}
	/* Both sorted by id: put what is new or changed. */
	size_t o = 0;
	for (size_t i = 0; i < d->nknown; i++) {
		while (o < j->nknown && j->known[o].id < d->known[i].id)
			o++;
		if (o < j->nknown && !memcmp(&j->known[o], &d->known[i], sizeof(d->known[i])))
			continue;
		if (db_known_put(j->db, &d->known[i], e) < 0)
			goto fail;
	}
	if (db_commit(j->db, e) < 0)
		goto fail;
	j->last_seq = seq;
	free(j->known);
	j->known = d->known;
	j->nknown = d->nknown;
	d->known = NULL;
	d->nknown = 0;
	return 0;
fail:
	db_rollback(j->db);
	return -1;
}

/* Under mu: the journal moved aside, a new one opened; *aside its name. */
static int start_over(struct fjournal *j, int64_t now, char *aside, size_t size, struct gq_err *e)
{
	time_t t = (time_t)now;
	struct tm tm;
	char stamp[32] = "unknown";
	if (gmtime_r(&t, &tm))
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	char *to = xasprintf("%s.reset-%s", j->path, stamp);
	db_close(j->db); /* checkpoints its WAL into the file */
	j->db = NULL;
	/* Should the move fail, the old journal is opened again as it was
	 * and the next poll sees the reset again. */
	int rc = 0;
	if (rename(j->path, to) < 0)
		rc = err_set(e, GQ_EIO, "cannot move the journal '%s' aside to '%s': %s", j->path,
			     to, strerror(errno));
	snprintf(aside, size, "%s", to);
	free(to);
	int64_t last = j->last_seq;
	if (load(j, e) < 0) {
		free(j->known);
		j->known = NULL;
		j->nknown = 0;
		return -1;
	}
	/* Sequence numbers go on: a follower's "after" stays meaningful. */
	if (j->last_seq < last)
		j->last_seq = last;
	return rc;
}

int fjournal_poll(struct fjournal *j, const struct snapshot *s, bool late, struct gq_err *e)
{
	struct pdiff d;
	pthread_mutex_lock(&j->mu);
	/* A journal that could not be opened again after a reset: retried. */
	if (!j->db && load(j, e) < 0) {
		pthread_mutex_unlock(&j->mu);
		return -1;
	}
	pdiff_compute(j->known, j->nknown, s->jobs, s->njobs, s->now, late, &d);
	int rc = 0;
	struct event reset;
	bool was_reset = false;
	if (d.reset_job) {
		char aside[1024];
		log_warn("the cluster's job ids were reset (%s): a new journal starts, the old one "
			 "is kept",
			 d.reset_why);
		pdiff_release(&d);
		if (start_over(j, s->now, aside, sizeof(aside), e) < 0) {
			err_prefix(e, "ids reset");
			pthread_mutex_unlock(&j->mu);
			return -1;
		}
		log_warn("the journal before the reset is '%s'", aside);
		memset(&reset, 0, sizeof(reset));
		reset.time = s->now;
		STR_COPY(reset.kind, "reset");
		snprintf(reset.reason, sizeof(reset.reason),
			 "job ids reset; journal before: %.120s",
			 strrchr(aside, '/') ? strrchr(aside, '/') + 1 : aside);
		STR_COPY(reset.actor, "slurm");
		was_reset = true;
		pdiff_compute(NULL, 0, s->jobs, s->njobs, s->now, true, &d);
	}
	if (d.nev || was_reset || d.nknown != j->nknown ||
	    (d.nknown && memcmp(d.known, j->known, d.nknown * sizeof(*d.known)))) {
		int64_t before = j->last_seq;
		rc = record(j, &d, was_reset ? &reset : NULL, e);
		if (rc == 0 && j->last_seq != before)
			pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
	pdiff_release(&d);
	return rc;
}

void fcluster_release(struct fcluster *c)
{
	free(c->nodes);
	memset(c, 0, sizeof(*c));
}

static void reply_err(struct http_resp *resp, const struct gq_err *e)
{
	resp->status = err_http_status(e->code);
	resp->body = wire_error_text(e);
	resp->len = strlen(resp->body);
}

static void reply_text(struct http_resp *resp, char *text)
{
	resp->status = 200;
	resp->body = text;
	resp->len = strlen(text);
}

/* Up to max events after `after` into *out (caller frees), waiting up to
 * wait_ms for one. */
static int events_after(struct fjournal *j, int64_t after, int wait_ms, int max, struct event **out,
			int *n, struct gq_err *e)
{
	pthread_mutex_lock(&j->mu);
	if (wait_ms > 0 && j->last_seq <= after) {
		struct timespec dl = mono_deadline(wait_ms);
		while (j->last_seq <= after && !j->closing)
			if (pthread_cond_timedwait(&j->cv, &j->mu, &dl) == ETIMEDOUT)
				break;
	}
	struct event *v = xcalloc((size_t)max, sizeof(*v));
	int rc = j->db ? db_events_after(j->db, after, v, max, n, e)
		       : err_set(e, GQ_EUNAVAIL, "the journal is closed");
	pthread_mutex_unlock(&j->mu);
	if (rc < 0)
		free(v);
	else
		*out = v;
	return rc;
}

void fjournal_h_events(struct fjournal *j, const struct http_req *req, int peer_api,
		       struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t after, wait, limit;
	if (http_query_int(req, "after", 0, INT64_MAX, 0, &after, &e) < 0 ||
	    http_query_int(req, "wait", 0, FJ_MAX_WAIT_MS, 0, &wait, &e) < 0 ||
	    http_query_int(req, "limit", 1, 10000, 1000, &limit, &e) < 0) {
		reply_err(resp, &e);
		return;
	}
	struct event *v = NULL;
	int n = 0;
	if (events_after(j, after, (int)wait, (int)limit, &v, &n, &e) < 0) {
		reply_err(resp, &e);
		return;
	}
	/* A client of API version 1 knows no "late": it reads it in the reason. */
	for (int i = 0; peer_api < 2 && i < n; i++)
		if (v[i].late) {
			v[i].late = false;
			size_t len = strlen(v[i].reason);
			snprintf(v[i].reason + len, sizeof(v[i].reason) - len, " (seen late)");
		}
	reply_text(resp, wire_events_text(v, (size_t)n, n ? v[n - 1].seq : after));
	free(v);
}

void fjournal_h_stats(struct fjournal *j, const struct fcluster *c, const struct http_req *req,
		      struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t from, to;
	if (http_query_int(req, "from", 0, INT64_MAX, 0, &from, &e) < 0 ||
	    http_query_int(req, "to", 0, INT64_MAX, 0, &to, &e) < 0) {
		reply_err(resp, &e);
		return;
	}
	if (!c->have) {
		err_set(&e, GQ_EUNAVAIL, "no snapshot of the cluster yet; try again in a second");
		reply_err(resp, &e);
		return;
	}
	struct stats_report r;
	memset(&r, 0, sizeof(r));
	r.now = c->now;
	memcpy(r.counts, c->counts, sizeof(r.counts));
	if (to <= 0)
		to = c->now + 1;
	if (from <= 0)
		from = to - FJ_WINDOW;
	/* Every job the journal knows (those Slurm forgot, and those the
	 * poller forgot a day after their end: pdiff's PDIFF_FORGET) and
	 * every event. */
	struct snapshot s;
	snapshot_init(&s);
	s.now = c->now;
	s.policy = c->policy;
	for (size_t i = 0; i < c->nnodes; i++)
		*snapshot_add_node(&s) = c->nodes[i];
	struct event *all = NULL;
	size_t nall = 0, cap = 0;
	int rc = 0;
	struct pknown *known = NULL;
	size_t nknown = 0;
	pthread_mutex_lock(&j->mu);
	r.started = j->created;
	rc = j->db ? db_known_load(j->db, &known, &nknown, &e)
		   : err_set(&e, GQ_EUNAVAIL, "the journal is closed");
	for (size_t i = 0; i < nknown; i++)
		pknown_job(&known[i], snapshot_add_job(&s));
	free(known);
	for (int64_t after = 0; rc == 0;) {
		GROW(all, cap, nall + 4096);
		int n = 0;
		rc = j->db ? db_events_after(j->db, after, all + nall, 4096, &n, &e)
			   : err_set(&e, GQ_EUNAVAIL, "the journal is closed");
		nall += (size_t)n;
		if (n < 4096)
			break;
		after = all[nall - 1].seq;
	}
	pthread_mutex_unlock(&j->mu);
	if (rc == 0) {
		if (nall && all[0].time < r.started)
			r.started = all[0].time;
		if (from < r.started && r.started < to)
			from = r.started;
		rc = stats_compute(&s, all, nall, from, to, &r.st, &e);
	}
	free(all);
	snapshot_release(&s);
	if (rc < 0) {
		reply_err(resp, &e);
		return;
	}
	reply_text(resp, wire_stats_text(&r));
	stats_release(&r.st);
}
