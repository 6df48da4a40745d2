/*
 * stats.h - the metrics of DESIGN §6, computed from the event stream and
 * the jobs it is about.
 *
 * Input: the events (struct event, in seq order) and a snapshot whose jobs
 * (sorted by id) give each job's queue, tier (job_tier: after downgrades and
 * overrides), department, submit time and GPU count (req.gpus), and whose
 * nodes give the capacity. Events about jobs absent from the snapshot are
 * ignored. The events of a job should begin with its submission (an event
 * whose `to` is pending); when they begin later, the job's state before its
 * first event is that event's `from`, since the job's queued_time (pending)
 * or start_time (holding GPUs).
 *
 * How events are read:
 *   - a job's state is the `to` of its latest event; an event whose `to`
 *     equals the current state changes nothing;
 *   - a wait is one continuous pending stretch: from entering pending
 *     (submission or requeue) to leaving it;
 *   - a start is leaving pending for starting or running;
 *   - a preemption is an event of kind "preempt" entering stopping (the
 *     victim was signalled), at the signal time; other ways into stopping
 *     (cancel, requeue, time limit) are not preemptions; its work lost is GPUs x max(0, signal -
 * max(run start, last checkpoint)), with the checkpoints (events of kind "checkpoint") reported
 * until the job left stopping, so a job that saves during its grace period lost nothing;
 *   - events of kind "would-preempt" are preemptions observe mode only
 *     recorded;
 *   - a cancellation is entering cancelled;
 *   - an event of kind "gone" (gq serve --slurm: the job left the cluster's
 *     queue, its end unseen) ends its wait or its use of GPUs at its time,
 *     without a start, a cancellation or a final state counted.
 *
 * The window [from, to): a metric counts what happened in it. Waits that
 * ended with a start in the window make the percentiles; the longest wait
 * and the jobs over their tier's limit also look at waits that ended
 * otherwise (cancelled while pending) and at those still open at `to`
 * (measured until `to`); GPU time is clipped to the window. Events at or
 * after `to` are not read.
 *
 * Percentiles are nearest-rank: Pp of n sorted waits is the
 * ceil(p / 100 x n)-th smallest (P50 of {1,2,3,4} is 2, P95 is 4); 0 when n
 * is 0.
 *
 * An overtake: job B, submitted after job A (later submit time; equal times:
 * higher id), starts while A is pending, and B's tier is not above A's (a
 * higher tier passing is the policy at work, not an overtake). Each such
 * (A, B) counts once per start of B, for A's group.
 *
 * Pure and deterministic: groups are sorted by queue name then tier, the
 * totals (queue "*") last; departments by name.
 */
#ifndef GQ_STATS_H
#define GQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "job.h"

struct stats_group {
	char queue[GQ_NAME_MAX]; /* "*": every queue */
	enum tier tier;
	int starts; /* waits that ended with a start in the window */
	int64_t p50_wait, p95_wait;
	int64_t wait_sum;     /* of those waits, seconds (GET /metrics' _sum; not in the JSON) */
	int64_t longest_wait; /* longest continuous pending stretch, seconds */
	int64_t longest_job;  /* whose it was (0 when none) */
	int over_limit;	      /* jobs that waited longer than their tier's wait limit */
	int overtaken;	      /* overtakes suffered by the group's jobs */
	int preemptions;
	int would_preempt; /* observed only */
	double work_lost;  /* GPU-seconds */
	int cancelled;
};

struct stats_dept {
	char dept[GQ_NAME_MAX];
	double gpu_hours; /* GPU-hours held in the window */
	double charged;	  /* sum of GPU-hours x the job's tier price */
};

struct stats {
	int64_t from, to;
	size_t ngroups;
	struct stats_group *groups; /* owned */
	size_t ndepts;
	struct stats_dept *depts; /* owned */
	int gpus;		  /* capacity: GPUs on nodes that are up */
	double gpu_seconds;	  /* held by jobs in the window */
	double utilisation;	  /* gpu_seconds / (gpus x (to - from)), 0..1 */
};

/* Computes the metrics of window [from, to) into *out (which the caller
 * releases with stats_release). ev must be in strictly increasing seq
 * order. Fails with GQ_EINVAL when to <= from or the events are out of
 * order; *out is then untouched. */
int stats_compute(const struct snapshot *s, const struct event *ev, size_t nev, int64_t from,
		  int64_t to, struct stats *out, struct gq_err *e);

/* Frees the arrays; accepts a zeroed struct. */
void stats_release(struct stats *st);

/* One job as an accounting database keeps it (Slurm's slurmdbd, sacct):
 * no events, only its times and its state now. */
struct stats_acct {
	int64_t id;
	char user[32], queue[32], dept[32]; /* partition, account */
	enum tier tier;			    /* its QOS, mapped */
	int gpus;			    /* allocated, else requested */
	int64_t submit;			    /* > 0 */
	int64_t start;			    /* 0: not started */
	int64_t end;			    /* 0: not ended */
	enum job_state state;		    /* now */
	bool preempted;			    /* ended by a preemption */
};

/*
 * Turns accounting records into what stats_compute reads: a job appended
 * to s per record (queue, tier, dept, submit time, GPUs; s's nodes and
 * policy are the caller's) and the events of its life, in time order with
 * seq from 1: submitted (pending), started (pending to running) and ended
 * (running, or pending when it never started, to its final state; a
 * preemption as a "preempt" event into stopping at its end). Records
 * without a submit time are skipped. *ev is the caller's to free. What
 * such records cannot give (overtakes as they happened, observe-mode
 * preemptions, checkpoints and so work lost, gq's wait limits) the caller
 * reports as not recorded.
 */
void stats_acct_events(const struct stats_acct *r, size_t n, struct snapshot *s, struct event **ev,
		       size_t *nev);

/* Nearest-rank percentile (0 < p <= 100) of v[0..n), which it sorts in
 * place; 0 when n is 0. */
int64_t stats_percentile(int64_t *v, size_t n, double p);

#endif
