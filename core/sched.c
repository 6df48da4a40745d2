/*
 * sched.c - the plan: which pending jobs start now, and on which GPUs.
 *
 * The starts come from the prediction's simulation run up to `now` only,
 * so that the server never starts a job the prediction did not put at
 * `now`, and never leaves one it did (the starts it predicts by a
 * starvation permit are left to preempt.h, which adds them with their
 * reason, the same jobs on the same GPUs). Preemption and permits (preempt.h),
 * then reminders and downgrades (downgrade.h) add their actions after the
 * starts.
 */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "downgrade.h"
#include "order.h"
#include "place.h"
#include "predict.h"
#include "preempt.h"
#include "util.h"

/* A pending job whose prediction at submit is still to be recorded
 * (calib.h); a held one waits for its release, and then has none. */
static bool unrecorded(const struct job *j)
{
	return j->state == JOB_PENDING && !j->held && j->pred_start0 == 0;
}

static bool just_submitted(const struct snapshot *s, const struct job *j)
{
	return j->submit_time > 0 && s->now - j->submit_time <= CALIB_MIN_WAIT;
}

/* The predictions at submit the plan hands to the server (plan.h). */
static void record_preds(const struct snapshot *s, const struct prediction_set *ps,
			 struct plan *out)
{
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!unrecorded(j))
			continue;
		const struct prediction *pr = prediction_find(ps, s, j->id);
		GROW(out->preds, out->predcap, out->npred + 1);
		out->preds[out->npred++] = (struct plan_pred){
		    j->id, pr && pr->placed && just_submitted(s, j) ? pr->start : -1};
	}
}

void sched_plan(const struct snapshot *s, struct plan *out)
{
	struct prediction_set ps;
	prediction_set_init(&ps);
	/* The whole prediction, to record the starts of jobs just submitted:
	 * once SCHED_RECORD_BATCH of them wait for it, or the oldest has
	 * waited SCHED_RECORD_DELAY (so that a stream of submits costs a
	 * prediction a second, not one each); its first step at now is
	 * predict_until(now)'s. */
	size_t fresh = 0;
	int64_t oldest = 0;
	bool any = false;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!unrecorded(j))
			continue;
		any = true;
		if (!just_submitted(s, j))
			continue;
		fresh++;
		if (!oldest || j->submit_time < oldest)
			oldest = j->submit_time;
	}
	bool whole =
	    fresh >= SCHED_RECORD_BATCH || (fresh && oldest <= s->now - SCHED_RECORD_DELAY);
	if (whole)
		predict_all(s, &ps);
	else
		predict_until(s, s->now, &ps);
	out->now = s->now;
	out->wake = ps.wake;
	if (fresh && !whole && (!out->wake || oldest + SCHED_RECORD_DELAY < out->wake))
		out->wake = oldest + SCHED_RECORD_DELAY;
	if (whole || (any && !fresh))
		record_preds(s, &ps, out);
	for (size_t i = 0; i < ps.n; i++) {
		const struct prediction *pr = &ps.items[i];
		/* Permit starts are preempt_add_to_plan()'s: it finds the same
		 * ones, on the same map, with their reason. */
		if (!pr->placed || pr->start != s->now || pr->permit)
			continue;
		struct plan_action *a = plan_add(out, PLAN_START, pr->job);
		a->borrowed = pr->borrowed;
		plan_action_set_alloc(a, pr->nalloc, pr->alloc);
	}
	prediction_set_release(&ps);

	/* Preemption and permits see the map after these starts. */
	struct place_map m;
	place_map_init(&m, s);
	for (size_t i = 0; i < out->n; i++) {
		const struct plan_action *a = &out->actions[i];
		if (a->kind != PLAN_START)
			continue;
		const struct job *j = snapshot_find(s, a->job);
		place_take(&m, j ? policy_queue_index(&s->policy, j->queue) : -1,
			   j ? &j->req : NULL, a->nalloc, a->alloc);
	}
	size_t *idx = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*idx));
	size_t n = order_pending(s, idx);
	preempt_add_to_plan(s, &m, idx, n, out);
	downgrade_add_to_plan(s, out);
	place_map_release(&m);
	free(idx);
}

void sched_prepare(struct snapshot *s)
{
	predict_fill_history(s);
	predict_fill_calib(s);
	snapshot_mark_over_quota(s);
}
