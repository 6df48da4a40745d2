/*
 * prio.c - `gq prio`: an admin's priority override. The job is scheduled as
 * the given tier until the override is cleared; actor, reason and time are
 * recorded by the server and shown by `gq show` and `gq events`.
 */
#include "cmd.h"

#include <string.h>

#include "backend/backend.h"

static int prio_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_prio;
	static const struct option lo[] = {
	    {"reason", required_argument, NULL, 'r'},
	    {"clear", no_argument, NULL, 'c'},
	    {0, 0, 0, 0},
	};
	const char *reason = NULL;
	bool clear = false;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == 'r')
			reason = optarg;
		else if (o == 'c')
			clear = true;
		else
			return cmd_opt_exit(o);
	}
	int nargs = argc - optind;
	if (nargs < 1)
		return cmd_usage_error(c, "no job given; name a job id");
	if (clear && nargs > 1)
		return cmd_usage_error(c, "--clear takes no tier; '%s' is extra", argv[optind + 1]);
	if (!clear && nargs < 2)
		return cmd_usage_error(c, "no tier given; name P0, P1 or P2 (or use --clear)");
	if (nargs > 2)
		return cmd_usage_error(c, "'%s' is extra", argv[optind + 2]);
	int64_t id;
	int rc = cmd_job_arg(c, argv[optind], &id);
	if (rc != EXIT_OK)
		return rc;
	enum tier t = TIER_P1;
	struct gq_err e = GQ_ERR_INIT;
	if (!clear && tier_parse(argv[optind + 1], &t, &e) < 0)
		return cmd_usage_error(c, "bad tier '%s'; use P0, P1 or P2", argv[optind + 1]);
	if (!reason || !reason[0])
		return cmd_usage_error(c, "%s needs a reason; add --reason TEXT",
				       clear ? "clearing an override" : "an override");
	if (reason && strlen(reason) >= sizeof(((struct job_override *)0)->reason))
		return cmd_usage_error(c, "--reason is too long (at most %zu characters)",
				       sizeof(((struct job_override *)0)->reason) - 1);
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	if (b->ops->override(b, id, t, clear, reason ? reason : "", &e) < 0)
		rc = cmd_fail(&e);
	else if (clear)
		printf("job %lld: override cleared\n", (long long)id);
	else
		printf("job %lld: scheduled as %s\n", (long long)id, tier_name(t));
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_prio = {
    .name = "prio",
    .usage = "--reason TEXT JOB TIER | --reason TEXT --clear JOB",
    .summary = "override a job's tier (admin)",
    .flags = CMD_NEEDS_BACKEND,
    .exec = prio_exec,
};
