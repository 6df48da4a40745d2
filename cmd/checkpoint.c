/*
 * checkpoint.c - `gq checkpoint [JOB]`: a job reports "checkpoint saved",
 * the evidence that it can resume after preemption. Inside a job the id
 * comes from GQ_JOB_ID, so a training loop calls plain `gq checkpoint`.
 */
#include "cmd.h"

#include <stdlib.h>

#include "backend/backend.h"

static int checkpoint_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_checkpoint;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", NULL)) != -1)
		return cmd_opt_exit(o);
	if (argc - optind > 1)
		return cmd_usage_error(c, "one job at a time; '%s' is extra", argv[optind + 1]);
	const char *arg = optind < argc ? argv[optind] : getenv("GQ_JOB_ID");
	if (!arg || !*arg)
		return cmd_usage_error(c, "no job given and GQ_JOB_ID is not set; name the job id");
	int64_t id;
	int rc = cmd_job_arg(c, arg, &id);
	if (rc != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	if (b->ops->checkpoint(b, id, &e) < 0)
		rc = cmd_fail(&e);
	else
		printf("job %lld: checkpoint recorded\n", (long long)id);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_checkpoint = {
    .name = "checkpoint",
    .usage = "[JOB]",
    .summary = "report that a running job saved a checkpoint",
    .flags = CMD_NEEDS_BACKEND,
    .exec = checkpoint_exec,
};
