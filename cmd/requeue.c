/*
 * requeue.c - `gq requeue JOB...`: put jobs back in the queue.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->requeue(b, id, e);
}

static int requeue_exec(int argc, char **argv)
{
	return cmd_job_action(&cmd_requeue, argc, argv, act, "requeued");
}

const struct cmd_entry cmd_requeue = {
    .name = "requeue",
    .usage = "[--json] JOB...",
    .summary = "put jobs back in the queue",
    .flags = CMD_NEEDS_BACKEND,
    .exec = requeue_exec,
};
