/*
 * cancel.c - `gq cancel JOB...`: cancel pending or running jobs.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"
#include "bulk.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->cancel(b, id, e);
}

static int cancel_exec(int argc, char **argv)
{
	return cmd_bulk_action(&cmd_cancel, argc, argv, act, "cancelled",
			       (1u << JOB_PENDING) | (1u << JOB_STARTING) | (1u << JOB_RUNNING) |
				   (1u << JOB_STOPPING),
			       -1, NULL);
}

const struct cmd_entry cmd_cancel = {
    .name = "cancel",
    .usage = "[--json] [--yes] [--user U] [--name N] [--state S] [--queue Q] [JOB|FIRST-LAST...]",
    .summary = "cancel pending or running jobs",
    .flags = CMD_NEEDS_BACKEND,
    .exec = cancel_exec,
};
