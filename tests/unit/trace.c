/*
 * trace.c - replay/trace.h: the CSV and SWF readers on tiny constructed
 * files, and one malformed line of each kind with the line it names.
 */
#include "replay/trace.h"

#include <string.h>

#include "harness.h"

static int parse_csv(struct trace *t, const char *text, struct gq_err *e)
{
	trace_init(t);
	return trace_parse_csv(t, text, strlen(text), "t.csv", e);
}

static void test_csv_columns_by_name(void)
{
	struct trace t;
	struct gq_err e = GQ_ERR_INIT;
	const char *text = "job_id,submit_s,start_s,end_s,gpus,user,queue,status,req_s,tier,x\n"
			   "7,0,10,70,4,alice,gpu,COMPLETED,100,P0,zz\r\n"
			   "\n"
			   "8,5,,,2,bob,,FAILED,,,\n";
	CHECK_INT(parse_csv(&t, text, &e), 0);
	CHECK_INT(t.n, 2);
	CHECK_STR(t.jobs[0].id, "7");
	CHECK_INT(t.jobs[0].submit, 0);
	CHECK_INT(t.jobs[0].start, 10);
	CHECK_INT(t.jobs[0].end, 70);
	CHECK_INT(t.jobs[0].units, 4);
	CHECK_INT(t.jobs[0].limit, 100);
	CHECK_INT(t.jobs[0].tier, 0);
	CHECK(t.jobs[0].completed);
	CHECK_STR(t.jobs[0].user, "alice");
	CHECK_STR(t.jobs[0].queue, "gpu");
	CHECK_INT(t.jobs[1].start, -1);
	CHECK_INT(t.jobs[1].end, -1);
	CHECK_INT(t.jobs[1].limit, 0);
	CHECK_INT(t.jobs[1].tier, -1);
	CHECK(!t.jobs[1].completed);
	CHECK_INT(t.max_units, 4);
	trace_release(&t);
}

static void test_csv_malformed_lines(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"", "t.csv: empty file: no CSV header"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,status\n",
	     "t.csv:1: no column 'queue' in the header (it needs job_id,submit_s,start_s,end_s,"
	     "gpus,user,queue,status)"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,0,1,2,1,a,,x\n2,0,1,2\n",
	     "t.csv:3: 4 fields, the header needs 8"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,0,1x,2,1,a,,x\n",
	     "t.csv:2: start_s: not a time in seconds: '1x'"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,5,1,2,1,a,,x\n",
	     "t.csv:2: times out of order: need submit_s <= start_s <= end_s, and end_s only "
	     "with start_s"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,0,1,2,-3,a,,x\n",
	     "t.csv:2: gpus: not a count: '-3'"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,0,1,2,1,\"a\",,x\n",
	     "t.csv:2: quoted fields are not supported"},
	    {"job_id,submit_s,start_s,end_s,gpus,user,queue,status,tier\n1,0,1,2,1,a,,x,P7\n",
	     "t.csv:2: tier: not P0, P1 or P2: 'P7'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(parse_csv(&t, cases[i].text, &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
		CHECK_STR(e.msg, cases[i].msg);
		trace_release(&t);
	}
}

static void test_swf_fields_and_header(void)
{
	struct trace t;
	struct gq_err e = GQ_ERR_INIT;
	const char *text = "; Version: 2.2\n"
			   ";  MaxNodes: 50\n"
			   "; MaxProcs: 100\n"
			   "1 0 20 100 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1 -1\n"
			   "  2 30 -1 -1 -1 12.5 -1 4 -1 -1 0 4 2 -1 -1 -1 -1 -1\n";
	trace_init(&t);
	CHECK_INT(trace_parse_swf(&t, text, strlen(text), "t.swf", &e), 0);
	CHECK_INT(t.machine, 100);
	CHECK_INT(t.n, 2);
	CHECK_INT(t.jobs[0].submit, 0);
	CHECK_INT(t.jobs[0].start, 20);
	CHECK_INT(t.jobs[0].end, 120);
	CHECK_INT(t.jobs[0].units, 8);
	CHECK_INT(t.jobs[0].limit, 3600);
	CHECK(t.jobs[0].completed);
	CHECK_STR(t.jobs[0].user, "u3");
	CHECK_STR(t.jobs[0].name, "x5");
	CHECK_STR(t.jobs[0].queue, "q1");
	CHECK_INT(t.jobs[1].start, -1);
	CHECK_INT(t.jobs[1].units, 4); /* requested when allocated is unknown */
	CHECK_INT(t.jobs[1].limit, 0);
	CHECK_STR(t.jobs[1].name, "");
	trace_release(&t);

	/* No MaxProcs: MaxNodes is the size. */
	trace_init(&t);
	CHECK_INT(trace_parse_swf(&t, "; MaxNodes: 64\n", 15, "t.swf", &e), 0);
	CHECK_INT(t.machine, 64);
	trace_release(&t);
}

static void test_swf_malformed_lines(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"; c\n1 0 20 100 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1\n",
	     "t.swf:2: 17 fields, SWF has 18"},
	    {"1 0 20 100 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1 -1\n1 0 2o 1 8 -1 -1 8 1 -1 1 3 2 5 1 "
	     "-1 "
	     "-1 -1\n",
	     "t.swf:2: field 3: not a number: '2o'"},
	    {"1 -1 20 100 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1 -1\n",
	     "t.swf:1: field 2 (submit time) is unknown (-1)"},
	    {"1 0 20 1.5 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1 -1\n",
	     "t.swf:1: field 4: not a number: '1.5'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		struct gq_err e = GQ_ERR_INIT;
		trace_init(&t);
		CHECK_INT(trace_parse_swf(&t, cases[i].text, strlen(cases[i].text), "t.swf", &e),
			  -1);
		CHECK_STR(e.msg, cases[i].msg);
		trace_release(&t);
	}
}

void suite_trace(void)
{
	RUN(test_csv_columns_by_name);
	RUN(test_csv_malformed_lines);
	RUN(test_swf_fields_and_header);
	RUN(test_swf_malformed_lines);
}
