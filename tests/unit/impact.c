/* impact.c - the impact preview: exactly the pending jobs that move, and
 * the running jobs whose preemptibility changes. */
#include "harness.h"

#include "fixture.h"
#include "policy/impact.h"

static void set(struct policy *p, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	if (policy_set(p, k, v, &e) < 0)
		CHECK_STR(e.msg, "");
}

static void test_same_policy_moves_nothing(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P1, 8, MIN(-50));
	fx_pending(&s, 3, TIER_P2, 8, MIN(-300));
	snapshot_sort(&s);
	s.now = MIN(0);
	struct impact im;
	impact_compute(&s, &s.policy, &im);
	CHECK_INT(im.npending, 2);
	CHECK_INT(im.nrunning, 1);
	CHECK_INT(im.nmoves, 0);
	CHECK_INT(im.npreempts, 0);
	impact_release(&im);
	snapshot_release(&s);
}

/* Inside P1, a job queued 3 h ago (c = 0.5, weight 45) leads one queued
 * 20 min ago (weight 30); with aging off (cap 0) both weigh 30 and the fair
 * share decides: the queue that used nothing (exp) goes first, so exactly
 * those two swap and the P2 job stays last. */
static void test_exact_moves_when_aging_goes(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P0, 0, 8, MIN(-10), 3600);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s.policy, "queue.exp.share", "1", &e), 0);
	CHECK_INT(policy_set(&s.policy, "headroom.share", "0", &e), 0); /* 8-GPU P1 jobs fit */
	struct job *a = fx_pending(&s, 10, TIER_P1, 8, MIN(-180));	/* weight 45 */
	(void)a;
	struct job *b = fx_pending(&s, 11, TIER_P1, 8, MIN(-20)); /* weight 30 */
	STR_COPY(b->queue, "exp");
	fx_pending(&s, 12, TIER_P2, 8, MIN(-600)); /* P2: stays last */
	snapshot_sort(&s);
	s.now = MIN(0);
	s.qstate[0].usage = 1000; /* queue "default" used a lot, "exp" nothing */
	struct policy cand = s.policy;
	set(&cand, "aging.cap", "0");
	struct impact im;
	impact_compute(&s, &cand, &im);
	CHECK_INT(im.nmoves, 2);
	CHECK_INT(im.moves[0].job, 11);
	CHECK_INT(im.moves[0].old_pos, 2);
	CHECK_INT(im.moves[0].new_pos, 1);
	CHECK_DBL(im.moves[0].old_weight, 30, 1e-9);
	CHECK_DBL(im.moves[0].new_weight, 30, 1e-9);
	CHECK_INT(im.moves[1].job, 10);
	CHECK_INT(im.moves[1].old_pos, 1);
	CHECK_INT(im.moves[1].new_pos, 2);
	CHECK_DBL(im.moves[1].old_weight, 45, 1e-9);
	CHECK_DBL(im.moves[1].new_weight, 30, 1e-9);
	/* The P0 job frees the node at +50 min; each P1 job then runs the
	 * default hour: the two swap starts, the P2 job's start (+170) stays. */
	if (!CHECK_INT(im.netas, 2)) {
		impact_release(&im);
		snapshot_release(&s);
		return;
	}
	CHECK_INT(im.etas[0].job, 10);
	CHECK_INT(im.etas[0].old_start, MIN(50));
	CHECK_INT(im.etas[0].new_start, MIN(110));
	CHECK_INT(im.etas[1].job, 11);
	CHECK_INT(im.etas[1].old_start, MIN(110));
	CHECK_INT(im.etas[1].new_start, MIN(50));
	impact_release(&im);
	snapshot_release(&s);
}

static void test_preemptible_follows_protect_and_mode(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *j = fx_running(&s, 1, TIER_P2, 0, 4, MIN(-40), 7200);
	j->checkpointable = true;
	j->last_checkpoint = MIN(-5);
	j = fx_running(&s, 2, TIER_P2, 0, 4, MIN(-10), 7200);
	j->checkpointable = true; /* no checkpoint yet: no evidence */
	snapshot_sort(&s);
	s.now = MIN(0);
	struct policy cand = s.policy;
	set(&cand, "preempt.protect", "1h"); /* job 1 (ran 40 min) loses protection */
	struct impact im;
	impact_compute(&s, &cand, &im);
	CHECK_INT(im.npreempts, 1);
	CHECK_INT(im.preempts[0].job, 1);
	CHECK(im.preempts[0].preemptible);
	impact_release(&im);

	/* observe mode takes no victims: job 1 stays safe even with 1h */
	set(&cand, "preempt.mode", "observe");
	impact_compute(&s, &cand, &im);
	CHECK_INT(im.npreempts, 0);
	impact_release(&im);
	snapshot_release(&s);
}

void suite_impact(void)
{
	RUN(test_same_policy_moves_nothing);
	RUN(test_exact_moves_when_aging_goes);
	RUN(test_preemptible_follows_protect_and_mode);
}
