/*
 * share.h - fair share: usage that decays exponentially with a half-life,
 * per queue and per department, and the usage / share ratio that breaks
 * ties between jobs of equal weight (DESIGN §3).
 *
 * Usage is in GPU-seconds. A GPU-second used at time t counts
 * 2^-((now - t) / half_life) at time now: the decay is exact (continuous),
 * not stepped, so the order of two queues never depends on when the server
 * happened to update them. Usage "as of" a time is the decayed sum of
 * everything used up to that time.
 *
 * This file does not keep state: the server holds struct queue_state.usage
 * and advances it with share_advance(); the order (core/order) reads the
 * ratio through share_queue_ratio(). All functions are pure.
 */
#ifndef GQ_SHARE_H
#define GQ_SHARE_H

#include <stdint.h>

#include "job.h"

/* usage (as of some time) seen dt seconds later: usage x 2^(-dt / half_life).
 * dt <= 0 returns usage unchanged; half_life <= 0 means no memory at all
 * (returns 0 for dt > 0). A usage that is negative or not finite (a damaged
 * journal) counts as 0: the result is always finite and >= 0. */
double share_decay(double usage, int64_t dt, int64_t half_life);

/* The usage, as of `now`, of `gpus` GPUs held over [from, to]: the integral
 * of gpus x 2^(-(now - t) / half_life) dt over the interval. The part after
 * `now` is left out (it has not happened as of now). Zero when the interval
 * is empty or gpus is not a positive number. Always finite. For a half_life
 * much longer than the interval it tends to gpus x (to - from). */
double share_interval(double gpus, int64_t from, int64_t to, int64_t now, int64_t half_life);

/* Advances every queue's usage in s->qstate from time `prev` to s->now:
 * decays it by (s->now - prev) and adds, for every job holding GPUs in s
 * (job_state_holds_gpus) its held GPUs over [max(prev, start_time), now].
 * The caller calls it once per tick with the previous tick's time; jobs
 * that finished between the ticks are added by the caller with
 * share_charge() before their state is dropped. Jobs in queues the policy
 * does not know are ignored. prev >= s->now changes nothing. */
void share_advance(struct snapshot *s, int64_t prev);

/* Adds the usage of one job that held `gpus` GPUs over [from, to] to its
 * queue's usage (as of s->now). Unknown queue: nothing. */
void share_charge(struct snapshot *s, const char *queue, double gpus, int64_t from, int64_t to);

/* usage / share of queue index qi (policy.queues[qi].share; a share <= 0
 * counts as the smallest positive share so the ratio stays finite).
 * Lower ratio = used less than its share = goes first on ties. 0 for an
 * index out of range. */
double share_queue_ratio(const struct snapshot *s, int qi);

/* A department's decayed usage: the sum of its queues' usage; and its
 * ratio: that sum over the sum of its queues' shares. -1 index: 0. */
double share_dept_usage(const struct snapshot *s, int di);
double share_dept_ratio(const struct snapshot *s, int di);

#endif
