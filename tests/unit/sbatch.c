/* sbatch.c - a batch script's #SBATCH lines (core/sbatch.h): every option
 * gq honours in each of sbatch's spellings, where the directives end, and
 * what is kept aside for a warning. */
#include "harness.h"

#include <string.h>

#include "core/sbatch.h"
#include "core/util.h"

static void test_reads_the_common_options(void)
{
	struct sbatch sb;
	sbatch_parse("#!/bin/bash\n"
		     "#SBATCH -J train -p gpu -q p0 -A proj_a\n"
		     "#SBATCH --output=out/%j.log --error err/%x-%j.log\n"
		     "#SBATCH -N 2-4\n"
		     "#SBATCH --ntasks=8 --ntasks-per-node=4 -c 6\n"
		     "#SBATCH -C a100 --array=0-9%2 --exclusive\n"
		     "#SBATCH --mail-type=END,FAIL --mail-user \"alice@example.com\"\n"
		     "#SBATCH -t 1-02:03:04 --mem=16G\n"
		     "#SBATCH --gres=gpu:a100:4\n"
		     "#SBATCH -D /scratch/alice --export=NONE\n"
		     "#SBATCH --reservation=maint\n"
		     "echo hi\n",
		     &sb);
	CHECK_STR(sb.name, "train");
	CHECK_STR(sb.partition, "gpu");
	CHECK_STR(sb.qos, "p0");
	CHECK_STR(sb.account, "proj_a");
	CHECK_STR(sb.output, "out/%j.log");
	CHECK_STR(sb.error, "err/%x-%j.log");
	CHECK_INT(sb.nodes_min, 2);
	CHECK_INT(sb.nodes_max, 4);
	CHECK_INT(sb.ntasks, 8);
	CHECK_INT(sb.ntasks_per_node, 4);
	CHECK_INT(sb.cpus_per_task, 6);
	CHECK_STR(sb.constraint, "a100");
	CHECK_STR(sb.array, "0-9%2");
	CHECK_STR(sb.exclusive, "exclusive");
	CHECK_STR(sb.mail_type, "END,FAIL");
	CHECK_STR(sb.mail_user, "alice@example.com");
	CHECK_STR(sb.reservation, "maint");
	CHECK_INT(sb.time_limit, ((24 + 2) * 60 + 3) * 60 + 4);
	CHECK_INT(sb.mem_mb, 16384);
	CHECK_INT(sb.gpus, 4);
	CHECK_STR(sb.gpu_type, "a100");
	CHECK(sb.gpus_per_node);
	CHECK_STR(sb.chdir, "/scratch/alice");
	CHECK_STR(sb.export_env, "NONE");
	CHECK_INT(sb.nskipped, 0);
}

static void test_reads_each_spelling(void)
{
	static const struct {
		const char *line;
		int64_t time_limit;
	} cases[] = {
	    {"#SBATCH -t 90", 90 * 60},	    {"#SBATCH -t90", 90 * 60},
	    {"#SBATCH --time=90", 90 * 60}, {"#SBATCH --time 1:30", 90},
	    {"#SBATCH -t 2:00:00", 7200},   {"#SBATCH --time=2-0", 2 * 86400},
	    {"#SBATCH -t=5", 300},	    {"#SBATCH\t--time=UNLIMITED", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbatch sb;
		sbatch_parse(cases[i].line, &sb);
		CHECK_INT(sb.time_limit, cases[i].time_limit);
		CHECK_INT(sb.nskipped, 0);
	}
}

static void test_reads_gpu_requests(void)
{
	static const struct {
		const char *line;
		int gpus;
		const char *type;
		bool per_node;
	} cases[] = {
	    {"#SBATCH --gres=gpu:2", 2, "", true},
	    {"#SBATCH --gres=gpu:h100:4", 4, "h100", true},
	    {"#SBATCH --gres gpu", 1, "", true},
	    {"#SBATCH --gres=gpu:a100", 1, "a100", true},
	    {"#SBATCH --gpus=3", 3, "", false},
	    {"#SBATCH -G a100:8", 8, "a100", false},
	    {"#SBATCH --gpus-per-node=h100:2", 2, "h100", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbatch sb;
		sbatch_parse(cases[i].line, &sb);
		CHECK_INT(sb.gpus, cases[i].gpus);
		CHECK_STR(sb.gpu_type, cases[i].type);
		CHECK_INT(sb.gpus_per_node, cases[i].per_node);
	}
}

static void test_nodes_min_and_max(void)
{
	struct sbatch sb;
	sbatch_parse("#SBATCH -N3", &sb);
	CHECK_INT(sb.nodes_min, 3);
	CHECK_INT(sb.nodes_max, 0);
	sbatch_parse("#SBATCH --nodes=4-2", &sb); /* max below min */
	CHECK_INT(sb.nodes_min, 0);
	CHECK_INT(sb.nskipped, 1);
	CHECK_INT(sb.skipped[0].why, SBATCH_BADVAL);
	CHECK_STR(sb.skipped[0].opt, "--nodes");
}

static void test_directives_end_at_the_first_command(void)
{
	struct sbatch sb;
	sbatch_parse("#!/bin/sh\n\n# a comment\n#GQ --gpus 2\n  #SBATCH -J first\n"
		     "module load cuda\n#SBATCH -J late\n",
		     &sb);
	CHECK_STR(sb.name, "first");
	/* "#SBATCHx" is a comment, as for sbatch */
	sbatch_parse("#SBATCHx -J no\n#SBATCH -J yes # trailing comment -J no\n", &sb);
	CHECK_STR(sb.name, "yes");
	CHECK_INT(sb.nskipped, 0);
}

static void test_keeps_what_it_does_not_honour(void)
{
	struct sbatch sb;
	sbatch_parse("#SBATCH --mem-per-cpu=2G --requeue -w gpu1 --exclusive=maybe\n"
		     "#SBATCH --mem=lots --licenses foo --hold\n",
		     &sb);
	CHECK_INT(sb.nskipped, 6);
	CHECK_STR(sb.skipped[0].opt, "--mem-per-cpu");
	CHECK_STR(sb.skipped[0].value, "2G");
	CHECK_INT(sb.skipped[0].why, SBATCH_UNKNOWN);
	CHECK_STR(sb.skipped[1].opt, "--requeue"); /* a flag: takes no word */
	CHECK_STR(sb.skipped[1].value, "");
	CHECK_STR(sb.skipped[2].opt, "-w");
	CHECK_STR(sb.skipped[2].value, "gpu1");
	CHECK_STR(sb.skipped[3].opt, "--exclusive");
	CHECK_INT(sb.skipped[3].why, SBATCH_BADVAL);
	CHECK_STR(sb.skipped[4].opt, "--mem");
	CHECK_INT(sb.skipped[4].why, SBATCH_BADVAL);
	CHECK_STR(sb.skipped[5].opt, "--licenses");
	CHECK_STR(sb.skipped[5].value, "foo");
	CHECK(sb.hold);
	CHECK_INT(sb.mem_mb, 0);
}

static void test_a_bad_count_leaves_the_field(void)
{
	struct sbatch sb;
	sbatch_parse("#SBATCH -c 4 -c x -n 2 --ntasks=-1 --ntasks-per-node=1 --ntasks-per-node=z",
		     &sb);
	CHECK_INT(sb.cpus_per_task, 4);
	CHECK_INT(sb.ntasks, 2);
	CHECK_INT(sb.ntasks_per_node, 1);
	CHECK_INT(sb.nskipped, 3);
}

/* #SBATCH lines are split as #GQ lines and gq shell are (issue 26: two
 * splitters quoted differently): a backslash escapes, quotes group, a #
 * word ends the line, an open quote is a line gq cannot read. */
static void test_lines_split_as_gq_lines(void)
{
	struct sbatch sb;
	sbatch_parse("#!/bin/sh\n#SBATCH -J a\\ b --mail-user=\"x y\" # a comment -p gpu\n"
		     "#SBATCH -A 'it''s' -q \"p\\\"1\"\ntrue\n",
		     &sb);
	CHECK_STR(sb.name, "a b");
	CHECK_STR(sb.mail_user, "x y");
	CHECK_STR(sb.partition, "");
	CHECK_STR(sb.account, "its");
	CHECK_STR(sb.qos, "p\"1");
	CHECK_INT(sb.nskipped, 0);
	char line[] = "-J a\\ b --mail-user=\"x y\"", *w[8], why[64];
	CHECK_INT(words_split(line, w, 8, false, why, sizeof(why)), 3);
	CHECK_STR(w[1], "a b");
	CHECK_STR(w[2], "--mail-user=x y");
	sbatch_parse("#!/bin/sh\n#SBATCH -J 'open\n", &sb);
	CHECK_STR(sb.name, "");
	CHECK_INT(sb.nskipped, 1);
	CHECK_INT(sb.skipped[0].why, SBATCH_BADVAL);
}

static void test_bad_times(void)
{
	static const char *const bad[] = {
	    "abc",	  "1:2:3:4",	  "-5", "1-", "5m", "", "3333333333333333333333",
	    "99999999-0", "1:99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(sbatch_time(bad[i]), -1);
}

void suite_sbatch(void)
{
	RUN(test_reads_the_common_options);
	RUN(test_reads_each_spelling);
	RUN(test_reads_gpu_requests);
	RUN(test_nodes_min_and_max);
	RUN(test_directives_end_at_the_first_command);
	RUN(test_keeps_what_it_does_not_honour);
	RUN(test_a_bad_count_leaves_the_field);
	RUN(test_bad_times);
	RUN(test_lines_split_as_gq_lines);
}
