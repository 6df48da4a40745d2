/*
 * sched.c - the plan: which pending jobs start now, and on which GPUs.
 *
 * The starts come from the prediction's simulation run up to `now` only,
 * so that the server never starts a job the prediction did not put at
 * `now`, and never leaves one it did.
 */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "downgrade.h"
#include "order.h"
#include "place.h"
#include "preempt.h"

static const char *const kind_names[PLAN_KIND_COUNT] = {
	[PLAN_START] = "start",
	[PLAN_PREEMPT] = "preempt",
	[PLAN_REMIND] = "remind",
	[PLAN_DOWNGRADE] = "downgrade",
};

const char *plan_kind_name(enum plan_kind k)
{
	return (unsigned)k < PLAN_KIND_COUNT && kind_names[k] ? kind_names[k] : "?";
}

void plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
}

void plan_release(struct plan *p)
{
	free(p->actions);
	plan_init(p);
}

struct plan_action *plan_add(struct plan *p, enum plan_kind k, int64_t job)
{
	GROW(p->actions, p->cap, p->n + 1);
	struct plan_action *a = &p->actions[p->n++];
	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->job = job;
	return a;
}

const struct plan_action *plan_find(const struct plan *p, enum plan_kind k, int64_t job)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->actions[i].kind == k && p->actions[i].job == job)
			return &p->actions[i];
	return NULL;
}

/* Every dependency completed (one absent from the snapshot counts as done). */
static bool deps_done(const struct snapshot *s, const struct job *j)
{
	for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj = snapshot_find(s, j->deps[d]);
		if (dj && dj->state != JOB_COMPLETED)
			return false;
	}
	return true;
}

void sched_plan(const struct snapshot *s, struct plan *out)
{
	out->now = s->now;
	out->wake = 0;
	size_t *idx = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*idx));
	size_t n = order_pending(s, idx);
	struct place_map m;
	place_map_init(&m, s);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[idx[i]];
		struct place_result r;
		if (j->held || !deps_done(s, j) || j->not_before > s->now)
			continue;
		if (!place_check(&m, s, j, s->now, &r))
			continue;
		int qi = policy_queue_index(&s->policy, j->queue);
		place_take(&m, qi, r.nalloc, r.alloc);
		struct plan_action *a = plan_add(out, PLAN_START, j->id);
		a->borrowed = r.borrowed;
		a->nalloc = r.nalloc;
		memcpy(a->alloc, r.alloc, sizeof(a->alloc));
	}
	preempt_add_to_plan(s, &m, idx, n, out);
	downgrade_add_to_plan(s, out);
	place_map_release(&m);
	free(idx);
}
