/*
 * front.c - gq serve --slurm: the poller and the read API in front of a
 * Slurm cluster (front.h). The snapshot is the Slurm backend's
 * (backend_slurm's ops->snapshot), so the front and a client with
 * GQ_BACKEND=slurm see the same jobs, reasons and order; this file only
 * keeps it, times the polls, hands each good poll to the journal
 * (front_events.c) and answers. It is not the native server: nothing here
 * schedules or acts.
 */
#define _GNU_SOURCE /* struct ucred */
#include "front.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "os/mono.h"
#include "server/front_events.h"
#include "server/front_act.h"
#include "server/http.h"
#include "server/log.h"
#include "wire/wire.h"

#define FRONT_WAIT_LIMIT ((int64_t)366 * 86400)

struct front {
	const struct front_config *cfg;
	struct backend *slurm; /* the poller's alone */
	struct front_own own;  /* its token: the poller's alone */
	struct front_act *act; /* callers, their tokens and actions */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t polled; /* broadcast after every poll */
	bool stop;
	bool poll_now; /* an action asks for a poll at once */
	/* Guarded by lock: the last good snapshot. */
	struct snapshot snap;
	int64_t data_t;	    /* when snap was fetched (our clock), 0 none */
	int64_t clock_off;  /* snap.now - data_t: slurmctld's clock against ours */
	int64_t down_since; /* first failed poll since the last good one, 0 up */
	char down_msg[256];
	int64_t polls, changes;
	struct fjournal *journal; /* its own lock; written by the poller */
};

/* Did the cluster change between two snapshots (sorted by id)? What a
 * client shows of a job: its state, Slurm's reason, priority and estimate,
 * its hold. */
static bool snap_changed(const struct snapshot *a, const struct snapshot *b)
{
	if (a->njobs != b->njobs || a->nnodes != b->nnodes)
		return true;
	for (size_t i = 0; i < a->njobs; i++) {
		const struct job *x = &a->jobs[i], *y = &b->jobs[i];
		if (x->id != y->id || x->state != y->state || x->held != y->held ||
		    x->ext_prio != y->ext_prio || x->ext_start != y->ext_start ||
		    x->restarts != y->restarts || strcmp(x->ext_reason, y->ext_reason))
			return true;
	}
	for (size_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i].up != b->nodes[i].up)
			return true;
	return false;
}

/* An action succeeded: the caller's next read shows it (its own
 * submission, a cancel) only from a poll after it. Wakes the poller and
 * waits for that poll, FRONT_ACTION_WAIT at most (slurmrestd slow or
 * down: the answer goes out, the poll catches up). */
#define FRONT_ACTION_WAIT 5
static void poll_after_action(struct front *f)
{
	pthread_mutex_lock(&f->lock);
	int64_t seen = f->polls;
	f->poll_now = true;
	pthread_cond_signal(&f->wake);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FRONT_ACTION_WAIT;
	/* The poll under way may have begun before the action: wait for the
	 * one after it (two polls on, or the first to begin after). */
	while (!f->stop && f->polls < seen + 2 && (f->poll_now || f->polls == seen) &&
	       pthread_cond_timedwait(&f->polled, &f->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&f->lock);
}

static void *poller(void *arg)
{
	struct front *f = arg;
	int interval = FRONT_POLL_MIN;
	bool late = true;	     /* changes since the last good poll went unseen */
	double private_t = mono_s(); /* PrivateData read (front_act_new) */
	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		pthread_mutex_unlock(&f->lock);
		struct snapshot s;
		snapshot_init(&s);
		struct gq_err e = GQ_ERR_INIT;
		front_own_renew(&f->own, &f->slurm);
		if (mono_s() - private_t >= FRONT_PRIVATE_EVERY) {
			front_act_private_read(f->act);
			private_t = mono_s();
		}
		pthread_mutex_lock(&f->lock);
		f->poll_now = false;
		pthread_mutex_unlock(&f->lock);
		int rc = f->slurm->ops->snapshot(f->slurm, &s, &e);
		/* The backend says "no wait limit" with INT64_MAX, which the
		 * policy's text cannot carry: the longest it can (366 days)
		 * says the same for any job a cluster keeps pending. */
		for (int t = 0; rc == 0 && t < TIER_COUNT; t++)
			if (s.policy.tier[t].wait_limit > FRONT_WAIT_LIMIT)
				s.policy.tier[t].wait_limit = FRONT_WAIT_LIMIT;
		int64_t now = time(NULL);
		struct gq_err je = GQ_ERR_INIT;
		if (rc == 0 && fjournal_poll(f->journal, &s, late, &je) < 0)
			log_error("journal: %s", je.msg);
		late = rc != 0;
		pthread_mutex_lock(&f->lock);
		f->polls++;
		if (rc == 0) {
			bool changed = !f->data_t || snap_changed(&f->snap, &s);
			if (f->down_since)
				log_info("slurmrestd answers again (unreachable since %" PRId64 ")",
					 f->down_since);
			snapshot_release(&f->snap);
			f->snap = s;
			f->data_t = now;
			f->clock_off = s.now - now;
			f->down_since = 0;
			if (changed)
				f->changes++;
			interval = changed ? FRONT_POLL_MIN
					   : (interval * 2 > FRONT_POLL_MAX ? FRONT_POLL_MAX
									    : interval * 2);
		} else {
			snapshot_release(&s);
			if (!f->down_since) {
				f->down_since = now;
				interval = FRONT_POLL_MIN;
				log_warn("upstream unreachable: %s", e.msg);
			} else {
				interval =
				    interval * 2 > FRONT_POLL_MAX ? FRONT_POLL_MAX : interval * 2;
			}
			snprintf(f->down_msg, sizeof(f->down_msg), "%s", e.msg);
		}
		log_msg(LV_DEBUG, "poll %" PRId64 ": %s, next in %d s", f->polls,
			rc == 0 ? "ok" : "failed", interval);
		pthread_cond_broadcast(&f->polled);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += interval;
		while (!f->stop && !f->poll_now &&
		       pthread_cond_timedwait(&f->wake, &f->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* ---- the read API ---- */

/* GET /v1/events and /v1/stats, from the journal (front_events.h), outside
 * f->lock: a long poll waits on the journal's own. true when answered. */
static bool front_events_route(struct front *f, const char *path, const struct http_req *req,
			       int peer_api, struct http_resp *resp)
{
	if (!strcmp(path, "/v1/events")) {
		fjournal_h_events(f->journal, req, peer_api, resp);
		return true;
	}
	if (strcmp(path, "/v1/stats"))
		return false;
	struct fcluster c;
	memset(&c, 0, sizeof(c));
	pthread_mutex_lock(&f->lock);
	if (f->data_t) {
		c.have = true;
		c.now = (f->down_since ? f->snap.now : (int64_t)time(NULL) + f->clock_off);
		c.policy = f->snap.policy;
		c.nnodes = f->snap.nnodes;
		c.nodes = xcalloc(c.nnodes ? c.nnodes : 1, sizeof(*c.nodes));
		memcpy(c.nodes, f->snap.nodes, c.nnodes * sizeof(*c.nodes));
		for (size_t i = 0; i < f->snap.njobs; i++)
			c.counts[f->snap.jobs[i].state]++;
	}
	pthread_mutex_unlock(&f->lock);
	fjournal_h_stats(f->journal, &c, req, resp);
	fcluster_release(&c);
	return true;
}

static void reply_err(struct http_resp *resp, int status, const struct gq_err *e)
{
	resp->status = status;
	resp->body = wire_error_text(e);
	resp->len = strlen(resp->body);
}

static void h_ping(struct http_resp *resp, const struct http_req *req)
{
	struct ucred cr = {.uid = (uid_t)-1};
	socklen_t cl = sizeof(cr);
	char name[64] = "";
	if (req->unix_socket && getsockopt(req->fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) {
		struct passwd pw, *pp = NULL;
		char pb[1024];
		if (getpwuid_r(cr.uid, &pw, pb, sizeof(pb), &pp) == 0 && pp)
			snprintf(name, sizeof(name), "%s", pp->pw_name);
	}
	struct wire_ping p = {
	    .user = name,
	    .uid = cr.uid,
	    .now = time(NULL),
	};
	wire_api_self(&p.api);
	resp->status = 200;
	resp->body = wire_ping_text(&p);
	resp->len = strlen(resp->body);
}

/* Under f->lock. */
static void h_job(struct front *f, const struct front_caller *who, struct http_resp *resp,
		  int64_t id)
{
	struct gq_err e = GQ_ERR_INIT;
	const struct job *j = f->data_t ? snapshot_find(&f->snap, id) : NULL;
	if (!j || !front_act_sees(f->act, who, j)) {
		err_set(&e, GQ_ENOENT, "no job %" PRId64 " in the cluster's snapshot", id);
		reply_err(resp, 404, &e);
		return;
	}
	struct buf b;
	buf_init(&b, 0);
	codec_job_write(&b, j);
	resp->status = 200;
	resp->len = b.len;
	resp->body = buf_detach(&b);
}

static void handle(void *arg, const struct http_req *req, struct http_resp *resp)
{
	struct front *f = arg;
	struct gq_err e = GQ_ERR_INIT;
	struct wire_api self, peer;
	wire_api_self(&self);
	http_resp_header(resp, "Gq-Api-Version", "%d", self.current);
	http_resp_header(resp, "Gq-Api-Oldest", "%d", self.oldest);
	http_resp_header(resp, "Gq-Scheduler", "Slurm");
	if (wire_api_parse(http_header(req, "Gq-Api-Version"), http_header(req, "Gq-Api-Oldest"),
			   &peer, &e) < 0) {
		reply_err(resp, 400, &e);
		return;
	}
	if (wire_api_check(&self, &peer, false, "gq serve --slurm", &e) < 0) {
		reply_err(resp, 400, &e);
		return;
	}
	const char *path = req->path;
	bool get = !strcmp(req->method, "GET");
	if (get && !strcmp(path, "/v1/ping")) {
		h_ping(resp, req);
		return;
	}
	struct front_caller who;
	if (!front_act_caller(f->act, req, resp, &who))
		return;
	if (get && (!strcmp(path, "/v1/events") || !strcmp(path, "/v1/stats")) &&
	    front_act_private(f->act, &who)) {
		/* The journal is the whole cluster's: under PrivateData=jobs
		 * only those who see every job read it. */
		err_set(&e, GQ_EPERM,
			"Slurm's PrivateData hides other users' jobs: events and stats through "
			"gq serve --slurm are for root and the front's own user");
		reply_err(resp, 403, &e);
		front_caller_release(&who);
		return;
	}
	if (get && front_events_route(f, path, req, peer.current, resp)) {
		front_caller_release(&who);
		return;
	}
	/* Asked of Slurm as the caller, outside the lock: the history
	 * (slurmdbd's) and what a job runs and where it writes. */
	char *end = NULL;
	long long id = 0;
	if (get && !strcmp(path, "/v1/jobs")) {
		front_act_history(f->act, &who, req, resp);
		front_caller_release(&who);
		return;
	}
	if (get && !strncmp(path, "/v1/jobs/", 9) && (id = strtoll(path + 9, &end, 10)) > 0 &&
	    !strcmp(end, "/files")) {
		front_act_files(f->act, &who, id, resp);
		front_caller_release(&who);
		return;
	}
	if (!get) {
		front_act_handle(f->act, &who, req, resp);
		front_caller_release(&who);
		if (resp->status >= 200 && resp->status < 300)
			poll_after_action(f);
		return;
	}
	pthread_mutex_lock(&f->lock);
	if (f->down_since)
		http_resp_header(resp, "Gq-Upstream", "since=%" PRId64 " data=%" PRId64,
				 f->down_since, f->data_t);
	if (!strcmp(path, "/v1/snapshot")) {
		const char *form = http_query(req, "form");
		if (!form || strcmp(form, "rows")) {
			err_set(&e, GQ_EINVAL,
				"gq serve --slurm answers the snapshot in the rows form only "
				"(form=rows)");
			reply_err(resp, 400, &e);
		} else if (!f->data_t) {
			if (f->down_since) {
				time_t ds = (time_t)f->down_since;
				struct tm tm;
				char when[32] = "?";
				if (gmtime_r(&ds, &tm))
					strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
				err_set(&e, GQ_EUNAVAIL,
					"upstream unreachable since %s, no snapshot yet: %s", when,
					f->down_msg);
			} else
				err_set(&e, GQ_EUNAVAIL,
					"no snapshot of the cluster yet; try again in a second");
			reply_err(resp, 503, &e);
		} else {
			/* While slurmrestd answers, the snapshot is the cluster now
			 * (a change is seen at the next poll): its times are read
			 * against now. Else against the time of its data, with
			 * Gq-Upstream saying how old that is. */
			int64_t data_now = f->snap.now;
			if (!f->down_since)
				f->snap.now = (int64_t)time(NULL) + f->clock_off;
			struct snapshot view;
			bool part = front_act_view(f->act, &who, &f->snap, &view);
			resp->body = codec_snapshot_text(part ? &view : &f->snap, CODEC_ROWS,
							 &resp->len, &e);
			if (part)
				free(view.jobs);
			f->snap.now = data_now;
			if (resp->body)
				resp->status = 200;
			else
				reply_err(resp, 500, &e);
		}
	} else if (!strncmp(path, "/v1/jobs/", 9) && (id = strtoll(path + 9, &end, 10)) > 0 &&
		   !*end) {
		h_job(f, &who, resp, id);
	} else if (!strncmp(path, "/v1/jobs/", 9) && strtoll(path + 9, &end, 10) > 0 &&
		   !strcmp(end, "/command")) {
		/* gq's own form of what a job runs, which Slurm's is not
		 * (GET /v1/jobs/ID/files says what Slurm says); a client shows
		 * the rest of the job without it. */
		err_set(&e, GQ_ENOENT,
			"gq serve --slurm does not keep what jobs run; GET /v1/jobs/%lld/files "
			"says what Slurm does",
			id);
		reply_err(resp, 404, &e);
	} else if (!strcmp(path, "/v1/preemptions") || !strcmp(path, "/v1/reclaim")) {
		backend_records_on("Slurm", path + 4, &e);
		reply_err(resp, 503, &e);
	} else {
		err_set(&e, GQ_EUNAVAIL,
			"gq serve --slurm does not answer '%s' (gq-api(7) lists what it "
			"answers)",
			path);
		reply_err(resp, 503, &e);
	}
	pthread_mutex_unlock(&f->lock);
	front_caller_release(&who);
}

int front_run(const struct front_config *cfg, struct gq_err *e)
{
	struct front f;
	memset(&f, 0, sizeof(f));
	if (front_own_open(&f.own, cfg->url, cfg->token_file, &f.slurm, e) < 0)
		return -1;
	f.cfg = cfg;
	f.act = front_act_new(cfg->url, f.own.user);
	pthread_mutex_init(&f.lock, NULL);
	pthread_cond_init(&f.wake, NULL);
	pthread_cond_init(&f.polled, NULL);
	snapshot_init(&f.snap);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	int rc = -1;
	struct http_server *http = NULL;
	pthread_t th;
	if (fjournal_open(cfg->state_dir, &f.journal, e) < 0) {
		err_prefix(e, "gq serve --slurm");
		goto out;
	}
	if (http_start(cfg->listen, cfg->nlisten, getuid() == 0, CODEC_MAX_BODY, handle, &f, &http,
		       e) < 0)
		goto out;
	if (pthread_create(&th, NULL, poller, &f) != 0) {
		http_stop(http);
		err_set(e, GQ_EINTERNAL, "cannot start the poller thread");
		goto out;
	}
	log_info("gq serve --slurm: in front of %s, polling every %d to %d s, journal in '%s'",
		 cfg->url, FRONT_POLL_MIN, FRONT_POLL_MAX, cfg->state_dir);
	int sig = 0;
	sigdelset(&set, SIGPIPE);
	while (sigwait(&set, &sig) == 0 && sig != SIGTERM && sig != SIGINT)
		;
	log_info("gq serve --slurm: stopping (signal %d)", sig);
	pthread_mutex_lock(&f.lock);
	f.stop = true;
	pthread_cond_signal(&f.wake);
	pthread_mutex_unlock(&f.lock);
	pthread_join(th, NULL);
	fjournal_wake(f.journal);
	http_stop(http);
	rc = 0;
out:
	fjournal_close(f.journal);
	snapshot_release(&f.snap);
	backend_close(f.slurm);
	front_act_free(f.act);
	pthread_mutex_destroy(&f.lock);
	pthread_cond_destroy(&f.wake);
	pthread_cond_destroy(&f.polled);
	return rc;
}
