/*
 * server.c - gq serve's state, journal, group commit and scheduling loop.
 *
 * One lock (s->mu) guards everything: the in-memory snapshot, the journal
 * connection, the event sequence. Every change is made inside a journal
 * transaction and becomes visible to readers only once committed, so what
 * a client has seen is always on disk. Submissions queue for the committer
 * thread, which writes all that arrived meanwhile in one transaction (one
 * fsync for many acknowledgements). The scheduler thread sleeps in poll()
 * on a wake-up pipe and the runner's exit notifications, with a timeout
 * only when a deadline is due by the real clock; it never polls at a fixed
 * rate.
 *
 * What to start is core's decision (sched_plan); this file carries out the
 * plan, follows processes through the runner and journals every change.
 */
#define _GNU_SOURCE
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/place.h"
#include "core/predict.h"
#include "core/sched.h"
#include "core/share.h"
#include "policy/repo.h"
#include "server/api.h"
#include "server/db.h"
#include "server/enforce.h"
#include "server/gpus.h"
#include "server/http.h"
#include "server/runner.h"

#define RECENT_WINDOW 86400 /* finished jobs a snapshot still shows */
#define MAX_WAIT_MS 60000
#define FULL_PROBE_MS 1000    /* how often a full server tries its journal again */
#define FULL_ROOM (64 * 1024) /* free bytes the state directory needs to leave it */

struct pending_submit {
	struct job job; /* validated, without an id */
	char *command;
	const char *idem;
	bool done, replay;
	bool idem_taken; /* the key names another user's job of the same uid */
	int rc;
	struct gq_err err;
	struct job result;
	struct pending_submit *next;
};

struct stop_rec {
	int64_t id;
	enum stop_intent intent;
	bool killed;
};

/* A signal a stop sends once the stop is committed (journal_commit). */
struct pending_sig {
	int64_t id;
	int sig;
};

struct server {
	const struct server_config *cfg;
	pthread_mutex_t mu;
	pthread_cond_t ev_cv, commit_cv, done_cv;
	struct snapshot snap;
	struct db *db;
	struct runner *runner;
	struct auth *auth;
	struct policy_repo *prepo;
	struct enforce *enf;
	int64_t next_id, last_seq;
	int64_t manual_now;
	int64_t share_prev;
	struct stop_rec *stops;
	size_t nstops, stops_cap;
	struct pending_submit *q_head, *q_tail;
	bool stopping;
	int wake[2];
	bool root;
	/* The journal cannot commit (journal_failed): writes are refused and
	 * the scheduler only tries the journal again (journal_probe). */
	bool full;
	struct gq_err full_err; /* what failed first */
	struct pending_sig *sigs;
	size_t nsigs, sigs_cap;
	int lockfd;		  /* held for the server's life: one server per state directory */
	const char *gpus_how;	  /* "nvidia-smi" or "slots" */
	pthread_t bare_committer; /* server_open_bare's */
};

static const char *const intent_names[] = {"", "cancel", "requeue", "timeout", "preempt"};

/* ---- small helpers (lock held) ---- */

static int64_t now_locked(const struct server *s)
{
	return s->cfg->manual_clock ? s->manual_now : (int64_t)time(NULL);
}

static struct enforce_ctx enforce_ctx_of(struct server *s)
{
	struct enforce_ctx c = {s, &s->snap, s->db, s->runner, now_locked(s)};
	return c;
}

static void wake_scheduler(struct server *s)
{
	char c = 1;
	ssize_t w = write(s->wake[1], &c, 1);
	(void)w; /* a full pipe already means "wake up" */
}

static struct stop_rec *stop_find(struct server *s, int64_t id)
{
	for (size_t i = 0; i < s->nstops; i++)
		if (s->stops[i].id == id)
			return &s->stops[i];
	return NULL;
}

static void stop_set(struct server *s, int64_t id, enum stop_intent in)
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

static void stop_clear(struct server *s, int64_t id)
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

static int persist(struct server *s, const struct job *j, struct gq_err *e)
{
	char *t = codec_job_text(j);
	int rc = db_job_update(s->db, j->id, t, intent_names[intent_of(s, j->id)], e);
	free(t);
	return rc;
}

static int emit(struct server *s, int64_t job, const char *kind, enum job_state from,
		enum job_state to, const char *reason, const char *actor, struct gq_err *e)
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
GQ_NORETURN static void journal_fatal(const struct gq_err *e)
{
	log_error("%s; stopping so that a restart recovers from the journal", e->msg);
	_exit(1);
}

static int load_journal(struct server *s, struct gq_err *e);
static int recover(struct server *s, bool after_full, struct gq_err *out);

static void full_enter(struct server *s, const struct gq_err *e)
{
	if (s->full)
		return;
	s->full = true;
	s->full_err = *e;
	log_error("%s; refusing writes until the journal can commit again", e->msg);
}

static void journal_failed(struct server *s, const struct gq_err *e)
{
	struct gq_err le = GQ_ERR_INIT;
	db_rollback(s->db);
	s->nsigs = 0;
	if (load_journal(s, &le) < 0)
		journal_fatal(&le);
	full_enter(s, e);
}

/* The answer to a write while full; what: "submissions" or "changes". */
static int full_refusal(struct server *s, const char *what, struct gq_err *e)
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
static int journal_commit(struct server *s, struct gq_err *e)
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
static bool journal_probe(struct server *s)
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

static void account(struct server *s, int64_t now);

/* Job j's process ended with status, at unix time ended by its supervisor's
 * account (0 unknown): it becomes what its stop intent says. */
static int finish_locked(struct server *s, struct job *j, int status, int64_t ended,
			 const char *why, struct gq_err *e)
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

/* ---- starting jobs ---- */

/* Forks the supervisor of j (state STARTING, committed). */
static int spawn(struct server *s, struct job *j, struct gq_err *e)
{
	char *cmd = NULL;
	struct submission sub;
	memset(&sub, 0, sizeof(sub));
	if (db_job_command(s->db, j->id, &cmd, e) < 0)
		return -1;
	int rc = codec_command_from_text(cmd, &sub, e);
	free(cmd);
	if (rc < 0)
		return -1;
	char gpus[256], home[PATH_MAX];
	job_gpu_list(j, gpus, sizeof(gpus));
	gid_t groups[64];
	int ngroups = 0;
	bool sw = s->root && j->uid != 0;
	if (sw)
		ngroups = auth_groups(j->user, j->gid, groups, 64);
	if (!sub.cwd)
		auth_home(j->uid, home, sizeof(home));
	struct run_spec spec = {
	    .id = j->id,
	    .argv = sub.argv,
	    .script = sub.script,
	    .cwd = sub.cwd ? sub.cwd : home,
	    .env = sub.env,
	    .switch_user = sw,
	    .uid = j->uid,
	    .gid = j->gid,
	    .groups = groups,
	    .ngroups = ngroups,
	    .gpus = gpus,
	    .restarts = j->restarts,
	    .grace = s->snap.policy.grace,
	};
	rc = runner_start(s->runner, &spec, e);
	submission_release(&sub);
	return rc;
}

/* ---- the scheduling loop ---- */

static int32_t tz_offset(int64_t now)
{
	time_t t = (time_t)now;
	struct tm tm;
	localtime_r(&t, &tm);
	return (int32_t)tm.tm_gmtoff;
}

/* What clients see and what the plan is made on: the active jobs and those
 * that ended within RECENT_WINDOW, the node, the policy and its state at
 * `now`. Lock held. */
static void copy_locked(struct server *s, struct snapshot *out, int64_t now)
{
	snapshot_release(out);
	out->now = now;
	out->tz_offset = tz_offset(now);
	out->policy = s->snap.policy;
	memcpy(out->qstate, s->snap.qstate, sizeof(out->qstate));
	memcpy(out->dstate, s->snap.dstate, sizeof(out->dstate));
	for (size_t i = 0; i < s->snap.nnodes; i++)
		*snapshot_add_node(out) = s->snap.nodes[i];
	out->jobs = xmalloc((s->snap.njobs ? s->snap.njobs : 1) * sizeof(*out->jobs));
	out->jobs_cap = s->snap.njobs ? s->snap.njobs : 1;
	for (size_t i = 0; i < s->snap.njobs; i++) {
		const struct job *j = &s->snap.jobs[i];
		if (job_state_active(j->state) || j->end_time >= now - RECENT_WINDOW)
			out->jobs[out->njobs++] = *j;
	}
}

/* Dept GPU-hours of the running month and fair-share usage, from the last
 * tick to now. */
static void account(struct server *s, int64_t now)
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

static int save_usage(struct server *s, struct gq_err *e)
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

static void load_usage(struct server *s)
{
	char *text = xmalloc(65536), when[32];
	struct gq_err e = GQ_ERR_INIT;
	if (db_meta_get(s->db, "usage", text, 65536, &e) < 0 ||
	    db_meta_get(s->db, "usage.time", when, sizeof(when), &e) < 0)
		journal_fatal(&e);
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
static int lose_locked(struct server *s, struct job *j, struct gq_err *e)
{
	log_warn("job %" PRId64 ": its supervisor is gone without an exit status", j->id);
	runner_signal(s->runner, j->id, SIGKILL, NULL);
	enum job_state from = j->state;
	j->state = JOB_FAILED;
	j->exit_status = -1;
	j->end_time = now_locked(s);
	j->stop_deadline = 0;
	stop_clear(s, j->id);
	if (persist(s, j, e) < 0)
		return -1;
	return emit(s, j->id, "state", from, JOB_FAILED, "lost: its supervisor died", "scheduler",
		    e);
}

static int handle_exit(struct server *s, int64_t id, bool *changed, struct gq_err *e)
{
	struct job *j = snapshot_find(&s->snap, id);
	if (!j || !job_state_holds_gpus(j->state))
		return 0;
	int status = -1;
	int64_t ended = 0;
	enum run_state rs = runner_probe(s->runner, id, &status, &ended);
	if (rs == RUN_EXITED) {
		*changed = true;
		return finish_locked(s, j, status, ended, NULL, e);
	} else if (rs == RUN_LOST || rs == RUN_UNKNOWN) {
		*changed = true;
		return lose_locked(s, j, e);
	}
	return 0;
}

/* One pass: exits, kill deadlines, time limits, the plan. Returns the next
 * time (server clock) at which a pass is due without any event, 0 none. */
static int64_t tick(struct server *s)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t now = now_locked(s);
	int64_t forget[256];
	int nforget = 0;
	bool changed = false;
	struct plan plan;
	plan_init(&plan);
	uint64_t *used = NULL;
	int64_t *starting = NULL;
	int64_t ids[256];

	if (s->full) {
		/* Exit notifications meanwhile are dropped: recover() looks at
		 * every job that holds GPUs. */
		runner_drain(s->runner, ids, 256);
		if (!journal_probe(s))
			return 0;
		if (recover(s, true, &e) < 0)
			goto fail;
	}
	if (db_begin(s->db, &e) < 0)
		goto fail;
	account(s, now);

	int n = runner_drain(s->runner, ids, 256);
	if (n < 0) {
		/* Lost notifications: look at every job that holds GPUs. */
		for (size_t i = 0; i < s->snap.njobs; i++)
			if (job_state_holds_gpus(s->snap.jobs[i].state) &&
			    handle_exit(s, s->snap.jobs[i].id, &changed, &e) < 0)
				goto fail;
	} else {
		for (int i = 0; i < n; i++)
			if (handle_exit(s, ids[i], &changed, &e) < 0)
				goto fail;
	}
	for (int i = 0; n > 0 && i < n && nforget < 256; i++) {
		struct job *j = snapshot_find(&s->snap, ids[i]);
		if (j && !job_state_holds_gpus(j->state))
			forget[nforget++] = ids[i];
	}

	int64_t next = 0;
#define DUE(t) (next = (next == 0 || (t) < next) ? (t) : next)
	struct enforce_ctx ec = enforce_ctx_of(s);
	int64_t budget_back = 0;
	if (enforce_prepare(s->enf, &ec, &budget_back, &e) < 0)
		goto fail;
	if (budget_back > now)
		DUE(budget_back);
	for (size_t i = 0; i < s->snap.njobs; i++) {
		struct job *j = &s->snap.jobs[i];
		if (j->state == JOB_STOPPING && j->stop_deadline > 0) {
			struct stop_rec *r = stop_find(s, j->id);
			if (j->stop_deadline <= now && (!r || !r->killed)) {
				log_info("job %" PRId64 ": grace period over, SIGKILL", j->id);
				runner_signal(s->runner, j->id, SIGKILL, NULL);
				if (r)
					r->killed = true;
			} else if (j->stop_deadline > now) {
				DUE(j->stop_deadline);
			}
		} else if (j->state == JOB_RUNNING && j->time_limit > 0 && j->start_time > 0) {
			int64_t end = j->start_time + j->time_limit;
			if (end <= now) {
				if (server_stop_locked(s, j, STOP_TIMEOUT, SIGTERM,
						       s->snap.policy.grace, "scheduler",
						       "time limit reached", &e) < 0)
					goto fail;
				changed = true;
			} else {
				DUE(end);
			}
		}
	}

	if ((changed && save_usage(s, &e) < 0) || journal_commit(s, &e) < 0)
		goto fail;
	for (int i = 0; i < nforget; i++)
		runner_forget(s->runner, forget[i]);

	/* The plan, on a copy of what clients see and without the lock: a
	 * pass over 10,000 jobs takes milliseconds, and submissions keep
	 * committing meanwhile. Anything committed during the pass writes the
	 * wake-up pipe, so the loop comes straight back for another pass. */
	struct snapshot cp;
	snapshot_init(&cp);
	copy_locked(s, &cp, now);
	pthread_mutex_unlock(&s->mu);
	predict_fill_history(&cp); /* runtimes from the finished jobs (DESIGN §5) */
	sched_plan(&cp, &plan);
	snapshot_release(&cp);
	pthread_mutex_lock(&s->mu);
	if (plan.wake > now)
		DUE(plan.wake);

	/* Starts are journalled as STARTING before any process exists, so
	 * that a crash between here and the fork is recovered as "never
	 * started" rather than lost. A start the world has overtaken (the job
	 * was held or cancelled meanwhile) is dropped; the next pass sees it. */
	used = xcalloc(s->snap.nnodes + 1, sizeof(*used));
	for (size_t i = 0; i < s->snap.njobs; i++) {
		const struct job *j = &s->snap.jobs[i];
		if (job_state_holds_gpus(j->state))
			for (int k = 0; k < j->nalloc; k++)
				if (j->alloc[k].node >= 0 &&
				    (size_t)j->alloc[k].node < s->snap.nnodes)
					used[j->alloc[k].node] |= j->alloc[k].mask;
	}
	starting = xcalloc(plan.n + 1, sizeof(*starting));
	size_t nstart = 0;
	if (db_begin(s->db, &e) < 0)
		goto fail;
	for (size_t i = 0; i < plan.n; i++) {
		const struct plan_action *a = &plan.actions[i];
		if (a->kind != PLAN_START) {
			if (enforce_act(s->enf, &ec, a, &e) < 0)
				goto fail;
			changed = true;
			continue;
		}
		struct job *j = snapshot_find(&s->snap, a->job);
		if (!j || j->state != JOB_PENDING || j->held)
			continue;
		bool free_now = a->nalloc > 0;
		for (int k = 0; k < a->nalloc; k++)
			if (a->alloc[k].node < 0 || (size_t)a->alloc[k].node >= s->snap.nnodes ||
			    (used[a->alloc[k].node] & a->alloc[k].mask))
				free_now = false;
		if (!free_now)
			continue;
		for (int k = 0; k < a->nalloc; k++)
			used[a->alloc[k].node] |= a->alloc[k].mask;
		j->state = JOB_STARTING;
		j->nalloc = a->nalloc;
		memset(j->alloc, 0, sizeof(j->alloc));
		memcpy(j->alloc, a->alloc, (size_t)a->nalloc * sizeof(j->alloc[0]));
		j->borrowed = a->borrowed;
		j->start_time = now;
		j->exit_status = -1;
		if (persist(s, j, &e) < 0 ||
		    emit(s, j->id, "state", JOB_PENDING, JOB_STARTING,
			 a->reason[0] ? a->reason : "start", "scheduler", &e) < 0)
			goto fail;
		starting[nstart++] = j->id;
	}
	free(used);
	used = NULL;
	plan_release(&plan);
	if ((nstart > 0 && save_usage(s, &e) < 0) || journal_commit(s, &e) < 0)
		goto fail;

	if (nstart > 0) {
		if (db_begin(s->db, &e) < 0)
			goto fail;
		for (size_t i = 0; i < nstart; i++) {
			struct job *j = snapshot_find(&s->snap, starting[i]);
			struct gq_err se = GQ_ERR_INIT;
			if (s->full || spawn(s, j, &se) < 0) {
				if (s->full || se.code == GQ_ENOSPACE) {
					/* Its run files do not fit: the job never started.
					 * Pending again, and no more starts until space
					 * returns (the full state). */
					full_enter(s, &se);
					runner_forget(s->runner, j->id);
					j->state = JOB_PENDING;
					j->nalloc = 0;
					j->start_time = 0;
					if (persist(s, j, &e) < 0 ||
					    emit(s, j->id, "state", JOB_STARTING, JOB_PENDING,
						 "not started: the state directory is full",
						 "scheduler", &e) < 0)
						goto fail;
					continue;
				}
				log_error("job %" PRId64 ": %s", j->id, se.msg);
				j->state = JOB_FAILED;
				j->end_time = now;
				j->nalloc = 0;
				char why[160];
				snprintf(why, sizeof(why), "cannot start: %.140s", se.msg);
				if (persist(s, j, &e) < 0 ||
				    emit(s, j->id, "state", JOB_STARTING, JOB_FAILED, why,
					 "scheduler", &e) < 0)
					goto fail;
				continue;
			}
			j->state = JOB_RUNNING;
			if (persist(s, j, &e) < 0 ||
			    emit(s, j->id, "state", JOB_STARTING, JOB_RUNNING, "started",
				 "scheduler", &e) < 0 ||
			    enforce_job_started(s->enf, &ec, j, &e) < 0)
				goto fail;
			log_info("job %" PRId64 " started", j->id);
			if (j->time_limit > 0)
				DUE(j->start_time + j->time_limit);
		}
		if (journal_commit(s, &e) < 0)
			goto fail;
	}
	free(starting);
	if (nstart > 0 || changed || n != 0)
		pthread_cond_broadcast(&s->ev_cv);
	return next;
fail:
	free(used);
	free(starting);
	plan_release(&plan);
	journal_failed(s, &e);
	return 0;
#undef DUE
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *scheduler_main(void *arg)
{
	struct server *s = arg;
	double cost = 0;
	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		double t0 = mono_s();
		int64_t due = tick(s);
		cost = mono_s() - t0;
		int timeout = -1;
		if (!s->cfg->manual_clock) {
			/* The real clock: sleep until the next deadline, and at
			 * most a minute so that usage accounting stays fresh. */
			int64_t now = now_locked(s);
			timeout = MAX_WAIT_MS;
			if (due > 0)
				timeout = due <= now ? 0
						     : (int)((due - now) * 1000 < MAX_WAIT_MS
								 ? (due - now) * 1000
								 : MAX_WAIT_MS);
		}
		if (s->full)
			timeout = FULL_PROBE_MS; /* nothing says when space returns */
		pthread_mutex_unlock(&s->mu);
		/* Pace the passes: after one that took `cost`, wait twice as
		 * long before the next, so that a busy queue (a pass per
		 * commit) leaves two thirds of a core to the handlers and the
		 * journal. What happens meanwhile is taken by the next pass. */
		if (cost > 0.0005) {
			double pause = 2 * cost < 0.2 ? 2 * cost : 0.2;
			struct timespec ts = {0, (long)(pause * 1e9)};
			nanosleep(&ts, NULL);
		}
		struct pollfd pf[2] = {{s->wake[0], POLLIN, 0}, {runner_fd(s->runner), POLLIN, 0}};
		poll(pf, 2, timeout);
		if (pf[0].revents & POLLIN) {
			char b[256];
			while (read(s->wake[0], b, sizeof(b)) > 0)
				;
		}
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* ---- group commit of submissions ---- */

static void commit_batch(struct server *s, struct pending_submit *list)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t seq0 = s->last_seq, id0 = s->next_id;
	int rc = s->full ? full_refusal(s, "submissions", &e) : db_begin(s->db, &e);
	for (struct pending_submit *p = list; rc == 0 && p; p = p->next) {
		if (p->idem) {
			int64_t id = 0;
			int f = db_job_by_idem(s->db, p->job.uid, p->idem, &id, &e);
			if (f < 0) {
				rc = -1;
				break;
			}
			if (f == 1) {
				/* Keys are kept per uid, jobs belong to user
				 * names: token users may share a uid. */
				const struct job *j = snapshot_find(&s->snap, id);
				if (j && strcmp(j->user, p->job.user) != 0)
					p->idem_taken = true;
				else
					p->replay = true;
				p->result.id = id;
				continue;
			}
		}
		p->job.id = s->next_id++;
		char *t = codec_job_text(&p->job);
		rc = db_job_insert(s->db, p->job.id, p->job.uid, p->idem, t, p->command, &e);
		free(t);
		if (rc == 0)
			rc = emit(s, p->job.id, "submit", JOB_PENDING, JOB_PENDING,
				  p->job.held ? "held" : "submitted", p->job.user, &e);
	}
	if (rc == 0)
		rc = journal_commit(s, &e);
	if (rc < 0 && !s->full) {
		/* Only the sequence and ids ran ahead: the jobs join memory
		 * once committed. */
		db_rollback(s->db);
		s->last_seq = seq0;
		s->next_id = id0;
		full_enter(s, &e);
		full_refusal(s, "submissions", &e);
	}
	for (struct pending_submit *p = list; p; p = p->next) {
		p->rc = rc;
		if (rc < 0) {
			p->err = e;
		} else if (p->idem_taken) {
			p->rc = err_set(
			    &p->err, GQ_ECONFLICT,
			    "Idempotency-Key '%s' is taken by another user's job; use a key "
			    "of your own",
			    p->idem);
		} else if (p->replay) {
			struct job *j = snapshot_find(&s->snap, p->result.id);
			if (j)
				p->result = *j;
		} else {
			*snapshot_add_job(&s->snap) = p->job;
			p->result = p->job;
		}
		p->done = true;
	}
}

static void *committer_main(void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->q_head && !s->stopping)
			pthread_cond_wait(&s->commit_cv, &s->mu);
		if (!s->q_head)
			break;
		struct pending_submit *list = s->q_head;
		s->q_head = s->q_tail = NULL;
		bool startable = false;
		for (struct pending_submit *p = list; p; p = p->next)
			if (p->rc == 0 && !p->replay && !p->job.held)
				startable = true;
		commit_batch(s, list);
		pthread_cond_broadcast(&s->done_cv);
		pthread_cond_broadcast(&s->ev_cv);
		/* A held job changes no plan until it is released. */
		if (startable)
			wake_scheduler(s);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Checks a submission against the policy and the machine and fills in what
 * the server owns. Lock held. */
static int prepare(struct server *s, const struct identity *who, struct submission *sub,
		   struct job *out, struct gq_err *e)
{
	struct job j = sub->job;
	const struct policy *p = &s->snap.policy;
	int64_t now = now_locked(s);
	STR_COPY(j.user, who->user);
	j.uid = who->uid;
	j.gid = who->gid;
	if (!j.name[0]) {
		const char *base = "script";
		if (sub->argv) {
			base = strrchr(sub->argv[0], '/') ? strrchr(sub->argv[0], '/') + 1
							  : sub->argv[0];
		}
		if (!str_copy(j.name, sizeof(j.name), base) || !label_valid(j.name))
			STR_COPY(j.name, "job");
	}
	if (!label_valid(j.name))
		return err_set(e, GQ_EINVAL,
			       "job name '%s' is not valid; use 1-63 printable characters without "
			       "spaces",
			       j.name);
	if (!j.queue[0])
		STR_COPY(j.queue, p->default_queue);
	int qi = policy_queue_index(p, j.queue);
	if (qi < 0) {
		char list[256] = "";
		size_t n = 0;
		for (int i = 0; i < p->nqueues; i++)
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      "%s%s", i ? ", " : "", p->queues[i].name);
		return err_set(e, GQ_EINVAL, "unknown queue '%s'; the queues are: %s", j.queue,
			       list);
	}
	STR_COPY(j.dept, p->queues[qi].dept);
	if (strcmp(p->tier[j.tier].allow, "*") != 0) {
		char groups[1024] = "";
		if (who->local)
			auth_group_names(who->uid, who->user, who->gid, groups, sizeof(groups));
		if (!policy_tier_allows(p, j.tier, who->user, groups))
			return err_set(
			    e, GQ_EPERM,
			    "tier '%s' is not open to '%s' (tier.%s.allow is '%s'); submit "
			    "with another tier",
			    tier_name(j.tier), who->user, tier_name(j.tier), p->tier[j.tier].allow);
	}
	if (job_req_check(&j, e) < 0)
		return -1;
	if (j.req.gpu_type[0] && !name_valid(j.req.gpu_type))
		return err_set(e, GQ_EINVAL, "GPU type '%s' is not a valid name", j.req.gpu_type);
	for (int i = 0; i < j.ndeps; i++)
		if (!snapshot_find(&s->snap, j.deps[i]))
			return err_set(e, GQ_EINVAL,
				       "dependency '%" PRId64 "' does not exist; see 'gq ls --all'",
				       j.deps[i]);
	if (sub->cwd && sub->cwd[0] != '/')
		return err_set(e, GQ_EINVAL, "working directory '%s' is not an absolute path",
			       sub->cwd);
	j.state = JOB_PENDING;
	j.exit_status = -1;
	j.submit_time = j.queued_time = now;
	j.start_time = j.end_time = 0;
	j.nalloc = 0;
	if (j.held) {
		STR_COPY(j.held_by, who->user);
		j.held_at = now;
	}
	if (place_satisfiable(&s->snap, &j, e) < 0)
		return -1;
	*out = j;
	return 0;
}

int server_submit(struct server *s, const struct identity *who, struct submission *sub,
		  const char *idem, struct job *out, bool *replay, struct gq_err *e)
{
	struct pending_submit p;
	memset(&p, 0, sizeof(p));
	p.idem = idem;
	p.command = codec_command_text(sub->argv, sub->script, sub->cwd, sub->env);
	pthread_mutex_lock(&s->mu);
	int rc = -1;
	if (s->stopping) {
		err_set(e, GQ_EUNAVAIL, "gq serve is shutting down; retry in a moment");
		goto out;
	}
	if (prepare(s, who, sub, &p.job, e) < 0)
		goto out;
	if (s->full) {
		full_refusal(s, "submissions", e);
		goto out;
	}
	if (s->q_tail)
		s->q_tail->next = &p;
	else
		s->q_head = &p;
	s->q_tail = &p;
	pthread_cond_signal(&s->commit_cv);
	while (!p.done)
		pthread_cond_wait(&s->done_cv, &s->mu);
	if (p.rc < 0) {
		*e = p.err;
		goto out;
	}
	*out = p.result;
	*replay = p.replay;
	rc = 0;
out:
	pthread_mutex_unlock(&s->mu);
	free(p.command);
	submission_release(sub);
	return rc;
}

static int find_job(struct server *s, int64_t id, struct job **out, struct gq_err *e)
{
	struct job *j = snapshot_find(&s->snap, id);
	if (!j)
		return err_set(e, GQ_ENOENT, "no job '%" PRId64 "'; see 'gq ls --all'", id);
	*out = j;
	return 0;
}

static int check_owner(const struct identity *who, const struct job *j, struct gq_err *e)
{
	if (who->role == ROLE_ADMIN || !strcmp(who->user, j->user))
		return 0;
	return err_set(e, GQ_EPERM,
		       "job '%" PRId64 "' belongs to '%s'; you may act on your own jobs only",
		       j->id, j->user);
}

int server_job(struct server *s, int64_t id, struct job *out, struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	int rc = find_job(s, id, &j, e);
	if (rc == 0 && j)
		*out = *j;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

static void actor_of(const struct identity *who, const struct job *j, char *out, size_t size)
{
	if (who->role == ROLE_ADMIN && strcmp(who->user, j->user) != 0)
		snprintf(out, size, "admin:%s", who->user);
	else
		snprintf(out, size, "%s", who->user);
}

/* Applies one action to the copy c of the job; fills the event. */
static int act_on(struct server *s, const struct identity *who, struct job *c, enum job_action a,
		  const struct act_args *args, const char *actor, bool *stop, char *kind,
		  char *reason, struct gq_err *e)
{
	int64_t now = now_locked(s);
	const char *st = job_state_name(c->state);
	*stop = false;
	switch (a) {
	case ACT_CANCEL:
		if (c->state == JOB_PENDING) {
			c->state = JOB_CANCELLED;
			c->end_time = now;
			strcpy(kind, "state");
			strcpy(reason, "cancelled");
			return 0;
		}
		if (job_state_holds_gpus(c->state)) {
			*stop = true;
			return 0;
		}
		return err_set(e, GQ_ECONFLICT,
			       "job '%" PRId64 "' is already %s; nothing to cancel", c->id, st);
	case ACT_HOLD:
		if (c->state != JOB_PENDING)
			return err_set(e, GQ_ECONFLICT,
				       "job '%" PRId64 "' is %s; only pending jobs can be held",
				       c->id, st);
		if (c->held)
			return err_set(e, GQ_ECONFLICT, "job '%" PRId64 "' is already held by '%s'",
				       c->id, c->held_by);
		c->held = true;
		STR_COPY(c->held_by, actor);
		c->held_at = now;
		strcpy(kind, "hold");
		strcpy(reason, "held");
		return 0;
	case ACT_RELEASE:
		if (!c->held || c->state != JOB_PENDING)
			return err_set(e, GQ_ECONFLICT,
				       "job '%" PRId64 "' is not held; nothing to release", c->id);
		c->held = false;
		c->held_by[0] = '\0';
		c->held_at = 0;
		strcpy(kind, "release");
		strcpy(reason, "released");
		return 0;
	case ACT_REQUEUE:
		if (c->state == JOB_PENDING)
			return err_set(e, GQ_ECONFLICT, "job '%" PRId64 "' is already pending",
				       c->id);
		if (c->state == JOB_STOPPING)
			return err_set(e, GQ_ECONFLICT,
				       "job '%" PRId64
				       "' is already stopping; requeue it once it ended",
				       c->id);
		if (job_state_holds_gpus(c->state)) {
			*stop = true;
			return 0;
		}
		c->state = JOB_PENDING;
		c->restarts++;
		c->queued_time = now;
		c->exit_status = -1;
		c->end_time = 0;
		c->nalloc = 0;
		strcpy(kind, "state");
		strcpy(reason, "requeued");
		return 0;
	case ACT_OVERRIDE:
		if (who->role != ROLE_ADMIN)
			return err_set(e, GQ_EPERM, "overrides are admin actions; ask an admin");
		if (!args->reason || !args->reason[0])
			return err_set(e, GQ_EINVAL, "an override needs a reason ('reason' field)");
		if (!job_state_active(c->state))
			return err_set(e, GQ_ECONFLICT,
				       "job '%" PRId64 "' is %s; overrides apply to active jobs",
				       c->id, st);
		if (args->clear) {
			if (!c->ovr.set)
				return err_set(e, GQ_ECONFLICT,
					       "job '%" PRId64 "' has no override to clear", c->id);
			memset(&c->ovr, 0, sizeof(c->ovr));
			snprintf(reason, 160, "cleared: %.140s", args->reason);
		} else {
			c->ovr.set = true;
			c->ovr.tier = args->tier;
			snprintf(c->ovr.actor, sizeof(c->ovr.actor), "admin:%s", who->user);
			if (!STR_COPY(c->ovr.reason, args->reason))
				return err_set(e, GQ_EINVAL,
					       "the reason is longer than %zu characters",
					       sizeof(c->ovr.reason) - 1);
			c->ovr.at = now;
			snprintf(reason, 160, "%s: %.140s", tier_name(args->tier), args->reason);
		}
		strcpy(kind, "override");
		return 0;
	case ACT_CONFIRM:
		if (c->state != JOB_PENDING || c->tier != TIER_P0)
			return err_set(
			    e, GQ_ECONFLICT,
			    "job '%" PRId64 "' is not a pending P0 job; nothing to confirm", c->id);
		c->confirmed_at = now;
		strcpy(kind, "confirm");
		strcpy(reason, "P0 confirmed");
		return 0;
	case ACT_CHECKPOINT:
		if (c->state != JOB_RUNNING && c->state != JOB_STOPPING)
			return err_set(e, GQ_ECONFLICT,
				       "job '%" PRId64
				       "' is %s; only a running job reports checkpoints",
				       c->id, st);
		c->last_checkpoint = now;
		strcpy(kind, "checkpoint");
		strcpy(reason, "checkpoint saved");
		return 0;
	}
	BUG("action %d", (int)a);
}

int server_act(struct server *s, const struct identity *who, int64_t id, enum job_action a,
	       const struct act_args *args, struct job *out, struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	int rc = -1;
	if (find_job(s, id, &j, e) < 0 || check_owner(who, j, e) < 0)
		goto out;
	char actor[32], kind[24] = "", reason[160] = "";
	actor_of(who, j, actor, sizeof(actor));
	struct job c = *j;
	bool stop = false;
	if (act_on(s, who, &c, a, args, actor, &stop, kind, reason, e) < 0)
		goto out;
	if (s->full) {
		full_refusal(s, "changes", e);
		goto out;
	}
	if (db_begin(s->db, e) < 0)
		goto out;
	if (stop) {
		enum stop_intent in = a == ACT_CANCEL ? STOP_CANCEL : STOP_REQUEUE;
		if (j->state == JOB_STOPPING) {
			/* Already stopping (a cancel while being preempted):
			 * only what it becomes changes. */
			stop_set(s, j->id, in);
			rc = persist(s, j, e);
			if (rc == 0)
				rc = emit(s, j->id, "state", j->state, j->state,
					  a == ACT_CANCEL ? "cancel" : "requeue", actor, e);
		} else {
			rc = server_stop_locked(s, j, in, SIGTERM, s->snap.policy.grace, actor,
						a == ACT_CANCEL ? "cancel" : "requeue", e);
		}
		/* The stop changed memory too: journal_failed rolls it back. */
		if (rc < 0 || journal_commit(s, e) < 0)
			goto failed;
	} else {
		struct enforce_ctx ec = enforce_ctx_of(s);
		if (persist(s, &c, e) < 0 ||
		    emit(s, c.id, kind, j->state, c.state, reason, actor, e) < 0 ||
		    (a == ACT_CHECKPOINT && enforce_job_checkpoint(s->enf, &ec, &c, e) < 0) ||
		    journal_commit(s, e) < 0)
			goto failed;
		*j = c;
	}
	*out = *j;
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	wake_scheduler(s);
	goto out;
failed:
	rc = -1;
	journal_failed(s, e);
	full_refusal(s, "changes", e);
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int server_command(struct server *s, const struct identity *who, int64_t id, char **json,
		   struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	int rc = find_job(s, id, &j, e);
	if (rc == 0)
		rc = check_owner(who, j, e);
	if (rc == 0)
		rc = db_job_command(s->db, id, json, e);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int server_log_path(struct server *s, const struct identity *who, int64_t id, const char *stream,
		    char **path, struct gq_err *e)
{
	if (strcmp(stream, "stdout") != 0 && strcmp(stream, "stderr") != 0)
		return err_set(e, GQ_EINVAL, "unknown log stream '%s'; use stdout or stderr",
			       stream);
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	int rc = find_job(s, id, &j, e);
	if (rc == 0)
		rc = check_owner(who, j, e);
	if (rc == 0)
		*path = runner_log_path(s->runner, id, stream);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void server_info(struct server *s, struct server_info *out)
{
	pthread_mutex_lock(&s->mu);
	out->now = now_locked(s);
	out->manual_clock = s->cfg->manual_clock;
	out->last_seq = s->last_seq;
	pthread_mutex_unlock(&s->mu);
}

void server_snapshot(struct server *s, struct snapshot *out, int64_t *last_seq)
{
	pthread_mutex_lock(&s->mu);
	copy_locked(s, out, now_locked(s));
	*last_seq = s->last_seq;
	pthread_mutex_unlock(&s->mu);
}

void server_jobs(struct server *s, const struct job_filter *f, struct job **out, size_t *n)
{
	pthread_mutex_lock(&s->mu);
	size_t cnt = 0;
	struct job *v = xmalloc((s->snap.njobs ? s->snap.njobs : 1) * sizeof(*v));
	for (size_t i = 0; i < s->snap.njobs; i++) {
		const struct job *j = &s->snap.jobs[i];
		bool ok = f->all      ? true
			  : f->states ? (f->states & (1u << j->state)) != 0
				      : job_state_active(j->state);
		if (ok && f->user && strcmp(f->user, j->user) != 0)
			ok = false;
		if (ok)
			v[cnt++] = *j;
	}
	pthread_mutex_unlock(&s->mu);
	if (f->limit && cnt > f->limit) {
		memmove(v, v + (cnt - f->limit), f->limit * sizeof(*v));
		cnt = f->limit;
	}
	*out = v;
	*n = cnt;
}

static struct timespec deadline_in(int ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

int server_events(struct server *s, int64_t after, int wait_ms, int max, struct event **out,
		  size_t *n, int64_t *next, struct gq_err *e)
{
	if (wait_ms > MAX_WAIT_MS)
		wait_ms = MAX_WAIT_MS;
	pthread_mutex_lock(&s->mu);
	if (wait_ms > 0 && s->last_seq <= after) {
		struct timespec dl = deadline_in(wait_ms);
		while (s->last_seq <= after && !s->stopping)
			if (pthread_cond_timedwait(&s->ev_cv, &s->mu, &dl) == ETIMEDOUT)
				break;
	}
	struct event *v = xcalloc((size_t)max, sizeof(*v));
	int cnt = 0;
	int rc = db_events_after(s->db, after, v, max, &cnt, e);
	pthread_mutex_unlock(&s->mu);
	if (rc < 0) {
		free(v);
		return -1;
	}
	*out = v;
	*n = (size_t)cnt;
	*next = cnt > 0 ? v[cnt - 1].seq : after;
	return 0;
}

int server_stats(struct server *s, int64_t from, int64_t to, struct stats *out, int *counts,
		 int64_t *nowp, struct gq_err *e)
{
	struct snapshot snap;
	snapshot_init(&snap);
	int64_t seq;
	server_snapshot(s, &snap, &seq);
	int64_t now = snap.now;
	if (to <= 0)
		to = now + 1;
	if (from <= 0)
		from = to - RECENT_WINDOW;
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		counts[i] = 0;
	for (size_t i = 0; i < snap.njobs; i++)
		counts[snap.jobs[i].state]++;
	/* Every event, in pages, read under the lock a page at a time. */
	struct event *all = NULL;
	size_t nall = 0, cap = 0;
	int64_t after = 0;
	int rc = 0;
	for (;;) {
		struct event *page;
		size_t np;
		int64_t nx;
		if (server_events(s, after, 0, 4096, &page, &np, &nx, e) < 0) {
			rc = -1;
			break;
		}
		if (np > 0) {
			GROW(all, cap, nall + np);
			memcpy(all + nall, page, np * sizeof(*page));
			nall += np;
		}
		free(page);
		if (np < 4096 || nx >= seq)
			break;
		after = nx;
	}
	if (rc == 0)
		rc = stats_compute(&snap, all, nall, from, to, out, e);
	free(all);
	snapshot_release(&snap);
	*nowp = now;
	return rc;
}

void server_preemptions(struct server *s, int64_t job, size_t limit, struct preempt_record **out,
			size_t *n, int64_t *nowp)
{
	pthread_mutex_lock(&s->mu);
	enforce_records(s->enf, job, limit, out, n);
	*nowp = now_locked(s);
	pthread_mutex_unlock(&s->mu);
}

void server_reclaim(struct server *s, struct reclaim_entry **out, size_t *n, int64_t *nowp,
		    struct policy *p)
{
	pthread_mutex_lock(&s->mu);
	struct enforce_ctx ec = enforce_ctx_of(s);
	enforce_reclaim(s->enf, &ec, out, n);
	*nowp = ec.now;
	*p = s->snap.policy;
	wake_scheduler(s); /* its next pass journals what the sample saw */
	pthread_mutex_unlock(&s->mu);
}

int server_clock(struct server *s, const struct identity *who, int64_t delta, int64_t set,
		 int64_t *nowp, struct gq_err *e)
{
	if (who->role != ROLE_ADMIN)
		return err_set(e, GQ_EPERM, "moving the clock is an admin action");
	if (!s->cfg->manual_clock)
		return err_set(
		    e, GQ_ECONFLICT,
		    "this server uses the real clock; start it with --manual-clock to move it");
	if (delta < 0)
		return err_set(e, GQ_EINVAL, "the clock only moves forward, got %" PRId64 "s",
			       delta);
	pthread_mutex_lock(&s->mu);
	int rc = -1;
	int64_t target;
	if (set && set < s->manual_now) {
		err_set(e, GQ_EINVAL,
			"the clock only moves forward: %" PRId64 " is before now (%" PRId64 ")",
			set, s->manual_now);
		goto out;
	}
	if (set)
		target = set;
	else if (__builtin_add_overflow(s->manual_now, delta, &target))
		target = INT64_MAX;
	if (target > GQ_CLOCK_MAX) {
		err_set(e, GQ_EINVAL, "the clock cannot go past the year 9999");
		goto out;
	}
	if (s->full) {
		full_refusal(s, "changes", e);
		goto out;
	}
	int64_t old = s->manual_now, seq0 = s->last_seq;
	char v[32], reason[64];
	snprintf(v, sizeof(v), "%" PRId64, target);
	s->manual_now = target;
	snprintf(reason, sizeof(reason), "+%" PRId64 "s", target - old);
	if (db_begin(s->db, e) < 0)
		goto fail;
	if (db_meta_set(s->db, "clock", v, e) < 0 ||
	    emit(s, 0, "clock", JOB_PENDING, JOB_PENDING, reason, who->user, e) < 0 ||
	    journal_commit(s, e) < 0) {
		s->manual_now = old;
		journal_failed(s, e);
		full_refusal(s, "changes", e);
		goto out;
	}
	*nowp = target;
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	wake_scheduler(s);
	goto out;
fail:
	s->manual_now = old;
	s->last_seq = seq0;
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void server_policy(struct server *s, struct policy *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->snap.policy;
	pthread_mutex_unlock(&s->mu);
}

/* Puts p in force: queue and department states follow their names. Lock
 * held, inside a transaction. */
static int policy_put(struct server *s, const struct policy *p, const char *actor, struct gq_err *e)
{
	struct queue_state qs[GQ_MAX_QUEUES];
	struct dept_state ds[GQ_MAX_DEPTS];
	memset(qs, 0, sizeof(qs));
	memset(ds, 0, sizeof(ds));
	for (int i = 0; i < p->nqueues; i++) {
		int o = policy_queue_index(&s->snap.policy, p->queues[i].name);
		if (o >= 0)
			qs[i] = s->snap.qstate[o];
	}
	for (int i = 0; i < p->ndepts; i++) {
		int o = policy_dept_index(&s->snap.policy, p->depts[i].name);
		if (o >= 0)
			ds[i] = s->snap.dstate[o];
	}
	char reason[160];
	policy_event_reason(reason, sizeof(reason), true, p->revision[0] ? p->revision : "default",
			    "");
	if (db_meta_set(s->db, "policy.revision", p->revision, e) < 0 ||
	    emit(s, 0, "policy", JOB_PENDING, JOB_PENDING, reason, actor, e) < 0)
		return -1;
	s->snap.policy = *p;
	memcpy(s->snap.qstate, qs, sizeof(qs));
	memcpy(s->snap.dstate, ds, sizeof(ds));
	return 0;
}

static void policy_refused(struct server *s, const char *oid, const char *why, const char *actor)
{
	char reason[160];
	struct gq_err e = GQ_ERR_INIT;
	policy_event_reason(reason, sizeof(reason), false, oid, why);
	if (!s->full && (db_begin(s->db, &e) < 0 ||
			 emit(s, 0, "policy", JOB_PENDING, JOB_PENDING, reason, actor, &e) < 0 ||
			 journal_commit(s, &e) < 0))
		journal_failed(s, &e);
	log_warn("policy %s refused: %s", oid, why);
}

int server_policy_apply(struct server *s, const struct identity *who, const char *rev,
			struct policy *out, struct gq_err *e)
{
	if (who->role != ROLE_ADMIN)
		return err_set(e, GQ_EPERM, "applying a policy is an admin action");
	pthread_mutex_lock(&s->mu);
	int rc = -1;
	char actor[40];
	snprintf(actor, sizeof(actor), "admin:%s", who->user);
	if (!s->prepo) {
		err_set(e, GQ_EUNAVAIL, "this server has no policy repository; see its log");
		goto out;
	}
	if (s->full) {
		full_refusal(s, "changes", e);
		goto out;
	}
	struct gq_err fe = GQ_ERR_INIT;
	if (policy_repo_fetch(s->prepo, &fe) < 0)
		log_warn("policy fetch: %s", fe.msg);
	char oid[POLICY_OID_HEX] = "";
	if (policy_repo_resolve(s->prepo, rev, oid, e) < 0)
		goto out;
	struct policy *p = xmalloc(sizeof(*p));
	if (policy_repo_load(s->prepo, oid, p, e) < 0) {
		e->code = e->code == GQ_ENOENT ? GQ_ENOENT : GQ_EINVAL;
		policy_refused(s, oid, e->msg, actor);
		free(p);
		goto out;
	}
	struct policy *old = xmalloc(sizeof(*old));
	*old = s->snap.policy;
	if (db_begin(s->db, e) < 0 || policy_put(s, p, actor, e) < 0 || journal_commit(s, e) < 0) {
		/* The policy is not in the journal: put the old one back before
		 * the usage is reloaded by queue name. */
		s->snap.policy = *old;
		journal_failed(s, e);
		full_refusal(s, "changes", e);
		free(old);
		free(p);
		goto out;
	}
	free(old);
	log_info("policy %s applied by %s", oid, who->user);
	*out = *p;
	free(p);
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	wake_scheduler(s);
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

const struct auth *server_auth(struct server *s)
{
	return s->auth;
}

/* ---- start-up and shut-down ---- */

static int load_job(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		    const char *intent, struct gq_err *e)
{
	(void)uid;
	(void)idem;
	struct server *s = arg;
	struct job *j = snapshot_add_job(&s->snap);
	if (codec_job_from_text(text, j, e) < 0) {
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	for (int i = 1; i < (int)(sizeof(intent_names) / sizeof(intent_names[0])); i++)
		if (!strcmp(intent, intent_names[i]))
			stop_set(s, id, (enum stop_intent)i);
	if (id >= s->next_id)
		s->next_id = id + 1;
	return 0;
}

/* Memory from the journal: the jobs and their stop intents, the event
 * sequence, enforce's records, the usage. At start-up and after a failed
 * commit (journal_failed); the policy, the clock, the nodes and next_id stay
 * as they are (a failed policy or clock change puts its own back). */
static int load_journal(struct server *s, struct gq_err *e)
{
	struct enforce *en = NULL;
	s->snap.njobs = 0;
	s->nstops = 0;
	if (db_event_last(s->db, &s->last_seq, e) < 0 || db_jobs_load(s->db, load_job, s, e) < 0 ||
	    enforce_open(s->db, &en, e) < 0)
		return -1;
	snapshot_sort(&s->snap);
	enforce_free(s->enf);
	s->enf = en;
	memset(s->snap.qstate, 0, sizeof(s->snap.qstate));
	memset(s->snap.dstate, 0, sizeof(s->snap.dstate));
	load_usage(s);
	return 0;
}

/* Finds again the jobs a previous server started: alive ones are adopted,
 * finished ones recorded, never-started ones requeued. At start-up, and
 * when the server leaves the full state (journal_failed). */
static int recover(struct server *s, bool after_full, struct gq_err *out)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *while_ =
	    after_full ? "while the journal could not be written" : "while the server was down";
	int64_t *forget = xcalloc(s->snap.njobs + 1, sizeof(*forget));
	size_t nforget = 0;
	if (db_begin(s->db, &e) < 0)
		goto fail;
	for (size_t i = 0; i < s->snap.njobs; i++) {
		struct job *j = &s->snap.jobs[i];
		if (!job_state_holds_gpus(j->state))
			continue;
		int status = -1;
		int64_t ended = 0;
		enum run_state rs = runner_probe(s->runner, j->id, &status, &ended);
		int rc = 0;
		if (rs == RUN_ALIVE) {
			if (!after_full) /* the same server: nothing to adopt */
				log_info("job %" PRId64 ": still running, adopted", j->id);
			if (j->state == JOB_STARTING) {
				j->state = JOB_RUNNING;
				rc = persist(s, j, &e);
				if (rc == 0)
					rc = emit(s, j->id, "state", JOB_STARTING, JOB_RUNNING,
						  "adopted", "scheduler", &e);
			}
		} else if (rs == RUN_EXITED) {
			log_info("job %" PRId64 ": ended %s", j->id, while_);
			rc = finish_locked(s, j, status, ended, NULL, &e);
			forget[nforget++] = j->id;
		} else if (rs == RUN_UNKNOWN && j->state == JOB_STARTING) {
			log_info("job %" PRId64 ": was not started %s; pending again", j->id,
				 while_);
			j->state = JOB_PENDING;
			j->nalloc = 0;
			j->start_time = 0;
			rc = persist(s, j, &e);
			if (rc == 0)
				rc = emit(s, j->id, "state", JOB_STARTING, JOB_PENDING,
					  "not started before the server stopped", "scheduler", &e);
			forget[nforget++] = j->id;
		} else {
			rc = lose_locked(s, j, &e);
			forget[nforget++] = j->id;
		}
		if (rc < 0)
			goto fail;
	}
	if (journal_commit(s, &e) < 0)
		goto fail;
	for (size_t i = 0; i < nforget; i++)
		runner_forget(s->runner, forget[i]);
	free(forget);
	return 0;
fail:
	/* The exit files stay: the next recover() reads them again. */
	free(forget);
	*out = e;
	return -1;
}

static int load_policy(struct server *s)
{
	struct gq_err e = GQ_ERR_INIT;
	s->prepo = policy_repo_open_server(s->cfg->state_dir, s->cfg->policy, &e);
	if (!s->prepo) {
		log_warn("policy repository: %s; the built-in default policy is in force", e.msg);
		return 0;
	}
	struct policy *p = xmalloc(sizeof(*p));
	char oid[POLICY_OID_HEX] = "", last[64] = "";
	int rc = 0;
	if (policy_repo_fetch(s->prepo, &e) < 0)
		log_warn("policy fetch: %s", e.msg);
	if (db_meta_get(s->db, "policy.revision", last, sizeof(last), &e) < 0)
		journal_fatal(&e);
	if (policy_repo_resolve(s->prepo, "", oid, &e) == 0 &&
	    policy_repo_load(s->prepo, oid, p, &e) == 0) {
		if (strcmp(p->revision, last) != 0) {
			if (db_begin(s->db, &e) < 0 || policy_put(s, p, "scheduler", &e) < 0 ||
			    journal_commit(s, &e) < 0)
				journal_failed(s, &e); /* in force, recorded by a later start */
		} else {
			s->snap.policy = *p;
		}
		log_info("policy %s in force", p->revision);
	} else {
		policy_refused(s, oid[0] ? oid : "HEAD", e.msg, "scheduler");
		if (last[0] && policy_repo_load(s->prepo, last, p, &e) == 0) {
			s->snap.policy = *p;
			log_info("policy %s (the last good one) in force", last);
		} else {
			log_warn(
			    "no good policy revision; the built-in default policy is in force");
		}
	}
	free(p);
	return rc;
}

static int lock_state_dir(const char *dir, int *fd_out, struct gq_err *e)
{
	char *path = xasprintf("%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int rc = 0;
	if (fd < 0) {
		rc = err_set(e, GQ_EIO, "cannot open '%s': %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char pid[32] = "?";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		rc = err_set(
		    e, GQ_ECONFLICT,
		    "state directory '%s' is in use by another gq serve (pid %s); stop it or "
		    "use another --state-dir",
		    dir, pid);
		close(fd);
	} else {
		char b[32];
		int n = snprintf(b, sizeof(b), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) < 0 || pwrite(fd, b, (size_t)n, 0) != n)
			log_warn("cannot write the pid into '%s'", path);
		*fd_out = fd;
	}
	free(path);
	return rc;
}

static int mkdirs(const char *path, mode_t mode, struct gq_err *e)
{
	char *p = xstrdup(path);
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		mkdir(p, 0755);
		*q = '/';
	}
	int rc = 0;
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		rc = err_set(e, GQ_EIO, "cannot create state directory '%s': %s", path,
			     strerror(errno));
	free(p);
	return rc;
}

static void server_free(struct server *s);

/* Everything a server is before its threads run: the state directory
 * locked, the journal open and loaded, running jobs found again. NULL with e
 * on failure (what was opened is closed). */
static struct server *server_open(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = xcalloc(1, sizeof(*s));
	s->lockfd = -1;
	s->cfg = cfg;
	s->root = geteuid() == 0;
	s->next_id = 1;
	s->wake[0] = s->wake[1] = -1;
	snapshot_init(&s->snap);
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->ev_cv, &ca);
	pthread_cond_init(&s->commit_cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);

	if (mkdirs(cfg->state_dir, s->root ? 0711 : 0700, e) < 0 ||
	    lock_state_dir(cfg->state_dir, &s->lockfd, e) < 0)
		goto fail;
	if (auth_open(cfg->tokens_file, geteuid(), cfg->admin_groups, &s->auth, e) < 0)
		goto fail;
	struct gpu_opts go = {.slots = cfg->gpus,
			      .model = cfg->gpu_model,
			      .mem_mb = cfg->gpu_mem_mb,
			      .cpus = cfg->cpus,
			      .node_mem_mb = cfg->mem_mb};
	if (gpus_detect(&go, snapshot_add_node(&s->snap), &s->gpus_how, e) < 0)
		goto fail;
	char *dbp = xasprintf("%s/gq.db", cfg->state_dir);
	int dbrc = db_open(dbp, &s->db, e);
	free(dbp);
	if (dbrc < 0)
		goto fail;
	if (db_event_last(s->db, &s->last_seq, e) < 0)
		goto fail;
	char clk[32] = "";
	if (db_meta_get(s->db, "clock", clk, sizeof(clk), e) < 0)
		goto fail;
	s->manual_now = clk[0] ? strtoll(clk, NULL, 10) : (int64_t)time(NULL);
	if (cfg->manual_clock && !clk[0]) {
		snprintf(clk, sizeof(clk), "%" PRId64, s->manual_now);
		if (db_meta_set(s->db, "clock", clk, e) < 0)
			goto fail;
	}
	if (load_policy(s) < 0 || load_journal(s, e) < 0)
		goto fail;
	if (runner_open(cfg->state_dir, cfg->exe, &s->runner, e) < 0)
		goto fail;
	struct gq_err re = GQ_ERR_INIT;
	if (recover(s, false, &re) < 0)
		journal_failed(s, &re); /* it starts full, and recovers when space returns */
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		err_set(e, GQ_EIO, "pipe: %s", strerror(errno));
		goto fail;
	}
	return s;
fail:
	server_free(s);
	return NULL;
}

/* Closes what server_open opened; the threads are stopped already. */
static void server_free(struct server *s)
{
	enforce_free(s->enf);
	runner_close(s->runner);
	db_close(s->db);
	policy_repo_free(s->prepo);
	auth_free(s->auth);
	snapshot_release(&s->snap);
	free(s->stops);
	free(s->sigs);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	if (s->lockfd >= 0)
		close(s->lockfd);
	free(s);
}

struct server *server_open_bare(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = server_open(cfg, e);
	if (s)
		pthread_create(&s->bare_committer, NULL, committer_main, s);
	return s;
}

void server_close_bare(struct server *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_broadcast(&s->ev_cv);
	pthread_cond_broadcast(&s->commit_cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->bare_committer, NULL);
	server_free(s);
}

int server_run(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = server_open(cfg, e);
	if (!s)
		return -1;
	int rc = -1;
	struct http_server *http = NULL;
	bool threads = false;
	pthread_t committer, scheduler;
	const char *how = s->gpus_how;

	/* Signals go to the main thread's sigwait() only. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&committer, NULL, committer_main, s);
	pthread_create(&scheduler, NULL, scheduler_main, s);
	threads = true;
	if (http_start(cfg->listen, cfg->nlisten, s->root, CODEC_MAX_BODY, api_handle, s, &http,
		       e) < 0)
		goto out;
	log_info(
	    "gq serve ready: %d GPUs (%s, model '%s'), state in '%s', %s clock, %zu jobs known",
	    s->snap.nodes[0].ngpus, how, s->snap.nodes[0].gpu_model, cfg->state_dir,
	    cfg->manual_clock ? "manual" : "real", s->snap.njobs);
	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			/* The tokens file is also read again when it changes;
			 * the policy changes only with 'gq policy apply'. */
			if (cfg->tokens_file) {
				log_info("SIGHUP: reading the tokens file again");
				auth_reload(s->auth);
			} else {
				log_info(
				    "SIGHUP: no tokens file to read again (use 'gq policy apply')");
			}
			continue;
		}
		log_info("%s: shutting down; running jobs keep running",
			 sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}
	rc = 0;
out:
	if (threads) {
		pthread_mutex_lock(&s->mu);
		s->stopping = true;
		pthread_cond_broadcast(&s->ev_cv);
		pthread_cond_broadcast(&s->commit_cv);
		pthread_mutex_unlock(&s->mu);
		http_stop(http);
		wake_scheduler(s);
		pthread_join(committer, NULL);
		pthread_join(scheduler, NULL);
		/* What the reclamation watches saw since their last write. */
		struct gq_err fe = GQ_ERR_INIT;
		pthread_mutex_lock(&s->mu);
		struct enforce_ctx ec = enforce_ctx_of(s);
		if (db_begin(s->db, &fe) < 0 || enforce_flush(s->enf, &ec, &fe) < 0 ||
		    db_commit(s->db, &fe) < 0) {
			db_rollback(s->db);
			log_warn("%s; the next server resumes the reclamation watches from their "
				 "last write",
				 fe.msg);
		}
		pthread_mutex_unlock(&s->mu);
	}
	server_free(s);
	if (rc == 0)
		log_info("stopped");
	return rc;
}
