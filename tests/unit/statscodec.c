/* statscodec.c - the metrics of a window through the API's JSON and back
 * (what `gq policy review` reads from GET /v1/stats). */
#include "harness.h"

#include "wire/codec.h"

#include <stdlib.h>
#include <string.h>

static void test_stats_round_trip(void)
{
	struct stats_group g[2] = {
	    {.queue = "exp",
	     .tier = TIER_P2,
	     .starts = 3,
	     .p50_wait = 60,
	     .p95_wait = 3600,
	     .longest_wait = 7200,
	     .longest_job = 42,
	     .over_limit = 1,
	     .overtaken = 2,
	     .preemptions = 4,
	     .would_preempt = 5,
	     .work_lost = 1.5,
	     .cancelled = 6},
	    {.queue = "*", .tier = TIER_P0, .starts = 1},
	};
	struct stats_dept d = {.dept = "research", .gpu_hours = 12.5, .charged = 3.75};
	struct stats st = {.from = 100,
			   .to = 200,
			   .ngroups = 2,
			   .groups = g,
			   .ndepts = 1,
			   .depts = &d,
			   .gpus = 8,
			   .gpu_seconds = 400,
			   .utilisation = 0.5};
	int counts[JOB_STATE_COUNT] = {2, 0, 1};
	json_t *v = codec_stats_encode(&st, counts, 250);
	char *text = codec_dump(v);
	json_decref(v);
	struct stats_report r;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_stats_parse(text, strlen(text), &r, &e), 0);
	CHECK_STR(e.msg, "");
	CHECK_INT(r.now, 250);
	CHECK_INT(r.counts[JOB_PENDING], 2);
	CHECK_INT(r.counts[2], 1);
	struct stats back = r.st;
	CHECK_INT(back.from, 100);
	CHECK_INT(back.to, 200);
	CHECK_INT(back.gpus, 8);
	CHECK_DBL(back.utilisation, 0.5, 0);
	CHECK_INT(back.ngroups, 2);
	CHECK_STR(back.groups[0].queue, "exp");
	CHECK_INT(back.groups[0].tier, TIER_P2);
	CHECK_INT(back.groups[0].p95_wait, 3600);
	CHECK_INT(back.groups[0].cancelled, 6);
	CHECK_DBL(back.groups[0].work_lost, 1.5, 0);
	CHECK_STR(back.groups[1].queue, "*");
	CHECK_INT(back.ndepts, 1);
	CHECK_STR(back.depts[0].dept, "research");
	CHECK_DBL(back.depts[0].charged, 3.75, 0);
	char *again = wire_stats_text(&r); /* what gq stats --json prints */
	CHECK_STR(again, text);
	free(again);
	stats_release(&back);
	free(text);
}

/* The server's start goes through the text and back; without it, 0. */
static void test_stats_server_start_round_trip(void)
{
	struct stats_report r = {.now = 250, .started = 120};
	r.st.from = 120;
	r.st.to = 251;
	char *text = wire_stats_text(&r);
	struct stats_report back;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_stats_parse(text, strlen(text), &back, &e), 0);
	CHECK_INT(back.started, 120);
	CHECK_INT(back.st.from, 120);
	stats_report_release(&back);
	free(text);
	r.started = 0;
	text = wire_stats_text(&r);
	CHECK(strstr(text, "server_start") == NULL);
	CHECK_INT(wire_stats_parse(text, strlen(text), &back, &e), 0);
	CHECK_INT(back.started, 0);
	stats_report_release(&back);
	free(text);
}

static void test_stats_parse_names_bad_field(void)
{
	const char *text = "{\"now\": 1, \"from\": 0, \"to\": 1, \"gpus\": 8, \"gpu_seconds\": 0,"
			   " \"utilisation\": 0, \"jobs\": {}, \"depts\": [],"
			   " \"groups\": [{\"queue\": \"q\", \"tier\": \"P9\"}]}";
	struct stats_report r = {.now = 0};
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_stats_parse(text, strlen(text), &r, &e), -1);
	CHECK_STR(e.msg, "stats.groups[0].tier: unknown tier 'P9'; use P0, P1 or P2");
	CHECK_INT(r.now, 0);
}

void suite_statscodec(void)
{
	RUN(test_stats_round_trip);
	RUN(test_stats_server_start_round_trip);
	RUN(test_stats_parse_names_bad_field);
}
