/* order.c - weights, aging steps and the total order of pending jobs. */
#include "harness.h"

#include "core/order.h"
#include "core/permit.h"
#include "fixture.h"

static void test_p2_after_5h_weighs_7_5_below_fresh_p0(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.now = MIN(300);
	fx_pending(&s, 1, TIER_P2, 1, MIN(0));
	fx_pending(&s, 2, TIER_P0, 1, MIN(300));
	snapshot_sort(&s);
	CHECK_DBL(order_weight(&s.policy, &s.jobs[0], s.now), 7.5, 1e-9);
	CHECK_DBL(order_weight(&s.policy, &s.jobs[1], s.now), 100, 1e-9);
	size_t out[2];
	CHECK_INT(order_pending(&s, out), 2);
	CHECK_INT(s.jobs[out[0]].id, 2);
	CHECK_INT(s.jobs[out[1]].id, 1);
	CHECK(order_cmp(&s, &s.jobs[1], &s.jobs[0], s.now) < 0);
	snapshot_release(&s);
}

static void test_c_steps_at_30_and_60_min_and_stops_at_half(void)
{
	struct policy p;
	policy_defaults(&p);
	struct job j;
	job_init(&j);
	j.tier = TIER_P1;
	j.queued_time = T0;
	static const struct {
		int minutes;
		double weight;
	} rows[] = {
	    {0, 30},   {29, 30},  {30, 33},  {59, 33},	{60, 36},
	    {120, 42}, {149, 42}, {150, 45}, {600, 45},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_DBL(order_weight(&p, &j, MIN(rows[i].minutes)), rows[i].weight, 1e-9);
	CHECK_INT(order_aging_steps(&p), 5);
	CHECK_DBL(order_aging_c(&p, 3), 0.3, 1e-12);
	CHECK_DBL(order_aging_c(&p, 9), 0.5, 1e-12);
}

static void test_zero_aging_step_means_no_aging(void)
{
	struct policy p;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "aging.step", "0", NULL), 0);
	struct job j;
	job_init(&j);
	j.tier = TIER_P1;
	j.queued_time = T0;
	CHECK_DBL(order_weight(&p, &j, MIN(600)), 30, 1e-12);
	CHECK_DBL(order_aging_c(&p, 7), 0, 0);
	int64_t at = 0;
	double w = 0;
	CHECK(!order_next_rise(&p, &j, MIN(10), &at, &w));
}

static void test_next_rise_time_and_weight(void)
{
	struct policy p;
	policy_defaults(&p);
	struct job j;
	job_init(&j);
	j.tier = TIER_P1;
	j.queued_time = MIN(0);
	int64_t at = 0;
	double w = 0;
	CHECK(order_next_rise(&p, &j, MIN(45), &at, &w));
	CHECK_INT(at, MIN(60));
	CHECK_DBL(w, 36, 1e-9);
	CHECK(!order_next_rise(&p, &j, MIN(150), &at, &w));
	CHECK_INT(at, MIN(60));
}

static void test_override_tier_decides(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P0, 1, MIN(0));
	struct job *j = fx_pending(&s, 2, TIER_P2, 1, MIN(0));
	j->ovr.set = true;
	j->ovr.tier = TIER_P0;
	snapshot_sort(&s);
	CHECK_DBL(order_weight(&s.policy, &s.jobs[1], s.now), 100, 1e-9);
	size_t out[2];
	order_pending(&s, out);
	CHECK_INT(s.jobs[out[0]].id, 1); /* same tier and weight: id decides */
	snapshot_release(&s);
}

static void test_ties_break_by_fair_share_then_submit_then_id(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s.policy, "queue.busy.share", "2", &e), 0);
	int qb = policy_queue_index(&s.policy, "busy");
	s.qstate[qb].usage = 100; /* 100 / 2 = 50 */
	s.qstate[0].usage = 60;	  /* 60 / 1 = 60 */
	struct job *j = fx_pending(&s, 5, TIER_P1, 1, MIN(0));
	STR_COPY(j->queue, "busy");
	fx_pending(&s, 4, TIER_P1, 1, MIN(1));
	fx_pending(&s, 3, TIER_P1, 1, MIN(1));
	fx_pending(&s, 2, TIER_P1, 1, MIN(0));
	fx_pending(&s, 9, TIER_P1, 1, MIN(-40)); /* aged: weight 33 */
	snapshot_sort(&s);
	size_t out[5];
	CHECK_INT(order_pending(&s, out), 5);
	static const int64_t want[] = {9, 5, 2, 3, 4};
	for (int i = 0; i < 5; i++)
		CHECK_INT(s.jobs[out[i]].id, want[i]);
	snapshot_release(&s);
}

/* Held or deferred (--begin ahead) time is not waiting: it does not age. */
static void test_held_and_deferred_jobs_do_not_age(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.now = MIN(119);
	struct job *h = fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	h->held = true;
	CHECK_DBL(order_weight(&s.policy, h, s.now), 30, 1e-9);
	int64_t at = 0;
	double w = 0;
	CHECK(!order_next_rise(&s.policy, h, s.now, &at, &w));
	struct job *d = fx_pending(&s, 2, TIER_P1, 1, MIN(0));
	d->begin_time = MIN(180);
	CHECK_DBL(order_weight(&s.policy, d, s.now), 30, 1e-9);
	CHECK(order_next_rise(&s.policy, d, s.now, &at, &w));
	CHECK_INT(at, MIN(210)); /* an interval after its --begin */
	CHECK_DBL(w, 33, 1e-9);
	/* Its --begin reached 60 min ago: aged by those 60 min only. */
	s.now = MIN(240);
	CHECK_DBL(order_weight(&s.policy, d, s.now), 36, 1e-9);
	snapshot_release(&s);
}

/* Released from a hold (eligible_time): aged from the release only. */
static void test_released_job_ages_from_its_release(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	j->eligible_time = MIN(100);
	CHECK_INT(job_aging_base(j), MIN(100));
	CHECK_INT(job_eligible_since(j, MIN(130)), MIN(100));
	CHECK_DBL(order_weight(&s.policy, j, MIN(130)), 33, 1e-9);
	CHECK_INT(permit_earned_at(&s.policy, j), MIN(100) + s.policy.tier[TIER_P1].wait_limit);
	j->held = true;
	CHECK_INT(job_eligible_since(j, MIN(130)), 0);
	snapshot_release(&s);
}

void suite_order(void)
{
	RUN(test_p2_after_5h_weighs_7_5_below_fresh_p0);
	RUN(test_c_steps_at_30_and_60_min_and_stops_at_half);
	RUN(test_zero_aging_step_means_no_aging);
	RUN(test_next_rise_time_and_weight);
	RUN(test_override_tier_decides);
	RUN(test_ties_break_by_fair_share_then_submit_then_id);
	RUN(test_held_and_deferred_jobs_do_not_age);
	RUN(test_released_job_ages_from_its_release);
}
