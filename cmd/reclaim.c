/*
 * reclaim.c - `gq reclaim`: the reclamation report of gq serve (DESIGN
 * §6): GPUs held by idle jobs (no output, no checkpoint for
 * reclaim.idleAfter), by failed jobs whose processes still run, and by
 * finished jobs that did not release them. Report only; see gq-reclaim(1).
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "wire/cli.h"

static void reclaim_render(const struct reclaim_report *r)
{
	char idle[16];
	dur_format(r->idle_after, idle, sizeof(idle));
	printf("reclaim.mode %s, idle after %s: %d GPU%s held by %zu job%s (report only)\n",
	       rollout_name(r->mode), idle, r->gpus, r->gpus == 1 ? "" : "s", r->n,
	       r->n == 1 ? "" : "s");
	if (r->n)
		printf("%-6s %-10s %4s %-12s %-12s %8s %s\n", "JOB", "KIND", "GPUS", "GPU-LIST",
		       "SINCE", "FOR", "ACT");
	for (size_t i = 0; i < r->n; i++) {
		const struct reclaim_entry *x = &r->items[i];
		char since[32], d[16];
		printf("%-6lld %-10s %4d %-12s %-12s %8s %s\n", (long long)x->job,
		       reclaim_kind_name(x->kind), x->gpus, x->gpu_list,
		       cmd_time(x->since, r->now, since, sizeof(since)),
		       dur_format(r->now - x->since, d, sizeof(d)), x->acts ? "yes" : "no");
	}
}

static int reclaim_exec(int argc, char **argv)
{
	bool json = false;
	int rc = cmd_json_only(&cmd_reclaim, argc, argv, &json);
	if (rc >= 0)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct reclaim_report r;
	int fetched = backend_records(b, "reclaim", &e) < 0 ? -1
		      : b->ops->reclaim
			  ? b->ops->reclaim(b, &r, &e)
			  : err_set(&e, GQ_EUNAVAIL, "this backend has no reclamation report");
	if (fetched < 0) {
		rc = cmd_fail(&e);
	} else {
		if (json)
			jout_reclaim(&r);
		else
			reclaim_render(&r);
		reclaim_report_release(&r);
		rc = EXIT_OK;
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_reclaim = {
    .name = "reclaim",
    .usage = "[--json]",
    .summary = "report GPUs held by idle, failed or finished jobs",
    .flags = CMD_NEEDS_BACKEND,
    .exec = reclaim_exec,
};
