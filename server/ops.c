/*
 * ops.c - the operations of gq serve's API, and the group commit of
 * submissions.
 */
#define _GNU_SOURCE
#include "server/internal.h"

#include "core/begin.h"
#include "core/depend.h"
#include "core/preempt.h"
#include "core/runtime.h"
#include "explain/explain.h"
#include "core/ulimit.h"

#include "os/mono.h"
#include "server/asuser.h"

/* ---- group commit of submissions ---- */

static void commit_batch(struct server *s, struct pending_submit *list)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t seq0 = s->st.last_seq, id0 = s->st.next_id;
	int rc =
	    s->st.full ? state_full_refusal(&s->st, "submissions", &e) : db_begin(s->st.db, &e);
	for (struct pending_submit *p = list; rc == 0 && p; p = p->next) {
		if (p->idem) {
			int64_t id = 0;
			int f = db_job_by_idem(s->st.db, p->job.uid, p->idem, &id, &e);
			if (f < 0) {
				rc = -1;
				break;
			}
			if (f == 1) {
				/* Keys are kept per uid, jobs belong to user
				 * names: token users may share a uid. */
				const struct job *j = snapshot_find(&s->st.snap, id);
				if (j && strcmp(j->user, p->job.user) != 0)
					p->idem_taken = true;
				else
					p->replay = true;
				p->result.id = id;
				continue;
			}
		}
		/* An array takes an id of its own, then one per task: the
		 * tasks are in one transaction with the rest of the batch. */
		if (p->arr)
			p->job.array_id = s->st.next_id++;
		int ntasks = p->arr ? p->arr->ntasks : 1;
		for (int t = 0; rc == 0 && t < ntasks; t++) {
			struct job tj = p->job;
			tj.id = s->st.next_id++;
			if (p->arr) {
				tj.array_task = p->arr->tasks[t];
				tj.array_max = p->arr->throttle;
			}
			char *txt = codec_job_text(&tj);
			rc = db_job_insert(s->st.db, tj.id, tj.uid, t ? NULL : p->idem, txt,
					   p->command, &e);
			free(txt);
			if (rc == 0)
				rc = state_emit(&s->st, tj.id, "submit", JOB_PENDING, JOB_PENDING,
						tj.held ? "held" : "submitted", tj.user, &e);
			if (t == 0)
				p->job.id = tj.id;
		}
	}
	if (rc == 0)
		rc = state_commit(&s->st, &e);
	if (rc < 0 && !s->st.full) {
		/* Only the sequence and ids ran ahead: the jobs join memory
		 * once committed. */
		db_rollback(s->st.db);
		notify_rolled_back(&s->st);
		s->st.last_seq = seq0;
		s->st.next_id = id0;
		state_full_enter(&s->st, &e);
		state_full_refusal(&s->st, "submissions", &e);
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
			struct job *j = snapshot_find(&s->st.snap, p->result.id);
			if (j)
				job_copy(&p->result, j);
		} else if (p->arr) {
			for (int t = 0; t < p->arr->ntasks; t++) {
				struct job *tj = snapshot_add_job(&s->st.snap);
				*tj = p->job;
				tj->id = p->job.id + t;
				tj->array_task = p->arr->tasks[t];
				tj->array_max = p->arr->throttle;
			}
			p->result = p->job;
			p->result.array_task = p->arr->tasks[0];
			p->result.array_max = p->arr->throttle;
		} else {
			*snapshot_add_job(&s->st.snap) = p->job;
			p->result = p->job;
		}
		p->done = true;
	}
}

void *committer_main(void *arg)
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
			state_wake(&s->st);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Refuses dependencies of j (a changed job of s) that would close a cycle
 * of waiting jobs, as one on j itself is: none of them could ever start.
 * A new job cannot close one (no job waits for it yet). */
static int dep_cycle_check(const struct snapshot *snap, const struct job *j, struct gq_err *e)
{
	int64_t path[8];
	size_t n;
	if (!dep_cycle(snap, j, path, sizeof(path) / sizeof(path[0]), &n))
		return 0;
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, "%" PRId64, j->id);
	for (size_t i = 0; i < n && i < sizeof(path) / sizeof(path[0]); i++)
		buf_printf(&b, " -> %" PRId64, path[i]);
	if (n > sizeof(path) / sizeof(path[0]))
		buf_printf(&b, " -> ...");
	buf_printf(&b, " -> %" PRId64, j->id);
	err_set(e, GQ_EINVAL,
		"job '%" PRId64 "' cannot wait for job '%" PRId64
		"', which waits for it (%s): none of them could ever start",
		j->id, path[0], b.data);
	buf_release(&b);
	return -1;
}

/* The checks a submission and an update share: the name, the queue (which
 * sets the department and may give a default time limit), the tier open to
 * the user, the bounds, the begin time (when check_begin), the GPU type,
 * the dependencies and a node set that could ever hold it. Fills in what
 * follows from the queue. Lock held. */
static int check_request(struct server *s, const struct identity *who, struct job *jp,
			 bool check_begin, struct gq_err *e)
{
	struct job j = *jp;
	const struct policy *p = &s->st.snap.policy;
	int64_t now = state_now(&s->st);
	if (job_name_check(j.name, e) < 0)
		return -1;
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
	/* queue.*.defaultTime, as Slurm's DefaultTime: the job gets the limit,
	 * which bounds it for backfill (predict.h) and is enforced as any. */
	if (j.time_limit <= 0 && p->queues[qi].default_time > 0)
		j.time_limit = p->queues[qi].default_time;
	/* Without either, queue.*.maxTime is its limit, as under Slurm; one
	 * over it is refused below (place_satisfiable). */
	if (j.time_limit <= 0 && p->queues[qi].max_time > 0)
		j.time_limit = p->queues[qi].max_time;
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
	if (job_req_check(&j, e) < 0 || (check_begin && begin_check(j.begin_time, now, e) < 0))
		return -1;
	if (j.reservation[0])
		return err_set(e, GQ_EINVAL,
			       "reservation '%s': gq serve has none (a reservation is Slurm's: "
			       "sbatch --reservation)",
			       j.reservation);
	if (j.sig && j.time_limit <= 0)
		return err_set(e, GQ_EINVAL,
			       "signal: the job has no time limit for the signal to come before; "
			       "give --time-limit");
	if (j.req.gpu_type[0] && !name_valid(j.req.gpu_type))
		return err_set(e, GQ_EINVAL, "GPU type '%s' is not a valid name", j.req.gpu_type);
	for (int i = 0; i < j.ndeps; i++) {
		/* One that left memory comes back (state.h): an active job's
		 * dependencies are looked at every pass. */
		struct gq_err fe = GQ_ERR_INIT;
		const struct job *dj = state_find(&s->st, j.deps[i], &fe);
		if (!dj && fe.code != GQ_OK) {
			*e = fe;
			return -1;
		}
		if (!dj)
			return err_set(e, GQ_EINVAL,
				       "dependency '%" PRId64 "' does not exist; see 'gq ls --all'",
				       j.deps[i]);
		if (j.deps[i] == j.id && j.id)
			return err_set(e, GQ_EINVAL, "job '%" PRId64 "' cannot wait for itself",
				       j.id);
		if (dep_status(dep_kind_of(&j, i), dj) == DEP_NEVER) {
			/* Accepted, it would only be cancelled at the next pass. */
			struct dep_never d = {.job = dj->id,
					      .kind = dep_kind_of(&j, i),
					      .state = dj->state,
					      .exit_status = dj->exit_status};
			char why[GQ_END_REASON_MAX];
			explain_dep_never(&d, true, why, sizeof(why));
			return err_set(e, GQ_EINVAL, "%s; see 'gq show %" PRId64 "'", why, dj->id);
		}
	}
	if (j.id && dep_cycle_check(&s->st.snap, &j, e) < 0)
		return -1;
	if (place_satisfiable(&s->st.snap, &j, e) < 0)
		return -1;
	*jp = j;
	return 0;
}

/* --notify needs somewhere to go: the policy's notify.webhook or the
 * submitter's own (sub). Lock held. */
static int notify_target_check(struct server *s, const char *notify, const struct submission *sub,
			       struct gq_err *e)
{
	if (!notify[0] || s->st.snap.policy.notify_webhook[0] ||
	    (sub && (sub->notify_webhook || sub->notify_command)))
		return 0;
	return err_set(e, GQ_EINVAL,
		       "notify: nowhere to send notifications; set notify.webhook or "
		       "notify.command in your config file (gq-submit(1)), or ask the admins "
		       "for the policy's notify.webhook");
}

/* Checks a submission against the policy and the machine and fills in what
 * the server owns. Lock held. */
static int prepare(struct server *s, const struct identity *who, struct submission *sub,
		   struct job *out, struct gq_err *e)
{
	struct job j = sub->job;
	int64_t now = state_now(&s->st);
	STR_COPY(j.user, who->user);
	j.uid = who->uid;
	j.gid = who->gid;
	if (!j.name[0])
		job_name_default(&j, sub->argv ? sub->argv[0] : "script", "job");
	if (check_request(s, who, &j, true, e) < 0)
		return -1;
	if (sub->cwd && sub->cwd[0] != '/')
		return err_set(e, GQ_EINVAL, "working directory '%s' is not an absolute path",
			       sub->cwd);
	struct gq_err pe = GQ_ERR_INIT;
	if ((sub->output && outpat_check(sub->output, &pe) < 0) ||
	    (sub->error && outpat_check(sub->error, &pe) < 0))
		return err_set(e, GQ_EINVAL, "submission.%s: %s",
			       sub->output && outpat_check(sub->output, NULL) < 0 ? "output"
										  : "error",
			       pe.msg);
	if (sub->notify_webhook && strncmp(sub->notify_webhook, "http://", 7) &&
	    strncmp(sub->notify_webhook, "https://", 8))
		return err_set(e, GQ_EINVAL,
			       "submission.notify_webhook: '%s' is not an http:// or https:// URL",
			       sub->notify_webhook);
	if (notify_target_check(s, j.notify, sub, e) < 0)
		return -1;
	j.state = JOB_PENDING;
	j.exit_status = -1;
	j.submit_time = j.queued_time = now;
	j.start_time = j.end_time = 0;
	/* Its runs are counted as they end (job_run_time). */
	j.runs_kept = true;
	j.ran_time = j.ran_gpu_time = 0;
	job_set_alloc(&j, 0, NULL);
	if (j.held) {
		STR_COPY(j.held_by, who->user);
		j.held_at = now;
	}
	*out = j;
	return 0;
}

/* The job limits (user.maxJobs, queue.NAME.userMaxJobs), as Slurm's
 * MaxSubmitJobsPerUser refuses a job rather than queue it: n more jobs
 * (an array's tasks each count) of j's user in j's queue, beside those
 * it has and those of its submissions waiting for the committer. A retry
 * of a submission already accepted (its idempotency key known) is not
 * counted again: it gets its job back. Lock held. */
static int check_user_jobs(struct server *s, const struct job *j, int n, const char *idem,
			   struct gq_err *e)
{
	const struct policy *p = &s->st.snap.policy;
	if (p->user_max_jobs < 0) {
		int qi = policy_queue_index(p, j->queue);
		if (qi < 0 || p->queues[qi].user_max_jobs < 0)
			return 0;
	}
	int64_t id;
	struct gq_err ie = GQ_ERR_INIT;
	if (idem && db_job_by_idem(s->st.db, j->uid, idem, &id, &ie) == 1)
		return 0;
	struct ulimit_user u;
	struct ulimit_hit h;
	ulimit_of(&s->st.snap, j->user, &u);
	for (const struct pending_submit *q = s->q_head; q; q = q->next) {
		if (strcmp(q->job.user, j->user))
			continue;
		int k = q->arr ? q->arr->ntasks : 1, qi = policy_queue_index(p, q->job.queue);
		u.jobs += k;
		if (qi >= 0)
			u.qjobs[qi] += k;
	}
	if (!ulimit_jobs_over(p, &u, policy_queue_index(p, j->queue), n, &h))
		return 0;
	char where[GQ_NAME_MAX + 64] = "", key[GQ_NAME_MAX + 32] = "user.maxJobs", adds[48] = "";
	if (h.queue) {
		snprintf(where, sizeof(where), " in queue '%s'", j->queue);
		snprintf(key, sizeof(key), "queue.%s.userMaxJobs", j->queue);
	}
	if (n > 1)
		snprintf(adds, sizeof(adds), "; the array adds %d", n);
	return err_set(e, GQ_ELIMIT,
		       "user '%s' has %d job%s pending or running%s, the most %s allows is %d%s: "
		       "wait for some to end or cancel some",
		       j->user, h.used, h.used == 1 ? "" : "s", where, key, h.limit, adds);
}

int server_submit(struct server *s, const struct identity *who, struct submission *sub,
		  const char *idem, struct job *out, bool *replay, struct gq_err *e)
{
	struct pending_submit p;
	memset(&p, 0, sizeof(p));
	p.idem = idem;
	p.command = codec_command_text_sub(sub);
	struct array_spec *arr = NULL;
	if (sub->array) {
		arr = xmalloc(sizeof(*arr));
		struct gq_err ae = GQ_ERR_INIT;
		if (array_parse(sub->array, arr, &ae) < 0) {
			err_set(e, GQ_EINVAL, "submission.array: %s", ae.msg);
			free(arr);
			free(p.command);
			submission_release(sub);
			return -1;
		}
		p.arr = arr;
	}
	pthread_mutex_lock(&s->mu);
	int rc = -1;
	if (s->stopping) {
		err_set(e, GQ_EUNAVAIL, "gq serve is shutting down; retry in a moment");
		goto out;
	}
	int max_bytes = s->st.snap.policy.max_submit_bytes;
	if (max_bytes >= 0 && strlen(p.command) > (size_t)max_bytes) {
		err_set(e, GQ_EINVAL,
			"the submission takes %zu bytes, over the policy's user.maxSubmitBytes "
			"(%d); pass big inputs as files",
			strlen(p.command), max_bytes);
		goto out;
	}
	if (prepare(s, who, sub, &p.job, e) < 0 ||
	    check_user_jobs(s, &p.job, arr ? arr->ntasks : 1, idem, e) < 0)
		goto out;
	if (s->st.full) {
		state_full_refusal(&s->st, "submissions", e);
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
	free(arr);
	submission_release(sub);
	return rc;
}

bool server_window_stop(struct server *s, int64_t id, struct window_stop *out)
{
	pthread_mutex_lock(&s->mu);
	const struct job *j = snapshot_find(&s->st.snap, id);
	bool found = false;
	/* The scheduler's pass may have started it since the submit: its
	 * start is then known, and no prediction is needed. */
	if (j && j->state == JOB_RUNNING) {
		found = preempt_window_stop(&s->st.snap, j, j->start_time,
					    predict_runtime(&s->st.snap.policy, j), out);
		if (found)
			out->now = state_now(&s->st);
		pthread_mutex_unlock(&s->mu);
		return found;
	}
	bool may = j && j->state == JOB_PENDING && preempt_window_may_stop(&s->st.snap, j);
	struct snapshot cp;
	snapshot_init(&cp);
	if (may)
		copy_locked(s, &cp, state_now(&s->st));
	pthread_mutex_unlock(&s->mu);
	if (may) {
		sched_prepare(&cp);
		const struct job *cj = snapshot_find(&cp, id);
		if (cj) {
			size_t idx = (size_t)(cj - cp.jobs);
			struct prediction_set ps;
			prediction_set_init(&ps);
			predict_job(&cp, idx, NULL, INT64_MAX, &ps);
			int32_t k = idx < ps.njobs ? ps.of_job[idx] : -1;
			const struct prediction *pr = k >= 0 ? &ps.items[k] : NULL;
			if (pr && pr->placed && pr->never == NEVER_NO)
				found = preempt_window_stop(&cp, cj, pr->start, pr->runtime, out);
			prediction_set_release(&ps);
		}
	}
	snapshot_release(&cp);
	return found;
}

/* Job id, from memory or the journal (state_find). Lock held; the pointer
 * is good until memory changes (another find, a pass). */
static int find_job(struct server *s, int64_t id, struct job **out, struct gq_err *e)
{
	struct gq_err fe = GQ_ERR_INIT;
	struct job *j = state_find(&s->st, id, &fe);
	if (!j && fe.code != GQ_OK) {
		*e = fe;
		return -1;
	}
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
		job_copy(out, j);
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
	int64_t now = state_now(&s->st);
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
		if (args->reason) {
			for (const char *r = args->reason; *r; r++)
				if ((unsigned char)*r < ' ')
					return err_set(e, GQ_EINVAL,
						       "hold reason has a control character; give "
						       "one line of text");
			if (strlen(args->reason) >= sizeof(c->held_reason))
				return err_set(
				    e, GQ_EINVAL,
				    "hold reason is too long (%zu bytes); give at most %zu",
				    strlen(args->reason), sizeof(c->held_reason) - 1);
		}
		c->held = true;
		c->claim_time = 0; /* a held job gives up the GPUs freed for it */
		STR_COPY(c->held_by, actor);
		c->held_at = now;
		STR_COPY(c->held_reason, args->reason ? args->reason : "");
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
		c->eligible_time = now; /* its wait that ages starts again here */
		c->held_reason[0] = '\0';
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
		job_set_alloc(c, 0, NULL);
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

static int act_one(struct server *s, const struct identity *who, int64_t id, enum job_action a,
		   const struct act_args *args, struct job *out, struct gq_err *e);

/* The ids of the tasks of array id (none when id is no array's), in id
 * order; the caller frees *out. Lock held. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

struct id_list {
	int64_t *v;
	size_t n, cap;
};

static int add_id(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		  const char *intent, struct gq_err *e)
{
	(void)uid, (void)idem, (void)text, (void)intent, (void)e;
	struct id_list *l = arg;
	GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = id;
	return 0;
}

static size_t array_tasks(struct server *s, int64_t id, int64_t **out)
{
	struct id_list l = {NULL, 0, 0};
	for (size_t i = 0; i < s->st.snap.njobs; i++)
		if (s->st.snap.jobs[i].array_id == id)
			add_id(&l, s->st.snap.jobs[i].id, 0, NULL, NULL, NULL, NULL);
	/* None in memory: they may all have ended long ago (state.h). */
	struct gq_err e = GQ_ERR_INIT;
	if (!l.n && db_jobs_of_array(s->st.db, id, add_id, &l, &e) < 0)
		log_warn("array %" PRId64 ": %s", id, e.msg);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_i64);
	*out = l.v;
	return l.n;
}

/* An action on an array's id is the action on each of its tasks, as
 * scancel 42 is on Slurm: those it does not apply to (a task that already
 * ended) are left alone; an error only when it applied to none. */
int server_act(struct server *s, const struct identity *who, int64_t id, enum job_action a,
	       const struct act_args *args, struct job *out, struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	int64_t *tasks = NULL;
	struct gq_err fe = GQ_ERR_INIT;
	size_t n = state_find(&s->st, id, &fe) ? 0 : array_tasks(s, id, &tasks);
	pthread_mutex_unlock(&s->mu);
	if (!n) {
		free(tasks);
		return act_one(s, who, id, a, args, out, e);
	}
	int done = 0;
	struct gq_err last = GQ_ERR_INIT;
	for (size_t i = 0; i < n; i++) {
		struct gq_err te = GQ_ERR_INIT;
		struct job j;
		if (act_one(s, who, tasks[i], a, args, &j, &te) == 0) {
			if (!done++)
				*out = j;
			else
				job_release(&j);
		} else if (te.code != GQ_ECONFLICT || last.code != GQ_ECONFLICT) {
			if (last.code == GQ_OK || last.code == GQ_ECONFLICT)
				last = te;
		}
		if (te.code != GQ_OK && te.code != GQ_ECONFLICT)
			break; /* not allowed, or the journal refuses: stop there */
	}
	free(tasks);
	if (done)
		return 0;
	if (last.code == GQ_ECONFLICT)
		return err_set(e, GQ_ECONFLICT,
			       "array '%" PRId64 "' has no task this applies to (%s)", id,
			       last.msg);
	*e = last;
	return -1;
}

static int act_one(struct server *s, const struct identity *who, int64_t id, enum job_action a,
		   const struct act_args *args, struct job *out, struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL, c;
	job_init(&c);
	int rc = -1;
	if (find_job(s, id, &j, e) < 0 || check_owner(who, j, e) < 0)
		goto out;
	char actor[32], kind[24] = "", reason[160] = "";
	actor_of(who, j, actor, sizeof(actor));
	job_copy(&c, j);
	bool stop = false;
	if (act_on(s, who, &c, a, args, actor, &stop, kind, reason, e) < 0)
		goto out;
	if (s->st.full) {
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	if (db_begin(s->st.db, e) < 0)
		goto out;
	if (stop) {
		enum stop_intent in = a == ACT_CANCEL ? STOP_CANCEL : STOP_REQUEUE;
		if (j->state == JOB_STOPPING) {
			/* Already stopping (a cancel while being preempted):
			 * only what it becomes changes. */
			state_stop_set(&s->st, j->id, in);
			rc = state_persist(&s->st, j, e);
			if (rc == 0)
				rc = state_emit(&s->st, j->id, "state", j->state, j->state,
						a == ACT_CANCEL ? "cancel" : "requeue", actor, e);
		} else {
			rc = state_stop(&s->st, j, in, SIGTERM, s->st.snap.policy.grace, actor,
					a == ACT_CANCEL ? "cancel" : "requeue", e);
		}
		/* The stop changed memory too: state_failed rolls it back. */
		if (rc < 0 || state_commit(&s->st, e) < 0)
			goto failed;
	} else {
		struct enforce_ctx ec = state_enforce_ctx(&s->st);
		if (state_persist(&s->st, &c, e) < 0 ||
		    state_emit(&s->st, c.id, kind, j->state, c.state, reason, actor, e) < 0 ||
		    (a == ACT_CHECKPOINT && enforce_job_checkpoint(s->st.enf, &ec, &c, e) < 0) ||
		    state_commit(&s->st, e) < 0)
			goto failed;
		job_release(j);
		*j = c; /* moved */
		job_init(&c);
		/* A requeued job is active again: what it waits for too. */
		if (job_state_active(j->state) && j->ndeps) {
			struct gq_err de = GQ_ERR_INIT;
			if (state_find_deps(&s->st, j, &de) < 0)
				log_warn("job %" PRId64 ": %s", id, de.msg);
			j = snapshot_find(&s->st.snap, id);
		}
	}
	job_copy(out, j);
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	state_wake(&s->st);
	goto out;
failed:
	rc = -1;
	state_failed(&s->st, e);
	state_full_refusal(&s->st, "changes", e);
out:
	job_release(&c);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* "gpus 1->4, tier P1->P0": what an update changes, for its event;
 * false (and out "") when it changes nothing. */
static bool update_reason(const struct job *a, const struct job *b, char *out, size_t size)
{
	struct buf r;
	buf_init(&r, 0);
	char x[32], y[32];
	if (a->req.gpus != b->req.gpus)
		buf_printf(&r, ", gpus %d->%d", a->req.gpus, b->req.gpus);
	if (strcmp(a->req.gpu_type, b->req.gpu_type))
		buf_printf(&r, ", gpu_type '%s'->'%s'", a->req.gpu_type, b->req.gpu_type);
	if (a->estimate != b->estimate)
		buf_printf(&r, ", estimate %s->%s", dur_format(a->estimate, x, sizeof(x)),
			   dur_format(b->estimate, y, sizeof(y)));
	if (a->time_limit != b->time_limit)
		buf_printf(&r, ", time_limit %s->%s", dur_format(a->time_limit, x, sizeof(x)),
			   dur_format(b->time_limit, y, sizeof(y)));
	if (a->tier != b->tier)
		buf_printf(&r, ", tier %s->%s", tier_name(a->tier), tier_name(b->tier));
	if (strcmp(a->queue, b->queue))
		buf_printf(&r, ", queue %s->%s", a->queue, b->queue);
	if (strcmp(a->name, b->name))
		buf_printf(&r, ", name %s->%s", a->name, b->name);
	if (a->ndeps != b->ndeps ||
	    memcmp(a->deps, b->deps, sizeof(a->deps[0]) * (size_t)a->ndeps) ||
	    memcmp(a->dep_kind, b->dep_kind, sizeof(a->dep_kind[0]) * (size_t)a->ndeps)) {
		char da[160], db[160];
		dep_format(a, da, sizeof(da));
		dep_format(b, db, sizeof(db));
		buf_printf(&r, ", deps '%s'->'%s'", da, db);
	}
	if (strcmp(a->notify, b->notify))
		buf_printf(&r, ", notify '%s'->'%s'", a->notify, b->notify);
	if (a->begin_time != b->begin_time)
		buf_printf(&r, ", begin_time %" PRId64 "->%" PRId64, a->begin_time, b->begin_time);
	bool changed = r.len > 0;
	snprintf(out, size, "%s", changed ? r.data + 2 : "");
	buf_release(&r);
	return changed;
}

/* Refuses an update that changes nothing (GQ_ECONFLICT, as releasing a
 * job that is not held is), saying why: an admin's override that keeps
 * the tier asked for from taking effect, or fields that already have
 * the values given. Nothing is journalled. */
static int update_unchanged(const struct job *j, const struct job_update *u, struct gq_err *e)
{
	if ((u->set & UPD_TIER) && j->ovr.set && j->ovr.tier != u->job.tier)
		return err_set(e, GQ_ECONFLICT,
			       "job '%" PRId64 "' unchanged: it is %s already, and an admin's "
			       "override (%s: '%s') schedules it as %s; ask an admin to clear it "
			       "(gq prio --clear)",
			       j->id, tier_name(j->tier), j->ovr.actor, j->ovr.reason,
			       tier_name(j->ovr.tier));
	return err_set(
	    e, GQ_ECONFLICT,
	    "job '%" PRId64 "' unchanged: what was given is what it has; nothing to update", j->id);
}

int server_update(struct server *s, const struct identity *who, int64_t id,
		  const struct job_update *u, struct job *out, struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	int rc = -1;
	if (find_job(s, id, &j, e) < 0 || check_owner(who, j, e) < 0)
		goto out;
	if (j->state != JOB_PENDING) {
		err_set(e, GQ_ECONFLICT,
			"job '%" PRId64 "' is %s; only a pending job can be changed (cancel and "
			"resubmit it)",
			j->id, job_state_name(j->state));
		goto out;
	}
	struct job c = *j;
	const struct job *n = &u->job;
	if (u->set & UPD_NAME)
		STR_COPY(c.name, n->name);
	if (u->set & UPD_QUEUE)
		STR_COPY(c.queue, n->queue);
	if (u->set & UPD_TIER)
		c.tier = n->tier;
	if (u->set & UPD_ESTIMATE)
		c.estimate = n->estimate;
	if (u->set & UPD_TIME_LIMIT)
		c.time_limit = n->time_limit;
	if (u->set & UPD_BEGIN)
		c.begin_time = n->begin_time;
	if (u->set & UPD_NOTIFY)
		STR_COPY(c.notify, n->notify);
	if (u->set & UPD_GPUS)
		c.req.gpus = n->req.gpus;
	if (u->set & UPD_GPU_TYPE)
		STR_COPY(c.req.gpu_type, n->req.gpu_type);
	if (u->set & UPD_DEPS) {
		c.ndeps = n->ndeps;
		memcpy(c.deps, n->deps, sizeof(c.deps));
		memcpy(c.dep_kind, n->dep_kind, sizeof(c.dep_kind));
	}
	/* Exactly a submission's checks; a begin time is checked only when
	 * it changes (one that has passed is simply over). */
	if (check_request(s, who, &c, (u->set & UPD_BEGIN) != 0, e) < 0)
		goto out;
	j = snapshot_find(&s->st.snap, id); /* the check may have moved memory */
	if (u->set & UPD_NOTIFY) {
		char *cmd = NULL;
		struct submission sub;
		memset(&sub, 0, sizeof(sub));
		if (db_job_command(s->st.db, id, &cmd, e) == 0 &&
		    codec_command_from_text(cmd, &sub, e) < 0)
			memset(&sub, 0, sizeof(sub));
		free(cmd);
		int bad = notify_target_check(s, c.notify, &sub, e);
		submission_release(&sub);
		if (bad < 0)
			goto out;
	}
	/* The start predicted at its submit was for the job as it was: not
	 * one the ranges' calibration may compare (calib.h). */
	c.pred_start0 = -1;
	char actor[32], reason[160];
	actor_of(who, j, actor, sizeof(actor));
	if (!update_reason(j, &c, reason, sizeof(reason))) {
		update_unchanged(j, u, e);
		goto out;
	}
	if (s->st.full) {
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	if (db_begin(s->st.db, e) < 0)
		goto out;
	if (state_persist(&s->st, &c, e) < 0 ||
	    state_emit(&s->st, c.id, "update", j->state, c.state, reason, actor, e) < 0 ||
	    state_commit(&s->st, e) < 0) {
		state_failed(&s->st, e);
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	*j = c; /* a pending job: no allocation to share */
	job_copy(out, j);
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	state_wake(&s->st);
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
		rc = db_job_command(s->st.db, id, json, e);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

char *ops_job_file(const char *pattern, const struct job *j, const char *cwd)
{
	char name[OUTPAT_MAX];
	if (!pattern || outpat_expand(pattern, j, name, sizeof(name), NULL) < 0)
		return NULL;
	if (name[0] == '/' || !cwd)
		return xstrdup(name);
	return xasprintf("%s/%s", cwd, name);
}

/* The job's own file of stream when it was submitted with -o / -e (stderr
 * goes with -o when there is no -e), else NULL. Lock held. */
static char *own_log(struct server *s, const struct job *j, const char *stream)
{
	char *cmd = NULL;
	struct submission sub;
	struct gq_err e = GQ_ERR_INIT;
	if (db_job_command(s->st.db, j->id, &cmd, &e) < 0)
		return NULL;
	int rc = codec_command_from_text(cmd, &sub, &e);
	free(cmd);
	if (rc < 0)
		return NULL;
	const char *pat = !strcmp(stream, "stderr") && sub.error ? sub.error : sub.output;
	if (!strcmp(stream, "stdout"))
		pat = sub.output;
	char home[PATH_MAX] = "";
	if (!sub.cwd)
		auth_home(j->uid, home, sizeof(home));
	char *f = ops_job_file(pat, j, sub.cwd ? sub.cwd : home);
	submission_release(&sub);
	return f;
}

int server_log_open(struct server *s, const struct identity *who, int64_t id, const char *stream,
		    int *fd, struct gq_err *e)
{
	*fd = -1;
	if (strcmp(stream, "stdout") != 0 && strcmp(stream, "stderr") != 0)
		return err_set(e, GQ_EINVAL, "unknown log stream '%s'; use stdout or stderr",
			       stream);
	pthread_mutex_lock(&s->mu);
	struct job *j = NULL;
	char *path = NULL, user[sizeof(j->user)] = "";
	uint32_t uid = 0, gid = 0;
	bool swept = false; /* the spool is past SPOOL_KEEP (loop.c's sweep) */
	int rc = find_job(s, id, &j, e);
	if (rc == 0)
		rc = check_owner(who, j, e);
	if (rc == 0) {
		if (!(path = own_log(s, j, stream))) {
			path = runner_log_path(s->st.runner, id, stream);
			swept = !job_state_active(j->state) && j->end_time > 0 &&
				j->end_time < state_now(&s->st) - SPOOL_KEEP;
		}
		str_copy(user, sizeof(user), j->user);
		uid = j->uid;
		gid = j->gid;
	}
	pthread_mutex_unlock(&s->mu);
	if (rc < 0)
		return rc;
	/* The user names the -o file and owns the spool: opened as the user.
	 * O_NONBLOCK: a FIFO must not hold the thread; only a regular file is
	 * read. */
	struct as_user as;
	as_user_init(&as, s->root, uid, gid, user);
	int f = as_user_open(&as, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	struct stat st;
	if (f < 0 && errno == ENOENT && swept)
		rc = err_set(e, GQ_ENOENT,
			     "the output of job '%" PRId64 "' was removed %d days after it ended, "
			     "with its spool (gq-serve(8))",
			     id, SPOOL_KEEP / 86400);
	else if (f < 0 && errno != ENOENT)
		rc = err_set(e, errno == EACCES || errno == EPERM ? GQ_EPERM : GQ_EIO,
			     "cannot read '%s' as %s: %s", path, user, strerror(errno));
	else if (f >= 0 && (fstat(f, &st) < 0 || !S_ISREG(st.st_mode))) {
		rc = err_set(e, GQ_EIO, "'%s' is not a regular file; gq logs reads only files",
			     path);
		close(f);
		f = -1;
	}
	*fd = f;
	free(path);
	return rc;
}

void server_info(struct server *s, struct server_info *out)
{
	pthread_mutex_lock(&s->mu);
	out->now = state_now(&s->st);
	out->manual_clock = s->st.cfg->manual_clock;
	out->last_seq = s->st.last_seq;
	pthread_mutex_unlock(&s->mu);
}

void server_snapshot(struct server *s, struct snapshot *out, int64_t *last_seq)
{
	pthread_mutex_lock(&s->mu);
	copy_locked(s, out, state_now(&s->st));
	*last_seq = s->st.last_seq;
	pthread_mutex_unlock(&s->mu);
	/* The history the plan uses (plan_unlocked()) travels with it, and
	 * the ranges' calibration, but not the starts predicted at submit it
	 * comes from: the server's own record (gq show has it), which would
	 * only weigh on every snapshot. */
	sched_prepare(out);
	for (size_t i = 0; i < out->njobs; i++)
		out->jobs[i].pred_start0 = 0;
}

static bool job_matches(const struct job_filter *f, const struct job *j)
{
	bool ok = f->all      ? true
		  : f->states ? (f->states & (1u << j->state)) != 0
			      : job_state_active(j->state);
	if (ok && f->user && strcmp(f->user, j->user) != 0)
		ok = false;
	if (ok && (f->since || f->until) &&
	    (job_state_active(j->state) || (f->since && j->end_time < f->since) ||
	     (f->until && j->end_time >= f->until)))
		ok = false;
	return ok;
}

/* What server_jobs gathers: jobs copied, and the filter. */
struct jobs_acc {
	const struct job_filter *f;
	const struct snapshot *mem; /* those in it are taken from it */
	struct job *v;
	size_t n, cap;
};

/* db_job_fn: a job of the journal that left memory, when it matches. */
static int acc_journal(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		       const char *intent, struct gq_err *e)
{
	(void)uid, (void)idem, (void)intent;
	struct jobs_acc *a = arg;
	if (snapshot_find(a->mem, id))
		return 0;
	struct job j;
	job_init(&j);
	if (codec_job_from_text(text, &j, e) < 0) {
		job_release(&j);
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	if (!job_matches(a->f, &j)) {
		job_release(&j);
		return 0;
	}
	GROW(a->v, a->cap, a->n + 1);
	a->v[a->n++] = j; /* moved */
	return 0;
}

static int cmp_job_id(const void *x, const void *y)
{
	int64_t a = ((const struct job *)x)->id, b = ((const struct job *)y)->id;
	return a < b ? -1 : a > b;
}

/* What server_jobs_page walks: the page so far, and the cursor. */
struct page_acc {
	struct jobs_acc a;
	int64_t last; /* the last id read */
	size_t rows;  /* rows read in this chunk */
};

/* db_job_fn of a page: job id of the journal, or memory's copy when it is
 * there (memory is what was committed, and fresher for what runs). */
static int page_row(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		    const char *intent, struct gq_err *e)
{
	(void)uid, (void)idem, (void)intent;
	struct page_acc *pa = arg;
	pa->last = id;
	pa->rows++;
	if (pa->a.n >= pa->a.f->page)
		return 0;
	const struct job *m = snapshot_find(pa->a.mem, id);
	struct job j;
	job_init(&j);
	if (m)
		job_copy(&j, m);
	else if (codec_job_from_text(text, &j, e) < 0) {
		job_release(&j);
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	if (!job_matches(pa->a.f, &j)) {
		job_release(&j);
		return 0;
	}
	GROW(pa->a.v, pa->a.cap, pa->a.n + 1);
	pa->a.v[pa->a.n++] = j; /* moved */
	return 0;
}

/* A page of server_jobs: the journal holds every job (memory's too, as
 * committed), walked in id order from the cursor, a chunk at a time, so
 * that no answer holds more than a page however long the history. A
 * window (since, until) walks only the jobs that ended in it, through
 * the journal's index of ends. Lock held. */
static bool server_jobs_page(struct server *s, const struct job_filter *f, struct jobs_acc *a)
{
	struct page_acc pa = {.a = *a, .last = f->after};
	struct gq_err e = GQ_ERR_INIT;
	bool window = f->since || f->until, more = false;
	for (;;) {
		pa.rows = 0;
		int r = window ? db_jobs_ended_from(s->st.db, f->since ? f->since : 1,
						    f->until ? f->until : INT64_MAX, pa.last, 1024,
						    page_row, &pa, &e)
			       : db_jobs_from(s->st.db, pa.last, 1024, page_row, &pa, &e);
		if (r < 0) {
			log_warn("jobs from the journal: %s", e.msg);
			break;
		}
		if (pa.a.n >= f->page) {
			more = true;
			break;
		}
		if (pa.rows < 1024)
			break;
	}
	*a = pa.a;
	return more;
}

/* Whether f can match a finished job: only then is the journal read
 * (memory holds every active job). */
static bool filter_finished(const struct job_filter *f)
{
	if (f->all)
		return true;
	for (int st = 0; st < JOB_STATE_COUNT; st++)
		if (!job_state_active((enum job_state)st) && (f->states & (1u << st)))
			return true;
	return false;
}

/* A page of active jobs only: memory's, in id order from the cursor, not
 * a walk of the whole journal. Lock held. */
static bool server_jobs_page_mem(struct server *s, const struct job_filter *f, struct jobs_acc *a)
{
	const struct snapshot *m = &s->st.snap;
	size_t lo = 0, hi = m->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->jobs[mid].id <= f->after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->njobs; i++) {
		if (!job_matches(f, &m->jobs[i]))
			continue;
		if (a->n >= f->page)
			return true;
		GROW(a->v, a->cap, a->n + 1);
		job_copy(&a->v[a->n++], &m->jobs[i]);
	}
	return false;
}

void server_jobs(struct server *s, const struct job_filter *f, struct job **out, size_t *n,
		 bool *more)
{
	if (more)
		*more = false;
	if (f->page) {
		pthread_mutex_lock(&s->mu);
		struct jobs_acc a = {.f = f, .mem = &s->st.snap};
		bool m = filter_finished(f) ? server_jobs_page(s, f, &a)
					    : server_jobs_page_mem(s, f, &a);
		pthread_mutex_unlock(&s->mu);
		if (more)
			*more = m;
		*out = a.v ? a.v : xmalloc(sizeof(**out));
		*n = a.n;
		return;
	}
	pthread_mutex_lock(&s->mu);
	struct jobs_acc a = {.f = f, .mem = &s->st.snap};
	for (size_t i = 0; i < s->st.snap.njobs; i++) {
		const struct job *j = &s->st.snap.jobs[i];
		if (!job_matches(f, j))
			continue;
		GROW(a.v, a.cap, a.n + 1);
		job_copy(&a.v[a.n++], j);
	}
	/* Finished jobs older than memory's window are in the journal only
	 * (state.h): asked for by when they ended, through its index. */
	if (filter_finished(f)) {
		struct gq_err e = GQ_ERR_INIT;
		if (db_jobs_ended(s->st.db, f->since ? f->since : 1,
				  f->until ? f->until : INT64_MAX, acc_journal, &a, &e) < 0)
			log_warn("jobs from the journal: %s", e.msg);
	}
	pthread_mutex_unlock(&s->mu);
	if (a.n)
		qsort(a.v, a.n, sizeof(*a.v), cmp_job_id);
	size_t cnt = a.n;
	struct job *v = a.v ? a.v : xmalloc(sizeof(*v));
	if (f->limit && cnt > f->limit) {
		for (size_t i = 0; i < cnt - f->limit; i++)
			job_release(&v[i]);
		memmove(v, v + (cnt - f->limit), f->limit * sizeof(*v));
		cnt = f->limit;
	}
	*out = v;
	*n = cnt;
}

int server_events(struct server *s, int64_t after, int wait_ms, int max, struct event **out,
		  size_t *n, int64_t *next, struct gq_err *e)
{
	if (wait_ms > MAX_WAIT_MS)
		wait_ms = MAX_WAIT_MS;
	pthread_mutex_lock(&s->mu);
	if (wait_ms > 0 && s->st.last_seq <= after) {
		struct timespec dl = mono_deadline(wait_ms);
		while (s->st.last_seq <= after && !s->stopping)
			if (pthread_cond_timedwait(&s->ev_cv, &s->mu, &dl) == ETIMEDOUT)
				break;
	}
	struct event *v = xcalloc((size_t)max, sizeof(*v));
	int cnt = 0;
	int rc = db_events_after(s->st.db, after, v, max, &cnt, e);
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

int ops_all_events(struct server *s, int64_t upto, struct event **out, size_t *n, struct gq_err *e)
{
	struct event *all = NULL;
	size_t nall = 0, cap = 0;
	int64_t after = 0;
	for (;;) {
		struct event *page;
		size_t np;
		int64_t nx;
		if (server_events(s, after, 0, 4096, &page, &np, &nx, e) < 0) {
			free(all);
			return -1;
		}
		if (np > 0) {
			GROW(all, cap, nall + np);
			memcpy(all + nall, page, np * sizeof(*page));
			nall += np;
		}
		free(page);
		if (np < 4096 || nx >= upto)
			break;
		after = nx;
	}
	*out = all;
	*n = nall;
	return 0;
}

int server_snapshot_text(struct server *s, bool rows, char **body, size_t *len, int64_t *seq,
			 struct gq_err *e)
{
	pthread_mutex_lock(&s->mu);
	uint64_t gen = db_changes(s->st.db);
	int64_t now = state_now(&s->st);
	pthread_mutex_unlock(&s->mu);
	struct snap_cache *c = &s->snapc[rows ? CODEC_ROWS : CODEC_OBJECTS];
	pthread_mutex_lock(&s->snapc_mu);
	while (c->busy)
		pthread_cond_wait(&s->snapc_cv, &s->snapc_mu);
	if (c->body && c->gen == gen && c->now == now) {
		*body = xmalloc(c->len ? c->len : 1);
		memcpy(*body, c->body, c->len);
		*len = c->len;
		*seq = c->seq;
		pthread_mutex_unlock(&s->snapc_mu);
		return 0;
	}
	c->busy = true;
	pthread_mutex_unlock(&s->snapc_mu);

	/* Made after gen was read: at worst newer than its key, never older. */
	struct snapshot snap;
	snapshot_init(&snap);
	server_snapshot(s, &snap, seq);
	*body = codec_snapshot_text(&snap, rows ? CODEC_ROWS : CODEC_OBJECTS, len, e);
	snapshot_release(&snap);

	pthread_mutex_lock(&s->snapc_mu);
	c->busy = false;
	if (*body) {
		free(c->body);
		c->body = xmalloc(*len ? *len : 1);
		memcpy(c->body, *body, *len);
		c->len = *len;
		c->gen = gen;
		c->now = now;
		c->seq = *seq;
	}
	pthread_cond_broadcast(&s->snapc_cv);
	pthread_mutex_unlock(&s->snapc_mu);
	return *body ? 0 : -1;
}

int server_stats(struct server *s, int64_t from, int64_t to, struct stats *out, int *counts,
		 int64_t *nowp, int64_t *startedp, struct gq_err *e)
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
	int64_t started = s->st.created; /* written once, by server_open */
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		counts[i] = 0;
	for (size_t i = 0; i < snap.njobs; i++)
		counts[snap.jobs[i].state]++;
	struct event *all = NULL;
	size_t nall = 0;
	int rc = ops_all_events(s, seq, &all, &nall, e);
	if (rc == 0) {
		/* A manual clock set back, or a journal older than meta "created". */
		if (nall && all[0].time < started)
			started = all[0].time;
		if (from < started && started < to)
			from = started;
		rc = stats_compute(&snap, all, nall, from, to, out, e);
	}
	free(all);
	snapshot_release(&snap);
	*nowp = now;
	*startedp = started;
	return rc;
}

void server_preemptions(struct server *s, int64_t job, size_t limit, struct preempt_record **out,
			size_t *n, int64_t *nowp)
{
	pthread_mutex_lock(&s->mu);
	enforce_records(s->st.enf, job, limit, out, n);
	*nowp = state_now(&s->st);
	pthread_mutex_unlock(&s->mu);
}

void server_reclaim(struct server *s, struct reclaim_entry **out, size_t *n, int64_t *nowp,
		    struct policy *p)
{
	pthread_mutex_lock(&s->mu);
	struct enforce_ctx ec = state_enforce_ctx(&s->st);
	enforce_reclaim(s->st.enf, &ec, out, n);
	*nowp = ec.now;
	*p = s->st.snap.policy;
	state_wake(&s->st); /* its next pass journals what the sample saw */
	pthread_mutex_unlock(&s->mu);
}

int server_clock(struct server *s, const struct identity *who, int64_t delta, int64_t set,
		 int64_t *nowp, struct gq_err *e)
{
	if (who->role != ROLE_ADMIN)
		return err_set(e, GQ_EPERM, "moving the clock is an admin action");
	if (!s->st.cfg->manual_clock)
		return err_set(
		    e, GQ_ECONFLICT,
		    "this server uses the real clock; start it with --manual-clock to move it");
	if (delta < 0)
		return err_set(e, GQ_EINVAL, "the clock only moves forward, got %" PRId64 "s",
			       delta);
	pthread_mutex_lock(&s->mu);
	int rc = -1;
	int64_t target;
	if (set && set < s->st.manual_now) {
		err_set(e, GQ_EINVAL,
			"the clock only moves forward: %" PRId64 " is before now (%" PRId64 ")",
			set, s->st.manual_now);
		goto out;
	}
	if (set)
		target = set;
	else if (__builtin_add_overflow(s->st.manual_now, delta, &target))
		target = INT64_MAX;
	if (target > GQ_CLOCK_MAX) {
		err_set(e, GQ_EINVAL, "the clock cannot go past the year 9999");
		goto out;
	}
	if (s->st.full) {
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	int64_t old = s->st.manual_now, seq0 = s->st.last_seq;
	char v[32], reason[64];
	snprintf(v, sizeof(v), "%" PRId64, target);
	s->st.manual_now = target;
	snprintf(reason, sizeof(reason), "+%" PRId64 "s", target - old);
	if (db_begin(s->st.db, e) < 0)
		goto fail;
	if (db_meta_set(s->st.db, "clock", v, e) < 0 ||
	    state_emit(&s->st, 0, "clock", JOB_PENDING, JOB_PENDING, reason, who->user, e) < 0 ||
	    state_commit(&s->st, e) < 0) {
		s->st.manual_now = old;
		state_failed(&s->st, e);
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	*nowp = target;
	rc = 0;
	pthread_cond_broadcast(&s->ev_cv);
	state_wake(&s->st);
	goto out;
fail:
	s->st.manual_now = old;
	s->st.last_seq = seq0;
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void server_policy(struct server *s, struct policy *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->st.snap.policy;
	pthread_mutex_unlock(&s->mu);
}

/* Puts p in force: queue and department states follow their names. Lock
 * held, inside a transaction. */
int ops_policy_put(struct server *s, const struct policy *p, const char *actor, struct gq_err *e)
{
	struct queue_state qs[GQ_MAX_QUEUES];
	struct dept_state ds[GQ_MAX_DEPTS];
	memset(qs, 0, sizeof(qs));
	memset(ds, 0, sizeof(ds));
	for (int i = 0; i < p->nqueues; i++) {
		int o = policy_queue_index(&s->st.snap.policy, p->queues[i].name);
		if (o >= 0)
			qs[i] = s->st.snap.qstate[o];
	}
	for (int i = 0; i < p->ndepts; i++) {
		int o = policy_dept_index(&s->st.snap.policy, p->depts[i].name);
		if (o >= 0)
			ds[i] = s->st.snap.dstate[o];
	}
	char reason[160];
	repo_event_reason(reason, sizeof(reason), true, p->revision[0] ? p->revision : "default",
			  "");
	if (db_meta_set(s->st.db, "policy.revision", p->revision, e) < 0 ||
	    state_emit(&s->st, 0, "policy", JOB_PENDING, JOB_PENDING, reason, actor, e) < 0)
		return -1;
	s->st.snap.policy = *p;
	memcpy(s->st.snap.qstate, qs, sizeof(qs));
	memcpy(s->st.snap.dstate, ds, sizeof(ds));
	return 0;
}

void ops_policy_refused(struct server *s, const char *oid, const char *why, const char *actor)
{
	char reason[160];
	struct gq_err e = GQ_ERR_INIT;
	repo_event_reason(reason, sizeof(reason), false, oid, why);
	if (!s->st.full &&
	    (db_begin(s->st.db, &e) < 0 ||
	     state_emit(&s->st, 0, "policy", JOB_PENDING, JOB_PENDING, reason, actor, &e) < 0 ||
	     state_commit(&s->st, &e) < 0))
		state_failed(&s->st, &e);
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
	if (s->st.full) {
		state_full_refusal(&s->st, "changes", e);
		goto out;
	}
	struct gq_err fe = GQ_ERR_INIT;
	if (repo_fetch(s->prepo, &fe) < 0)
		log_warn("policy fetch: %s", fe.msg);
	char oid[POLICY_OID_HEX] = "";
	if (repo_resolve(s->prepo, rev, oid, e) < 0)
		goto out;
	struct policy *p = xmalloc(sizeof(*p));
	if (repo_load(s->prepo, oid, p, e) < 0) {
		e->code = e->code == GQ_ENOENT ? GQ_ENOENT : GQ_EINVAL;
		ops_policy_refused(s, oid, e->msg, actor);
		free(p);
		goto out;
	}
	struct policy *old = xmalloc(sizeof(*old));
	*old = s->st.snap.policy;
	if (db_begin(s->st.db, e) < 0 || ops_policy_put(s, p, actor, e) < 0 ||
	    state_commit(&s->st, e) < 0) {
		/* The policy is not in the journal: put the old one back before
		 * the usage is reloaded by queue name. */
		s->st.snap.policy = *old;
		state_failed(&s->st, e);
		state_full_refusal(&s->st, "changes", e);
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
	state_wake(&s->st);
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

const struct auth *server_auth(struct server *s)
{
	return s->auth;
}
