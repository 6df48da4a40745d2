/*
 * polldiff.c - events from two polls of a Slurm cluster (polldiff.h).
 */
#include "polldiff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct evbuf {
	struct event *v;
	size_t n, cap;
	bool late;
};

static void emit(struct evbuf *b, int64_t t, int64_t job, const char *kind, enum job_state from,
		 enum job_state to, const char *reason, const char *actor)
{
	GROW(b->v, b->cap, b->n + 1);
	struct event *e = &b->v[b->n++];
	memset(e, 0, sizeof(*e));
	e->time = t;
	e->job = job;
	STR_COPY(e->kind, kind);
	e->from = from;
	e->to = to;
	STR_COPY(e->reason, reason);
	STR_COPY(e->actor, actor);
	e->late = b->late;
}

/* The state as events have it: starting and stopping (Slurm's
 * CONFIGURING and COMPLETING) are running. */
static enum job_state norm_state(enum job_state s)
{
	return s == JOB_STARTING || s == JOB_STOPPING ? JOB_RUNNING : s;
}

void pknown_of(const struct job *j, struct pknown *k)
{
	memset(k, 0, sizeof(*k));
	k->id = j->id;
	STR_COPY(k->name, j->name);
	STR_COPY(k->user, j->user);
	STR_COPY(k->queue, j->queue);
	STR_COPY(k->dept, j->dept);
	STR_COPY(k->qos, j->ext_qos);
	k->tier = j->tier;
	k->state = norm_state(j->state);
	k->held = j->held && j->state == JOB_PENDING;
	k->restarts = j->restarts;
	k->gpus = j->req.gpus;
	k->exit_status = j->exit_status;
	k->prio = j->ext_prio;
	k->submit = j->submit_time;
	k->start = j->start_time;
	k->end = j->end_time;
}

void pknown_job(const struct pknown *k, struct job *j)
{
	job_init(j);
	j->id = k->id;
	STR_COPY(j->name, k->name);
	STR_COPY(j->user, k->user);
	STR_COPY(j->queue, k->queue);
	STR_COPY(j->dept, k->dept);
	STR_COPY(j->ext_qos, k->qos);
	j->tier = k->tier;
	j->state = k->state;
	j->held = k->held;
	j->restarts = k->restarts;
	j->req.gpus = k->gpus;
	j->exit_status = k->exit_status;
	j->ext_prio = k->prio;
	j->submit_time = j->queued_time = k->submit;
	j->start_time = k->start;
	j->end_time = k->end;
}

static void end_reason(const struct pknown *k, char *out, size_t size)
{
	if (k->state == JOB_COMPLETED || k->state == JOB_FAILED)
		snprintf(out, size, "%s (exit %d)", job_state_name(k->state), k->exit_status);
	else
		snprintf(out, size, "%s", job_state_name(k->state));
}

static int cmp_known(const void *a, const void *b)
{
	int64_t x = ((const struct pknown *)a)->id, y = ((const struct pknown *)b)->id;
	return (x > y) - (x < y);
}

static const struct pknown *find_old(const struct pknown *old, size_t nold, int64_t id)
{
	size_t lo = 0, hi = nold;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (old[mid].id < id)
			lo = mid + 1;
		else if (old[mid].id > id)
			hi = mid;
		else
			return &old[mid];
	}
	return NULL;
}

/* The job that preempted victim o (as known before): of the jobs of a
 * higher tier running now that started at or after the victim's run
 * began, or waiting now (not held: Slurm starts the preemptor once the
 * victim's resources are free, maybe after this poll), one of the highest
 * tier, the latest started, else the lowest id waiting; 0 none. */
static int64_t preemptor(const struct pknown *o, const struct pknown *now, size_t n)
{
	const struct pknown *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct pknown *p = &now[i];
		if (p->id == o->id || p->tier >= o->tier)
			continue;
		bool ran = p->state == JOB_RUNNING && p->start >= o->start && p->start > 0;
		if (!ran && (p->state != JOB_PENDING || p->held))
			continue;
		if (!best || p->tier < best->tier)
			best = p;
		else if (p->tier == best->tier && ran &&
			 (best->state != JOB_RUNNING || p->start > best->start))
			best = p;
	}
	return best ? best->id : 0;
}

/* The life of a job first seen, as far as its times tell. */
static void first_seen(struct evbuf *b, const struct pknown *k, int64_t now)
{
	int64_t sub = k->submit > 0 ? k->submit : now;
	emit(b, sub, k->id, "submit", JOB_PENDING, JOB_PENDING, k->held ? "held" : "submitted",
	     k->user);
	if (k->state == JOB_PENDING)
		return;
	char why[64];
	if (k->start > 0 || k->state == JOB_RUNNING)
		emit(b, k->start > 0 ? k->start : now, k->id, "state", JOB_PENDING, JOB_RUNNING,
		     "started", "slurm");
	if (k->state != JOB_RUNNING) {
		end_reason(k, why, sizeof(why));
		emit(b, k->end > 0 ? k->end : now, k->id, "state",
		     k->start > 0 ? JOB_RUNNING : JOB_PENDING, k->state, why, "slurm");
	}
}

/* From state `from` (pending or running) to k's. */
static void moved(struct evbuf *b, enum job_state from, const struct pknown *k, int64_t now)
{
	char why[64];
	if (from == k->state)
		return;
	if (from == JOB_PENDING && k->state == JOB_RUNNING) {
		emit(b, k->start > 0 ? k->start : now, k->id, "state", from, JOB_RUNNING, "started",
		     "slurm");
		return;
	}
	if (k->state == JOB_PENDING) { /* running -> pending, its restart count the same */
		emit(b, now, k->id, "state", from, JOB_PENDING, "requeued", "slurm");
		return;
	}
	if (from == JOB_PENDING && k->start > 0) {
		emit(b, k->start, k->id, "state", JOB_PENDING, JOB_RUNNING, "started", "slurm");
		from = JOB_RUNNING;
	}
	if (job_state_active(from)) {
		end_reason(k, why, sizeof(why));
		emit(b, k->end > 0 ? k->end : now, k->id, "state", from, k->state, why, "slurm");
	}
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->time != y->time)
		return (x->time > y->time) - (x->time < y->time);
	if (x->job != y->job)
		return (x->job > y->job) - (x->job < y->job);
	/* Same job, same time: the order produced (kept in seq for now). */
	return (x->seq > y->seq) - (x->seq < y->seq);
}

void pdiff_compute(const struct pknown *old, size_t nold, const struct job *cur, size_t ncur,
		   int64_t now, bool late, struct pdiff *out)
{
	memset(out, 0, sizeof(*out));
	struct pknown *k = xcalloc(ncur ? ncur : 1, sizeof(*k));
	for (size_t i = 0; i < ncur; i++)
		pknown_of(&cur[i], &k[i]);
	qsort(k, ncur, sizeof(*k), cmp_known);
	int64_t maxold = nold ? old[nold - 1].id : 0;

	/* Ids reset? */
	for (size_t i = 0; i < ncur; i++) {
		const struct pknown *o = find_old(old, nold, k[i].id), *n = &k[i];
		const char *what = NULL;
		if (!o && n->id < maxold)
			what = "is new below the highest id known";
		else if (o && strcmp(o->user, n->user))
			what = "has another user";
		else if (o && strcmp(o->name, n->name))
			what = "has another name";
		else if (o && o->submit && n->submit && o->submit != n->submit &&
			 n->restarts <= o->restarts && !job_state_active(o->state))
			what = "has another submit time";
		if (what) {
			out->reset_job = n->id;
			if (o)
				snprintf(out->reset_why, sizeof(out->reset_why),
					 "job %" PRId64
					 " %s: known as '%.40s' of %.31s submitted at "
					 "%" PRId64 ", now '%.40s' of %.31s submitted at %" PRId64,
					 n->id, what, o->name, o->user, o->submit, n->name, n->user,
					 n->submit);
			else
				snprintf(out->reset_why, sizeof(out->reset_why),
					 "job %" PRId64 " %s (%" PRId64 ")", n->id, what, maxold);
			free(k);
			return;
		}
	}

	/* Priority changes: recorded when one job alone moved. */
	size_t prio_moved = 0;
	for (size_t i = 0; i < ncur; i++) {
		const struct pknown *o = find_old(old, nold, k[i].id);
		if (o && o->state == JOB_PENDING && k[i].state == JOB_PENDING && !o->held &&
		    !k[i].held && o->prio != k[i].prio && !strcmp(o->qos, k[i].qos))
			prio_moved++;
	}

	struct evbuf b = {.late = late};
	char why[200];
	for (size_t i = 0; i < ncur; i++) {
		struct pknown *n = &k[i];
		const struct pknown *o = find_old(old, nold, n->id);
		if (!o || o->gone) {
			if (!o)
				first_seen(&b, n, now);
			else
				moved(&b, o->state, n, now);
			continue;
		}
		enum job_state from = o->state;
		if (n->restarts > o->restarts) {
			if (from == JOB_RUNNING) {
				int64_t by = preemptor(o, k, ncur);
				if (by) {
					snprintf(why, sizeof(why), "preempted by job %" PRId64, by);
					emit(&b, now, n->id, "preempt", JOB_RUNNING, JOB_STOPPING,
					     why, "slurm");
					emit(&b, now, n->id, "state", JOB_STOPPING, JOB_PENDING,
					     "requeued", "slurm");
				} else {
					emit(&b, now, n->id, "state", JOB_RUNNING, JOB_PENDING,
					     "requeued", "slurm");
				}
			} else if (from == JOB_PENDING) {
				emit(&b, now, n->id, "state", JOB_PENDING, JOB_PENDING,
				     "requeued (its run was not seen)", "slurm");
			} else {
				snprintf(why, sizeof(why), "requeued after it was %s",
					 job_state_name(from));
				emit(&b, now, n->id, "state", from, JOB_PENDING, why, "slurm");
			}
			from = JOB_PENDING;
		}
		if (strcmp(o->qos, n->qos)) {
			snprintf(why, sizeof(why), "QOS %.40s -> %.40s", o->qos[0] ? o->qos : "-",
				 n->qos[0] ? n->qos : "-");
			emit(&b, now, n->id, "qos", from, from, why, "slurm");
		}
		if (from == JOB_PENDING && n->state == JOB_PENDING && o->held != n->held)
			emit(&b, now, n->id, n->held ? "hold" : "release", JOB_PENDING, JOB_PENDING,
			     n->held ? "held" : "released", "slurm");
		else if (prio_moved == 1 && from == JOB_PENDING && n->state == JOB_PENDING &&
			 !o->held && !n->held && o->prio != n->prio && !strcmp(o->qos, n->qos)) {
			snprintf(why, sizeof(why), "priority %" PRId64 " -> %" PRId64, o->prio,
				 n->prio);
			emit(&b, now, n->id, "priority", JOB_PENDING, JOB_PENDING, why, "slurm");
		}
		moved(&b, from, n, now);
	}

	/* The known jobs the cluster no longer shows: kept until
	 * PDIFF_FORGET after their end (the highest id always, for the ids
	 * check); an active one left without its end being seen, which is
	 * then its end. */
	size_t nk = ncur, cap = ncur;
	int64_t maxid = ncur && k[ncur - 1].id > maxold ? k[ncur - 1].id : maxold;
	for (size_t i = 0; i < nold; i++) {
		if (bsearch(&old[i], k, ncur, sizeof(*k), cmp_known))
			continue;
		bool ended = !job_state_active(old[i].state) || old[i].gone;
		if (ended && old[i].id != maxid && old[i].end > 0 &&
		    now - old[i].end > PDIFF_FORGET)
			continue;
		GROW(k, cap, nk + 1);
		k[nk] = old[i];
		if (!ended) {
			snprintf(why, sizeof(why),
				 "left the cluster's queue %s; how it ended was not seen",
				 job_state_name(old[i].state));
			emit(&b, now, old[i].id, "gone", old[i].state, old[i].state, why, "slurm");
			k[nk].gone = true;
			k[nk].end = now;
		}
		nk++;
	}
	qsort(k, nk, sizeof(*k), cmp_known);
	/* A job's events are produced in order, contiguous: a time only seen
	 * (now) is at most the next one Slurm gives (a requeue before the
	 * start of the run after it). */
	for (size_t i = b.n; i-- > 1;)
		if (b.v[i - 1].job == b.v[i].job && b.v[i - 1].time > b.v[i].time)
			b.v[i - 1].time = b.v[i].time;
	for (size_t i = 0; i < b.n; i++)
		b.v[i].seq = (int64_t)i; /* the order produced, for equal times */
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), cmp_event);
	for (size_t i = 0; i < b.n; i++)
		b.v[i].seq = 0;
	out->ev = b.v;
	out->nev = b.n;
	out->known = k;
	out->nknown = nk;
}

void pdiff_release(struct pdiff *d)
{
	free(d->ev);
	free(d->known);
	memset(d, 0, sizeof(*d));
}
