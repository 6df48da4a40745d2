/*
 * refpredict.c - the reference predictor (refpredict.h).
 *
 * One record per pending job and per snapshot job, a plain loop over event
 * times; each step is a scan over all jobs. What the rules of predict.h
 * leave to the implementation (the order of ends at one time, the order
 * in which a queue at its limit lets parked jobs go, when a walk gives up)
 * is done as core/sim.c documents it, so that the two can be compared to
 * the byte. The order (order.h), placement (place.h) and runtimes
 * (runtime.h) are core's own: they are tested on their own.
 */
#include "refpredict.h"

#include <stdlib.h>
#include <string.h>

#include "core/depend.h"
#include "core/order.h"
#include "core/permit.h"
#include "core/place.h"
#include "core/resv.h"
#include "core/util.h"

enum { R_GATED, R_READY, R_PARK_WINDOW, R_PARK_QUOTA, R_PARK_USER, R_STARTED, R_NEVER };

struct rp { /* a pending job */
	size_t jidx;
	int status, tier, otier, qi, di, gpus, qlim, bucket, deps_left;
	bool windowed, unconstrained, has_deps;
	bool ulimited; /* a per-user GPU limit applies to it */
	uint32_t rank;
	int64_t q, rt, rt_low, rt_high, release_at, earn;
	enum predict_gate release_gate;
	bool release_pending; /* a release event at release_at */
	int64_t gate_t, gate_low, gate_high, gate_job;
	enum predict_gate gate;
};

struct rs { /* a snapshot job, while it holds GPUs (now or simulated) */
	bool holds;
	int64_t end, end_low, end_high;
	int nalloc, held, qi;
	const struct job_alloc *alloc; /* into the pool */
};

struct ref {
	const struct snapshot *s;
	const struct policy *p;
	int64_t now, busy_t, min_rt, backfill_until;
	int steps;
	struct place_map m;
	size_t np;
	struct rp *pj;		/* by position - 1 */
	struct prediction *out; /* by position - 1 */
	struct rs *js;		/* by snapshot index */
	size_t (*relj)[GQ_MAX_NODE_GPUS];
	int64_t (*relt)[GQ_MAX_NODE_GPUS];
	int64_t win_event[GQ_MAX_QUEUES];
	struct job_alloc *pool;
	size_t npool;
};

static int bucket_at(const struct ref *R, const struct rp *x, int64_t t)
{
	if (t <= x->q)
		return 0;
	int64_t k = order_aging_k(R->p, t - x->q);
	return k > R->steps ? R->steps : (int)k;
}

static void gate_raise(struct rp *x, int64_t t, int64_t lo, int64_t hi, enum predict_gate g,
		       int64_t job)
{
	if (t >= x->gate_t) {
		x->gate_t = t;
		x->gate = g;
		x->gate_job = job;
	}
	if (lo > x->gate_low)
		x->gate_low = lo;
	if (hi > x->gate_high)
		x->gate_high = hi;
}

static void make_ready(struct ref *R, struct rp *x, int64_t t)
{
	x->status = R_READY;
	x->bucket = bucket_at(R, x, t);
}

static int64_t next_time(const struct ref *R)
{
	int64_t t = INT64_MAX;
	for (size_t i = 0; i < R->s->njobs; i++)
		if (R->js[i].holds && R->js[i].end < t)
			t = R->js[i].end;
	for (size_t p = 0; p < R->np; p++)
		if (R->pj[p].release_pending && R->pj[p].release_at < t)
			t = R->pj[p].release_at;
	for (int q = 0; q < GQ_MAX_QUEUES; q++)
		if (R->win_event[q] && R->win_event[q] < t)
			t = R->win_event[q];
	return t;
}

static bool any_running(const struct ref *R)
{
	for (size_t i = 0; i < R->s->njobs; i++)
		if (R->js[i].holds)
			return true;
	return false;
}

static bool any_release(const struct ref *R)
{
	for (size_t p = 0; p < R->np; p++)
		if (R->pj[p].release_pending)
			return true;
	return false;
}

/* Would x starting now take its user past a GPU limit: what the user's
 * jobs holding GPUs (now or simulated) asked for, in its queue and in all? */
static bool user_over(const struct ref *R, const struct rp *x)
{
	if (!x->ulimited)
		return false;
	const struct job *j = &R->s->jobs[x->jidx];
	int all = 0, inq = 0;
	for (size_t i = 0; i < R->s->njobs; i++) {
		const struct job *o = &R->s->jobs[i];
		if (!R->js[i].holds || o->req.gpus <= 0 || strcmp(o->user, j->user))
			continue;
		all += o->req.gpus;
		if (R->js[i].qi == x->qi)
			inq += o->req.gpus;
	}
	int ql = x->qi >= 0 ? R->p->queues[x->qi].user_max_gpus : -1;
	if (ql >= 0 && inq + x->gpus > ql)
		return true;
	return R->p->user_max_gpus >= 0 && all + x->gpus > R->p->user_max_gpus;
}

/* The GPUs of snapshot job i's allocation that x could use. */
static int matching_held(const struct ref *R, size_t i, const struct rp *x)
{
	if (x->unconstrained)
		return R->js[i].held;
	int n = 0;
	for (int a = 0; a < R->js[i].nalloc; a++) {
		const struct job_alloc *al = &R->js[i].alloc[a];
		if ((size_t)al->node < R->s->nnodes &&
		    place_node_matches(&R->s->nodes[al->node], &R->s->jobs[x->jidx].req))
			n += __builtin_popcountll(al->mask & R->m.upmask[al->node]);
	}
	return n;
}

/* The running jobs in end order (end, then snapshot index). */
static size_t ends_sorted(const struct ref *R, size_t *v)
{
	size_t n = 0;
	for (size_t i = 0; i < R->s->njobs; i++) {
		if (!R->js[i].holds)
			continue;
		size_t k = n++;
		while (k > 0 && (R->js[v[k - 1]].end > R->js[i].end))
			v[k] = v[k - 1], k--;
		v[k] = i;
	}
	return n;
}

/* predict.h: the earliest time blocked job x could start, from the counts
 * of GPUs the running jobs free in end order; never before the next end. */
static int64_t shadow(const struct ref *R, const struct rp *x, int have, int reserve)
{
	size_t *v = xmalloc((R->s->njobs + 1) * sizeof(*v));
	size_t n = ends_sorted(R, v);
	int64_t res = INT64_MAX;
	int total = R->m.nfree;
	if (n && have >= x->gpus && total >= x->gpus + reserve)
		res = R->js[v[0]].end;
	for (size_t k = 0; k < n && res == INT64_MAX; k++) {
		have += matching_held(R, v[k], x);
		total += R->js[v[k]].held;
		if (have >= x->gpus && total >= x->gpus + reserve)
			res = R->js[v[k]].end;
	}
	free(v);
	return res;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void start(struct ref *R, struct rp *x, int64_t t, const struct place_result *r,
		  bool backfilled, bool permit)
{
	const struct snapshot *s = R->s;
	const struct job *j = &s->jobs[x->jidx];
	struct prediction *o = &R->out[x - R->pj];
	if (permit && x->earn >= x->gate_t) {
		x->gate_t = x->earn;
		x->gate = GATE_PERMIT;
		x->gate_job = 0;
	}
	x->status = R_STARTED;
	place_take(&R->m, x->qi, &j->req, r->nalloc, r->alloc);
	R->busy_t = t;
	o->placed = true;
	o->start = t;
	o->runtime = x->rt;
	o->end = t + x->rt;
	o->backfilled = backfilled;
	o->permit = permit;
	o->borrowed = r->borrowed;
	o->nalloc = r->nalloc;
	if (r->nalloc) {
		o->alloc = &R->pool[R->npool];
		memcpy(&R->pool[R->npool], r->alloc, (size_t)r->nalloc * sizeof(*r->alloc));
		R->npool += (size_t)r->nalloc;
	}
	/* Waits: whoever released each GPU it takes after now, its
	 * dependencies not completed, the job whose end let its queue go. */
	int64_t *ids = xmalloc(((size_t)r->need + GQ_MAX_DEPS + 2) * sizeof(*ids));
	int nid = 0;
	int64_t lo = x->gate_low, hi = x->gate_high, last_rel = 0;
	for (int a = 0; a < r->nalloc; a++) {
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++) {
			if (!(r->alloc[a].mask >> g & 1))
				continue;
			int64_t rt = R->relt[r->alloc[a].node][g];
			if (rt <= R->now)
				continue;
			const struct rs *by = &R->js[R->relj[r->alloc[a].node][g]];
			ids[nid++] = s->jobs[R->relj[r->alloc[a].node][g]].id;
			if (by->end_low > lo)
				lo = by->end_low;
			if (by->end_high > hi)
				hi = by->end_high;
			if (rt > last_rel)
				last_rel = rt;
		}
	}
	for (int d = 0; x->has_deps && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj = snapshot_find(s, j->deps[d]);
		if (dep_status(dep_kind_of(j, d), dj) == DEP_WAIT)
			ids[nid++] = dj->id;
	}
	if ((x->gate == GATE_QUOTA || x->gate == GATE_USER) && x->gate_job)
		ids[nid++] = x->gate_job;
	qsort(ids, (size_t)nid, sizeof(*ids), cmp_i64);
	int u = 0;
	for (int i = 0; i < nid; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	o->nwaits_all = u;
	o->nwaits = u < PREDICT_MAX_WAITS ? u : PREDICT_MAX_WAITS;
	memcpy(o->waits, ids, (size_t)o->nwaits * sizeof(*ids));
	free(ids);
	if (t == R->now)
		o->gate = GATE_NOW;
	else if (x->gate_t >= last_rel && x->gate_t > R->now)
		o->gate = x->gate;
	else
		o->gate = GATE_ENDS;
	if (lo < R->now)
		lo = R->now;
	o->low = lo < t ? lo : t;
	o->high = hi > t ? hi : t;
	struct rs *me = &R->js[x->jidx];
	me->holds = true;
	me->end = o->end;
	me->end_low = o->low + x->rt_low;
	me->end_high = o->high + x->rt_high;
	me->nalloc = o->nalloc;
	me->alloc = o->alloc;
	me->held = r->need;
}

/* Job i ends at t: its GPUs are released, its dependents and its queue's
 * parked jobs may go. */
static void on_end(struct ref *R, size_t i, int64_t t)
{
	const struct snapshot *s = R->s;
	struct rs *e = &R->js[i];
	e->holds = false;
	for (int a = 0; a < e->nalloc; a++) {
		const struct job_alloc *al = &e->alloc[a];
		if (al->node < 0 || (size_t)al->node >= s->nnodes)
			continue;
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++) {
			if (al->mask >> g & R->m.upmask[al->node] >> g & 1) {
				R->relj[al->node][g] = i;
				R->relt[al->node][g] = t;
			}
		}
	}
	place_give(&R->m, e->qi, &s->jobs[i].req, e->nalloc, e->alloc);
	for (size_t p = 0; p < R->np; p++) {
		struct rp *x = &R->pj[p];
		if (x->status != R_GATED || !x->deps_left)
			continue;
		const struct job *j = &s->jobs[x->jidx];
		/* Once per listed dependency on it, as deps_left counted. */
		for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
			if (j->deps[d] != s->jobs[i].id || x->status != R_GATED)
				continue;
			gate_raise(x, t, e->end_low, e->end_high, GATE_DEPENDENCY, s->jobs[i].id);
			if (--x->deps_left > 0)
				continue;
			if (x->release_at > t) {
				gate_raise(x, x->release_at, x->release_at, x->release_at,
					   x->release_gate, 0);
				x->release_pending = true;
			} else {
				make_ready(R, x, t);
			}
		}
	}
	/* The user's parked jobs that fit under its limits now. */
	for (size_t p = 0; s->jobs[i].req.gpus > 0 && p < R->np; p++) {
		struct rp *x = &R->pj[p];
		if (x->status != R_PARK_USER || strcmp(s->jobs[x->jidx].user, s->jobs[i].user) ||
		    user_over(R, x))
			continue;
		gate_raise(x, t, e->end_low, e->end_high, GATE_USER, s->jobs[i].id);
		make_ready(R, x, t);
	}
	int qi = e->qi;
	if (qi < 0)
		return;
	const struct queue_policy *q = &R->p->queues[qi];
	int room = q->quota < 0 || q->borrow < 0 ? 0 : q->quota + q->borrow - R->m.queue_used[qi];
	/* The queue's parked jobs in (tier, rank) order while the first fits. */
	for (;;) {
		struct rp *best = NULL;
		for (size_t p = 0; p < R->np; p++) {
			struct rp *x = &R->pj[p];
			if (x->status == R_PARK_QUOTA && x->qi == qi &&
			    (!best || x->otier < best->otier ||
			     (x->otier == best->otier && x->rank < best->rank)))
				best = x;
		}
		if (!best || best->gpus > room)
			break;
		gate_raise(best, t, e->end_low, e->end_high, GATE_QUOTA, s->jobs[i].id);
		make_ready(R, best, t);
		room -= best->gpus;
	}
}

/* Sorts positions by (tier, key) where key is the order at t in a tier. */
struct okey {
	int tier;
	int64_t key;
	size_t p;
};

static int cmp_okey(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;
	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static int64_t okey_of(const struct ref *R, const struct rp *x, int64_t t)
{
	return (int64_t)(R->steps - bucket_at(R, x, t)) << 32 | x->rank;
}

static size_t nready_zero(const struct ref *R)
{
	size_t n = 0;
	for (size_t p = 0; p < R->np; p++)
		n += R->pj[p].status == R_READY && R->pj[p].gpus <= 0;
	return n;
}

/* The runtime backfill counts (predict.h): none bounds a job with neither
 * an estimate nor a time limit, longer than any gap. */
static int64_t bf_rt(const struct ref *R, const struct rp *x)
{
	return predict_bounded(&R->s->jobs[x->jidx]) ? x->rt : (int64_t)1 << 62;
}

/* The walk of the order at t (predict.h; the look of core/sim.c). */
static void walk(struct ref *R, int64_t t)
{
	const struct snapshot *s = R->s;
	struct okey *v = xmalloc((R->np + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t p = 0; p < R->np; p++)
		if (R->pj[p].status == R_READY)
			v[n++] = (struct okey){R->pj[p].otier, okey_of(R, &R->pj[p], t), p};
	qsort(v, n, sizeof(*v), cmp_okey);
	bool blocked = false, qparked[GQ_MAX_QUEUES] = {false};
	int64_t tmin = INT64_MAX, next = next_time(R);
	int examined = 0;
	for (size_t i = 0; i < n; i++) {
		if (R->m.nfree == 0 && nready_zero(R) == 0)
			break;
		struct rp *x = &R->pj[v[i].p];
		const struct job *j = &s->jobs[x->jidx];
		if (blocked && t + bf_rt(R, x) > tmin) {
			/* It waits; what it holds back is its own earliest
			 * start: short of GPUs by count, its lower bound from
			 * the ends, else the next event. */
			int reserve = place_reserve(&R->m, (enum tier)x->tier, x->gpus);
			if (x->gpus > R->m.nfree ||
			    (x->gpus > 0 && R->m.nfree - x->gpus < reserve)) {
				int have = x->unconstrained ? R->m.nfree
							    : place_match_free(&R->m, s, &j->req);
				int64_t sh = shadow(R, x, have, reserve);
				if (sh < tmin)
					tmin = sh;
			} else if (next < tmin) {
				tmin = next;
			}
			if (++examined >= PREDICT_BACKFILL_DEPTH || t + R->min_rt > tmin)
				break;
			continue;
		}
		if (x->qi >= 0 && qparked[x->qi]) {
			x->status = R_PARK_QUOTA;
			continue;
		}
		if (user_over(R, x)) {
			x->status = R_PARK_USER;
			continue;
		}
		struct place_result r;
		place_check_req(&R->m, s, &j->req, (enum tier)x->tier, x->qi, x->di, t, &r);
		if (r.blocks & PLACE_BIT(PLACE_WINDOW)) {
			x->status = R_PARK_WINDOW;
			if (!R->win_event[x->qi])
				R->win_event[x->qi] = r.window_end;
			next = next_time(R);
			continue;
		}
		if (r.quota_queue) {
			qparked[x->qi] = true;
			x->status = R_PARK_QUOTA;
			continue;
		}
		if (!r.blocks && (!blocked || t + bf_rt(R, x) <= tmin)) {
			int64_t at = resv_earliest(s, j, t, NULL);
			if (at > t) { /* a reservation keeps it: gated until then */
				x->status = R_GATED;
				x->release_at = at;
				x->release_gate = GATE_RESERVATION;
				gate_raise(x, at, at, at, GATE_RESERVATION, 0);
				x->release_pending = true;
				next = next_time(R);
				continue;
			}
			start(R, x, t, &r, blocked, false);
			next = next_time(R);
			continue;
		}
		if (!r.blocks) {
			if (next < tmin)
				tmin = next;
		} else {
			int64_t nt = INT64_MAX;
			for (size_t k = 0; k < s->njobs; k++)
				if (R->js[k].holds && R->js[k].end < nt)
					nt = R->js[k].end;
			if (tmin > nt) {
				/* GPUs only (predict.h): CPUs and memory
				 * also come back only at an end. */
				int have = x->unconstrained ? R->m.nfree
							    : place_match_free(&R->m, s, &j->req);
				int reserve = place_reserve(&R->m, (enum tier)x->tier, x->gpus);
				int64_t sh = shadow(R, x, have, reserve);
				if (sh < tmin)
					tmin = sh;
			}
		}
		blocked = true;
		if (++examined >= PREDICT_BACKFILL_DEPTH || t + R->min_rt > tmin)
			break;
	}
	free(v);
	if (t == R->now)
		R->backfill_until = blocked ? tmin : 0;
}

static bool permit_fits(const struct ref *R, const struct rp *x, int64_t t, struct place_result *r)
{
	if (x->status != R_READY && x->status != R_PARK_QUOTA)
		return false;
	if (R->m.nfree < x->gpus + place_reserve(&R->m, (enum tier)x->tier, x->gpus))
		return false;
	if (user_over(R, x))
		return false;
	return place_check_req(&R->m, R->s, &R->s->jobs[x->jidx].req, (enum tier)x->tier, x->qi,
			       x->di, t, r);
}

/* Every holder of a permit earned by t that may start, in the order at t,
 * starts if it fits the free GPUs. */
static void permits(struct ref *R, int64_t t)
{
	struct okey *v = xmalloc((R->np + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t p = 0; p < R->np; p++) {
		const struct rp *x = &R->pj[p];
		if ((x->status == R_READY || x->status == R_PARK_QUOTA) && x->earn <= t)
			v[n++] = (struct okey){x->tier, okey_of(R, x, t), p};
	}
	qsort(v, n, sizeof(*v), cmp_okey);
	struct place_result r;
	for (size_t i = 0; i < n; i++)
		if (permit_fits(R, &R->pj[v[i].p], t, &r))
			start(R, &R->pj[v[i].p], t, &r, false, true);
	free(v);
}

/* The first earn time in (t, before) of a job that would then fit the GPUs
 * free after t, else before. */
static int64_t permit_wake(const struct ref *R, int64_t t, int64_t before)
{
	int64_t w = before;
	struct place_result r;
	for (size_t p = 0; p < R->np; p++) {
		const struct rp *x = &R->pj[p];
		if (x->status != R_NEVER && x->earn > t && x->earn < w &&
		    permit_fits(R, x, x->earn, &r))
			w = x->earn;
	}
	return w;
}

/* A pending job's record, and whether it can ever start. */
static void stage(struct ref *R, size_t i, struct rp *x, struct prediction *o)
{
	const struct snapshot *s = R->s;
	const struct job *j = &s->jobs[i];
	memset(x, 0, sizeof(*x));
	x->jidx = i;
	x->tier = (int)job_tier(j);
	/* the order's tier: none on a backend's order, which crosses tiers */
	x->otier = s->order == ORDER_BACKEND ? 0 : job_order_rank(j);
	x->qi = policy_queue_index(R->p, j->queue);
	x->di = policy_dept_index(R->p, j->dept);
	x->gpus = j->req.gpus;
	x->unconstrained = !j->req.gpu_type[0] && j->req.gpu_mem_mb <= 0;
	x->windowed = x->qi >= 0 && R->p->queues[x->qi].paused.set;
	int ql = x->qi >= 0 ? R->p->queues[x->qi].user_max_gpus : -1;
	x->ulimited = x->gpus > 0 && (ql >= 0 || R->p->user_max_gpus >= 0);
	x->q = j->queued_time > 0 && !j->held ? job_aging_base(j) : INT64_MAX / 4;
	x->rt = predict_runtime(R->p, j);
	x->rt_low = predict_runtime_low(R->p, j);
	x->rt_high = predict_runtime_high(R->p, j);
	x->release_at = j->not_before > R->now ? j->not_before : R->now;
	x->release_gate = GATE_COOLDOWN;
	if (j->begin_time > x->release_at) {
		x->release_at = j->begin_time;
		x->release_gate = GATE_BEGIN;
	}
	int64_t ra = resv_earliest(s, j, x->release_at, NULL);
	if (ra > x->release_at) {
		x->release_at = ra;
		x->release_gate = GATE_RESERVATION;
	}
	if (x->release_at > R->now + PREDICT_MAX_RUNTIME)
		x->release_at = R->now + PREDICT_MAX_RUNTIME;
	x->gate_t = x->gate_low = x->gate_high = R->now;
	x->gate = GATE_NOW;
	x->status = R_GATED;
	enum predict_never nv = NEVER_NO;
	if (j->held)
		nv = NEVER_HELD;
	else if (place_satisfiable_map(&R->m, s, j, x->qi, NULL) < 0)
		nv = NEVER_UNSATISFIABLE;
	else if (x->di >= 0 && x->gpus > 0 && R->p->depts[x->di].gpu_hours_month >= 0 &&
		 s->dstate[x->di].gpu_hours_month >= R->p->depts[x->di].gpu_hours_month &&
		 R->p->depts[x->di].over_action == QUOTA_STOP)
		nv = NEVER_DEPT_QUOTA;
	for (int d = 0; nv == NEVER_NO && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj;
		enum dep_status ds = dep_status_at(s, j, d, &dj);
		if (ds == DEP_MET && dj != j)
			continue;
		if (ds == DEP_NEVER || dj == j) {
			nv = dj == j ? NEVER_DEP_NEVER : NEVER_DEP_FAILED;
			break;
		}
		x->deps_left++;
		x->has_deps = true;
	}
	if (nv != NEVER_NO) {
		x->status = R_NEVER;
		x->deps_left = 0;
	} else {
		x->earn = permit_earned_at(R->p, j);
	}
	o->job = j->id;
	o->idx = i;
	o->runtime = x->rt;
	o->never = nv;
}

void ref_predict_until(const struct snapshot *s, int64_t until, struct prediction_set *out)
{
	prediction_set_release(out);
	struct ref R0, *R = &R0;
	memset(R, 0, sizeof(*R));
	R->s = s;
	R->p = &s->policy;
	R->now = R->busy_t = s->now;
	R->steps = order_aging_steps(R->p);
	if (R->steps > 1023)
		R->steps = 1023;
	place_map_init(&R->m, s);
	size_t nj = s->njobs;
	out->now = s->now;
	out->nfree = R->m.nfree;
	out->njobs = nj;
	out->of_job = xmalloc((nj + 1) * sizeof(*out->of_job));
	out->ends = xcalloc(nj + 1, sizeof(*out->ends));
	R->js = xcalloc(nj + 1, sizeof(*R->js));
	R->relj = xcalloc(s->nnodes + 1, sizeof(*R->relj));
	R->relt = xcalloc(s->nnodes + 1, sizeof(*R->relt));
	size_t *idx = xmalloc((nj + 1) * sizeof(*idx));
	size_t np = order_pending(s, idx);
	R->np = out->n = np;
	R->pj = xcalloc(np + 1, sizeof(*R->pj));
	R->out = out->items = xcalloc(np + 1, sizeof(*out->items));
	/* The pool: what the jobs holding GPUs hold, and one entry per node a
	 * pending job could take (one for a CPU-only job). */
	size_t npool = 1, span = s->nnodes < GQ_MAX_SPAN ? s->nnodes : GQ_MAX_SPAN;
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = &s->jobs[i];
		if (job_state_holds_gpus(j->state))
			npool += (size_t)(j->nalloc > 0 ? j->nalloc : 0);
		else if (j->state == JOB_PENDING)
			npool += j->req.gpus < 1	      ? 1
				 : (size_t)j->req.gpus < span ? (size_t)j->req.gpus
							      : span;
	}
	R->pool = out->allocs = xmalloc(npool * sizeof(*R->pool));
	uint32_t *rank = xmalloc((np + 1) * sizeof(*rank));
	order_rank_static(s, idx, np, rank);
	for (size_t i = 0; i < nj; i++) {
		out->of_job[i] = -1;
		const struct job *j = &s->jobs[i];
		struct rs *e = &R->js[i];
		e->qi = policy_queue_index(R->p, j->queue);
		if (!job_state_holds_gpus(j->state))
			continue;
		e->holds = true;
		e->end = out->ends[i] = predict_end(R->p, j, s->now);
		int64_t lo = predict_end_rt(j, predict_runtime_low(R->p, j), s->now);
		int64_t hi = predict_end_rt(j, predict_runtime_high(R->p, j), s->now);
		e->end_low = lo < e->end ? lo : e->end;
		e->end_high = hi > e->end ? hi : e->end;
		e->nalloc = j->nalloc < 0 ? 0 : j->nalloc;
		e->alloc = &R->pool[R->npool];
		if (e->nalloc)
			memcpy(&R->pool[R->npool], j->alloc, (size_t)e->nalloc * sizeof(*e->alloc));
		R->npool += (size_t)e->nalloc;
		for (int a = 0; a < e->nalloc; a++)
			e->held += __builtin_popcountll(j->alloc[a].mask);
	}
	R->min_rt = INT64_MAX;
	for (size_t p = 0; p < np; p++) {
		struct rp *x = &R->pj[p];
		stage(R, idx[p], x, &R->out[p]);
		x->rank = rank[p];
		R->out[p].position = (int)p + 1;
		out->of_job[idx[p]] = (int32_t)p;
		const struct queue_policy *q = x->qi >= 0 ? &R->p->queues[x->qi] : NULL;
		x->qlim = q && q->quota >= 0 && q->borrow >= 0 ? q->quota + q->borrow : -1;
		if (x->rt < R->min_rt)
			R->min_rt = x->rt;
	}
	free(rank);
	free(idx);
	for (size_t p = 0; p < np; p++) {
		struct rp *x = &R->pj[p];
		if (x->status != R_GATED || x->deps_left)
			continue;
		if (x->release_at > R->now) {
			gate_raise(x, x->release_at, x->release_at, x->release_at, x->release_gate,
				   0);
			x->release_pending = true;
		} else {
			make_ready(R, x, R->now);
		}
	}

	int64_t t = R->now;
	for (bool first = true;; first = false) {
		if (!first) {
			for (size_t i = 0; i < nj; i++) {
				if (R->js[i].holds && R->js[i].end == t) {
					on_end(R, i, t);
					R->busy_t = t;
				}
			}
			for (size_t p = 0; p < np; p++) {
				struct rp *x = &R->pj[p];
				if (x->release_pending && x->release_at == t) {
					x->release_pending = false;
					R->busy_t = t;
					if (x->status == R_GATED)
						make_ready(R, x, t);
				}
			}
			for (int q = 0; q < GQ_MAX_QUEUES; q++) {
				if (R->win_event[q] != t)
					continue;
				R->win_event[q] = 0;
				for (size_t p = 0; p < np; p++) {
					struct rp *x = &R->pj[p];
					if (x->status == R_PARK_WINDOW && x->qi == q) {
						gate_raise(x, t, t, t, GATE_WINDOW, 0);
						make_ready(R, x, t);
					}
				}
			}
		}
		/* Aging: a ready job's step is the one at t. */
		for (size_t p = 0; p < np; p++) {
			struct rp *x = &R->pj[p];
			int b = bucket_at(R, x, t);
			if (x->status == R_READY && b > x->bucket) {
				x->bucket = b;
				R->busy_t = t;
			}
		}
		walk(R, t);
		permits(R, t);
		if (first) {
			int64_t w = 0;
			for (size_t p = 0; p < np; p++)
				if (R->pj[p].release_pending && (!w || R->pj[p].release_at < w))
					w = R->pj[p].release_at;
			for (int q = 0; q < GQ_MAX_QUEUES; q++)
				if (R->win_event[q] && (!w || R->win_event[q] < w))
					w = R->win_event[q];
			for (int q = 0; q < R->p->nqueues; q++) {
				int64_t e = place_window_next_edge(s, q, R->now);
				if (e && (!w || e < w))
					w = e;
			}
			out->wake = w;
			out->backfill_until =
			    R->backfill_until == INT64_MAX ? 0 : R->backfill_until;
		}
		if (t >= until)
			break;
		if (!any_running(R) && !any_release(R) && t - R->busy_t > (int64_t)8 * 86400)
			break;
		t = permit_wake(R, t, next_time(R));
		if (t == INT64_MAX)
			break;
	}
	bool finished = t < until || t == INT64_MAX;
	for (size_t p = 0; finished && p < np; p++) {
		struct rp *x = &R->pj[p];
		if (x->status != R_STARTED && x->status != R_NEVER)
			R->out[p].never =
			    x->status == R_GATED && x->deps_left ? NEVER_DEP_NEVER : NEVER_CAPACITY;
	}
	place_map_release(&R->m);
	free(R->js);
	free(R->relj);
	free(R->relt);
	free(R->pj);
}
