/*
 * predict.c - the queue-traversal simulation behind ETAs and the plan.
 *
 * State: the free-GPU map (place.h), a heap of running jobs by expected
 * end, a heap of timed events (cooldown and dependency releases, window
 * ends), and the ready jobs in one queue per (tier, aging step) keyed by
 * their static rank (fair share, submit time, id), a sorted run beside a
 * heap (struct rqueue): the order at any time t is tier, then aging step
 * at t (highest first), then rank. A job moves to a higher step when t
 * crosses queued_time + k × interval; per tier the jobs are kept sorted by
 * queued_time with one cursor per step, so moving costs O(log n) per job
 * and step (O(1) when they move in rank order). Entries are invalidated
 * lazily by an epoch per job. The jobs a walk looks past and leaves
 * waiting go to a sorted stack beside their queue (its "front") rather
 * than back into it: the next walk reads them again first. A walk reads a
 * front where it lies and puts back only what changed (front_settle): the
 * jobs that left, and those it took off the queue. Each front entry
 * carries the job's runtime and GPU count, so that once a walk is blocked
 * it counts off the jobs that cannot start (look_past) with no look at
 * their records; a front knows how many of its entries went stale, and
 * only a front with none is read that way.
 *
 * Starvation permits: after each walk, the jobs that earned one start on
 * the GPUs the walk left free (permits()). They wait by group (queue and
 * kind of GPUs), tier and GPU count in queues keyed like the ready ones,
 * so that a pass skips, by counts, every queue whose jobs could not fit,
 * and reads only the first of each of the others.
 *
 * Nothing here allocates per event: every array is sized once from the
 * snapshot, except the queues and fronts, which grow by doubling.
 */
#include "predict.h"

#include "calib.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const char *const never_names[NEVER_COUNT] = {
    [NEVER_NO] = "",
    [NEVER_HELD] = "held",
    [NEVER_DEP_FAILED] = "dependency_failed",
    [NEVER_DEP_NEVER] = "dependency_never",
    [NEVER_UNSATISFIABLE] = "unsatisfiable",
    [NEVER_DEPT_QUOTA] = "dept_quota",
    [NEVER_CAPACITY] = "capacity",
    [NEVER_LIMIT] = "limit",
};

const char *predict_never_name(enum predict_never n)
{
	return (unsigned)n < NEVER_COUNT ? never_names[n] : "?";
}

static const char *const gate_names[GATE_COUNT] = {
    [GATE_NOW] = "now",
    [GATE_ENDS] = "ends",
    [GATE_DEPENDENCY] = "dependency",
    [GATE_COOLDOWN] = "cooldown",
    [GATE_WINDOW] = "window",
    [GATE_QUOTA] = "quota",
    [GATE_PERMIT] = "permit",
    [GATE_BEGIN] = "begin",
    [GATE_USER] = "user_limit",
    [GATE_RESERVATION] = "reservation",
};

const char *predict_gate_name(enum predict_gate g)
{
	return (unsigned)g < GATE_COUNT ? gate_names[g] : "?";
}

/* The first time after now at which the plan may change with no event: a
 * release (cooldown) or the edge of any queue's window; the walk may have
 * stopped before parking every job of a paused queue. */
static int64_t first_wake(const struct sim *S)
{
	int64_t w = S->events.n ? S->events.v[0].t : 0;
	for (int q = 0; q < S->p->nqueues; q++) {
		int64_t e = place_window_next_edge(S->s, q, S->now);
		if (e && (!w || e < w))
			w = e;
	}
	return w;
}

#define QUIET ((int64_t)8 * 86400) /* a week, and a day to spare */

/* watch: a snapshot index whose placement ends the run early, or -1. */
static void run(const struct snapshot *s, const struct job *as, int64_t until, ptrdiff_t watch,
		struct prediction_set *out)
{
	prediction_set_release(out);
	struct sim S;
	sim_init(&S, s, as, watch >= 0 ? (size_t)watch : s->njobs, out);
	int64_t t = S.now;
	bool first = true;
	for (;;) {
		if (!first) {
			while (S.ends.n && S.ends.v[0].t == t) {
				struct tentry e = theap_pop(&S.ends);
				sim_on_end(&S, e.arg, t);
				S.busy_t = t;
			}
			while (S.events.n && S.events.v[0].t == t) {
				struct tentry e = theap_pop(&S.events);
				if (e.kind == EV_RELEASE) {
					S.nrelease--;
					S.busy_t = t;
				}
				sim_on_event(&S, &e, t);
			}
		}
		sim_migrate(&S, t);
		sim_walk(&S, t);
		sim_permits(&S, t);
		if (first) {
			out->wake = first_wake(&S);
			out->backfill_until = S.backfill_until == INT64_MAX ? 0 : S.backfill_until;
			first = false;
		}
		if (t >= until)
			break;
		if (watch >= 0 && S.of_job[watch] >= 0 && S.out[S.of_job[watch]].placed)
			break;
		/* With nothing holding GPUs and no release to come, only the
		 * queues' windows still open and close, every day alike: a
		 * week and a day with no start and no aging step means that
		 * no job left will ever start (say, one that fits only on
		 * nodes that are down, in a queue whose window keeps parking
		 * it), and would otherwise loop forever. */
		if (!S.ends.n && !S.nrelease && t - S.busy_t > QUIET)
			break;
		t = sim_permit_wake(&S, t, sim_next_time(&S));
		if (t == INT64_MAX)
			break;
	}
	/* A run cut short once the watched job is placed says nothing of the
	 * jobs it did not reach. */
	bool finished = (t < until || t == INT64_MAX) && watch < 0;
	for (size_t p = 0; p < S.np; p++) {
		struct pj *x = &S.pj[p];
		struct prediction *o = &S.out[p];
		if (o->placed)
			calib_widen(&s->calib, S.now, o->start, &o->low, &o->high);
		if (x->status == ST_STARTED || x->status == ST_NEVER || !finished)
			continue;
		o->never = x->status == ST_GATED && x->deps_left ? NEVER_DEP_NEVER : NEVER_CAPACITY;
	}
	sim_release(&S);
}

void predict_all(const struct snapshot *s, struct prediction_set *out)
{
	run(s, NULL, INT64_MAX, -1, out);
}

void predict_until(const struct snapshot *s, int64_t until, struct prediction_set *out)
{
	run(s, NULL, until, -1, out);
}

void predict_job(const struct snapshot *s, size_t idx, const struct job *as, int64_t until,
		 struct prediction_set *out)
{
	run(s, as, until, idx < s->njobs ? (ptrdiff_t)idx : -1, out);
}

void prediction_set_init(struct prediction_set *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void prediction_set_release(struct prediction_set *ps)
{
	free(ps->items);
	free(ps->of_job);
	free(ps->ends);
	free(ps->allocs);
	prediction_set_init(ps);
}

const struct prediction *prediction_find(const struct prediction_set *ps, const struct snapshot *s,
					 int64_t id)
{
	const struct job *j = snapshot_find(s, id);
	if (!j)
		return NULL;
	size_t i = (size_t)(j - s->jobs);
	if (i >= ps->njobs || ps->of_job[i] < 0)
		return NULL;
	return &ps->items[ps->of_job[i]];
}
