/*
 * confirm.c - `gq confirm JOB...`: confirm that pending P0 jobs are still P0, stopping their
 * downgrade. The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->confirm(b, id, e);
}

static int confirm_exec(int argc, char **argv)
{
	return cmd_job_action(&cmd_confirm, argc, argv, act, "confirmed");
}

const struct cmd_entry cmd_confirm = {
    .name = "confirm",
    .usage = "[--json] JOB...",
    .summary = "confirm that pending P0 jobs are still P0, stopping their downgrade",
    .flags = CMD_NEEDS_BACKEND,
    .exec = confirm_exec,
};
