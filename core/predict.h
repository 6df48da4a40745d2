/*
 * predict.h - start-time prediction by queue traversal (DESIGN §5), for
 * every pending job in one pass.
 *
 * The simulation starts from the snapshot at `now` and moves forward from
 * event to event:
 *
 *   - A job holding GPUs frees them at its expected end (predict_end()):
 *     start + expected runtime; once that has passed, its time limit, else
 *     start + twice what it has run; never before now + 1.
 *     Expected runtime: the user's estimate, else hist_runtime, else
 *     time_limit × hist_ratio when both are known, else time_limit, else
 *     predict.defaultRuntime; never beyond the time limit. A stopping job
 *     frees them at its stop deadline at the latest.
 *   - At every event time t the pending jobs are taken in the policy order
 *     at t (order.h), aging during the simulated wait included, and each is
 *     placed (place.h) when it fits. On an ORDER_BACKEND snapshot that
 *     order is the backend's priority across tiers (Slurm's, as squeue
 *     and sprio give it), so positions are the backend's. Jobs that cannot run yet are not in
 *     the order: held jobs, jobs whose dependencies have not ended (a
 *     dependent job cannot start before its dependency's predicted end),
 *     jobs in cooldown until not_before, jobs of a paused queue until the
 *     window ends, and jobs whose queue is at its quota (queue + borrowing
 *     limit) until one of its jobs ends; inside a queue at its limit jobs
 *     start in order.
 *   - Backfill never delays a job ahead (conservative backfilling, with
 *     EASY's use of the gaps): once a job ahead is blocked, a job behind
 *     it starts at t when it fits and its expected end is no later than
 *     the earliest start of every blocked job ahead of it. That earliest
 *     start is a lower bound from the counts of GPUs that the running jobs
 *     free, in end order, never before the next end. A job ahead that
 *     waits because it would outlast such a bound is blocked too: its
 *     earliest start is that lower bound when it is short of GPUs by count
 *     (more than are free, or it would leave less than the headroom),
 *     however long it runs, and otherwise the next event (a reservation
 *     may move then). The lower bounds make the rule safe: a backfilled
 *     job is always gone before a job ahead could have used its GPUs.
 *     A job with neither an estimate nor a time limit (predict_bounded())
 *     is never backfilled: what it is expected to run (history,
 *     predict.defaultRuntime) bounds nothing, so it starts only where no
 *     job ahead of it is blocked. A queue's defaultTime gives the jobs
 *     submitted to it without a limit one, which gq serve enforces.
 *     Reservations protect the jobs that wait for capacity (resources,
 *     mismatch, headroom); a job held back by its queue's quota or window,
 *     a cooldown or a dependency holds none. At most
 *     PREDICT_BACKFILL_DEPTH blocked jobs are looked past at one time (as
 *     Slurm's bf_max_job_test); deeper jobs wait for a later event, which
 *     can only make a prediction later.
 *   - Starvation permits, the free-GPU part (preempt.h): after the walk at
 *     t, as sched_plan() does after its starts, every job that has earned
 *     its permit by t (permit_has(): job_aging_base plus its tier's
 *     waitLimit) and may start then (not held, its
 *     dependencies ended, its cooldown over) is taken in the order at t
 *     and starts if it fits the free GPUs (the same count check and
 *     place_check as the plan: quotas, windows and headroom are not
 *     lifted), ahead of its turn and whatever reservation a blocked job
 *     holds. Such a start has `permit` set; its gate is GATE_PERMIT when
 *     the earn time came after the GPUs it takes were freed. The
 *     simulation wakes at an earn time only when the job earning its
 *     permit would fit the GPUs free then; otherwise it is started, if at
 *     all, at a later event. At now these are the plan's permit starts,
 *     which sched_plan() leaves to preempt_add_to_plan().
 *
 * Each prediction has a start, a range [low, high] (low: every job runs
 * only as long as the shortest of its estimate, history and
 * limit × ratio; high: every job runs to its time limit), and the jobs whose
 * ends it waits for: the jobs that held its GPUs before it (running now or
 * predicted to run first), and its dependencies. A job that can never
 * start under this snapshot has `never` set and a cause, and no times.
 *
 * Not simulated: the month boundary of department GPU-hour quotas (a
 * department at its quota with gpuHoursAction stop never starts anything
 * in the prediction; with preemptible its jobs are ordered below P2,
 * job_order_tier, and start when no job within its quota needs the
 * GPUs),
 * preemption (victims, preemption by starvation permits, the
 * checkpoint-preemption of a queue's running jobs when its window starts:
 * running jobs run to their expected end), the downgrade of a P0 job
 * that waited too long (its tier stays), and the requeue of a stopping
 * job after its grace period. Aging steps beyond 1023 (a policy with a
 * tiny aging.step) are not told apart. CPUs and memory (place.h) decide
 * whether a job fits; a reservation's lower bound counts GPUs, which stays
 * a lower bound (CPUs and memory also come back only at an end), so
 * backfill delays no job that waits for them. A prediction's waits name
 * the jobs whose GPUs it takes, not those whose CPUs or memory it waits for.
 *
 * Cost: O(n log n) for n jobs, plus a bounded look-ahead per event and
 * O(log n) per permit holder looked at (holders wait in heaps by tier and
 * GPU count); see bench/predict.c. Pure and deterministic: the same snapshot gives the
 * same predictions, whatever the order of its arrays before snapshot_sort.
 */
#ifndef GQ_PREDICT_H
#define GQ_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "runtime.h" /* predict_runtime(), predict_end(), history */

#define PREDICT_MAX_WAITS 8	  /* job ids kept per prediction */
#define PREDICT_BACKFILL_DEPTH 64 /* blocked jobs looked past per event */

/* Why a job can never start under this snapshot. */
enum predict_never {
	NEVER_NO,	     /* it can start */
	NEVER_HELD,	     /* held: starts only when released */
	NEVER_DEP_FAILED,    /* a dependency failed, was cancelled or timed out */
	NEVER_DEP_NEVER,     /* a dependency itself never starts */
	NEVER_UNSATISFIABLE, /* no node set could ever fit it (place_satisfiable) */
	NEVER_DEPT_QUOTA,    /* its department used its monthly GPU-hours (stop) */
	NEVER_CAPACITY,	     /* fits on paper, but not on the nodes that are up */
	NEVER_LIMIT,	     /* the backend holds it by a limit no running job's end lifts */
	NEVER_COUNT
};
/* Stable tokens: "", "held", "dependency_failed", "dependency_never",
 * "unsatisfiable", "dept_quota", "capacity", "limit". */
const char *predict_never_name(enum predict_never n);

/* What finally set the start time. */
enum predict_gate {
	GATE_NOW,	  /* starts at now */
	GATE_ENDS,	  /* GPUs freed by the jobs in waits[] */
	GATE_DEPENDENCY,  /* a dependency's predicted end */
	GATE_COOLDOWN,	  /* not_before */
	GATE_WINDOW,	  /* its queue's window ends */
	GATE_QUOTA,	  /* a job of its queue ends, making room under the quota */
	GATE_USER,	  /* a job of its user ends, making room under a user limit */
	GATE_PERMIT,	  /* it earns its starvation permit, on GPUs free by then */
	GATE_BEGIN,	  /* begin_time, the start the user deferred it to (--begin) */
	GATE_RESERVATION, /* a backend's reservation ends, or its own begins (resv.h) */
	GATE_COUNT
};
/* "now", "ends", "dependency", "cooldown", "window", "quota", "permit",
 * "begin". */
const char *predict_gate_name(enum predict_gate g);

struct prediction {
	int64_t job;  /* job id */
	size_t idx;   /* index in snapshot.jobs */
	int position; /* 1-based place in the order at now */
	enum predict_never never;
	bool placed;	   /* a start was found: start, low, high, end, alloc are valid */
	int64_t start;	   /* predicted start, >= now; 0 when not placed */
	int64_t low, high; /* range of the start: low <= start <= high */
	int64_t end;	   /* start + expected runtime */
	int64_t runtime;   /* expected runtime used */
	enum predict_gate gate;
	bool backfilled; /* starts while a job ahead of it is still blocked */
	bool permit;	 /* starts by its starvation permit, ahead of its turn (see above) */
	int nwaits;	 /* job ids in waits[], ascending; at most PREDICT_MAX_WAITS */
	int nwaits_all;	 /* how many there were before the cut */
	int64_t waits[PREDICT_MAX_WAITS];
	/* The simulated allocation (the real one when start == now): nalloc
	 * entries at alloc, which points into the set's pool (NULL when 0). */
	bool borrowed;
	int nalloc;
	const struct job_alloc *alloc;
};

/*
 * A prediction set owns its arrays. items are the pending jobs in the
 * order at now (position 1 first). of_job[i] is the index in items of
 * snapshot.jobs[i], -1 for jobs that are not pending. ends[i] is the
 * expected end of snapshot.jobs[i] when it holds GPUs at now, else 0.
 * allocs is the pool the predictions' alloc pointers point into.
 * The set refers to the snapshot by index: it stays meaningful while the
 * snapshot's job array is unchanged.
 */
struct prediction_set {
	int64_t now;
	/* The earliest time after now at which the plan may change without
	 * an event (a cooldown ends, a queue's window opens or closes); 0
	 * none. */
	int64_t wake;
	/* At now, once a job is blocked: a job behind it that fits starts in
	 * the gap only if it ends by this time; 0 when nothing is blocked at
	 * now (a conservative bound: the smallest of the walk at now). */
	int64_t backfill_until;
	int nfree; /* free GPUs on nodes that are up, at now (before its starts) */
	size_t n;
	struct prediction *items;
	size_t njobs;
	int32_t *of_job;
	int64_t *ends;
	struct job_alloc *allocs;
};

/* Does anything bound how long j runs (an estimate or a time limit)? Only
 * such a job is backfilled (see above). */
static inline bool predict_bounded(const struct job *j)
{
	return j->estimate > 0 || j->time_limit > 0;
}

/* Empty set; allocates nothing. */
void prediction_set_init(struct prediction_set *ps);
/* Frees the arrays; ps is then as after prediction_set_init. */
void prediction_set_release(struct prediction_set *ps);
/* The prediction of job id, NULL when it is not pending in the snapshot the
 * set was computed from (which must still be that snapshot). Borrowed from
 * ps. */
const struct prediction *prediction_find(const struct prediction_set *ps, const struct snapshot *s,
					 int64_t id);

/*
 * Predicts every pending job of s (which must be sorted: snapshot_sort)
 * into *out, which must be initialised; previous contents are released.
 * Never fails. O(n log n) plus bounded work per simulated event.
 */
void predict_all(const struct snapshot *s, struct prediction_set *out);

/*
 * The same simulation, stopped after time `until`: jobs not started by then
 * are not placed, and never is set only for the causes known at now
 * (held, dependency failed, unsatisfiable, department quota). predict_until(s, s->now,
 * out) is what sched_plan() uses; predictions with start == now are
 * identical to predict_all's.
 */
void predict_until(const struct snapshot *s, int64_t until, struct prediction_set *out);

/*
 * The same simulation for one question, "when does snapshot job idx
 * start?": it stops once that job is placed, or after time `until`, as
 * predict_until. The prediction of job idx is predict_until's; the other
 * jobs' are cut short (not placed, never only for causes known at now).
 * as: NULL, or the job simulated in place of s->jobs[idx] (borrowed for
 * the call), with no copy of s: what a counterfactual (hint.h) runs.
 */
void predict_job(const struct snapshot *s, size_t idx, const struct job *as, int64_t until,
		 struct prediction_set *out);

#endif
