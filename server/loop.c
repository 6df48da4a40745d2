/*
 * loop.c - gq serve's scheduling loop: reap exits, enforce deadlines, plan,
 * start.
 */
#define _GNU_SOURCE
#include "server/internal.h"

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
void copy_locked(struct server *s, struct snapshot *out, int64_t now)
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
void account(struct server *s, int64_t now)
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

void load_usage(struct server *s)
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
int lose_locked(struct server *s, struct job *j, struct gq_err *e)
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

void *scheduler_main(void *arg)
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
