/* share.c - exact decay, interval usage, advancing queue usage, ratios. */
#include "harness.h"

#include "core/share.h"

#include <math.h>
#include <string.h>

#define DAY 86400
#define WEEK (7 * DAY)

static void test_decay_half_life_is_exact(void)
{
	CHECK_DBL(share_decay(1000, WEEK, WEEK), 500, 0);
	CHECK_DBL(share_decay(1000, 2 * WEEK, WEEK), 250, 0);
	CHECK_DBL(share_decay(1000, 0, WEEK), 1000, 0);
	CHECK_DBL(share_decay(1000, -5, WEEK), 1000, 0);
	/* Half a half-life is 1/sqrt(2). */
	CHECK_DBL(share_decay(1000, WEEK / 2, WEEK), 1000 / sqrt(2), 1e-9);
	CHECK_DBL(share_decay(1000, 10, 0), 0, 0);
}

static void test_interval_is_the_decayed_integral(void)
{
	/* One GPU over one half-life, seen at its end: h / ln2 x (1 - 1/2). */
	CHECK_DBL(share_interval(1, 0, WEEK, WEEK, WEEK), WEEK / (2 * M_LN2), 1e-6);
	/* The same seen one half-life later is half of it. */
	CHECK_DBL(share_interval(1, 0, WEEK, 2 * WEEK, WEEK), WEEK / (4 * M_LN2), 1e-6);
	/* A short interval is barely decayed: 8 GPUs x 60 s is 479.98 GPU-seconds. */
	CHECK_DBL(share_interval(8, 1000, 1060, 1060, WEEK),
		  8 * WEEK / M_LN2 * (1 - exp2(-60.0 / WEEK)), 1e-9);
	CHECK_DBL(share_interval(8, 1000, 1060, 1060, WEEK), 479.9835, 1e-4);
	CHECK_DBL(share_interval(8, 1060, 1000, 1060, WEEK), 0, 0);
}

static void setup(struct snapshot *s)
{
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(s);
	policy_set(&s->policy, "queue.a.share", "1", &e);
	policy_set(&s->policy, "queue.b.share", "3", &e);
	struct node *n = snapshot_add_node(s);
	n->ngpus = 8;
	struct job *j = snapshot_add_job(s);
	j->id = 1;
	STR_COPY(j->queue, "a");
	j->state = JOB_RUNNING;
	j->start_time = 100;
	j->nalloc = 1;
	j->alloc = xcalloc(1, sizeof(*j->alloc));
	j->alloc[0].mask = 0x3; /* 2 GPUs */
}

/* A stale `now` (a restarted server charging a job before its clock was
 * set) once made the decay factor 2^(huge) = inf, and usage NaN for good. */
static void test_interval_and_decay_stay_finite(void)
{
	/* GPUs held after now do not count yet. */
	CHECK_DBL(share_interval(1, 0, 2 * WEEK, WEEK, WEEK), WEEK / (2 * M_LN2), 1e-6);
	CHECK_DBL(share_interval(4, 1796155050, 1796155052, 0, WEEK), 0, 0);
	CHECK(isfinite(share_interval(4, 1796155050, 1796155052, 0, 1)));
	CHECK_DBL(share_interval(NAN, 0, 10, 10, WEEK), 0, 0);
	CHECK_DBL(share_interval(INFINITY, 0, 10, 10, WEEK), 0, 0);
	CHECK_DBL(share_decay(NAN, 10, WEEK), 0, 0);
	CHECK_DBL(share_decay(INFINITY, 10, WEEK), 0, 0);
	CHECK_DBL(share_decay(-INFINITY, 0, WEEK), 0, 0);
	CHECK_DBL(share_decay(-3, 0, WEEK), 0, 0);
	struct snapshot s;
	setup(&s);
	int qa = policy_queue_index(&s.policy, "a");
	s.now = 0; /* as a restart found it */
	share_charge(&s, "a", 2, 1796155050, 1796155052);
	CHECK(isfinite(s.qstate[qa].usage));
	s.now = 1796155100;
	share_advance(&s, 1796155000);
	CHECK(isfinite(s.qstate[qa].usage));
	snapshot_release(&s);
}

static void test_advance_is_path_independent(void)
{
	struct snapshot one, two;
	setup(&one);
	setup(&two);
	int qa = policy_queue_index(&one.policy, "a");
	one.qstate[qa].usage = two.qstate[qa].usage = 5000;
	one.now = 100 + 3 * DAY;
	share_advance(&one, 100);
	two.now = 100 + DAY;
	share_advance(&two, 100);
	two.now = 100 + 3 * DAY;
	share_advance(&two, 100 + DAY);
	CHECK_DBL(two.qstate[qa].usage, one.qstate[qa].usage, 1e-6);
	double want = share_decay(5000, 3 * DAY, WEEK) +
		      share_interval(2, 100, 100 + 3 * DAY, 100 + 3 * DAY, WEEK);
	CHECK_DBL(one.qstate[qa].usage, want, 1e-6);
	snapshot_release(&one);
	snapshot_release(&two);
}

static void test_ratio_divides_by_share(void)
{
	struct snapshot s;
	setup(&s);
	int qa = policy_queue_index(&s.policy, "a"), qb = policy_queue_index(&s.policy, "b");
	s.qstate[qa].usage = 300;
	s.qstate[qb].usage = 600;
	CHECK_DBL(share_queue_ratio(&s, qa), 300, 0);
	CHECK_DBL(share_queue_ratio(&s, qb), 200, 0);
	CHECK_DBL(share_queue_ratio(&s, 99), 0, 0);
	/* Both queues belong to department "default" with "default" (usage 0, share 1). */
	int di = policy_dept_index(&s.policy, "default");
	CHECK_DBL(share_dept_usage(&s, di), 900, 0);
	CHECK_DBL(share_dept_ratio(&s, di), 900.0 / 5, 1e-12);
	snapshot_release(&s);
}

void suite_share(void)
{
	RUN(test_decay_half_life_is_exact);
	RUN(test_interval_is_the_decayed_integral);
	RUN(test_interval_and_decay_stay_finite);
	RUN(test_advance_is_path_independent);
	RUN(test_ratio_divides_by_share);
}
