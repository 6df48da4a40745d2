/*
 * stats.c - `gq stats`: the server's metrics (DESIGN §6) — jobs by state,
 * GPUs busy, wait percentiles per queue and tier. The numbers are the
 * server's; this file only lays them out.
 */
#include "cmd.h"

#include <stdlib.h>

#include "backend/backend.h"
#include "json.h"

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
	char *text = NULL;
	int fetched = b->ops->stats(b, "", &text, &e);
	return cmd_report(b, fetched, text, json, jout_stats_text, &e);
}

const struct cmd_entry cmd_stats = {
    .name = "stats",
    .usage = "[--json]",
    .summary = "print queue metrics: jobs by state, GPUs busy, wait percentiles",
    .flags = CMD_NEEDS_BACKEND,
    .exec = stats_exec,
};
