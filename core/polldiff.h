/*
 * polldiff.h - gq events from two polls of a cluster whose scheduler is
 * not gq's (gq serve --slurm): what changed between the jobs last known
 * and the jobs of a new snapshot. Pure: the caller gives the time.
 *
 * What a job is known by (struct pknown) is what the events and the
 * metrics need and what tells one job from another with the same id: its
 * submit time, user and name. Slurm's COMPLETING (a job ending, or a
 * preempted one being requeued) is not a state here: a job completing
 * stays running until it is seen ended or pending again, so that a
 * requeue is one change, from running.
 *
 * The events (struct event, seq 0: the caller numbers them), in time
 * order, then job order:
 *   - "submit" pending -> pending, at the submit time, actor the user,
 *     reason "submitted" ("held" when first seen held);
 *   - "state" pending -> running ("started", at its start time);
 *   - "state" running (or pending, never started) -> its final state, at
 *     its end time, reason "completed (exit 0)", "failed (exit 1)",
 *     "cancelled", "timeout";
 *   - "hold" / "release", pending -> pending;
 *   - a requeue (Slurm's restart count grew): "preempt" running ->
 *     stopping, reason "preempted by job N", when a job of a higher tier
 *     started since the victim did or (not held) waits (of those, one of
 *     the highest tier, the latest started), then "state" stopping ->
 *     pending "requeued"; otherwise "state" running -> pending "requeued";
 *   - "qos": the QOS changed (from = to, reason "QOS p1 -> p0");
 *   - "priority": Slurm's priority of a pending job changed, when it is
 *     the only job whose priority changed in this poll (a periodic
 *     recalculation moves many at once and is not recorded);
 *   - "gone": an active job left the cluster's queue without being seen
 *     to end (from = to, its last known state).
 * Times are Slurm's (submit, start, end) where it gives them, else now.
 * With late, every event is marked late: it happened while no poll saw it
 * (the first poll after a restart).
 *
 * The jobs known after a poll are those of the snapshot and those it no
 * longer shows, but for the ended ones PDIFF_FORGET past their end (a
 * gone job's end is when it was noticed gone): Slurm forgets a finished
 * job MinJobAge after its end (300 s by default; 0 keeps it in the
 * snapshot), so one forgotten here comes back only with reset ids or a
 * MinJobAge over a day. The known set stays the size of a day of jobs on a
 * cluster that runs for years; the job of the highest id is kept whatever
 * its age.
 *
 * Ids reset: a job id known as ended with another submit time (its restart
 * count not grown: Slurm gives a requeued job a new submit time, and a
 * poll may see the new time before the count; so a job known active with
 * its user and name is that job, being requeued), another user
 * or another name, or a job id never seen below the highest id known,
 * means the cluster numbers new jobs with old ids. Then no event is
 * produced and reset says which job showed it.
 */
#ifndef GQ_POLLDIFF_H
#define GQ_POLLDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "job.h"

#define PDIFF_FORGET 86400 /* s after its end that an ended job is forgotten */

struct pknown {
	int64_t id;
	char name[64], user[32], queue[32], dept[32], qos[32];
	enum tier tier;
	enum job_state state; /* pending, running or a final state; never stopping/starting */
	bool held;
	bool gone; /* left the queue while active, its end unseen (end: when noticed) */
	int restarts, gpus, exit_status;
	int64_t prio, submit, start, end;
};

struct pdiff {
	struct event *ev; /* owned, seq 0 */
	size_t nev;
	struct pknown *known; /* the jobs known after this poll, sorted by id; owned */
	size_t nknown;
	int64_t reset_job; /* > 0: the ids were reset (no events, known is NULL) */
	char reset_why[200];
};

/* A job of a snapshot as known (its state as events have it). */
void pknown_of(const struct job *j, struct pknown *k);

/* The changes from old (sorted by id) to the snapshot's jobs cur (any
 * order) at now; out is the caller's to release with pdiff_release. */
void pdiff_compute(const struct pknown *old, size_t nold, const struct job *cur, size_t ncur,
		   int64_t now, bool late, struct pdiff *out);
void pdiff_release(struct pdiff *d);

/* A job as stats_compute reads it (stats.h), from what is known. */
void pknown_job(const struct pknown *k, struct job *j);

#endif
