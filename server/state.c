/*
 * state.c - gq serve's journalled state transitions: a job's stop, end and
 * every event, the journal's commit and what happens when it fails.
 */
#define _GNU_SOURCE
#include "server/state.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/share.h"
#include "server/db.h"
#include "server/enforce.h"
#include "server/notify.h"
#include "server/runner.h"
#include "server/server.h"

#define FULL_ROOM (64 * 1024) /* free bytes the state directory needs to leave it */

static const char *const intent_names[] = {"", "cancel", "requeue", "timeout", "preempt"};

/* ---- small helpers (lock held) ---- */

int64_t state_now(const struct state *s)
{
	return s->cfg->manual_clock ? s->manual_now : (int64_t)time(NULL);
}

struct enforce_ctx state_enforce_ctx(struct state *s)
{
	struct enforce_ctx c = {s, &s->snap, s->db, s->runner, state_now(s)};
	return c;
}

void state_wake(struct state *s)
{
	char c = 1;
	ssize_t w = write(s->wake[1], &c, 1);
	(void)w; /* a full pipe already means "wake up" */
}

struct stop_rec *state_stop_find(struct state *s, int64_t id)
{
	for (size_t i = 0; i < s->nstops; i++)
		if (s->stops[i].id == id)
			return &s->stops[i];
	return NULL;
}

void state_stop_set(struct state *s, int64_t id, enum stop_intent in)
{
	struct stop_rec *r = state_stop_find(s, id);
	if (!r) {
		GROW(s->stops, s->stops_cap, s->nstops + 1);
		r = &s->stops[s->nstops++];
		memset(r, 0, sizeof(*r));
		r->id = id;
	}
	r->intent = in;
}

static void state_stop_clear(struct state *s, int64_t id)
{
	for (size_t i = 0; i < s->nstops; i++)
		if (s->stops[i].id == id) {
			s->stops[i] = s->stops[--s->nstops];
			return;
		}
}

static enum stop_intent state_intent(struct state *s, int64_t id)
{
	struct stop_rec *r = state_stop_find(s, id);
	return r ? r->intent : STOP_NONE;
}

int state_persist(struct state *s, const struct job *j, struct gq_err *e)
{
	char *t = codec_job_text(j);
	int rc = db_job_update(s->db, j->id, t, intent_names[state_intent(s, j->id)], e);
	free(t);
	return rc;
}

int state_emit(struct state *s, int64_t job, const char *kind, enum job_state from,
	       enum job_state to, const char *reason, const char *actor, struct gq_err *e)
{
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.seq = s->last_seq + 1;
	ev.time = state_now(s);
	ev.job = job;
	STR_COPY(ev.kind, kind);
	ev.from = from;
	ev.to = to;
	STR_COPY(ev.reason, reason ? reason : "");
	STR_COPY(ev.actor, actor ? actor : "scheduler");
	if (db_event_insert(s->db, &ev, e) < 0)
		return -1;
	s->last_seq = ev.seq;
	return notify_emit(s, &ev, e);
}

/* ---- when the journal cannot commit ----
 *
 * A change is made in memory and in the journal's open transaction at
 * once; when the commit (or a write before it) fails, typically because the
 * disk is full, memory is ahead of the disk. Then the transaction is rolled
 * back and memory with it: reloaded from the journal, as a restart would
 * (state_load), keeping the running jobs, the listeners and the clock.
 * Nothing done to the world is lost that way: a stop's signal waits for its
 * commit (state_commit), a start is journalled as STARTING before any
 * process exists, and an exit file stays on disk until its job's end is
 * committed.
 *
 * The server is then full: every write is refused (GQ_ENOSPACE, HTTP 507,
 * or GQ_EIO when the failure was not a full disk) before it touches
 * anything, reads are served from memory and the journal as before, and
 * the scheduler neither starts nor stops jobs. Once a second it tries the
 * journal (state_probe); when a commit succeeds again it leaves the full
 * state and does what a restart does (recover): jobs that ended meanwhile
 * are recorded from their exit files, jobs started before the failure are
 * adopted. One log line on entering, one on leaving. */

/* Reading the journal failed: memory cannot be made from it. Stop, and let
 * a restart try again. */
GQ_NORETURN void state_fatal(const struct gq_err *e)
{
	log_error("%s; stopping so that a restart recovers from the journal", e->msg);
	_exit(1);
}

void state_full_enter(struct state *s, const struct gq_err *e)
{
	if (s->full)
		return;
	s->full = true;
	s->full_err = *e;
	log_error("%s; refusing writes until the journal can commit again", e->msg);
}

void state_failed(struct state *s, const struct gq_err *e)
{
	struct gq_err le = GQ_ERR_INIT;
	db_rollback(s->db);
	s->nsigs = 0;
	notify_rolled_back(s);
	if (state_load(s, &le) < 0)
		state_fatal(&le);
	state_full_enter(s, e);
}

/* The answer to a write while full; what: "submissions" or "changes". */
int state_full_refusal(struct state *s, const char *what, struct gq_err *e)
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
int state_commit(struct state *s, struct gq_err *e)
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
	notify_committed(s);
	return 0;
}

/* While full: does the journal commit again? The state directory needs
 * FULL_ROOM free first, so that a journal with room left in its log does
 * not leave the full state for a moment while nothing else fits. */
bool state_probe(struct state *s)
{
	struct statvfs v;
	if (statvfs(s->cfg->state_dir, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < FULL_ROOM)
		return false;
	char t[32];
	snprintf(t, sizeof(t), "%" PRId64, state_now(s));
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
int state_finish(struct state *s, struct job *j, int status, int64_t ended, const char *why,
		 struct gq_err *e)
{
	/* When it ended: what the supervisor saw, on the real clock, so that a
	 * job that ended while no server ran is not charged (nor remembered as
	 * running) until the restart. A manual clock stands still while the
	 * server is down: there, now is the end. Never before its start. */
	int64_t now = state_now(s);
	if (!s->cfg->manual_clock && ended > 0 && ended < now)
		now = ended > j->start_time ? ended : j->start_time;
	/* Usage up to its end, with every other running job's: accounting is
	 * one walk forward in time (a no-op when it has passed `now`). */
	state_account(s, now);
	enum job_state from = j->state;
	enum stop_intent in = state_intent(s, j->id);
	job_run_end(j, now); /* requeued or not, this run's hold ends here */
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
		job_set_alloc(j, 0, NULL);
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
	state_stop_clear(s, j->id);
	struct enforce_ctx ec = state_enforce_ctx(s);
	if (state_persist(s, j, e) < 0 ||
	    state_emit(s, j->id, "state", from, j->state, reason, "scheduler", e) < 0)
		return -1;
	return enforce_job_ended(s->enf, &ec, j, runner_pgid(s->runner, j->id), e);
}

int state_stop(struct state *s, struct job *j, enum stop_intent intent, int sig, int64_t grace,
	       const char *actor, const char *reason, struct gq_err *e)
{
	if (!job_state_holds_gpus(j->state))
		BUG("stopping job %" PRId64 " in state %s", j->id, job_state_name(j->state));
	enum job_state from = j->state;
	state_stop_set(s, j->id, intent);
	j->state = JOB_STOPPING;
	j->stop_deadline = state_now(s) + (grace > 0 ? grace : 0);
	/* Sent by state_commit: a stop the journal never records is never
	 * sent, and the job's exit is then read as it really happened. */
	GROW(s->sigs, s->sigs_cap, s->nsigs + 1);
	s->sigs[s->nsigs++] = (struct pending_sig){j->id, sig};
	if (state_persist(s, j, e) < 0)
		return -1;
	state_wake(s);
	/* Kind "preempt" tells the metrics a preemption from other stops. */
	return state_emit(s, j->id, intent == STOP_PREEMPT ? "preempt" : "state", from,
			  JOB_STOPPING, reason, actor, e);
}

/* ---- usage, and memory from the journal ---- */

/* Dept GPU-hours of the running month and fair-share usage, from the last
 * tick to now. */
void state_account(struct state *s, int64_t now)
{
	int64_t prev = s->share_prev;
	if (prev <= 0 || now <= prev) {
		s->share_prev = now > prev ? now : prev;
		return;
	}
	time_t a = (time_t)prev, b = (time_t)now;
	struct tm ta, tb;
	gmtime_r(&a, &ta);
	gmtime_r(&b, &tb);
	if (ta.tm_mon != tb.tm_mon || ta.tm_year != tb.tm_year)
		for (int d = 0; d < s->snap.policy.ndepts; d++)
			s->snap.dstate[d].gpu_hours_month = 0, s->snap.dstate[d].preempts_month = 0;
	for (size_t i = 0; i < s->snap.njobs; i++) {
		struct job *j = &s->snap.jobs[i];
		int g = job_gpus_held(j);
		if (!g)
			continue;
		int64_t from = j->start_time > prev ? j->start_time : prev;
		int di = policy_dept_index(&s->snap.policy, j->dept);
		if (di >= 0 && now > from)
			s->snap.dstate[di].gpu_hours_month +=
			    (double)g * (double)(now - from) / 3600.0;
	}
	s->snap.now = now;
	share_advance(&s->snap, prev);
	s->share_prev = now;
}

int state_save_usage(struct state *s, struct gq_err *e)
{
	struct buf b;
	buf_init(&b, 0);
	for (int q = 0; q < s->snap.policy.nqueues; q++)
		buf_printf(&b, "q %s %.17g %d\n", s->snap.policy.queues[q].name,
			   s->snap.qstate[q].usage, s->snap.qstate[q].preempts_hour);
	for (int d = 0; d < s->snap.policy.ndepts; d++)
		buf_printf(&b, "d %s %.17g %d\n", s->snap.policy.depts[d].name,
			   s->snap.dstate[d].gpu_hours_month, s->snap.dstate[d].preempts_month);
	char prev[32];
	snprintf(prev, sizeof(prev), "%" PRId64, s->share_prev);
	int rc = 0;
	if (db_meta_set(s->db, "usage", b.data ? b.data : "", e) < 0 ||
	    db_meta_set(s->db, "usage.time", prev, e) < 0)
		rc = -1;
	buf_release(&b);
	return rc;
}

static void load_usage(struct state *s)
{
	char *text = xmalloc(65536), when[32];
	struct gq_err e = GQ_ERR_INIT;
	if (db_meta_get(s->db, "usage", text, 65536, &e) < 0 ||
	    db_meta_get(s->db, "usage.time", when, sizeof(when), &e) < 0)
		state_fatal(&e);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind, name[64];
		double v;
		int n;
		if (sscanf(line, "%c %63s %lf %d", &kind, name, &v, &n) != 4)
			continue;
		if (!isfinite(v) || v < 0) {
			/* Written by an older server that let one through. */
			log_warn("journal: usage of '%s' is %g; counted as 0", name, v);
			v = 0;
		}
		int i = kind == 'q' ? policy_queue_index(&s->snap.policy, name)
				    : policy_dept_index(&s->snap.policy, name);
		if (i < 0)
			continue;
		if (kind == 'q') {
			s->snap.qstate[i].usage = v;
			s->snap.qstate[i].preempts_hour = n;
		} else {
			s->snap.dstate[i].gpu_hours_month = v;
			s->snap.dstate[i].preempts_month = n;
		}
	}
	s->share_prev = strtoll(when, NULL, 10);
	free(text);
}

/* The job's supervisor died without recording a status: kill what may be
 * left of the job and call it failed. */
int state_lose(struct state *s, struct job *j, struct gq_err *e)
{
	log_warn("job %" PRId64 ": its supervisor is gone without an exit status", j->id);
	runner_signal(s->runner, j->id, SIGKILL, NULL);
	enum job_state from = j->state;
	j->state = JOB_FAILED;
	j->exit_status = -1;
	j->end_time = state_now(s);
	job_run_end(j, j->end_time);
	j->stop_deadline = 0;
	state_stop_clear(s, j->id);
	if (state_persist(s, j, e) < 0)
		return -1;
	return state_emit(s, j->id, "state", from, JOB_FAILED, "lost: its supervisor died",
			  "scheduler", e);
}

int state_unstart(struct state *s, struct job *j, const char *why, struct gq_err *e)
{
	enum job_state from = j->state;
	j->state = JOB_PENDING;
	job_set_alloc(j, 0, NULL);
	j->start_time = 0;
	j->stop_deadline = 0;
	state_stop_clear(s, j->id);
	if (state_persist(s, j, e) < 0)
		return -1;
	return state_emit(s, j->id, "state", from, JOB_PENDING, why, "scheduler", e);
}

static int load_job(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		    const char *intent, struct gq_err *e)
{
	(void)uid;
	(void)idem;
	struct state *s = arg;
	struct job *j = snapshot_add_job(&s->snap);
	if (codec_job_from_text(text, j, e) < 0) {
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	for (int i = 1; i < (int)(sizeof(intent_names) / sizeof(intent_names[0])); i++)
		if (!strcmp(intent, intent_names[i]))
			state_stop_set(s, id, (enum stop_intent)i);
	if (id >= s->next_id)
		s->next_id = id + 1;
	return 0;
}

/* ---- finished jobs out of memory ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* db_job_fn of state_find: the job decoded into *arg. */
static int decode_one(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		      const char *intent, struct gq_err *e)
{
	(void)uid;
	(void)idem;
	(void)intent; /* a job out of memory has ended: no stop to carry out */
	struct job *j = arg;
	if (codec_job_from_text(text, j, e) < 0) {
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	return 1;
}

/* Puts j (moved) into memory at its place in id order; returns where. */
static struct job *insert_sorted(struct state *s, struct job *j)
{
	struct snapshot *sn = &s->snap;
	size_t lo = 0, hi = sn->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sn->jobs[mid].id < j->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	GROW(sn->jobs, sn->jobs_cap, sn->njobs + 1);
	memmove(&sn->jobs[lo + 1], &sn->jobs[lo], (sn->njobs - lo) * sizeof(*sn->jobs));
	sn->jobs[lo] = *j;
	sn->njobs++;
	return &sn->jobs[lo];
}

struct job *state_find(struct state *s, int64_t id, struct gq_err *e)
{
	struct job *j = snapshot_find(&s->snap, id);
	if (j)
		return j;
	struct job got;
	job_init(&got);
	got.id = 0;
	if (db_job_get(s->db, id, decode_one, &got, e) < 0 || got.id != id) {
		job_release(&got);
		return NULL;
	}
	/* It has ended (active jobs never leave memory): what it waited for
	 * does not matter unless it is requeued (state_find_deps). */
	return insert_sorted(s, &got);
}

int state_find_deps(struct state *s, const struct job *j, struct gq_err *e)
{
	/* A copy: state_find moves the jobs of memory, j among them. */
	int n = j->ndeps;
	int64_t *deps = xmalloc(((size_t)n + 1) * sizeof(*deps));
	memcpy(deps, j->deps, (size_t)n * sizeof(*deps));
	int rc = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		struct gq_err de = GQ_ERR_INIT;
		if (!snapshot_find(&s->snap, deps[k]) && !state_find(s, deps[k], &de) &&
		    de.code != GQ_OK) {
			*e = de;
			rc = -1;
		}
	}
	free(deps);
	return rc;
}

int state_drop_finished(struct state *s, int64_t cut, int64_t keep, state_drop_fn fn, void *arg,
			size_t *dropped, struct gq_err *e)
{
	struct snapshot *sn = &s->snap;
	int64_t *deps = NULL;
	size_t ndeps = 0, cap = 0, w = 0;
	*dropped = 0;
	for (size_t k = 0; k < sn->njobs; k++)
		if (job_state_active(sn->jobs[k].state))
			for (int d = 0; d < sn->jobs[k].ndeps; d++) {
				GROW(deps, cap, ndeps + 1);
				deps[ndeps++] = sn->jobs[k].deps[d];
			}
	if (ndeps)
		qsort(deps, ndeps, sizeof(*deps), cmp_i64);
	int rc = 0;
	for (size_t i = 0; i < sn->njobs; i++) {
		struct job *j = &sn->jobs[i];
		if (rc == 0 && !job_state_active(j->state) && j->end_time > 0 &&
		    j->end_time < cut && j->id != keep &&
		    !(ndeps && bsearch(&j->id, deps, ndeps, sizeof(*deps), cmp_i64)) &&
		    (!fn || (rc = fn(arg, j, e)) == 0)) {
			job_release(j);
			(*dropped)++;
			continue;
		}
		if (w != i)
			sn->jobs[w] = *j; /* moved */
		w++;
	}
	sn->njobs = w;
	free(deps);
	return rc;
}

size_t state_evict(struct state *s, int64_t now)
{
	size_t n = 0;
	state_drop_finished(s, now - STATE_MEMORY_WINDOW, 0, NULL, NULL, &n, NULL);
	return n;
}

/* Memory from the journal: the jobs and their stop intents, the event
 * sequence, enforce's records, the usage. At start-up and after a failed
 * commit (state_failed); the policy, the clock, the nodes and next_id stay
 * as they are (a failed policy or clock change puts its own back). */
int state_load(struct state *s, struct gq_err *e)
{
	struct enforce *en = NULL;
	for (size_t i = 0; i < s->snap.njobs; i++)
		job_release(&s->snap.jobs[i]);
	s->snap.njobs = 0;
	s->nstops = 0;
	int64_t max_id = 0;
	if (db_event_last(s->db, &s->last_seq, e) < 0 ||
	    db_jobs_load(s->db, state_now(s) - STATE_MEMORY_WINDOW, load_job, s, e) < 0 ||
	    db_job_max_id(s->db, &max_id, e) < 0 || enforce_open(s->db, &en, e) < 0)
		return -1;
	if (max_id >= s->next_id)
		s->next_id = max_id + 1;
	snapshot_sort(&s->snap);
	/* What the active jobs wait for is looked at every pass. */
	for (size_t i = 0; i < s->snap.njobs; i++)
		if (job_state_active(s->snap.jobs[i].state) && s->snap.jobs[i].ndeps &&
		    state_find_deps(s, &s->snap.jobs[i], e) < 0)
			return -1;
	enforce_free(s->enf);
	s->enf = en;
	memset(s->snap.qstate, 0, sizeof(s->snap.qstate));
	memset(s->snap.dstate, 0, sizeof(s->snap.dstate));
	load_usage(s);
	return 0;
}
