/*
 * show.c - `gq show JOB`: every fact about one job, for people (one
 * "field  value" line each, empty facts left out) or as JSON. Why a job
 * waits is `gq why`'s; this file only reports what the server holds.
 */
#include "cmd.h"

#include "explain/explain.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/array.h"
#include "core/jobsig.h"
#include "wire/cli.h"

/* One "key value" line. The value may hold a job's own text (its
 * command, directory, paths, reasons): its controls are escaped, as no
 * job may write to the terminal of who looks at it. */
static void row(const char *k, const char *fmt, ...) GQ_PRINTF(2, 3);
static void row(const char *k, const char *fmt, ...)
{
	struct buf v, out;
	buf_init(&v, 0);
	buf_init(&out, 0);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&v, fmt, ap);
	va_end(ap);
	buf_add_escaped(&out, v.data ? v.data : "");
	printf("%-12s %s\n", k, out.data ? out.data : "");
	buf_release(&out);
	buf_release(&v);
}

/* "node0 GPUs 0,1,2" for each node of the allocation. */
static void alloc_text(const struct job *j, const struct snapshot *s, struct buf *out)
{
	for (int i = 0; i < j->nalloc; i++) {
		const struct job_alloc *a = &j->alloc[i];
		if (i)
			buf_addstr(out, "; ");
		if (a->node >= 0 && (size_t)a->node < s->nnodes)
			buf_printf(out, "%s ", s->nodes[a->node].name);
		else
			buf_printf(out, "node %d ", a->node);
		buf_addstr(out, a->mask ? "GPUs " : "(no GPUs)");
		bool first = true;
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++)
			if (a->mask & (UINT64_C(1) << g)) {
				buf_printf(out, "%s%d", first ? "" : ",", g);
				first = false;
			}
	}
}

/* argv as a shell would read it back, the words that need it quoted. */
static void words_text(char *const *argv, struct buf *out)
{
	for (char *const *a = argv; *a; a++) {
		bool quote = !**a || strpbrk(*a, " \t\n'\"\\$`;&|<>()*?[]{}~") != NULL;
		buf_printf(out, "%s%s%s%s", a == argv ? "" : " ", quote ? "'" : "", *a,
			   quote ? "'" : "");
	}
}

#define SCRIPT_LINES 5

/* A batch script: what runs it (its "#!" line, or /bin/sh), its
 * arguments, and its first lines; the whole text is in --json. */
static void script_rows(const struct job_info *ji)
{
	const char *t = ji->script;
	struct buf b;
	buf_init(&b, 0);
	if (!strncmp(t, "#!", 2)) {
		size_t n = strcspn(t + 2, "\n");
		while (n && (t[2] == ' ' || t[2] == '\t')) {
			t++;
			n--;
		}
		buf_printf(&b, "a script run by %.*s", (int)n, t + 2);
		t = ji->script;
	} else {
		buf_addstr(&b, "a script run by /bin/sh (it has no #! line)");
	}
	if (ji->argv && ji->argv[0]) {
		buf_addstr(&b, ", arguments ");
		words_text(ji->argv, &b);
	}
	row("command", "%s", b.data);
	int line = 0, more = 0;
	for (const char *p = t; *p;) {
		size_t n = strcspn(p, "\n");
		if (line < SCRIPT_LINES)
			row(line ? "" : "script", "%.*s", (int)n, p);
		else
			more++;
		line++;
		p += n + (p[n] == '\n');
	}
	if (more)
		row("", "(%d more line%s; the whole script: gq show --json %lld)", more,
		    more == 1 ? "" : "s", (long long)ji->job.id);
	buf_release(&b);
}

static void size_text(int64_t mb, struct buf *out)
{
	char t[32];
	buf_addstr(out, size_format(mb, t, sizeof(t)));
}

static void req_text(const struct job_res *r, struct buf *out)
{
	if (r->gpus)
		buf_printf(out, "%d GPU%s", r->gpus, r->gpus == 1 ? "" : "s");
	else
		buf_addstr(out, "no GPUs");
	if (r->gpu_type[0])
		buf_printf(out, " of %s", r->gpu_type);
	if (r->gpu_mem_mb) {
		buf_addstr(out, ", ");
		size_text(r->gpu_mem_mb, out);
		buf_addstr(out, " each");
	}
	if (r->same_node)
		buf_addstr(out, ", on one node");
	if (r->cpus)
		buf_printf(out, "; %d CPU%s", r->cpus, r->cpus == 1 ? "" : "s");
	if (r->mem_mb) {
		buf_addstr(out, "; ");
		size_text(r->mem_mb, out);
		buf_addstr(out, " memory");
	}
}

static void show_text(const struct job_info *ji, const struct snapshot *s)
{
	const struct job *j = &ji->job;
	int64_t now = s->now;
	char t1[32], t2[32], d[32];
	struct buf b;
	buf_init(&b, 0);
	row("job", "%lld", (long long)j->id);
	row("name", "%s", j->name);
	row("user", "%s", j->user);
	if (j->state == JOB_PENDING && job_waiting_since(j))
		row("state", "pending for %s",
		    dur_format(now - job_waiting_since(j), d, sizeof(d)));
	else if (job_state_holds_gpus(j->state) && j->start_time)
		row("state", "%s for %s", job_state_name(j->state),
		    dur_format(now - j->start_time, d, sizeof(d)));
	else if (!job_state_active(j->state) && j->exit_status >= 0)
		row("state", "%s (exit status %d)", job_state_name(j->state), j->exit_status);
	else
		row("state", "%s", job_state_name(j->state));
	row("queue", "%s (department %s)", j->queue, j->dept[0] ? j->dept : "-");
	if (j->ovr.set)
		row("tier", "%s, overridden to %s by %s: %s", tier_name(j->tier),
		    tier_name(j->ovr.tier), j->ovr.actor, j->ovr.reason);
	else
		row("tier", "%s", tier_name(j->tier));
	/* The P0 cycle (DESIGN §3), said here as in gq why. */
	explain_downgrade(s, cmd_zone(now), j, &b);
	if (b.len)
		row("", "%s", b.data + 1);
	buf_reset(&b);
	/* Marked in the snapshot (over_quota is derived, never sent). */
	const struct job *sj = snapshot_find(s, j->id);
	explain_over_quota(s, sj ? sj : j, &b);
	if (b.len)
		row("", "%s", b.data + 1);
	buf_reset(&b);
	req_text(&j->req, &b);
	row("request", "%s", b.data);
	if (j->nalloc && job_state_holds_gpus(j->state)) {
		buf_reset(&b);
		alloc_text(j, s, &b);
		row("gpus", "%s%s", b.data, j->borrowed ? " (borrowed)" : "");
	}
	row("submitted", "%s", cmd_time(j->submit_time, now, t1, sizeof(t1)));
	if (j->start_time)
		row("started", "%s", cmd_time(j->start_time, now, t1, sizeof(t1)));
	if (j->end_time && !job_state_active(j->state)) {
		int64_t ran, gs;
		job_run_time(j, j->end_time, &ran, &gs);
		row("ended", "%s (ran %s)", cmd_time(j->end_time, now, t1, sizeof(t1)),
		    dur_format(ran, d, sizeof(d)));
	}
	if (j->end_reason[0] && !job_state_active(j->state))
		row("end reason", "%s", j->end_reason);
	if (j->estimate)
		row("estimate", "%s", dur_format(j->estimate, d, sizeof(d)));
	if (j->time_limit)
		row("time limit", "%s", dur_format(j->time_limit, d, sizeof(d)));
	if (j->sig) {
		const char *n = jobsig_name(j->sig);
		char sn[16];
		if (n)
			snprintf(sn, sizeof(sn), "SIG%s", n);
		else
			snprintf(sn, sizeof(sn), "signal %d", j->sig);
		row("signal", "%s %s before the time limit%s", sn,
		    dur_format(j->sig_before, d, sizeof(d)), j->sig_sent ? ", sent" : "");
	}
	if (j->notify[0])
		row("notify", "%s", j->notify);
	if (j->checkpointable || j->last_checkpoint || j->restarts) {
		buf_reset(&b);
		buf_addstr(&b, j->checkpointable ? "yes" : "no");
		if (j->last_checkpoint)
			buf_printf(&b, ", last saved %s",
				   cmd_time(j->last_checkpoint, now, t1, sizeof(t1)));
		if (j->restarts)
			buf_printf(&b, ", restarted %d time%s", j->restarts,
				   j->restarts == 1 ? "" : "s");
		row("checkpoint", "%s", b.data);
	}
	if (j->not_before > now)
		row("cooldown", "until %s", cmd_time(j->not_before, now, t1, sizeof(t1)));
	if (j->begin_time > now && j->state == JOB_PENDING)
		row("begin", "not before %s", cmd_time(j->begin_time, now, t1, sizeof(t1)));
	if (j->ndeps) {
		buf_reset(&b);
		for (int i = 0; i < j->ndeps; i++)
			buf_printf(&b, "%s#%lld (%s)", i ? ", " : "", (long long)j->deps[i],
				   dep_kind_name(dep_kind_of(j, i)));
		row("after", "%s", b.data);
	}
	if (j->held)
		row("held", "by %s at %s%s%s", j->held_by[0] ? j->held_by : "?",
		    cmd_time(j->held_at, now, t2, sizeof(t2)), j->held_reason[0] ? ": " : "",
		    j->held_reason);
	if (ji->script) {
		script_rows(ji);
	} else if (ji->argv) {
		buf_reset(&b);
		words_text(ji->argv, &b);
		row("command", "%s", b.data);
	}
	if (ji->cwd)
		row("directory", "%s", ji->cwd);
	if (ji->stdout_path)
		row("output", "%s", ji->stdout_path);
	if (ji->stderr_path)
		row("errors", "%s", ji->stderr_path);
	/* What the backend's scheduler (Slurm) says beside. */
	if (s->order == ORDER_BACKEND)
		row("priority", "%lld (Slurm's; it orders the queue)", (long long)j->ext_prio);
	if (j->ext_array[0])
		row("array", "tasks %s", j->ext_array);
	if (j->array_id && j->array_max) /* gq serve's arrays: one job per task */
		row("array", "task %lld_%d, at most %d at once", (long long)j->array_id,
		    j->array_task, j->array_max);
	else if (j->array_id)
		row("array", "task %lld_%d", (long long)j->array_id, j->array_task);
	if (j->ext_reason[0])
		row("slurm reason", "%s%s%s%s%s%s", j->ext_reason, j->ext_class[0] ? " (gq: " : "",
		    j->ext_class, j->ext_detail[0] ? ", " : "", j->ext_detail,
		    j->ext_class[0] ? ")" : "");
	if (j->state == JOB_PENDING && s->order == ORDER_BACKEND)
		row("slurm start", "%s",
		    j->ext_start ? cmd_time(j->ext_start, now, t1, sizeof(t1))
				 : "no estimate (its backfill pass has not reached the job)");
	buf_release(&b);
}

/* "gq show A" of an array's own id A: the array's line, then a line per
 * task (its name A_T, its job id, its state); 0 when s has no task of A. */
static int show_array(const struct snapshot *s, int64_t id, bool json)
{
	struct array_summary *as = xmalloc(sizeof(*as));
	int n = array_summary(s, id, as);
	if (n > 0) {
		char range[256];
		array_format(as->tasks, as->ntasks, as->throttle, range, sizeof(range));
		if (json) {
			jout_array(id, as, range, NULL, NULL, NULL);
		} else {
			cmd_array_line(id, as, range);
			for (size_t i = 0; i < s->njobs; i++)
				if (s->jobs[i].array_id == id)
					printf("  %lld_%-6d #%-8lld %s\n", (long long)id,
					       s->jobs[i].array_task, (long long)s->jobs[i].id,
					       job_state_name(s->jobs[i].state));
		}
	}
	free(as);
	return n;
}

static int show_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_show;
	bool json = false;
	int64_t id;
	int rc = cmd_json_opts(c, argc, argv, &json);
	if (rc >= 0 || (rc = cmd_one_job(c, argc, argv, &id)) != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct job_info ji;
	struct snapshot s;
	snapshot_init(&s);
	if (b->ops->job(b, id, &ji, &e) < 0) {
		/* No job of that id: an array's own id has tasks instead. */
		struct gq_err se = GQ_ERR_INIT;
		if (e.code != GQ_ENOENT || b->ops->snapshot(b, &s, &se) < 0 ||
		    show_array(&s, id, json) == 0)
			rc = cmd_fail(&e);
	} else {
		if (json) {
			jout_job(&ji, b->ops->scheduler != NULL);
		} else if (b->ops->snapshot(b, &s, &e) < 0) {
			rc = cmd_fail(&e);
		} else {
			cmd_note_stale(b, &s);
			show_text(&ji, &s);
		}
		job_info_release(&ji);
	}
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_show = {
    .name = "show",
    .usage = "[--json] JOB",
    .summary = "show everything about one job",
    .flags = CMD_NEEDS_BACKEND,
    .exec = show_exec,
};
