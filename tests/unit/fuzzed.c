/* fuzzed.c - the inputs the fuzz targets of tests/fuzz/ found, each with
 * what it must do now; the input itself is in tests/fuzz/corpus/. */
#include "harness.h"

#include "wire/codec.h"
#include "core/policy.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* A member that is absent is "nothing" in the message, not a NULL that
 * the decoder's error path dereferences. */
static void test_decoders_name_a_missing_member(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{}", "stats.now: expected an integer, got nothing"},
	    {"{\"from\":1,\"to\":2,\"gpus\":1,\"gpu_seconds\":0.0,\"utilisation\":0.0}",
	     "stats.now: expected an integer, got nothing"},
	    {"{\"now\":3}", "stats.groups: expected an array, got nothing"},
	    {"{\"now\":3,\"groups\":[]}", "stats.depts: expected an array, got nothing"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stats_report r;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(wire_stats_parse(cases[i].text, strlen(cases[i].text), &r, &e), -1);
		CHECK_STR(e.msg, cases[i].want);
	}
	struct event *evs = NULL;
	size_t n = 7;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_events_decode(NULL, &evs, &n, &e), -1);
	CHECK_STR(e.msg, "events: expected an array, got nothing");
	CHECK_INT(n, 7);
}

/* The bound is on the size in MiB whatever its unit: a size the parser
 * accepts in T or G is one it accepts in M. */
static void test_size_bound_is_on_the_result(void)
{
	const int64_t max = INT64_MAX / (1024 * 1024);
	static const struct {
		const char *s;
		int rc;
		int64_t want;
	} cases[] = {
	    {"8796093022207", 0, INT64_C(8796093022207)},
	    {"8796093022207M", 0, INT64_C(8796093022207)},
	    {"8796093022208", -1, 0},
	    {"8589934591G", 0, INT64_C(8589934591) * 1024},
	    {"8589934592G", -1, 0},
	    {"8388607T", 0, INT64_C(8388607) * 1024 * 1024},
	    {"8388608T", -1, 0},
	    {"14444444444TiB", -1, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -1;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(parse_size_mb(cases[i].s, &v, &e), cases[i].rc);
		if (cases[i].rc == 0) {
			CHECK_INT(v, cases[i].want);
			CHECK(v <= max);
		} else {
			CHECK_INT(v, -1);
		}
	}
}

/* A snapshot decodes only when its rows form can carry it: every time of
 * a job within an int64_t of now (the rows form's distances). */
static void test_snapshot_times_within_reach_of_now(void)
{
	static const struct {
		const char *text;
		int rc;
		const char *msg;
	} cases[] = {
	    {"{\"now\":-9223372036854775807,\"jobs\":[{\"id\":1,\"submit_time\":"
	     "303859900799}]}",
	     -1,
	     "snapshot.jobs[0].submit_time: 303859900799 is out of range of now "
	     "(-9223372036854775807)"},
	    /* times themselves are 0..GQ_TIME_MAX (tests/unit/codec.c) */
	    {"{\"jobs\":[{\"id\":1,\"end_time\":-9223372036854775807}],\"now\":2}", -1,
	     "snapshot.jobs[0]: job.end_time: -9223372036854775807 is not a time gq keeps "
	     "(0..303859900799)"},
	    {"{\"now\":0,\"jobs\":[{\"id\":1,\"start_time\":303859900799,"
	     "\"queued_time\":0}]}",
	     0, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct snapshot s;
		snapshot_init(&s);
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(codec_snapshot_parse(cases[i].text, strlen(cases[i].text), &s, &e),
			  cases[i].rc);
		if (cases[i].msg) {
			CHECK_STR(e.msg, cases[i].msg);
			continue;
		}
		/* What decodes goes through the rows form and back. */
		size_t n;
		char *rows = codec_snapshot_text(&s, CODEC_ROWS, &n, NULL);
		struct snapshot back;
		snapshot_init(&back);
		CHECK_INT(codec_snapshot_parse(rows, n, &back, &e), 0);
		CHECK_INT(back.njobs, 1);
		if (back.njobs == 1) {
			CHECK_INT(back.jobs[0].start_time, GQ_TIME_MAX);
			CHECK_INT(back.jobs[0].queued_time, 0);
		}
		free(rows);
		snapshot_release(&back);
		snapshot_release(&s);
	}
}

/* A policy value that is not UTF-8 is refused: the policy goes over the
 * wire as JSON, where such a key was dropped (clients then saw "*"). */
static void test_policy_strings_are_utf8(void)
{
	static const struct {
		const char *key, *value;
		int rc;
	} cases[] = {
	    {"tier.P0.allow", "\xb4*", -1},
	    {"tier.P0.allow", "alice \xc3\xa9lodie @ml", 0},
	    {"downgrade.webhook", "http://x/\xed\xa0\x80", -1}, /* a surrogate */
	    {"downgrade.trialQueues",
	     "\xc0\xaf"
	     "exp",
	     -1}, /* overlong '/' */
	    {"downgrade.trialQueues", "exp", 0},
	};
	struct policy *p = malloc(sizeof(*p));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		policy_defaults(p);
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(policy_set(p, cases[i].key, cases[i].value, &e), cases[i].rc);
		if (cases[i].rc < 0)
			CHECK(strstr(e.msg, "not UTF-8") != NULL);
	}
	free(p);
}

static void test_utf8_valid_is_rfc3629(void)
{
	static const struct {
		const char *s;
		bool ok;
	} cases[] = {
	    {"", true},
	    {"abc", true},
	    {"\xc3\xa9", true},
	    {"\xe2\x82\xac", true},
	    {"\xf0\x9f\x98\x80", true},
	    {"\xf4\x8f\xbf\xbf", true},
	    {"\xc3", false},
	    {"\xc1\xbf", false},
	    {"\xe0\x80\xaf", false},
	    {"\xed\xa0\x80", false},
	    {"\xf4\x90\x80\x80", false},
	    {"\xf8\x88\x80\x80\x80", false},
	    {"\x80", false},
	    {"a\xe2\x82", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(utf8_valid(cases[i].s), cases[i].ok);
}

void suite_fuzzed(void)
{
	RUN(test_decoders_name_a_missing_member);
	RUN(test_size_bound_is_on_the_result);
	RUN(test_snapshot_times_within_reach_of_now);
	RUN(test_policy_strings_are_utf8);
	RUN(test_utf8_valid_is_rfc3629);
}
