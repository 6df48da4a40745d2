/*
 * release.c - `gq release JOB...`: let held jobs start again.
 * The work is the backend's; this file only names the action.
 */
#include "cmd.h"

#include "backend/backend.h"
#include "bulk.h"

static int act(struct backend *b, int64_t id, struct gq_err *e)
{
	return b->ops->release(b, id, e);
}

static int release_exec(int argc, char **argv)
{
	return cmd_bulk_action(&cmd_release, argc, argv, act, "released", 1u << JOB_PENDING, 1,
			       NULL);
}

const struct cmd_entry cmd_release = {
    .name = "release",
    .usage = "[--json] [--yes] [--user U] [--name N] [--state S] [--queue Q] [JOB|FIRST-LAST...]",
    .summary = "let held jobs start again",
    .flags = CMD_NEEDS_BACKEND,
    .exec = release_exec,
};
