/*
 * stats.c - `gq stats`: the server's metrics (DESIGN §6) — jobs by state,
 * GPUs busy, wait percentiles per queue and tier. The numbers are the
 * server's; this file only lays them out.
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "wire/cli.h"

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

static int stats_exec(int argc, char **argv)
{
	bool json = false;
	int rc = cmd_json_only(&cmd_stats, argc, argv, &json);
	if (rc >= 0)
		return rc;
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
    .usage = "[--json]",
    .summary = "print queue metrics: jobs by state, GPUs busy, wait percentiles",
    .flags = CMD_NEEDS_BACKEND,
    .exec = stats_exec,
};
