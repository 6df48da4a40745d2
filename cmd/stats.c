/*
 * stats.c - `gq stats`: the server's metrics (DESIGN §6) — jobs by state,
 * GPUs busy, wait percentiles per queue and tier. The numbers are the
 * server's; this file only lays them out.
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "wire/cli.h"
#include "wire/history.h"

static void stats_render(const struct stats_report *r)
{
	const struct stats *st = &r->st;
	char t1[32], t2[32], d1[16], d2[16], d3[16];
	printf("from %s to %s\n", cmd_time(st->from, r->now, t1, sizeof(t1)),
	       cmd_time(st->to, r->now, t2, sizeof(t2)));
	printf("GPUs: %d, utilisation %.1f%%, %.1f GPU-hours used\n", st->gpus,
	       st->utilisation * 100, st->gpu_seconds / 3600);
	printf("jobs:");
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		printf(" %d %s%s", r->counts[s], job_state_name((enum job_state)s),
		       s + 1 < JOB_STATE_COUNT ? "," : "");
	printf("\n");
	if (st->ngroups) {
		printf("\n%-12s %-4s %6s %7s %7s %8s %5s %9s %8s %9s %9s\n", "QUEUE", "TIER",
		       "STARTS", "P50", "P95", "LONGEST", "OVER", "OVERTAKEN", "PREEMPTS", "LOST",
		       "CANCELLED");
		for (size_t i = 0; i < st->ngroups; i++) {
			const struct stats_group *g = &st->groups[i];
			char lost[16];
			dur_format((int64_t)g->work_lost, lost, sizeof(lost));
			printf("%-12s %-4s %6d %7s %7s %8s %5d %9d %8d %9s %9d\n", g->queue,
			       tier_name(g->tier), g->starts,
			       dur_format(g->p50_wait, d1, sizeof(d1)),
			       dur_format(g->p95_wait, d2, sizeof(d2)),
			       dur_format(g->longest_wait, d3, sizeof(d3)), g->over_limit,
			       g->overtaken, g->preemptions, lost, g->cancelled);
		}
	}
	if (st->ndepts) {
		printf("\n%-12s %10s %10s\n", "DEPARTMENT", "GPU-HOURS", "CHARGED");
		for (size_t i = 0; i < st->ndepts; i++)
			printf("%-12s %10.2f %10.2f\n", st->depts[i].dept, st->depts[i].gpu_hours,
			       st->depts[i].charged);
	}
}

static int cmp_usage(const void *pa, const void *pb)
{
	return strcmp(((const struct usage_row *)pa)->name, ((const struct usage_row *)pb)->name);
}

/* gq stats --by user|dept: every finished job the server keeps, its last
 * run's GPU-hours and their price (the tier's price factor). */
static int usage_by(bool dept, bool json)
{
	int rc;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b)
		return rc;
	struct history_query q = {0};
	struct job *jobs = NULL;
	size_t n = 0, nrows = 0, cap = 0;
	struct usage_row *rows = NULL;
	if ((rc = cmd_fetch_history(b, &q, &jobs, &n)) != EXIT_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		const char *key = dept ? j->dept : j->user;
		size_t k = 0;
		while (k < nrows && strcmp(rows[k].name, key))
			k++;
		if (k == nrows) {
			GROW(rows, cap, nrows + 1);
			memset(&rows[nrows], 0, sizeof(rows[0]));
			STR_COPY(rows[nrows].name, key);
			nrows++;
		}
		int64_t run = j->start_time > 0 && j->end_time > j->start_time
				  ? j->end_time - j->start_time
				  : 0;
		double gh = (double)j->req.gpus * (double)run / 3600.0;
		rows[k].jobs++;
		rows[k].gpu_hours += gh;
		rows[k].charged += gh * s.policy.tier[job_tier(j)].price;
	}
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_usage);
	if (json) {
		char *text = wire_usage_json(dept ? "dept" : "user", rows, nrows);
		printf("%s\n", text);
		free(text);
	} else {
		printf("%-16s %6s %10s %10s\n", dept ? "DEPARTMENT" : "USER", "JOBS", "GPU-HOURS",
		       "CHARGED");
		for (size_t i = 0; i < nrows; i++)
			printf("%-16s %6d %10.2f %10.2f\n", rows[i].name, rows[i].jobs,
			       rows[i].gpu_hours, rows[i].charged);
	}
	rc = EXIT_OK;
out:
	free(rows);
	free(jobs);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

static int stats_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_stats;
	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"by", required_argument, NULL, 'b'},
	    {0, 0, 0, 0},
	};
	bool json = false;
	const char *by = NULL;
	int o, rc;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == 'j')
			json = true;
		else if (o == 'b')
			by = optarg;
		else
			return cmd_opt_exit(o);
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	if (by && strcmp(by, "user") && strcmp(by, "dept"))
		return cmd_usage_error(c, "--by '%s': use user or dept", by);
	if (by)
		return usage_by(!strcmp(by, "dept"), json);
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct stats_report r;
	int fetched = backend_records(b, "stats", &e) < 0 ? -1
		      : b->ops->stats
			  ? b->ops->stats(b, 0, 0, &r, &e)
			  : err_set(&e, GQ_EUNAVAIL, "this backend computes no metrics");
	if (fetched < 0) {
		rc = cmd_fail(&e);
	} else {
		if (json)
			jout_stats(&r);
		else
			stats_render(&r);
		stats_report_release(&r);
		rc = EXIT_OK;
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_stats = {
    .name = "stats",
    .usage = "[--by user|dept] [--json]",
    .summary = "print queue metrics: jobs by state, GPUs busy, wait percentiles",
    .flags = CMD_NEEDS_BACKEND,
    .exec = stats_exec,
};
