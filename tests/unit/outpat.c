/* outpat.c - sbatch's -o/-e file name patterns, checked and expanded. */
#include "harness.h"

#include <string.h>

#include "core/outpat.h"

static void test_expands_every_pattern(void)
{
	struct job j;
	job_init(&j);
	j.id = 44;
	STR_COPY(j.name, "train");
	STR_COPY(j.user, "alice");
	static const struct {
		const char *pat, *plain, *task;
	} cases[] = {
	    {"out-%j.log", "out-44.log", "out-44.log"}, {"%A_%a", "44_0", "42_7"},
	    {"%x-%u", "train-alice", "train-alice"},	{"100%%", "100%", "100%"},
	    {"%4j-%3a", "0044-000", "0044-007"},	{"/abs/%j", "/abs/44", "/abs/44"},
	};
	char out[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j.array_id = 0;
		j.array_task = 0;
		CHECK_INT(outpat_expand(cases[i].pat, &j, out, sizeof(out), NULL), 0);
		CHECK_STR(out, cases[i].plain);
		j.array_id = 42;
		j.array_task = 7;
		CHECK_INT(outpat_expand(cases[i].pat, &j, out, sizeof(out), NULL), 0);
		CHECK_STR(out, cases[i].task);
		CHECK_INT(outpat_check(cases[i].pat, NULL), 0);
	}
	CHECK_INT(outpat_expand("%x%x%x", &j, out, 8, NULL), -1); /* does not fit */
}

static void test_refuses_unknown_patterns(void)
{
	static const char *const bad[] = {"%q", "a%", "%5", "", "%N", "%%%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(outpat_check(bad[i], &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
	}
	struct gq_err e = GQ_ERR_INIT;
	outpat_check("log-%q.txt", &e);
	CHECK_STR(e.msg, "unknown pattern '%q' in 'log-%q.txt'; use %j, %A, %a, %x, %u or %%");
}

/* A name's '/' would lead %x out of the job's directory; the pattern's own
 * '/' are the user's and stay. */
static void test_name_cannot_leave_the_directory(void)
{
	struct job j;
	job_init(&j);
	j.id = 5;
	STR_COPY(j.name, "../../etc/x");
	char out[64];
	CHECK_INT(outpat_expand("logs/%x-%j.out", &j, out, sizeof(out), NULL), 0);
	CHECK_STR(out, "logs/.._.._etc_x-5.out");
}

void suite_outpat(void)
{
	RUN(test_name_cannot_leave_the_directory);
	RUN(test_expands_every_pattern);
	RUN(test_refuses_unknown_patterns);
}
