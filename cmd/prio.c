/*
 * prio.c - `gq prio`: an admin's priority override. The job is scheduled as
 * the given tier until the override is cleared; actor, reason and time are
 * recorded by the server and shown by `gq show` and `gq events`. On Slurm
 * the tier is the job's QOS, and --priority sets Slurm's own numeric job
 * priority (an operator's action), which gq serve does not have.
 */
#include "cmd.h"

#include <string.h>

#include "backend/backend.h"

/* Slurm's job priority is a 32-bit number; 0 would hold the job and the
 * top value is Slurm's "infinite". */
#define PRIO_MAX 4294967293LL

/* gq prio --priority N JOB: the scheduler's numeric priority. */
static int prio_number(const struct cmd_entry *c, const char *arg, bool tier_opts, int nargs,
		       char **args)
{
	if (tier_opts)
		return cmd_usage_error(c, "--priority takes no --reason or --clear (the scheduler "
					  "keeps no reason with it)");
	if (nargs > 1)
		return cmd_usage_error(c, "--priority takes one job and no tier; '%s' is extra",
				       args[1]);
	struct gq_err e = GQ_ERR_INIT;
	int64_t prio, id;
	if (parse_int64(arg, 1, PRIO_MAX, &prio, &e) < 0)
		return cmd_usage_error(c, "bad --priority '%s'; give a number from 1 to %lld", arg,
				       PRIO_MAX);
	int rc = cmd_job_arg(c, args[0], &id);
	if (rc != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	/* gq serve --slurm has it: a first answer says whether it is one. */
	struct gq_err pe = GQ_ERR_INIT;
	if (!b->ops->priority && !b->ops->scheduler && b->ops->ping(b, &pe) < 0) {
		rc = cmd_fail(&pe);
	} else if (!b->ops->priority) {
		err_set(&e, GQ_EUNAVAIL,
			"gq prio --priority is not supported on %s: it has no numeric operator "
			"priority; give the job a tier ('gq prio --reason TEXT %lld P0')",
			b->ops->scheduler ? b->ops->scheduler : "gq serve", (long long)id);
		rc = cmd_fail(&e);
	} else if (b->ops->priority(b, id, prio, &e) < 0) {
		rc = cmd_fail(&e);
	} else {
		printf("job %lld: priority %lld\n", (long long)id, (long long)prio);
	}
	backend_close(b);
	return rc;
}

static int prio_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_prio;
	static const struct option lo[] = {
	    {"reason", required_argument, NULL, 'r'},
	    {"clear", no_argument, NULL, 'c'},
	    {"priority", required_argument, NULL, 'p'},
	    {0, 0, 0, 0},
	};
	const char *reason = NULL, *prio_arg = NULL;
	bool clear = false;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == 'r')
			reason = optarg;
		else if (o == 'c')
			clear = true;
		else if (o == 'p')
			prio_arg = optarg;
		else
			return cmd_opt_exit(o);
	}
	int nargs = argc - optind;
	if (nargs < 1)
		return cmd_usage_error(c, "no job given; name a job id");
	if (prio_arg)
		return prio_number(c, prio_arg, clear || reason, argc - optind, argv + optind);
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
    .usage = "--reason TEXT JOB TIER | --reason TEXT --clear JOB | --priority N JOB",
    .summary = "override a job's tier, or set Slurm's job priority (admin)",
    .flags = CMD_NEEDS_BACKEND,
    .exec = prio_exec,
};
