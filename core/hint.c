/*
 * hint.c - counterfactual hints (see hint.h): candidates from the job's
 * reasons, each applied to a private copy of the job and predicted again
 * with the copy in the job's place. The candidates are only guesses of what might help;
 * the prediction decides which are kept, so a guess that is wrong costs
 * time, never a false sentence.
 */
#include "hint.h"

#include <stdlib.h>
#include <string.h>

#include "place.h"
#include "policy.h"
#include "ulimit.h"

static const char *const hint_tokens[HINT_COUNT] = {
#define X(e, tok) [HINT_##e] = tok,
    HINT_LIST(X)
#undef X
};

const char *hint_name(enum hint h)
{
	return (unsigned)h < HINT_COUNT ? hint_tokens[h] : "?";
}

void hint_apply(const struct policy *p, const struct hint_item *h, struct job *j)
{
	switch (h->hint) {
	case HINT_RELEASE:
		j->held = false;
		j->held_by[0] = '\0';
		j->held_at = 0;
		break;
	case HINT_FEWER_GPUS:
		j->req.gpus = (int)h->value;
		break;
	case HINT_ANY_GPU_TYPE:
		j->req.gpu_type[0] = '\0';
		j->req.gpu_mem_mb = 0;
		break;
	case HINT_GPU_TYPE:
		STR_COPY(j->req.gpu_type, h->arg);
		break;
	case HINT_SPREAD:
		j->req.same_node = false;
		break;
	case HINT_SHORTER_ESTIMATE:
	case HINT_BOUND:
		j->estimate = h->value;
		break;
	case HINT_SHORTER_TIME_LIMIT:
		j->time_limit = h->value;
		break;
	case HINT_NO_DEPENDENCY:
		j->ndeps = 0;
		break;
	case HINT_QUEUE: {
		/* As a submit to that queue would be: charged to its
		 * department, given its default time limit. */
		const struct queue_policy *q = policy_queue(p, h->arg);
		STR_COPY(j->queue, h->arg);
		if (q) {
			STR_COPY(j->dept, q->dept);
			if (!j->time_limit && q->default_time > 0)
				j->time_limit = q->default_time;
		}
		break;
	}
	case HINT_PROMOTE:
		j->ovr.set = true;
		j->ovr.tier = (enum tier)h->value;
		break;
	case HINT_COUNT:
		break;
	}
}

/* The candidates in two rounds: the first of each kind, then the extra
 * ones (a second GPU count, queue, tier, GPU model), so that the bound
 * cuts extras before any kind is left untried. */
#define CAND_MAX (2 * HINT_MAX_EVAL)
struct cands {
	int n;
	struct hint_item v[CAND_MAX];
	bool extra[CAND_MAX];
	bool second; /* what cand() adds now is an extra */
};

static void cand(struct cands *c, enum hint h, int64_t value, const char *arg)
{
	if (c->n >= CAND_MAX)
		return;
	c->extra[c->n] = c->second;
	struct hint_item *x = &c->v[c->n++];
	memset(x, 0, sizeof(*x));
	x->hint = h;
	x->value = value;
	if (arg)
		STR_COPY(x->arg, arg);
}

/* Up to two GPU counts below the request, the largest first: the counts
 * the reasons say would fit now (what matches, what the headroom leaves,
 * what is free, what the quota or the user's GPU limit leaves, what could
 * ever be given), and half the request. */
static void fewer_gpus(const struct why *w, const struct job *j, struct cands *c)
{
	int need = j->req.gpus, v[REASON_COUNT + 1], n = 0;
	for (int i = 0; i < w->nitems; i++) {
		const struct reason_item *it = &w->items[i];
		switch (it->reason) {
		case REASON_MISMATCH:
		case REASON_UNSATISFIABLE:
			v[n++] = it->have;
			break;
		case REASON_HEADROOM:
			v[n++] = it->free - (int)it->limit;
			break;
		case REASON_RESOURCES:
			v[n++] = it->free;
			break;
		case REASON_QUOTA:
			if (!strcmp(it->detail, "queue"))
				v[n++] = (int)(it->limit - it->used);
			break;
		case REASON_USER_LIMIT:
			v[n++] = (int)(it->limit - it->used);
			break;
		default:
			break;
		}
	}
	v[n++] = need / 2;
	int last = need;
	for (int k = 0; k < 2; k++) {
		int best = 0;
		for (int i = 0; i < n; i++)
			if (v[i] > best && v[i] < last)
				best = v[i];
		if (best < 1)
			return;
		c->second = k > 0;
		cand(c, HINT_FEWER_GPUS, best, NULL);
		c->second = false;
		last = best;
	}
}

/* Up to two GPU models of the cluster's up nodes other than the one j
 * names, with the GPU memory it asks for: the one with the most GPUs free
 * now first (then by name). O(jobs + nodes × models). */
static void gpu_models(const struct snapshot *s, const struct job *j, struct cands *c)
{
	if (!s->nnodes)
		return;
	int *nfree = xcalloc(s->nnodes, sizeof(*nfree));
	uint64_t *busy = xcalloc(s->nnodes, sizeof(*busy));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *o = &s->jobs[i];
		if (job_state_holds_gpus(o->state))
			for (int a = 0; a < o->nalloc; a++)
				if (o->alloc[a].node >= 0 && (size_t)o->alloc[a].node < s->nnodes)
					busy[o->alloc[a].node] |= o->alloc[a].mask;
	}
	for (size_t n = 0; n < s->nnodes; n++)
		nfree[n] = s->nodes[n].ngpus - __builtin_popcountll(busy[n]);
	char seen[GQ_NAME_MAX] = "";
	for (int k = 0; k < 2; k++) {
		const char *best = NULL;
		int best_free = -1;
		for (size_t n = 0; n < s->nnodes; n++) {
			const struct node *nd = &s->nodes[n];
			if (!nd->up || !nd->gpu_model[0] ||
			    !strcmp(nd->gpu_model, j->req.gpu_type) ||
			    !strcmp(nd->gpu_model, seen) ||
			    (j->req.gpu_mem_mb > 0 && nd->gpu_mem_mb < j->req.gpu_mem_mb) ||
			    (best && !strcmp(nd->gpu_model, best)))
				continue;
			int f = 0; /* the model's free GPUs, over its up nodes */
			for (size_t m = n; m < s->nnodes; m++)
				if (s->nodes[m].up && !strcmp(s->nodes[m].gpu_model, nd->gpu_model))
					f += nfree[m];
			if (f > best_free || (f == best_free && strcmp(nd->gpu_model, best) < 0)) {
				best = nd->gpu_model;
				best_free = f;
			}
		}
		if (!best)
			break;
		STR_COPY(seen, best);
		c->second = k > 0;
		cand(c, HINT_GPU_TYPE, 0, best);
		c->second = false;
	}
	free(busy);
	free(nfree);
}

/* Up to two other queues that are not paused now and have room under
 * their quota and borrowing limit, and under the user's GPU limits, for the
 * request. */
static void queues(const struct snapshot *s, const struct job *j, struct cands *c)
{
	const struct policy *p = &s->policy;
	int used[GQ_MAX_QUEUES] = {0};
	for (size_t i = 0; i < s->njobs; i++) {
		int qi = policy_queue_index(p, s->jobs[i].queue);
		if (qi >= 0)
			used[qi] += job_gpus_held(&s->jobs[i]);
	}
	struct ulimit_user mine;
	ulimit_of(s, j->user, &mine);
	int added = 0;
	struct ulimit_hit uh;
	for (int q = 0; q < p->nqueues && added < 2; q++) {
		const struct queue_policy *qp = &p->queues[q];
		int lim = qp->quota < 0 || qp->borrow < 0 ? -1 : qp->quota + qp->borrow;
		if (!strcmp(qp->name, j->queue) || place_window_paused(s, q, s->now) ||
		    (lim >= 0 && used[q] + j->req.gpus > lim) ||
		    ulimit_gpus_over(p, &mine, q, j->req.gpus, &uh))
			continue;
		c->second = added > 0;
		cand(c, HINT_QUEUE, 0, qp->name);
		c->second = false;
		added++;
	}
}

static void candidates(const struct snapshot *s, const struct prediction_set *ps,
		       const struct why *w, const struct job *j, struct cands *c)
{
	const struct prediction *pr = w->pred;
	for (int i = 0; i < w->nitems; i++)
		if (w->items[i].reason == REASON_DEPENDENCY && w->items[i].never)
			return; /* it can never run: nothing to weigh (cancel it) */
	if (j->held) {
		/* Nothing else moves a job that never starts while held. */
		cand(c, HINT_RELEASE, 0, NULL);
		return;
	}
	if (j->ndeps > 0)
		for (int i = 0; i < w->nitems; i++)
			if (w->items[i].reason == REASON_DEPENDENCY)
				cand(c, HINT_NO_DEPENDENCY, 0, NULL);
	fewer_gpus(w, j, c);
	if (j->req.gpu_type[0] || j->req.gpu_mem_mb > 0)
		cand(c, HINT_ANY_GPU_TYPE, 0, NULL);
	if (j->req.gpu_type[0])
		gpu_models(s, j, c);
	if (j->req.same_node)
		cand(c, HINT_SPREAD, 0, NULL);
	int64_t gap = ps->backfill_until > s->now ? ps->backfill_until - s->now : 0;
	if (gap >= HINT_MIN_GAIN) {
		if (!predict_bounded(j))
			cand(c, HINT_BOUND, gap, NULL);
		else if (pr->runtime > gap && !j->estimate && !j->hist_runtime)
			/* Its expected run is its time limit's: the limit is
			 * what keeps it from the gap. */
			cand(c, HINT_SHORTER_TIME_LIMIT, gap, NULL);
		else if (pr->runtime > gap)
			cand(c, HINT_SHORTER_ESTIMATE, gap, NULL);
	}
	queues(s, j, c);
	/* Tiers above its own that its owner may use, the nearest first; on
	 * a snapshot the backend orders, a tier moves nothing. */
	if (s->order == ORDER_GQ) {
		int added = 0;
		for (int t = (int)job_tier(j) - 1; t >= 0; t--)
			if (policy_tier_allows(&s->policy, (enum tier)t, j->user, "")) {
				c->second = added++ > 0;
				cand(c, HINT_PROMOTE, t, NULL);
				c->second = false;
			}
	}
	/* The first of each kind, then the extras, at most HINT_MAX_EVAL. */
	struct cands o = {0};
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < c->n && o.n < HINT_MAX_EVAL; i++)
			if (c->extra[i] == (round == 1))
				o.v[o.n++] = c->v[i];
	*c = o;
}

void hint_job(const struct snapshot *s, const struct prediction_set *ps, const struct why *w,
	      struct hint_set *out)
{
	memset(out, 0, sizeof(*out));
	const struct prediction *pr = w->pred;
	if (!pr || w->primary == REASON_STARTING || w->idx >= s->njobs)
		return;
	bool base_placed = pr->placed && pr->never == NEVER_NO;
	if (base_placed && pr->start <= s->now + HINT_MIN_GAIN)
		return; /* it starts now, or so soon nothing could gain enough */
	const struct job *j = &s->jobs[w->idx];
	struct cands c;
	c.n = 0;
	c.second = false;
	candidates(s, ps, w, j, &c);
	if (!c.n)
		return;

	/* The changed job is simulated in place of the job: s is not
	 * copied. */
	struct job cj;
	int64_t until = base_placed ? pr->start - HINT_MIN_GAIN : INT64_MAX;
	struct prediction_set cps;
	prediction_set_init(&cps);
	for (int i = 0; i < c.n && out->n < HINT_MAX; i++) {
		cj = *j;
		hint_apply(&s->policy, &c.v[i], &cj);
		predict_job(s, w->idx, &cj, until, &cps);
		out->evaluated++;
		int32_t k = w->idx < cps.njobs ? cps.of_job[w->idx] : -1;
		const struct prediction *q = k >= 0 ? &cps.items[k] : NULL;
		if (!q || !q->placed || q->never != NEVER_NO || q->start > until)
			continue;
		/* Fewer GPUs than a count already kept (a larger one, tried
		 * first), for no earlier start, would only cost GPUs. */
		bool worse = false;
		for (int m = 0; m < out->n; m++)
			worse |= c.v[i].hint == HINT_FEWER_GPUS &&
				 out->items[m].hint == HINT_FEWER_GPUS &&
				 out->items[m].start <= q->start;
		if (worse)
			continue;
		struct hint_item *h = &out->items[out->n++];
		*h = c.v[i];
		h->start = q->start;
		h->gain = base_placed ? pr->start - q->start : 0;
	}
	prediction_set_release(&cps);
	/* In the order of the list (stable: of one kind, as tried). */
	for (int a = 1; a < out->n; a++) {
		struct hint_item x = out->items[a];
		int b = a;
		for (; b > 0 && out->items[b - 1].hint > x.hint; b--)
			out->items[b] = out->items[b - 1];
		out->items[b] = x;
	}
}
