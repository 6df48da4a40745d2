/*
 * hold.c - `gq hold JOB...`: keep pending jobs from starting until released.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->hold(b, id, e);
}

static int hold_exec(int argc, char **argv)
{
	return cmd_job_action(&cmd_hold, argc, argv, act, "held");
}

const struct cmd_entry cmd_hold = {
    .name = "hold",
    .usage = "[--json] JOB...",
    .summary = "keep pending jobs from starting until released",
    .flags = CMD_NEEDS_BACKEND,
    .exec = hold_exec,
};
