/*
 * update.c - `gq update JOB --gpus/--gpu-type/--estimate/--time-limit/
 * --tier/--queue/--name/--after/--begin/--notify`: change a pending job.
 *
 * The flags are gq submit's and parsed by its code (submit.h); the server
 * checks the changed job exactly as a submission and records the change as
 * an event. This file only says which fields were given.
 */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "begin.h"
#include "submit.h"
#include "wire/cli.h"
#include "wire/wire.h"

enum { O_JSON = 0x100 };

/* The flags, each with the field it changes (wire.h's UPD_). */
static const struct {
	const char *flag;
	unsigned bit;
} fields[] = {
    {"gpus", UPD_GPUS},		{"gpu-type", UPD_GPU_TYPE},
    {"estimate", UPD_ESTIMATE}, {"time-limit", UPD_TIME_LIMIT},
    {"tier", UPD_TIER},		{"queue", UPD_QUEUE},
    {"name", UPD_NAME},		{"after", UPD_DEPS},
    {"dependency", UPD_DEPS},	{"begin", UPD_BEGIN},
    {"notify", UPD_NOTIFY},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int update_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_update;
	struct option lo[NFIELDS + 2];
	for (size_t i = 0; i < NFIELDS; i++)
		lo[i] = (struct option){fields[i].flag, required_argument, NULL, (int)i};
	lo[NFIELDS] = (struct option){"json", no_argument, NULL, O_JSON};
	lo[NFIELDS + 1] = (struct option){0, 0, 0, 0};
	struct job_update u;
	memset(&u, 0, sizeof(u));
	job_init(&u.job);
	char begin[64] = "";
	bool json = false;
	int o, rc;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == O_JSON) {
			json = true;
			continue;
		}
		if (o < 0 || o >= (int)NFIELDS)
			return cmd_opt_exit(o);
		/* --after replaces the list; repeated, it adds to it. */
		if (fields[o].bit == UPD_DEPS && !(u.set & UPD_DEPS))
			u.job.ndeps = 0;
		if ((rc = submit_job_option(c, fields[o].flag, optarg, &u.job, begin,
					    sizeof(begin))) != EXIT_OK)
			return rc;
		u.set |= fields[o].bit;
	}
	if (optind >= argc)
		return cmd_usage_error(c, "no job given; name the pending job to change");
	if (optind + 1 < argc)
		return cmd_usage_error(c, "'%s' follows the job; gq update changes one job",
				       argv[optind + 1]);
	int64_t id;
	if ((rc = cmd_job_arg(c, argv[optind], &id)) != EXIT_OK)
		return rc;
	if (!u.set)
		return cmd_usage_error(c,
				       "nothing to change; give --gpus, --gpu-type, --estimate, "
				       "--time-limit, --tier, --queue, --name, --after, --begin or "
				       "--notify");
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	if (!b->ops->update) {
		err_set(&e, GQ_EUNAVAIL, "%s cannot change a job", b->ops->describe(b));
		rc = cmd_fail(&e);
	} else if ((u.set & UPD_BEGIN) &&
		   (rc = cmd_begin_resolve(c, b, begin, &u.job.begin_time)) != EXIT_OK) {
		/* the line is printed */
	} else if (b->ops->update(b, id, &u, &e) < 0) {
		rc = cmd_fail(&e);
	} else if (json) {
		jout_id(id);
	} else {
		printf("updated job %lld\n", (long long)id);
		/* Its tier changed, and an admin's override keeps it from
		 * taking effect: the line says so (the tier alone would be
		 * refused as unchanged). */
		struct job_info ji;
		struct gq_err je = GQ_ERR_INIT;
		if ((u.set & UPD_TIER) && b->ops->job(b, id, &ji, &je) == 0) {
			if (ji.job.ovr.set && ji.job.ovr.tier != u.job.tier)
				printf("note: it is %s now, but an admin's override (%s: '%s') "
				       "schedules it as %s until an admin clears it\n",
				       tier_name(u.job.tier), ji.job.ovr.actor, ji.job.ovr.reason,
				       tier_name(ji.job.ovr.tier));
			job_info_release(&ji);
		}
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_update = {
    .name = "update",
    .usage = "[OPTIONS] JOB",
    .summary = "change a pending job: GPUs, limits, tier, queue, name, dependencies, begin",
    .flags = CMD_NEEDS_BACKEND,
    .exec = update_exec,
};
