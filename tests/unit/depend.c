/* depend.c - dependency kinds: the one rule of "met", Slurm's syntax both
 * ways, the decision gq serve acts on (dep_never), and what the prediction
 * and the reasons make of each kind. */
#include "harness.h"

#include <string.h>

#include "core/depend.h"
#include "core/predict.h"
#include "core/reason.h"
#include "fixture.h"

static struct job ended(enum job_state st, int status)
{
	struct job j;
	job_init(&j);
	j.id = 5;
	j.state = st;
	j.exit_status = status;
	return j;
}

static void test_status_of_each_kind(void)
{
	struct job ok = ended(JOB_COMPLETED, 0), bad = ended(JOB_FAILED, 1),
		   cn = ended(JOB_CANCELLED, -1), to = ended(JOB_TIMEOUT, -1),
		   run = ended(JOB_RUNNING, -1);
	CHECK_INT(dep_status(DEP_AFTEROK, &ok), DEP_MET);
	CHECK_INT(dep_status(DEP_AFTEROK, &bad), DEP_NEVER);
	CHECK_INT(dep_status(DEP_AFTEROK, &cn), DEP_NEVER);
	CHECK_INT(dep_status(DEP_AFTEROK, &to), DEP_NEVER);
	CHECK_INT(dep_status(DEP_AFTERANY, &ok), DEP_MET);
	CHECK_INT(dep_status(DEP_AFTERANY, &bad), DEP_MET);
	CHECK_INT(dep_status(DEP_AFTERANY, &cn), DEP_MET);
	CHECK_INT(dep_status(DEP_AFTERNOTOK, &ok), DEP_NEVER);
	CHECK_INT(dep_status(DEP_AFTERNOTOK, &bad), DEP_MET);
	CHECK_INT(dep_status(DEP_AFTERNOTOK, &to), DEP_MET);
	for (int k = 0; k < DEP_KIND_COUNT; k++) {
		CHECK_INT(dep_status((enum dep_kind)k, &run), DEP_WAIT);
		CHECK_INT(dep_status((enum dep_kind)k, NULL), DEP_MET); /* gone: as Slurm */
	}
}

static void check_parse(const char *in, const char *want)
{
	struct job j;
	job_init(&j);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(dep_parse(in, &j, &e), 0);
	char got[160];
	dep_format(&j, got, sizeof(got));
	CHECK_STR(got, want);
}

static void check_refused(const char *in, const char *msg)
{
	struct job j;
	job_init(&j);
	j.ndeps = 1;
	j.deps[0] = 3;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(dep_parse(in, &j, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK(strstr(e.msg, msg) != NULL);
	CHECK_INT(j.ndeps, 1); /* unchanged */
}

static void test_parse_slurm_form_and_plain_ids(void)
{
	check_parse("12", "afterok:12");
	check_parse("#12,13", "afterok:12:13");
	check_parse("afterok:12:13,afterany:14,afternotok:15",
		    "afterok:12:13,afterany:14,afternotok:15");
	check_parse("afterany:1,2,afterany:3", "afterany:1,afterok:2,afterany:3");
	check_refused("after:4", "kind 'after' is not one gq knows");
	check_refused("singleton", "'singleton' is not a job id");
	check_refused("afterok:4?afterany:5", "'?' (any of)");
	check_refused("afterok:", "'' is not a job id");
	check_refused("afterok:x", "'x' is not a job id");
	check_refused("4,,5", "an empty dependency");
	check_refused("1,2,3,4,5,6,7,8", "at most 8 jobs"); /* 1 already there */
}

static void test_format_is_cut_to_fit(void)
{
	struct job j;
	job_init(&j);
	CHECK_INT(dep_parse("afterany:123456,afterok:7", &j, NULL), 0);
	char out[12];
	dep_format(&j, out, sizeof(out));
	CHECK_STR(out, "afterany:12");
	char none[8] = "x";
	job_init(&j);
	dep_format(&j, none, sizeof(none));
	CHECK_STR(none, "");
}

/* When the dependencies were all met: the last one's end; -1 before. */
static void test_met_at_is_the_last_end(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *a = fx_pending(&s, 1, TIER_P1, 1, T0);
	a->state = JOB_COMPLETED;
	a->exit_status = 0;
	a->end_time = MIN(10);
	struct job *b = fx_pending(&s, 2, TIER_P1, 1, T0);
	b->state = JOB_RUNNING;
	struct job *w = fx_pending(&s, 3, TIER_P1, 1, T0);
	dep_parse("afterok:1,afterany:2,afterany:9", w, NULL);
	fx_pending(&s, 4, TIER_P1, 1, T0);
	snapshot_sort(&s);
	CHECK_INT(dep_met_at(&s, snapshot_find(&s, 3)), -1);
	CHECK_INT(dep_met_at(&s, snapshot_find(&s, 4)), 0); /* no dependency */
	b = snapshot_find(&s, 2);
	b->state = JOB_FAILED;
	b->end_time = MIN(25);
	/* Job 9 is gone: met, with no time of its own. */
	CHECK_INT(dep_met_at(&s, snapshot_find(&s, 3)), MIN(25));
	snapshot_release(&s);
}

static void test_never_names_the_dependency(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct job *f = fx_pending(&s, 1, TIER_P1, 1, T0);
	f->state = JOB_FAILED;
	f->exit_status = 3;
	struct job *c = fx_pending(&s, 2, TIER_P1, 1, T0);
	c->state = JOB_COMPLETED;
	c->exit_status = 0;
	struct job *w = fx_pending(&s, 3, TIER_P1, 1, T0);
	dep_parse("afterany:1,afternotok:2", w, NULL);
	struct job *x = fx_pending(&s, 4, TIER_P1, 1, T0);
	dep_parse("afterany:1,afternotok:1,afterok:2", x, NULL);
	snapshot_sort(&s);
	struct dep_never d;
	CHECK(dep_never(&s, snapshot_find(&s, 3), &d));
	CHECK_INT(d.job, 2);
	CHECK_INT(d.kind, DEP_AFTERNOTOK);
	CHECK_INT(d.state, JOB_COMPLETED);
	CHECK(!dep_never(&s, snapshot_find(&s, 4), &d));
	/* Only pending jobs are the server's to cancel. */
	snapshot_find(&s, 3)->state = JOB_RUNNING;
	CHECK(!dep_never(&s, snapshot_find(&s, 3), &d));
	snapshot_release(&s);
}

/* The prediction and the reasons follow the kinds: afterany on a failed
 * job starts, afterok on it never does, afternotok on a running job waits
 * for its end. */
static void test_prediction_and_reasons_follow_kinds(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 2, T0, 3600);
	struct job *f = fx_pending(&s, 2, TIER_P1, 1, T0);
	f->state = JOB_FAILED;
	f->exit_status = 1;
	dep_parse("afterany:2", fx_pending(&s, 3, TIER_P1, 1, T0), NULL);
	dep_parse("afterok:2", fx_pending(&s, 4, TIER_P1, 1, T0), NULL);
	dep_parse("afternotok:1", fx_pending(&s, 5, TIER_P1, 1, T0), NULL);
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	CHECK_INT(prediction_find(&ps, &s, 3)->start, T0);
	CHECK(!prediction_find(&ps, &s, 4)->placed);
	CHECK_INT(prediction_find(&ps, &s, 5)->start, T0 + 3600);
	struct why_set ws;
	why_set_init(&ws);
	reason_all(&s, &ps, &ws);
	const struct why *w = why_find(&ws, &s, 4);
	CHECK_INT(w->primary, REASON_DEPENDENCY);
	CHECK(w->items[0].never);
	CHECK_STR(w->items[0].detail, "failed");
	w = why_find(&ws, &s, 5);
	CHECK_INT(w->primary, REASON_DEPENDENCY);
	CHECK_INT(w->items[0].job, 1);
	CHECK(!w->items[0].never);
	CHECK(why_find(&ws, &s, 3)->primary != REASON_DEPENDENCY);
	why_set_release(&ws);
	prediction_set_release(&ps);
	snapshot_release(&s);
}

/* A change that would close a cycle of waiting jobs (1 -> 2 -> 3 -> 1):
 * found with the jobs on it, in order, whatever the kinds; a path through
 * a job that is not pending, or one that only touches the cycle, is none. */
static void test_cycle_through_pending_jobs(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_pending(&s, 1, TIER_P1, 1, T0);
	dep_parse("afterany:3", fx_pending(&s, 2, TIER_P1, 1, T0), NULL);
	dep_parse("4,afternotok:1", fx_pending(&s, 3, TIER_P1, 1, T0), NULL);
	fx_running(&s, 4, TIER_P1, 0, 1, T0, 60);
	dep_parse("1", fx_pending(&s, 5, TIER_P1, 1, T0), NULL);
	dep_parse("4", fx_pending(&s, 6, TIER_P1, 1, T0), NULL);
	snapshot_sort(&s);
	struct job a = *snapshot_find(&s, 1);
	int64_t path[4] = {0};
	size_t n = 0;
	CHECK(!dep_cycle(&s, &a, path, 4, &n)); /* nothing to follow yet */
	dep_parse("afterok:6,2", &a,
		  NULL); /* 1 -> 6 -> 4 (runs), 1 -> 2 -> 3 -> 4, 1 -> 2 -> 3 -> 1 */
	CHECK(dep_cycle(&s, &a, path, 4, &n));
	CHECK_INT(n, 2);
	CHECK_INT(path[0], 2);
	CHECK_INT(path[1], 3);
	/* Cut to size, the length all the same. */
	int64_t one[1] = {0};
	CHECK(dep_cycle(&s, &a, one, 1, &n));
	CHECK_INT(n, 2);
	CHECK_INT(one[0], 2);
	/* 3 running waits for nothing any more: no cycle. */
	snapshot_find(&s, 3)->state = JOB_RUNNING;
	CHECK(!dep_cycle(&s, &a, path, 4, &n));
	snapshot_find(&s, 3)->state = JOB_PENDING;
	/* 5 waits for 1: 1 cannot wait for 5. */
	struct job b = *snapshot_find(&s, 1);
	dep_parse("4,5", &b, NULL);
	CHECK(dep_cycle(&s, &b, path, 4, &n));
	CHECK_INT(n, 1);
	CHECK_INT(path[0], 5);
	/* 6 waits for 4, which runs, and no one waits for 6: none. */
	struct job c = *snapshot_find(&s, 6);
	CHECK(!dep_cycle(&s, &c, path, 4, &n));
	/* A job waiting for itself is the shortest cycle. */
	dep_parse("6", &c, NULL);
	CHECK(dep_cycle(&s, &c, path, 4, &n));
	CHECK_INT(n, 1);
	CHECK_INT(path[0], 6);
	snapshot_release(&s);
}

void suite_depend(void)
{
	RUN(test_status_of_each_kind);
	RUN(test_parse_slurm_form_and_plain_ids);
	RUN(test_format_is_cut_to_fit);
	RUN(test_never_names_the_dependency);
	RUN(test_met_at_is_the_last_end);
	RUN(test_cycle_through_pending_jobs);
	RUN(test_prediction_and_reasons_follow_kinds);
}
