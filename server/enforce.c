/*
 * enforce.c - carries out core's preemptions, reminders and downgrades,
 * keeps the preemption records and the reclamation report. See enforce.h.
 *
 * The records live in memory (every one, oldest first: a few per hour at
 * most, by the budgets) and in the journal, written in the caller's
 * transaction so that a record and the state change it describes are
 * committed together. The reclamation watch of each running job (its
 * logs' size and last sign of progress) and what observe mode recorded
 * are journalled too, so that a restarted server neither starts an idle
 * job's clock afresh nor records a would-preemption twice. A watch is
 * written at a plan when it changed, at most once a minute per job (a job
 * that writes all the time would otherwise cost a write at every plan),
 * and all of them at a clean stop. After a crash, a change not yet written
 * shows as output at the first sample, so the idle time restarts there:
 * later than it should at most, never earlier. The process groups of
 * ended jobs stay in memory only.
 */
#define _GNU_SOURCE
#include "enforce.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/downgrade.h"
#include "server/db.h"
#include "server/log.h"
#include "server/runner.h"
#include "server/state.h"
#include "server/webhook.h"

#define HOUR 3600
#define WATCH_SAVE_EVERY 60 /* seconds between two writes of one watch */

/* What the reclamation report follows of one job. */
struct watch {
	int64_t job;
	int64_t log_size; /* stdout + stderr at the last sample, -1 unknown */
	int64_t progress; /* last sign of progress: start, output growth, checkpoint */
	long pgid;	  /* ended jobs: their process group, 0 once it is empty */
	int64_t ended;
	/* Its row in the journal, when it has one: what it says and when it
	 * was written (0 for one loaded at open). */
	bool stored;
	int64_t stored_size, stored_progress, stored_at;
};

struct enforce {
	struct preempt_record *recs;
	size_t nrecs, recs_cap;
	struct watch *w;
	size_t nw, w_cap;
	/* What observe mode recorded: each (victim run, trigger) once, not
	 * at every plan while nothing changes. */
	struct db_observed *obs;
	size_t nobs, obs_cap;
	struct webhook *hook;
};

static struct watch *watch_get(struct enforce *en, int64_t job, bool create);

int enforce_open(struct db *db, struct enforce **out, struct gq_err *e)
{
	struct enforce *en = xcalloc(1, sizeof(*en));
	struct db_watch *rows = NULL;
	size_t nrows = 0;
	if (db_preempts_load(db, &en->recs, &en->nrecs, e) < 0 ||
	    db_observed_load(db, &en->obs, &en->nobs, e) < 0 ||
	    db_watches_load(db, &rows, &nrows, e) < 0) {
		free(en->recs);
		free(en->obs);
		free(en);
		return -1;
	}
	en->recs_cap = en->nrecs;
	en->obs_cap = en->nobs;
	/* Jobs that are no longer running lose theirs at the first plan. */
	for (size_t i = 0; i < nrows; i++) {
		struct watch *w = watch_get(en, rows[i].job, true);
		w->log_size = w->stored_size = rows[i].log_size;
		w->progress = w->stored_progress = rows[i].progress;
		w->stored = true;
	}
	free(rows);
	en->hook = webhook_start();
	*out = en;
	return 0;
}

void enforce_free(struct enforce *en)
{
	if (!en)
		return;
	webhook_stop(en->hook);
	free(en->recs);
	free(en->w);
	free(en->obs);
	free(en);
}

/* ---- records ---- */

/* The victim's latest record that is not yet settled by a restart. */
static struct preempt_record *open_record(struct enforce *en, int64_t job)
{
	for (size_t i = en->nrecs; i-- > 0;)
		if (en->recs[i].victim == job)
			return en->recs[i].restarted ? NULL : &en->recs[i];
	return NULL;
}

/* The start (UTC) of the calendar month of now, `ahead` months on. */
static int64_t month_start(int64_t now, int ahead)
{
	time_t t = (time_t)now;
	struct tm tm;
	gmtime_r(&t, &tm);
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mon += ahead;
	return (int64_t)timegm(&tm);
}

/* ---- the reclamation watch ---- */

static struct watch *watch_get(struct enforce *en, int64_t job, bool create)
{
	for (size_t i = 0; i < en->nw; i++)
		if (en->w[i].job == job)
			return &en->w[i];
	if (!create)
		return NULL;
	GROW(en->w, en->w_cap, en->nw + 1);
	struct watch *w = &en->w[en->nw++];
	memset(w, 0, sizeof(*w));
	w->job = job;
	w->log_size = -1;
	return w;
}

/* Forgets job's watch, and its row in the journal. */
static int watch_drop(struct enforce *en, const struct enforce_ctx *c, int64_t job,
		      struct gq_err *e)
{
	for (size_t i = 0; i < en->nw; i++)
		if (en->w[i].job == job) {
			bool stored = en->w[i].stored;
			en->w[i] = en->w[--en->nw];
			return stored ? db_watch_del(c->db, job, e) : 0;
		}
	return 0;
}

static int64_t log_size(struct runner *r, int64_t job)
{
	int64_t total = 0;
	static const char *const streams[] = {"stdout", "stderr"};
	for (int i = 0; i < 2; i++) {
		char *p = runner_log_path(r, job, streams[i]);
		struct stat st;
		if (lstat(p, &st) == 0) /* the user's: a link is not followed */
			total += (int64_t)st.st_size;
		free(p);
	}
	return total;
}

/* Output growth is progress: sampled at every plan and every report. */
static void sample_logs(struct enforce *en, const struct enforce_ctx *c)
{
	for (size_t i = 0; i < c->snap->njobs; i++) {
		const struct job *j = &c->snap->jobs[i];
		if (j->state != JOB_RUNNING)
			continue;
		struct watch *w = watch_get(en, j->id, true);
		int64_t size = log_size(c->runner, j->id);
		if (w->progress < j->start_time)
			w->progress = j->start_time; /* a new run (or first sight) */
		if (w->progress < j->last_checkpoint)
			w->progress = j->last_checkpoint; /* journalled with the job */
		if (w->log_size >= 0 && size != w->log_size)
			w->progress = c->now;
		w->log_size = size;
	}
}

/* Does anything of process group pgid still run? kill() answers for the
 * group, zombies included; a zombie holds no GPU, so when kill() says yes
 * /proc is asked for a member that is not one. */
static bool group_alive(long pgid)
{
	if (pgid <= 1 || (kill((pid_t)-pgid, 0) < 0 && errno != EPERM))
		return false;
	DIR *d = opendir("/proc");
	if (!d)
		return true;
	bool alive = false;
	struct dirent *de;
	while (!alive && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char path[64], b[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(b, 1, sizeof(b) - 1, f);
		fclose(f);
		b[n] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything, so
		 * read after its last ')'. */
		const char *r = strrchr(b, ')');
		char st;
		long ppid, pgrp;
		if (r && sscanf(r + 1, " %c %ld %ld", &st, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    st != 'Z' && st != 'X')
			alive = true;
	}
	closedir(d);
	return alive;
}

/* Journals the watches of running jobs that changed (see the top of the
 * file for how often) and forgets those of jobs that stopped running
 * without an enforce_job_ended(), such as rows of jobs that ended while
 * no server ran. */
static int save_watches(struct enforce *en, const struct enforce_ctx *c, bool all, struct gq_err *e)
{
	for (size_t i = 0; i < en->nw;) {
		struct watch *w = &en->w[i];
		const struct job *j = snapshot_find(c->snap, w->job);
		if (!j || (j->state != JOB_RUNNING && w->pgid == 0)) {
			if (watch_drop(en, c, w->job, e) < 0)
				return -1;
			continue; /* the last one moved here */
		}
		i++;
		if (j->state != JOB_RUNNING || w->log_size < 0 ||
		    (w->stored && w->stored_size == w->log_size &&
		     w->stored_progress == w->progress) ||
		    (!all && w->stored && c->now - w->stored_at < WATCH_SAVE_EVERY))
			continue;
		struct db_watch row = {w->job, w->log_size, w->progress};
		if (db_watch_put(c->db, &row, e) < 0)
			return -1;
		w->stored = true;
		w->stored_size = w->log_size;
		w->stored_progress = w->progress;
		w->stored_at = c->now;
	}
	return 0;
}

/* ---- before each plan ---- */

int enforce_prepare(struct enforce *en, const struct enforce_ctx *c, int64_t *nextp,
		    struct gq_err *e)
{
	struct snapshot *s = c->snap;
	int64_t hour_ago = c->now - HOUR, month = month_start(c->now, 0), next = 0;
	for (int q = 0; q < s->policy.nqueues; q++)
		s->qstate[q].preempts_hour = 0;
	for (int d = 0; d < s->policy.ndepts; d++)
		s->dstate[d].preempts_month = 0;
	bool spent = false;
	for (size_t i = en->nrecs; i-- > 0;) {
		const struct preempt_record *r = &en->recs[i];
		if (r->signalled < month && r->signalled <= hour_ago)
			break; /* in signal order: nothing older counts */
		if (!strcmp(r->reason, "window"))
			continue;
		if (r->signalled > hour_ago) {
			int q = policy_queue_index(&s->policy, r->queue);
			if (q >= 0)
				s->qstate[q].preempts_hour++;
			int64_t leaves = r->signalled + HOUR;
			if (next == 0 || leaves < next)
				next = leaves;
		}
		if (r->cross_dept && r->signalled >= month) {
			int d = policy_dept_index(&s->policy, r->trigger_dept);
			if (d >= 0) {
				s->dstate[d].preempts_month++;
				spent = true;
			}
		}
	}
	if (spent) {
		int64_t m = month_start(c->now, 1);
		if (next == 0 || m < next)
			next = m;
	}
	for (size_t i = 0; i < en->nobs;) {
		const struct job *v = snapshot_find(s, en->obs[i].victim);
		if (v && v->state == JOB_RUNNING && v->start_time == en->obs[i].start) {
			i++;
			continue;
		}
		if (db_observed_del(c->db, &en->obs[i], e) < 0)
			return -1;
		en->obs[i] = en->obs[--en->nobs];
	}
	sample_logs(en, c);
	if (save_watches(en, c, false, e) < 0)
		return -1;
	*nextp = next;
	return 0;
}

int enforce_flush(struct enforce *en, const struct enforce_ctx *c, struct gq_err *e)
{
	sample_logs(en, c);
	return save_watches(en, c, true, e);
}

/* ---- the actions ---- */

static int preempt(struct enforce *en, const struct enforce_ctx *c, const struct plan_action *a,
		   struct job *v, struct gq_err *e)
{
	struct snapshot *s = c->snap;
	const struct job *t = a->other ? snapshot_find(s, a->other) : NULL;
	bool window = !strcmp(a->reason, "window");
	char text[160];
	if (window)
		snprintf(text, sizeof(text), "window: queue '%s' is paused now", v->queue);
	else
		snprintf(text, sizeof(text), "%s: for job %" PRId64,
			 a->reason[0] ? a->reason : "priority", a->other);
	if (a->observe) {
		for (size_t i = 0; i < en->nobs; i++)
			if (en->obs[i].victim == v->id && en->obs[i].start == v->start_time &&
			    en->obs[i].trigger == a->other)
				return 0;
		struct db_observed o = {v->id, v->start_time, a->other};
		if (db_observed_put(c->db, &o, e) < 0)
			return -1;
		GROW(en->obs, en->obs_cap, en->nobs + 1);
		en->obs[en->nobs++] = o;
		char why[160];
		if (window)
			snprintf(why, sizeof(why),
				 "would preempt %" PRId64 ": queue '%s' is paused now", v->id,
				 v->queue);
		else
			snprintf(why, sizeof(why), "would preempt %" PRId64 " for %" PRId64 " (%s)",
				 v->id, a->other, a->reason[0] ? a->reason : "priority");
		return state_emit(c->st, v->id, "would-preempt", v->state, v->state, why,
				  "scheduler", e);
	}
	struct preempt_record r;
	memset(&r, 0, sizeof(r));
	r.id = en->nrecs ? en->recs[en->nrecs - 1].id + 1 : 1;
	r.victim = v->id;
	r.trigger = a->other;
	STR_COPY(r.reason, window ? "window" : a->reason[0] ? a->reason : "priority");
	STR_COPY(r.queue, v->queue);
	STR_COPY(r.dept, v->dept);
	if (t)
		STR_COPY(r.trigger_dept, t->dept);
	r.cross_dept = !window && t && strcmp(t->dept, v->dept) != 0;
	r.gpus = job_gpus_held(v);
	r.ran = c->now - v->start_time;
	r.last_checkpoint = v->last_checkpoint;
	r.signalled = c->now;
	int64_t since = v->last_checkpoint > v->start_time ? v->last_checkpoint : v->start_time;
	r.work_lost = c->now > since ? (double)r.gpus * (double)(c->now - since) : 0;
	if (state_stop(c->st, v, STOP_PREEMPT, s->policy.preempt_signal, s->policy.grace,
		       "scheduler", text, e) < 0 ||
	    db_preempt_put(c->db, &r, e) < 0)
		return -1;
	GROW(en->recs, en->recs_cap, en->nrecs + 1);
	en->recs[en->nrecs++] = r;
	/* The GPUs being freed are the trigger's: it goes first until it
	 * starts (job.claim_time). */
	struct job *tj = window ? NULL : snapshot_find(s, a->other);
	if (tj && tj->state == JOB_PENDING && tj->claim_time != c->now) {
		tj->claim_time = c->now;
		if (state_persist(c->st, tj, e) < 0)
			return -1;
	}
	/* The counts of the next plan come from the records; these keep the
	 * rest of this plan's actions honest meanwhile. */
	if (!window) {
		int q = policy_queue_index(&s->policy, v->queue);
		if (q >= 0)
			s->qstate[q].preempts_hour++;
		int d = r.cross_dept ? policy_dept_index(&s->policy, r.trigger_dept) : -1;
		if (d >= 0)
			s->dstate[d].preempts_month++;
	}
	log_info("job %" PRId64 " preempted (%s), %d GPU%s, work lost %.0f GPU-seconds", v->id,
		 text, r.gpus, r.gpus == 1 ? "" : "s", r.work_lost);
	return 0;
}

static void notify(struct enforce *en, const struct enforce_ctx *c, const char *event,
		   const struct job *j, int64_t pending, int64_t deadline, const char *text)
{
	const char *url = c->snap->policy.downgrade_webhook;
	if (!url[0])
		return;
	struct webhook_note n = {
	    .event = event,
	    .time = c->now,
	    .job = j->id,
	    .name = j->name,
	    .user = j->user,
	    .queue = j->queue,
	    .tier = tier_name(j->tier),
	    .pending = pending,
	    .deadline = deadline,
	    .text = text,
	};
	webhook_send(en->hook, url, &n);
}

static int64_t cycle_pending(const struct enforce_ctx *c, const struct job *j)
{
	return c->now - downgrade_cycle_base(j);
}

static int remind(struct enforce *en, const struct enforce_ctx *c, struct job *j, struct gq_err *e)
{
	const struct policy *p = &c->snap->policy;
	char waited[32], within[32], text[200];
	int64_t pending = cycle_pending(c, j);
	dur_format(pending, waited, sizeof(waited));
	dur_format(p->confirm_within, within, sizeof(within));
	/* Where the rollout only records downgrades, the reminder does not
	 * promise one. */
	if (policy_acts(p->downgrade_mode, p->downgrade_trial, j->queue))
		snprintf(text, sizeof(text),
			 "P0 job %" PRId64 " has waited %s; confirm with 'gq confirm %" PRId64
			 "' within %s or it becomes P1",
			 j->id, waited, j->id, within);
	else
		snprintf(text, sizeof(text),
			 "P0 job %" PRId64 " has waited %s; confirm with 'gq confirm %" PRId64
			 "' within %s, or a downgrade to P1 is only recorded (downgrade.mode %s)",
			 j->id, waited, j->id, within, rollout_name(p->downgrade_mode));
	j->reminded_at = c->now;
	if (state_persist(c->st, j, e) < 0 ||
	    state_emit(c->st, j->id, "reminder", j->state, j->state, text, "scheduler", e) < 0)
		return -1;
	notify(en, c, "reminder", j, pending, c->now + p->confirm_within, text);
	return 0;
}

static int downgrade(struct enforce *en, const struct enforce_ctx *c, struct job *j, bool observe,
		     struct gq_err *e)
{
	char within[32], text[160];
	dur_format(c->snap->policy.confirm_within, within, sizeof(within));
	int64_t pending = cycle_pending(c, j);
	if (observe) {
		snprintf(text, sizeof(text),
			 "would downgrade %" PRId64
			 " to P1: not confirmed within %s of the reminder",
			 j->id, within);
		/* A new cycle, so that one observation is not repeated every
		 * plan (downgrade.h). */
		j->confirmed_at = c->now;
		return state_persist(c->st, j, e) < 0 ||
			       state_emit(c->st, j->id, "would-downgrade", j->state, j->state, text,
					  "scheduler", e) < 0
			   ? -1
			   : 0;
	}
	snprintf(text, sizeof(text), "P0 -> P1: not confirmed within %s of the reminder", within);
	j->tier = TIER_P1;
	if (state_persist(c->st, j, e) < 0 ||
	    state_emit(c->st, j->id, "downgrade", j->state, j->state, text, "scheduler", e) < 0)
		return -1;
	notify(en, c, "downgrade", j, pending, 0, text);
	return 0;
}

int enforce_act(struct enforce *en, const struct enforce_ctx *c, const struct plan_action *a,
		struct gq_err *e)
{
	struct job *j = snapshot_find(c->snap, a->job);
	switch (a->kind) {
	case PLAN_START:
		BUG("enforce_act: starts are the server's");
	case PLAN_PREEMPT:
		if (!j || j->state != JOB_RUNNING)
			return 0;
		return preempt(en, c, a, j, e);
	case PLAN_REMIND:
		if (!j || j->state != JOB_PENDING)
			return 0;
		return remind(en, c, j, e);
	case PLAN_DOWNGRADE:
		if (!j || j->state != JOB_PENDING || j->tier != TIER_P0)
			return 0;
		return downgrade(en, c, j, a->observe, e);
	case PLAN_KIND_COUNT:
		break;
	}
	BUG("plan action kind %d", (int)a->kind);
}

/* ---- hooks ---- */

int enforce_job_checkpoint(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
			   struct gq_err *e)
{
	if (j->state == JOB_RUNNING)
		watch_get(en, j->id, true)->progress = c->now;
	struct preempt_record *r = open_record(en, j->id);
	if (!r || r->released || j->state != JOB_STOPPING)
		return 0;
	r->saved = c->now;
	r->work_lost = 0;
	return db_preempt_put(c->db, r, e);
}

int enforce_job_started(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
			struct gq_err *e)
{
	struct watch *w = watch_get(en, j->id, true);
	w->progress = c->now;
	w->log_size = -1;
	w->pgid = 0;
	struct preempt_record *r = open_record(en, j->id);
	if (!r || !r->released)
		return 0;
	r->restarted = c->now;
	r->resumed = r->last_checkpoint != 0 || r->saved != 0;
	return db_preempt_put(c->db, r, e);
}

int enforce_job_ended(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
		      long pgid, struct gq_err *e)
{
	if (job_state_active(j->state) || !group_alive(pgid)) {
		/* Pending again (a new run will be watched), or gone. */
		if (watch_drop(en, c, j->id, e) < 0)
			return -1;
	} else {
		struct watch *w = watch_get(en, j->id, true);
		w->pgid = pgid;
		w->ended = c->now;
		if (w->stored && db_watch_del(c->db, j->id, e) < 0)
			return -1;
		w->stored = false; /* the process group is followed in memory only */
	}
	struct preempt_record *r = open_record(en, j->id);
	if (!r || r->released)
		return 0;
	r->released = c->now;
	return db_preempt_put(c->db, r, e);
}

void enforce_records(const struct enforce *en, int64_t job, size_t limit,
		     struct preempt_record **out, size_t *n)
{
	struct preempt_record *v = xmalloc((en->nrecs ? en->nrecs : 1) * sizeof(*v));
	size_t cnt = 0;
	for (size_t i = 0; i < en->nrecs; i++)
		if (!job || en->recs[i].victim == job || en->recs[i].trigger == job)
			v[cnt++] = en->recs[i];
	if (limit && cnt > limit) {
		memmove(v, v + (cnt - limit), limit * sizeof(*v));
		cnt = limit;
	}
	*out = v;
	*n = cnt;
}

static void entry_add(struct reclaim_entry **v, size_t *n, size_t *cap, const struct job *j,
		      enum reclaim_kind k, int gpus, const char *list, int64_t since,
		      const struct policy *p)
{
	GROW(*v, *cap, *n + 1);
	struct reclaim_entry *x = &(*v)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->job = j->id;
	x->kind = k;
	x->gpus = gpus;
	STR_COPY(x->gpu_list, list);
	x->since = since;
	x->acts = policy_acts(p->reclaim_mode, p->reclaim_trial, j->queue);
}

void enforce_reclaim(struct enforce *en, const struct enforce_ctx *c, struct reclaim_entry **out,
		     size_t *n)
{
	const struct snapshot *s = c->snap;
	const struct policy *p = &s->policy;
	struct reclaim_entry *v = NULL;
	size_t cnt = 0, cap = 0;
	sample_logs(en, c);
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		char list[128];
		struct watch *w = watch_get(en, j->id, false);
		if (j->state == JOB_RUNNING && w) {
			if (c->now - w->progress >= p->reclaim_idle) {
				job_gpu_list(j, list, sizeof(list));
				entry_add(&v, &cnt, &cap, j, RECLAIM_IDLE, job_gpus_held(j), list,
					  w->progress, p);
			}
		} else if (j->state == JOB_STOPPING && j->stop_deadline &&
			   j->stop_deadline < c->now) {
			job_gpu_list(j, list, sizeof(list));
			entry_add(&v, &cnt, &cap, j, RECLAIM_UNRELEASED, job_gpus_held(j), list,
				  j->stop_deadline, p);
		} else if (!job_state_active(j->state) && w && w->pgid) {
			if (!group_alive(w->pgid)) {
				w->pgid = 0; /* empty now; its id may be reused */
				continue;
			}
			enum reclaim_kind k = j->state == JOB_FAILED || j->state == JOB_TIMEOUT
						  ? RECLAIM_FAILED
						  : RECLAIM_UNRELEASED;
			job_gpu_list(j, list, sizeof(list));
			entry_add(&v, &cnt, &cap, j, k, j->req.gpus, list, w->ended, p);
		}
	}
	*out = v;
	*n = cnt;
}
