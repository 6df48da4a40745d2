/*
 * top.c - `gq top`: the live dashboard. Parses the options, opens the
 * backend twice (one connection long-polls the event stream, the other
 * serves the keys' actions) and hands over to tui/app.c.
 */
#include "cmd.h"

#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "tui/app.h"

static int top_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_top;
	static const struct option lo[] = {
	    {"interval", required_argument, NULL, 'i'},
	    {"view", required_argument, NULL, 'v'},
	    {"job", required_argument, NULL, 'J'},
	    {"no-mouse", no_argument, NULL, 'M'},
	    {0, 0, 0, 0},
	};
	struct app_opts o = {.color = cmd_color(stdout),
			     .mouse = true,
			     .interval = 10,
			     .view = VIEW_QUEUE,
			     .zone = cmd_zone};
	struct gq_err e = GQ_ERR_INIT;
	int opt, rc;
	while ((opt = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		switch (opt) {
		case 'i': {
			int64_t s;
			if (parse_int64(optarg, 1, 3600, &s, &e) < 0)
				return cmd_usage_error(
				    c, "--interval: '%s' is not a number of seconds from 1 to 3600",
				    optarg);
			o.interval = (int)s;
			break;
		}
		case 'v': {
			int v = view_find(optarg);
			if (v < 0 || v == VIEW_JOB || v == VIEW_HELP)
				return cmd_usage_error(c,
						       "--view: '%s' is not a view; use queue, "
						       "running, nodes, events or policy",
						       optarg);
			o.view = (enum view_id)v;
			break;
		}
		case 'J':
			if ((rc = cmd_job_arg(c, optarg, &o.job)) != EXIT_OK)
				return rc;
			break;
		case 'M':
			o.mouse = false;
			break;
		default:
			return cmd_opt_exit(opt);
		}
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	rc = EXIT_OK;
	struct backend *act = cmd_backend(true, &rc);
	if (!act)
		return rc;
	struct backend *poll = cmd_backend(false, &rc);
	if (!poll) {
		backend_close(act);
		return rc;
	}
	if (app_run(poll, act, &o, &e) < 0)
		rc = cmd_fail(&e);
	backend_close(poll);
	backend_close(act);
	return rc;
}

const struct cmd_entry cmd_top = {
    .name = "top",
    .usage = "[--view VIEW] [--job JOB] [--interval SECONDS] [--no-mouse]",
    .summary = "watch the queue, GPUs and events live, and act on jobs",
    .flags = CMD_NEEDS_BACKEND,
    .exec = top_exec,
};
