/* reason.c - every wait reason of DESIGN §4 produced by a snapshot, with
 * its numbers, the jobs ahead, hints and the re-evaluation condition. */
#include "harness.h"

#include <string.h>

#include "core/hint.h"
#include "core/permit.h"
#include "core/reason.h"
#include "fixture.h"

static void set(struct snapshot *s, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, k, v, &e), 0);
}

/* Explains s (sorted here) into ps and ws. */
static void run(struct snapshot *s, struct prediction_set *ps, struct why_set *ws)
{
	snapshot_sort(s);
	prediction_set_init(ps);
	why_set_init(ws);
	predict_all(s, ps);
	reason_all(s, ps, ws);
}

static const struct why *get(const struct why_set *ws, const struct snapshot *s, int64_t id)
{
	const struct why *w = why_find(ws, s, id);
	CHECK(w != NULL);
	static struct why none;
	return w ? w : &none;
}

/* Does core's counterfactual evaluation (hint.h) offer hint h? */
static bool has_hint(const struct snapshot *s, const struct prediction_set *ps, const struct why *w,
		     enum hint h, int64_t value)
{
	struct hint_set hs;
	hint_job(s, ps, w, &hs);
	for (int i = 0; i < hs.n; i++)
		if (hs.items[i].hint == h && hs.items[i].value == value)
			return true;
	return false;
}

static bool has_queue_hint(const struct snapshot *s, const struct prediction_set *ps,
			   const struct why *w, const char *queue)
{
	struct hint_set hs;
	hint_job(s, ps, w, &hs);
	for (int i = 0; i < hs.n; i++)
		if (hs.items[i].hint == HINT_QUEUE && !strcmp(hs.items[i].arg, queue))
			return true;
	return false;
}

static void done(struct snapshot *s, struct prediction_set *ps, struct why_set *ws)
{
	why_set_release(ws);
	prediction_set_release(ps);
	snapshot_release(s);
}

static void test_tokens_in_fixed_order(void)
{
	static const char *const want[] = {"held",     "dependency",	"window",   "cooldown",
					   "begin",    "reservation",	"quota",    "user_limit",
					   "throttle", "unsatisfiable", "mismatch", "headroom",
					   "priority", "resources",	"starting"};
	CHECK_INT(REASON_COUNT, 15);
	for (int i = 0; i < REASON_COUNT; i++) {
		CHECK_STR(reason_name((enum reason)i), want[i]);
		enum reason r;
		CHECK_INT(reason_parse(want[i], &r), 0);
		CHECK_INT(r, i);
	}
	enum reason r;
	CHECK_INT(reason_parse("nope", &r), -1);
	CHECK_STR(hint_name(HINT_SHORTER_ESTIMATE), "shorter_estimate");
	CHECK_STR(hint_name(HINT_NO_DEPENDENCY), "no_dependency");
	CHECK_STR(reeval_name(REEVAL_JOB_END), "job_end");
}

static void test_held(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	j->held = true;
	STR_COPY(j->held_by, "bob");
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_HELD);
	CHECK(w->never);
	CHECK_INT(w->reeval, REEVAL_RELEASE);
	CHECK(has_hint(&s, &ps, w, HINT_RELEASE, 0));
	CHECK(!w->pred->placed);
	done(&s, &ps, &ws);
}

static void test_dependency_waiting_and_failed(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 2, MIN(-10), 40 * 60); /* ends +30 */
	struct job *j = fx_pending(&s, 2, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 1;
	fx_pending(&s, 3, TIER_P1, 1, MIN(-60))->state = JOB_CANCELLED;
	j = fx_pending(&s, 4, TIER_P1, 1, MIN(0));
	j->deps[j->ndeps++] = 3;
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_DEPENDENCY);
	CHECK_INT(w->items[0].job, 1);
	CHECK_STR(w->items[0].detail, "running");
	CHECK_INT(w->items[0].until, MIN(30));
	CHECK(!w->never);
	CHECK_INT(w->reeval, REEVAL_JOB_END);
	CHECK_INT(w->reeval_job, 1);
	CHECK_INT(w->reeval_at, MIN(30));
	CHECK_INT(w->pred->start, MIN(30));
	w = get(&ws, &s, 4);
	CHECK_INT(w->primary, REASON_DEPENDENCY);
	CHECK_STR(w->items[0].detail, "cancelled");
	CHECK(w->never);
	CHECK_INT(w->reeval, REEVAL_NONE);
	struct hint_set hs;
	hint_job(&s, &ps, w, &hs);
	CHECK_INT(hs.n, 0); /* it can never run: nothing to weigh */
	done(&s, &ps, &ws);
}

static void test_window(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	set(&s, "queue.default.window", "20:00-08:00");
	s.now = 1700000000LL - 1700000000LL % 86400 + 23 * 3600; /* 23:00 UTC */
	fx_pending(&s, 1, TIER_P1, 1, s.now);
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_WINDOW);
	CHECK_INT(w->items[0].until, s.now + 9 * 3600);
	CHECK_INT(w->reeval, REEVAL_TIME);
	CHECK_INT(w->reeval_at, s.now + 9 * 3600);
	CHECK_INT(w->pred->start, s.now + 9 * 3600);
	done(&s, &ps, &ws);
}

static void test_cooldown(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P1, 1, MIN(0))->not_before = MIN(12);
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_COOLDOWN);
	CHECK_INT(w->items[0].until, MIN(12));
	CHECK_INT(w->reeval, REEVAL_TIME);
	CHECK_INT(w->reeval_at, MIN(12));
	done(&s, &ps, &ws);
}

/* --begin is its own reason, not a cooldown, and the later of the two
 * gates the start; the prediction says which. */
static void test_begin_not_cooldown(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P1, 1, MIN(0))->begin_time = MIN(30);
	struct job *j = fx_pending(&s, 2, TIER_P1, 1, MIN(0));
	j->begin_time = MIN(5);
	j->not_before = MIN(12);
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_BEGIN);
	CHECK_INT(w->nitems, 1);
	CHECK_INT(w->items[0].until, MIN(30));
	CHECK_INT(w->reeval, REEVAL_TIME);
	CHECK_INT(w->reeval_at, MIN(30));
	CHECK_INT(w->pred->start, MIN(30));
	CHECK_INT(w->pred->gate, GATE_BEGIN);
	w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_COOLDOWN);
	CHECK(w->nitems >= 2);
	CHECK_INT(w->items[1].reason, REASON_BEGIN);
	CHECK_INT(w->pred->start, MIN(12));
	CHECK_INT(w->pred->gate, GATE_COOLDOWN);
	done(&s, &ps, &ws);
}

static void test_quota_queue_and_dept(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 2, 8);
	set(&s, "queue.default.quota", "4");
	set(&s, "queue.default.borrow", "2");
	set(&s, "queue.other.quota", "8");
	set(&s, "department.lab.gpuHours", "10");
	set(&s, "department.lab.gpuHoursAction", "stop");
	set(&s, "queue.lab.department", "lab");
	s.dstate[policy_dept_index(&s.policy, "lab")].gpu_hours_month = 12.5;
	fx_running(&s, 1, TIER_P1, 0, 5, MIN(-10), 30 * 60); /* ends +20 */
	fx_pending(&s, 2, TIER_P1, 2, MIN(0));
	struct job *j = fx_pending(&s, 3, TIER_P1, 1, MIN(0));
	STR_COPY(j->queue, "lab");
	STR_COPY(j->dept, "lab");
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_QUOTA);
	CHECK_STR(w->items[0].detail, "queue");
	CHECK_INT(w->items[0].need, 2);
	CHECK_DBL(w->items[0].used, 5, 0);
	CHECK_DBL(w->items[0].limit, 6, 0);
	CHECK_INT(w->items[0].quota, 4);
	CHECK_INT(w->reeval, REEVAL_JOB_END);
	CHECK_INT(w->reeval_job, 1);
	CHECK_INT(w->reeval_at, MIN(20));
	CHECK(has_hint(&s, &ps, w, HINT_FEWER_GPUS, 1));
	CHECK(has_queue_hint(&s, &ps, w, "other"));
	CHECK_INT(w->pred->start, MIN(20));
	w = get(&ws, &s, 3);
	CHECK_INT(w->primary, REASON_QUOTA);
	CHECK_STR(w->items[0].detail, "dept");
	CHECK_DBL(w->items[0].used, 12.5, 1e-9);
	CHECK_DBL(w->items[0].limit, 10, 0);
	CHECK(w->never);
	CHECK_INT(w->reeval, REEVAL_POLICY);
	done(&s, &ps, &ws);
}

/* Spent GPU-hours, gpuHoursAction preemptible (the default): the job is
 * P2 below every P2 within its quota. On an idle machine it starts now
 * (not "never"); behind work within quota it starts when that ends; it
 * earns no permit. */
static void test_dept_quota_spent_runs_as_lowest(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "department.lab.gpuHours", "10");
	set(&s, "queue.lab.department", "lab");
	s.dstate[policy_dept_index(&s.policy, "lab")].gpu_hours_month = 12.5;
	struct job *j = fx_pending(&s, 3, TIER_P1, 2, MIN(-600));
	STR_COPY(j->queue, "lab");
	STR_COPY(j->dept, "lab");
	snapshot_sort(&s);
	snapshot_mark_over_quota(&s);
	j = snapshot_find(&s, 3);
	CHECK(j->over_quota);
	CHECK_INT(job_tier(j), TIER_P2);
	CHECK_INT(job_order_tier(j), TIER_COUNT);
	CHECK_INT(permit_earned_at(&s.policy, j), INT64_MAX);
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 3);
	CHECK(!w->never);
	CHECK_INT(w->pred->start, T0);
	why_set_release(&ws);
	prediction_set_release(&ps);

	/* A P2 within quota, submitted later, asking for all 8: it goes first. */
	fx_pending(&s, 4, TIER_P2, 8, MIN(0))->estimate = 3600;
	snapshot_sort(&s);
	snapshot_mark_over_quota(&s);
	CHECK(!snapshot_find(&s, 4)->over_quota);
	run(&s, &ps, &ws);
	CHECK_INT(get(&ws, &s, 4)->pred->start, T0);
	w = get(&ws, &s, 3);
	CHECK_INT(w->primary, REASON_RESOURCES);
	CHECK_INT(w->pred->start, MIN(60));
	done(&s, &ps, &ws);
}

static void test_unsatisfiable(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 2, 8);
	struct job *j = fx_pending(&s, 1, TIER_P1, 10, MIN(0));
	j->req.same_node = true;
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_UNSATISFIABLE);
	CHECK_STR(w->items[0].detail, "same_node");
	CHECK_INT(w->items[0].need, 10);
	CHECK_INT(w->items[0].have, 8);
	CHECK(w->never);
	CHECK_INT(w->reeval, REEVAL_POLICY);
	CHECK(has_hint(&s, &ps, w, HINT_FEWER_GPUS, 8));
	CHECK_INT(w->pred->never, NEVER_UNSATISFIABLE);
	done(&s, &ps, &ws);
}

static void test_mismatch(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	STR_COPY(s.nodes[1].gpu_model, "h100");
	fx_running(&s, 1, TIER_P1, 1, 7, MIN(-10), 40 * 60); /* h100: 1 free, ends +30 */
	struct job *j = fx_pending(&s, 2, TIER_P1, 2, MIN(0));
	STR_COPY(j->req.gpu_type, "h100");
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_MISMATCH);
	CHECK_INT(w->items[0].need, 2);
	CHECK_INT(w->items[0].have, 1);
	CHECK_INT(w->items[0].free, 9);
	CHECK(has_hint(&s, &ps, w, HINT_ANY_GPU_TYPE, 0));
	CHECK(has_hint(&s, &ps, w, HINT_FEWER_GPUS, 1));
	CHECK_INT(w->reeval, REEVAL_JOB_END);
	CHECK_INT(w->reeval_job, 1);
	CHECK_INT(w->pred->start, MIN(30));
	CHECK_INT(w->nwaits, 1);
	CHECK_INT(w->waits[0].job, 1);
	CHECK(w->waits[0].running);
	CHECK_INT(w->waits[0].end, MIN(30));
	done(&s, &ps, &ws);
}

static void test_headroom(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 2, 8); /* reserve 2 */
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 40 * 60);
	fx_running(&s, 2, TIER_P1, 1, 5, MIN(-10), 70 * 60);
	fx_pending(&s, 3, TIER_P2, 2, MIN(0));
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 3);
	CHECK_INT(w->primary, REASON_HEADROOM);
	CHECK_INT(w->items[0].need, 2);
	CHECK_INT(w->items[0].free, 3);
	CHECK_DBL(w->items[0].limit, 2, 0);
	CHECK(has_hint(&s, &ps, w, HINT_FEWER_GPUS, 1));
	CHECK(has_hint(&s, &ps, w, HINT_PROMOTE, TIER_P0));
	CHECK_INT(w->pred->start, MIN(30));
	done(&s, &ps, &ws);
}

/* Ahead means ahead for the same resources (issue 30, item 6): a CPU-only
 * job waiting before a GPU job is not ahead of it, nor the other way. */
static void test_ahead_wants_the_same(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 88, TIER_P1, 0, 8, MIN(-20), 30 * 60);
	struct job *cpu = fx_pending(&s, 101, TIER_P0, 0, MIN(-5));
	cpu->req.cpus = 1;
	cpu->deps[0] = 88; /* waits for the running job: ahead, not never */
	cpu->ndeps = 1;
	fx_pending(&s, 102, TIER_P0, 8, MIN(-4))->estimate = 20 * 60;
	fx_pending(&s, 42, TIER_P1, 8, MIN(-45))->estimate = 60 * 60;
	struct job *cpu2 = fx_pending(&s, 43, TIER_P2, 0, MIN(-45));
	cpu2->req.cpus = 1;
	cpu2->deps[0] = 88;
	cpu2->ndeps = 1;
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 42);
	CHECK_INT(w->ahead, 1);
	CHECK_INT(w->nahead, 1);
	CHECK_INT(w->ahead_first[0].job, 102);
	w = get(&ws, &s, 43);
	CHECK_INT(w->ahead, 1);
	CHECK_INT(w->ahead_first[0].job, 101);
	why_set_release(&ws);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* DESIGN §4's paragraph: jobs ahead with weights, your weight with its
 * next rise, needs vs free, the start and the jobs it waits for. */
static void test_priority_with_jobs_ahead(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 88, TIER_P1, 0, 4, MIN(-20), 30 * 60); /* ends +10 */
	fx_running(&s, 90, TIER_P1, 0, 4, MIN(-20), 50 * 60); /* ends +30 */
	fx_pending(&s, 101, TIER_P0, 8, MIN(-5))->estimate = 20 * 60;
	fx_pending(&s, 102, TIER_P0, 8, MIN(-4))->estimate = 20 * 60;
	fx_pending(&s, 103, TIER_P0, 8, MIN(-3))->estimate = 20 * 60;
	struct job *held = fx_pending(&s, 104, TIER_P0, 1, MIN(-3));
	held->held = true;
	fx_pending(&s, 42, TIER_P1, 8, MIN(-45))->estimate = 60 * 60;
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 42);
	CHECK_INT(w->primary, REASON_PRIORITY);
	CHECK_INT(w->position, 5); /* the held job is ahead in order ... */
	CHECK_INT(w->ahead, 3);	   /* ... but cannot run, so it does not count */
	CHECK_INT(w->nahead, 3);
	CHECK_INT(w->ahead_first[0].job, 101);
	CHECK_INT(w->ahead_first[0].tier, TIER_P0);
	CHECK_DBL(w->ahead_first[0].weight, 100, 1e-9);
	CHECK_DBL(w->weight, 33, 1e-9);
	CHECK_DBL(w->base, 30, 0);
	CHECK_DBL(w->c, 0.1, 1e-12);
	CHECK(w->rises);
	CHECK_INT(w->rise_at, MIN(15));
	CHECK_DBL(w->rise_weight, 36, 1e-9);
	CHECK_INT(w->items[0].have, 3);
	CHECK_INT(w->nitems, 2);
	CHECK_INT(w->items[1].reason, REASON_RESOURCES);
	CHECK_INT(w->items[1].need, 8);
	CHECK_INT(w->items[1].free, 0);
	CHECK_INT(w->pred->start, MIN(90)); /* 30 + 3 x 20 */
	CHECK_INT(w->nwaits, 1);
	CHECK_INT(w->waits[0].job, 103);
	CHECK(!w->waits[0].running);
	CHECK_INT(w->waits[0].end, MIN(90));
	CHECK(has_hint(&s, &ps, w, HINT_PROMOTE, TIER_P0));
	done(&s, &ps, &ws);
}

static void test_priority_gap_hint_shorter_estimate(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 70 * 60); /* ends +60 */
	fx_pending(&s, 2, TIER_P0, 8, MIN(0));
	fx_pending(&s, 3, TIER_P1, 4, MIN(0))->estimate = 90 * 60;
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 3);
	CHECK_INT(w->primary, REASON_PRIORITY);
	CHECK_INT(w->nitems, 1); /* it fits: only the job ahead holds it back */
	CHECK_INT(ps.backfill_until, MIN(60));
	CHECK(has_hint(&s, &ps, w, HINT_SHORTER_ESTIMATE, 3600));
	w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_RESOURCES);
	CHECK_INT(w->items[0].need, 8);
	CHECK_INT(w->items[0].free, 4);
	CHECK_INT(w->reeval, REEVAL_JOB_END);
	CHECK_INT(w->reeval_job, 1);
	CHECK_INT(w->reeval_at, MIN(60));
	CHECK(has_hint(&s, &ps, w, HINT_FEWER_GPUS, 4));
	done(&s, &ps, &ws);
}

static void test_resources_head_of_line(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 20 * 60);
	fx_pending(&s, 2, TIER_P0, 2, MIN(0));
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_RESOURCES);
	CHECK_INT(w->ahead, 0);
	CHECK_INT(w->nitems, 1);
	CHECK_INT(w->items[0].free, 0);
	CHECK_INT(w->reeval_job, 1);
	CHECK_INT(w->pred->start, MIN(10));
	done(&s, &ps, &ws);
}

static void test_starting_now_and_state_starting(void)
{
	struct snapshot s;
	struct prediction_set ps;
	struct why_set ws;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P1, 2, MIN(0));
	fx_running(&s, 2, TIER_P1, 0, 2, MIN(0), 600)->state = JOB_STARTING;
	fx_pending(&s, 3, TIER_P1, 2, MIN(0));
	run(&s, &ps, &ws);
	const struct why *w = get(&ws, &s, 1);
	CHECK_INT(w->primary, REASON_STARTING);
	CHECK_INT(w->reeval, REEVAL_NOW);
	CHECK_INT(w->pred->start, s.now);
	w = get(&ws, &s, 3);
	CHECK_INT(w->primary, REASON_STARTING);
	CHECK_INT(w->ahead, 0); /* a job starting now is not ahead */
	w = get(&ws, &s, 2);
	CHECK_INT(w->primary, REASON_STARTING);
	CHECK(w->pred == NULL);
	CHECK_INT(ws.n, 3);
	CHECK(why_find(&ws, &s, 99) == NULL);
	done(&s, &ps, &ws);
}

void suite_reason(void)
{
	RUN(test_tokens_in_fixed_order);
	RUN(test_held);
	RUN(test_dependency_waiting_and_failed);
	RUN(test_window);
	RUN(test_cooldown);
	RUN(test_begin_not_cooldown);
	RUN(test_quota_queue_and_dept);
	RUN(test_dept_quota_spent_runs_as_lowest);
	RUN(test_unsatisfiable);
	RUN(test_mismatch);
	RUN(test_headroom);
	RUN(test_priority_with_jobs_ahead);
	RUN(test_ahead_wants_the_same);
	RUN(test_priority_gap_hint_shorter_estimate);
	RUN(test_resources_head_of_line);
	RUN(test_starting_now_and_state_starting);
}
