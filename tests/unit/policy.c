/* policy.c - defaults, setting keys, validation messages, enumeration. */
#include "harness.h"

#include "core/policy.h"

#include <string.h>

static void test_defaults_are_design_numbers(void)
{
	struct policy p;
	policy_defaults(&p);
	CHECK_DBL(p.tier[TIER_P0].base, 100, 0);
	CHECK_DBL(p.tier[TIER_P1].base, 30, 0);
	CHECK_DBL(p.tier[TIER_P2].base, 5, 0);
	CHECK_DBL(p.aging_step, 0.1, 1e-12);
	CHECK_INT(p.aging_interval, 1800);
	CHECK_DBL(p.aging_cap, 0.5, 1e-12);
	CHECK_INT(p.tier[TIER_P2].wait_limit, 12 * 3600);
	CHECK_INT(p.permit_wait_for, 600);
	CHECK_INT(p.remind_after, 7200);
	CHECK_INT(p.confirm_within, 1800);
	CHECK_DBL(p.headroom, 0.15, 1e-12);
	CHECK_INT(p.protect, 1800);
	CHECK_INT(p.grace, 300);
	CHECK_INT(p.preempt_signal, 15);
	CHECK_DBL(p.tier[TIER_P2].price, 0.3, 1e-12);
	CHECK_DBL(p.tier[TIER_P0].price, 1.5, 1e-12);
	CHECK_INT(p.nqueues, 1);
	CHECK_STR(p.queues[0].name, "default");
	CHECK_INT(p.queues[0].quota, -1);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_validate(&p, &e), 0);
}

static void test_set_creates_queue_and_parses(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "department.research.gpuHours", "5000", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.department", "research", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.quota", "16", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.window", "20:00-08:00", &e), 0);
	CHECK_INT(policy_set(&p, "aging.interval", "1h", &e), 0);
	CHECK_INT(policy_set(&p, "PREEMPT.MODE", "observe", &e), 0);
	CHECK_INT(p.nqueues, 2);
	const struct queue_policy *q = policy_queue(&p, "exp");
	CHECK(q != NULL);
	CHECK_INT(q->quota, 16);
	CHECK_INT(q->paused.start_min, 20 * 60);
	CHECK_INT(q->paused.end_min, 8 * 60);
	CHECK_INT(p.aging_interval, 3600);
	CHECK_INT(p.preempt_mode, ROLLOUT_OBSERVE);
	CHECK_INT(policy_validate(&p, &e), 0);
	char v[64];
	CHECK_INT(policy_get(&p, "queue.exp.window", v, sizeof(v), &e), 0);
	CHECK_STR(v, "20:00-08:00");
}

/* queue.*.defaultTime: a duration, or none (0), as Slurm's DefaultTime. */
static void test_queue_default_time(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	char v[64];
	CHECK_INT(policy_get(&p, "queue.default.defaultTime", v, sizeof(v), &e), 0);
	CHECK_STR(v, "none");
	CHECK_INT(p.queues[0].default_time, 0);
	CHECK_INT(policy_set(&p, "queue.exp.defaultTime", "2h", &e), 0);
	CHECK_INT(policy_queue(&p, "exp")->default_time, 7200);
	CHECK_INT(policy_get(&p, "queue.exp.defaultTime", v, sizeof(v), &e), 0);
	CHECK_STR(v, "2h00m");
	CHECK_INT(policy_set(&p, "queue.exp.defaultTime", "NONE", &e), 0);
	CHECK_INT(policy_queue(&p, "exp")->default_time, 0);
	CHECK_INT(policy_set(&p, "queue.exp.defaultTime", "10s", &e), -1);
	CHECK(strstr(e.msg, "out of range") != NULL);
	CHECK_INT(policy_set(&p, "queue.exp.defaultTime", "soon", &e), -1);
	CHECK(strstr(e.msg, "'none'") != NULL);
}

static void test_queue_window_action(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	char v[64];
	CHECK_INT(policy_get(&p, "queue.default.windowAction", v, sizeof(v), &e), 0);
	CHECK_STR(v, "requeue");
	CHECK_INT(policy_set(&p, "queue.exp.windowAction", "Finish", &e), 0);
	CHECK_INT(policy_queue(&p, "exp")->window_action, WINDOW_FINISH);
	CHECK_INT(policy_get(&p, "queue.exp.windowAction", v, sizeof(v), &e), 0);
	CHECK_STR(v, "finish");
	CHECK_INT(policy_set(&p, "queue.exp.windowAction", "kill", &e), -1);
	CHECK(strstr(e.msg, "unknown action 'kill'; use requeue or finish") != NULL);
}

static void test_bad_value_names_key_and_value(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "aging.cap", "abc", &e), -1);
	CHECK_STR(e.msg, "aging.cap: not a number: 'abc'");
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK_DBL(p.aging_cap, 0.5, 1e-12);
	CHECK_INT(policy_set(&p, "aging.nope", "1", &e), -1);
	CHECK_INT(e.code, GQ_ENOENT);
	CHECK_STR(e.msg, "unknown policy key 'aging.nope'");
	CHECK_INT(policy_set(&p, "tier.P7.base", "1", &e), -1);
	CHECK(strstr(e.msg, "unknown tier 'P7'") != NULL);
	CHECK_INT(policy_set(&p, "queue.exp.window", "25:00-08:00", &e), -1);
	CHECK(strstr(e.msg, "queue.exp.window: bad window") == e.msg);
	CHECK_INT(policy_set(&p, "headroom.share", "0.95", &e), -1);
	CHECK(strstr(e.msg, "out of range") != NULL);
}

static void test_validate_cross_keys(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "queue.exp.department", "nobody", &e), 0);
	CHECK_INT(policy_validate(&p, &e), -1);
	CHECK_STR(e.msg, "queue.exp.department: no department 'nobody' is defined");

	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "tier.P1.base", "120", &e), 0);
	CHECK_INT(policy_validate(&p, &e), -1);
	CHECK(strstr(e.msg, "tier.*.base") == e.msg);

	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "aging.cap", "3", &e), 0);
	CHECK_INT(policy_validate(&p, &e), -1);
	CHECK(strstr(e.msg, "aging.cap") == e.msg);

	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "preempt.trialQueues", "exp", &e), 0);
	CHECK_INT(policy_validate(&p, &e), -1);
	CHECK_STR(e.msg, "preempt.trialQueues: no queue 'exp' is defined");
}

static void test_rollout_and_tier_allow(void)
{
	CHECK(policy_acts(ROLLOUT_ENFORCE, "", "exp"));
	CHECK(!policy_acts(ROLLOUT_OBSERVE, "exp", "exp"));
	CHECK(policy_acts(ROLLOUT_TRIAL, "train exp", "exp"));
	CHECK(!policy_acts(ROLLOUT_TRIAL, "train expx", "exp"));
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "tier.P0.allow", "alice @oncall", &e), 0);
	CHECK(policy_tier_allows(&p, TIER_P0, "alice", ""));
	CHECK(!policy_tier_allows(&p, TIER_P0, "bob", "users"));
	CHECK(policy_tier_allows(&p, TIER_P0, "bob", "users oncall"));
	CHECK(policy_tier_allows(&p, TIER_P2, "bob", ""));
}

static void test_window_wraps_midnight(void)
{
	struct window w;
	CHECK_INT(window_parse("20:00-08:00", &w, NULL), 0);
	CHECK(window_contains(&w, 20 * 60));
	CHECK(window_contains(&w, 3 * 60));
	CHECK(!window_contains(&w, 8 * 60));
	CHECK(!window_contains(&w, 12 * 60));
	CHECK_INT(window_parse("09:00-17:00", &w, NULL), 0);
	CHECK(window_contains(&w, 9 * 60));
	CHECK(!window_contains(&w, 17 * 60));
}

struct count {
	int keys, defaults;
	bool saw_queue_quota;
};

static void count_key(const struct policy_key_info *ki, void *arg)
{
	struct count *c = arg;
	c->keys++;
	c->defaults += ki->is_default;
	if (!strcmp(ki->key, "queue.exp.quota"))
		c->saw_queue_quota = !strcmp(ki->value, "16") && !ki->is_default;
}

static void test_foreach_marks_defaults(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	struct count c0 = {0};
	policy_foreach(&p, count_key, &c0);
	CHECK_INT(c0.defaults, c0.keys);
	CHECK_INT(policy_set(&p, "queue.exp.quota", "16", &e), 0);
	CHECK_INT(policy_set(&p, "tier.P1.base", "30.0", &e), 0);
	struct count c1 = {0};
	policy_foreach(&p, count_key, &c1);
	CHECK(c1.saw_queue_quota);
	CHECK_INT(c1.keys - c1.defaults, 1);
	CHECK(policy_key_count() > 20);
}

void suite_policy(void)
{
	RUN(test_defaults_are_design_numbers);
	RUN(test_set_creates_queue_and_parses);
	RUN(test_queue_default_time);
	RUN(test_queue_window_action);
	RUN(test_bad_value_names_key_and_value);
	RUN(test_validate_cross_keys);
	RUN(test_rollout_and_tier_allow);
	RUN(test_window_wraps_midnight);
	RUN(test_foreach_marks_defaults);
}
