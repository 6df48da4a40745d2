/*
 * sim_permit.c - the permit sub-scheduler of the simulation (sim.h):
 * after each walk, the jobs that earned a starvation permit start on the
 * GPUs the walk left free, by group, tier and GPU count (see predict.c's
 * head comment).
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "permit.h"

/*
 * Starvation permits (preempt.h), after the walk at t, as sched_plan()
 * starts them after its starts: every job that earned its permit by t and
 * may start (ready, or parked behind its queue's limit: not held, its
 * dependencies ended, its cooldown over, its queue not paused), in the
 * order at t, starts on free GPUs if place_check lets it (quota, window,
 * headroom are not lifted), ahead of its turn.
 */

/* Could holder x start on the free GPUs at t, as the plan's count check
 * and place_check decide? */
static bool permit_fits(struct sim *S, const struct pj *x, int64_t t, struct place_result *r)
{
	if (x->status != ST_READY && x->status != ST_PARK_QUOTA)
		return false;
	int reserve = place_reserve(&S->m, (enum tier)x->tier, x->gpus);
	if (S->m.nfree < x->gpus + reserve)
		return false;
	struct ulimit_hit uh;
	if (x->ui >= 0 && ulimit_gpus_over(S->p, &S->ut.users[x->ui], x->qi, x->gpus, &uh))
		return false;
	return place_check_req(&S->m, S->s, &x->req, (enum tier)x->tier, x->qi, x->di, t, r);
}

/* A holder's place in the order at t (order.h) inside its tier, as the
 * walk reads it: aging step (highest first), then rank. */
static uint64_t holder_key(const struct sim *S, const struct pj *x, int64_t t)
{
	return (uint64_t)(S->steps - bucket_at(S, x, t)) << 32 | x->rank;
}

static int cmp_hcand(const void *pa, const void *pb)
{
	const struct hcand *a = pa, *b = pb;
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* The group of holder p, found or made; -1 when there are PERMIT_GROUPS
 * already. */
static int holder_group(struct sim *S, uint32_t p)
{
	if (S->group_of[p] >= 0)
		return S->group_of[p];
	const struct pj *x = &S->pj[p];
	for (size_t g = 0; g < S->ngroups; g++) {
		const struct pgroup *G = &S->groups[g];
		if (G->qi == x->qi && G->req.same_node == x->req.same_node &&
		    G->req.gpu_mem_mb == x->req.gpu_mem_mb &&
		    !strncmp(G->req.gpu_type, x->req.gpu_type, sizeof(G->req.gpu_type)))
			return S->group_of[p] = (int32_t)g;
	}
	if (S->ngroups == PERMIT_GROUPS)
		return -1;
	GROW(S->groups, S->cap_groups, S->ngroups + 1);
	struct pgroup *G = &S->groups[S->ngroups];
	memset(G, 0, sizeof(*G));
	G->req = x->req;
	G->qi = x->qi;
	G->counted = place_class_mask(&S->m, S->s, &G->req, &G->cm);
	return S->group_of[p] = (int32_t)S->ngroups++;
}

/* Does holder p wait in a heap from t on: it may start (ready, or parked
 * behind its queue's limit), its GPU count has a heap, and it has a
 * group? A holder under a user limit does not: the counts of a group
 * cannot tell what its user holds. */
static bool holder_settled(struct sim *S, uint32_t p)
{
	const struct pj *x = &S->pj[p];
	return (x->status == ST_READY || x->status == ST_PARK_QUOTA) && x->ui < 0 && x->gpus >= 0 &&
	       x->gpus < PERMIT_G && holder_group(S, p) >= 0;
}

/* Pushes holder p's current entry, keyed by its place at t; below its
 * last aging step, it is pushed again when it ages. */
static void holder_push(struct sim *S, uint32_t p, int64_t t)
{
	const struct pj *x = &S->pj[p];
	struct pgroup *G = &S->groups[S->group_of[p]];
	rq_push(&G->h[x->tier][x->gpus], holder_key(S, x, t), p, S->hepoch[p]);
	G->mask[x->tier] |= (uint64_t)1 << x->gpus;
	int b = bucket_at(S, x, t);
	if (x->q != INT64_MAX / 4 && b < S->steps)
		rheap_push(&S->young, (uint64_t)(x->q + (int64_t)(b + 1) * S->p->aging_interval), p,
			   S->hepoch[p]);
}

/* Holders in heaps that reached a new aging step by t get their new key. */
static void holder_age(struct sim *S, int64_t t)
{
	while (S->young.n && (int64_t)S->young.v[0].key <= t) {
		struct rentry e = rheap_pop(&S->young);
		const struct pj *x = &S->pj[e.p];
		if (e.epoch != S->hepoch[e.p])
			continue;
		if (x->status != ST_READY && x->status != ST_PARK_QUOTA) {
			/* Parked by a window now: its heap entry would keep
			 * the key of the step it left. It waits as holder_top()
			 * leaves such a holder, to be pushed with its key then. */
			S->hepoch[e.p]++;
			if (x->status != ST_STARTED && x->status != ST_NEVER)
				S->lin[S->nlin++] = e.p;
			continue;
		}
		S->hepoch[e.p]++;
		holder_push(S, e.p, t);
	}
}

/* Per permit round: the free GPUs of each class, and the most on one
 * node (place_class_free), read when first needed (known); ncls 0 when
 * the counts cannot tell. */
struct class_counts {
	bool known;
	int ncls;
	int free[64], most[64];
};

/* Could the free GPUs at t take a holder of group G asking for g, by
 * counts: its queue's window and limit, GPUs of its kind (place_check
 * decides)? The answer only turns false as g grows. */
static bool group_could_fit(const struct sim *S, struct pgroup *G, struct class_counts *cc, int g,
			    int64_t t)
{
	if (G->qi >= 0) {
		const struct queue_policy *q = &S->p->queues[G->qi];
		if (q->quota >= 0 && q->borrow >= 0 &&
		    S->m.queue_used[G->qi] + g > q->quota + q->borrow)
			return false;
		if (q->paused.set && place_window_paused(S->s, G->qi, t))
			return false;
	}
	if (!G->counted || g <= 0)
		return true;
	if (!G->req.same_node && !G->req.gpu_type[0] && G->req.gpu_mem_mb <= 0)
		return g <= S->m.nfree; /* any GPU will do */
	if (!cc->known) {
		cc->known = true;
		cc->ncls = place_class_free(&S->m, cc->free, cc->most);
	}
	if (!cc->ncls)
		return true;
	if (G->have < 0) {
		G->have = 0;
		for (int c = 0; c < cc->ncls; c++) {
			if (!(G->cm >> c & 1))
				continue;
			if (!G->req.same_node)
				G->have += cc->free[c];
			else if (cc->most[c] > G->have)
				G->have = cc->most[c];
		}
	}
	return g <= G->have;
}

/* The largest GPU count below PERMIT_G that tier's count check lets in
 * (the check only gets harder with more GPUs), -1 none; it depends on
 * nfree alone (total and reserve do not change), and is kept for nfree
 * below PERMIT_G in max_gpus (0: not yet, else the count + 2). */
static int holder_max_gpus(struct sim *S, int tier)
{
	int8_t *memo =
	    S->m.nfree >= 0 && S->m.nfree < PERMIT_G ? &S->max_gpus[tier][S->m.nfree] : NULL;
	if (memo && *memo)
		return *memo - 2;
	int lo = 0, hi = S->m.nfree < PERMIT_G - 1 ? S->m.nfree : PERMIT_G - 1;
	if (hi < 0 || S->m.nfree >= hi + place_reserve(&S->m, (enum tier)tier, hi))
		lo = hi;
	else if (S->m.nfree < place_reserve(&S->m, (enum tier)tier, 0))
		lo = -1;
	while (lo >= 0 && lo < hi) { /* the last g that passes: 0 does */
		int mid = lo + (hi - lo + 1) / 2;
		if (S->m.nfree >= mid + place_reserve(&S->m, (enum tier)tier, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	if (memo)
		*memo = (int8_t)(lo + 2);
	return lo;
}

/* The top of heap (tier, g) that is still a holder that may start, NULL
 * when none: holders that started or never will are dropped, those that
 * may not start now (their queue paused) go back to lin. */
static const struct rentry *holder_top(struct sim *S, struct pgroup *G, int tier, int g)
{
	struct rqueue *h = &G->h[tier][g];
	while (rq_size(h)) {
		const struct rentry *top = rq_peek(h);
		const struct pj *x = &S->pj[top->p];
		bool current = top->epoch == S->hepoch[top->p];
		if (current && (x->status == ST_READY || x->status == ST_PARK_QUOTA))
			return top;
		struct rentry e = rq_pop(h);
		if (current && x->status != ST_STARTED && x->status != ST_NEVER) {
			S->hepoch[e.p]++; /* its entry on the aging heap, if any, is gone */
			S->lin[S->nlin++] = e.p;
		}
	}
	G->mask[tier] &= ~((uint64_t)1 << g);
	return NULL;
}

static void permit_start(struct sim *S, uint32_t p, int64_t t, const struct place_result *r)
{
	struct pj *x = &S->pj[p];
	if (x->status == ST_PARK_QUOTA) {
		/* sim_start_job() takes it from the ready jobs. */
		x->status = ST_READY;
		if (x->gpus <= 0)
			S->nready_zero++;
	}
	if (x->in_front) {
		/* Out of its front, rather than left there stale: a front with
		 * a stale entry cannot be looked past by counts (look_past). */
		struct front *f = ready_front(S, x->otier, x->bucket);
		size_t lo = 0, hi = f->n;
		while (lo < hi) { /* descending keys: the first at or below rank */
			size_t mid = lo + (hi - lo) / 2;
			if (f->v[mid].key > x->rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == f->n || f->v[lo].p != p)
			BUG("predict: a permit holder is not on its front");
		memmove(&f->v[lo], &f->v[lo + 1], (f->n - lo - 1) * sizeof(*f->v));
		f->n--;
		x->in_front = false;
	}
	x->epoch++;
	if (S->earn[p] >= x->gate_t) {
		x->gate_t = S->earn[p];
		x->gate = GATE_PERMIT;
		x->gate_job = 0;
	}
	sim_start_job(S, p, t, r, false);
	S->out[p].permit = true;
}

/* Sorts by_earn by earn time, then position: a stable radix sort on the
 * time after now (three passes of 11 bits), or qsort when some job earns
 * its permit beyond 2^32 s from now. */
static void earn_sort(struct sim *S)
{
	size_t n = S->nby_earn;
	S->earn_sorted = true;
	bool wide = false;
	for (size_t i = 0; i < n && !wide; i++)
		wide = S->earn[S->by_earn[i]] - S->now > (int64_t)UINT32_MAX;
	if (wide) {
		struct qkey *qk = xmalloc((n ? n : 1) * sizeof(*qk));
		for (size_t i = 0; i < n; i++) {
			uint32_t p = S->by_earn[i];
			qk[i] = (struct qkey){S->earn[p], p, p};
		}
		qsort(qk, n, sizeof(*qk), cmp_qkey);
		for (size_t i = 0; i < n; i++)
			S->by_earn[i] = qk[i].p;
		free(qk);
		return;
	}
	/* (time after now, position) pairs, in position order: stable. */
	uint64_t *v = xmalloc((n ? n : 1) * sizeof(*v)), *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)(S->earn[S->by_earn[i]] - S->now) << 32 | S->by_earn[i];
	for (int shift = 32; shift < 64; shift += 11) {
		size_t count[2049] = {0};
		for (size_t i = 0; i < n; i++)
			count[((v[i] >> shift) & 0x7ff) + 1]++;
		bool one = false; /* every digit alike: already in order */
		for (size_t b = 1; b <= 2048 && !one; b++)
			one = count[b] == n;
		if (one)
			continue;
		for (size_t b = 1; b <= 2048; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0x7ff]++] = v[i];
		uint64_t *sw = v;
		v = tmp;
		tmp = sw;
	}
	for (size_t i = 0; i < n; i++)
		S->by_earn[i] = (uint32_t)v[i];
	free(v);
	free(tmp);
}

void sim_permits(struct sim *S, int64_t t)
{
	if (t > S->now && !S->earn_sorted)
		earn_sort(S);
	while (S->nearned < S->nby_earn && S->earn[S->by_earn[S->nearned]] <= t) {
		uint32_t p = S->by_earn[S->nearned++];
		S->lin[S->nlin++] = p;
		S->zero_holder |= S->pj[p].gpus <= 0;
	}
	/* With no GPU free only a holder asking for none could start; the
	 * others are sorted out at the next pass. */
	if (S->m.nfree == 0 && !S->zero_holder)
		return;
	/* The holders looked at one by one: settled ones go to their heap,
	 * and those that may start now and pass the count check are
	 * candidates. */
	size_t k = 0, nc = 0, nfailed = 0;
	for (size_t i = 0; i < S->nlin; i++) {
		uint32_t p = S->lin[i];
		const struct pj *x = &S->pj[p];
		if (x->status == ST_STARTED || x->status == ST_NEVER)
			continue;
		if (holder_settled(S, p)) {
			holder_push(S, p, t);
			continue;
		}
		S->lin[k++] = p;
		if ((x->status == ST_READY || x->status == ST_PARK_QUOTA) &&
		    S->m.nfree >= x->gpus + place_reserve(&S->m, (enum tier)x->tier, x->gpus))
			S->cand[nc++] = (struct hcand){holder_key(S, x, t), p, x->tier};
	}
	S->nlin = k;
	holder_age(S, t);
	uint64_t any = 0;
	for (size_t g = 0; g < S->ngroups; g++)
		for (int tier = 0; tier < TIER_COUNT; tier++)
			any |= S->groups[g].mask[tier];
	if (!nc && !any)
		return;
	if (nc > 1)
		qsort(S->cand, nc, sizeof(*S->cand), cmp_hcand);
	size_t ci = 0;
	int mg[TIER_COUNT], mgfree[TIER_COUNT]; /* holder_max_gpus() at nfree mgfree */
	for (int tier = 0; tier < TIER_COUNT; tier++)
		mgfree[tier] = -1;
	struct class_counts cc;
	int ccfree = -1; /* cc and the groups' have are of the map at nfree ccfree */
	/* In the order at t, the first holder that passes the count check,
	 * again and again: the count only falls as holders start, so one
	 * that fails it now cannot start at t. */
	struct place_result r;
	for (;;) {
		int bt = TIER_COUNT, bg = -1, bgr = -1;
		uint64_t bkey = UINT64_MAX;
		/* The first candidate that still passes the count check. */
		while (ci < nc) {
			const struct pj *x = &S->pj[S->cand[ci].p];
			if (S->m.nfree >=
			    x->gpus + place_reserve(&S->m, (enum tier)x->tier, x->gpus))
				break;
			ci++;
		}
		bool fromc = ci < nc;
		if (fromc) {
			bt = S->cand[ci].tier;
			bkey = S->cand[ci].key;
		}
		if (ccfree != S->m.nfree) {
			/* A start that takes GPUs changes nfree; one that takes
			 * none changes no count. */
			ccfree = S->m.nfree;
			cc.known = false;
			for (size_t gr = 0; gr < S->ngroups; gr++)
				S->groups[gr].have = -1;
		}
		for (int tier = 0; tier <= bt && tier < TIER_COUNT; tier++) {
			if (mgfree[tier] != S->m.nfree) {
				mgfree[tier] = S->m.nfree;
				mg[tier] = holder_max_gpus(S, tier);
			}
			if (mg[tier] < 0)
				continue;
			int mgt = mg[tier];
			uint64_t lim = mgt >= 63 ? UINT64_MAX : ((uint64_t)1 << (mgt + 1)) - 1;
			for (size_t gr = 0; gr < S->ngroups; gr++) {
				struct pgroup *G = &S->groups[gr];
				uint64_t mask = G->mask[tier] & lim;
				while (mask) {
					int g = __builtin_ctzll(mask);
					mask &= mask - 1;
					if (!group_could_fit(S, G, &cc, g, t))
						break;
					const struct rentry *e = holder_top(S, G, tier, g);
					if (e && (tier < bt || e->key < bkey)) {
						bt = tier;
						bkey = e->key;
						bg = g;
						bgr = (int)gr;
					}
				}
			}
		}
		uint32_t p;
		if (bg >= 0) {
			p = rq_pop(&S->groups[bgr].h[bt][bg]).p;
		} else if (fromc) {
			p = S->cand[ci++].p;
		} else {
			break;
		}
		const struct pj *x = &S->pj[p];
		if (permit_fits(S, x, t, &r))
			permit_start(S, p, t, &r);
		else if (bg >= 0)
			S->failed[nfailed++] = p;
	}
	/* Those that did not fit are holders still. */
	for (size_t i = 0; i < nfailed; i++)
		holder_push(S, S->failed[i], t);
}

/* The first time in (t, before) at which a job earns a permit that would
 * let it start on the GPUs free after t (nothing changes them until
 * `before`), else `before`. */
int64_t sim_permit_wake(struct sim *S, int64_t t, int64_t before)
{
	struct place_result r;
	if (!S->earn_sorted)
		earn_sort(S);
	/* Each job is looked at here at most once: the next pass earns
	 * every job before the time returned. permit_fits() counts before
	 * it looks at nodes. */
	for (size_t i = S->nearned; i < S->nby_earn; i++) {
		uint32_t p = S->by_earn[i];
		int64_t e = S->earn[p];
		if (e >= before)
			break;
		if (e > t && permit_fits(S, &S->pj[p], e, &r))
			return e;
	}
	return before;
}
