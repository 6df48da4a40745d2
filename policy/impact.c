/*
 * impact.c - the effect of a candidate policy on the live queue (see
 * impact.h): the order of pending jobs from core/order, the predicted
 * starts from core/predict, preemptibility from the static victim rules.
 */
#include "impact.h"

#include <stdlib.h>
#include <string.h>

#include "core/order.h"
#include "core/predict.h"

/* A view of s under policy p: the same jobs and nodes (borrowed, never
 * released), per-queue and per-department state moved to p's indices. */
static void view_under(const struct snapshot *s, const struct policy *p, struct snapshot *v)
{
	*v = *s;
	v->policy = *p;
	memset(v->qstate, 0, sizeof(v->qstate));
	memset(v->dstate, 0, sizeof(v->dstate));
	for (int i = 0; i < p->nqueues; i++) {
		int old = policy_queue_index(&s->policy, p->queues[i].name);
		if (old >= 0)
			v->qstate[i] = s->qstate[old];
	}
	for (int i = 0; i < p->ndepts; i++) {
		int old = policy_dept_index(&s->policy, p->depts[i].name);
		if (old >= 0)
			v->dstate[i] = s->dstate[old];
	}
}

bool impact_preemptible(const struct snapshot *s, const struct job *j)
{
	const struct policy *p = &s->policy;
	if (j->state != JOB_RUNNING)
		return false;
	if (!policy_acts(p->preempt_mode, p->preempt_trial, j->queue))
		return false;
	if (!j->checkpointable || !j->last_checkpoint)
		return false;
	int64_t ran = s->now - j->start_time;
	if (ran >= p->protect)
		return false;
	if (j->restarts > 0 && ran < p->cooldown)
		return false;
	int qi = policy_queue_index(p, j->queue);
	int used = qi >= 0 ? s->qstate[qi].preempts_hour : 0;
	return used < policy_queue_budget(p, qi);
}

static int cmp_eta(const void *a, const void *b)
{
	const struct impact_eta *x = a, *y = b;
	return (x->job > y->job) - (x->job < y->job);
}

void impact_compute(const struct snapshot *s, const struct policy *cand, struct impact *out)
{
	memset(out, 0, sizeof(*out));
	struct snapshot *v = xmalloc(sizeof(*v));
	view_under(s, cand, v);
	size_t *before = xmalloc((s->njobs + 1) * sizeof(size_t));
	size_t *after = xmalloc((s->njobs + 1) * sizeof(size_t));
	int *old_pos = xcalloc(s->njobs + 1, sizeof(int));
	size_t n = order_pending(s, before);
	size_t n2 = order_pending(v, after);
	if (n != n2)
		BUG("pending jobs differ under two policies: %zu and %zu", n, n2);
	out->npending = n;
	for (size_t i = 0; i < n; i++)
		old_pos[before[i]] = (int)i + 1;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[after[i]];
		if (old_pos[after[i]] == (int)i + 1)
			continue;
		GROW(out->moves, cap, out->nmoves + 1);
		struct impact_move *m = &out->moves[out->nmoves++];
		m->job = j->id;
		m->tier = job_tier(j);
		m->old_pos = old_pos[after[i]];
		m->new_pos = (int)i + 1;
		m->old_weight = order_weight(&s->policy, j, s->now);
		m->new_weight = order_weight(cand, j, s->now);
	}
	cap = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_RUNNING)
			continue;
		out->nrunning++;
		bool was = impact_preemptible(s, j), is = impact_preemptible(v, j);
		if (was == is)
			continue;
		GROW(out->preempts, cap, out->npreempts + 1);
		out->preempts[out->npreempts].job = j->id;
		out->preempts[out->npreempts].preemptible = is;
		out->npreempts++;
	}
	/* Predicted starts: one simulation under each policy. */
	struct prediction_set pa, pb;
	prediction_set_init(&pa);
	prediction_set_init(&pb);
	predict_all(s, &pa);
	predict_all(v, &pb);
	cap = 0;
	for (size_t i = 0; i < pa.n; i++) {
		const struct prediction *x = &pa.items[i];
		const struct prediction *y = prediction_find(&pb, v, x->job);
		int64_t xs = x->placed ? x->start : 0, ys = y && y->placed ? y->start : 0;
		if (xs == ys)
			continue;
		GROW(out->etas, cap, out->netas + 1);
		out->etas[out->netas++] = (struct impact_eta){x->job, xs, ys};
	}
	prediction_set_release(&pa);
	prediction_set_release(&pb);
	if (out->netas)
		qsort(out->etas, out->netas, sizeof(*out->etas), cmp_eta);
	free(old_pos);
	free(before);
	free(after);
	free(v);
}

void impact_release(struct impact *im)
{
	free(im->moves);
	free(im->etas);
	free(im->preempts);
	memset(im, 0, sizeof(*im));
}
