/*
 * preempt.c - victim choice and the starvation permit. The rules, their
 * order and the meaning of every outcome are in preempt.h; placement
 * itself (does the trigger fit once some GPUs are given back) is
 * place_check()'s, on a map where victims' allocations are given back one
 * by one.
 */
#include "preempt.h"

#include <stdlib.h>
#include <string.h>

#include "depend.h"
#include "place.h"
#include "runtime.h"
#include "plan.h"
#include "ulimit.h"

static const char *const rule_names[PREEMPT_RULE_COUNT] = {
    [PREEMPT_RULE_TIER] = "tier",
    [PREEMPT_RULE_CHECKPOINT] = "checkpoint",
    [PREEMPT_RULE_PROTECTED] = "protected",
    [PREEMPT_RULE_COOLDOWN] = "cooldown",
    [PREEMPT_RULE_BUDGET] = "budget",
    [PREEMPT_RULE_TRIAL] = "trial",
    [PREEMPT_RULE_DEPARTMENT] = "department",
    [PREEMPT_RULE_MISMATCH] = "mismatch",
    [PREEMPT_RULE_ENDS_SOON] = "ends-soon",
};

static const char *const outcome_names[] = {
    [PREEMPT_FOUND] = "found",
    [PREEMPT_NOT_NEEDED] = "not-needed",
    [PREEMPT_CANNOT_HELP] = "cannot-help",
    [PREEMPT_NO_RIGHTS] = "no-rights",
    [PREEMPT_NONE] = "none",
    [PREEMPT_WAIT] = "wait",
    [PREEMPT_NO_PERMIT] = "no-permit",
};

const char *preempt_rule_name(enum preempt_rule r)
{
	return (unsigned)r < PREEMPT_RULE_COUNT ? rule_names[r] : "unknown";
}

const char *preempt_outcome_name(enum preempt_outcome o)
{
	return (unsigned)o <= PREEMPT_NO_PERMIT ? outcome_names[o] : "unknown";
}

void preempt_plan_release(struct preempt_plan *plan)
{
	free(plan->victims);
	plan->victims = NULL;
	plan->nvictims = 0;
}

/* A candidate that passed the static rules. */
struct cand {
	const struct job *j;
	int qi;	     /* policy queue index, -1 unknown */
	int slot;    /* budget counter: qi, or GQ_MAX_QUEUES for unknown queues */
	int64_t end; /* expected end (ends-soon candidates) */
	struct preempt_victim v;
	bool taken; /* in the set under way */
	bool best;  /* in the best set found */
};

static int cmp_cand(const void *pa, const void *pb)
{
	const struct preempt_victim *a = &((const struct cand *)pa)->v;
	const struct preempt_victim *b = &((const struct cand *)pb)->v;
	if (a->borrowed != b->borrowed)
		return a->borrowed ? -1 : 1;
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	if (a->work_lost != b->work_lost)
		return a->work_lost < b->work_lost ? -1 : 1;
	if (a->ran != b->ran)
		return a->ran < b->ran ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

static int cmp_end(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->v.job > b->v.job) - (a->v.job < b->v.job);
}

/* What earlier triggers of one plan took: their victims (per job index),
 * and the preemption budget and department quota those spent. */
struct spent {
	bool *victim;
	int queue[GQ_MAX_QUEUES + 1]; /* per budget slot, see struct cand */
	int dept[GQ_MAX_DEPTS];
};

struct chooser {
	const struct snapshot *s;
	const struct job *t;
	bool permit;
	bool reclaim;		/* t's queue is under its quota: borrowed GPUs come back */
	const struct spent *sp; /* NULL outside a plan */
	struct place_map m;
	struct cand *elig, *soon;
	size_t nelig, nsoon;
	size_t npool; /* the search looks at elig[0..npool) */
	int budget_left[GQ_MAX_QUEUES + 1];
	int budget0[GQ_MAX_QUEUES + 1]; /* budget_left before any victim is taken */
	/* The search: the best set's GPUs and work lost, nodes visited. */
	int best_gpus;
	double best_work;
	long nodes;
};

static bool fits(struct chooser *c, struct place_result *r)
{
	return place_check(&c->m, c->s, c->t, c->s->now, r);
}

/* A necessary condition for fits(), in O(1): enough GPUs free in all, with
 * the headroom reserve for P1 and P2. place_check() looks at every node, so
 * the search only asks it once this holds. */
static bool enough(const struct chooser *c)
{
	int reserve = place_reserve(&c->m, job_tier(c->t), c->t->req.gpus);
	return c->m.nfree >= c->t->req.gpus + reserve;
}

static void give(struct chooser *c, const struct cand *k)
{
	place_give(&c->m, k->qi, &k->j->req, k->j->nalloc, k->j->alloc);
}

static void take(struct chooser *c, const struct cand *k)
{
	place_take(&c->m, k->qi, &k->j->req, k->j->nalloc, k->j->alloc);
}

/* Peak preemptions left to the department of t; -1 unlimited. */
static int dept_left(const struct snapshot *s, const struct spent *sp, const struct job *t)
{
	int di = policy_dept_index(&s->policy, t->dept);
	if (di < 0 || s->policy.depts[di].preempt_quota < 0)
		return -1;
	int left = s->policy.depts[di].preempt_quota - s->dstate[di].preempts_month -
		   (sp ? sp->dept[di] : 0);
	return left > 0 ? left : 0;
}

static bool holds_matching(const struct snapshot *s, const struct job *v, const struct job_res *req)
{
	for (int a = 0; a < v->nalloc; a++) {
		int nd = v->alloc[a].node;
		if (nd >= 0 && (size_t)nd < s->nnodes && v->alloc[a].mask &&
		    place_node_matches(&s->nodes[nd], req))
			return true;
	}
	return false;
}

/* Is t's queue under its quota: a quota is set, and what its jobs hold
 * plus t's request stays within it? Fills *used and *quota (-1 none). */
static bool under_quota(const struct snapshot *s, const struct job *t, int *used, int *quota)
{
	int qi = policy_queue_index(&s->policy, t->queue);
	*used = 0;
	*quota = qi >= 0 ? s->policy.queues[qi].quota : -1;
	if (*quota < 0)
		return false;
	for (size_t i = 0; i < s->njobs; i++)
		if (!strcmp(s->jobs[i].queue, t->queue))
			*used += job_gpus_held(&s->jobs[i]);
	return t->req.gpus > 0 && *used + t->req.gpus <= *quota;
}

/* Would v be taken back from its queue's borrowing for t's quota? */
static bool reclaims(const struct chooser *c, const struct job *v)
{
	return c->reclaim && v->borrowed && strcmp(v->queue, c->t->queue) != 0;
}

/* The first static rule that excludes running job v, or PREEMPT_RULE_COUNT
 * when v is eligible. */
static enum preempt_rule judge(struct chooser *c, const struct job *v, int slot)
{
	const struct snapshot *s = c->s;
	const struct policy *p = &s->policy;
	int64_t ran = s->now - v->start_time;
	/* By the order's tiers: work over its department's quota is below
	 * P2, so that any job within its quota may take its GPUs. A queue
	 * under its quota takes back what other queues borrowed, whatever
	 * their tier. */
	if (!c->permit && !reclaims(c, v) && job_order_tier(v) <= job_order_tier(c->t))
		return PREEMPT_RULE_TIER;
	if (!v->checkpointable || !v->last_checkpoint)
		return PREEMPT_RULE_CHECKPOINT;
	/* The protection time spares long runs from ordinary preemption; a
	 * starvation permit exists for the case where only such work of a
	 * higher tier is left (DESIGN §3), so it is not held back by it
	 * there. Within its own tier the protection stands. */
	if (ran >= p->protect && !(c->permit && job_tier(v) < job_tier(c->t)))
		return PREEMPT_RULE_PROTECTED;
	if (v->restarts > 0 && ran < p->cooldown)
		return PREEMPT_RULE_COOLDOWN;
	if (c->budget_left[slot] <= 0)
		return PREEMPT_RULE_BUDGET;
	if (p->preempt_mode == ROLLOUT_TRIAL &&
	    !policy_acts(p->preempt_mode, p->preempt_trial, v->queue))
		return PREEMPT_RULE_TRIAL;
	if (!holds_matching(s, v, &c->t->req))
		return PREEMPT_RULE_MISMATCH;
	/* A permit waits for a P0 ending soon, but at most permit.waitFor
	 * past the end first expected of it: an overdue P0 is not waited for
	 * for ever. */
	if (c->permit && job_tier(v) == TIER_P0 &&
	    predict_end(p, v, s->now) <= s->now + p->permit_wait_for &&
	    predict_first_end(p, v, s->now) + p->permit_wait_for > s->now)
		return PREEMPT_RULE_ENDS_SOON;
	return PREEMPT_RULE_COUNT;
}

static void collect(struct chooser *c, struct preempt_plan *out)
{
	const struct snapshot *s = c->s;
	for (int q = 0; q <= GQ_MAX_QUEUES; q++) {
		int qi = q < s->policy.nqueues ? q : -1;
		c->budget_left[q] = policy_queue_budget(&s->policy, qi) -
				    (qi >= 0 ? s->qstate[qi].preempts_hour : 0) -
				    (c->sp ? c->sp->queue[q] : 0);
		c->budget0[q] = c->budget_left[q];
	}
	c->elig = xcalloc(s->njobs ? s->njobs : 1, sizeof(*c->elig));
	c->soon = xcalloc(s->njobs ? s->njobs : 1, sizeof(*c->soon));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *v = &s->jobs[i];
		if (v->state != JOB_RUNNING || v->id == c->t->id || (c->sp && c->sp->victim[i]))
			continue;
		out->candidates++;
		int qi = policy_queue_index(&s->policy, v->queue);
		int slot = qi >= 0 ? qi : GQ_MAX_QUEUES;
		enum preempt_rule r = judge(c, v, slot);
		if (r != PREEMPT_RULE_COUNT)
			out->excluded[r]++;
		if (r != PREEMPT_RULE_COUNT && r != PREEMPT_RULE_ENDS_SOON)
			continue;
		struct cand k = {.j = v, .qi = qi, .slot = slot};
		int64_t since =
		    v->last_checkpoint > v->start_time ? v->last_checkpoint : v->start_time;
		k.v = (struct preempt_victim){
		    .job = v->id,
		    .gpus = job_gpus_held(v),
		    .tier = job_tier(v),
		    .borrowed = v->borrowed,
		    .cross_dept = strcmp(v->dept, c->t->dept) != 0,
		    .reclaimed =
			!c->permit && reclaims(c, v) && job_order_tier(v) <= job_order_tier(c->t),
		    .ran = s->now - v->start_time,
		    .since = since,
		};
		k.v.work_lost = (double)k.v.gpus * (double)(s->now - since);
		if (r == PREEMPT_RULE_ENDS_SOON) {
			k.end = predict_end(&s->policy, v, s->now);
			c->soon[c->nsoon++] = k;
		} else {
			c->elig[c->nelig++] = k;
		}
	}
	out->eligible = (int)c->nelig;
	qsort(c->elig, c->nelig, sizeof(*c->elig), cmp_cand);
	qsort(c->soon, c->nsoon, sizeof(*c->soon), cmp_end);
}

/* The class of a candidate in the order: borrowed first, then by tier. */
static bool same_class(const struct cand *a, const struct cand *b)
{
	return a->v.borrowed == b->v.borrowed && a->v.tier == b->v.tier;
}

/* Adds eligible victims in order until t fits; false when they run out.
 * On success c->npool ends the class of the last one added. */
static bool greedy(struct chooser *c, struct preempt_plan *out)
{
	struct place_result r;
	int spent = 0;
	for (size_t i = 0; i < c->nelig; i++) {
		struct cand *k = &c->elig[i];
		if (c->budget_left[k->slot] <= 0) {
			out->excluded[PREEMPT_RULE_BUDGET]++;
			continue;
		}
		if (k->v.cross_dept && out->dept_left >= 0 && spent >= out->dept_left) {
			out->excluded[PREEMPT_RULE_DEPARTMENT]++;
			continue;
		}
		give(c, k);
		k->taken = true;
		c->budget_left[k->slot]--;
		spent += k->v.cross_dept;
		if (enough(c) && fits(c, &r)) {
			c->npool = i + 1;
			while (c->npool < c->nelig && same_class(&c->elig[c->npool], k))
				c->npool++;
			return true;
		}
	}
	return false;
}

/* Drops every victim the others can do without, last added first. */
static void minimise(struct chooser *c)
{
	struct place_result r;
	for (size_t i = c->nelig; i-- > 0;) {
		struct cand *k = &c->elig[i];
		if (!k->taken)
			continue;
		take(c, k);
		if (enough(c) && fits(c, &r))
			k->taken = false;
		else
			give(c, k);
	}
}

/* Keeps the set under way as the best one. */
static void keep_best(struct chooser *c, int gpus, double work)
{
	c->best_gpus = gpus;
	c->best_work = work;
	for (size_t i = 0; i < c->npool; i++)
		c->elig[i].best = c->elig[i].taken;
}

static bool better(const struct chooser *c, int gpus, double work)
{
	return gpus < c->best_gpus || (gpus == c->best_gpus && work < c->best_work);
}

/* Every set of elig[i..npool) added to the set under way (gpus, work,
 * spent cross-department victims), include before exclude, so that sets
 * early in the order are met first and kept on a tie. A set that fits is
 * not grown: more victims only free more. */
static void search(struct chooser *c, size_t i, int gpus, double work, int dept_left, int spent)
{
	struct place_result r;
	if (i >= c->npool || ++c->nodes > PREEMPT_SEARCH_MAX)
		return;
	struct cand *k = &c->elig[i];
	int g = gpus + k->v.gpus;
	double w = work + k->v.work_lost;
	if (c->budget_left[k->slot] > 0 &&
	    !(k->v.cross_dept && dept_left >= 0 && spent >= dept_left) && better(c, g, w)) {
		give(c, k);
		k->taken = true;
		c->budget_left[k->slot]--;
		if (enough(c) && fits(c, &r))
			keep_best(c, g, w);
		else
			search(c, i + 1, g, w, dept_left, spent + k->v.cross_dept);
		c->budget_left[k->slot]++;
		k->taken = false;
		take(c, k);
	}
	search(c, i + 1, gpus, work, dept_left, spent);
}

/* From the set greedy() and minimise() left: the set of the same classes
 * that frees the fewest GPUs, then loses the least work. */
static void fewest(struct chooser *c, int dept_left)
{
	int gpus = 0;
	double work = 0;
	for (size_t i = 0; i < c->npool; i++) {
		if (!c->elig[i].taken)
			continue;
		gpus += c->elig[i].v.gpus;
		work += c->elig[i].v.work_lost;
	}
	keep_best(c, gpus, work);
	/* Start again from no victim at all. */
	for (size_t i = 0; i < c->npool; i++) {
		if (c->elig[i].taken)
			take(c, &c->elig[i]);
		c->elig[i].taken = false;
	}
	memcpy(c->budget_left, c->budget0, sizeof(c->budget_left));
	search(c, 0, 0, 0, dept_left, 0);
	for (size_t i = 0; i < c->npool; i++)
		c->elig[i].taken = c->elig[i].best;
}

static void emit(struct chooser *c, struct preempt_plan *out)
{
	out->victims = xcalloc(c->nelig ? c->nelig : 1, sizeof(*out->victims));
	for (size_t i = 0; i < c->nelig; i++) {
		if (!c->elig[i].taken)
			continue;
		out->victims[out->nvictims++] = c->elig[i].v;
		out->work_lost += c->elig[i].v.work_lost;
		out->dept_spend += c->elig[i].v.cross_dept;
		out->reclaimed_gpus += c->elig[i].v.reclaimed ? c->elig[i].v.gpus : 0;
	}
	out->outcome = PREEMPT_FOUND;
}

/* Permit, no set: would the P0 jobs about to end (in end order, on top of
 * every eligible victim) let t start? */
static bool wait_for_soon(struct chooser *c, struct preempt_plan *out)
{
	struct place_result r;
	for (size_t i = 0; i < c->nsoon; i++) {
		give(c, &c->soon[i]);
		if (enough(c) && fits(c, &r)) {
			out->outcome = PREEMPT_WAIT;
			out->wait_until = c->soon[i].end;
			out->wait_for = c->soon[i].v.job;
			return true;
		}
	}
	return false;
}

static void map_copy(struct place_map *dst, const struct place_map *src)
{
	place_map_copy(dst, src);
}

/* With base == NULL the map is built from s and stopping jobs' GPUs are
 * given back here; otherwise base is used as it is (see preempt_choose_in). */
static bool choose(const struct snapshot *s, const struct place_map *base, const struct spent *sp,
		   const struct job *t, bool permit, struct preempt_plan *out)
{
	struct chooser c = {.s = s, .t = t, .permit = permit, .sp = sp};
	struct place_result r;
	memset(out, 0, sizeof(*out));
	out->trigger = t->id;
	out->mode = s->policy.preempt_mode;
	out->observe = out->mode == ROLLOUT_OBSERVE;
	out->permit = permit;
	out->dept_left = dept_left(s, sp, t);
	out->reclaim = c.reclaim = under_quota(s, t, &out->queue_used, &out->queue_quota);
	out->outcome = PREEMPT_NONE;

	if (base)
		map_copy(&c.m, base);
	else
		place_map_init(&c.m, s);
	if (fits(&c, &r)) {
		out->outcome = PREEMPT_NOT_NEEDED;
		goto done;
	}
	bool any_stopping = false;
	for (size_t i = 0; !base && i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_STOPPING)
			continue;
		place_give(&c.m, policy_queue_index(&s->policy, j->queue), &j->req, j->nalloc,
			   j->alloc);
		any_stopping = true;
	}
	if (any_stopping && fits(&c, &r)) {
		out->outcome = PREEMPT_NOT_NEEDED;
		out->stopping = true;
		goto done;
	}
	struct ulimit_hit uh;
	if ((r.blocks & (PLACE_BIT(PLACE_UNSATISFIABLE) | PLACE_BIT(PLACE_WINDOW))) ||
	    r.quota_dept || ulimit_job_over(s, t, &uh)) {
		out->outcome = PREEMPT_CANNOT_HELP;
		out->blocks = r.blocks;
		goto done;
	}
	if (out->dept_left == 0) {
		out->outcome = PREEMPT_NO_RIGHTS;
		goto done;
	}
	collect(&c, out);
	if (greedy(&c, out)) {
		minimise(&c);
		fewest(&c, out->dept_left);
		emit(&c, out);
	} else if (permit) {
		wait_for_soon(&c, out);
	}
done:
	free(c.elig);
	free(c.soon);
	place_map_release(&c.m);
	return out->outcome == PREEMPT_FOUND;
}

bool preempt_choose(const struct snapshot *s, const struct job *t, struct preempt_plan *out)
{
	return choose(s, NULL, NULL, t, false, out);
}

bool preempt_startable(const struct snapshot *s, const struct job *j)
{
	if (j->state != JOB_PENDING || j->held || j->not_before > s->now || j->begin_time > s->now)
		return false;
	for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		if (dep_status_at(s, j, d, NULL) != DEP_MET)
			return false;
	}
	return true;
}

bool permit_has(const struct snapshot *s, const struct job *j, int64_t *since)
{
	int64_t at = permit_earned_at(&s->policy, j);
	if (since)
		*since = at;
	return preempt_startable(s, j) && s->now >= at;
}

bool permit_decide(const struct snapshot *s, const struct job *j, struct preempt_plan *out)
{
	if (!permit_has(s, j, NULL)) {
		memset(out, 0, sizeof(*out));
		out->trigger = j->id;
		out->mode = s->policy.preempt_mode;
		out->observe = out->mode == ROLLOUT_OBSERVE;
		out->outcome = PREEMPT_NO_PERMIT;
		out->dept_left = dept_left(s, NULL, j);
		return false;
	}
	choose(s, NULL, NULL, j, true, out);
	return true;
}

static void wake_at(struct plan *out, int64_t t)
{
	if (t > out->now && (!out->wake || t < out->wake))
		out->wake = t;
}

/* Promises the GPUs freed for trigger t (victims given back, or stopping
 * GPUs already free in `soon`) to t, so later triggers do not count them. */
static void promise(const struct snapshot *s, struct place_map *soon, const struct job *t)
{
	struct place_result r;
	if (place_check(soon, s, t, s->now, &r))
		place_take(soon, policy_queue_index(&s->policy, t->queue), &t->req, r.nalloc,
			   r.alloc);
}

static void add_victims(const struct snapshot *s, struct place_map *soon, struct spent *sp,
			const struct job *t, const struct preempt_plan *p, struct plan *out)
{
	int di = policy_dept_index(&s->policy, t->dept);
	for (size_t i = 0; i < p->nvictims; i++) {
		const struct job *v = snapshot_find(s, p->victims[i].job);
		if (!v)
			BUG("victim %lld is not in the snapshot", (long long)p->victims[i].job);
		int qi = policy_queue_index(&s->policy, v->queue);
		sp->victim[v - s->jobs] = true;
		sp->queue[qi >= 0 ? qi : GQ_MAX_QUEUES]++;
		if (di >= 0 && p->victims[i].cross_dept)
			sp->dept[di]++;
		place_give(soon, qi, &v->req, v->nalloc, v->alloc);
		struct plan_action *a = plan_add(out, PLAN_PREEMPT, v->id);
		a->other = t->id;
		a->observe = p->observe;
		STR_COPY(a->reason, p->permit		      ? "permit"
				    : p->victims[i].reclaimed ? "reclaim"
							      : "priority");
	}
	promise(s, soon, t);
}

/* Runs one trigger against `soon` and adds what it decides to the plan. */
static void trigger(const struct snapshot *s, struct place_map *soon, struct spent *sp,
		    const struct job *t, bool permit, struct plan *out)
{
	struct preempt_plan p;
	choose(s, soon, sp, t, permit, &p);
	if (p.outcome == PREEMPT_FOUND)
		add_victims(s, soon, sp, t, &p, out);
	else if (p.outcome == PREEMPT_NOT_NEEDED)
		promise(s, soon, t);
	else if (p.outcome == PREEMPT_WAIT)
		wake_at(out, p.wait_until);
	preempt_plan_release(&p);
}

/* Running jobs of queues paused now are suspended for the window; one that
 * cannot checkpoint is left to finish when its queue's windowAction says
 * so (it would lose its work, and resume from nothing). */
static void window_victims(const struct snapshot *s, struct spent *sp, struct plan *out)
{
	const struct policy *p = &s->policy;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		int qi;
		if (j->state != JOB_RUNNING || (qi = policy_queue_index(p, j->queue)) < 0 ||
		    !place_window_paused(s, qi, s->now) ||
		    (!j->checkpointable && p->queues[qi].window_action == WINDOW_FINISH))
			continue;
		sp->victim[i] = true; /* no trigger takes it as well */
		struct plan_action *a = plan_add(out, PLAN_PREEMPT, j->id);
		a->observe = !policy_acts(p->preempt_mode, p->preempt_trial, j->queue);
		STR_COPY(a->reason, "window");
	}
}

void preempt_add_to_plan(const struct snapshot *s, struct place_map *m, const size_t *order,
			 size_t n, struct plan *out)
{
	bool *started = xcalloc(s->njobs ? s->njobs : 1, sizeof(*started));
	struct spent sp = {.victim = xcalloc(s->njobs ? s->njobs : 1, sizeof(bool))};
	window_victims(s, &sp, out);
	for (size_t i = 0; i < out->n; i++) {
		const struct job *j = out->actions[i].kind == PLAN_START
					  ? snapshot_find(s, out->actions[i].job)
					  : NULL;
		if (j)
			started[j - s->jobs] = true;
	}
	/* The GPUs that are free or being freed, for the triggers to share. */
	struct place_map soon;
	map_copy(&soon, m);
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state == JOB_STOPPING)
			place_give(&soon, policy_queue_index(&s->policy, j->queue), &j->req,
				   j->nalloc, j->alloc);
	}
	/* Permit holders first: those that fit start ahead of their turn, before
	 * any GPU is promised (so what is free in m is free in soon too). */
	bool *permit = xcalloc(s->njobs ? s->njobs : 1, sizeof(*permit));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[order[i]];
		int64_t since;
		struct place_result r;
		if (started[order[i]])
			continue;
		if (!permit_has(s, j, &since)) {
			if (preempt_startable(s, j))
				wake_at(out, since);
			continue;
		}
		permit[order[i]] = true;
		int reserve = place_reserve(m, job_tier(j), j->req.gpus);
		if (m->nfree < j->req.gpus + reserve || !place_check(m, s, j, s->now, &r))
			continue;
		int qi = policy_queue_index(&s->policy, j->queue);
		place_take(m, qi, &j->req, r.nalloc, r.alloc);
		place_take(&soon, qi, &j->req, r.nalloc, r.alloc);
		struct plan_action *a = plan_add(out, PLAN_START, j->id);
		a->borrowed = r.borrowed;
		plan_action_set_alloc(a, r.nalloc, r.alloc);
		STR_COPY(a->reason, "permit");
		started[order[i]] = true;
	}
	int tries = 0;
	for (size_t i = 0; i < n && tries < PREEMPT_MAX_TRIGGERS; i++) {
		if (!permit[order[i]] || started[order[i]])
			continue;
		tries++;
		started[order[i]] = true; /* handled here, not again below */
		trigger(s, &soon, &sp, &s->jobs[order[i]], true, out);
	}
	free(permit);
	/* A P2 job preempts nothing but work over its department's quota
	 * and, for a queue under its quota, borrowed work: it need not try
	 * when none runs. */
	bool over_running = false;
	for (size_t i = 0; i < s->njobs && !over_running; i++)
		over_running = s->jobs[i].state == JOB_RUNNING &&
			       (job_order_tier(&s->jobs[i]) == TIER_COUNT || s->jobs[i].borrowed);
	for (size_t i = 0; i < n && tries < PREEMPT_MAX_TRIGGERS; i++) {
		const struct job *j = &s->jobs[order[i]];
		int ot = job_order_tier(j);
		if (started[order[i]] || ot == TIER_COUNT || (ot == TIER_P2 && !over_running) ||
		    !preempt_startable(s, j))
			continue;
		tries++;
		trigger(s, &soon, &sp, j, false, out);
	}
	place_map_release(&soon);
	free(started);
	free(sp.victim);
}

bool preempt_window_may_stop(const struct snapshot *s, const struct job *j)
{
	const struct policy *p = &s->policy;
	int qi = policy_queue_index(p, j->queue);
	return !j->checkpointable && qi >= 0 && p->queues[qi].paused.set &&
	       p->queues[qi].window_action == WINDOW_REQUEUE &&
	       policy_acts(p->preempt_mode, p->preempt_trial, j->queue);
}

bool preempt_window_stop(const struct snapshot *s, const struct job *j, int64_t start,
			 int64_t runtime, struct window_stop *out)
{
	if (!preempt_window_may_stop(s, j))
		return false;
	int qi = policy_queue_index(&s->policy, j->queue);
	/* The first edge after start at which the queue is paused: a pause
	 * begins there. Edges alternate, so two steps reach it. */
	int64_t t = start, stop = 0;
	for (int k = 0; k < 3 && !stop; k++) {
		t = place_window_next_edge(s, qi, t);
		if (!t)
			return false;
		if (place_window_paused(s, qi, t))
			stop = t;
	}
	if (!stop)
		return false; /* a window that never pauses (start == end) */
	int64_t end = start + (runtime > 0 ? runtime : 0);
	int64_t limit_end = j->time_limit > 0 ? start + j->time_limit : 0;
	bool expected = end > stop;
	if (!expected && limit_end && limit_end <= stop)
		return false;
	memset(out, 0, sizeof(*out));
	STR_COPY(out->queue, j->queue);
	out->action = WINDOW_REQUEUE;
	out->window = s->policy.queues[qi].paused;
	out->tz_offset = s->tz_offset;
	out->now = s->now;
	out->start = start;
	out->stop = stop;
	out->end = end;
	out->limit_end = limit_end;
	out->expected = expected;
	return true;
}
