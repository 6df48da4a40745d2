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

/* The widths of LIKELY START and WAIT: at least the headings', else the
 * widest text of the rows (a range across midnight carries a date, a
 * "never" says why), so that no column runs into the next. */
struct eta_widths {
	int start, wait;
};

static bool eta_has_wait(const struct explain_set *x, const struct explain *ex)
{
	const struct prediction *p = ex->pred;
	return p && p->never == NEVER_NO && p->start > x->s->now;
}

static void eta_wait(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	char d[32];
	if (eta_has_wait(x, ex))
		buf_printf(out, "in %s", dur_format(ex->pred->start - x->s->now, d, sizeof(d)));
	else
		buf_addstr(out, "-");
}

/* The item of reason r among ex's blockers, or NULL. */
static const struct reason_item *eta_item(const struct explain *ex, enum reason r)
{
	for (int i = 0; i < ex->why->nitems; i++)
		if (ex->why->items[i].reason == r)
			return &ex->why->items[i];
	return NULL;
}

static void eta_line(const struct explain_set *x, const struct explain *ex,
		     const struct eta_widths *w, struct buf *cell, struct buf *out)
{
	const struct prediction *p = ex->pred;
	char d[32];
	buf_printf(out, "%6lld  %-4s ", (long long)ex->job->id, tier_name(job_tier(ex->job)));
	buf_reset(cell);
	explain_eta(x, ex, cell);
	buf_printf(out, "%-*s ", w->start, cell->data ? cell->data : "");
	buf_reset(cell);
	eta_wait(x, ex, cell);
	const struct why *wy = ex->why;
	bool permit = p && p->never == NEVER_NO && p->permit;
	/* A paused queue: its window's end, not the jobs that free GPUs after it. */
	const struct reason_item *win =
	    wy->primary == REASON_WINDOW ? eta_item(ex, REASON_WINDOW) : NULL;
	const struct reservation *rv = explain_resv(x, ex);
	bool tail = wy->nwaits || permit || win || rv || x->s->order == ORDER_BACKEND;
	if (tail)
		buf_printf(out, "%-*s", w->wait, cell->data);
	else
		buf_addstr(out, cell->data);
	const char *sep = " ";
	if (rv) /* Not the jobs whose GPUs it takes then: the reservation sets it. */
		buf_printf(out,
			   ex->job->reservation[0] ? " when reservation %s begins"
						   : " when reservation %s ends",
			   rv->name);
	if (win && win->until) {
		buf_printf(out, " when queue %s's window ends (%s)", ex->job->queue,
			   cmd_time(win->until, x->s->now, d, sizeof(d)));
		sep = ", then ";
	}
	if (wy->nwaits && !rv && (!win || (p && p->never == NEVER_NO && p->start > win->until))) {
		buf_printf(out, "%safter ", sep);
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
		buf_printf(out, "%s Slurm: %s", wy->nwaits || rv ? ";" : "",
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
	size_t cap = x.n + nids + 1;
	const struct job **rows = xcalloc(cap, sizeof(*rows));
	size_t n = 0;
	if (!nids)
		for (size_t i = 0; i < x.n; i++)
			rows[n++] = x.items[i].job;
	for (size_t i = 0; i < nids; i++) {
		const struct job *j = snapshot_find(&s, ids[i]);
		/* An array's own id: its pending tasks, in queue order. */
		size_t tasks = 0, pending = 0;
		for (size_t k = 0; !j && k < x.n && n < cap; k++) {
			const struct job *t = x.items[k].job;
			if (t->array_id == ids[i] && t->state == JOB_PENDING) {
				rows[n++] = t;
				pending++;
			}
		}
		for (size_t k = 0; !j && !pending && k < s.njobs; k++)
			tasks += s.jobs[k].array_id == ids[i];
		if (pending)
			continue;
		if (tasks) {
			fprintf(stderr,
				"gq: array %lld has no pending task; it has no start to predict\n",
				(long long)ids[i]);
			if (rc == EXIT_OK)
				rc = EXIT_FAIL;
			continue;
		}
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
		struct buf out, cell;
		buf_init(&out, 0);
		buf_init(&cell, 0);
		struct eta_widths w = {25, 11};
		for (size_t i = 0; i < n; i++) {
			const struct explain *ex = explain_find(&x, rows[i]->id);
			buf_reset(&cell);
			explain_eta(&x, ex, &cell);
			if ((int)cell.len > w.start)
				w.start = (int)cell.len;
			buf_reset(&cell);
			eta_wait(&x, ex, &cell);
			if ((int)cell.len > w.wait)
				w.wait = (int)cell.len;
		}
		if (n)
			buf_printf(&out, "%6s  %-4s %-*s %-*s %s\n", "ID", "TIER", w.start,
				   "LIKELY START", w.wait, "WAIT", "WHEN THESE END");
		for (size_t i = 0; i < n; i++)
			eta_line(&x, explain_find(&x, rows[i]->id), &w, &cell, &out);
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		buf_release(&cell);
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
