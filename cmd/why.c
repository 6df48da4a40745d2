/*
 * why.c - `gq why JOB`: the answer squeue's one word never gives — what
 * the job waits for, who is ahead, its weight and when it rises, what it
 * needs against what is free, when it will likely start and what would
 * make it start sooner (DESIGN §4). The words are explain/explain.c's.
 */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/array.h"
#include "explain/explain.h"
#include "wire/cli.h"

/* For a job that is not pending: one sentence on where it is. */
static void not_pending(const struct explain_set *x, const struct job *j)
{
	char t[32], d[32];
	int64_t now = x->s->now;
	if (job_state_holds_gpus(j->state)) {
		size_t idx = (size_t)(j - x->s->jobs);
		int64_t end = idx < x->ps.njobs && x->ps.ends ? x->ps.ends[idx] : 0;
		printf("Job %lld is %s since %s (%s)", (long long)j->id, job_state_name(j->state),
		       cmd_time(j->start_time, now, t, sizeof(t)),
		       dur_format(j->start_time ? now - j->start_time : 0, d, sizeof(d)));
		if (end)
			printf("; expected to end around %s", cmd_time(end, now, t, sizeof(t)));
		printf(".");
		struct buf b;
		buf_init(&b, 0);
		explain_over_quota(x->s, j, &b);
		printf("%s\n", b.len ? b.data : "");
		buf_release(&b);
		return;
	}
	printf("Job %lld is %s", (long long)j->id, job_state_name(j->state));
	if (j->end_time)
		printf(" since %s", cmd_time(j->end_time, now, t, sizeof(t)));
	if (j->exit_status >= 0)
		printf(" (exit status %d)", j->exit_status);
	if (j->end_reason[0]) /* the scheduler ended it: say why */
		printf(", because %s", j->end_reason);
	printf("; it waits for nothing.\n");
}

/* On a backend that schedules itself (Slurm): its reason, priority and
 * estimate beside gq's, and where the two disagree. */
static void slurm_beside(const struct explain_set *x, const struct job *j, const struct explain *ex,
			 struct buf *out)
{
	if (x->s->order != ORDER_BACKEND)
		return;
	char t[32];
	const char *gq = ex->why ? reason_name(ex->why->primary) : "";
	buf_printf(out, "Slurm: %s", j->ext_reason[0] ? j->ext_reason : "no reason given");
	if (j->ext_class[0])
		buf_printf(out, " (gq's word: %s%s%s)", j->ext_class, j->ext_detail[0] ? ", " : "",
			   j->ext_detail);
	buf_printf(out, "; priority %lld; its estimate: %s.\n", (long long)j->ext_prio,
		   j->ext_start ? cmd_time(j->ext_start, x->s->now, t, sizeof(t))
				: "none (its backfill pass did not reach this job)");
	if (j->ext_class[0] && gq[0] && strcmp(j->ext_class, gq) &&
	    strcmp(j->ext_class, "not yet evaluated"))
		buf_printf(out, "gq and Slurm disagree: gq says %s, Slurm says %s (%s).\n", gq,
			   j->ext_class, j->ext_reason);
	buf_addstr(out, "Order: Slurm's priority, not gq's weight; Slurm's API does not give its "
			"weights, so gq's prediction keeps Slurm's current order (no simulated "
			"aging).\n");
}

/* The paragraph, the preemption, the suggestions and Slurm's view of
 * pending job j (its explanation ex). */
static void why_text(const struct explain_set *x, const struct job *j, const struct explain *ex,
		     const struct preempt_plan *pp)
{
	struct buf out;
	buf_init(&out, 0);
	explain_text(x, ex, &out);
	buf_addstr(&out, "\n");
	size_t at = out.len;
	explain_preempt_text(x, ex, pp, &out);
	if (out.len > at)
		buf_addstr(&out, "\n");
	size_t before = out.len;
	explain_sooner(x, ex, NULL, &out);
	if (out.len > before) {
		/* Indent the suggestions under a heading. */
		struct buf sug;
		buf_init(&sug, 0);
		buf_addstr(&sug, "Sooner:\n");
		for (char *save = NULL, *l = strtok_r(out.data + before, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			buf_printf(&sug, "  - %s\n", l);
		out.len = before;
		out.data[before] = '\0';
		buf_addstr(&out, sug.data);
		buf_release(&sug);
	}
	slurm_beside(x, j, ex, &out);
	fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
}

/* "gq why A" of an array's own id A: the array as a whole, then the
 * explanation of its next pending task (the first in scheduling order). */
static int why_array(struct snapshot *s, int64_t id, const struct array_summary *as, bool json)
{
	struct explain_set x;
	explain_compute(s, cmd_zone(s->now), &x);
	x.utf8 = cmd_utf8();
	x.reader_user = cmd_user();
	const struct job *next = NULL;
	const struct explain *nex = NULL;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *t = &s->jobs[i];
		const struct explain *ex = t->array_id == id ? explain_find(&x, t->id) : NULL;
		if (ex && ex->why && t->state == JOB_PENDING &&
		    (!nex || ex->why->position < nex->why->position)) {
			next = t;
			nex = ex;
		}
	}
	struct preempt_plan pp = {0};
	if (nex)
		explain_preempt(&x, nex, &pp);
	char range[256];
	array_format(as->tasks, as->ntasks, as->throttle, range, sizeof(range));
	if (json) {
		jout_array(id, as, range, &x, next, nex ? &pp : NULL);
	} else {
		cmd_array_line(id, as, range);
		if (nex) {
			printf("Its next pending task is %lld_%d (job %lld):\n", (long long)id,
			       next->array_task, (long long)next->id);
			why_text(&x, next, nex, &pp);
		} else {
			printf("No task of it is pending.\n");
		}
	}
	preempt_plan_release(&pp);
	explain_release(&x);
	return EXIT_OK;
}

static int why_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_why;
	bool json = false;
	int64_t id;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0 || (rc = cmd_one_job(c, argc, argv, &id)) != EXIT_OK)
		return rc;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	const struct job *j = snapshot_find(&s, id);
	struct array_summary *as = xmalloc(sizeof(*as));
	if (!j && array_summary(&s, id, as) > 0) {
		rc = why_array(&s, id, as, json);
		free(as);
		goto out;
	}
	free(as);
	if (!j) {
		/* Older than the snapshot's window, or no such job at all. */
		struct job_info ji;
		if (b->ops->job(b, id, &ji, &e) < 0) {
			rc = cmd_fail(&e);
			goto out;
		}
		struct job *nj = snapshot_add_job(&s);
		*nj = ji.job; /* moved */
		job_init(&ji.job);
		job_info_release(&ji);
		snapshot_sort(&s);
		j = snapshot_find(&s, id);
	}
	struct explain_set x;
	explain_compute(&s, cmd_zone(s.now), &x);
	x.utf8 = cmd_utf8();
	x.reader_user = cmd_user();
	const struct explain *ex = explain_find(&x, id);
	struct preempt_plan pp = {0};
	if (ex)
		explain_preempt(&x, ex, &pp);
	if (json) {
		jout_why(&x, j, ex ? &pp : NULL);
	} else if (!ex) {
		not_pending(&x, j);
	} else {
		why_text(&x, j, ex, &pp);
	}
	preempt_plan_release(&pp);
	explain_release(&x);
out:
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_why = {
    .name = "why",
    .usage = "[--json] JOB",
    .summary = "explain why a job waits, when it will likely start, and what would help",
    .flags = CMD_NEEDS_BACKEND,
    .exec = why_exec,
};
