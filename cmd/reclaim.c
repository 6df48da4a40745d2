/*
 * reclaim.c - `gq reclaim`: the reclamation report of gq serve (DESIGN
 * §6): GPUs held by idle jobs (no output, no checkpoint for
 * reclaim.idleAfter), by failed jobs whose processes still run, and by
 * finished jobs that did not release them. Report only; see gq-reclaim(1).
 */
#include "cmd.h"

#include <stdlib.h>

#include "backend/backend.h"
#include "json.h"

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
	char *text = NULL;
	int fetched = b->ops->reclaim
			  ? b->ops->reclaim(b, &text, &e)
			  : err_set(&e, GQ_EUNAVAIL, "this backend has no reclamation report");
	return cmd_report(b, fetched, text, json, jout_reclaim_text, &e);
}

const struct cmd_entry cmd_reclaim = {
    .name = "reclaim",
    .usage = "[--json]",
    .summary = "report GPUs held by idle, failed or finished jobs",
    .flags = CMD_NEEDS_BACKEND,
    .exec = reclaim_exec,
};
