/*
 * enforce.h - what gq serve does for the policy besides starting jobs: it
 * carries out the preemptions, reminders and downgrades of core's plan
 * (sched.h), keeps a record of every preemption, gives the snapshot the
 * preemption counts that budgets and department quotas are checked
 * against, and reports GPUs that could be reclaimed.
 *
 * Decisions are core's: this file never chooses a victim or a time; it
 * acts on a plan action and remembers what it did. Starting jobs and
 * following processes stay in the loop (loop.c) and the state transitions
 * (state.c), which call the hooks below at the moments they name, with the
 * server's lock held and inside its journal transaction; enforce changes
 * the state only through state.h.
 *
 * A preemption's life, as its record shows it:
 *   signalled  the policy's signal was sent (preempt.signal), the job is
 *              stopping until signalled + preempt.grace, then SIGKILLed;
 *   saved      the job reported a checkpoint during its grace period;
 *   released   its process ended and its GPUs were freed; it is pending
 *              again, with a cooldown (preempt.cooldown) before it may
 *              start;
 *   restarted  it started again; resumed when it had a checkpoint to
 *              resume from (one reported before it was released).
 * Work lost = GPUs x (signalled - max(run start, last checkpoint)) in
 * GPU-seconds, and 0 once the job saved during its grace period: the same
 * rule as the metrics (core/stats.h).
 */
#ifndef GQ_SERVER_ENFORCE_H
#define GQ_SERVER_ENFORCE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/job.h"
#include "core/sched.h"
#include "core/util.h"

struct preempt_record {
	int64_t id;			/* from 1, in signal order */
	int64_t victim;			/* the job suspended */
	int64_t trigger;		/* the job it made room for; 0 for a window */
	char reason[16];		/* "priority", "permit" or "window" */
	char queue[GQ_NAME_MAX];	/* the victim's queue */
	char dept[GQ_NAME_MAX];		/* the victim's department */
	char trigger_dept[GQ_NAME_MAX]; /* the trigger's department, "" for a window */
	bool cross_dept;		/* charged one peak preemption to trigger_dept */
	int gpus;			/* GPUs the victim held */
	int64_t ran;			/* seconds its run had lasted at the signal */
	int64_t last_checkpoint;	/* its last report before the signal, 0 none */
	int64_t signalled, saved, released, restarted; /* 0: not (yet) */
	double work_lost;			       /* GPU-seconds */
	bool resumed;
};

/* One entry of the reclamation report. */
enum reclaim_kind {
	RECLAIM_IDLE,	    /* running, no output and no checkpoint for reclaim.idleAfter */
	RECLAIM_FAILED,	    /* failed (or timed out), processes of it still alive */
	RECLAIM_UNRELEASED, /* finished otherwise, or stopping past its kill deadline, with
			       processes still alive */
};
/* "idle", "failed", "unreleased" */
const char *reclaim_kind_name(enum reclaim_kind k);

struct reclaim_entry {
	int64_t job;
	enum reclaim_kind kind;
	int gpus;
	char gpu_list[128]; /* "0,1" */
	int64_t since;	    /* idle: last sign of progress; else when it ended / its deadline */
	bool acts;	    /* the reclaim rollout mode covers the job's queue */
};

struct enforce;
struct state;
struct db;
struct runner;

/* What the hooks work on; filled by state_enforce_ctx(), valid during one call. */
struct enforce_ctx {
	struct state *st; /* the journalled state, for state_stop, state_emit, state_persist */
	struct snapshot *snap;
	struct db *db;
	struct runner *runner; /* for the jobs' logs */
	int64_t now;
};

/* Loads the preemption records, the reclamation watches and what observe
 * mode recorded from db, and starts the webhook sender. GQ_EIO when they
 * cannot be read. */
int enforce_open(struct db *db, struct enforce **out, struct gq_err *e);
/* Stops the webhook sender (waiting at most a few seconds for what it is
 * sending) and frees everything. Accepts NULL. */
void enforce_free(struct enforce *en);

/*
 * Before each plan, inside the caller's journal transaction: sets every
 * queue's preempts_hour (victims signalled in the last hour, windows not
 * counted) and every department's preempts_month (peak preemptions spent
 * in this calendar month, UTC) from the records, samples the running
 * jobs' logs for the reclamation report and journals what changed of
 * them. *next: the next time a count drops (a preemption leaves the hour,
 * a month begins), or 0 when none will: the scheduler plans again then,
 * since a budget may come back. -1 only when the journal fails.
 */
int enforce_prepare(struct enforce *en, const struct enforce_ctx *c, int64_t *next,
		    struct gq_err *e);

/* At a clean stop, inside the caller's journal transaction: samples the
 * logs once more and journals every watch that changed since it was last
 * written. -1 when the journal fails. */
int enforce_flush(struct enforce *en, const struct enforce_ctx *c, struct gq_err *e);

/*
 * Carries out one action of the plan other than PLAN_START (see sched.h
 * for what each kind asks): a preemption (or, observe, a "would-preempt"
 * event), a reminder (event, reminded_at, webhook), a downgrade (tier P1,
 * event, webhook; observe: "would-downgrade" and confirmed_at). An action
 * whose job is no longer in the state it was planned for is skipped.
 * -1 only when the journal fails.
 */
int enforce_act(struct enforce *en, const struct enforce_ctx *c, const struct plan_action *a,
		struct gq_err *e);

/* Hooks. job_checkpoint: job j reported a checkpoint (already set in j).
 * job_started: j was started. job_ended: j's process ended and j is now
 * in its new state (pending again after a preemption, or finished); pgid
 * is its process group, for the reclamation report (0 unknown).
 * -1 only when the journal fails. */
int enforce_job_checkpoint(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
			   struct gq_err *e);
int enforce_job_started(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
			struct gq_err *e);
int enforce_job_ended(struct enforce *en, const struct enforce_ctx *c, const struct job *j,
		      long pgid, struct gq_err *e);

/* The records, oldest first, of job `job` only when job != 0; at most
 * `limit` (the last ones; 0 = all). *out is the caller's (free()). */
void enforce_records(const struct enforce *en, int64_t job, size_t limit,
		     struct preempt_record **out, size_t *n);

/* The reclamation report at c->now, in job id order; *out is the caller's.
 * Needs no transaction: what its sample of the logs changed is journalled
 * by the next enforce_prepare(). */
void enforce_reclaim(struct enforce *en, const struct enforce_ctx *c, struct reclaim_entry **out,
		     size_t *n);

#endif
