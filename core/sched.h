/*
 * sched.h - what gq serve does now: the scheduling plan for one snapshot.
 *
 * sched_plan() turns a snapshot into a list of actions for the server to
 * carry out: job starts with their allocations, then what preemption and
 * permits (preempt.h) and reminders and downgrades (downgrade.h) add
 * through plan_add(). The starts are consistent with the prediction by
 * construction: both run the same simulation (predict.h), and the jobs the
 * plan starts in the order's name are exactly the jobs predicted to start
 * at snapshot.now. Starts with reason "permit" come on top: a starvation
 * permit takes a free GPU ahead of its turn, which the prediction (of the
 * order, not of permits) does not foresee.
 *
 * This file decides; it does not act (no processes, no journal) and does
 * not explain (reason.h).
 */
#ifndef GQ_SCHED_H
#define GQ_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "plan.h"

/*
 * The plan for snapshot s at s->now: appends to *out (which must be
 * initialised) one PLAN_START per job to start now, in scheduling order,
 * then the actions of preemption, permits, reminders and downgrades, and
 * sets out->now and out->wake. s must be sorted (snapshot_sort). Never
 * fails; a snapshot with nothing to do gives an empty plan. Costs one
 * simulation step (predict_until(s, s->now)): see bench/predict.c. Jobs
 * submitted within CALIB_MIN_WAIT get their predicted start recorded
 * (out->preds, calib.h) by the whole prediction (predict_all), made once
 * SCHED_RECORD_BATCH of them wait for it or the oldest was submitted
 * SCHED_RECORD_DELAY ago (out->wake is then at the latest); a job first
 * seen later, or with nothing to predict, is recorded as -1.
 */
#define SCHED_RECORD_BATCH 64
#define SCHED_RECORD_DELAY 1
void sched_plan(const struct snapshot *s, struct plan *out);

/*
 * What the plan and every prediction of s are made from beyond the
 * recorded jobs: the runtime history of its finished jobs
 * (predict_fill_history()) and the calibration of its ranges
 * (predict_fill_calib()). gq serve calls it on the copy it plans on and
 * on every snapshot it serves, so that a client predicting on the
 * snapshot it was sent (predict_all()) puts at now exactly the jobs
 * sched_plan() starts. It also marks the work over its department's
 * quota (snapshot_mark_over_quota), which a client's snapshot decoder
 * marks again from the same usage. Keeps the order of s's jobs;
 * O(n log n).
 */
void sched_prepare(struct snapshot *s);

#endif
