/*
 * state.c - gq serve's journalled state transitions: a job's stop, end and
 * every event, the journal's commit and what happens when it fails.
 */
#define _GNU_SOURCE
#include "server/internal.h"

const char *const intent_names[] = {"", "cancel", "requeue", "timeout", "preempt"};

/* ---- small helpers (lock held) ---- */

int64_t now_locked(const struct server *s)
{
	return s->cfg->manual_clock ? s->manual_now : (int64_t)time(NULL);
}

struct enforce_ctx enforce_ctx_of(struct server *s)
{
	struct enforce_ctx c = {s, &s->snap, s->db, s->runner, now_locked(s)};
	return c;
}

void wake_scheduler(struct server *s)
{
	char c = 1;
	ssize_t w = write(s->wake[1], &c, 1);
	(void)w; /* a full pipe already means "wake up" */
}

struct stop_rec *stop_find(struct server *s, int64_t id)
{
	for (size_t i = 0; i < s->nstops; i++)
		if (s->stops[i].id == id)
			return &s->stops[i];
	return NULL;
}

void stop_set(struct server *s, int64_t id, enum stop_intent in)
{
	struct stop_rec *r = stop_find(s, id);
	if (!r) {
		GROW(s->stops, s->stops_cap, s->nstops + 1);
		r = &s->stops[s->nstops++];
		memset(r, 0, sizeof(*r));
		r->id = id;
	}
	r->intent = in;
}

void stop_clear(struct server *s, int64_t id)
{
	for (size_t i = 0; i < s->nstops; i++)
		if (s->stops[i].id == id) {
			s->stops[i] = s->stops[--s->nstops];
			return;
		}
}

static enum stop_intent intent_of(struct server *s, int64_t id)
{
	struct stop_rec *r = stop_find(s, id);
	return r ? r->intent : STOP_NONE;
}

int persist(struct server *s, const struct job *j, struct gq_err *e)
{
	char *t = codec_job_text(j);
	int rc = db_job_update(s->db, j->id, t, intent_names[intent_of(s, j->id)], e);
	free(t);
	return rc;
}

int emit(struct server *s, int64_t job, const char *kind, enum job_state from, enum job_state to,
	 const char *reason, const char *actor, struct gq_err *e)
{
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.seq = s->last_seq + 1;
	ev.time = now_locked(s);
	ev.job = job;
	STR_COPY(ev.kind, kind);
	ev.from = from;
	ev.to = to;
	STR_COPY(ev.reason, reason ? reason : "");
	STR_COPY(ev.actor, actor ? actor : "scheduler");
	if (db_event_insert(s->db, &ev, e) < 0)
		return -1;
	s->last_seq = ev.seq;
	return 0;
}

/* ---- when the journal cannot commit ----
 *
 * A change is made in memory and in the journal's open transaction at
 * once; when the commit (or a write before it) fails, typically because the
 * disk is full, memory is ahead of the disk. Then the transaction is rolled
 * back and memory with it: reloaded from the journal, as a restart would
 * (load_journal), keeping the running jobs, the listeners and the clock.
 * Nothing done to the world is lost that way: a stop's signal waits for its
 * commit (journal_commit), a start is journalled as STARTING before any
 * process exists, and an exit file stays on disk until its job's end is
 * committed.
 *
 * The server is then full: every write is refused (GQ_ENOSPACE, HTTP 507,
 * or GQ_EIO when the failure was not a full disk) before it touches
 * anything, reads are served from memory and the journal as before, and
 * the scheduler neither starts nor stops jobs. Once a second it tries the
 * journal (journal_probe); when a commit succeeds again it leaves the full
 * state and does what a restart does (recover): jobs that ended meanwhile
 * are recorded from their exit files, jobs started before the failure are
 * adopted. One log line on entering, one on leaving. */

/* Reading the journal failed: memory cannot be made from it. Stop, and let
 * a restart try again. */
GQ_NORETURN void journal_fatal(const struct gq_err *e)
{
	log_error("%s; stopping so that a restart recovers from the journal", e->msg);
	_exit(1);
}

void full_enter(struct server *s, const struct gq_err *e)
{
	if (s->full)
		return;
	s->full = true;
	s->full_err = *e;
	log_error("%s; refusing writes until the journal can commit again", e->msg);
}

void journal_failed(struct server *s, const struct gq_err *e)
{
	struct gq_err le = GQ_ERR_INIT;
	db_rollback(s->db);
	s->nsigs = 0;
	if (load_journal(s, &le) < 0)
		journal_fatal(&le);
	full_enter(s, e);
}

/* The answer to a write while full; what: "submissions" or "changes". */
int full_refusal(struct server *s, const char *what, struct gq_err *e)
{
	if (s->full_err.code == GQ_ENOSPACE)
		return err_set(
		    e, GQ_ENOSPACE,
		    "the server cannot write its journal: disk full in '%s'; %s resume when "
		    "space returns",
		    s->cfg->state_dir, what);
	return err_set(e, GQ_EIO,
		       "the server cannot write its journal (%.300s); %s resume once it can",
		       s->full_err.msg, what);
}

/* Commits, then sends the signals of the stops it journalled. */
int journal_commit(struct server *s, struct gq_err *e)
{
	if (db_commit(s->db, e) < 0)
		return -1;
	for (size_t i = 0; i < s->nsigs; i++) {
		struct gq_err se = GQ_ERR_INIT;
		if (runner_signal(s->runner, s->sigs[i].id, s->sigs[i].sig, &se) < 0 &&
		    se.code != GQ_ENOENT)
			log_warn("job %" PRId64 ": %s", s->sigs[i].id, se.msg);
	}
	s->nsigs = 0;
	return 0;
}

/* While full: does the journal commit again? The state directory needs
 * FULL_ROOM free first, so that a journal with room left in its log does
 * not leave the full state for a moment while nothing else fits. */
bool journal_probe(struct server *s)
{
	struct statvfs v;
	if (statvfs(s->cfg->state_dir, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < FULL_ROOM)
		return false;
	char t[32];
	snprintf(t, sizeof(t), "%" PRId64, now_locked(s));
	struct gq_err e = GQ_ERR_INIT;
	if (db_begin(s->db, &e) < 0 || db_meta_set(s->db, "journal.probe", t, &e) < 0 ||
	    db_commit(s->db, &e) < 0) {
		db_rollback(s->db);
		return false;
	}
	s->full = false;
	log_info("the journal commits again; writes accepted");
	return true;
}

static void status_text(int status, char *out, size_t size)
{
	if (status > 128 && status < 128 + 65)
		snprintf(out, size, "signal %d", status - 128);
	else
		snprintf(out, size, "exit %d", status);
}

/* ---- state changes of one job, inside the caller's transaction ---- */

/* Job j's process ended with status, at unix time ended by its supervisor's
 * account (0 unknown): it becomes what its stop intent says. */
int finish_locked(struct server *s, struct job *j, int status, int64_t ended, const char *why,
		  struct gq_err *e)
{
	/* When it ended: what the supervisor saw, on the real clock, so that a
	 * job that ended while no server ran is not charged (nor remembered as
	 * running) until the restart. A manual clock stands still while the
	 * server is down: there, now is the end. Never before its start. */
	int64_t now = now_locked(s);
	if (!s->cfg->manual_clock && ended > 0 && ended < now)
		now = ended > j->start_time ? ended : j->start_time;
	/* Usage up to its end, with every other running job's: accounting is
	 * one walk forward in time (a no-op when it has passed `now`). */
	account(s, now);
	enum job_state from = j->state;
	enum stop_intent in = intent_of(s, j->id);
	char reason[160];
	status_text(status, reason, sizeof(reason));
	if (why)
		snprintf(reason, sizeof(reason), "%s", why);
	j->exit_status = status;
	switch (in) {
	case STOP_CANCEL:
		j->state = JOB_CANCELLED;
		break;
	case STOP_TIMEOUT:
		j->state = JOB_TIMEOUT;
		break;
	case STOP_REQUEUE:
	case STOP_PREEMPT:
		j->state = JOB_PENDING;
		j->restarts++;
		j->queued_time = now;
		j->nalloc = 0;
		j->borrowed = false;
		j->stop_deadline = 0;
		if (in == STOP_PREEMPT)
			j->not_before = now + s->snap.policy.cooldown;
		break;
	case STOP_NONE:
		j->state = status == 0 ? JOB_COMPLETED : JOB_FAILED;
		break;
	}
	if (j->state != JOB_PENDING) {
		j->end_time = now;
		j->stop_deadline = 0;
	}
	stop_clear(s, j->id);
	struct enforce_ctx ec = enforce_ctx_of(s);
	if (persist(s, j, e) < 0 ||
	    emit(s, j->id, "state", from, j->state, reason, "scheduler", e) < 0)
		return -1;
	return enforce_job_ended(s->enf, &ec, j, runner_pgid(s->runner, j->id), e);
}

int server_stop_locked(struct server *s, struct job *j, enum stop_intent intent, int sig,
		       int64_t grace, const char *actor, const char *reason, struct gq_err *e)
{
	if (!job_state_holds_gpus(j->state))
		BUG("stopping job %" PRId64 " in state %s", j->id, job_state_name(j->state));
	enum job_state from = j->state;
	stop_set(s, j->id, intent);
	j->state = JOB_STOPPING;
	j->stop_deadline = now_locked(s) + (grace > 0 ? grace : 0);
	/* Sent by journal_commit: a stop the journal never records is never
	 * sent, and the job's exit is then read as it really happened. */
	GROW(s->sigs, s->sigs_cap, s->nsigs + 1);
	s->sigs[s->nsigs++] = (struct pending_sig){j->id, sig};
	if (persist(s, j, e) < 0)
		return -1;
	wake_scheduler(s);
	/* Kind "preempt" tells the metrics a preemption from other stops. */
	return emit(s, j->id, intent == STOP_PREEMPT ? "preempt" : "state", from, JOB_STOPPING,
		    reason, actor, e);
}

int server_emit_locked(struct server *s, int64_t job, const char *kind, enum job_state from,
		       enum job_state to, const char *reason, const char *actor, struct gq_err *e)
{
	return emit(s, job, kind, from, to, reason, actor, e);
}

int server_persist_locked(struct server *s, const struct job *j, struct gq_err *e)
{
	return persist(s, j, e);
}
