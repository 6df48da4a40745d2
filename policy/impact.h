/*
 * impact.h - what putting a candidate policy in force would do to the live
 * queue, for `gq policy check` and `gq policy diff`: which pending jobs
 * change position in the scheduling order (and their weights), which
 * predicted start times move, and which running jobs become preemptible or
 * stop being so.
 *
 * Both sides are computed by the core on the same snapshot at the same
 * "now": once under the snapshot's policy (the one in force), once under
 * the candidate. Pure: no I/O; the caller fetches the snapshot.
 */
#ifndef GQ_POLICY_IMPACT_H
#define GQ_POLICY_IMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"

struct impact_move {
	int64_t job;
	enum tier tier;
	int old_pos, new_pos; /* 1-based positions among pending jobs */
	double old_weight, new_weight;
};

struct impact_eta {
	int64_t job;
	int64_t old_start, new_start; /* predicted start; 0 when none is predicted */
};

struct impact_preempt {
	int64_t job;
	bool preemptible; /* under the candidate; the opposite under the policy in force */
};

/* Owns its arrays. Moves in new-position order, ETAs and preemptibility
 * changes by job id. */
struct impact {
	size_t npending, nrunning;
	struct impact_move *moves;
	size_t nmoves;
	struct impact_eta *etas;
	size_t netas;
	struct impact_preempt *preempts;
	size_t npreempts;
};

/*
 * Fills *out (overwritten; release with impact_release) with the effect of
 * replacing s->policy by cand. s must be sorted (snapshot_sort); its
 * per-queue and per-department state is carried over to cand's queues and
 * departments by name (new ones start from zero).
 */
void impact_compute(const struct snapshot *s, const struct policy *cand, struct impact *out);
void impact_release(struct impact *im);

/*
 * Could running job j be taken as a preemption victim under s's policy at
 * s->now, by some trigger of a higher tier (or, for a P0, a starvation
 * permit)? The rules of preempt.h that do not depend on the trigger:
 * checkpoint evidence, protection, cooldown, the queue's budget, and the
 * rollout mode (observe takes no victims, trial only in its queues).
 */
bool impact_preemptible(const struct snapshot *s, const struct job *j);

#endif
