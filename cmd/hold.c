/*
 * hold.c - `gq hold [--reason TEXT] JOB...`: keep pending jobs from
 * starting until released, with a reason kept beside the hold. The work is
 * the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"
#include "bulk.h"

/* --reason, set by cmd_bulk_action before any job is acted on. */
static const char *reason;

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->hold(b, id, reason, e);
}

static int hold_exec(int argc, char **argv)
{
	reason = NULL;
	return cmd_bulk_action(&cmd_hold, argc, argv, act, "held", 1u << JOB_PENDING, 0, &reason);
}

const struct cmd_entry cmd_hold = {
    .name = "hold",
    .usage = "[--json] [--yes] [--reason TEXT] [--user U] [--name N] [--state S] [--queue Q] "
	     "[JOB|FIRST-LAST...]",
    .summary = "keep pending jobs from starting until released",
    .flags = CMD_NEEDS_BACKEND,
    .exec = hold_exec,
};
