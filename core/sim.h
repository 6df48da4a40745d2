/*
 * sim.h - the simulation behind predict.h, private to the prediction.
 *
 * sim_init.c builds the state from a snapshot, sim.c moves it from event
 * to event (the walk of the order at each event, ends, releases, window
 * ends), sim_permit.c starts the holders of starvation permits after each
 * walk, and predict.c runs the loop. The state is described in predict.c's
 * head comment.
 */
#ifndef GQ_SIM_H
#define GQ_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "order.h"
#include "place.h"
#include "predict.h"
#include "simq.h"
#include "ulimit.h"

/* The runtime backfill counts for a job nothing bounds: longer than any gap. */
#define SIM_UNBOUNDED ((int64_t)1 << 62)
#define MAX_BUCKETS 1024 /* aging steps told apart in the simulation */
#define PERMIT_G 64	 /* permit holders asking for fewer GPUs wait in heaps */

struct pj { /* a pending job in the simulation; index = position - 1 */
	/* First what a walk reads of every job it looks at, in one cache
	 * line: a walk looks past dozens of jobs at every event. */
	uint32_t epoch;
	uint8_t status;
	bool unconstrained; /* any GPU model and memory */
	bool windowed;	    /* its queue has a window: only place_check_req knows if it is paused */
	bool has_deps;	    /* waits (or waited) for other jobs */
	bool special;	    /* windowed, its queue or user has a limit: a walk may park it */
	bool in_front;	    /* its current entry is on its front */
	int bucket, gpus, qi, qlim; /* qlim: its queue's quota + borrowing limit, -1 none */
	int64_t rt;
	int64_t bf_rt; /* what backfill counts: rt, or SIM_UNBOUNDED (predict_bounded()) */
	uint32_t jidx, rank;
	int tier, di, deps_left;
	int ui; /* its user in S->ut when a per-user GPU limit applies to it, else -1 */
	/* The rank the order sees first: job_order_rank (a claim first,
	 * then the tiers, and below P2 work over its department's quota),
	 * or 0 for every job of an
	 * ORDER_BACKEND snapshot, whose backend priority crosses tiers (the
	 * ready heaps, fronts, aging cursors and quota parking are per
	 * otier; headroom and permits keep the job's tier). */
	int otier;
	int64_t
	    q; /* aging reference: job_aging_base, INT64_MAX/4 when held or queued_time is unset */
	int64_t rt_low, rt_high;
	int64_t release_at; /* earliest start allowed by cooldown or --begin */
	/* GATE_COOLDOWN or GATE_BEGIN: which set release_at; GATE_USER or
	 * GATE_QUOTA when a backend's limit holds it until the end of
	 * snapshot job release_jidx (init_backend_limits) */
	enum predict_gate release_gate;
	int32_t release_jidx; /* -1 none */
	int64_t gate_t, gate_low, gate_high;
	enum predict_gate gate;
	int64_t gate_job; /* the job whose end released it (dependency, quota), 0 none */
	enum predict_never never;
	struct job_res req; /* a copy: the walk should not touch the large job records */
};

/* What the events need of a snapshot job, in one place: an end touches
 * one small record instead of the large job and several arrays. */
struct jinfo {
	int64_t id;
	int64_t end_low, end_high;     /* expected end range while it holds GPUs */
	const struct job_alloc *alloc; /* into the pool */
	int nalloc, held, qi;	       /* allocation entries, GPUs held, policy queue */
	int ui;			       /* its user in S->ut, -1 when no user limit is set */
	uint32_t dep_begin, dep_end;   /* its dependents: dep_list[dep_begin..dep_end) */
};

struct hcand { /* a permit holder looked at one by one, with its place at t */
	uint64_t key;
	uint32_t p;
	int tier;
};

#define PERMIT_GROUPS 32

/* Permit holders of one queue asking for GPUs of one type, memory and
 * placement: whether free GPUs could take one of them is decided for the
 * whole heap of a GPU count at once, by counts (place_could_fit, the
 * queue's limit and window). mask: per tier, the GPU counts whose heap is
 * not empty. */
struct pgroup {
	struct job_res req; /* gpus unused */
	int qi;
	bool counted; /* cm is known: the counts can tell */
	uint64_t cm;  /* place_class_mask of req */
	int have;     /* in one permit round: GPUs of its kind free (on one node), -1 unknown */
	struct rqueue h[TIER_COUNT][PERMIT_G];
	uint64_t mask[TIER_COUNT];
};

struct sim {
	const struct snapshot *s;
	/* Simulated in place of s->jobs[as_idx] when not NULL (predict_job's
	 * counterfactual): read every job through sim_job(). */
	const struct job *as;
	size_t as_idx;
	const struct policy *p;
	int64_t now;
	struct place_map m;
	size_t np;
	struct pj *pj;
	struct prediction *out; /* np items */
	struct job_alloc *pool; /* the set's allocs: sized so that it never moves */
	size_t npool, cap_pool;
	int64_t min_rt;		/* shortest expected runtime of any pending job */
	int64_t backfill_until; /* tmin of the walk at now */
	int32_t *of_job;
	/* per snapshot job: expected end range and the allocation it holds */
	struct jinfo *ji;
	int64_t *waitv; /* sim_start_job's scratch: the ids a start waits for */
	size_t waitcap;
	/* per GPU: the job that released it last and when (t 0: free since now) */
	size_t *goff;
	uint32_t *rel_job;
	int64_t *rel_t;
	/* dependents: CSR over snapshot jobs */
	size_t *dep_off;
	uint32_t *dep_list;
	/* per snapshot job: the sibling a throttled array task waits for
	 * (array_throttle_deps), 0 none; NULL when no array is throttled */
	int64_t *thr_dep;
	struct theap ends, events;
	size_t nrelease;      /* EV_RELEASE events in events */
	int64_t busy_t;	      /* the last time a job started, ended, aged or was released */
	int steps;	      /* aging buckets - 1 */
	struct rqueue *ready; /* [tier][bucket] */
	/* [tier][bucket]: entries looked past and put back by walks, in
	 * descending rank (the smallest on top, at the end); every one ranks
	 * at or before the entries its walk did not reach */
	struct front *front;
	size_t nready_zero;	   /* ready jobs asking for no GPU */
	size_t *by_q[ORDER_RANKS]; /* pending indices per otier sorted by q */
	size_t nby_q[ORDER_RANKS];
	size_t *cursor; /* [tier][bucket] */
	struct rheap park_quota[GQ_MAX_QUEUES];
	/* Per-user GPU limits (ulimit.h), when the policy sets one: what
	 * each user holds as jobs start and end, and per user the jobs
	 * parked at its limit, looked at again when one of its jobs ends. */
	bool ulimits;
	struct ulimit_table ut;
	uint32_t **park_user;
	size_t *npark_user, *cap_park_user;
	uint32_t *park_win[GQ_MAX_QUEUES];
	size_t npark_win[GQ_MAX_QUEUES], cap_park_win[GQ_MAX_QUEUES];
	int64_t win_event[GQ_MAX_QUEUES];
	uint32_t *putback;
	size_t nputback, cap_putback;
	struct fentry *settle; /* scratch for front_settle */
	size_t cap_settle;
	size_t *aux; /* scratch for the ordered walk of the end heap */
	size_t cap_aux;
	/* Starvation permits: the jobs that may ever start, by earn time
	 * (by_earn, the first nearned of them earned by the last event),
	 * and those of them that earned it and have not started yet
	 * (the holders). A holder that may start, asks for fewer than
	 * PERMIT_G GPUs and is at its last aging step (its place in the
	 * order no longer moves) waits in a heap by (step, rank): one per
	 * tier and GPU count in its group (struct pgroup: the holders of one
	 * queue asking for the same kind of GPUs); the others, and those of
	 * groups beyond PERMIT_GROUPS, in the list `lin`, looked at one by
	 * one. group_of: per position, its group, -1 none yet. */
	int64_t *earn; /* per position: when its permit is earned (permit_has()) */
	uint32_t *by_earn;
	size_t nby_earn, nearned;
	bool earn_sorted;
	struct pgroup *groups;
	size_t ngroups, cap_groups;
	int32_t *group_of;
	/* A holder in a heap below its last aging step is pushed again with
	 * its new key when it ages (young: by that time); hepoch[p] tells its
	 * current entry from older ones. */
	uint32_t *hepoch;
	struct rheap young;
	int8_t max_gpus[TIER_COUNT][PERMIT_G]; /* see holder_max_gpus */
	uint32_t *lin, *failed;
	struct hcand *cand;
	size_t nlin;
	bool zero_holder; /* some holder asks for no GPU */
};

static inline struct rqueue *ready_heap(struct sim *S, int tier, int b)
{
	return &S->ready[tier * (S->steps + 1) + b];
}

static inline struct front *ready_front(struct sim *S, int tier, int b)
{
	return &S->front[tier * (S->steps + 1) + b];
}

static inline int bucket_at(const struct sim *S, const struct pj *x, int64_t t)
{
	if (t <= x->q)
		return 0;
	int64_t k = order_aging_k(S->p, t - x->q);
	return k > S->steps ? S->steps : (int)k;
}

static inline void make_ready(struct sim *S, uint32_t p, int64_t t)
{
	struct pj *x = &S->pj[p];
	x->status = ST_READY;
	x->bucket = bucket_at(S, x, t);
	x->epoch++;
	if (x->gpus <= 0)
		S->nready_zero++;
	rq_push(ready_heap(S, x->otier, x->bucket), x->rank, p, x->epoch);
}

static inline void leave_ready(struct sim *S, struct pj *x, uint8_t status)
{
	if (x->gpus <= 0)
		S->nready_zero--;
	x->status = status;
}

/* Raises the gate of x to time t for reason g, with a range. */
static inline void gate_raise(struct pj *x, int64_t t, int64_t lo, int64_t hi, enum predict_gate g,
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

/* Raises x's gate to its release (release_at), with the range and the
 * job of the end that sets it when a backend's limit does. */
static inline void gate_release(const struct sim *S, struct pj *x)
{
	int64_t lo = x->release_at, hi = x->release_at, job = 0;
	if (x->release_jidx >= 0) {
		const struct jinfo *h = &S->ji[x->release_jidx];
		lo = h->end_low;
		hi = h->end_high;
		job = h->id;
	}
	gate_raise(x, x->release_at, lo, hi, x->release_gate, job);
}

/* Job i of the simulated snapshot. */
static inline const struct job *sim_job(const struct sim *S, size_t i)
{
	return S->as && i == S->as_idx ? S->as : &S->s->jobs[i];
}

/* sim_init.c: the state for snapshot s at s->now, with *as in place of
 * s->jobs[as_idx] unless as is NULL (borrowed while S lives), its
 * predictions in *out (released first by the caller); sim_release frees
 * it. */
void sim_init(struct sim *S, const struct snapshot *s, const struct job *as, size_t as_idx,
	      struct prediction_set *out);
void sim_release(struct sim *S);

/* sim.c */
/* Moves ready jobs to higher aging steps as t passes their boundaries. */
void sim_migrate(struct sim *S, int64_t t);
/* The next event time after the last one, INT64_MAX when none. */
int64_t sim_next_time(const struct sim *S);
/* Starts pending job p at t on r's allocation. */
void sim_start_job(struct sim *S, uint32_t p, int64_t t, const struct place_result *r, bool permit);
/* The walk of the order at t: starts what fits, backfill included. */
void sim_walk(struct sim *S, int64_t t);
/* Job jidx (snapshot index) ends at t. */
void sim_on_end(struct sim *S, uint32_t jidx, int64_t t);
/* A timed event at t: a release or a window end. */
void sim_on_event(struct sim *S, const struct tentry *e, int64_t t);

/* sim_permit.c */
/* Starts the permit holders that fit the GPUs free after the walk at t. */
void sim_permits(struct sim *S, int64_t t);
/* The first time in (t, before) at which a job earns a permit that would
 * let it start on the GPUs free after t, else `before`. */
int64_t sim_permit_wake(struct sim *S, int64_t t, int64_t before);

#endif
