/*
 * hold.c - `gq hold JOB...`: keep pending jobs from starting until released.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"
#include "bulk.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->hold(b, id, e);
}

static int hold_exec(int argc, char **argv)
{
	return cmd_bulk_action(&cmd_hold, argc, argv, act, "held", 1u << JOB_PENDING, 0);
}

const struct cmd_entry cmd_hold = {
    .name = "hold",
    .usage = "[--json] [--yes] [--user U] [--name N] [--state S] [--queue Q] [JOB|FIRST-LAST...]",
    .summary = "keep pending jobs from starting until released",
    .flags = CMD_NEEDS_BACKEND,
    .exec = hold_exec,
};
