/* preempt.c - victim choice: each rule where it alone decides, the order,
 * minimal sets, rollout, departments, and the starvation permit. */
#include "harness.h"

#include "core/order.h"
#include "core/preempt.h"
#include "core/sched.h"

#include <stdio.h>
#include <string.h>

#define NOW 1000000
#define MIN 60
#define H 3600

static void machine(struct snapshot *s, int nnodes, int gpus)
{
	snapshot_init(s);
	s->now = NOW;
	for (int i = 0; i < nnodes; i++) {
		struct node *n = snapshot_add_node(s);
		snprintf(n->name, sizeof(n->name), "n%d", i);
		STR_COPY(n->gpu_model, "a100");
		n->gpu_mem_mb = 81920;
		n->ngpus = gpus;
	}
}

/* A checkpointable job running on `mask` of node `node` for `ran` seconds,
 * its last checkpoint `ckpt_ago` seconds ago. */
static void running(struct snapshot *s, int64_t id, enum tier t, int node, uint64_t mask,
		    int64_t ran, int64_t ckpt_ago)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	STR_COPY(j->queue, "default");
	STR_COPY(j->dept, "default");
	j->tier = t;
	j->state = JOB_RUNNING;
	j->req.gpus = __builtin_popcountll(mask);
	j->nalloc = 1;
	j->alloc = xcalloc(1, sizeof(*j->alloc));
	j->alloc[0].node = node;
	j->alloc[0].mask = mask;
	j->submit_time = j->queued_time = NOW - ran - 10;
	j->start_time = NOW - ran;
	j->checkpointable = true;
	j->last_checkpoint = NOW - ckpt_ago;
}

static void pending(struct snapshot *s, int64_t id, enum tier t, int gpus, int64_t waited)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	STR_COPY(j->queue, "default");
	STR_COPY(j->dept, "default");
	j->tier = t;
	j->state = JOB_PENDING;
	j->req.gpus = gpus;
	j->submit_time = j->queued_time = NOW - waited;
}

#define J(s, id) snapshot_find(&(s), (id))

/* Chooses for trigger 100; returns the plan (release it). */
static struct preempt_plan choose(struct snapshot *s)
{
	struct preempt_plan p;
	snapshot_sort(s);
	preempt_choose(s, snapshot_find(s, 100), &p);
	return p;
}

static void check_victims(const struct preempt_plan *p, int n, const int64_t *ids)
{
	CHECK_STR(preempt_outcome_name(p->outcome), n ? "found" : "none");
	CHECK_INT(p->nvictims, n);
	for (int i = 0; i < n && (size_t)i < p->nvictims; i++)
		CHECK_INT(p->victims[i].job, ids[i]);
}

static void test_non_checkpointable_never_chosen(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN); /* would be the cheapest */
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	J(s, 1)->checkpointable = false;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_CHECKPOINT], 1);
	CHECK_INT(p.candidates, 2);
	CHECK_INT(p.eligible, 1);
	preempt_plan_release(&p);
	/* Declared checkpointable but never reported a checkpoint: no evidence. */
	J(s, 1)->checkpointable = true;
	J(s, 1)->last_checkpoint = 0;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_CHECKPOINT], 1);
	preempt_plan_release(&p);
	/* Alone: nothing to take. */
	J(s, 2)->checkpointable = false;
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_CHECKPOINT], 2);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_protected_after_30_min(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 40 * MIN, 1 * MIN); /* least work lost, but protected */
	running(&s, 2, TIER_P2, 0, 0x2, 5 * MIN, 3 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_PROTECTED], 1);
	CHECK_INT(p.victims[0].ran, 5 * MIN);
	CHECK_DBL(p.victims[0].work_lost, 3 * MIN, 0);
	preempt_plan_release(&p);
	/* 30 min exactly is protected too. */
	snapshot_find(&s, 2)->start_time = NOW - 30 * MIN;
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_PROTECTED], 2);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_cooldown_after_a_resume(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN); /* resumed 5 min ago */
	running(&s, 2, TIER_P2, 0, 0x2, 12 * MIN, 6 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	J(s, 1)->restarts = 1;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_COOLDOWN], 1);
	preempt_plan_release(&p);
	/* Cooldown (10 min) over: the cheaper one again. */
	J(s, 1)->start_time = NOW - 11 * MIN;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	CHECK_INT(p.excluded[PREEMPT_RULE_COOLDOWN], 0);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_budget_spent(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "queue.exp.share", "1", &e);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	STR_COPY(J(s, 1)->queue, "exp");
	int qi = policy_queue_index(&s.policy, "exp");
	s.qstate[qi].preempts_hour = 4; /* preempt.maxPerQueueHour = 4 */
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_BUDGET], 1);
	preempt_plan_release(&p);
	s.qstate[qi].preempts_hour = 3;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	preempt_plan_release(&p);
	/* A budget of one left cannot pay for two victims from that queue. */
	STR_COPY(J(s, 2)->queue, "exp");
	snapshot_find(&s, 100)->req.gpus = 2;
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_BUDGET], 1);
	CHECK_INT(p.eligible, 2);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_borrowed_first(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 15 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	J(s, 2)->borrowed = true;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK(p.victims[0].borrowed);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_lowest_tier_first(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P1, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 15 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.victims[0].tier, TIER_P2);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_least_work_lost_then_shortest_run(void)
{
	struct snapshot s;
	machine(&s, 1, 6);
	/* #1: 2 GPUs x 5 min since its checkpoint = 600 GPU-s.
	 * #2: 1 GPU x 8 min = 480 GPU-s (checkpoint before this run: since start).
	 * #3: 1 GPU x 8 min = 480, ran 25 min.
	 * #4: 2 GPUs x 4 min = 480, ran 6 min: the shortest run of the cheapest. */
	running(&s, 1, TIER_P2, 0, 0x3, 10 * MIN, 5 * MIN);
	running(&s, 2, TIER_P2, 0, 0x4, 8 * MIN, 20 * H);
	running(&s, 3, TIER_P2, 0, 0x8, 25 * MIN, 8 * MIN);
	running(&s, 4, TIER_P2, 0, 0x30, 6 * MIN, 4 * MIN);
	pending(&s, 100, TIER_P0, 2, 0);
	/* Two GPUs: #1 and #4 free them alone; #4 loses the least. */
	snapshot_find(&s, 1)->checkpointable = false;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){4});
	CHECK_DBL(p.victims[0].work_lost, 480, 0);
	CHECK_INT(p.victims[0].since, NOW - 4 * MIN);
	CHECK_INT(p.victims[0].gpus, 2);
	preempt_plan_release(&p);
	snapshot_find(&s, 1)->checkpointable = true;
	/* One GPU: #2 (8 min) before #3 (25 min), same work lost, and before
	 * #4, which loses as little but frees two. */
	snapshot_find(&s, 100)->req.gpus = 1;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.victims[0].since, NOW - 8 * MIN);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* One preemption frees no more than the job needs: the fewest GPUs, then
 * the least work lost, within the classes the order reaches. */
static void test_fewest_gpus_then_least_work_lost(void)
{
	struct snapshot s;
	machine(&s, 1, 4);
	/* #1: 2 GPUs x 1 min = 120 GPU-s, first in the order;
	 * #2: 1 GPU x 5 min = 300; #3: 1 GPU x 10 min = 600. */
	running(&s, 1, TIER_P2, 0, 0x3, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x4, 8 * MIN, 5 * MIN);
	running(&s, 3, TIER_P2, 0, 0x8, 12 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.victims[0].gpus, 1);
	preempt_plan_release(&p);
	/* Two GPUs: #1 alone (120) rather than #2 and #3 (900). */
	snapshot_find(&s, 100)->req.gpus = 2;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	CHECK_DBL(p.work_lost, 120, 0);
	preempt_plan_release(&p);
	/* Three: #1 and #2 (3 GPUs), not all three (4). */
	snapshot_find(&s, 100)->req.gpus = 3;
	p = choose(&s);
	check_victims(&p, 2, (int64_t[]){1, 2});
	preempt_plan_release(&p);
	/* Classes first: a P1 of one GPU is no victim while a P2 of two
	 * frees enough. */
	snapshot_find(&s, 100)->req.gpus = 1;
	snapshot_find(&s, 2)->tier = TIER_P1;
	snapshot_find(&s, 3)->tier = TIER_P1;
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_set_is_minimal(void)
{
	struct snapshot s;
	machine(&s, 2, 2);
	/* Node 0: borrowed #1 (first in order) beside a non-checkpointable #2;
	 * node 1: #3 on both GPUs. A same-node request for 2 GPUs is only met by
	 * #3, so #1, taken first, is dropped again. */
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 5 * MIN, 1 * MIN);
	running(&s, 3, TIER_P2, 1, 0x3, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 2, 0);
	snapshot_sort(&s);
	J(s, 1)->borrowed = true;
	J(s, 2)->checkpointable = false;
	J(s, 100)->req.same_node = true;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){3});
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_mismatch_not_taken(void)
{
	struct snapshot s;
	machine(&s, 2, 1);
	STR_COPY(s.nodes[1].gpu_model, "h100");
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 1, 0x1, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	STR_COPY(J(s, 100)->req.gpu_type, "h100");
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK_INT(p.excluded[PREEMPT_RULE_MISMATCH], 1);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_department_quota(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "department.prod.preemptQuota", "2", &e);
	policy_set(&s.policy, "queue.prod.department", "prod", &e);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	STR_COPY(J(s, 100)->queue, "prod");
	STR_COPY(J(s, 100)->dept, "prod");
	int di = policy_dept_index(&s.policy, "prod");
	/* Quota left: the cross-department victim spends one. */
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	CHECK(p.victims[0].cross_dept);
	CHECK_INT(p.dept_spend, 1);
	CHECK_INT(p.dept_left, 2);
	preempt_plan_release(&p);
	/* One left cannot pay for two cross-department victims. */
	s.dstate[di].preempts_month = 1;
	J(s, 100)->req.gpus = 2;
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_DEPARTMENT], 1);
	preempt_plan_release(&p);
	/* None left: no preemption rights at all, even over its own department. */
	s.dstate[di].preempts_month = 2;
	J(s, 100)->req.gpus = 1;
	STR_COPY(J(s, 1)->dept, "prod");
	p = choose(&s);
	CHECK_STR(preempt_outcome_name(p.outcome), "no-rights");
	CHECK_INT(p.nvictims, 0);
	CHECK_INT(p.dept_left, 0);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_tier_rule_and_counts(void)
{
	struct snapshot s;
	machine(&s, 1, 4);
	running(&s, 1, TIER_P1, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P0, 0, 0x2, 5 * MIN, 1 * MIN);
	running(&s, 3, TIER_P2, 0, 0x4, 40 * MIN, 1 * MIN);
	running(&s, 4, TIER_P2, 0, 0x8, 5 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P1, 1, 0);
	snapshot_sort(&s);
	J(s, 4)->checkpointable = false;
	struct preempt_plan p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.candidates, 4);
	CHECK_INT(p.eligible, 0);
	CHECK_INT(p.excluded[PREEMPT_RULE_TIER], 2);
	CHECK_INT(p.excluded[PREEMPT_RULE_PROTECTED], 1);
	CHECK_INT(p.excluded[PREEMPT_RULE_CHECKPOINT], 1);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_rollout_observe_and_trial(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "queue.exp.share", "1", &e);
	policy_set(&s.policy, "preempt.mode", "observe", &e);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	STR_COPY(J(s, 2)->queue, "exp");
	struct preempt_plan p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	CHECK(p.observe);
	CHECK_INT(p.mode, ROLLOUT_OBSERVE);
	preempt_plan_release(&p);
	policy_set(&s.policy, "preempt.mode", "trial", &e);
	policy_set(&s.policy, "preempt.trialQueues", "exp", &e);
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){2});
	CHECK(!p.observe);
	CHECK_INT(p.excluded[PREEMPT_RULE_TRIAL], 1);
	preempt_plan_release(&p);
	policy_set(&s.policy, "preempt.mode", "enforce", &e);
	p = choose(&s);
	check_victims(&p, 1, (int64_t[]){1});
	CHECK(!p.observe);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_stopping_gpus_are_waited_for(void)
{
	struct snapshot s;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 5 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	J(s, 2)->state = JOB_STOPPING;
	struct preempt_plan p = choose(&s);
	CHECK_STR(preempt_outcome_name(p.outcome), "not-needed");
	CHECK(p.stopping);
	CHECK_INT(p.nvictims, 0);
	preempt_plan_release(&p);
	J(s, 2)->state = JOB_COMPLETED;
	J(s, 2)->nalloc = 0;
	p = choose(&s);
	CHECK_STR(preempt_outcome_name(p.outcome), "not-needed");
	CHECK(!p.stopping);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* The permit: a P2 that waited 13 h (limit 12 h) on a 4-GPU node held by a
 * checkpointable P0 that started 5 min ago. */
static void permit_setup(struct snapshot *s, int64_t p0_left)
{
	machine(s, 1, 4);
	running(s, 1, TIER_P0, 0, 0xf, 5 * MIN, 2 * MIN);
	pending(s, 100, TIER_P2, 2, 13 * H);
	snapshot_sort(s);
	snapshot_find(s, 1)->estimate = 5 * MIN + p0_left;
}

static void test_permit_waits_for_p0_ending_in_9_min(void)
{
	struct snapshot s;
	struct preempt_plan p;
	permit_setup(&s, 9 * MIN);
	CHECK(permit_decide(&s, J(s, 100), &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "wait");
	CHECK_INT(p.wait_until, NOW + 9 * MIN);
	CHECK_INT(p.wait_for, 1);
	CHECK_INT(p.nvictims, 0);
	CHECK_INT(p.excluded[PREEMPT_RULE_ENDS_SOON], 1);
	CHECK(p.permit);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* An overdue P0 (issue 15, defect 3): expected to end 14 min ago, it still
 * runs (20 min, under preempt.protect), and its limit says it may end within 5 min. The permit
 * waited permit.waitFor (10 min) past that first expected end already: it no longer waits, it
 * preempts. */
static void test_permit_stops_waiting_for_an_overdue_p0(void)
{
	struct snapshot s;
	struct preempt_plan p;
	machine(&s, 1, 4);
	running(&s, 1, TIER_P0, 0, 0xf, 20 * MIN, 2 * MIN);
	pending(&s, 100, TIER_P2, 2, 13 * H);
	snapshot_sort(&s);
	J(s, 1)->estimate = 6 * MIN;
	J(s, 1)->time_limit = 25 * MIN;
	CHECK(permit_decide(&s, J(s, 100), &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "found");
	CHECK_INT(p.excluded[PREEMPT_RULE_ENDS_SOON], 0);
	preempt_plan_release(&p);
	/* 5 min overdue only: still waited for, until its limit. */
	J(s, 1)->estimate = 15 * MIN;
	CHECK(permit_decide(&s, J(s, 100), &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "wait");
	CHECK_INT(p.wait_until, NOW + 5 * MIN);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static void test_permit_preempts_p0_ending_in_40_min(void)
{
	struct snapshot s;
	struct preempt_plan p;
	permit_setup(&s, 40 * MIN);
	CHECK(permit_decide(&s, J(s, 100), &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "found");
	CHECK_INT(p.nvictims, 1);
	if (p.nvictims)
		CHECK_INT(p.victims[0].tier, TIER_P0);
	CHECK_DBL(p.work_lost, 4 * 2 * MIN, 0);
	preempt_plan_release(&p);
	/* Without the permit the P2 may not touch the P0. */
	preempt_choose(&s, J(s, 100), &p);
	CHECK_STR(preempt_outcome_name(p.outcome), "none");
	CHECK_INT(p.excluded[PREEMPT_RULE_TIER], 1);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* Issue 27, defect 4: after 12 h of waiting, the only work left is P0 that
 * ran for hours, past preempt.protect. The permit exists for exactly that:
 * it takes a checkpointable P0 whatever its run time; without a permit
 * the protection stands. The smallest sufficient victim: a 2-GPU P2 needs
 * the 2-GPU P0, not the 4-GPU one. */
static void test_permit_overrides_the_protection_time(void)
{
	struct snapshot s;
	struct preempt_plan p;
	machine(&s, 1, 8);
	struct gq_err e = GQ_ERR_INIT;
	policy_set(&s.policy, "headroom.share", "0", &e);
	running(&s, 1, TIER_P0, 0, 0x0f, 5 * H, 2 * MIN);
	running(&s, 2, TIER_P0, 0, 0x30, 4 * H, 2 * MIN);
	running(&s, 3, TIER_P0, 0, 0xc0, 4 * H, 2 * MIN);
	pending(&s, 100, TIER_P2, 2, 13 * H);
	snapshot_sort(&s);
	CHECK(permit_decide(&s, J(s, 100), &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "found");
	CHECK_INT(p.excluded[PREEMPT_RULE_PROTECTED], 0);
	CHECK_INT(p.nvictims, 1);
	if (p.nvictims)
		CHECK(p.victims[0].job == 2 || p.victims[0].job == 3);
	preempt_plan_release(&p);
	/* A P0 job (no permit) may not preempt P0 anyway; a P1 job past its
	 * own limit has no permit when its wait is short: the protection
	 * holds for ordinary preemption. */
	J(s, 1)->tier = TIER_P2;
	pending(&s, 101, TIER_P0, 4, 1 * MIN);
	snapshot_sort(&s);
	preempt_choose(&s, J(s, 101), &p);
	CHECK_STR(preempt_outcome_name(p.outcome), "none");
	CHECK(p.excluded[PREEMPT_RULE_PROTECTED] >= 1);
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* A --begin defers the wait that earns the permit: 12 h after the begin. */
static void test_permit_counts_from_the_begin(void)
{
	struct snapshot s;
	int64_t since;
	permit_setup(&s, 40 * MIN);
	struct job *j = J(s, 100);
	j->queued_time = NOW - 12 * H - 5 * MIN;
	j->begin_time = NOW - 5 * MIN;
	CHECK(!permit_has(&s, j, &since));
	CHECK_INT(since, NOW - 5 * MIN + 12 * H);
	s.now = NOW - 5 * MIN + 12 * H;
	CHECK(permit_has(&s, j, NULL));
	snapshot_release(&s);
}

static void test_permit_earned_at_the_limit(void)
{
	struct snapshot s;
	struct preempt_plan p;
	int64_t since;
	permit_setup(&s, 40 * MIN);
	struct job *j = J(s, 100);
	j->queued_time = NOW - 12 * H + 1;
	CHECK(!permit_has(&s, j, &since));
	CHECK_INT(since, NOW + 1);
	CHECK(!permit_decide(&s, j, &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "no-permit");
	preempt_plan_release(&p);
	j->queued_time = NOW - 12 * H;
	CHECK(permit_has(&s, j, NULL));
	j->held = true;
	CHECK(!permit_has(&s, j, NULL));
	j->held = false;
	j->not_before = NOW + 1;
	CHECK(!permit_has(&s, j, NULL));
	/* A free GPU: the permit starts it ahead of its turn, no victim. */
	j->not_before = 0;
	J(s, 1)->alloc[0].mask = 0x3;
	CHECK(permit_decide(&s, j, &p));
	CHECK_STR(preempt_outcome_name(p.outcome), "not-needed");
	preempt_plan_release(&p);
	snapshot_release(&s);
}

static int count_kind(const struct plan *p, enum plan_kind k)
{
	int n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += p->actions[i].kind == k;
	return n;
}

static void test_plan_gives_each_trigger_its_own_victims(void)
{
	struct snapshot s;
	struct plan pl;
	machine(&s, 1, 2);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 2 * MIN);
	pending(&s, 101, TIER_P0, 1, 1 * MIN);
	pending(&s, 102, TIER_P0, 1, 0);
	snapshot_sort(&s);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 2);
	CHECK_INT(count_kind(&pl, PLAN_START), 0);
	if (pl.n == 2) {
		CHECK_STR(plan_kind_name(pl.actions[0].kind), "preempt");
		CHECK_INT(pl.actions[0].job, 1);
		CHECK_INT(pl.actions[0].other, 100);
		CHECK_STR(pl.actions[0].reason, "priority");
		CHECK(!pl.actions[0].observe);
		CHECK_INT(pl.actions[1].job, 2);
		CHECK_INT(pl.actions[1].other, 101);
	}
	plan_release(&pl);
	/* Next plan: both victims stopping; nobody takes a third victim, and #102
	 * (no GPU coming for it) finds none either. */
	J(s, 1)->state = JOB_STOPPING;
	J(s, 2)->state = JOB_STOPPING;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 0);
	plan_release(&pl);
	snapshot_release(&s);
}

/* Issue 27's case: queue qa's department may not preempt (preemptQuota
 * 0), qb's may; both P2 victims run in qb. The GPU freed for qb's P0 is
 * its own: qa's P0, first in the order by age, neither counts the GPU
 * being freed nor starts on it once free, and no second victim is taken
 * for a job that needs one GPU. */
static void test_plan_freed_gpus_go_to_their_trigger(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "department.da.preemptQuota", "0", &e);
	policy_set(&s.policy, "queue.qa.department", "da", &e);
	policy_set(&s.policy, "queue.qb.department", "db", &e);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 6 * MIN, 1 * MIN);
	pending(&s, 3, TIER_P0, 1, 2 * MIN);
	pending(&s, 4, TIER_P0, 1, 1 * MIN);
	snapshot_sort(&s);
	for (int64_t id = 1; id <= 4; id++) {
		STR_COPY(J(s, id)->queue, id == 3 ? "qa" : "qb");
		STR_COPY(J(s, id)->dept, id == 3 ? "da" : "db");
	}
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 1);
	const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a && a->other == 4);
	plan_release(&pl);
	/* gq serve signals #1 and gives #4 its claim. In the grace period
	 * nothing more is preempted. */
	J(s, 1)->state = JOB_STOPPING;
	J(s, 1)->stop_deadline = NOW + 5 * MIN;
	J(s, 4)->claim_time = NOW;
	size_t idx[8];
	CHECK_INT(order_pending(&s, idx), 2);
	CHECK_INT(s.jobs[idx[0]].id, 4);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 0);
	CHECK_INT(count_kind(&pl, PLAN_START), 0);
	plan_release(&pl);
	/* #1 released (pending, cooldown): its GPU is #4's, not #3's. */
	s.now = NOW + 2 * MIN;
	J(s, 1)->state = JOB_PENDING;
	J(s, 1)->not_before = s.now + 10 * MIN;
	job_set_alloc(J(s, 1), 0, NULL);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_START), 1);
	CHECK(plan_find(&pl, PLAN_START, 4) != NULL);
	CHECK(plan_find(&pl, PLAN_START, 3) == NULL);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 0);
	plan_release(&pl);
	snapshot_release(&s);
}

/* A queue quota is a guarantee (issue 27): queue exp, using none of its
 * quota of 4, takes back the GPUs train borrowed beyond its own quota,
 * whatever their tier, under every other rule; never the GPUs train
 * holds within its quota, nor for a job that would itself borrow. */
static void test_quota_reclaims_borrowed_whatever_the_tier(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 8);
	policy_set(&s.policy, "headroom.share", "0", &e);
	policy_set(&s.policy, "queue.train.quota", "4", &e);
	policy_set(&s.policy, "queue.train.borrow", "2", &e);
	policy_set(&s.policy, "queue.exp.quota", "4", &e);
	running(&s, 1, TIER_P1, 0, 0x03, 20 * MIN, 1 * MIN);
	running(&s, 2, TIER_P1, 0, 0x0c, 20 * MIN, 1 * MIN);
	running(&s, 12, TIER_P1, 0, 0x10, 10 * MIN, 1 * MIN);
	running(&s, 13, TIER_P1, 0, 0x20, 10 * MIN, 1 * MIN);
	running(&s, 20, TIER_P0, 0, 0xc0, 10 * MIN, 1 * MIN); /* prod's, the last two */
	pending(&s, 100, TIER_P1, 2, 0);
	snapshot_sort(&s);
	for (int64_t id = 1; id <= 13; id++)
		if (J(s, id))
			STR_COPY(J(s, id)->queue, "train");
	STR_COPY(J(s, 20)->queue, "prod");
	J(s, 12)->borrowed = J(s, 13)->borrowed = true;
	STR_COPY(J(s, 100)->queue, "exp");
	struct preempt_plan p = choose(&s);
	check_victims(&p, 2, (int64_t[]){12, 13});
	CHECK(p.reclaim);
	CHECK_INT(p.queue_used, 0);
	CHECK_INT(p.queue_quota, 4);
	CHECK_INT(p.reclaimed_gpus, 2);
	CHECK(p.nvictims == 2 && p.victims[0].reclaimed && p.victims[1].reclaimed);
	CHECK_INT(p.excluded[PREEMPT_RULE_TIER], 3); /* train's own 4 GPUs, prod's P0 */
	preempt_plan_release(&p);
	/* The plan takes them with reason "reclaim"; a P2 of exp too. */
	for (int tier = TIER_P1; tier <= TIER_P2; tier++) {
		J(s, 100)->tier = (enum tier)tier;
		plan_init(&pl);
		sched_plan(&s, &pl);
		CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 2);
		const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 12);
		CHECK(a && a->other == 100 && !strcmp(a->reason, "reclaim"));
		plan_release(&pl);
	}
	J(s, 100)->tier = TIER_P1;
	/* The anti-thrash rules hold: a resumed victim in its cooldown is not
	 * taken, and then too few GPUs come back. */
	J(s, 13)->restarts = 1;
	J(s, 13)->start_time = NOW - 5 * MIN;
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_COOLDOWN], 1);
	preempt_plan_release(&p);
	J(s, 13)->restarts = 0;
	J(s, 13)->start_time = NOW - 10 * MIN;
	/* Within its own queue borrowing is not reclaimed. */
	STR_COPY(J(s, 100)->queue, "train");
	p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK(!p.reclaim);
	preempt_plan_release(&p);
	/* exp already holds 2 of its 4: a 3-GPU job would borrow, and
	 * reclaims nothing; a 2-GPU one reclaims. */
	STR_COPY(J(s, 100)->queue, "exp");
	STR_COPY(J(s, 1)->queue, "exp");
	J(s, 100)->req.gpus = 3;
	p = choose(&s);
	CHECK(!p.reclaim);
	CHECK_INT(p.nvictims, 0);
	preempt_plan_release(&p);
	J(s, 100)->req.gpus = 2;
	p = choose(&s);
	CHECK(p.reclaim);
	CHECK_INT(p.queue_used, 2);
	check_victims(&p, 2, (int64_t[]){12, 13});
	preempt_plan_release(&p);
	snapshot_release(&s);
}

/* Work over its department's spent GPU-hours (gpuHoursAction
 * preemptible) is below P2: a P2 within its quota may take its GPUs, a P2
 * over quota may not take another's, and over-quota work never triggers. */
static void test_over_quota_work_is_preemptible_by_any_tier(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "department.lab.gpuHours", "10", &e);
	policy_set(&s.policy, "queue.lab.department", "lab", &e);
	policy_set(&s.policy, "headroom.share", "0", &e);
	running(&s, 1, TIER_P1, 0, 0x3, 5 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P2, 2, 2 * MIN);
	snapshot_sort(&s);
	STR_COPY(J(s, 1)->queue, "lab");
	STR_COPY(J(s, 1)->dept, "lab");
	/* Within its quota, the P1 is no P2's victim. */
	snapshot_mark_over_quota(&s);
	struct preempt_plan p = choose(&s);
	check_victims(&p, 0, NULL);
	CHECK_INT(p.excluded[PREEMPT_RULE_TIER], 1);
	preempt_plan_release(&p);
	/* Its department's hours spent: it is. */
	s.dstate[policy_dept_index(&s.policy, "lab")].gpu_hours_month = 10;
	snapshot_mark_over_quota(&s);
	CHECK(J(s, 1)->over_quota);
	p = choose(&s);
	check_victims(&p, 1, (const int64_t[]){1});
	preempt_plan_release(&p);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK(plan_find(&pl, PLAN_PREEMPT, 1) != NULL);
	plan_release(&pl);
	/* A P2 of the spent department itself takes nothing. */
	STR_COPY(J(s, 100)->queue, "lab");
	STR_COPY(J(s, 100)->dept, "lab");
	snapshot_mark_over_quota(&s);
	p = choose(&s);
	check_victims(&p, 0, NULL);
	preempt_plan_release(&p);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 0);
	plan_release(&pl);
	snapshot_release(&s);
}

static void test_plan_shares_budget_and_quota_between_triggers(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "queue.exp.share", "1", &e);
	running(&s, 1, TIER_P2, 0, 0x1, 5 * MIN, 1 * MIN);
	running(&s, 2, TIER_P2, 0, 0x2, 20 * MIN, 10 * MIN);
	pending(&s, 100, TIER_P0, 1, 2 * MIN);
	pending(&s, 101, TIER_P0, 1, 1 * MIN);
	snapshot_sort(&s);
	STR_COPY(J(s, 1)->queue, "exp");
	STR_COPY(J(s, 2)->queue, "exp");
	s.qstate[policy_queue_index(&s.policy, "exp")].preempts_hour = 3; /* one left */
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 1);
	CHECK(plan_find(&pl, PLAN_PREEMPT, 1) != NULL);
	plan_release(&pl);
	/* Budget back; now the triggers' department has one peak preemption
	 * left and both victims belong to another department. */
	s.qstate[policy_queue_index(&s.policy, "exp")].preempts_hour = 0;
	policy_set(&s.policy, "department.prod.preemptQuota", "1", &e);
	STR_COPY(J(s, 100)->dept, "prod");
	STR_COPY(J(s, 101)->dept, "prod");
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 1);
	const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a && a->other == 100);
	plan_release(&pl);
	snapshot_release(&s);
}

static void test_plan_window_suspends_its_queue(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	/* NOW is 13:46:40 UTC (tz_offset 0). */
	policy_set(&s.policy, "queue.exp.window", "13:00-14:00", &e);
	running(&s, 1, TIER_P1, 0, 0x1, 50 * MIN, 1 * MIN); /* long run, P1: still suspended */
	running(&s, 2, TIER_P2, 0, 0x2, 5 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P0, 1, 0);
	snapshot_sort(&s);
	STR_COPY(J(s, 1)->queue, "exp");
	J(s, 1)->checkpointable = false;
	plan_init(&pl);
	sched_plan(&s, &pl);
	const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a != NULL);
	if (a) {
		CHECK_STR(a->reason, "window");
		CHECK_INT(a->other, 0);
		CHECK(!a->observe);
	}
	/* #100 does not take #1 a second time: it takes #2. */
	a = plan_find(&pl, PLAN_PREEMPT, 2);
	CHECK(a && a->other == 100);
	CHECK_INT(count_kind(&pl, PLAN_PREEMPT), 2);
	plan_release(&pl);
	/* windowAction finish: #1 cannot checkpoint, so it runs on. */
	policy_set(&s.policy, "queue.exp.windowAction", "finish", &e);
	plan_init(&pl);
	sched_plan(&s, &pl);
	a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a == NULL || a->other != 0); /* not a window victim */
	J(s, 1)->checkpointable = true;	   /* one that can is still suspended */
	plan_release(&pl);
	plan_init(&pl);
	sched_plan(&s, &pl);
	a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a && !strcmp(a->reason, "window"));
	plan_release(&pl);
	J(s, 1)->checkpointable = false;
	policy_set(&s.policy, "queue.exp.windowAction", "requeue", &e);
	/* 14:06:40: the window is over; nothing to suspend. */
	s.now = NOW + 20 * MIN;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK(plan_find(&pl, PLAN_PREEMPT, 1) == NULL);
	plan_release(&pl);
	/* Trial outside the trial queues: recorded only. */
	policy_set(&s.policy, "preempt.mode", "trial", &e);
	s.now = NOW;
	plan_init(&pl);
	sched_plan(&s, &pl);
	a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a && a->observe);
	plan_release(&pl);
	snapshot_release(&s);
}

/* preempt_window_stop: what a submit says of its queue's window. NOW is
 * 13:46:40 UTC; the pause 14:00-15:00 begins 800 s later. */
static void test_window_stop_at_submit(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	struct window_stop w;
	machine(&s, 1, 2);
	policy_set(&s.policy, "queue.exp.window", "14:00-15:00", &e);
	pending(&s, 100, TIER_P1, 1, 0);
	snapshot_sort(&s);
	struct job *j = J(s, 100);
	STR_COPY(j->queue, "exp");
	j->checkpointable = false;
	j->time_limit = 60 * MIN;
	const int64_t stop = NOW + 800;
	/* Expected to run 30 minutes from now: stopped at 14:00. */
	CHECK(preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	CHECK_STR(w.queue, "exp");
	CHECK_INT(w.stop, stop);
	CHECK_INT(w.end, NOW + 30 * MIN);
	CHECK_INT(w.limit_end, NOW + 60 * MIN);
	CHECK(w.expected);
	CHECK_INT(w.action, WINDOW_REQUEUE);
	CHECK_INT(w.window.start_min, 14 * 60);
	/* Expected to end before, its limit after: it may be stopped. */
	CHECK(preempt_window_stop(&s, j, NOW, 10 * MIN, &w));
	CHECK(!w.expected);
	/* Ends, and must end, by 14:00 (the end at the pause's start is in time). */
	j->time_limit = 800;
	CHECK(!preempt_window_stop(&s, j, NOW, 10 * MIN, &w));
	/* No time limit: whatever it is expected to run, it may run into it. */
	j->time_limit = 0;
	CHECK(preempt_window_stop(&s, j, NOW, 10 * MIN, &w));
	CHECK(!w.expected);
	CHECK_INT(w.limit_end, 0);
	/* Started in the pause (after it, at 15:00): the next day's pause. */
	j->time_limit = 60 * MIN;
	CHECK(!preempt_window_stop(&s, j, stop + 60 * MIN, 30 * MIN, &w));
	CHECK(!preempt_window_stop(&s, j, stop + 60 * MIN, 23 * 60 * MIN, &w)); /* ends at 14:00 */
	j->time_limit = 24 * 60 * MIN;
	CHECK(preempt_window_stop(&s, j, stop + 60 * MIN, 23 * 60 * MIN + 1, &w));
	CHECK_INT(w.stop, stop + 86400);
	CHECK(w.expected);
	j->time_limit = 60 * MIN;
	/* The window in the server's local time: 15:00 at UTC+1 is 14:00 UTC. */
	s.tz_offset = 3600;
	policy_set(&s.policy, "queue.exp.window", "15:00-16:00", &e);
	CHECK(preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	CHECK_INT(w.stop, stop);
	CHECK_INT(w.tz_offset, 3600);
	/* Nothing when it can checkpoint, when the window lets it finish,
	 * when preemption only observes, or in a queue without a window. */
	j->checkpointable = true;
	CHECK(!preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	j->checkpointable = false;
	policy_set(&s.policy, "queue.exp.windowAction", "finish", &e);
	CHECK(!preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	policy_set(&s.policy, "queue.exp.windowAction", "requeue", &e);
	policy_set(&s.policy, "preempt.mode", "observe", &e);
	CHECK(!preempt_window_may_stop(&s, j));
	CHECK(!preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	policy_set(&s.policy, "preempt.mode", "enforce", &e);
	CHECK(preempt_window_may_stop(&s, j));
	STR_COPY(j->queue, "default");
	CHECK(!preempt_window_stop(&s, j, NOW, 30 * MIN, &w));
	snapshot_release(&s);
}

static void test_plan_observe_records_only(void)
{
	struct snapshot s;
	struct plan pl;
	struct gq_err e = GQ_ERR_INIT;
	machine(&s, 1, 2);
	policy_set(&s.policy, "preempt.mode", "observe", &e);
	running(&s, 1, TIER_P2, 0, 0x3, 5 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P1, 1, 0);
	snapshot_sort(&s);
	plan_init(&pl);
	sched_plan(&s, &pl);
	const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a != NULL);
	if (a) {
		CHECK(a->observe);
		CHECK_INT(a->other, 100);
	}
	plan_release(&pl);
	snapshot_release(&s);
}

static void test_plan_permit_waits_and_wakes(void)
{
	struct snapshot s;
	struct plan pl;
	permit_setup(&s, 9 * MIN);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 0);
	CHECK_INT(pl.wake, NOW + 9 * MIN);
	plan_release(&pl);
	J(s, 1)->estimate = 45 * MIN;
	plan_init(&pl);
	sched_plan(&s, &pl);
	const struct plan_action *a = plan_find(&pl, PLAN_PREEMPT, 1);
	CHECK(a != NULL);
	if (a) {
		CHECK_INT(a->other, 100);
		CHECK_STR(a->reason, "permit");
	}
	plan_release(&pl);
	/* Not yet a permit: the plan wakes when it is earned. */
	J(s, 100)->queued_time = NOW - 11 * H;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 0);
	CHECK_INT(pl.wake, NOW + 1 * H);
	plan_release(&pl);
	snapshot_release(&s);
}

static void test_plan_reminds_and_downgrades(void)
{
	struct snapshot s;
	struct plan pl;
	machine(&s, 1, 1);
	running(&s, 1, TIER_P0, 0, 0x1, 40 * MIN, 1 * MIN);
	pending(&s, 100, TIER_P0, 1, 2 * H);
	pending(&s, 101, TIER_P0, 1, 3 * H);
	pending(&s, 102, TIER_P0, 1, 90 * MIN);
	snapshot_sort(&s);
	J(s, 101)->reminded_at = NOW - 31 * MIN;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 2);
	CHECK(plan_find(&pl, PLAN_REMIND, 100) != NULL);
	const struct plan_action *a = plan_find(&pl, PLAN_DOWNGRADE, 101);
	CHECK(a && !a->observe);
	CHECK_STR(plan_kind_name(PLAN_DOWNGRADE), "downgrade");
	CHECK_INT(pl.wake, NOW + 30 * MIN); /* #102's reminder */
	plan_release(&pl);
	snapshot_release(&s);
}

void suite_preempt(void)
{
	RUN(test_non_checkpointable_never_chosen);
	RUN(test_protected_after_30_min);
	RUN(test_cooldown_after_a_resume);
	RUN(test_budget_spent);
	RUN(test_over_quota_work_is_preemptible_by_any_tier);
	RUN(test_borrowed_first);
	RUN(test_lowest_tier_first);
	RUN(test_least_work_lost_then_shortest_run);
	RUN(test_fewest_gpus_then_least_work_lost);
	RUN(test_set_is_minimal);
	RUN(test_mismatch_not_taken);
	RUN(test_department_quota);
	RUN(test_tier_rule_and_counts);
	RUN(test_rollout_observe_and_trial);
	RUN(test_stopping_gpus_are_waited_for);
	RUN(test_permit_waits_for_p0_ending_in_9_min);
	RUN(test_permit_preempts_p0_ending_in_40_min);
	RUN(test_permit_stops_waiting_for_an_overdue_p0);
	RUN(test_permit_earned_at_the_limit);
	RUN(test_permit_counts_from_the_begin);
	RUN(test_permit_overrides_the_protection_time);
	RUN(test_plan_gives_each_trigger_its_own_victims);
	RUN(test_plan_freed_gpus_go_to_their_trigger);
	RUN(test_quota_reclaims_borrowed_whatever_the_tier);
	RUN(test_plan_shares_budget_and_quota_between_triggers);
	RUN(test_plan_window_suspends_its_queue);
	RUN(test_window_stop_at_submit);
	RUN(test_plan_observe_records_only);
	RUN(test_plan_permit_waits_and_wakes);
	RUN(test_plan_reminds_and_downgrades);
}
