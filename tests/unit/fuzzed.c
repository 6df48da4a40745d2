/* fuzzed.c - the inputs the fuzz targets of tests/fuzz/ found, each with
 * what it must do now; the input itself is in tests/fuzz/corpus/. */
#include "harness.h"

#include "backend/codec.h"
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
		struct stats st;
		int64_t now = 0;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(codec_stats_parse(cases[i].text, strlen(cases[i].text), &st, &now, &e), -1);
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

void suite_fuzzed(void)
{
	RUN(test_decoders_name_a_missing_member);
	RUN(test_size_bound_is_on_the_result);
}
