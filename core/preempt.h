/*
 * preempt.h - which running jobs to suspend so that a blocked job can
 * start (DESIGN §3, "Preemption"), and the starvation permit.
 *
 * The victims of a trigger job T are chosen among running jobs V that pass
 * every rule below; a candidate failing several is counted once, under the
 * first that excludes it, in this order (budget and department are checked
 * again as the set grows, for candidates the choice reaches; a candidate
 * set aside then is counted under that rule too):
 *
 *   tier        V's tier (job_tier) is lower than T's: P0 > P1 > P2.
 *               A starvation permit lifts this rule (below), and so does
 *               reclaim: when T's queue is under its quota (what its jobs
 *               hold plus T's request within queue.Q.quota), V that
 *               borrowed beyond its own queue's quota (job.borrowed) in
 *               another queue is eligible whatever its tier (Kueue's
 *               reclaimWithinCohort): a quota is a guarantee. Such a
 *               victim is marked reclaimed; every other rule holds.
 *   checkpoint  V declared it can checkpoint (checkpointable) and has
 *               evidence that it can: a "checkpoint saved" report, at any
 *               time in its life (last_checkpoint != 0). A report from an
 *               earlier run counts: the job has proved it resumes.
 *   protected   V's current run is shorter than policy.protect:
 *               now - start_time < protect (the longer it ran, the more
 *               it would lose).
 *   cooldown    V is not in post-preemption cooldown: a job that was
 *               preempted before (restarts > 0) may not be preempted again
 *               until its run is policy.cooldown old.
 *   budget      V's queue still has preemption budget this hour:
 *               qstate[q].preempts_hour plus the victims already taken from
 *               it in this set stay below policy_queue_budget(). A queue the
 *               policy does not know has the default budget.
 *   trial       in rollout mode trial, V's queue is in preempt.trialQueues.
 *   department  V belongs to another department than T: T's department
 *               spends one peak preemption (department.D.preemptQuota,
 *               against dstate[d].preempts_month) per such victim, and may
 *               take no more than it has left. When it has none left at all
 *               T has no preemption rights (PREEMPT_NO_RIGHTS).
 *   mismatch    V holds at least one GPU on a node of the type and memory
 *               T asks for (place_node_matches).
 *   ends-soon   with a permit only: V is P0 and expected to end within
 *               policy.permit_wait_for; it is waited for, not preempted.
 *
 * Order of the eligible: borrowed capacity first (job.borrowed), then the
 * lowest tier, then least work lost, then shortest run, then lowest id.
 * Work lost = GPUs held × (now - max(start_time, last_checkpoint)), in
 * GPU-seconds. Victims are added in that order until T fits (place_check:
 * type, memory, same node, queue quota and borrowing, headroom); the
 * classes (borrowed or not, tier) reached so far are the pool. From the
 * pool, the set taken is the one that frees the fewest GPUs, then loses
 * the least work, under the same budget and department rules; among equals,
 * the one earliest in the order above. So a preemption frees no more than
 * T needs: a 1-GPU job never takes a 2-GPU victim where a 1-GPU one of
 * the same class would do, and the set is minimal (no victim can be
 * removed). The search looks at PREEMPT_SEARCH_MAX sets at most (each a
 * place_check); past that it keeps the best found, at worst the greedy
 * set made minimal by dropping, last added first, every victim the rest
 * can do without.
 *
 * GPUs of jobs already stopping (signalled, in their grace period) count
 * as free: when they are enough, nothing more is preempted
 * (PREEMPT_NOT_NEEDED with stopping set), so a trigger never takes a second
 * set of victims while the first is still leaving.
 *
 * Rollout (policy.preempt_mode): observe returns the set that enforce would
 * take, flagged observe (the caller records "would preempt #12 for #40" and
 * acts on nothing); trial only chooses victims in preempt.trialQueues
 * (rule trial above); enforce acts.
 *
 * Starvation permit: a pending job that has been eligible longer than its
 * tier's wait limit (now - job_aging_base > tier.waitLimit) holds a permit. It may
 * start on free GPUs ahead of its turn, and it may preempt running jobs of
 * any tier, P0 included, under every other rule; a P0 it would need that is
 * expected to end within policy.permit_wait_for (predict_end(), the end
 * the prediction uses) is
 * waited for instead: PREEMPT_WAIT until the latest such end it needs. A
 * permit does not lift quotas, per-user limits, windows or headroom.
 *
 * Pure: reads the snapshot (s->now is the time), writes only *out.
 */
#ifndef GQ_PREEMPT_H
#define GQ_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "permit.h" /* permit_earned_at() */

/* Sets of victims the choice of one trigger looks at, at most. */
#define PREEMPT_SEARCH_MAX 4096

enum preempt_rule {
	PREEMPT_RULE_TIER,
	PREEMPT_RULE_CHECKPOINT,
	PREEMPT_RULE_PROTECTED,
	PREEMPT_RULE_COOLDOWN,
	PREEMPT_RULE_BUDGET,
	PREEMPT_RULE_TRIAL,
	PREEMPT_RULE_DEPARTMENT,
	PREEMPT_RULE_MISMATCH,
	PREEMPT_RULE_ENDS_SOON,
	PREEMPT_RULE_COUNT
};

/* Stable tokens: "tier", "checkpoint", "protected", "cooldown", "budget",
 * "trial", "department", "mismatch", "ends-soon". */
const char *preempt_rule_name(enum preempt_rule r);

enum preempt_outcome {
	PREEMPT_FOUND,	     /* victims[] frees enough (observe: would) */
	PREEMPT_NOT_NEEDED,  /* fits on free GPUs (and, if stopping, those being freed) */
	PREEMPT_CANNOT_HELP, /* blocked by something GPUs do not fix: window, department
				GPU-hours, its user's GPU limit (ulimit.h), a request no
				node fits; see blocks */
	PREEMPT_NO_RIGHTS,   /* the department's peak-preemption quota is spent */
	PREEMPT_NONE,	     /* no eligible set frees enough: see excluded[] */
	PREEMPT_WAIT,	     /* permit: wait until wait_until for a P0 about to end */
	PREEMPT_NO_PERMIT,   /* permit_decide only: the job holds no permit */
};

/* Stable tokens: "found", "not-needed", "cannot-help", "no-rights", "none",
 * "wait", "no-permit". */
const char *preempt_outcome_name(enum preempt_outcome o);

struct preempt_victim {
	int64_t job;
	int gpus;
	enum tier tier;
	bool borrowed;
	bool cross_dept;  /* of another department: spends peak-preemption quota */
	bool reclaimed;	  /* taken back for a queue under its quota: borrowed by
			     another queue, of a tier the tier rule alone would spare */
	int64_t ran;	  /* seconds this run */
	int64_t since;	  /* max(start_time, last_checkpoint) */
	double work_lost; /* GPU-seconds: gpus × (now - since) */
};

struct preempt_plan {
	int64_t trigger;
	enum preempt_outcome outcome;
	enum rollout mode;
	bool observe;	 /* mode observe: record what would happen, act on nothing */
	bool permit;	 /* chosen under a starvation permit */
	bool stopping;	 /* NOT_NEEDED thanks to GPUs of jobs already stopping */
	unsigned blocks; /* CANNOT_HELP: PLACE_BIT()s of place.h that block */
	size_t nvictims;
	struct preempt_victim *victims; /* owned; in choice order */
	double work_lost;		/* sum over victims */
	int dept_spend;			/* cross-department victims */
	int dept_left;			/* peak preemptions T's department has left; -1 unlimited */
	/* T's queue is under its quota (queue_used + T's GPUs <= queue_quota):
	 * GPUs borrowed by other queues are reclaimed whatever their tier. */
	bool reclaim;
	int queue_used, queue_quota; /* its queue's GPUs held now, its quota (-1 none) */
	int reclaimed_gpus;	     /* GPUs of the victims that are reclaimed */
	int candidates;		     /* running jobs considered (the trigger excluded) */
	int eligible;		     /* of those, passing every static rule */
	int excluded[PREEMPT_RULE_COUNT];
	int64_t wait_until; /* WAIT: when the last needed P0 is expected to end */
	int64_t wait_for;   /* WAIT: that job */
};

/* Frees victims; plan is then empty. Accepts a zeroed plan. */
void preempt_plan_release(struct preempt_plan *plan);

/*
 * Chooses the victims for trigger job t (a pending job of s) at s->now,
 * under the rules above, without a permit. Always fills *out (release it
 * with preempt_plan_release); returns true when out->outcome is
 * PREEMPT_FOUND. s must be sorted (snapshot_sort).
 */
bool preempt_choose(const struct snapshot *s, const struct job *t, struct preempt_plan *out);

/* Does pending job j hold a starvation permit at s->now? When `since` is
 * not NULL it receives the time the permit was (or will be) earned:
 * permit_earned_at(). */
bool permit_has(const struct snapshot *s, const struct job *j, int64_t *since);

/* May pending job j start as far as it alone is concerned: not held, every
 * dependency completed (one absent from s counts as completed), no
 * cooldown (not_before <= now)? */
bool preempt_startable(const struct snapshot *s, const struct job *j);

/*
 * What job j's permit lets it do at s->now. Always fills *out: outcome
 * NO_PERMIT (no permit), NOT_NEEDED (fits on free GPUs: start it ahead of
 * its turn), FOUND (victims, P0 possibly among them), WAIT (until
 * out->wait_until, for out->wait_for), NO_RIGHTS, CANNOT_HELP or NONE.
 * Returns true when j holds a permit.
 */
bool permit_decide(const struct snapshot *s, const struct job *j, struct preempt_plan *out);

/* At most this many jobs per plan try to preempt (permit holders and
 * blocked jobs together), so that one plan stays cheap on a queue of 100k;
 * the next plan tries the next ones. */
#define PREEMPT_MAX_TRIGGERS 16

struct plan;
struct place_map;

/*
 * Adds to plan *out what preemption and permits do at s->now; called by
 * sched_plan() after its starts. m is the free-GPU map after those starts
 * and is updated with the permit starts added here. order[0..n) are the
 * indices of the pending jobs in scheduling order (order_pending).
 *
 * In this order:
 *   0. every running job of a queue paused now (queue.Q.window) gets a
 *      PLAN_PREEMPT with reason "window" and no trigger (other 0), whatever
 *      its tier, checkpoint, run time or budget: the window is the policy's
 *      own decision, not a trade between jobs, so it is charged to no
 *      budget or quota; the job resumes when the window ends (place.h
 *      keeps it pending until then). observe is set unless the rollout
 *      mode acts on the job's queue (observe; trial outside trialQueues);
 *   1. permit holders (permit_has), in order: one that fits free GPUs gets
 *      a PLAN_START with reason "permit"; otherwise its victims (reason
 *      "permit"), or it waits (a P0 ends within permit.waitFor: out->wake
 *      is lowered to that end);
 *   2. then every other pending job of tier P0 or P1 (P2 too while work
 *      over its department's quota, or borrowed work, runs) that did not
 *      start and may start (not held, dependencies completed, no
 *      cooldown), in order: its victims (reason "reclaim" for a victim
 *      reclaimed for its queue's quota, else "priority").
 * GPUs of stopping jobs, and those of victims chosen for an earlier
 * trigger, are promised to the trigger they were freed for: a later
 * trigger neither counts them nor takes those victims again, and a trigger
 * whose GPUs are already being freed takes nothing more. A trigger for
 * which gq serve signalled victims holds a claim (job.claim_time) and so
 * comes first in `order` (job_order_rank): the GPUs still stopping are
 * promised to it before any other trigger sees them, and once free it
 * starts on them before any other job (sched_plan's starts). At most
 * PREEMPT_MAX_TRIGGERS triggers are tried. out->wake is lowered to the
 * next time a pending job earns its permit.
 */
void preempt_add_to_plan(const struct snapshot *s, struct place_map *m, const size_t *order,
			 size_t n, struct plan *out);

/*
 * What a queue's window will do to a job that cannot checkpoint, said at
 * its submit: queue.Q.window pauses its queue daily, and at the pause's
 * start a running job of it that cannot checkpoint is stopped and
 * requeued, its work lost (windowAction = requeue; window_victims above).
 */
struct window_stop {
	char queue[GQ_NAME_MAX];
	enum window_action action; /* always WINDOW_REQUEUE when found */
	struct window window;	   /* the queue's pause, in the local time of tz_offset */
	int32_t tz_offset;	   /* the snapshot's */
	int64_t now;		   /* the snapshot's */
	int64_t start;		   /* the job's predicted start */
	int64_t stop;		   /* the first pause to begin after start: the job is stopped */
	int64_t end;		   /* start + its expected runtime */
	int64_t limit_end;	   /* start + its time limit; 0 when it has none */
	/* The expected end is after stop: the window would stop it. When
	 * false only its time limit (or the lack of one) lets it run past
	 * stop: the window stops it if it is still running then. */
	bool expected;
};

/*
 * Could a window stop job j at all: it cannot checkpoint, its queue has a
 * window with windowAction requeue, and the preemption rollout acts on
 * its queue (preempt.mode). The cheap test before a prediction.
 */
bool preempt_window_may_stop(const struct snapshot *s, const struct job *j);
/*
 * Would job j, started at `start` (>= s->now; its prediction) and running
 * `runtime` seconds (the prediction's expected runtime), be stopped by its
 * queue's window: preempt_window_may_stop, and the first pause that
 * begins after start begins before start + runtime (or before start + its
 * time limit, or the job has none: expected is then false). Fills *out
 * and returns true when so; false (out unchanged) otherwise. Pure.
 */
bool preempt_window_stop(const struct snapshot *s, const struct job *j, int64_t start,
			 int64_t runtime, struct window_stop *out);

#endif
