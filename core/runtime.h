/*
 * runtime.h - how long a job is expected to run, and the history that
 * feeds the estimate (DESIGN §5). The rules are in predict.h's head
 * comment: expected runtime is the user's estimate, else hist_runtime,
 * else time_limit x hist_ratio, else time_limit, else
 * predict.defaultRuntime, never beyond the time limit; low and high bound
 * it. Every time is capped at PREDICT_MAX_RUNTIME so that no sum of times
 * can overflow, whatever a snapshot holds.
 */
#ifndef GQ_RUNTIME_H
#define GQ_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

#define PREDICT_MAX_RUNTIME ((int64_t)100 * 366 * 86400)

/* Expected runtime of j (seconds, >= 1) and its low and high bounds, as
 * described above. */
int64_t predict_runtime(const struct policy *p, const struct job *j);
int64_t predict_runtime_low(const struct policy *p, const struct job *j);
int64_t predict_runtime_high(const struct policy *p, const struct job *j);

/* Expected end of a job holding GPUs at now (>= now + 1): start + expected
 * runtime; for an overdue job (that end has passed) a fresh expectation:
 * its time limit when that is still ahead, else start + twice the time it
 * has run (runtimes are heavy-tailed: as likely as not to run as long
 * again); a stopping job's stop deadline at the latest. */
int64_t predict_end(const struct policy *p, const struct job *j, int64_t now);
/* The end first expected of a job holding GPUs: start + expected runtime,
 * whether or not it has passed. */
int64_t predict_first_end(const struct policy *p, const struct job *j, int64_t now);
/* j holds GPUs (not stopping) and has run past its first expected end. */
bool predict_overdue(const struct policy *p, const struct job *j, int64_t now);

/*
 * History helpers for whoever fills job.hist_runtime and job.hist_ratio
 * from finished jobs. predict_hist_runtime: the P50 (nearest rank: the
 * ceil(n/2)-th smallest) of the positive runtimes among runtimes[0..n), 0
 * when there are none. predict_hist_ratio: the P50 of runtime / limit over
 * the pairs with both positive, capped at 1, 0 when none. Neither keeps a
 * pointer; each allocates a scratch copy it frees.
 */
int64_t predict_hist_runtime(const int64_t *runtimes, size_t n);
double predict_hist_ratio(const int64_t *runtimes, const int64_t *limits, size_t n);

/*
 * Fills hist_runtime and hist_ratio of every pending or running job of s
 * from the finished jobs s holds: hist_runtime is, over the same user's
 * completed jobs of the same name, the smaller of the mean of the last two
 * (by end time; Tsafrir, Etsion and Feitelson 2007) and the P50; without
 * such jobs the mean of that user's last two completed jobs of any name.
 * hist_ratio is the P50 of
 * runtime / time limit over that user's completed jobs that had a limit
 * (both 0 without such jobs). Only jobs that completed count: a failed or
 * cancelled run says little about how long the work takes. Overwrites the
 * fields, so that calling it on every new snapshot keeps them current.
 * O(n log n); allocates scratch arrays it frees. s need not be sorted.
 */
void predict_fill_history(struct snapshot *s);

/*
 * The same history kept incrementally, for a caller that sees jobs finish
 * one by one (gq sim's replay) and cannot afford predict_fill_history over
 * every finished job at every step. rt_hist_add takes a finished job (only
 * a completed one with a positive runtime counts, as above; it copies what
 * it needs), rt_hist_fill sets j's hist_runtime and hist_ratio from what was
 * added, exactly as predict_fill_history would from a snapshot holding the
 * same finished jobs. predict_fill_history is rt_hist_add of every finished
 * job of s (by end time) and rt_hist_fill of every active one.
 */
struct rt_hist_group;
struct rt_hist {
	struct rt_hist_group **byname, **byuser; /* sorted by user (and name) */
	size_t nbyname, nbyuser, capbyname, capbyuser;
};
void rt_hist_init(struct rt_hist *h);
void rt_hist_release(struct rt_hist *h);
void rt_hist_add(struct rt_hist *h, const struct job *j);
void rt_hist_fill(const struct rt_hist *h, struct job *j);

/* Expected end of job j holding GPUs at now had it an expected runtime of
 * rt: predict_end() is predict_end_rt(j, predict_runtime(p, j), now). */
int64_t predict_end_rt(const struct job *j, int64_t rt, int64_t now);

#endif
