/*
 * release.c - `gq release JOB...`: let held jobs start again.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->release(b, id, e);
}

static int release_exec(int argc, char **argv)
{
	return cmd_job_action(&cmd_release, argc, argv, act, "released");
}

const struct cmd_entry cmd_release = {
    .name = "release",
    .usage = "[--json] JOB...",
    .summary = "let held jobs start again",
    .flags = CMD_NEEDS_BACKEND,
    .exec = release_exec,
};
