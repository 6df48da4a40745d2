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

void suite_fuzzed(void)
{
	RUN(test_decoders_name_a_missing_member);
}
