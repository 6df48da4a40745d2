/*
 * sim.c - the simulation from event to event (sim.h): the walk of the
 * order at each event time, with backfill behind blocked jobs, and what
 * ends, releases and window ends change.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "depend.h"
#include "resv.h"

/* Moves ready jobs to higher aging steps as t passes their boundaries. */
void sim_migrate(struct sim *S, int64_t t)
{
	int64_t iv = S->p->aging_interval;
	for (int tier = 0; tier < ORDER_RANKS; tier++) {
		for (int k = S->steps; k >= 1; k--) {
			size_t *c = &S->cursor[tier * (S->steps + 1) + k];
			int64_t lim = t - (int64_t)k * iv;
			while (*c < S->nby_q[tier]) {
				uint32_t p = (uint32_t)S->by_q[tier][*c];
				struct pj *x = &S->pj[p];
				if (x->q > lim)
					break;
				(*c)++;
				if (x->status != ST_READY || x->bucket >= k)
					continue;
				if (x->in_front) {
					/* Its entry there is stale now. */
					ready_front(S, tier, x->bucket)->stale++;
					x->in_front = false;
				}
				x->bucket = k;
				x->epoch++;
				S->busy_t = t;
				rq_push(ready_heap(S, tier, k), x->rank, p, x->epoch);
			}
		}
	}
}

int64_t sim_next_time(const struct sim *S)
{
	int64_t t = INT64_MAX;
	if (S->ends.n)
		t = S->ends.v[0].t;
	if (S->events.n && S->events.v[0].t < t)
		t = S->events.v[0].t;
	return t;
}

/* GPUs of snapshot job jidx's allocation that a request could use. */
static int matching_held(const struct sim *S, uint32_t jidx, const struct job_res *req,
			 bool unconstrained)
{
	if (unconstrained)
		return S->ji[jidx].held;
	int n = 0;
	for (int a = 0; a < S->ji[jidx].nalloc; a++) {
		const struct job_alloc *al = &S->ji[jidx].alloc[a];
		if ((size_t)al->node < S->s->nnodes &&
		    place_node_matches(&S->s->nodes[al->node], req))
			n += __builtin_popcountll(al->mask & S->m.upmask[al->node]);
	}
	return n;
}

/*
 * A lower bound of the time at which blocked job x could start: walk the
 * running jobs in end order, adding the GPUs they free, until the counts
 * (matching GPUs, and for P1/P2 the headroom) would allow it. Never before
 * the next end: nothing frees GPUs until then. have: the free GPUs that
 * match x's request; reserve: the headroom held back from it.
 */
static int64_t shadow(struct sim *S, const struct pj *x, int have, int reserve)
{
	const struct job_res *req = &x->req;
	int total = S->m.nfree;
	int need_total = x->gpus + reserve;
	if (!S->ends.n)
		return INT64_MAX;
	int64_t first = S->ends.v[0].t;
	if (have >= x->gpus && total >= need_total)
		return first;
	/* Best-first walk of the heap array: aux is a min-heap of positions. */
	size_t na = 0;
	GROW(S->aux, S->cap_aux, 1);
	S->aux[na++] = 0;
	const struct theap *h = &S->ends;
	while (na) {
		size_t pos = S->aux[0];
		size_t last = S->aux[--na], i = 0;
		for (;;) {
			size_t c = 2 * i + 1;
			if (c >= na)
				break;
			if (c + 1 < na && tless(&h->v[S->aux[c + 1]], &h->v[S->aux[c]]))
				c++;
			if (!tless(&h->v[S->aux[c]], &h->v[last]))
				break;
			S->aux[i] = S->aux[c];
			i = c;
		}
		if (na)
			S->aux[i] = last;
		const struct tentry *e = &h->v[pos];
		have += matching_held(S, e->arg, req, x->unconstrained);
		total += S->ji[e->arg].held;
		if (have >= x->gpus && total >= need_total)
			return e->t;
		for (size_t c = 2 * pos + 1; c <= 2 * pos + 2 && c < h->n; c++) {
			GROW(S->aux, S->cap_aux, na + 1);
			size_t k = na++;
			while (k > 0) {
				size_t up = (k - 1) / 2;
				if (!tless(&h->v[c], &h->v[S->aux[up]]))
					break;
				S->aux[k] = S->aux[up];
				k = up;
			}
			S->aux[k] = c;
		}
	}
	return INT64_MAX;
}

/* The jobs one start waits for, each once: GPUs of the same job come in
 * runs, so the last id is checked first. */
struct wait_ids {
	size_t n, cap;
	int64_t *v; /* the sim's waitv */
};

static void add_wait(struct wait_ids *w, int64_t id)
{
	if (w->n && w->v[w->n - 1] == id)
		return;
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i] == id)
			return;
	if (w->n < w->cap)
		w->v[w->n++] = id;
}

/* Keeps the lowest PREDICT_MAX_WAITS ids in order (so that the cut is
 * deterministic) and counts them all. */
static void set_waits(struct prediction *o, struct wait_ids *w)
{
	o->nwaits_all = (int)w->n;
	o->nwaits = 0;
	for (size_t i = 0; i < w->n; i++) {
		int64_t v = w->v[i];
		int k = o->nwaits < PREDICT_MAX_WAITS ? o->nwaits++ : PREDICT_MAX_WAITS;
		if (k == PREDICT_MAX_WAITS && v > o->waits[k - 1])
			continue;
		if (k == PREDICT_MAX_WAITS)
			k--;
		for (; k > 0 && o->waits[k - 1] > v; k--)
			o->waits[k] = o->waits[k - 1];
		o->waits[k] = v;
	}
}

void sim_start_job(struct sim *S, uint32_t p, int64_t t, const struct place_result *r,
		   bool backfilled)
{
	struct pj *x = &S->pj[p];
	struct prediction *o = &S->out[p];
	const struct snapshot *s = S->s;
	leave_ready(S, x, ST_STARTED);
	place_take(&S->m, x->qi, &x->req, r->nalloc, r->alloc);
	if (S->ulimits && x->gpus > 0)
		ulimit_take(&S->ut.users[S->ji[x->jidx].ui], x->qi, x->gpus);
	S->busy_t = t;
	o->placed = true;
	o->start = t;
	o->runtime = x->rt;
	o->end = t + x->rt;
	o->backfilled = backfilled;
	o->borrowed = r->borrowed;
	o->nalloc = r->nalloc;
	if (r->nalloc) {
		if (S->npool + (size_t)r->nalloc > S->cap_pool)
			BUG("predict: allocation pool overflow");
		o->alloc = &S->pool[S->npool];
		memcpy(&S->pool[S->npool], r->alloc, (size_t)r->nalloc * sizeof(*r->alloc));
		S->npool += (size_t)r->nalloc;
	}
	int64_t lo = x->gate_low, hi = x->gate_high, last_rel = 0;
	struct wait_ids w = {0, S->waitcap, S->waitv};
	for (int a = 0; a < r->nalloc; a++) {
		size_t base = S->goff[r->alloc[a].node];
		uint64_t mask = r->alloc[a].mask;
		while (mask) {
			int g = __builtin_ctzll(mask);
			mask &= mask - 1;
			size_t gi = base + (size_t)g;
			if (S->rel_t[gi] <= S->now)
				continue;
			uint32_t rj = S->rel_job[gi];
			add_wait(&w, S->ji[rj].id);
			if (S->ji[rj].end_low > lo)
				lo = S->ji[rj].end_low;
			if (S->ji[rj].end_high > hi)
				hi = S->ji[rj].end_high;
			if (S->rel_t[gi] > last_rel)
				last_rel = S->rel_t[gi];
		}
	}
	const struct job *j = sim_job(S, x->jidx);
	for (int d = 0; x->has_deps && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj = snapshot_find(s, j->deps[d]);
		if (dep_status(dep_kind_of(j, d), dj) == DEP_WAIT)
			add_wait(&w, dj->id);
	}
	if (x->has_deps && S->thr_dep && S->thr_dep[x->jidx])
		add_wait(&w, S->thr_dep[x->jidx]);
	if ((x->gate == GATE_QUOTA || x->gate == GATE_USER) && x->gate_job)
		add_wait(&w, x->gate_job);
	set_waits(o, &w);
	if (t == S->now)
		o->gate = GATE_NOW;
	else if (x->gate_t >= last_rel && x->gate_t > S->now)
		o->gate = x->gate;
	else
		o->gate = GATE_ENDS;
	if (lo < S->now)
		lo = S->now;
	o->low = lo < t ? lo : t;
	o->high = hi > t ? hi : t;
	S->ji[x->jidx].end_low = o->low + x->rt_low;
	S->ji[x->jidx].end_high = o->high + x->rt_high;
	S->ji[x->jidx].alloc = o->alloc;
	S->ji[x->jidx].nalloc = o->nalloc;
	S->ji[x->jidx].held = r->need;
	theap_push(&S->ends, o->end, EV_END, x->jidx);
}

static void park_window(struct sim *S, uint32_t p, const struct place_result *r)
{
	struct pj *x = &S->pj[p];
	int qi = x->qi;
	leave_ready(S, x, ST_PARK_WINDOW);
	GROW(S->park_win[qi], S->cap_park_win[qi], S->npark_win[qi] + 1);
	S->park_win[qi][S->npark_win[qi]++] = p;
	if (!S->win_event[qi]) {
		S->win_event[qi] = r->window_end;
		theap_push(&S->events, r->window_end, EV_WINDOW, (uint32_t)qi);
	}
}

static void park_quota(struct sim *S, uint32_t p)
{
	struct pj *x = &S->pj[p];
	leave_ready(S, x, ST_PARK_QUOTA);
	rheap_push(&S->park_quota[x->qi], (uint64_t)x->otier << 32 | x->rank, p, x->epoch);
}

/* Parks x at its user's GPU limit, until one of the user's jobs ends. */
static void park_user(struct sim *S, uint32_t p)
{
	struct pj *x = &S->pj[p];
	size_t u = (size_t)x->ui;
	leave_ready(S, x, ST_PARK_USER);
	GROW(S->park_user[u], S->cap_park_user[u], S->npark_user[u] + 1);
	S->park_user[u][S->npark_user[u]++] = p;
}

static inline void putback_push(struct sim *S, uint32_t p)
{
	if (S->nputback == S->cap_putback)
		GROW(S->putback, S->cap_putback, S->nputback + 1);
	S->putback[S->nputback++] = p;
}

/* What a walk knows as it goes. */
struct walk_state {
	int64_t t;
	bool blocked; /* a job looked at could not start */
	int64_t tmin; /* once blocked: a job behind starts only if it ends by then */
	int64_t next; /* sim_next_time(S), which only a start or a window parking changes */
	int examined; /* blocked jobs looked past */
	bool qparked[GQ_MAX_QUEUES];
};

enum look {
	LOOK_KEEP, /* stays ready, where it was */
	LOOK_LEFT, /* started or parked */
	LOOK_STOP, /* stays ready, and nothing more can start now */
};

/* Looks at ready job p (current entry) at w->t: starts it, parks it or
 * leaves it waiting, updating the walk's state. */
static enum look look_at(struct sim *S, struct walk_state *w, uint32_t p)
{
	const struct snapshot *s = S->s;
	struct pj *x = &S->pj[p];
	int64_t t = w->t;
	if (w->blocked && t + x->bf_rt > w->tmin) {
		/* Would outlast a reservation: it waits, and holds its own
		 * earliest start against the jobs behind it. Short of GPUs by
		 * count, that is its lower bound from the ends (as for any
		 * blocked job); fitting the counts, the next event, when the
		 * reservation may move (its holder parked by a window). */
		if (x->gpus > S->m.nfree ||
		    (x->gpus > 0 &&
		     S->m.nfree - x->gpus < place_reserve(&S->m, (enum tier)x->tier, x->gpus))) {
			int64_t nt = S->ends.n ? S->ends.v[0].t : INT64_MAX;
			if (w->tmin > nt) {
				int have = x->unconstrained ? S->m.nfree
							    : place_match_free(&S->m, s, &x->req);
				int64_t sh = shadow(
				    S, x, have, place_reserve(&S->m, (enum tier)x->tier, x->gpus));
				if (sh < w->tmin)
					w->tmin = sh;
			}
		} else if (w->next < w->tmin) {
			w->tmin = w->next;
		}
		if (++w->examined >= PREDICT_BACKFILL_DEPTH || t + S->min_rt > w->tmin)
			return LOOK_STOP;
		return LOOK_KEEP;
	}
	if (x->qi >= 0 && w->qparked[x->qi]) {
		park_quota(S, p);
		return LOOK_LEFT;
	}
	struct ulimit_hit uh;
	if (x->ui >= 0 && ulimit_gpus_over(S->p, &S->ut.users[x->ui], x->qi, x->gpus, &uh)) {
		park_user(S, p);
		return LOOK_LEFT;
	}
	/* Most jobs a walk looks at ask for more GPUs than are free, or
	 * would leave less than the headroom. Unless its queue may be paused
	 * or at its limit (which park it instead), such a job is blocked
	 * whatever else holds: the full check, whose result is large, is for
	 * the others. */
	struct place_result r;
	unsigned blocks = 0;
	int have = -1, reserve = 0;
	if (!x->windowed && (x->qlim < 0 || S->m.queue_used[x->qi] + x->gpus <= x->qlim)) {
		if (x->gpus > S->m.nfree)
			blocks = PLACE_BIT(PLACE_RESOURCES);
		else if (x->gpus > 0 &&
			 S->m.nfree - x->gpus < place_reserve(&S->m, (enum tier)x->tier, x->gpus))
			blocks = PLACE_BIT(PLACE_HEADROOM);
	}
	if (!blocks) {
		place_check_req(&S->m, s, &x->req, (enum tier)x->tier, x->qi, x->di, t, &r);
		if (r.blocks & PLACE_BIT(PLACE_WINDOW)) {
			park_window(S, p, &r);
			w->next = sim_next_time(S);
			return LOOK_LEFT;
		}
		if (r.quota_queue) {
			/* Inside a queue at its limit, jobs start in order:
			 * the rest of the queue waits too. */
			w->qparked[x->qi] = true;
			park_quota(S, p);
			return LOOK_LEFT;
		}
		/* have stays unknown: r.match_free leaves out nodes short of
		 * CPUs or memory, which an end may give back with no GPU. */
		blocks = r.blocks;
	}
	if (!blocks && (!w->blocked || t + x->bf_rt <= w->tmin)) {
		/* Fits, but a reservation ahead keeps it (resv.h): gated until
		 * the time it allows, as a release. Permit starts
		 * (sim_permit.c) are gq serve's, which has no reservations. */
		int64_t at = s->nresv ? resv_earliest(s, sim_job(S, x->jidx), t, NULL) : t;
		if (at > t) {
			leave_ready(S, x, ST_GATED);
			x->release_at = at;
			x->release_gate = GATE_RESERVATION;
			x->release_jidx = -1;
			gate_release(S, x);
			theap_push(&S->events, at, EV_RELEASE, p);
			S->nrelease++;
			w->next = sim_next_time(S);
			return LOOK_LEFT;
		}
		sim_start_job(S, p, t, &r, w->blocked);
		w->next = sim_next_time(S);
		return LOOK_LEFT;
	}
	if (!blocks) {
		/* Fits, but would outlast a reservation: it cannot start
		 * before the next event. */
		if (w->next < w->tmin)
			w->tmin = w->next;
	} else {
		int64_t nt = S->ends.n ? S->ends.v[0].t : INT64_MAX;
		if (w->tmin > nt) {
			if (have < 0) {
				have = x->unconstrained ? S->m.nfree
							: place_match_free(&S->m, s, &x->req);
				reserve = place_reserve(&S->m, (enum tier)x->tier, x->gpus);
			}
			int64_t sh = shadow(S, x, have, reserve);
			if (sh < w->tmin)
				w->tmin = sh;
		}
	}
	w->blocked = true;
	/* No job is shorter than min_rt: once that outlasts tmin, nothing
	 * more can start now. */
	if (++w->examined >= PREDICT_BACKFILL_DEPTH || t + S->min_rt > w->tmin)
		return LOOK_STOP;
	return LOOK_KEEP;
}

/*
 * Once a walk is blocked and tmin is no later than the next event, the
 * jobs it looks at are mostly ones that cannot start: those that would
 * outlast tmin and, unless a walk may park them, those that ask for more
 * GPUs than are free or would leave less than the headroom (which
 * look_at() decides from the counts too). Looking at one of them changes
 * nothing but the count of jobs examined (tmin stays: it is no later than
 * the next event already, and no shadow is needed below it). This counts
 * them off front f below index top, while they come before the heap h's
 * first entry, with no look at their records: f holds no stale entry.
 * Returns the index after the last one looked past; stops at
 * PREDICT_BACKFILL_DEPTH.
 */
static size_t look_past(struct sim *S, const struct front *f, size_t top, const struct rqueue *h,
			struct walk_state *w)
{
	int nfree = S->m.nfree;
	uint64_t first = rq_size(h) ? rq_first(h) : UINT64_MAX;
	while (top > 0 && w->examined < PREDICT_BACKFILL_DEPTH) {
		const struct fentry *fe = &f->v[top - 1];
		if (fe->key > first)
			break;
		if (w->t + fe->rt <= w->tmin &&
		    (fe->special ||
		     (fe->gpus <= nfree &&
		      (fe->gpus <= 0 ||
		       nfree - fe->gpus >= place_reserve(&S->m, (enum tier)fe->tier, fe->gpus)))))
			break;
		top--;
		w->examined++;
	}
	return top;
}

#define GONE UINT32_MAX /* a front entry whose job left, or went stale */

/*
 * After a walk looked at front f's entries at index top and above in
 * place: drops those marked GONE and merges in the jobs it took off the
 * heap and left waiting (S->putback, ascending), so that the front stays
 * sorted with the smallest on top.
 */
static void front_settle(struct sim *S, struct front *f, size_t top, size_t gone)
{
	if (!gone && !S->nputback)
		return;
	size_t nold = f->n - top, n = 0;
	GROW(S->settle, S->cap_settle, nold + S->nputback);
	size_t i = top, k = S->nputback;
	/* Both in descending rank: the front's from top up, the heap's from
	 * the last looked at. */
	while (i < f->n || k > 0) {
		if (i < f->n && f->v[i].p == GONE) {
			i++;
			continue;
		}
		if (i < f->n && (k == 0 || f->v[i].key > S->pj[S->putback[k - 1]].rank)) {
			S->settle[n++] = f->v[i++];
			continue;
		}
		uint32_t p = S->putback[--k];
		struct pj *x = &S->pj[p];
		S->settle[n++] = (struct fentry){.key = x->rank,
						 .p = p,
						 .epoch = x->epoch,
						 .rt = x->bf_rt,
						 .gpus = x->gpus,
						 .special = x->special,
						 .tier = (uint8_t)x->tier};
		x->in_front = true;
	}
	GROW(f->v, f->cap, top + n);
	memcpy(&f->v[top], S->settle, n * sizeof(*S->settle));
	f->n = top + n;
}

void sim_walk(struct sim *S, int64_t t)
{
	struct walk_state w = {.t = t, .tmin = INT64_MAX, .next = sim_next_time(S)};
	bool stop = false;
	for (int tier = 0; tier < ORDER_RANKS && !stop; tier++) {
		for (int b = S->steps; b >= 0 && !stop; b--) {
			struct rqueue *h = ready_heap(S, tier, b);
			struct front *f = ready_front(S, tier, b);
			/* f->v[top..] have been looked at by this walk, where
			 * they lie; the heap's entries it looked at and left
			 * waiting are in S->putback until front_settle(). */
			size_t top = f->n, gone = 0;
			S->nputback = 0;
			while (rq_size(h) || top) {
				if (S->m.nfree == 0 && S->nready_zero == 0) {
					stop = true;
					break;
				}
				if (w.blocked && w.tmin <= w.next && top && !f->stale) {
					top = look_past(S, f, top, h, &w);
					if (w.examined >= PREDICT_BACKFILL_DEPTH) {
						stop = true;
						break;
					}
					if (!top && !rq_size(h))
						break;
				}
				/* The heap and the front merged: the lower rank
				 * first (the same rank is the same job, and then
				 * at most one of the two entries is current). */
				struct rentry e;
				struct fentry *fe = NULL;
				if (top && (!rq_size(h) || f->v[top - 1].key <= rq_first(h))) {
					fe = &f->v[--top];
					e = (struct rentry){fe->key, fe->p, fe->epoch};
				} else {
					e = rq_pop(h);
				}
				struct pj *x = &S->pj[e.p];
				if (x->status != ST_READY || x->epoch != e.epoch ||
				    x->bucket != b) {
					if (fe) {
						if (!f->stale--)
							BUG("predict: a stale entry on a front "
							    "was not counted");
						fe->p = GONE;
						gone++;
					}
					continue;
				}
				enum look r = look_at(S, &w, e.p);
				if (r == LOOK_LEFT) {
					if (fe) {
						fe->p = GONE;
						gone++;
						x->in_front = false;
					}
				} else if (!fe) {
					putback_push(S, e.p);
				}
				if (r == LOOK_STOP) {
					stop = true;
					break;
				}
			}
			front_settle(S, f, top, gone);
		}
	}
	if (t == S->now)
		S->backfill_until = w.blocked ? w.tmin : 0;
}

/* Job jidx, of a user with limits, ended at t: it gives back its GPUs, and
 * the user's parked jobs that fit under the limits now are ready again. */
static void unpark_user(struct sim *S, uint32_t jidx, int64_t t)
{
	const struct jinfo *e = &S->ji[jidx];
	int gpus = S->s->jobs[jidx].req.gpus;
	if (gpus <= 0)
		return;
	size_t u = (size_t)e->ui;
	struct ulimit_user *uu = &S->ut.users[u];
	ulimit_take(uu, e->qi, -gpus);
	size_t k = 0;
	for (size_t i = 0; i < S->npark_user[u]; i++) {
		uint32_t p = S->park_user[u][i];
		struct pj *x = &S->pj[p];
		struct ulimit_hit uh;
		if (x->status != ST_PARK_USER)
			continue;
		if (ulimit_gpus_over(S->p, uu, x->qi, x->gpus, &uh)) {
			S->park_user[u][k++] = p;
			continue;
		}
		gate_raise(x, t, e->end_low, e->end_high, GATE_USER, e->id);
		make_ready(S, p, t);
	}
	S->npark_user[u] = k;
}

void sim_on_end(struct sim *S, uint32_t jidx, int64_t t)
{
	const struct snapshot *s = S->s;
	int qi = S->ji[jidx].qi;
	int64_t id = S->ji[jidx].id;
	for (int a = 0; a < S->ji[jidx].nalloc; a++) {
		const struct job_alloc *al = &S->ji[jidx].alloc[a];
		if (al->node < 0 || (size_t)al->node >= s->nnodes)
			continue;
		size_t base = S->goff[al->node];
		uint64_t mask = al->mask & S->m.upmask[al->node];
		while (mask) {
			int g = __builtin_ctzll(mask);
			mask &= mask - 1;
			S->rel_job[base + (size_t)g] = jidx;
			S->rel_t[base + (size_t)g] = t;
		}
	}
	place_give(&S->m, qi, &sim_job(S, jidx)->req, S->ji[jidx].nalloc, S->ji[jidx].alloc);
	for (uint32_t d = S->ji[jidx].dep_begin; d < S->ji[jidx].dep_end; d++) {
		uint32_t p = S->dep_list[d];
		struct pj *x = &S->pj[p];
		if (x->status != ST_GATED)
			continue;
		gate_raise(x, t, S->ji[jidx].end_low, S->ji[jidx].end_high, GATE_DEPENDENCY, id);
		if (--x->deps_left > 0)
			continue;
		if (x->release_at > t) {
			gate_release(S, x);
			theap_push(&S->events, x->release_at, EV_RELEASE, p);
			S->nrelease++;
		} else {
			make_ready(S, p, t);
		}
	}
	if (S->ji[jidx].ui >= 0)
		unpark_user(S, jidx, t);
	if (qi >= 0) {
		const struct queue_policy *q = &S->p->queues[qi];
		int room =
		    q->quota < 0 || q->borrow < 0 ? 0 : q->quota + q->borrow - S->m.queue_used[qi];
		/* In order, while the first waiting job fits under the limit:
		 * a queue at its limit starts its jobs in order. */
		struct rheap *h = &S->park_quota[qi];
		while (h->n) {
			struct pj *x = &S->pj[h->v[0].p];
			if (x->status != ST_PARK_QUOTA || x->epoch != h->v[0].epoch) {
				rheap_pop(h);
				continue;
			}
			if (x->gpus > room)
				break;
			struct rentry e = rheap_pop(h);
			gate_raise(x, t, S->ji[jidx].end_low, S->ji[jidx].end_high, GATE_QUOTA, id);
			make_ready(S, e.p, t);
			room -= x->gpus;
		}
	}
}

void sim_on_event(struct sim *S, const struct tentry *e, int64_t t)
{
	if (e->kind == EV_RELEASE) {
		if (S->pj[e->arg].status == ST_GATED)
			make_ready(S, e->arg, t);
		return;
	}
	int qi = (int)e->arg;
	S->win_event[qi] = 0;
	for (size_t i = 0; i < S->npark_win[qi]; i++) {
		uint32_t p = S->park_win[qi][i];
		struct pj *x = &S->pj[p];
		if (x->status != ST_PARK_WINDOW)
			continue;
		gate_raise(x, t, t, t, GATE_WINDOW, 0);
		make_ready(S, p, t);
	}
	S->npark_win[qi] = 0;
}
