/*
 * preemptions.c - `gq preemptions [JOB]`: the records gq serve keeps of
 * every preemption (who was suspended for whom, when it was signalled,
 * saved, released and restarted, the work lost). See gq-preemptions(1).
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "wire/cli.h"

static void preemptions_render(const struct preempt_list *l)
{
	if (l->n == 0)
		printf("no preemptions\n");
	else
		printf("%-4s %-6s %-7s %-8s %4s %6s %-12s %-12s %-12s %-12s %9s %s\n", "ID",
		       "VICTIM", "FOR", "REASON", "GPUS", "RAN", "SIGNALLED", "SAVED", "RELEASED",
		       "RESTARTED", "LOST", "RESUMED");
	for (size_t i = 0; i < l->n; i++) {
		const struct preempt_record *r = &l->items[i];
		char ran[16], t[4][32], trig[24], lost[24];
		const int64_t times[] = {r->signalled, r->saved, r->released, r->restarted};
		for (int k = 0; k < 4; k++)
			cmd_time(times[k], l->now, t[k], sizeof(t[k]));
		if (r->trigger)
			snprintf(trig, sizeof(trig), "%lld", (long long)r->trigger);
		else
			snprintf(trig, sizeof(trig), "-");
		snprintf(lost, sizeof(lost), "%.2f GPU-h", r->work_lost / 3600);
		printf("%-4lld %-6lld %-7s %-8s %4d %6s %-12s %-12s %-12s %-12s %9s %s\n",
		       (long long)r->id, (long long)r->victim, trig, r->reason, r->gpus,
		       dur_format(r->ran, ran, sizeof(ran)), t[0], t[1], t[2], t[3], lost,
		       r->resumed ? "yes" : "no");
	}
}

static int preemptions_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_preemptions;
	bool json = false;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	if (argc - optind > 1)
		return cmd_usage_error(c, "one job at a time; '%s' is extra", argv[optind + 1]);
	int64_t id = 0;
	if (optind < argc && (rc = cmd_job_arg(c, argv[optind], &id)) != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct preempt_list l;
	int fetched = backend_records(b, "preemptions", &e) < 0 ? -1
		      : b->ops->preemptions
			  ? b->ops->preemptions(b, id, &l, &e)
			  : err_set(&e, GQ_EUNAVAIL, "this backend keeps no preemption records");
	if (fetched < 0) {
		rc = cmd_fail(&e);
	} else {
		if (json)
			jout_preemptions(&l);
		else
			preemptions_render(&l);
		preempt_list_release(&l);
		rc = EXIT_OK;
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_preemptions = {
    .name = "preemptions",
    .usage = "[--json] [JOB]",
    .summary = "list the preemption records: victim, trigger, times, work lost",
    .flags = CMD_NEEDS_BACKEND,
    .exec = preemptions_exec,
};
