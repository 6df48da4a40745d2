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
	const struct cmd_entry *c = &cmd_stats;
	bool json = false;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	char *text = NULL;
	if (b->ops->stats(b, "", &text, &e) < 0)
		rc = cmd_fail(&e);
	else if (json)
		printf("%s\n", text);
	else if (jout_stats_text(text, &e) < 0)
		rc = cmd_fail(&e);
	free(text);
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
