/*
 * loop.c - gq serve's scheduling loop: reap exits, enforce deadlines, plan,
 * start.
 */
#define _GNU_SOURCE
#include "server/internal.h"

#include "core/depend.h"
#include "explain/explain.h"
#include "core/jobsig.h"
#include "os/mono.h"
#include "server/asuser.h"

#include <malloc.h>

/* ---- starting jobs ---- */

/* Forks the supervisor of j (state STARTING, committed). *server_side:
 * the failure is the server's (its files, fork), not the job's command. */
static int spawn(struct server *s, struct job *j, bool *server_side, struct gq_err *e)
{
	*server_side = false;
	char *cmd = NULL;
	struct submission sub;
	memset(&sub, 0, sizeof(sub));
	if (db_job_command(s->st.db, j->id, &cmd, e) < 0)
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
	    .grace = s->st.snap.policy.grace,
	    .array_id = j->array_id,
	    .array_task = j->array_task,
	};
	char *of = ops_job_file(sub.output, j, spec.cwd),
	     *ef = ops_job_file(sub.error, j, spec.cwd);
	spec.out_file = of;
	spec.err_file = ef;
	*server_side = true;
	rc = runner_start(s->st.runner, &spec, e);
	free(of);
	free(ef);
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
 * `now`. Lock held. Both then call sched_prepare() on the copy, out of the
 * lock. */
void copy_locked(struct server *s, struct snapshot *out, int64_t now)
{
	snapshot_release(out);
	out->now = now;
	out->tz_offset = tz_offset(now);
	out->policy = s->st.snap.policy;
	memcpy(out->qstate, s->st.snap.qstate, sizeof(out->qstate));
	memcpy(out->dstate, s->st.snap.dstate, sizeof(out->dstate));
	for (size_t i = 0; i < s->st.snap.nnodes; i++)
		*snapshot_add_node(out) = s->st.snap.nodes[i];
	out->jobs = xmalloc((s->st.snap.njobs ? s->st.snap.njobs : 1) * sizeof(*out->jobs));
	out->jobs_cap = s->st.snap.njobs ? s->st.snap.njobs : 1;
	for (size_t i = 0; i < s->st.snap.njobs; i++) {
		const struct job *j = &s->st.snap.jobs[i];
		if (job_state_active(j->state) || j->end_time >= now - RECENT_WINDOW)
			job_copy(&out->jobs[out->njobs++], j);
	}
}

static int handle_exit(struct server *s, int64_t id, bool *changed, struct gq_err *e)
{
	struct job *j = snapshot_find(&s->st.snap, id);
	if (!j || !job_state_holds_gpus(j->state))
		return 0;
	int status = -1;
	int64_t ended = 0;
	enum run_state rs = runner_probe(s->st.runner, id, &status, &ended);
	if (rs == RUN_EXITED) {
		*changed = true;
		return state_finish(&s->st, j, status, ended, NULL, e);
	} else if (rs == RUN_NEVER && j->state == JOB_STARTING) {
		*changed = true;
		return state_unstart(&s->st, j, "not started: its supervisor ended first", e);
	} else if (rs != RUN_ALIVE) {
		*changed = true;
		return state_lose(&s->st, j, e);
	}
	return 0;
}

/* ---- one pass of the loop, step by step ---- */

/* What the steps of one pass share. */
struct pass {
	int64_t now;
	int64_t next; /* the next time a pass is due without any event, 0 none */
	bool changed; /* a job changed state: the usage is journalled, readers woken */
	struct enforce_ctx ec;
};

/* Supervisors killed without a word (kill -9, the OOM killer) write no exit
 * file: every LIVE_PROBE_MS the jobs holding GPUs are asked (a flock() each),
 * and a lost one ends and frees its GPUs. */
static int probe_alive(struct server *s, struct pass *p, struct gq_err *e)
{
	double now = mono_s();
	if (now < s->live_probe_at)
		return 0;
	s->live_probe_at = now + LIVE_PROBE_MS / 1000.0;
	for (size_t i = 0; i < s->st.snap.njobs; i++)
		if (job_state_holds_gpus(s->st.snap.jobs[i].state) &&
		    handle_exit(s, s->st.snap.jobs[i].id, &p->changed, e) < 0)
			return -1;
	return 0;
}

static void due(struct pass *p, int64_t t)
{
	if (p->next == 0 || t < p->next)
		p->next = t;
}

/* Reap: the jobs whose process ended. *nexits: how many notifications
 * came (-1: some were lost, every job holding GPUs was looked at); forget:
 * the ended ones whose exit files the runner may drop once committed. */
static int reap(struct server *s, struct pass *p, int64_t *forget, int *nforget, int *nexits,
		struct gq_err *e)
{
	int64_t ids[256];
	int n = runner_drain(s->st.runner, ids, 256);
	*nexits = n;
	if (n < 0) {
		/* Lost notifications: look at every job that holds GPUs. */
		for (size_t i = 0; i < s->st.snap.njobs; i++)
			if (job_state_holds_gpus(s->st.snap.jobs[i].state) &&
			    handle_exit(s, s->st.snap.jobs[i].id, &p->changed, e) < 0)
				return -1;
	} else {
		for (int i = 0; i < n; i++)
			if (handle_exit(s, ids[i], &p->changed, e) < 0)
				return -1;
	}
	for (int i = 0; n > 0 && i < n && *nforget < 256; i++) {
		struct job *j = snapshot_find(&s->st.snap, ids[i]);
		if (j && !job_state_holds_gpus(j->state))
			forget[(*nforget)++] = ids[i];
	}
	return 0;
}

/* --signal: sends j's signal to its process group once, when at (its
 * time limit less the seconds asked) has come; journalled as sig_sent with
 * an event, so that a restarted server does not send it again. The signal
 * goes at once, not after the commit: the job's remaining time is what it
 * asked for, and the worst a failed commit does is send it twice. */
static int warn_signal(struct server *s, struct job *j, int64_t at, struct pass *p,
		       struct gq_err *e)
{
	if (at > p->now) {
		due(p, at);
		return 0;
	}
	struct gq_err se = GQ_ERR_INIT;
	const char *name = jobsig_name(j->sig);
	char sig[16], why[96];
	if (name)
		snprintf(sig, sizeof(sig), "SIG%s", name);
	else
		snprintf(sig, sizeof(sig), "signal %d", j->sig);
	if (runner_signal(s->st.runner, j->id, j->sig, &se) < 0) {
		snprintf(why, sizeof(why), "%s not sent: %.60s", sig, se.msg);
		log_warn("job %" PRId64 ": %s", j->id, why);
	} else {
		snprintf(why, sizeof(why), "%s, %" PRId64 " s before its time limit", sig,
			 j->sig_before);
		log_info("job %" PRId64 ": %s", j->id, why);
	}
	j->sig_sent = true;
	p->changed = true;
	if (state_persist(&s->st, j, e) < 0 ||
	    state_emit(&s->st, j->id, "signal", j->state, j->state, why, "scheduler", e) < 0)
		return -1;
	return 0;
}

/* Deadlines: budgets that come back (enforce_prepare), grace periods over
 * (SIGKILL), time limits reached (a stop, STOP_TIMEOUT). */
static int deadlines(struct server *s, struct pass *p, struct gq_err *e)
{
	int64_t budget_back = 0;
	if (enforce_prepare(s->st.enf, &p->ec, &budget_back, e) < 0)
		return -1;
	if (budget_back > p->now)
		due(p, budget_back);
	for (size_t i = 0; i < s->st.snap.njobs; i++) {
		struct job *j = &s->st.snap.jobs[i];
		if (j->state == JOB_STOPPING && j->stop_deadline > 0) {
			struct stop_rec *r = state_stop_find(&s->st, j->id);
			if (j->stop_deadline <= p->now && (!r || !r->killed)) {
				log_info("job %" PRId64 ": grace period over, SIGKILL", j->id);
				runner_signal(s->st.runner, j->id, SIGKILL, NULL);
				if (r)
					r->killed = true;
			} else if (j->stop_deadline > p->now) {
				due(p, j->stop_deadline);
			}
		} else if (j->state == JOB_RUNNING && j->time_limit > 0 && j->start_time > 0) {
			int64_t end = j->start_time + j->time_limit;
			if (j->sig && !j->sig_sent && end > p->now &&
			    warn_signal(s, j, end - j->sig_before, p, e) < 0)
				return -1;
			if (end <= p->now) {
				if (state_stop(&s->st, j, STOP_TIMEOUT, SIGTERM,
					       s->st.snap.policy.grace, "scheduler",
					       "time limit reached", e) < 0)
					return -1;
				p->changed = true;
			} else {
				due(p, end);
			}
		}
	}
	return 0;
}

/* Pending jobs whose dependency can never be met (core's dep_never) are
 * cancelled, as Slurm's kill_invalid_depend does, with an event and an end
 * reason that say why. Until nothing changes: a job cancelled here may make
 * its own dependents' afterok unmeetable in the same pass. */
static int kill_invalid(struct server *s, struct pass *p, struct gq_err *e)
{
	struct snapshot *sn = &s->st.snap;
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sn->njobs; i++) {
			struct job *j = &sn->jobs[i];
			struct dep_never d;
			if (!j->ndeps || !dep_never(sn, j, &d))
				continue;
			explain_dep_never(&d, false, j->end_reason, sizeof(j->end_reason));
			log_info("job %" PRId64 ": cancelled: %s", j->id, j->end_reason);
			j->state = JOB_CANCELLED;
			j->end_time = p->now;
			if (state_persist(&s->st, j, e) < 0 ||
			    state_emit(&s->st, j->id, "state", JOB_PENDING, JOB_CANCELLED,
				       j->end_reason, NULL, e) < 0)
				return -1;
			p->changed = true;
			again = true;
		}
	}
	return 0;
}

/* Pending jobs whose dependencies are all met keep when that happened in
 * eligible_time (core's dep_met_at: the last one's end), journalled, so
 * that their wait that ages starts there, after a restart too. */
static int deps_met(struct server *s, struct gq_err *e)
{
	struct snapshot *sn = &s->st.snap;
	for (size_t i = 0; i < sn->njobs; i++) {
		struct job *j = &sn->jobs[i];
		if (j->state != JOB_PENDING || !j->ndeps)
			continue;
		int64_t at = dep_met_at(sn, j);
		if (at <= j->eligible_time)
			continue;
		j->eligible_time = at;
		if (state_persist(&s->st, j, e) < 0)
			return -1;
	}
	return 0;
}

/* Retention (gq serve --keep-finished): finished jobs that ended longer
 * ago than that are forgotten, in memory and in the journal, except the
 * newest job (ids come from the largest one kept, and are never given
 * twice) and jobs an active job still depends on. Their events stay. */
/* Removes finished job j's spool directory (gq's log of it, its
 * checkpoints): emptied with its user's rights (asuser.h: the user owns
 * what is in it), then the directory itself, which is in the server's
 * S/jobs. */
static void spool_remove(struct server *s, const struct job *j)
{
	char *d = runner_spool_path(s->st.runner, j->id);
	struct as_user u;
	as_user_init(&u, s->root, j->uid, j->gid, j->user);
	if (as_user_empty_dir(&u, d) < 0 || (rmdir(d) < 0 && errno != ENOENT))
		log_warn("job %" PRId64 ": cannot remove '%s': %s", j->id, d, strerror(errno));
	free(d);
}

/* db_job_fn of sweep_spools: one job of the journal; nothing to do (no
 * spool) costs one lstat. */
static int sweep_one(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		     const char *intent, struct gq_err *e)
{
	(void)uid, (void)idem, (void)intent, (void)e;
	struct server *s = arg;
	char *d = runner_spool_path(s->st.runner, id);
	struct stat st;
	bool there = lstat(d, &st) == 0;
	free(d);
	struct job j;
	job_init(&j);
	struct gq_err je = GQ_ERR_INIT;
	if (there && codec_job_from_text(text, &j, &je) == 0)
		spool_remove(s, &j);
	job_release(&j);
	return 0;
}

/* The spools of jobs that ended more than SPOOL_KEEP ago, looked for once
 * an hour of the server's clock, in the journal (such jobs have left
 * memory), from where the last sweep stopped (meta "spool.swept"; a
 * journal without it is swept whole once). */
static void sweep_spools(struct server *s, struct pass *p)
{
	if (p->now < s->spool_sweep_at)
		return;
	s->spool_sweep_at = p->now + 3600;
	struct gq_err e = GQ_ERR_INIT;
	char v[32] = "";
	if (!s->spool_swept_to && db_meta_get(s->st.db, "spool.swept", v, sizeof(v), &e) == 0)
		s->spool_swept_to = strtoll(v, NULL, 10);
	int64_t cut = p->now - SPOOL_KEEP;
	if (cut <= s->spool_swept_to)
		return;
	snprintf(v, sizeof(v), "%" PRId64, cut);
	if (db_jobs_ended(s->st.db, s->spool_swept_to > 0 ? s->spool_swept_to : 1, cut, sweep_one,
			  s, &e) < 0 ||
	    db_meta_set(s->st.db, "spool.swept", v, &e) < 0) {
		log_warn("spools: %s", e.msg);
		return;
	}
	s->spool_swept_to = cut;
}

/* Finished jobs leave memory a day and an hour after their end (state.h);
 * a thousand or more give their memory back to the system. */
static void evict(struct server *s, struct pass *p)
{
	if (state_evict(&s->st, p->now) >= 1000)
		malloc_trim(0);
}

/* The journal's jobs prune() forgets that are not in memory. */
struct pruned_list {
	struct server *s;
	int64_t cut, newest;
	int64_t *ids;
	size_t n, cap;
};

/* db_job_fn: a job of the journal past --keep-finished, its spool removed
 * (sweep_one) and its id kept for the delete. */
static int prune_collect(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
			 const char *intent, struct gq_err *e)
{
	struct pruned_list *l = arg;
	if (id == l->newest || snapshot_find(&l->s->st.snap, id))
		return 0;
	sweep_one(l->s, id, uid, idem, text, intent, e);
	GROW(l->ids, l->cap, l->n + 1);
	l->ids[l->n++] = id;
	return 0;
}

/* state_drop_fn of prune: out of the journal, and its spool. */
static int prune_one(void *arg, struct job *j, struct gq_err *e)
{
	struct server *s = arg;
	if (db_job_delete(s->st.db, j->id, e) < 0)
		return -1;
	spool_remove(s, j);
	return 0;
}

static int prune(struct server *s, struct pass *p, struct gq_err *e)
{
	int64_t keep = s->st.cfg->keep_finished;
	if (keep <= 0 || p->now <= keep)
		return 0;
	/* The newest job stays: ids go on from it after a restart. */
	int64_t cut = p->now - keep, newest = s->st.next_id - 1;
	size_t pruned = 0;
	int rc = state_drop_finished(&s->st, cut, newest, prune_one, s, &pruned, e);
	/* Those that left memory (state.h): none is what an active job waits
	 * for (those stay in memory). */
	struct pruned_list l = {.s = s, .cut = cut, .newest = newest};
	if (rc == 0)
		rc = db_jobs_ended(s->st.db, 1, cut, prune_collect, &l, e);
	for (size_t i = 0; rc == 0 && i < l.n; i++)
		rc = db_job_delete(s->st.db, l.ids[i], e);
	pruned += l.n;
	free(l.ids);
	/* What the pruned jobs held goes back to the system, not only to
	 * malloc's free lists. */
	if (pruned >= 1000)
		malloc_trim(0);
	return rc;
}

/* Plan: on a copy of what clients see and without the lock: a pass over
 * 10,000 jobs takes milliseconds, and submissions keep committing
 * meanwhile. Anything committed during the pass writes the wake-up pipe,
 * so the loop comes straight back for another pass. */
static void plan_unlocked(struct server *s, struct pass *p, struct plan *plan)
{
	struct snapshot cp;
	snapshot_init(&cp);
	copy_locked(s, &cp, p->now);
	pthread_mutex_unlock(&s->mu);
	sched_prepare(&cp); /* as server_snapshot(): what clients predict on */
	sched_plan(&cp, plan);
	snapshot_release(&cp);
	pthread_mutex_lock(&s->mu);
	if (plan->wake > p->now)
		due(p, plan->wake);
}

/* Carries out the plan, inside the caller's transaction: enforce's
 * actions, and the starts journalled as STARTING before any process
 * exists, so that a crash between here and the fork is recovered as "never
 * started" rather than lost. A start the world has overtaken (the job was
 * held or cancelled meanwhile, or its GPUs are taken) is dropped; the next
 * pass sees it. starting (plan->n long) gets the jobs to spawn. */
static int start_planned(struct server *s, struct pass *p, const struct plan *plan,
			 int64_t *starting, size_t *nstart, struct gq_err *e)
{
	int rc = -1;
	uint64_t *used = xcalloc(s->st.snap.nnodes + 1, sizeof(*used));
	for (size_t i = 0; i < s->st.snap.njobs; i++) {
		const struct job *j = &s->st.snap.jobs[i];
		if (job_state_holds_gpus(j->state))
			for (int k = 0; k < j->nalloc; k++)
				if (j->alloc[k].node >= 0 &&
				    (size_t)j->alloc[k].node < s->st.snap.nnodes)
					used[j->alloc[k].node] |= j->alloc[k].mask;
	}
	for (size_t i = 0; i < plan->n; i++) {
		const struct plan_action *a = &plan->actions[i];
		if (a->kind != PLAN_START) {
			if (enforce_act(s->st.enf, &p->ec, a, e) < 0)
				goto out;
			p->changed = true;
			continue;
		}
		struct job *j = snapshot_find(&s->st.snap, a->job);
		if (!j || j->state != JOB_PENDING || j->held || mono_s() < s->start_pause_until)
			continue;
		bool free_now = a->nalloc > 0;
		for (int k = 0; k < a->nalloc; k++)
			if (a->alloc[k].node < 0 || (size_t)a->alloc[k].node >= s->st.snap.nnodes ||
			    (used[a->alloc[k].node] & a->alloc[k].mask))
				free_now = false;
		if (!free_now)
			continue;
		for (int k = 0; k < a->nalloc; k++)
			used[a->alloc[k].node] |= a->alloc[k].mask;
		j->state = JOB_STARTING;
		job_set_alloc(j, a->nalloc, a->alloc);
		j->borrowed = a->borrowed;
		j->start_time = p->now;
		j->exit_status = -1;
		j->sig_sent = false; /* --signal: once a run */
		j->claim_time = 0;   /* the GPUs freed for it are its own now */
		if (state_persist(&s->st, j, e) < 0 ||
		    state_emit(&s->st, j->id, "state", JOB_PENDING, JOB_STARTING,
			       a->reason[0] ? a->reason : "start", "scheduler", e) < 0)
			goto out;
		starting[(*nstart)++] = j->id;
	}
	/* The starts predicted at submit, kept for the ranges' calibration. */
	for (size_t i = 0; i < plan->npred; i++) {
		struct job *j = snapshot_find(&s->st.snap, plan->preds[i].job);
		if (!j || j->pred_start0 != 0)
			continue;
		j->pred_start0 = plan->preds[i].start;
		if (state_persist(&s->st, j, e) < 0)
			goto out;
	}
	rc = 0;
out:
	free(used);
	return rc;
}

/* Start: forks the supervisors of the jobs start_planned committed as
 * STARTING, in a transaction of its own. A job whose run files do not fit
 * is pending again and the server full; one that cannot start otherwise
 * fails. */
static int spawn_started(struct server *s, struct pass *p, const int64_t *starting, size_t nstart,
			 struct gq_err *e)
{
	if (db_begin(s->st.db, e) < 0)
		return -1;
	char why[200] = "not started: the server could not start jobs";
	for (size_t i = 0; i < nstart; i++) {
		struct job *j = snapshot_find(&s->st.snap, starting[i]);
		struct gq_err se = GQ_ERR_INIT;
		bool server_side = true;
		if (s->st.full || mono_s() < s->start_pause_until ||
		    spawn(s, j, &server_side, &se) < 0) {
			if (s->st.full || se.code == GQ_ENOSPACE) {
				/* Its run files do not fit: the job never started.
				 * Pending again, and no more starts until space
				 * returns (the full state). */
				state_full_enter(&s->st, &se);
				runner_forget(s->st.runner, j->id);
				if (state_unstart(&s->st, j,
						  "not started: the state directory is full",
						  e) < 0)
					return -1;
				continue;
			}
			if (server_side) {
				/* The server's own files or processes: nothing
				 * of the job ran, and the next start would fail
				 * the same way. Pending again; no start for
				 * START_PAUSE_MS. */
				if (se.msg[0]) {
					log_error("job %" PRId64 ": %s; no job starts for %d s",
						  j->id, se.msg, START_PAUSE_MS / 1000);
					s->start_pause_until = mono_s() + START_PAUSE_MS / 1000.0;
					snprintf(why, sizeof(why), "not started: %.150s", se.msg);
				}
				runner_forget(s->st.runner, j->id);
				if (state_unstart(&s->st, j, why, e) < 0)
					return -1;
				continue;
			}
			log_error("job %" PRId64 ": %s", j->id, se.msg);
			j->state = JOB_FAILED;
			j->end_time = p->now;
			job_run_end(j, p->now);
			job_set_alloc(j, 0, NULL);
			char failed[160];
			snprintf(failed, sizeof(failed), "cannot start: %.140s", se.msg);
			if (state_persist(&s->st, j, e) < 0 ||
			    state_emit(&s->st, j->id, "state", JOB_STARTING, JOB_FAILED, failed,
				       "scheduler", e) < 0)
				return -1;
			continue;
		}
		j->state = JOB_RUNNING;
		if (state_persist(&s->st, j, e) < 0 ||
		    state_emit(&s->st, j->id, "state", JOB_STARTING, JOB_RUNNING, "started",
			       "scheduler", e) < 0 ||
		    enforce_job_started(s->st.enf, &p->ec, j, e) < 0)
			return -1;
		log_info("job %" PRId64 " started", j->id);
		if (j->time_limit > 0)
			due(p, j->start_time + j->time_limit);
	}
	return state_commit(&s->st, e);
}

/* One pass: reap, deadlines, plan, start, each committed before the next.
 * Returns the next time (server clock) at which a pass is due without any
 * event, 0 none. */
static int64_t tick(struct server *s)
{
	struct gq_err e = GQ_ERR_INIT;
	struct pass p = {.now = state_now(&s->st)};
	int64_t forget[256];
	int nforget = 0, nexits = 0;
	struct plan plan;
	plan_init(&plan);
	int64_t *starting = NULL;
	size_t nstart = 0;

	if (s->st.full) {
		/* Exit notifications meanwhile are dropped: recover() looks at
		 * every job that holds GPUs. */
		int64_t ids[256];
		runner_drain(s->st.runner, ids, 256);
		if (!state_probe(&s->st))
			return 0;
		if (recover(s, true, &e) < 0)
			goto fail;
	}
	if (db_begin(s->st.db, &e) < 0)
		goto fail;
	state_account(&s->st, p.now);
	if (prune(s, &p, &e) < 0)
		goto fail;
	if (reap(s, &p, forget, &nforget, &nexits, &e) < 0 || probe_alive(s, &p, &e) < 0)
		goto fail;
	sweep_spools(s, &p);
	evict(s, &p);
	p.ec = state_enforce_ctx(&s->st);
	if (deadlines(s, &p, &e) < 0 || kill_invalid(s, &p, &e) < 0 || deps_met(s, &e) < 0 ||
	    notify_reap(&s->st, &e) < 0)
		goto fail;
	if ((p.changed && state_save_usage(&s->st, &e) < 0) || state_commit(&s->st, &e) < 0)
		goto fail;
	for (int i = 0; i < nforget; i++)
		runner_forget(s->st.runner, forget[i]);

	plan_unlocked(s, &p, &plan);

	starting = xcalloc(plan.n + 1, sizeof(*starting));
	if (db_begin(s->st.db, &e) < 0 || start_planned(s, &p, &plan, starting, &nstart, &e) < 0)
		goto fail;
	plan_release(&plan);
	if ((nstart > 0 && state_save_usage(&s->st, &e) < 0) || state_commit(&s->st, &e) < 0)
		goto fail;
	if (nstart > 0 && spawn_started(s, &p, starting, nstart, &e) < 0)
		goto fail;
	free(starting);
	if (nstart > 0 || p.changed || nexits != 0)
		pthread_cond_broadcast(&s->ev_cv);
	return p.next;
fail:
	free(starting);
	plan_release(&plan);
	state_failed(&s->st, &e);
	return 0;
}

void *scheduler_main(void *arg)
{
	struct server *s = arg;
	double cost = 0;
	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		double t0 = mono_s();
		int64_t due = tick(s);
		cost = mono_s() - t0;
		prom_hist_observe(&s->passes, cost);
		int timeout = -1;
		if (!s->st.cfg->manual_clock) {
			/* The real clock: sleep until the next deadline, and at
			 * most a minute so that usage accounting stays fresh. */
			int64_t now = state_now(&s->st);
			timeout = MAX_WAIT_MS;
			if (due > 0)
				timeout = due <= now ? 0
						     : (int)((due - now) * 1000 < MAX_WAIT_MS
								 ? (due - now) * 1000
								 : MAX_WAIT_MS);
		}
		if (s->st.full)
			timeout = FULL_PROBE_MS; /* nothing says when space returns */
		for (size_t i = 0; i < s->st.snap.njobs; i++)
			if (job_state_holds_gpus(s->st.snap.jobs[i].state)) {
				if (timeout < 0 || timeout > LIVE_PROBE_MS)
					timeout = LIVE_PROBE_MS; /* probe_alive */
				break;
			}
		double paused = s->start_pause_until - mono_s();
		if (paused > 0 && (timeout < 0 || timeout > (int)(paused * 1000) + 1))
			timeout = (int)(paused * 1000) + 1;
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
		struct pollfd pf[2] = {{s->st.wake[0], POLLIN, 0},
				       {runner_fd(s->st.runner), POLLIN, 0}};
		poll(pf, 2, timeout);
		if (pf[0].revents & POLLIN) {
			char b[256];
			while (read(s->st.wake[0], b, sizeof(b)) > 0)
				;
		}
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}
