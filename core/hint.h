/*
 * hint.h - what would make one pending job start sooner (DESIGN §4),
 * proven rather than guessed.
 *
 * Each hint is a counterfactual: a change to the job (fewer GPUs, any
 * kind of GPU, another GPU model, no same-node, a shorter estimate or
 * time limit, no dependency, another queue, another tier its owner may
 * use, a release) applied to a copy of
 * the job, and the same prediction run again with it in the job's place (predict.h: the
 * planner's simulation). A hint is kept only when the job's predicted
 * start under the change is at least HINT_MIN_GAIN earlier than without it
 * (or when it never starts without it and does with it). Nothing here
 * words the hint: explain/ does.
 *
 * Bounded: the candidates come from the job's reasons (core/reason.h), at
 * most HINT_MAX_EVAL of them, one of each kind first (then a second
 * GPU count, queue, tier or GPU model), each one predict_job() that stops once the
 * job is placed or once it could no longer start sooner. For one job at a
 * time (gq why, the dashboard's selected job), never for every row.
 */
#ifndef GQ_HINT_H
#define GQ_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "predict.h"
#include "reason.h"

/*
 * The changes, X(ENUM, token); value and arg of a hint_item per change:
 *   release           the hold is lifted (gq release)
 *   fewer_gpus        value = the GPU count asked for instead
 *   any_gpu_type      the GPU type and GPU memory asked for are dropped
 *   gpu_type          arg = another GPU model of the cluster, asked for
 *                     instead (offered to a job that names a model)
 *   spread            same-node is dropped
 *   shorter_estimate  value = the estimate, in seconds
 *   shorter_time_limit value = the time limit, in seconds: for a job
 *                     without an estimate or a runtime history, whose
 *                     expected run is its time limit's (predict.h)
 *   bound             value = seconds: an estimate for a job that has
 *                     neither an estimate nor a time limit (predict.h:
 *                     only such a bound lets it be backfilled)
 *   no_dependency     its dependencies are dropped
 *   queue             arg = the other queue (and its department charged)
 *   promote           value = the tier (P0 = 0), one its owner may use
 * The tokens are stable (--json).
 */
#define HINT_LIST(X)                                                                               \
	X(RELEASE, "release")                                                                      \
	X(FEWER_GPUS, "fewer_gpus")                                                                \
	X(ANY_GPU_TYPE, "any_gpu_type")                                                            \
	X(GPU_TYPE, "gpu_type")                                                                    \
	X(SPREAD, "spread")                                                                        \
	X(SHORTER_ESTIMATE, "shorter_estimate")                                                    \
	X(SHORTER_TIME_LIMIT, "shorter_time_limit")                                                \
	X(BOUND, "bound")                                                                          \
	X(NO_DEPENDENCY, "no_dependency")                                                          \
	X(QUEUE, "queue")                                                                          \
	X(PROMOTE, "promote")

/* clang-format off */
enum hint {
#define X(e, tok) HINT_##e,
	HINT_LIST(X)
#undef X
	HINT_COUNT
};
/* clang-format on */
/* "release", ...; "?" when out of range. */
const char *hint_name(enum hint h);

#define HINT_MAX_EVAL 8	 /* counterfactual predictions per job, at most */
#define HINT_MAX 6	 /* hints kept, at most */
#define HINT_MIN_GAIN 60 /* seconds: a smaller gain is no reason to change */

struct hint_item {
	enum hint hint;
	int64_t value;
	char arg[GQ_NAME_MAX];
	int64_t start; /* the predicted start with the change (>= now) */
	/* How much sooner, in seconds (>= HINT_MIN_GAIN); 0 when the job
	 * never starts without the change. */
	int64_t gain;
};

/* The hints of one job, in the order of the list above (of one kind, in
 * the order they were tried). */
struct hint_set {
	int n;
	struct hint_item items[HINT_MAX];
	int evaluated; /* counterfactual predictions run */
};

/*
 * Applies h's change to job j (a copy's, not the snapshot's): what a
 * hint means, the one rule shared by the evaluation and its tests. p is
 * the snapshot's policy (a queue's department).
 */
void hint_apply(const struct policy *p, const struct hint_item *h, struct job *j);

/*
 * The hints of pending job w->job of s, whose predictions ps and reasons
 * w are (predict_all and reason_all on this same snapshot; borrowed for
 * the call). Fills *out; never fails. s is not changed: the changed job
 * is simulated in place of the job (predict_job's as). A job in state starting, or one
 * whose dependency can never end, gets none.
 */
void hint_job(const struct snapshot *s, const struct prediction_set *ps, const struct why *w,
	      struct hint_set *out);

#endif
