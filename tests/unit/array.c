/* array.c - job arrays: --array's syntax, its compact form, the throttle in
 * the plan, the prediction and the wait reason. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/predict.h"
#include "core/reason.h"
#include "core/sched.h"
#include "fixture.h"

static void check_spec(const char *spec, const char *want, int throttle)
{
	struct array_spec *a = xmalloc(sizeof(*a));
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(array_parse(spec, a, &e), 0);
	char got[256] = "";
	size_t n = 0;
	for (int i = 0; i < a->ntasks; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%d", i ? " " : "", a->tasks[i]);
	CHECK_STR(got, want);
	CHECK_INT(a->throttle, throttle);
	free(a);
}

static void test_parse_ranges_steps_lists_throttle(void)
{
	check_spec("0-3", "0 1 2 3", 0);
	check_spec("7", "7", 0);
	check_spec("0-15:4", "0 4 8 12", 0);
	check_spec("1,3,5-7", "1 3 5 6 7", 0);
	check_spec("0-4%2", "0 1 2 3 4", 2);
	check_spec("5,1-2,2", "1 2 5", 0); /* repeats merged, ascending */
	struct array_spec *a = xmalloc(sizeof(*a));
	CHECK_INT(array_parse("0-1000", a, NULL), 0); /* MaxArraySize's most */
	CHECK_INT(a->ntasks, 1001);
	free(a);
}

static void check_bad(const char *spec, const char *msg)
{
	struct array_spec *a = xmalloc(sizeof(*a));
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(array_parse(spec, a, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK(strstr(e.msg, msg) != NULL);
	if (!strstr(e.msg, msg))
		printf("# '%s': %s\n", spec, e.msg);
	free(a);
}

static void test_parse_refuses_bad_input(void)
{
	check_bad("", "give indices like 0-99");
	check_bad("5-3", "ends before it starts");
	check_bad("a", "'a' is not a number");
	check_bad("1,,2", "an empty element");
	check_bad("1,", "an empty element");
	check_bad("0-15:0", "the step must be 1-1000");
	check_bad("3:2", "a step needs a range");
	check_bad("0-3%0", "the throttle after '%' must be 1-1000");
	check_bad("%3", "no task indices");
	check_bad("0-1001", "MaxArraySize 1001");
	check_bad("1-2-3", "not a number");
}

static void test_format_is_squeues_compact_form(void)
{
	char out[64];
	int a[] = {3, 4, 5, 6, 7}, b[] = {1, 3, 5, 6, 7}, c[] = {0, 4, 8, 12}, d[] = {6, 9, 20};
	CHECK_STR(array_format(a, 5, 2, out, sizeof(out)), "3-7%2");
	CHECK_STR(array_format(b, 5, 0, out, sizeof(out)), "1,3,5-7");
	CHECK_STR(array_format(c, 4, 0, out, sizeof(out)), "0-12:4");
	CHECK_STR(array_format(d, 3, 2, out, sizeof(out)), "6,9,20%2");
	CHECK_STR(array_format(a, 1, 0, out, sizeof(out)), "3");
	CHECK_STR(array_format(c, 4, 0, out, 6), "0-...");
}

/* An array of n tasks of 1 GPU (ids 11..10+n, array id 10), throttle th,
 * the first `running` of them running since T0 with 1 h estimates. */
static void array_fixture(struct snapshot *s, int n, int th, int running)
{
	fx_init(s, 1, 8);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, "headroom.share", "0", &e), 0);
	for (int i = 0; i < n; i++) {
		struct job *j = i < running ? fx_running(s, 11 + i, TIER_P1, 0, 1, T0, 3600)
					    : fx_pending(s, 11 + i, TIER_P1, 1, T0);
		j->estimate = 3600;
		j->array_id = 10;
		j->array_task = i;
		j->array_max = th;
	}
	snapshot_sort(s);
}

static void test_throttle_bounds_the_plan(void)
{
	struct snapshot s;
	array_fixture(&s, 6, 2, 0);
	struct plan p;
	plan_init(&p);
	sched_plan(&s, &p);
	/* 8 GPUs free, 6 tasks: the throttle starts 2. */
	CHECK_INT(p.n, 2);
	CHECK_INT(p.actions[0].job, 11);
	CHECK_INT(p.actions[1].job, 12);
	plan_release(&p);
	snapshot_release(&s);
	/* Without a throttle all six start. */
	array_fixture(&s, 6, 0, 0);
	plan_init(&p);
	sched_plan(&s, &p);
	CHECK_INT(p.n, 6);
	plan_release(&p);
	snapshot_release(&s);
}

static void test_throttle_in_predictions_and_reasons(void)
{
	struct snapshot s;
	array_fixture(&s, 5, 2, 2);
	int64_t dep[5];
	array_throttle_deps(&s, dep);
	CHECK_INT(dep[0], 0);
	CHECK_INT(dep[1], 0);
	CHECK_INT(dep[2], 11);
	CHECK_INT(dep[3], 12);
	CHECK_INT(dep[4], 13);
	CHECK_INT(array_running(&s, &s.jobs[3]), 2);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	/* Two run until T0 + 1 h; the next two follow them, the last after. */
	CHECK_INT(prediction_find(&ps, &s, 13)->start, T0 + 3600);
	CHECK_INT(prediction_find(&ps, &s, 14)->start, T0 + 3600);
	CHECK_INT(prediction_find(&ps, &s, 15)->start, T0 + 7200);
	struct why_set ws;
	why_set_init(&ws);
	reason_all(&s, &ps, &ws);
	const struct why *w = why_find(&ws, &s, 15);
	CHECK_INT(w->primary, REASON_THROTTLE);
	CHECK_INT(w->items[0].job, 10);
	CHECK_DBL(w->items[0].used, 2, 0);
	CHECK_DBL(w->items[0].limit, 2, 0);
	CHECK_STR(reason_name(REASON_THROTTLE), "throttle");
	why_set_release(&ws);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

void suite_array(void)
{
	RUN(test_parse_ranges_steps_lists_throttle);
	RUN(test_parse_refuses_bad_input);
	RUN(test_format_is_squeues_compact_form);
	RUN(test_throttle_bounds_the_plan);
	RUN(test_throttle_in_predictions_and_reasons);
}
