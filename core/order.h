/*
 * order.h - priority and the total order of pending jobs (DESIGN §3).
 *
 * A job's weight is base × (1 + c): base is its tier's (the override's tier
 * when one is set), c grows by aging.step for every full aging.interval
 * waited while eligible (job_eligible_since: not while held or before its
 * --begin; since its release, begin or requeue), up to aging.cap. Pending jobs are ordered by
 *
 *   0. a claim first: a job for which running work was preempted, while
 *      it waits for the GPUs freed for it (job.claim_time,
 *      job_order_rank), so that no other job takes them;
 *   1. tier, P0 first (aging never crosses tiers), and below P2 the work
 *      over its department's monthly GPU-hours (job_order_tier: it
 *      weighs as P2 but goes after every job within its quota),
 *   2. weight, highest first,
 *   3. fair share: the queue's decayed usage (snapshot qstate[].usage) divided
 *      by its policy share weight, lowest first,
 *   4. submit time, earliest first,
 *   5. job id, lowest first,
 *
 * a total order: the same snapshot always gives the same sequence. On a
 * snapshot whose order is ORDER_BACKEND (Slurm) the order is the backend's
 * priority (job.ext_prio, highest first), then submit time and id: tiers
 * and aging do not enter it. `gq ls`,
 * `gq why`, the prediction and gq serve all use order_pending().
 *
 * This file does not decide whether a job fits (place.h) or explain why it
 * waits (reason.h); it only ranks.
 */
#ifndef GQ_ORDER_H
#define GQ_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

/* Number of aging steps after which c is capped: the smallest k with
 * k × aging.step >= aging.cap (0 when either is 0). */
int order_aging_steps(const struct policy *p);

/* c after k full intervals: min(cap, k × step). */
double order_aging_c(const struct policy *p, int64_t k);

/* Full aging intervals in `waited` seconds (0 for waited <= 0). */
int64_t order_aging_k(const struct policy *p, int64_t waited);

/* c of job j at time `now` (0 .. aging.cap). */
double order_c(const struct policy *p, const struct job *j, int64_t now);

/* The weight of job j at time `now`: tier base × (1 + c), with
 * waited = now - job_eligible_since(j, now) (0 when the job is not
 * eligible, or queued_time is unset or later). */
double order_weight(const struct policy *p, const struct job *j, int64_t now);

/* When the weight of j next rises, and to what. Returns true and writes
 * *at and *weight when it still rises (c below the cap); false when c is
 * capped, aging is off or the job is held (outputs then untouched); a job
 * whose --begin is ahead first rises an interval after it. For "rises to 34.5 at
 * 14:30". */
bool order_next_rise(const struct policy *p, const struct job *j, int64_t now, int64_t *at,
		     double *weight);

/* Fair-share key of j's queue: qstate[qi].usage / queues[qi].share; 0 for a
 * queue the policy does not know. Lower goes first. */
double order_fair_share(const struct snapshot *s, const struct job *j);

/* Compares two jobs at time now in the total order above: <0 when a goes
 * first, >0 when b does, 0 only when a and b are the same job id. */
int order_cmp(const struct snapshot *s, const struct job *a, const struct job *b, int64_t now);

/*
 * The pending jobs of s (state JOB_PENDING) in the total order at time s->now.
 * Writes their indices into s->jobs to out[0..n) and returns n; out must
 * have room for s->njobs entries. O(n log n); allocates a scratch array
 * that it frees before returning. s must be sorted (snapshot_sort).
 */
size_t order_pending(const struct snapshot *s, size_t *out);

/*
 * The static part of the order: fair share, submit time, id. Writes to
 * rank[i] (for every i in idx[0..n)) the position of s->jobs[idx[i]] among
 * those n jobs in that order, 0 first. The prediction uses it to compare
 * jobs of one tier and one aging step by a single integer.
 */
void order_rank_static(const struct snapshot *s, const size_t *idx, size_t n, uint32_t *rank);

/* The same from keys gathered by the caller (order_fair_share(),
 * submit_time, id): rank[i] is the position of keys[i]. keys[].i must be
 * 0..n-1 on entry; the array is sorted in place. */
struct order_key {
	double fs;
	int64_t submit;
	int64_t id;
	size_t i;
};
void order_rank_keys(struct order_key *keys, size_t n, uint32_t *rank);

/* Fair share of j's queue, with a small cache of the last queue names
 * looked up (a lookup is a string search over the policy): for loops over
 * many jobs. Initialise the cache with ORDER_FS_CACHE_INIT. On an
 * ORDER_BACKEND snapshot it is -ext_prio instead, so that the static rank
 * of the prediction (order_rank_keys) is the backend's priority order,
 * which the prediction follows across tiers as order_pending does. */
#define ORDER_FS_CACHE 8
struct order_fs_cache {
	char queue[ORDER_FS_CACHE][GQ_NAME_MAX];
	double fs[ORDER_FS_CACHE];
	int n, next;
};
#define ORDER_FS_CACHE_INIT                                                                        \
	{                                                                                          \
		.n = 0                                                                             \
	}
double order_fair_share_cached(const struct snapshot *s, const struct job *j,
			       struct order_fs_cache *c);

#endif
