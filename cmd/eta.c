/*
 * eta.c - `gq eta [JOB...]`: predicted start times of pending jobs, from
 * the queue-traversal simulation (DESIGN §5) run locally on a snapshot:
 * the likely start, its range and the jobs whose ends it waits for.
 */
#include "cmd.h"

#include <stdlib.h>

#include "backend/backend.h"
#include "explain/explain.h"
#include "wire/cli.h"

static void eta_line(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct prediction *p = ex->pred;
	char d[32];
	buf_printf(out, "%6lld  %-4s ", (long long)ex->job->id, tier_name(job_tier(ex->job)));
	size_t at = out->len;
	explain_eta(x, ex, out);
	int w = (int)(out->len - at);
	buf_printf(out, "%*s", w < 26 ? 26 - w : 1, "");
	if (p && p->never == NEVER_NO && p->start > x->s->now)
		buf_printf(out, "in %-8s", dur_format(p->start - x->s->now, d, sizeof(d)));
	else
		buf_printf(out, "-");
	const struct why *wy = ex->why;
	bool permit = p && p->never == NEVER_NO && p->permit;
	if ((wy->nwaits || permit) && !(p && p->never == NEVER_NO && p->start > x->s->now))
		buf_printf(out, "%10s", "");
	if (wy->nwaits) {
		buf_addstr(out, " after ");
		for (int i = 0; i < wy->nwaits; i++)
			buf_printf(out, "%s#%lld", i ? ", " : "", (long long)wy->waits[i].job);
		if (p && p->nwaits_all > wy->nwaits)
			buf_printf(out, " and %d more", p->nwaits_all - wy->nwaits);
	}
	if (permit)
		buf_addstr(out,
			   wy->nwaits ? ", by its starvation permit" : " by its starvation permit");
	if (x->s->order == ORDER_BACKEND) { /* Slurm's own estimate beside gq's */
		const struct job *j = ex->job;
		buf_printf(out, "%s Slurm: %s", wy->nwaits ? ";" : "",
			   j->ext_start ? cmd_time(j->ext_start, x->s->now, d, sizeof(d))
					: "no estimate");
	}
	buf_addstr(out, "\n");
}

static int eta_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_eta;
	bool json = false;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	size_t nids = (size_t)(argc - optind);
	int64_t *ids = xcalloc(nids ? nids : 1, sizeof(*ids));
	for (size_t i = 0; i < nids; i++)
		if ((rc = cmd_job_arg(c, argv[optind + (int)i], &ids[i])) != EXIT_OK) {
			free(ids);
			return rc;
		}
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b) {
		free(ids);
		return rc;
	}
	struct gq_err e = GQ_ERR_INIT;
	struct explain_set x;
	explain_compute(&s, cmd_zone(s.now), &x);
	/* The jobs asked for (all pending ones when none), in queue order. */
	const struct job **rows = xcalloc(x.n + nids + 1, sizeof(*rows));
	size_t n = 0;
	if (!nids)
		for (size_t i = 0; i < x.n; i++)
			rows[n++] = x.items[i].job;
	for (size_t i = 0; i < nids; i++) {
		const struct job *j = snapshot_find(&s, ids[i]);
		if (!j) {
			e.code = GQ_ENOENT;
			snprintf(e.msg, sizeof(e.msg),
				 "no job '%lld' in the queue; see 'gq ls --all'",
				 (long long)ids[i]);
			rc = cmd_fail(&e);
			continue;
		}
		if (j->state != JOB_PENDING && !json) {
			fprintf(stderr,
				"gq: job %lld is %s, not pending; it has no start to predict\n",
				(long long)ids[i], job_state_name(j->state));
			if (rc == EXIT_OK)
				rc = EXIT_FAIL;
			continue;
		}
		rows[n++] = j;
	}
	if (json) {
		jout_eta(&x, rows, n);
	} else {
		struct buf out;
		buf_init(&out, 0);
		if (n)
			buf_printf(&out, "%6s  %-4s %-25s %-11s %s\n", "ID", "TIER", "LIKELY START",
				   "WAIT", "WHEN THESE END");
		for (size_t i = 0; i < n; i++)
			eta_line(&x, explain_find(&x, rows[i]->id), &out);
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		buf_release(&out);
	}
	free(rows);
	explain_release(&x);
	free(ids);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_eta = {
    .name = "eta",
    .usage = "[--json] [JOB...]",
    .summary = "predicted start times of pending jobs",
    .flags = CMD_NEEDS_BACKEND,
    .exec = eta_exec,
};
