/* jobsig.c - --signal's forms and bounds, and --notify's list and the
 * transitions that fire it (core/jobsig.h, core/notify.h). */
#include "harness.h"

#include <string.h>

#include "core/jobsig.h"
#include "core/notify.h"

static void test_reads_signal_forms(void)
{
	static const struct {
		const char *in;
		int sig;
		int64_t before;
	} cases[] = {
	    {"USR1@120", 10, 120}, {"usr2", 12, 60},   {"SIGTERM@5", 15, 5}, {"B:USR1@90", 10, 90},
	    {"@30", 10, 30},	   {"12@2m", 12, 120}, {"sigint", 2, 60},    {"31@1", 31, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int sig = -1;
		int64_t before = -1;
		CHECK_INT(jobsig_parse(cases[i].in, &sig, &before, NULL), 0);
		CHECK_INT(sig, cases[i].sig);
		CHECK_INT(before, cases[i].before);
	}
}

static void test_refuses_bad_signals(void)
{
	static const char *const bad[] = {"FOO", "0",  "32",  "USR1@",	 "USR1@0",    "USR1@soon",
					  "",	 "B:", "@-5", "USR1@-1", "SIGSIGUSR1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int sig = 7;
		int64_t before = 7;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(jobsig_parse(bad[i], &sig, &before, &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
		CHECK(strstr(e.msg, "signal '") == e.msg);
		CHECK_INT(sig, 7); /* untouched on failure */
	}
}

static void test_signal_must_come_before_the_limit(void)
{
	CHECK_INT(jobsig_check(0, 0, 0, NULL), 0);
	CHECK_INT(jobsig_check(10, 60, 61, NULL), 0);
	CHECK_INT(jobsig_check(10, 60, 60, NULL), -1);
	CHECK_INT(jobsig_check(10, 60, 0, NULL), 0); /* the server checks a missing limit */
	CHECK_INT(jobsig_check(40, 60, 600, NULL), -1);
	CHECK_STR(jobsig_name(10), "USR1");
	CHECK(jobsig_name(0) == NULL);
}

static void test_reads_notify_lists(void)
{
	unsigned m = 99;
	char out[40];
	CHECK_INT(notify_parse("end,start", &m, NULL), 0);
	CHECK_INT(m, NOTIFY_START | NOTIFY_END);
	notify_format(m, out, sizeof(out));
	CHECK_STR(out, "start,end");
	CHECK_INT(notify_parse("all", &m, NULL), 0);
	notify_format(m, out, sizeof(out));
	CHECK_STR(out, "start,end,fail,requeue");
	CHECK_INT(notify_parse("none", &m, NULL), 0);
	CHECK_INT(m, 0);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(notify_parse("start,ended", &m, &e), -1);
	CHECK(strstr(e.msg, "unknown event 'ended'") != NULL);
	CHECK_INT(notify_parse("", &m, NULL), -1);
	CHECK_INT(notify_parse("start,", &m, NULL), -1);
}

static void test_transitions_fire_one_event(void)
{
	unsigned all = NOTIFY_ALL;
	CHECK_INT(notify_event_of(all, JOB_STARTING, JOB_RUNNING), NOTIFY_START);
	CHECK_INT(notify_event_of(all, JOB_PENDING, JOB_STARTING), 0);
	CHECK_INT(notify_event_of(all, JOB_RUNNING, JOB_COMPLETED), NOTIFY_END);
	CHECK_INT(notify_event_of(all, JOB_RUNNING, JOB_FAILED), NOTIFY_FAIL);
	CHECK_INT(notify_event_of(all, JOB_STOPPING, JOB_TIMEOUT), NOTIFY_FAIL);
	CHECK_INT(notify_event_of(NOTIFY_END, JOB_RUNNING, JOB_FAILED), NOTIFY_END);
	CHECK_INT(notify_event_of(NOTIFY_FAIL, JOB_RUNNING, JOB_COMPLETED), 0);
	CHECK_INT(notify_event_of(NOTIFY_FAIL, JOB_PENDING, JOB_CANCELLED), 0);
	CHECK_INT(notify_event_of(all, JOB_PENDING, JOB_CANCELLED), NOTIFY_END);
	CHECK_INT(notify_event_of(all, JOB_STOPPING, JOB_PENDING), NOTIFY_REQUEUE);
	CHECK_INT(notify_event_of(all, JOB_STARTING, JOB_PENDING), 0);
	CHECK_INT(notify_event_of(all, JOB_COMPLETED, JOB_COMPLETED), 0);
	CHECK_INT(notify_event_of(0, JOB_RUNNING, JOB_FAILED), 0);
}

void suite_jobsig(void)
{
	RUN(test_reads_signal_forms);
	RUN(test_refuses_bad_signals);
	RUN(test_signal_must_come_before_the_limit);
	RUN(test_reads_notify_lists);
	RUN(test_transitions_fire_one_event);
}
