/* sched.c - the plan: starts, allocations, borrowed flag, plan containers. */
#include "harness.h"

#include <string.h>

#include "core/place.h"
#include "core/predict.h"
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

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The plan starts exactly the jobs predicted to start at now, on the same
 * GPUs, and nothing it starts overlaps what is held (permit starts come
 * from preemption, not from the prediction). */
static void test_plan_matches_prediction_at_now(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct snapshot s;
		fx_init(&s, 4, 8);
		uint64_t x = seed * 31337;
		int node = 0, used = 0;
		for (int i = 1; i <= 80; i++) {
			int g = 1 << (rng_next(&x) % 4);
			enum tier t = (enum tier)(rng_next(&x) % 3);
			if (i % 3 == 0 && node < 3) {
				if (used + g > 8) {
					node++;
					used = 0;
				}
				if (node < 3) {
					fx_running(&s, i, t, node, g, MIN(-30),
						   (int64_t)(rng_next(&x) % 90 + 31) * 60);
					used += g;
				}
			} else {
				struct job *j =
				    fx_pending(&s, i, t, g, MIN(-(int)(rng_next(&x) % 200)));
				j->estimate = (int64_t)(rng_next(&x) % 100 + 1) * 60;
				j->req.same_node = i % 5 == 0;
			}
		}
		snapshot_sort(&s);
		struct prediction_set ps;
		prediction_set_init(&ps);
		predict_all(&s, &ps);
		struct plan p;
		plan_init(&p);
		sched_plan(&s, &p);
		/* Permit starts too: the prediction foresees the plan's,
		 * which carry the reason "permit". */
		size_t now_starts = 0, mismatched = 0, permits = 0;
		for (size_t i = 0; i < ps.n; i++) {
			const struct prediction *pr = &ps.items[i];
			if (!pr->placed || pr->start != s.now)
				continue;
			now_starts++;
			permits += pr->permit;
			const struct plan_action *a = plan_find(&p, PLAN_START, pr->job);
			mismatched +=
			    !a || a->nalloc != pr->nalloc ||
			    memcmp(a->alloc, pr->alloc, sizeof(a->alloc[0]) * (size_t)a->nalloc) ||
			    pr->permit != !strcmp(a->reason, "permit");
		}
		size_t plan_starts = 0, plan_permits = 0;
		for (size_t i = 0; i < p.n; i++) {
			plan_starts += p.actions[i].kind == PLAN_START;
			plan_permits += p.actions[i].kind == PLAN_START &&
					!strcmp(p.actions[i].reason, "permit");
		}
		CHECK_INT(plan_starts, now_starts);
		CHECK_INT(plan_permits, permits);
		CHECK_INT(mismatched, 0);
		CHECK(now_starts > 0);
		struct place_map m;
		place_map_init(&m, &s);
		for (size_t i = 0; i < p.n; i++)
			if (p.actions[i].kind == PLAN_START) /* BUG()s on overlap */
				place_take(&m, 0, NULL, p.actions[i].nalloc, p.actions[i].alloc);
		place_map_release(&m);
		plan_release(&p);
		prediction_set_release(&ps);
		snapshot_release(&s);
	}
}

static void test_plan_wakes_at_cooldown_end(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	j->not_before = MIN(7);
	j->pred_start0 = -1; /* recorded: no pass a second later for that */
	snapshot_sort(&s);
	struct plan p;
	plan_init(&p);
	sched_plan(&s, &p);
	CHECK_INT(p.n, 0);
	CHECK_INT(p.wake, MIN(7));
	plan_release(&p);
	snapshot_release(&s);
}

static void test_plan_wakes_at_window_edge(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "queue.exp.window", "20:00-08:00");
	s.now = 1700000000LL - 1700000000LL % 86400 + 19 * 3600 + 1800; /* 19:30 UTC */
	fx_running(&s, 1, TIER_P1, 0, 8, s.now - 60, 7200);
	snapshot_sort(&s);
	struct plan p;
	plan_init(&p);
	sched_plan(&s, &p);
	CHECK_INT(p.wake, s.now + 1800); /* the pause begins at 20:00 */
	plan_release(&p);
	snapshot_release(&s);
}

void suite_sched(void)
{
	RUN(test_plan_starts_fitting_jobs_in_order);
	RUN(test_plan_matches_prediction_at_now);
	RUN(test_plan_wakes_at_cooldown_end);
	RUN(test_plan_wakes_at_window_edge);
}
