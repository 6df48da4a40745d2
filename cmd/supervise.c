/*
 * supervise.c - `gq __supervise RUNDIR`, hidden: the process gq serve
 * starts for each job. It runs the job, waits for it and records its exit
 * status in the state directory, so that the job outlives the server.
 * Not for people; see server/runner.h.
 */
#include "cmd.h"

#include "server/runner.h"

static int supervise_exec(int argc, char **argv)
{
	if (argc != 2)
		return EXIT_USAGE;
	return runner_supervise(argv[1]);
}

const struct cmd_entry cmd_supervise = {
    .name = "__supervise",
    .usage = "RUNDIR",
    .summary = "run one job for gq serve and record its exit status (internal)",
    .flags = CMD_HIDDEN,
    .exec = supervise_exec,
};
