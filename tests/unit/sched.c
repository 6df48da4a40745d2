/* sched.c - the plan: starts, allocations, borrowed flag, plan containers. */
#include "harness.h"

#include "core/sched.h"
#include "fixture.h"

static void set(struct snapshot *s, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, k, v, &e), 0);
}

static void test_plan_starts_fitting_jobs_in_order(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.default.quota", "4");
	fx_running(&s, 1, TIER_P1, 0, 2, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P1, 2, MIN(0));
	fx_pending(&s, 3, TIER_P0, 4, MIN(0));
	fx_pending(&s, 4, TIER_P1, 8, MIN(0));
	snapshot_sort(&s);
	struct plan p;
	plan_init(&p);
	sched_plan(&s, &p);
	CHECK_INT(p.now, T0);
	CHECK_INT(p.n, 2);
	CHECK_INT(p.actions[0].job, 3);
	CHECK_INT(p.actions[0].kind, PLAN_START);
	CHECK_INT(p.actions[0].alloc[0].mask, 0x3c);
	CHECK(p.actions[0].borrowed);
	CHECK_INT(p.actions[1].job, 2);
	CHECK_INT(p.actions[1].alloc[0].mask, 0xc0);
	CHECK(plan_find(&p, PLAN_START, 4) == NULL);
	CHECK_STR(plan_kind_name(PLAN_START), "start");
	plan_release(&p);
	CHECK_INT(p.n, 0);
	snapshot_release(&s);
}

void suite_sched(void)
{
	RUN(test_plan_starts_fitting_jobs_in_order);
}
