/* predict.c - the simulation: the worked example, backfill, aging during the
 * wait, gates, ranges, the jobs waited for, starvation permits,
 * determinism, history helpers. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "core/order.h"
#include "core/predict.h"
#include "core/reason.h"
#include "core/sched.h"
#include "explain/explain.h"
#include "explain/zone.h"
#include "fixture.h"

static void set(struct snapshot *s, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, k, v, &e), 0);
}

static const struct prediction *find(const struct prediction_set *ps, const struct snapshot *s,
				     int64_t id)
{
	const struct prediction *p = prediction_find(ps, s, id);
	CHECK(p != NULL);
	static struct prediction none;
	return p ? p : &none;
}

/* On a backend's order (Slurm) the prediction's positions are the
 * backend's priority across tiers: a P2 job Slurm ranks first starts
 * before the P0 behind it, as squeue's order says, not after. */
static void test_backend_order_crosses_tiers(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.order = ORDER_BACKEND;
	s.policy.aging_step = 0;
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 70 * 60); /* ends at +60 */
	struct job *p0 = fx_pending(&s, 2, TIER_P0, 8, MIN(-2));
	p0->estimate = 30 * 60;
	p0->ext_prio = 100;
	struct job *p2 = fx_pending(&s, 3, TIER_P2, 8, MIN(-1));
	p2->estimate = 30 * 60;
	p2->ext_prio = 20000;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 3)->position, 1);
	CHECK_INT(find(&ps, &s, 3)->start, MIN(60));
	CHECK_INT(find(&ps, &s, 2)->position, 2);
	CHECK_INT(find(&ps, &s, 2)->start, MIN(90));
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* DESIGN §5: 8 GPUs, three 8-GPU P0 jobs ahead with 40, 25 and 60 min to
 * run, a new 8-GPU P1 job starts in 125 min. */
static void test_worked_example_125_minutes(void)
{
	/* Under the default policy: headroom (15%) never holds back a GPU that
	 * an 8-GPU request on an 8-GPU machine needs. */
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P0, 8, MIN(-3))->estimate = 40 * 60;
	fx_pending(&s, 2, TIER_P0, 8, MIN(-2))->estimate = 25 * 60;
	fx_pending(&s, 3, TIER_P0, 8, MIN(-1))->estimate = 60 * 60;
	fx_pending(&s, 4, TIER_P1, 8, MIN(0))->estimate = 30 * 60;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 1)->start, MIN(0));
	CHECK_INT(find(&ps, &s, 2)->start, MIN(40));
	CHECK_INT(find(&ps, &s, 3)->start, MIN(65));
	const struct prediction *p = find(&ps, &s, 4);
	CHECK_INT(p->start - s.now, 125 * 60);
	CHECK_INT(p->position, 4);
	CHECK_INT(p->gate, GATE_ENDS);
	CHECK_INT(p->nwaits, 1);
	CHECK_INT(p->waits[0], 3);
	CHECK_INT(p->low, MIN(125));
	CHECK_INT(p->high, MIN(125));
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* The same with the first P0 already running, 40 minutes left. */
static void test_worked_example_first_running(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P0, 0, 8, MIN(-20), 60 * 60);
	fx_pending(&s, 2, TIER_P0, 8, MIN(-2))->estimate = 25 * 60;
	fx_pending(&s, 3, TIER_P0, 8, MIN(-1))->estimate = 60 * 60;
	fx_pending(&s, 4, TIER_P1, 8, MIN(0));
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 4)->start - s.now, 125 * 60);
	CHECK_INT(ps.ends[0], MIN(40));
	CHECK_INT(find(&ps, &s, 2)->waits[0], 1);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* A job blocked at the head holds a reservation: a short job behind it
 * fills the gap, a longer one would delay it and waits. */
static void test_backfill_small_fills_gap_long_does_not(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 70 * 60); /* ends at +60 */
	fx_pending(&s, 2, TIER_P0, 8, MIN(0))->estimate = 30 * 60;
	fx_pending(&s, 3, TIER_P1, 4, MIN(0))->estimate = 90 * 60; /* long */
	fx_pending(&s, 4, TIER_P1, 4, MIN(1))->estimate = 30 * 60; /* small */
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *head = find(&ps, &s, 2), *lng = find(&ps, &s, 3),
				*small = find(&ps, &s, 4);
	CHECK_INT(head->start, MIN(60));
	CHECK_INT(small->start, MIN(0));
	CHECK(small->backfilled);
	CHECK_INT(lng->start, MIN(90));
	CHECK(!lng->backfilled);
	CHECK_INT(lng->position, 2);
	CHECK_INT(small->position, 3);
	prediction_set_release(&ps);

	/* Without the head, nothing is protected: the long one, first in
	 * order, takes the free half at once. */
	snapshot_find(&s, 2)->state = JOB_CANCELLED;
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 3)->start, MIN(0));
	CHECK_INT(find(&ps, &s, 4)->start, MIN(60));
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* Aging during the simulated wait changes the order: A is ahead now (one
 * step more), by the time GPUs free both are at step 3 and fair share puts
 * B first. */
static void test_aging_during_wait_reorders(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.busy.share", "1");
	s.qstate[1].usage = 1000;
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 80 * 60); /* ends at +70 */
	struct job *a = fx_pending(&s, 2, TIER_P1, 8, MIN(-35));
	a->estimate = 3600;
	STR_COPY(a->queue, "busy");
	fx_pending(&s, 3, TIER_P1, 8, MIN(-25))->estimate = 3600;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 2)->position, 1);
	CHECK_INT(find(&ps, &s, 3)->position, 2);
	CHECK_INT(find(&ps, &s, 3)->start, MIN(70));
	CHECK_INT(find(&ps, &s, 2)->start, MIN(130));
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* Range: low from the shortest estimate, high from time limits; the jobs
 * waited for are those whose GPUs it takes. */
static void test_range_and_waits_exact(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	struct job *r1 = fx_running(&s, 10, TIER_P1, 0, 4, MIN(-10), 30 * 60); /* +20 */
	r1->time_limit = 70 * 60;					       /* +60 */
	r1->hist_runtime = 20 * 60;					       /* low +10 */
	struct job *r2 = fx_running(&s, 11, TIER_P1, 0, 4, MIN(-10), 50 * 60); /* +40 */
	r2->time_limit = 130 * 60;					       /* +120 */
	struct job *a = fx_pending(&s, 12, TIER_P0, 8, MIN(0));
	a->estimate = 60 * 60;
	a->time_limit = 120 * 60;
	a->hist_runtime = 45 * 60;
	fx_pending(&s, 13, TIER_P1, 8, MIN(0))->estimate = 600;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 12);
	CHECK_INT(p->start, MIN(40));
	CHECK_INT(p->low, MIN(40)); /* r2 has no lower estimate */
	CHECK_INT(p->high, MIN(120));
	CHECK_INT(p->end, MIN(100));
	CHECK_INT(p->nwaits, 2);
	CHECK_INT(p->waits[0], 10);
	CHECK_INT(p->waits[1], 11);
	const struct prediction *q = find(&ps, &s, 13);
	CHECK_INT(q->start, MIN(100));
	CHECK_INT(q->low, MIN(85));   /* 40 + 45 min */
	CHECK_INT(q->high, MIN(240)); /* 120 + 120 min */
	CHECK_INT(q->nwaits, 1);
	CHECK_INT(q->waits[0], 12);
	CHECK_INT(predict_runtime_low(&s.policy, snapshot_find(&s, 12)), 45 * 60);
	CHECK_INT(predict_runtime_high(&s.policy, snapshot_find(&s, 12)), 120 * 60);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

static void test_dependency_starts_after_predicted_end(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 50 * 60); /* +40 */
	struct job *j = fx_pending(&s, 2, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 1;
	j = fx_pending(&s, 3, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 2;
	j = fx_pending(&s, 4, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 99; /* absent: counts as done */
	struct job *f = fx_pending(&s, 5, TIER_P1, 1, MIN(-100));
	f->state = JOB_FAILED;
	j = fx_pending(&s, 6, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 5;
	j = fx_pending(&s, 7, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 6;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 2);
	CHECK_INT(p->start, MIN(40));
	CHECK_INT(p->gate, GATE_DEPENDENCY);
	CHECK_INT(p->nwaits, 1);
	CHECK_INT(p->waits[0], 1);
	CHECK_INT(find(&ps, &s, 3)->start, MIN(100)); /* 40 + the default 1h */
	CHECK_INT(find(&ps, &s, 4)->start, MIN(0));
	CHECK_INT(find(&ps, &s, 6)->never, NEVER_DEP_FAILED);
	CHECK(!find(&ps, &s, 6)->placed);
	CHECK_INT(find(&ps, &s, 7)->never, NEVER_DEP_NEVER);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

static void test_cooldown_window_held_unsatisfiable(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.exp.window", "20:00-08:00");
	s.now = 1700000000LL - 1700000000LL % 86400 + 21 * 3600; /* 21:00 UTC */
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, s.now);
	j->not_before = s.now + 600;
	j = fx_pending(&s, 2, TIER_P1, 1, s.now);
	STR_COPY(j->queue, "exp");
	j = fx_pending(&s, 3, TIER_P1, 1, s.now);
	j->held = true;
	j = fx_pending(&s, 4, TIER_P1, 9, s.now);
	j->req.same_node = true;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 1)->start, s.now + 600);
	CHECK_INT(find(&ps, &s, 1)->gate, GATE_COOLDOWN);
	CHECK_INT(find(&ps, &s, 2)->start, s.now + 11 * 3600);
	CHECK_INT(find(&ps, &s, 2)->gate, GATE_WINDOW);
	CHECK_INT(find(&ps, &s, 3)->never, NEVER_HELD);
	CHECK_INT(find(&ps, &s, 4)->never, NEVER_UNSATISFIABLE);
	CHECK_INT(ps.wake, s.now + 600);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

static void test_quota_parks_until_queue_job_ends(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.default.quota", "4");
	set(&s, "queue.default.borrow", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 40 * 60); /* +30 */
	fx_pending(&s, 2, TIER_P1, 2, MIN(0));
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 2);
	CHECK_INT(p->start, MIN(30));
	CHECK_INT(p->gate, GATE_QUOTA);
	CHECK_INT(p->nwaits, 1);
	CHECK_INT(p->waits[0], 1);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A mixed workload, built from a seed. */
static void workload(struct snapshot *s, uint64_t seed, int njobs)
{
	fx_init(s, 6, 8);
	STR_COPY(s->nodes[5].gpu_model, "h100");
	struct gq_err e = GQ_ERR_INIT;
	policy_set(&s->policy, "queue.exp.quota", "8", &e);
	policy_set(&s->policy, "queue.exp.borrow", "8", &e);
	s->qstate[0].usage = 5;
	uint64_t x = seed;
	int node = 0, used = 0;
	for (int i = 1; i <= njobs; i++) {
		int g = 1 << (rng_next(&x) % 4);
		enum tier t = (enum tier)(rng_next(&x) % 3);
		struct job *j;
		if (i % 4 == 0 && node < 5) {
			if (used + g > 8) {
				node++;
				used = 0;
			}
			if (node >= 5)
				continue;
			j = fx_running(s, i, t, node, g, MIN(-(int)(rng_next(&x) % 120)),
				       (int64_t)(rng_next(&x) % 240 + 1) * 60);
			used += g;
		} else {
			j = fx_pending(s, i, t, g, MIN(-(int)(rng_next(&x) % 300)));
			j->estimate = (int64_t)(rng_next(&x) % 180 + 5) * 60;
			if (i % 3 == 0)
				STR_COPY(j->queue, "exp");
			if (i % 7 == 0)
				STR_COPY(j->req.gpu_type, "h100");
			if (i % 5 == 0)
				j->req.same_node = true;
		}
	}
}

static bool same_prediction(const struct prediction *a, const struct prediction *b)
{
	return a->job == b->job && a->position == b->position && a->never == b->never &&
	       a->placed == b->placed && a->start == b->start && a->low == b->low &&
	       a->high == b->high && a->nwaits == b->nwaits &&
	       !memcmp(a->waits, b->waits, sizeof(a->waits)) && a->nalloc == b->nalloc &&
	       !memcmp(a->alloc, b->alloc, sizeof(a->alloc)[0] * (size_t)a->nalloc);
}

static void test_determinism_shuffled_input(void)
{
	struct snapshot s;
	workload(&s, 42, 300);
	snapshot_sort(&s);
	struct prediction_set a, b;
	prediction_set_init(&a);
	prediction_set_init(&b);
	predict_all(&s, &a);
	uint64_t x = 7;
	for (size_t i = s.njobs - 1; i > 0; i--) {
		size_t k = rng_next(&x) % (i + 1);
		struct job t = s.jobs[i];
		s.jobs[i] = s.jobs[k];
		s.jobs[k] = t;
	}
	snapshot_sort(&s);
	predict_all(&s, &b);
	CHECK_INT(a.n, b.n);
	size_t diff = 0;
	for (size_t i = 0; i < a.n && i < b.n; i++)
		diff += !same_prediction(&a.items[i], &b.items[i]);
	CHECK_INT(diff, 0);
	size_t placed = 0;
	for (size_t i = 0; i < a.n; i++)
		placed += a.items[i].placed;
	CHECK(placed > a.n / 2);
	prediction_set_release(&a);
	prediction_set_release(&b);
	snapshot_release(&s);
}

/* A blocked job's reservation counts GPUs, whoever holds the CPUs: here
 * the free GPUs of node0 wait only for a CPU-only job's end at +10 min.
 * Job 1 (in a queue with a limit, so that the walk runs place_check on it)
 * must keep them: job 2, which would hold one until +50, may not backfill.
 * The walk used to take the free GPUs of place_check's answer, which
 * leaves out nodes short of CPUs, and put job 1's shadow at job 3's end. */
static void test_backfill_counts_gpus_on_nodes_short_of_cpus(void)
{
	struct snapshot s;
	fx_init(&s, 2, 2);
	s.nodes[0].cpus = s.nodes[1].cpus = 8;
	set(&s, "queue.exp.quota", "4");
	set(&s, "queue.exp.borrow", "0");
	struct job *x = fx_running(&s, 4, TIER_P1, 0, 0, MIN(-5), 15 * 60);
	x->req.cpus = 8;
	fx_running(&s, 3, TIER_P1, 1, 2, MIN(-5), 65 * 60);
	struct job *a = fx_pending(&s, 1, TIER_P0, 2, MIN(-30));
	a->req.cpus = 4;
	a->estimate = 3600;
	STR_COPY(a->queue, "exp");
	fx_pending(&s, 2, TIER_P1, 1, MIN(-20))->estimate = 50 * 60;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 1)->start, MIN(10));
	CHECK(!find(&ps, &s, 2)->backfilled);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* Invariants on a mixed workload: starts never before now, ranges hold
 * the start, no start before a dependency's end, and a job ahead is never
 * later than it would be with every job behind it removed. */
static void test_backfill_never_delays_a_job_ahead(void)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct snapshot s;
		workload(&s, seed * 977, 120);
		/* Reservations protect jobs waiting for capacity; a job held
		 * back by its queue's quota holds none (predict.h). Aging is
		 * off: with it, which job is "ahead" changes during the wait,
		 * and cutting the queue at now is no longer the oracle.
		 * Permits are off too: a permit holder takes free GPUs
		 * ahead of its turn, whoever they were kept for. */
		set(&s, "queue.exp.quota", "unlimited");
		set(&s, "aging.cap", "0");
		set(&s, "tier.P0.waitLimit", "365d");
		set(&s, "tier.P1.waitLimit", "365d");
		set(&s, "tier.P2.waitLimit", "365d");
		snapshot_sort(&s);
		struct prediction_set all;
		prediction_set_init(&all);
		predict_all(&s, &all);
		size_t bad = 0;
		for (size_t i = 0; i < all.n; i++) {
			const struct prediction *p = &all.items[i];
			if (!p->placed)
				continue;
			bad += p->start < s.now || p->low > p->start || p->high < p->start;
		}
		CHECK_INT(bad, 0);
		/* Cut the queue behind position k: the first k jobs must
		 * start no later than in the full run. */
		for (size_t k = 5; k < all.n; k += 17) {
			struct snapshot c;
			snapshot_init(&c);
			c.now = s.now;
			c.policy = s.policy;
			memcpy(c.qstate, s.qstate, sizeof(c.qstate));
			for (size_t n = 0; n < s.nnodes; n++)
				*snapshot_add_node(&c) = s.nodes[n];
			for (size_t n = 0; n < s.njobs; n++) {
				const struct job *j = &s.jobs[n];
				int32_t pi = all.of_job[n];
				if (pi >= 0 && (size_t)pi >= k)
					continue;
				job_copy(snapshot_add_job(&c), j);
			}
			snapshot_sort(&c);
			struct prediction_set cut;
			prediction_set_init(&cut);
			predict_all(&c, &cut);
			size_t later = 0;
			for (size_t i = 0; i < cut.n; i++) {
				const struct prediction *full =
				    prediction_find(&all, &s, cut.items[i].job);
				if (full && full->placed && cut.items[i].placed &&
				    full->start > cut.items[i].start)
					later++;
			}
			CHECK_INT(later, 0);
			prediction_set_release(&cut);
			snapshot_release(&c);
		}
		prediction_set_release(&all);
		snapshot_release(&s);
	}
}

/*
 * Issue #15's backfill: 10 GPUs, R1 runs 5 until +1000 s, R2 1 until +60 s;
 * pending A (8 GPUs), B (6, does not fit either) and C (1 GPU, 300 s). C
 * fits now and ends long before A or B could start (+1000 s, when R1's GPUs
 * come back): it starts now, in the prediction and in the plan, and A
 * still starts at +1000 s. B's own long run does not pull the bound down to
 * R2's end.
 */
static void test_backfill_behind_two_blocked_jobs(void)
{
	struct snapshot s;
	fx_init(&s, 1, 10);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 5, MIN(-10), 600 + 1000);
	fx_running(&s, 2, TIER_P1, 0, 1, MIN(-10), 600 + 60);
	fx_pending(&s, 3, TIER_P1, 8, MIN(-3))->estimate = 3600;
	fx_pending(&s, 4, TIER_P1, 6, MIN(-2))->estimate = 7200;
	fx_pending(&s, 5, TIER_P1, 1, MIN(-1))->estimate = 300;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *c = find(&ps, &s, 5);
	CHECK_INT(c->start, T0);
	CHECK(c->backfilled);
	CHECK_INT(find(&ps, &s, 3)->start, T0 + 1000);
	CHECK_INT(find(&ps, &s, 4)->start, T0 + 1000 + 3600);
	CHECK_INT(ps.backfill_until, T0 + 1000);
	prediction_set_release(&ps);
	struct plan pl;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 1);
	CHECK(plan_find(&pl, PLAN_START, 5) != NULL);
	plan_release(&pl);
	snapshot_release(&s);
}

/*
 * Issue #15, defect 4: on 8 GPUs a P1 job (4 GPUs, estimate 2 h) runs, a P0
 * job of 8 GPUs waits. A P2 job of 1 GPU with neither an estimate nor a
 * time limit could run past the P0's start: it is not backfilled, in the
 * prediction nor in the plan. With a time limit of 1 h (a queue's
 * defaultTime) it is.
 */
static void test_unknown_length_is_not_backfilled(void)
{
	for (int limited = 0; limited <= 1; limited++) {
		struct snapshot s;
		fx_init(&s, 1, 8);
		set(&s, "headroom.share", "0");
		fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 2 * 3600);
		fx_pending(&s, 2, TIER_P0, 8, MIN(-5));
		struct job *j = fx_pending(&s, 3, TIER_P2, 1, MIN(-1));
		j->time_limit = limited ? 3600 : 0;
		snapshot_sort(&s);
		CHECK(predict_bounded(snapshot_find(&s, 3)) == (bool)limited);
		struct prediction_set ps;
		prediction_set_init(&ps);
		predict_all(&s, &ps);
		const struct prediction *p = find(&ps, &s, 3);
		CHECK_INT(find(&ps, &s, 2)->start, MIN(110));
		if (limited) {
			CHECK_INT(p->start, T0);
			CHECK(p->backfilled);
		} else {
			/* After the P0, which runs predict.defaultRuntime. */
			CHECK_INT(p->start, MIN(110 + 60));
			CHECK(!p->backfilled);
		}
		prediction_set_release(&ps);
		struct plan pl;
		plan_init(&pl);
		sched_plan(&s, &pl);
		CHECK((plan_find(&pl, PLAN_START, 3) != NULL) == (bool)limited);
		plan_release(&pl);
		snapshot_release(&s);
	}
}

/* The prediction's positions are order_pending's order, which gq ls shows. */
static void test_positions_follow_order_pending(void)
{
	struct snapshot s;
	workload(&s, 99, 400);
	s.qstate[1].usage = 3; /* "exp": a different fair share */
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	size_t *idx = malloc(s.njobs * sizeof(*idx));
	size_t n = order_pending(&s, idx);
	CHECK_INT(ps.n, n);
	size_t diff = 0;
	for (size_t i = 0; i < n && i < ps.n; i++)
		diff += ps.items[i].idx != idx[i] || ps.items[i].position != (int)i + 1;
	CHECK_INT(diff, 0);
	free(idx);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

static void test_history_helpers(void)
{
	static const int64_t rt[] = {600, 0, 300, 1200, 900};
	static const int64_t lim[] = {3600, 3600, 600, 1200, 0};
	CHECK_INT(predict_hist_runtime(rt, 5), 600); /* {300,600,900,1200}: 2nd */
	CHECK_INT(predict_hist_runtime(rt, 0), 0);
	CHECK_DBL(predict_hist_ratio(rt, lim, 5), 0.5, 1e-12); /* {1/6, 1/2, 1} */
	CHECK_DBL(predict_hist_ratio(rt, lim, 1), 600.0 / 3600, 1e-12);
	struct policy p;
	policy_defaults(&p);
	struct job j;
	job_init(&j);
	CHECK_INT(predict_runtime(&p, &j), 3600);
	j.time_limit = 4000;
	j.hist_ratio = 0.25;
	CHECK_INT(predict_runtime(&p, &j), 1000);
	j.hist_runtime = 1500;
	CHECK_INT(predict_runtime(&p, &j), 1500);
	CHECK_INT(predict_runtime_low(&p, &j), 1000);
	j.estimate = 9000; /* never beyond the limit */
	CHECK_INT(predict_runtime(&p, &j), 4000);
	CHECK_INT(predict_runtime_high(&p, &j), 4000);
}

static struct job *finished(struct snapshot *s, int64_t id, const char *user, const char *name,
			    enum job_state st, int64_t runtime, int64_t limit)
{
	struct job *j = fx_pending(s, id, TIER_P1, 1, MIN(-600));
	STR_COPY(j->user, user);
	STR_COPY(j->name, name);
	j->state = st;
	j->start_time = MIN(-500);
	j->end_time = j->start_time + runtime;
	j->time_limit = limit;
	return j;
}

/* History from the snapshot's finished jobs: per user and name the smaller
 * of the last two runs' mean (1500) and the P50 (1200), else the user's last
 * two runs; P50 runtime/limit per user; only completed runs count. */
static void test_fill_history_from_finished_jobs(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	finished(&s, 1, "alice", "train", JOB_COMPLETED, 1800, 3600);
	finished(&s, 2, "alice", "train", JOB_COMPLETED, 600, 3600);
	finished(&s, 3, "alice", "train", JOB_COMPLETED, 1200, 3600);
	finished(&s, 4, "alice", "train", JOB_FAILED, 5, 3600);
	finished(&s, 5, "alice", "eval", JOB_COMPLETED, 300, 0);
	finished(&s, 6, "bob", "train", JOB_CANCELLED, 100, 200);
	struct job *a = fx_pending(&s, 10, TIER_P1, 1, MIN(0));
	STR_COPY(a->name, "train");
	struct job *b = fx_pending(&s, 11, TIER_P1, 1, MIN(0));
	STR_COPY(b->name, "other");
	b->time_limit = 6 * 3600;
	struct job *c = fx_pending(&s, 12, TIER_P1, 1, MIN(0));
	STR_COPY(c->user, "bob");
	STR_COPY(c->name, "train");
	c->hist_runtime = 999; /* stale: overwritten */
	predict_fill_history(&s);
	snapshot_sort(&s);
	const struct job *j = snapshot_find(&s, 10);
	CHECK_INT(j->hist_runtime, 1200);
	CHECK_DBL(j->hist_ratio, 1.0 / 3, 1e-12);
	/* Its source for gq why: the median of 3 runs, below the mean of the
	 * last two (1800 and 1200 s: all start together, so the longest
	 * ends last). */
	CHECK_INT(j->hist_src, HIST_NAME_P50);
	CHECK_INT(j->hist_n, 3);
	CHECK_INT(j->hist_last, 1800);
	CHECK_INT(j->hist_prev, 1200);
	/* No run of this name: the user's last two runs of any name (1800 and
	 * 1200 s), ahead of the ratio (6 h x 1/3). */
	j = snapshot_find(&s, 11);
	CHECK_INT(j->hist_runtime, 1500);
	CHECK_DBL(j->hist_ratio, 1.0 / 3, 1e-12);
	CHECK_INT(predict_runtime(&s.policy, j), 1500);
	CHECK_INT(j->hist_src, HIST_USER_LAST2);
	CHECK_INT(j->hist_n, 2);
	CHECK_INT(j->hist_last + j->hist_prev, 3000);
	j = snapshot_find(&s, 12);
	CHECK_INT(j->hist_runtime, 0);
	CHECK_INT(j->hist_src, HIST_NONE);
	CHECK_INT(j->hist_n, 0);
	CHECK_DBL(j->hist_ratio, 0, 0);
	CHECK_INT(snapshot_find(&s, 1)->hist_runtime, 0); /* finished jobs untouched */
	snapshot_release(&s);
}

/* Issue 15, defect 3: a job past its expected end no longer "ends now"
 * (now + 1, so that the ETAs behind it slid minute by minute): it is
 * expected to run as long again as it has run, at most to its limit. */
static void test_overdue_job_gets_a_fresh_expectation(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *j = fx_running(&s, 1, TIER_P1, 0, 8, MIN(-100), 60 * 60);
	CHECK_INT(predict_end(&s.policy, j, s.now), MIN(100));
	CHECK(predict_overdue(&s.policy, j, s.now));
	CHECK_INT(predict_first_end(&s.policy, j, s.now), MIN(-40));
	j->time_limit = 120 * 60;
	CHECK_INT(predict_end(&s.policy, j, s.now), MIN(20));
	j->state = JOB_STOPPING;
	j->stop_deadline = MIN(5);
	CHECK_INT(predict_end(&s.policy, j, s.now), MIN(5));
	CHECK(!predict_overdue(&s.policy, j, s.now));
	/* Within its estimate: not overdue, ends at start + estimate. */
	j->state = JOB_RUNNING;
	j->estimate = 150 * 60;
	j->time_limit = 0;
	CHECK(!predict_overdue(&s.policy, j, s.now));
	CHECK_INT(predict_end(&s.policy, j, s.now), MIN(50));
	snapshot_release(&s);
}

/* gq why names the source of an expected runtime from history. */
static void test_why_says_the_runtime_comes_from_history(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 60 * 60);
	struct job *j = fx_pending(&s, 2, TIER_P1, 8, MIN(-10));
	STR_COPY(j->user, "alice");
	STR_COPY(j->name, "train");
	j->hist_runtime = 42 * 60;
	j->hist_src = HIST_NAME_LAST2;
	j->hist_n = 5;
	j->hist_last = 45 * 60;
	j->hist_prev = 39 * 60;
	snapshot_sort(&s);
	struct zone utc;
	zone_fixed(&utc, 0, "UTC");
	struct explain_set x;
	explain_compute(&s, &utc, &x);
	const struct explain *ex = explain_find(&x, 2);
	struct buf b;
	buf_init(&b, 0);
	if (ex)
		explain_text(&x, ex, &b);
	CHECK(b.data && strstr(b.data, " Expected to run 42m, the mean of alice's last 2 runs of "
				       "'train' (39m and 45m).") != NULL);
	buf_release(&b);
	explain_release(&x);
	/* Each source in its words: the median, the shorter of two, any name,
	 * a single run. */
	static const struct {
		int src, n;
		int64_t prev;
		const char *text;
	} said[] = {
	    {HIST_NAME_P50, 7, 39 * 60,
	     " Expected to run 42m, the median of alice's 7 runs of 'train' (the last 2 took 39m "
	     "and 45m)."},
	    {HIST_NAME_P50, 2, 39 * 60,
	     " Expected to run 42m, the shorter of alice's 2 runs of 'train' (39m and 45m)."},
	    {HIST_USER_LAST2, 2, 39 * 60,
	     " Expected to run 42m, the mean of alice's last 2 runs of any name (39m and 45m)."},
	    {HIST_NAME_LAST2, 1, 0,
	     " Expected to run 42m, as long as alice's last run of 'train'."},
	    {HIST_USER_LAST2, 1, 0,
	     " Expected to run 42m, as long as alice's last run of any name."},
	};
	for (size_t k = 0; k < sizeof(said) / sizeof(said[0]); k++) {
		struct job *p = snapshot_find(&s, 2);
		p->hist_src = said[k].src;
		p->hist_n = said[k].n;
		p->hist_prev = said[k].prev;
		explain_compute(&s, &utc, &x);
		ex = explain_find(&x, 2);
		buf_init(&b, 0);
		if (ex)
			explain_text(&x, ex, &b);
		CHECK(b.data && strstr(b.data, said[k].text) != NULL);
		buf_release(&b);
		explain_release(&x);
	}
	/* With an estimate, the user knows: nothing said. */
	snapshot_find(&s, 2)->estimate = 3600;
	explain_compute(&s, &utc, &x);
	ex = explain_find(&x, 2);
	buf_init(&b, 0);
	if (ex)
		explain_text(&x, ex, &b);
	CHECK(b.data && !strstr(b.data, "Expected to run"));
	buf_release(&b);
	explain_release(&x);
	snapshot_release(&s);
}

/* The job behind an overdue one: its start is the fresh expectation, not
 * now + 1, and gq why says the job it waits for is overdue. */
static void test_waiting_for_an_overdue_job(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-100), 60 * 60);
	fx_pending(&s, 2, TIER_P1, 8, MIN(-10));
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = prediction_find(&ps, &s, 2);
	CHECK(p && p->placed);
	if (p)
		CHECK_INT(p->start, MIN(100));
	prediction_set_release(&ps);
	struct zone utc;
	zone_fixed(&utc, 0, "UTC");
	struct explain_set x;
	explain_compute(&s, &utc, &x);
	const struct explain *ex = explain_find(&x, 2);
	CHECK(ex != NULL);
	if (ex) {
		struct buf b;
		buf_init(&b, 0);
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "when #1 ends (#1 is overdue: expected to end ") != NULL);
		buf_release(&b);
	}
	explain_release(&x);
	snapshot_release(&s);
}

/* Whatever a snapshot holds, no time overflows (UBSan would stop here)
 * and every placed job starts at or after now. */
static void test_extreme_values_stay_in_range(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *r = fx_running(&s, 1, TIER_P1, 0, 2, INT64_MAX - 5, INT64_MAX);
	r->time_limit = INT64_MAX;
	r = fx_running(&s, 2, TIER_P1, 0, 2, MIN(-1), 60);
	r->nalloc = -3;
	struct job *j = fx_pending(&s, 3, TIER_P1, 8, MIN(0));
	j->estimate = INT64_MAX;
	j->time_limit = INT64_MAX;
	j->hist_ratio = 1e300;
	j = fx_pending(&s, 4, TIER_P1, 1, INT64_MAX);
	j->not_before = INT64_MAX - 1;
	j = fx_pending(&s, 5, TIER_P2, 1, MIN(0));
	j->time_limit = 1000;
	j->hist_ratio = 1e300;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	size_t bad = 0;
	for (size_t i = 0; i < ps.n; i++) {
		const struct prediction *p = &ps.items[i];
		bad += p->placed && (p->start < s.now || p->low > p->start || p->high < p->start ||
				     p->end < p->start);
	}
	CHECK_INT(bad, 0);
	CHECK(find(&ps, &s, 4)->placed);
	CHECK_INT(find(&ps, &s, 5)->runtime, 1000);
	struct why_set ws;
	why_set_init(&ws);
	reason_all(&s, &ps, &ws);
	CHECK_INT(ws.n, 3);
	why_set_release(&ws);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* The queue of bench/cli.sh, smaller: one 8-GPU node held for 2 h by a P0
 * job, then 300 pending jobs i = 1..300 (id i + 1) of tier i%3, 1 + i%7
 * GPUs, estimate 600 + 300 x (i%7) s, all queued at now. After the first
 * end every end starts a walk that looks past PREDICT_BACKFILL_DEPTH
 * blocked jobs, with backfill into the gaps: a few starts, their sum and
 * the number backfilled pin the whole plan to the second, and the wait
 * reasons of two jobs pin the explanation. Starvation permits take part:
 * at +2 h every P0 holds one (tier.P0.waitLimit), at +8 h every P1, at
 * +12 h every P2. So #7 (i 6, 7 GPUs) does not start at +8700 when #4
 * ends: at +8400 the walk leaves 4 GPUs idle for it, and the permits of
 * #16 and #37 (2 GPUs, 900 s each) take them ahead of their turn, as gq
 * serve would; #7 starts when they end, at +9300. */
static void test_one_node_long_queue_exact_starts(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *r = fx_running(&s, 1, TIER_P0, 0, 8, T0, 2 * 3600);
	r->time_limit = 4 * 3600;
	for (int i = 1; i <= 300; i++) {
		enum tier t = i % 3 == 0 ? TIER_P0 : i % 3 == 1 ? TIER_P1 : TIER_P2;
		fx_pending(&s, i + 1, t, 1 + i % 7, T0)->estimate = 600 + 300 * (i % 7);
	}
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(ps.n, 300);
	CHECK_INT(ps.nfree, 0);
	int64_t sum = 0;
	int backfilled = 0, never = 0;
	for (size_t i = 0; i < ps.n; i++) {
		sum += ps.items[i].start - s.now;
		backfilled += ps.items[i].backfilled;
		never += ps.items[i].never != NEVER_NO;
	}
	CHECK_INT(sum, 40702500);
	CHECK_INT(backfilled, 69);
	CHECK_INT(never, 0);
	CHECK_INT(find(&ps, &s, 4)->start, T0 + 7200);	   /* i 3: the first P0, 4 GPUs */
	CHECK_INT(find(&ps, &s, 7)->start, T0 + 9300);	   /* i 6: 7 GPUs, see above */
	CHECK_INT(find(&ps, &s, 100)->start, T0 + 13500);  /* i 99: the last P0 */
	CHECK_INT(find(&ps, &s, 2)->start, T0 + 60600);	   /* i 1: the first P1 */
	CHECK_INT(find(&ps, &s, 71)->start, T0 + 41700);   /* i 70: a 1-GPU P1 */
	CHECK_INT(find(&ps, &s, 3)->start, T0 + 194100);   /* i 2: the first P2 */
	CHECK_INT(find(&ps, &s, 301)->start, T0 + 110100); /* i 300: the last, P0 */
	CHECK_INT(find(&ps, &s, 300)->start, T0 + 334500); /* i 299: the last P2 */
	const struct prediction *p = find(&ps, &s, 300);
	CHECK_INT(p->position, 300);
	CHECK_INT(p->gate, GATE_ENDS);
	CHECK_INT(p->low, T0 + 334500);
	CHECK_INT(p->high, T0 + 341700);
	CHECK_INT(p->nwaits, 1);
	CHECK_INT(p->waits[0], 294);
	CHECK_INT(p->backfilled, 0);
	CHECK_INT(find(&ps, &s, 71)->backfilled, 0);
	CHECK_INT(find(&ps, &s, 71)->permit, 1);
	struct why_set ws;
	why_set_init(&ws);
	reason_all(&s, &ps, &ws);
	const struct why *w = why_find(&ws, &s, 300);
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->primary, REASON_PRIORITY);
		CHECK_INT(w->ahead, 299);
		CHECK_INT(w->reeval_job, 1);
		CHECK_INT(w->nitems, 2);
		CHECK_INT(w->items[1].reason, REASON_RESOURCES);
	}
	w = why_find(&ws, &s, 4);
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->primary, REASON_RESOURCES);
		CHECK_INT(w->ahead, 0);
		CHECK_INT(w->reeval_job, 1);
	}
	why_set_release(&ws);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* Two queues paused in turn, each with a job that fits only if a node that
 * is down comes back: every window end starts a walk inside the other
 * queue's pause, which parks its job again, day after day. The prediction
 * still ends, and says that neither can start under this snapshot. */
static void test_windows_in_turn_no_room_ends(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	s.nodes[1].up = false;
	set(&s, "queue.exp.window", "20:00-08:00");
	set(&s, "queue.prod.window", "08:00-20:00");
	STR_COPY(fx_pending(&s, 1, TIER_P1, 16, T0)->queue, "exp");
	STR_COPY(fx_pending(&s, 2, TIER_P1, 16, T0)->queue, "prod");
	fx_pending(&s, 3, TIER_P2, 8, T0)->estimate = 3600;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(find(&ps, &s, 1)->never, NEVER_CAPACITY);
	CHECK_INT(find(&ps, &s, 2)->never, NEVER_CAPACITY);
	CHECK(!find(&ps, &s, 1)->placed);
	CHECK(!find(&ps, &s, 2)->placed);
	CHECK_INT(find(&ps, &s, 3)->never, NEVER_NO);
	CHECK_INT(find(&ps, &s, 3)->start, T0);
	CHECK_INT(ps.nfree, 8); /* the node that is down counts for nothing */
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* A start that waits for more jobs than it keeps: the lowest ids kept in
 * order, every job counted once however many of its GPUs it frees. */
static void test_waits_cut_counts_jobs_once(void)
{
	struct snapshot s;
	fx_init(&s, 1, 20);
	for (int i = 0; i < 10; i++)
		fx_running(&s, 11 + i, TIER_P1, 0, 2, MIN(-10), 60 * (20 + i));
	fx_pending(&s, 30, TIER_P1, 20, MIN(0))->estimate = 600;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 30);
	CHECK_INT(p->start, MIN(-10 + 29));
	CHECK_INT(p->nwaits, PREDICT_MAX_WAITS);
	CHECK_INT(p->nwaits_all, 10);
	for (int i = 0; i < p->nwaits; i++)
		CHECK_INT(p->waits[i], 11 + i);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* Starvation permits (preempt.h). A P2 job queued 11 h ago earns its
 * permit at +60 (tier.P2.waitLimit 12 h). The head job waits for 8 GPUs,
 * so 4 sit free, and the P2 job would outlast the head's reservation: it
 * is not backfilled. At +60 its permit lets it take 2 of them ahead of its
 * turn, as gq serve would; the head waits for it. */
static void test_permit_starts_at_earn_time_on_free_gpus(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 190 * 60); /* ends at +180 */
	fx_pending(&s, 2, TIER_P0, 8, MIN(-5))->estimate = 60 * 60;
	fx_pending(&s, 3, TIER_P2, 2, MIN(-660))->estimate = 240 * 60;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 3);
	CHECK_INT(p->start, MIN(60));
	CHECK_INT(p->end, MIN(300));
	CHECK_INT(p->gate, GATE_PERMIT);
	CHECK_STR(predict_gate_name(p->gate), "permit");
	CHECK_INT(p->permit, 1);
	CHECK_INT(p->backfilled, 0);
	CHECK_INT(p->position, 2);
	CHECK_INT(p->nwaits, 0);
	CHECK_INT(p->low, MIN(0));
	CHECK_INT(p->high, MIN(60));
	CHECK_INT(p->nalloc, 1);
	CHECK_INT(p->alloc[0].mask, 0x30);
	const struct prediction *h = find(&ps, &s, 2);
	CHECK_INT(h->start, MIN(300));
	CHECK_INT(h->permit, 0);
	CHECK_INT(h->nwaits, 2);
	CHECK_INT(h->waits[0], 1);
	CHECK_INT(h->waits[1], 3);
	prediction_set_release(&ps);

	/* The plan at now starts nothing, and wakes at the earn time. */
	struct plan pl;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.n, 0);
	CHECK_INT(pl.wake, MIN(60));
	plan_release(&pl);

	/* At +60 the plan starts it, with the reason "permit", on the GPUs
	 * the prediction gave it. */
	s.now = MIN(60);
	plan_init(&pl);
	sched_plan(&s, &pl);
	const struct plan_action *a = plan_find(&pl, PLAN_START, 3);
	CHECK(a != NULL);
	if (a) {
		CHECK_STR(a->reason, "permit");
		CHECK_INT(a->nalloc, 1);
		CHECK_INT(a->alloc[0].mask, 0x30);
	}
	plan_release(&pl);
	snapshot_release(&s);
}

static bool same_prediction(const struct prediction *a, const struct prediction *b);

/* The same, but its queue is at its limit until +400: the permit does not
 * lift quotas, and the prediction is the one without permits. */
static void test_permit_does_not_lift_quota(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.exp.quota", "2");
	set(&s, "queue.exp.borrow", "0");
	fx_running(&s, 1, TIER_P1, 0, 2, MIN(-10), 190 * 60); /* ends at +180 */
	STR_COPY(fx_running(&s, 2, TIER_P2, 0, 2, MIN(-10), 410 * 60)->queue, "exp"); /* +400 */
	fx_pending(&s, 3, TIER_P0, 6, MIN(-5))->estimate = 60 * 60;
	struct job *j = fx_pending(&s, 4, TIER_P2, 2, MIN(-660));
	j->estimate = 240 * 60;
	STR_COPY(j->queue, "exp");
	snapshot_sort(&s);
	struct prediction_set with, without;
	prediction_set_init(&with);
	prediction_set_init(&without);
	predict_all(&s, &with);
	const struct prediction *p = find(&with, &s, 4);
	CHECK_INT(p->start, MIN(400));
	CHECK_INT(p->gate, GATE_QUOTA);
	CHECK_INT(p->permit, 0);
	CHECK_INT(find(&with, &s, 3)->start, MIN(180));
	set(&s, "tier.P2.waitLimit", "365d");
	predict_all(&s, &without);
	CHECK_INT(with.n, without.n);
	size_t diff = 0;
	for (size_t i = 0; i < with.n && i < without.n; i++)
		diff += !same_prediction(&with.items[i], &without.items[i]) ||
			with.items[i].gate != without.items[i].gate;
	CHECK_INT(diff, 0);
	prediction_set_release(&with);
	prediction_set_release(&without);
	snapshot_release(&s);
}

/* Two P2 jobs earn their permits at +60, with room for one: the first in
 * the order (here by fair share: queue exp has used less, although #5 has
 * the lower id) takes it, as sched_plan() would; the other takes the GPUs
 * freed at +180, ahead of the head job, which then waits for both. */
static void test_two_permit_holders_in_order(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.exp.share", "1");
	s.qstate[policy_queue_index(&s.policy, "default")].usage = 100;
	s.qstate[policy_queue_index(&s.policy, "exp")].usage = 0;
	fx_running(&s, 1, TIER_P1, 0, 6, MIN(-10), 190 * 60); /* ends at +180 */
	fx_pending(&s, 2, TIER_P0, 8, MIN(-5))->estimate = 60 * 60;
	fx_pending(&s, 5, TIER_P2, 2, MIN(-660))->estimate = 240 * 60;
	struct job *j = fx_pending(&s, 6, TIER_P2, 2, MIN(-660));
	j->estimate = 240 * 60;
	STR_COPY(j->queue, "exp");
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *first = find(&ps, &s, 6), *second = find(&ps, &s, 5);
	CHECK_INT(first->position, 2);
	CHECK_INT(second->position, 3);
	CHECK_INT(first->start, MIN(60));
	CHECK_INT(first->gate, GATE_PERMIT);
	CHECK_INT(first->permit, 1);
	CHECK_INT(second->start, MIN(180));
	CHECK_INT(second->gate, GATE_ENDS); /* the GPUs came later than the permit */
	CHECK_INT(second->permit, 1);
	CHECK_INT(second->nwaits, 1);
	CHECK_INT(second->waits[0], 1);
	CHECK_INT(find(&ps, &s, 2)->start, MIN(420));
	prediction_set_release(&ps);

	/* The plan at +60 agrees: #6 starts by its permit, #5 does not. */
	s.now = MIN(60);
	struct plan pl;
	plan_init(&pl);
	sched_plan(&s, &pl);
	const struct plan_action *a = plan_find(&pl, PLAN_START, 6);
	CHECK(a != NULL);
	if (a)
		CHECK_STR(a->reason, "permit");
	CHECK(plan_find(&pl, PLAN_START, 5) == NULL);
	plan_release(&pl);
	snapshot_release(&s);
}

/* 128-node jobs on 200 nodes of 8: the second waits for the first, which
 * holds 128 nodes, and is predicted on 128 nodes when it ends. */
static void test_wide_job_waits_for_wide_job(void)
{
	struct snapshot s;
	fx_init(&s, 200, 8);
	set(&s, "headroom.share", "0");
	struct job *run = fx_pending(&s, 1, TIER_P1, 1024, MIN(-20));
	run->state = JOB_RUNNING;
	run->start_time = MIN(-10);
	run->estimate = 70 * 60; /* ends at +60 */
	struct job_alloc *a = xcalloc(128, sizeof(*a));
	for (int i = 0; i < 128; i++)
		a[i] = (struct job_alloc){i, 0xff};
	job_set_alloc(run, 128, a);
	free(a);
	fx_pending(&s, 2, TIER_P1, 1024, MIN(-5))->estimate = 3600;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 2);
	CHECK(p->placed);
	CHECK_INT(p->start, MIN(60));
	CHECK_INT(p->nalloc, 128);
	CHECK_INT(p->nwaits, 1);
	CHECK_INT(p->waits[0], 1);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* A backend's reservations (core/resv.h): one of every node from +30 to
 * +90 keeps a job whose limit would run into it until +90, but not one
 * that ends by +30, nor (once it is over) the one that waited; a job
 * that names a reservation of its own starts when that begins; one of
 * some nodes changes nothing. The reason says it, with the time. */
static void test_reservations_keep_their_nodes(void)
{
	struct snapshot s;
	fx_init(&s, 2, 4);
	s.order = ORDER_BACKEND; /* as a Slurm snapshot: no aging, no headroom */
	s.policy.aging_step = 0;
	s.policy.headroom = 0;
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 70 * 60); /* ends at +60 */
	struct job *lng = fx_pending(&s, 2, TIER_P1, 2, MIN(-3));
	lng->time_limit = lng->estimate = 2 * 3600;
	lng->ext_prio = 300;
	struct job *shrt = fx_pending(&s, 3, TIER_P1, 2, MIN(-2));
	shrt->time_limit = shrt->estimate = 20 * 60;
	shrt->ext_prio = 200;
	struct job *own = fx_pending(&s, 4, TIER_P1, 2, MIN(-1));
	own->time_limit = own->estimate = 10 * 60;
	own->ext_prio = 100;
	STR_COPY(own->reservation, "mine");
	struct job *unlimited = fx_pending(&s, 5, TIER_P1, 1, MIN(-1));
	unlimited->estimate = 10 * 60;
	unlimited->ext_prio = 50;
	struct reservation *r = snapshot_add_resv(&s);
	STR_COPY(r->name, "maint");
	r->start_time = MIN(30);
	r->end_time = MIN(90);
	r->all_nodes = r->maint = true;
	r = snapshot_add_resv(&s);
	STR_COPY(r->name, "mine");
	r->start_time = MIN(15);
	r->end_time = MIN(45);
	r = snapshot_add_resv(&s);
	STR_COPY(r->name, "some");
	r->start_time = MIN(0);
	r->end_time = MIN(200);
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p = find(&ps, &s, 2);
	CHECK_INT(p->start, MIN(90));
	CHECK_STR(predict_gate_name(p->gate), "reservation");
	CHECK_INT(find(&ps, &s, 3)->start, MIN(0));
	p = find(&ps, &s, 4);
	CHECK_INT(p->start, MIN(15));
	CHECK_STR(predict_gate_name(p->gate), "reservation");
	/* No time limit: it would run into any reservation ahead. */
	CHECK_INT(find(&ps, &s, 5)->start, MIN(90));

	struct why_set ws;
	why_set_init(&ws);
	reason_all(&s, &ps, &ws);
	const struct why *w = why_find(&ws, &s, 2);
	if (CHECK(w != NULL)) {
		CHECK_STR(reason_name(w->primary), "reservation");
		CHECK_INT(w->items[0].until, MIN(90));
	}
	w = why_find(&ws, &s, 3);
	CHECK(w && w->primary == REASON_STARTING);
	why_set_release(&ws);
	/* Said with the time limit, or without one. */
	struct zone utc;
	zone_fixed(&utc, 0, "UTC");
	struct explain_set x;
	explain_compute(&s, &utc, &x);
	struct buf b;
	buf_init(&b, 0);
	explain_text(&x, explain_find(&x, 2), &b);
	CHECK(strstr(b.data, "; started before it, its time limit (2h00m) would run into it.") !=
	      NULL);
	buf_reset(&b);
	explain_text(&x, explain_find(&x, 5), &b);
	CHECK(strstr(b.data, "; without a time limit, it would run into it.") != NULL);
	buf_release(&b);
	explain_release(&x);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

void suite_predict(void)
{
	RUN(test_reservations_keep_their_nodes);
	RUN(test_wide_job_waits_for_wide_job);
	RUN(test_permit_starts_at_earn_time_on_free_gpus);
	RUN(test_permit_does_not_lift_quota);
	RUN(test_two_permit_holders_in_order);
	RUN(test_waits_cut_counts_jobs_once);
	RUN(test_worked_example_125_minutes);
	RUN(test_backend_order_crosses_tiers);
	RUN(test_worked_example_first_running);
	RUN(test_backfill_small_fills_gap_long_does_not);
	RUN(test_aging_during_wait_reorders);
	RUN(test_range_and_waits_exact);
	RUN(test_dependency_starts_after_predicted_end);
	RUN(test_cooldown_window_held_unsatisfiable);
	RUN(test_quota_parks_until_queue_job_ends);
	RUN(test_determinism_shuffled_input);
	RUN(test_backfill_never_delays_a_job_ahead);
	RUN(test_backfill_behind_two_blocked_jobs);
	RUN(test_unknown_length_is_not_backfilled);
	RUN(test_backfill_counts_gpus_on_nodes_short_of_cpus);
	RUN(test_positions_follow_order_pending);
	RUN(test_history_helpers);
	RUN(test_overdue_job_gets_a_fresh_expectation);
	RUN(test_waiting_for_an_overdue_job);
	RUN(test_why_says_the_runtime_comes_from_history);
	RUN(test_fill_history_from_finished_jobs);
	RUN(test_extreme_values_stay_in_range);
	RUN(test_one_node_long_queue_exact_starts);
	RUN(test_windows_in_turn_no_room_ends);
}
