/*
 * preemptions.c - `gq preemptions [JOB]`: the records gq serve keeps of
 * every preemption (who was suspended for whom, when it was signalled,
 * saved, released and restarted, the work lost). See gq-preemptions(1).
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "json.h"

static int preemptions_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_preemptions;
	bool json = false;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	if (argc - optind > 1)
		return cmd_usage_error(c, "one job at a time; '%s' is extra", argv[optind + 1]);
	char query[64] = "";
	if (optind < argc) {
		int64_t id;
		if ((rc = cmd_job_arg(c, argv[optind], &id)) != EXIT_OK)
			return rc;
		snprintf(query, sizeof(query), "job=%lld", (long long)id);
	}
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	char *text = NULL;
	int fetched = b->ops->preemptions
			  ? b->ops->preemptions(b, query, &text, &e)
			  : err_set(&e, GQ_EUNAVAIL, "this backend keeps no preemption records");
	return cmd_report(b, fetched, text, json, jout_preemptions_text, &e);
}

const struct cmd_entry cmd_preemptions = {
    .name = "preemptions",
    .usage = "[--json] [JOB]",
    .summary = "list the preemption records: victim, trigger, times, work lost",
    .flags = CMD_NEEDS_BACKEND,
    .exec = preemptions_exec,
};
