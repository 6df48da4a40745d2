/* util.c - durations, numbers, sizes, names, buffers. */
#include "harness.h"

#include "core/begin.h"
#include "core/job.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_dur_format_two_units(void)
{
	char b[32];
	CHECK_STR(dur_format(0, b, sizeof(b)), "0s");
	CHECK_STR(dur_format(45, b, sizeof(b)), "45s");
	CHECK_STR(dur_format(12 * 60 + 5, b, sizeof(b)), "12m");
	CHECK_STR(dur_format(2 * 3600 + 5 * 60, b, sizeof(b)), "2h05m");
	CHECK_STR(dur_format(3 * 86400 + 4 * 3600 + 59, b, sizeof(b)), "3d04h");
	CHECK_STR(dur_format(-90, b, sizeof(b)), "-1m");
	CHECK_STR(dur_format(3600, b, sizeof(b)), "1h00m");
	CHECK_STR(dur_format(INT64_MIN, b, sizeof(b)), "-106751991167300d15h");
	CHECK_STR(dur_format(2 * 3600 + 5 * 60, b, 4), "2h0");
}

static void test_dur_parse_forms(void)
{
	int64_t v = -1;
	CHECK_INT(dur_parse("90", &v, NULL), 0);
	CHECK_INT(v, 90);
	CHECK_INT(dur_parse("2h30m", &v, NULL), 0);
	CHECK_INT(v, 9000);
	CHECK_INT(dur_parse("1d2h", &v, NULL), 0);
	CHECK_INT(v, 93600);
	CHECK_INT(dur_parse("01:30", &v, NULL), 0);
	CHECK_INT(v, 5400);
	CHECK_INT(dur_parse("1:00:05", &v, NULL), 0);
	CHECK_INT(v, 3605);
}

/* 2026-12-02 10:30:00 UTC, a Wednesday. */
#define BEGIN_NOW INT64_C(1796207400)

static void test_begin_parse_slurm_forms(void)
{
	int64_t t = -1, day = BEGIN_NOW - 37800; /* 00:00 UTC that day */
	CHECK_INT(begin_parse("now", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW);
	CHECK_INT(begin_parse("now+2h", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW + 7200);
	CHECK_INT(begin_parse("now+2hours", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW + 7200);
	CHECK_INT(begin_parse("now+90", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW + 90);
	CHECK_INT(begin_parse("now+1w", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW + 604800);
	CHECK_INT(begin_parse("now+1h30m", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, BEGIN_NOW + 5400);
	CHECK_INT(begin_parse("14:00", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 14 * 3600);
	/* Passed today: tomorrow, as Slurm does. */
	CHECK_INT(begin_parse("9:15:30", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 86400 + 9 * 3600 + 15 * 60 + 30);
	/* 14:00 in UTC+2 is 12:00 UTC. */
	CHECK_INT(begin_parse("14:00", BEGIN_NOW, 7200, &t, NULL), 0);
	CHECK_INT(t, day + 12 * 3600);
	CHECK_INT(begin_parse("teatime", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 16 * 3600);
	CHECK_INT(begin_parse("midnight", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 86400);
	CHECK_INT(begin_parse("tomorrow", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 86400);
	CHECK_INT(begin_parse("2026-12-24", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, day + 22 * 86400);
	CHECK_INT(begin_parse("2028-02-29T08:00", BEGIN_NOW, -3600, &t, NULL), 0);
	CHECK_INT(t, INT64_C(1835395200) + 9 * 3600);
	CHECK_INT(begin_parse("@1800000000", BEGIN_NOW, 0, &t, NULL), 0);
	CHECK_INT(t, 1800000000);
	/* A past date parses; begin_check refuses it. */
	CHECK_INT(begin_parse("2020-01-01", BEGIN_NOW, 0, &t, NULL), 0);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(begin_check(t, BEGIN_NOW, &e), -1);
	CHECK(strstr(e.msg, "in the past") != NULL);
	CHECK_INT(begin_check(BEGIN_NOW, BEGIN_NOW, NULL), 0);
	CHECK_INT(begin_check(0, BEGIN_NOW, NULL), 0);
}

static void test_begin_parse_rejects(void)
{
	static const char *const bad[] = {
	    "",		  "later",	 "now-1h",
	    "now+",	  "now+2x",	 "25:00",
	    "14:60",	  "14",		 "2026-02-30",
	    "2026-13-01", "2026-12-02T", "2026-12-02 8",
	    "@",	  "@-5",	 "now+99999999999999",
	    "@x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t t = -1;
		struct gq_err e = GQ_ERR_INIT;
		if (!CHECK_INT(begin_parse(bad[i], BEGIN_NOW, 0, &t, &e), -1))
			printf("# accepted '%s'\n", bad[i]);
		CHECK_INT(t, -1);
		CHECK(strstr(e.msg, "not a begin time") != NULL);
	}
}

static void test_dur_parse_rejects(void)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t v = 7;
	const char *bad[] = {"",     "abc", "-5m",   "5x",    "1h30",  "99999999999999999999",
			     "1:75", "h",   " 1:30", "+1:30", "1:+30", ":30",
			     "1: 30"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(dur_parse(bad[i], &v, &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
	}
	CHECK_INT(v, 7);
}

static void test_parse_numbers_and_sizes(void)
{
	int64_t n;
	double d;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(parse_int64("42", 0, 100, &n, &e), 0);
	CHECK_INT(n, 42);
	CHECK_INT(parse_int64("101", 0, 100, &n, &e), -1);
	CHECK(strstr(e.msg, "out of range") != NULL);
	CHECK_INT(parse_int64("4x", 0, 100, &n, &e), -1);
	CHECK_INT(parse_double("0.25", 0, 1, &d, &e), 0);
	CHECK_DBL(d, 0.25, 0);
	CHECK_INT(parse_double("nan", 0, 1, &d, &e), -1);
	CHECK_INT(parse_size_mb("80G", &n, &e), 0);
	CHECK_INT(n, 80 * 1024);
	CHECK_INT(parse_size_mb("512MiB", &n, &e), 0);
	CHECK_INT(n, 512);
	CHECK_INT(parse_size_mb("12Q", &n, &e), -1);
}

static void test_names(void)
{
	CHECK(name_valid("exp"));
	CHECK(name_valid("a100-80g.x_y"));
	CHECK(!name_valid(""));
	CHECK(!name_valid("-x"));
	CHECK(!name_valid("a b"));
	CHECK(!name_valid("0123456789012345678901234567890123456789012345678901234567890123"));
}

static void test_buf_max_size(void)
{
	struct buf b;
	buf_init(&b, 8);
	CHECK_INT(buf_addstr(&b, "12345"), 0);
	CHECK_INT(buf_printf(&b, "%d", 678), 0);
	CHECK_INT(buf_addstr(&b, "9"), -1);
	CHECK_STR(b.data, "12345678");
	char *s = buf_detach(&b);
	CHECK_STR(s, "12345678");
	CHECK(b.data == NULL);
	free(s);
}

/* buf_addint writes what %lld does, at the ends of the range too; a
 * printf that does not fit the room left is formatted again after growing. */
static void test_buf_addint_and_printf(void)
{
	static const int64_t v[] = {0, 7, -1, 10, -10, 1795959722, INT64_MAX, INT64_MIN};
	struct buf b;
	buf_init(&b, 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char want[32];
		snprintf(want, sizeof(want), "%lld", (long long)v[i]);
		buf_reset(&b);
		CHECK_INT(buf_addint(&b, v[i]), 0);
		CHECK_STR(b.data, want);
	}
	buf_reset(&b);
	char big[300];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(buf_printf(&b, "<%s>", big), 0);
	CHECK_INT(b.len, 301);
	CHECK_INT(b.data[0], '<');
	CHECK_INT(b.data[300], '>');
	CHECK_INT(b.data[301], '\0');
	buf_release(&b);
	buf_init(&b, 4);
	CHECK_INT(buf_addint(&b, 12345), -1);
	CHECK_INT(buf_printf(&b, "%d", 12345), -1);
	CHECK_INT(b.len, 0);
	CHECK_STR(b.data ? b.data : "", "");
	buf_release(&b);
}

/* A job's GPUs as CUDA_VISIBLE_DEVICES takes them, cut to fit. */
static void test_job_gpu_list(void)
{
	struct job j;
	job_init(&j);
	char b[16];
	job_gpu_list(&j, b, sizeof(b));
	CHECK_STR(b, "");
	j.nalloc = 2;
	j.alloc = xcalloc(2, sizeof(*j.alloc));
	j.alloc[0] = (struct job_alloc){0, 0x23};
	j.alloc[1] = (struct job_alloc){1, UINT64_C(1) << 63};
	job_gpu_list(&j, b, sizeof(b));
	CHECK_STR(b, "0,1,5,63");
	job_gpu_list(&j, b, 6);
	CHECK_STR(b, "0,1,5");
	job_gpu_list(&j, b, 5);
	CHECK_STR(b, "0,1,");
	job_release(&j);
}

static void test_err_prefix_keeps_code(void)
{
	struct gq_err e = GQ_ERR_INIT;
	err_set(&e, GQ_ENOENT, "no job %d", 5);
	err_prefix(&e, "cancel");
	CHECK_STR(e.msg, "cancel: no job 5");
	CHECK_INT(e.code, GQ_ENOENT);
	CHECK_INT(err_code_from_name(err_code_name(GQ_EPERM)), GQ_EPERM);
}

static void check_escaped(const char *in, const char *want)
{
	struct buf b;
	buf_init(&b, 0);
	CHECK_INT(buf_add_escaped(&b, in), 0);
	CHECK_STR(b.data ? b.data : "", want);
	buf_release(&b);
}

/* No byte of a job's text reaches the terminal as a control: C0, DEL and
 * the C1 controls in UTF-8 are escaped; other UTF-8, and bytes that are
 * not UTF-8, are left alone. */
static void test_escaped_controls(void)
{
	check_escaped("", "");
	check_escaped("plain text", "plain text");
	check_escaped("a\tb\nc\rd", "a\\tb\\nc\\rd");
	check_escaped("\001x\033[2J\177", "\\x01x\\x1b[2J\\x7f");
	check_escaped("\302\205nel \302\233csi \302\237", "\\u0085nel \\u009bcsi \\u009f");
	check_escaped("caf\303\251 \302\240nbsp \342\202\254",
		      "caf\303\251 \302\240nbsp \342\202\254");
	check_escaped("bad \377 \302", "bad \377 \302");
	struct buf b;
	buf_init(&b, 4);
	CHECK_INT(buf_add_escaped(&b, "\033\033"), -1); /* over its max */
	buf_release(&b);
}

void suite_util(void)
{
	RUN(test_dur_format_two_units);
	RUN(test_escaped_controls);
	RUN(test_dur_parse_forms);
	RUN(test_begin_parse_slurm_forms);
	RUN(test_begin_parse_rejects);
	RUN(test_dur_parse_rejects);
	RUN(test_parse_numbers_and_sizes);
	RUN(test_names);
	RUN(test_buf_max_size);
	RUN(test_buf_addint_and_printf);
	RUN(test_job_gpu_list);
	RUN(test_err_prefix_keeps_code);
}
