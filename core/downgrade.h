/*
 * downgrade.h - reminders and auto-downgrades of P0 jobs that wait too
 * long (DESIGN §3, "Overrides and downgrades").
 *
 * The cycle of a pending P0 job, with base = max(job_aging_base,
 * confirmed_at) (the later of "became eligible" -- entered pending,
 * released from a hold, its --begin reached, its dependencies met -- and
 * "the owner last confirmed"). A job that is held or whose dependencies
 * are unmet is not waiting for GPUs and has no cycle; one whose --begin is
 * ahead has its base there:
 *   - pending for policy.remind_after since base, and no reminder since base
 *     (reminded_at <= base): a REMIND action; the caller sends it and sets
 *     reminded_at = now;
 *   - reminded (reminded_at > base) and not confirmed within
 *     policy.confirm_within after the reminder: a DOWNGRADE action to P1.
 * A confirmation (`gq confirm`, confirmed_at = now) starts a new cycle: the
 * next reminder comes remind_after after it.
 *
 * Only jobs submitted as P0 without an admin override are concerned: an
 * override is an admin's decision and outranks the automation.
 *
 * Rollout (policy.downgrade_mode): a DOWNGRADE in a queue the mode does not
 * act on (observe, or trial outside downgrade.trialQueues) comes flagged
 * `observe`: the caller records "would downgrade" and acts on nothing, then
 * sets confirmed_at = now so that the cycle restarts instead of reporting
 * the same observation every tick. Reminders are notifications, not
 * actions on the job, and are sent in every mode.
 *
 * Pure: a function of the snapshot (including s->now) only.
 */
#ifndef GQ_DOWNGRADE_H
#define GQ_DOWNGRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

enum downgrade_kind { DOWNGRADE_REMIND, DOWNGRADE_TO_P1 };

/* "reminder", "downgrade" (the event kinds the server records). */
const char *downgrade_kind_name(enum downgrade_kind k);

struct downgrade_action {
	int64_t job;
	enum downgrade_kind kind;
	bool observe;	 /* DOWNGRADE_TO_P1 only: record, do not act */
	int64_t pending; /* seconds pending since the cycle's base */
	int64_t due;	 /* when the action became due (<= now) */
};

/* The base of j's cycle: max(job_aging_base, confirmed_at). */
int64_t downgrade_cycle_base(const struct job *j);

/* What the cycle asks of job j at s->now, if anything: returns true and
 * fills *out, or false. */
bool downgrade_check(const struct snapshot *s, const struct job *j, struct downgrade_action *out);

/* The next time something would be due for job j (a reminder or a
 * downgrade), or 0 when it is not concerned. For ETAs and re-evaluation
 * conditions ("reminder at 14:30"). */
int64_t downgrade_next(const struct snapshot *s, const struct job *j);

/* A pending P0 job reminded in its current cycle: true, with when the
 * reminder was sent and when it is downgraded unless confirmed first. */
bool downgrade_reminded(const struct snapshot *s, const struct job *j, int64_t *reminded,
			int64_t *deadline);

/* A job that was downgraded from P0: true, with when the downgrade fell
 * due (its reminder + confirm_within; the server acts at its next plan).
 * Told by the record: tier P1, not overridden, a reminder (sent to P0 jobs
 * only) with no confirmation after it. */
bool downgrade_happened(const struct snapshot *s, const struct job *j, int64_t *at);

/* Every action due in s, in job id order. *out is allocated (free() it;
 * NULL when none); returns the count. */
size_t downgrade_plan(const struct snapshot *s, struct downgrade_action **out);

struct plan;

/* Adds one PLAN_REMIND or PLAN_DOWNGRADE (observe flagged) per action due
 * at s->now, in job id order, and lowers out->wake to the next time one
 * falls due; called by sched_plan(). */
void downgrade_add_to_plan(const struct snapshot *s, struct plan *out);

#endif
