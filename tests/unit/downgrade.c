/* downgrade.c - the P0 reminder / confirmation / downgrade cycle and its rollout. */
#include "harness.h"

#include "core/downgrade.h"

#include <stdlib.h>

#define T0 1000000
#define MIN 60
#define H 3600

static struct job *p0(struct snapshot *s, int64_t id)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	STR_COPY(j->queue, "default");
	j->tier = TIER_P0;
	j->state = JOB_PENDING;
	j->submit_time = j->queued_time = T0;
	return j;
}

static void test_reminder_at_two_hours_not_before(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	struct downgrade_action a;
	s.now = T0 + 2 * H - 1;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), T0 + 2 * H);
	s.now = T0 + 2 * H;
	CHECK(downgrade_check(&s, j, &a));
	CHECK_INT(a.kind, DOWNGRADE_REMIND);
	CHECK_INT(a.job, 1);
	CHECK_INT(a.pending, 2 * H);
	CHECK_INT(a.due, T0 + 2 * H);
	snapshot_release(&s);
}

static void test_unconfirmed_reminder_downgrades_after_30_min(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	j->reminded_at = T0 + 2 * H;
	struct downgrade_action a;
	s.now = T0 + 2 * H + 29 * MIN;
	CHECK(!downgrade_check(&s, j, &a));
	s.now = T0 + 2 * H + 30 * MIN;
	CHECK(downgrade_check(&s, j, &a));
	CHECK_INT(a.kind, DOWNGRADE_TO_P1);
	CHECK(!a.observe);
	snapshot_release(&s);
}

static void test_confirmation_restarts_the_cycle(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	j->reminded_at = T0 + 2 * H;
	j->confirmed_at = T0 + 2 * H + 10 * MIN;
	struct downgrade_action a;
	/* Confirmed: no downgrade at 2h30, next reminder 2 h after the confirmation. */
	s.now = T0 + 2 * H + 30 * MIN;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), T0 + 4 * H + 10 * MIN);
	s.now = T0 + 4 * H + 10 * MIN;
	CHECK(downgrade_check(&s, j, &a));
	CHECK_INT(a.kind, DOWNGRADE_REMIND);
	/* The second reminder is not confirmed: downgrade 30 min later. */
	j->reminded_at = s.now;
	s.now += 30 * MIN;
	CHECK(downgrade_check(&s, j, &a));
	CHECK_INT(a.kind, DOWNGRADE_TO_P1);
	snapshot_release(&s);
}

/* A held P0 is not waiting for GPUs: no reminder, whatever the time. */
static void test_held_p0_is_not_reminded(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	j->held = true;
	struct downgrade_action a;
	s.now = T0 + 12 * H;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), 0);
	snapshot_release(&s);
}

/* Deferred with --begin: the cycle starts at the begin. */
static void test_deferred_p0_cycle_starts_at_its_begin(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	j->begin_time = T0 + 12 * H;
	struct downgrade_action a;
	s.now = T0 + 13 * H;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), T0 + 14 * H);
	s.now = T0 + 14 * H;
	CHECK(downgrade_check(&s, j, &a));
	CHECK_INT(a.kind, DOWNGRADE_REMIND);
	CHECK_INT(a.pending, 2 * H);
	snapshot_release(&s);
}

/* Blocked by a dependency still running: not reminded. */
static void test_p0_blocked_by_a_dependency_is_not_reminded(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *d = snapshot_add_job(&s);
	d->id = 1;
	d->state = JOB_RUNNING;
	d->submit_time = d->queued_time = d->start_time = T0;
	struct job *j = p0(&s, 2);
	j->ndeps = 1;
	j->deps[0] = 1;
	snapshot_sort(&s);
	j = snapshot_find(&s, 2);
	struct downgrade_action a;
	s.now = T0 + 3 * H;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), 0);
	snapshot_release(&s);
}

static void test_requeue_starts_a_new_cycle(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *j = p0(&s, 1);
	j->reminded_at = T0 + 2 * H;
	j->queued_time = T0 + 3 * H; /* ran, was preempted, pending again */
	s.now = T0 + 3 * H + 30 * MIN;
	struct downgrade_action a;
	CHECK(!downgrade_check(&s, j, &a));
	CHECK_INT(downgrade_next(&s, j), T0 + 5 * H);
	snapshot_release(&s);
}

static void test_only_pending_p0_without_override(void)
{
	struct snapshot s;
	snapshot_init(&s);
	for (int i = 1; i <= 4; i++)
		p0(&s, i);
	s.jobs[0].tier = TIER_P1;
	s.jobs[1].ovr.set = true;
	s.jobs[1].ovr.tier = TIER_P0;
	s.jobs[2].state = JOB_RUNNING;
	s.now = T0 + 5 * H;
	struct downgrade_action *v;
	size_t n = downgrade_plan(&s, &v);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_INT(v[0].job, 4);
	free(v);
	snapshot_release(&s);
}

static void test_rollout_observe_and_trial(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(&s);
	policy_set(&s.policy, "queue.prod.share", "1", &e);
	p0(&s, 1);
	p0(&s, 2);
	struct job *j1 = &s.jobs[0], *j2 = &s.jobs[1];
	STR_COPY(j2->queue, "prod");
	j1->reminded_at = j2->reminded_at = T0 + 2 * H;
	s.now = T0 + 3 * H;
	struct downgrade_action a;
	policy_set(&s.policy, "downgrade.mode", "observe", &e);
	CHECK(downgrade_check(&s, j1, &a) && a.kind == DOWNGRADE_TO_P1 && a.observe);
	CHECK(downgrade_check(&s, j2, &a) && a.observe);
	policy_set(&s.policy, "downgrade.mode", "trial", &e);
	policy_set(&s.policy, "downgrade.trialQueues", "prod", &e);
	CHECK(downgrade_check(&s, j1, &a) && a.observe);
	CHECK(downgrade_check(&s, j2, &a) && !a.observe);
	/* Reminders are sent whatever the mode. */
	j1->reminded_at = 0;
	CHECK(downgrade_check(&s, j1, &a) && a.kind == DOWNGRADE_REMIND && !a.observe);
	snapshot_release(&s);
}

void suite_downgrade(void)
{
	RUN(test_reminder_at_two_hours_not_before);
	RUN(test_unconfirmed_reminder_downgrades_after_30_min);
	RUN(test_confirmation_restarts_the_cycle);
	RUN(test_requeue_starts_a_new_cycle);
	RUN(test_held_p0_is_not_reminded);
	RUN(test_deferred_p0_cycle_starts_at_its_begin);
	RUN(test_p0_blocked_by_a_dependency_is_not_reminded);
	RUN(test_only_pending_p0_without_override);
	RUN(test_rollout_observe_and_trial);
}
