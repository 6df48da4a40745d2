/*
 * reason.h - why every pending job waits (DESIGN §4), as data.
 *
 * For each pending job: its primary reason (the first blocking constraint
 * in the fixed order below), every blocking constraint with its numbers,
 * its place in the queue, the jobs ahead of it, the jobs whose ends its
 * start waits for, and the condition under which it will be looked at
 * again. What would make it start sooner is hint.h's: a counterfactual
 * prediction per change, too costly for every job of a large queue. Everything is a stable token or
 * a number; turning it into sentences is the CLI's job, not core's.
 *
 * The fixed order, and why it is this one: first a person's decision (a
 * hold), then gates that open by themselves at a known event or time (a
 * dependency, a paused window, a post-preemption cooldown, the start its
 * owner deferred it to), then limits set
 * by policy (the queue's or department's quota, the GPUs one user may hold,
 * and requests no node set could ever hold), then the shape of free capacity (free but of the wrong
 * kind, free but reserved for P0), then contention (jobs ahead go first;
 * running jobs must end), and last "starting": nothing blocks it.
 *
 * Never-runnable cases are said in the data: a job held, a job whose
 * dependency failed, was cancelled or timed out, a job whose dependency can
 * itself never start, an unsatisfiable request, a department out of
 * monthly GPU-hours whose gpuHoursAction is stop (with preemptible its
 * work is not blocked: it runs on as the lowest tier, job.h's
 * over_quota): `never` is set and the re-evaluation kind says what
 * would change it (a release, a policy or node change, nothing).
 */
#ifndef GQ_REASON_H
#define GQ_REASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "predict.h"

/*
 * The reasons in their fixed order: X(ENUM, token, short text). The token
 * is stable (API, --json, events); the text is a default English gloss.
 * Numbers of a reason_item per reason:
 *   held           job = 0; who and when are the job's held_by / held_at
 *   dependency     job = the dependency; detail = its state ("pending",
 *                  "running", ...) ; until = its predicted end (0 unknown);
 *                  never when it failed, was cancelled or timed out, or
 *                  itself never starts (detail "never")
 *   window         until = when the queue's pause ends
 *   cooldown       until = not_before
 *   begin          until = begin_time (the user's --begin)
 *   reservation    until = when the backend's reservations let it start
 *                  (resv.h: its own begins, or one of every node ends)
 *   quota          detail "queue": need, used = GPUs the queue holds,
 *                  limit = quota + borrowing limit, quota = nominal quota;
 *                  detail "dept": used / limit = GPU-hours this month
 *                  (only with gpuHoursAction stop)
 *   user_limit     detail "queue" (queue.NAME.userMaxGpus) or "all"
 *                  (user.maxGpus): need, used = GPUs the job's user holds
 *                  (in its queue for "queue"), limit = the key's value
 *   throttle       job = the array's id; used = its tasks holding GPUs,
 *                  limit = its throttle ("%N" of --array)
 *   unsatisfiable  detail = place_unsat_name(); need, have = the most that
 *                  limit allows
 *   mismatch       need, have = free GPUs of the right type and memory
 *                  (same_node: most on one node), free = all free GPUs
 *   headroom       need, free, limit = the reserve kept for P0
 *   priority       have = jobs ahead (see why.ahead*)
 *   resources      need, free; detail "cpus", "mem" or "cpus+mem" when the GPUs
 *                  are free but no node it can use has its CPUs / memory free
 *   starting       nothing
 */
#define REASON_LIST(X)                                                                             \
	X(HELD, "held", "held by its owner or an admin")                                           \
	X(DEPENDENCY, "dependency", "waits for another job to finish")                             \
	X(WINDOW, "window", "its queue is paused in this time window")                             \
	X(COOLDOWN, "cooldown", "recently preempted, may start again later")                       \
	X(BEGIN, "begin", "deferred by its owner, may not start before its begin time")            \
	X(RESERVATION, "reservation", "a reservation keeps every node, or its own has not begun")  \
	X(QUOTA, "quota", "its queue or department is at its limit")                               \
	X(USER_LIMIT, "user_limit", "its owner runs as many GPUs as one user may")                 \
	X(THROTTLE, "throttle", "its array runs as many tasks at once as its throttle allows")     \
	X(UNSATISFIABLE, "unsatisfiable", "no set of nodes could ever fit the request")            \
	X(MISMATCH, "mismatch", "enough GPUs are free, but none that match")                       \
	X(HEADROOM, "headroom", "GPUs are free but held back for P0")                              \
	X(PRIORITY, "priority", "higher-weight jobs are ahead")                                    \
	X(RESOURCES, "resources", "not enough free GPUs, running jobs must end first")             \
	X(STARTING, "starting", "chosen, GPUs being assigned")

/* clang-format off */
enum reason {
#define X(e, tok, text) REASON_##e,
	REASON_LIST(X)
#undef X
	REASON_COUNT
};
/* clang-format on */
#define REASON_BIT(r) (1u << (r))

/* "held", ...; "?" when out of range. */
const char *reason_name(enum reason r);
/* The short text of the table above. */
const char *reason_text(enum reason r);
/* Token to reason; -1 when unknown. */
int reason_parse(const char *token, enum reason *out);

/* One blocking constraint; fields not listed for its reason are 0. */
struct reason_item {
	enum reason reason;
	char detail[16];
	int64_t job;
	int need, have, free;
	double used, limit;
	int quota;
	int64_t until;
	bool never;
};

/*
 * When the job will be looked at again, without anyone acting on it:
 *   release     when it is released (held)
 *   job_end     when job `job` ends, expected at `at`
 *   time        at `at` (a window ends, a cooldown ends)
 *   policy      when the policy or the nodes change (nothing else will)
 *   none        never: it cannot run (cancel it)
 *   now         it is being started
 */
#define REEVAL_LIST(X)                                                                             \
	X(RELEASE, "release")                                                                      \
	X(JOB_END, "job_end")                                                                      \
	X(TIME, "time")                                                                            \
	X(POLICY, "policy")                                                                        \
	X(NONE, "none")                                                                            \
	X(NOW, "now")
/* clang-format off */
enum reeval {
#define X(e, tok) REEVAL_##e,
	REEVAL_LIST(X)
#undef X
	REEVAL_COUNT
};
/* clang-format on */
const char *reeval_name(enum reeval r);

#define REASON_MAX_AHEAD 5

struct why_ahead {
	int64_t job;
	enum tier tier;
	double weight;
	bool claim; /* ahead by its claim: GPUs were freed for it (job.claim_time) */
};

struct why_wait {
	int64_t job;
	int64_t end;  /* its expected end (predicted for a job not yet running) */
	bool running; /* holds GPUs now */
};

/*
 * One job's explanation. Its lists (items, ahead_first, waits) point
 * into arrays owned by the why_set and live as long as it.
 */
struct why {
	int64_t job;
	size_t idx; /* index in snapshot.jobs */
	enum reason primary;
	bool never; /* cannot start under this snapshot (see the file comment) */
	int nitems; /* every blocking constraint, in the fixed order; items[0] is primary */
	const struct reason_item *items;

	/* Priority: weight = base × (1 + c), and when it next rises. */
	enum tier tier;
	double base, c, weight;
	bool rises;
	int64_t rise_at;
	double rise_weight;

	/* The queue: 1-based position in the order at now, the jobs ahead
	 * that can run (not never, not starting now) and want what it wants
	 * (GPUs, or none: a CPU-only job is not ahead of a GPU job, nor the
	 * other way), and the first few of them from the head (at most
	 * REASON_MAX_AHEAD). */
	int position;
	int ahead;
	int nahead;
	const struct why_ahead *ahead_first;

	/* The jobs whose ends its predicted start waits for (running ones
	 * first by end, then later ones), from the prediction; at most
	 * PREDICT_MAX_WAITS. */
	int nwaits;
	const struct why_wait *waits;

	enum reeval reeval;
	int64_t reeval_job;
	int64_t reeval_at;

	/* The prediction of this job, borrowed from the prediction set given
	 * to reason_all() (valid as long as that set); NULL for jobs in state
	 * starting. */
	const struct prediction *pred;
};

/*
 * A why set owns its arrays: items are the pending jobs in the order at
 * now (as in the prediction set), then the jobs in state starting by id.
 * of_job[i] is the index in items of snapshot.jobs[i], -1 when none. The
 * pools hold the lists the items point into: a job has a handful of
 * entries, and the first jobs ahead are the same for everyone behind them.
 */
struct why_set {
	int64_t now;
	size_t n;
	struct why *items;
	size_t njobs;
	int32_t *of_job;
	/* [0]: of jobs that ask no GPU, [1]: of jobs that ask GPUs */
	struct why_ahead ahead_first[2][REASON_MAX_AHEAD];
	struct reason_item *item_pool;
	struct why_wait *wait_pool;
};

void why_set_init(struct why_set *ws);
void why_set_release(struct why_set *ws);
/* The explanation of job id, NULL when it is neither pending nor starting.
 * Borrowed from ws. */
const struct why *why_find(const struct why_set *ws, const struct snapshot *s, int64_t id);

/*
 * Explains every pending (and starting) job of s into *out (initialised;
 * previous contents released), using ps, which must be predict_all(s)'s
 * result for this same snapshot. Never fails. O(n) on top of the
 * prediction, plus one placement check per pending job.
 */
void reason_all(const struct snapshot *s, const struct prediction_set *ps, struct why_set *out);

#endif
