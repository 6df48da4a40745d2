/*
 * logs.c - `gq logs [-f] JOB`: a job's output, from the server's log files
 * by offset; with -f, keeps following until the job has finished (or the
 * user interrupts).
 */
#include "cmd.h"

#include "backend/backend.h"
#include "follow.h"

static int logs_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_logs;
	static const struct option lo[] = {
	    {"follow", no_argument, NULL, 'f'},
	    {"stderr", no_argument, NULL, 'e'},
	    {0, 0, 0, 0},
	};
	bool follow = false;
	const char *stream = "stdout";
	int o;
	while ((o = cmd_getopt(c, argc, argv, "f", lo)) != -1) {
		if (o == 'f')
			follow = true;
		else if (o == 'e')
			stream = "stderr";
		else
			return cmd_opt_exit(o);
	}
	int64_t id;
	int rc = cmd_one_job(c, argc, argv, &id);
	if (rc != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct follow f = {stream, stdout, 0};
	cmd_interrupted = 0;
	for (;;) {
		if (follow_drain(b, id, &f, 1, &e) < 0) {
			rc = cmd_fail(&e);
			break;
		}
		if (!follow || cmd_interrupted)
			break;
		struct job_info ji;
		if (b->ops->job(b, id, &ji, &e) < 0) {
			rc = cmd_fail(&e);
			break;
		}
		bool active = job_state_active(ji.job.state);
		job_info_release(&ji);
		if (!active) {
			/* Drain once more: output written just before the exit. */
			follow = false;
			continue;
		}
		follow_pause(FOLLOW_MS);
		if (cmd_interrupted)
			break;
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_logs = {
    .name = "logs",
    .usage = "[-f] [--stderr] JOB",
    .summary = "print a job's output",
    .flags = CMD_NEEDS_BACKEND,
    .exec = logs_exec,
};
