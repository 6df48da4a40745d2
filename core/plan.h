/*
 * plan.h - the plan container: the list of actions the server carries out
 * for one snapshot. sched.h fills it with starts; preempt.h and
 * downgrade.h add their actions through plan_add(). This file only holds
 * the actions; it decides nothing.
 */
#ifndef GQ_PLAN_H
#define GQ_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

enum plan_kind {
	PLAN_START, /* start `job` on `alloc` (borrowed: beyond its queue's quota);
		       reason "permit" when a starvation permit starts it ahead of its turn */
	/* Suspend `job` (a victim) so that job `other` (the trigger) can start;
	 * reason "priority" or "permit"; or reason "window", other 0: its queue
	 * is paused now. observe: record "would preempt `job` for `other`" and
	 * act on nothing. Otherwise, in this order: send the policy's signal,
	 * state stopping, stop_deadline = now + preempt.grace; unless the reason
	 * is "window", charge one preemption to the victim's queue
	 * (qstate[].preempts_hour) and, when the victim's department differs
	 * from the trigger's, one peak preemption to the trigger's department
	 * (dstate[].preempts_month); store the record. At stop_deadline (or when
	 * the job exits): SIGKILL what remains, release the GPUs, requeue it
	 * pending with queued_time = now, restarts + 1 and not_before = now +
	 * preempt.cooldown. See preempt.h. */
	PLAN_PREEMPT,
	/* Remind the owner of pending P0 `job` (and the admins, and the webhook)
	 * that it waits; set reminded_at = now. See downgrade.h. */
	PLAN_REMIND,
	/* Downgrade pending P0 `job` to P1 (tier = P1), as an event. observe:
	 * record "would downgrade", keep P0, set confirmed_at = now. */
	PLAN_DOWNGRADE,
	PLAN_KIND_COUNT
};

/* Stable token of a kind: "start", ... */
const char *plan_kind_name(enum plan_kind k);

struct plan_action {
	enum plan_kind kind;
	int64_t job;		 /* the job acted on */
	int64_t other;		 /* a second job the action names (trigger, victim), 0 none */
	bool borrowed;		 /* START: the allocation borrows beyond the queue's quota */
	int nalloc;		 /* START: the GPUs to give the job, nalloc entries at */
	struct job_alloc *alloc; /* alloc, owned by the plan (plan_action_set_alloc) */
	char reason[64];	 /* a stable token saying why, "" when the kind says it all */
	bool observe;		 /* PREEMPT, DOWNGRADE: rollout stage says record only */
};

/*
 * A plan owns its action array. Actions are in the order the server should
 * carry them out (starts in scheduling order).
 */
struct plan {
	int64_t now;
	/* The earliest later time at which the plan may change without any
	 * event (a cooldown ends, a window opens or closes); 0 when none. The
	 * server should plan again at this time at the latest. */
	int64_t wake;
	size_t n, cap;
	struct plan_action *actions;
	/* The start predicted for pending jobs whose pred_start0 is 0
	 * (job.h; when, sched.h): the start, or -1 when it has none or was
	 * submitted more than CALIB_MIN_WAIT ago (not a prediction at its
	 * submit). The server records them; nothing else changes with them. */
	size_t npred, predcap;
	struct plan_pred {
		int64_t job, start;
	} * preds;
};

/* Gives action a a copy of the n entries at alloc (n 0..GQ_MAX_SPAN). */
void plan_action_set_alloc(struct plan_action *a, int n, const struct job_alloc *alloc);

/* Empty plan; allocates nothing. */
void plan_init(struct plan *p);
/* Frees the actions; p is then as after plan_init. */
void plan_release(struct plan *p);
/* Appends a zeroed action of kind k for job; the pointer is valid until the
 * next plan_add or plan_release. */
struct plan_action *plan_add(struct plan *p, enum plan_kind k, int64_t job);
/* The first action of kind k for job, NULL if none. Borrowed from p. */
const struct plan_action *plan_find(const struct plan *p, enum plan_kind k, int64_t job);

#endif
