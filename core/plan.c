/*
 * plan.c - the plan container (plan.h).
 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

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
	for (size_t i = 0; i < p->n; i++)
		free(p->actions[i].alloc);
	free(p->actions);
	free(p->preds);
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

void plan_action_set_alloc(struct plan_action *a, int n, const struct job_alloc *alloc)
{
	if (n < 0 || n > GQ_MAX_SPAN)
		BUG("plan_action_set_alloc: %d entries", n);
	struct job_alloc *v = n ? xmalloc((size_t)n * sizeof(*v)) : NULL;
	if (n)
		memcpy(v, alloc, (size_t)n * sizeof(*v));
	free(a->alloc);
	a->alloc = v;
	a->nalloc = n;
}

const struct plan_action *plan_find(const struct plan *p, enum plan_kind k, int64_t job)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->actions[i].kind == k && p->actions[i].job == job)
			return &p->actions[i];
	return NULL;
}
