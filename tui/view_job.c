/*
 * view_job.c - the Job view (Enter on any job): who and what, where it
 * stands, the full `gq why` explanation, its history and preemption
 * records from the event stream, and the tail of its log. The explanation
 * and the log are fetched and rendered by the app (st->why, st->log_tail);
 * this view lays them out and scrolls.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void j_open(struct view *v)
{
	v->priv = NULL;
}

static void j_close(struct view *v)
{
	v->priv = NULL;
}

static void j_refresh(struct view *v, const struct tui_state *st)
{
	(void)v;
	(void)st;
}

static void request_text(const struct job *j, char *out, size_t size)
{
	struct buf b;
	buf_init(&b, size);
	buf_printf(&b, "%d GPU%s", j->req.gpus, j->req.gpus == 1 ? "" : "s");
	if (j->req.gpu_type[0])
		buf_printf(&b, " of %s", j->req.gpu_type);
	if (j->req.gpu_mem_mb)
		buf_printf(&b, " with %lldG+", (long long)(j->req.gpu_mem_mb / 1024));
	if (j->req.same_node)
		buf_addstr(&b, " on one node");
	char d[32];
	if (j->estimate)
		buf_printf(&b, ", estimate %s", dur_format(j->estimate, d, sizeof(d)));
	if (j->time_limit)
		buf_printf(&b, ", limit %s", dur_format(j->time_limit, d, sizeof(d)));
	buf_addstr(&b, j->checkpointable ? ", checkpointable" : ", not checkpointable");
	snprintf(out, size, "%s", b.data ? b.data : "");
	buf_release(&b);
}

static void build(const struct tui_state *st, struct text *t)
{
	const struct model *m = st->m;
	const struct job *j = snapshot_find(&m->snap, st->job);
	int64_t now = m->snap.now;
	char a[64], b[64], c[256];
	if (!st->job) {
		text_line(t, GC_DIM, "no job opened yet: select a job in any view and press Enter");
		return;
	}
	if (!j) {
		text_line(t, GC_WARN, "job %lld is not in the scheduler's current snapshot",
			  (long long)st->job);
		text_line(t, GC_DIM, "it may have finished long ago; 'gq show %lld' tells more",
			  (long long)st->job);
	} else {
		enum tier tr = job_tier(j);
		text_line(t, GA_BOLD, "Job %lld  %s  (%s, queue %s, %s)", (long long)j->id,
			  j->name[0] ? j->name : "-", j->user, j->queue, tier_name(tr));
		if (j->ovr.set)
			text_line(t, GC_WARN, "Override: treated as %s by %s: %s",
				  tier_name(j->ovr.tier), j->ovr.actor, j->ovr.reason);
		const struct qrow *q = model_qrow(m, j->id);
		if (q) {
			int64_t qt = job_waiting_since(j);
			if (q->never || !q->eta)
				snprintf(b, sizeof(b), "never under this snapshot");
			else if (q->eta > now)
				snprintf(b, sizeof(b), "in %s",
					 dur_format(q->eta - now, c, sizeof(c)));
			else
				snprintf(b, sizeof(b), "now");
			char wt[48];
			if (m->snap.order == ORDER_BACKEND)
				snprintf(wt, sizeof(wt), "Slurm priority %lld",
					 (long long)j->ext_prio);
			else
				snprintf(wt, sizeof(wt), "weight %.1f", q->weight);
			text_line(t, 0, "State %s (%s)  position %d of %zu  %s  waited %s",
				  job_state_name(j->state), q->reason, q->pos, m->nqueue, wt,
				  age_text(now, qt, a, sizeof(a)));
			text_line(t, 0, "Start %s", b);
		} else if (job_state_holds_gpus(j->state)) {
			text_line(t, 0, "State %s  for %s on %d GPU%s  restarts %d",
				  job_state_name(j->state),
				  age_text(now, j->start_time, a, sizeof(a)), job_gpus_held(j),
				  job_gpus_held(j) == 1 ? "" : "s", j->restarts);
		} else {
			if (j->exit_status >= 0 && !job_state_active(j->state))
				snprintf(b, sizeof(b), ", exit %d", j->exit_status);
			else
				b[0] = 0;
			text_line(t, 0, "State %s%s  ended %s ago", job_state_name(j->state), b,
				  age_text(now, j->end_time, a, sizeof(a)));
		}
		request_text(j, c, sizeof(c));
		text_line(t, 0, "Request %s", c);
		if (j->held && j->held_at > 0)
			text_line(t, GC_WARN, "Held by %s %s ago%s%s", j->held_by,
				  age_text(now, j->held_at, a, sizeof(a)),
				  j->held_reason[0] ? ": " : "", j->held_reason);
		else if (j->held) /* Slurm does not say when */
			text_line(t, GC_WARN, "Held by %s%s%s", j->held_by,
				  j->held_reason[0] ? ": " : "", j->held_reason);
	}
	if (st->why && st->why[0]) {
		text_line(t, 0, "%s", "");
		text_line(t, GA_BOLD | GC_ACCENT, "Why");
		text_wrap(t, 0, 2, st->why);
	}

	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "History");
	int nh = 0;
	for (size_t i = 0; i < m->nevents; i++) {
		const struct event *ev = &m->events[i];
		if (ev->job != st->job)
			continue;
		zone_clock(&m->zone, ev->time, a, sizeof(a));
		if (ev->from != ev->to)
			text_line(t, 0, "  %s  %s -> %s  %s  (%s)", a, job_state_name(ev->from),
				  job_state_name(ev->to), ev->reason, ev->actor);
		else
			text_line(t, 0, "  %s  %s  %s  (%s)", a, ev->kind, ev->reason, ev->actor);
		nh++;
	}
	if (!nh)
		text_line(t, GC_DIM, "  no event of this job since gq top started");

	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Preemptions");
	if (j) {
		text_line(t, 0, "  restarts %d, last checkpoint %s%s", j->restarts,
			  j->last_checkpoint ? age_text(now, j->last_checkpoint, a, sizeof(a))
					     : "never",
			  j->last_checkpoint ? " ago" : "");
		if (j->state == JOB_STOPPING && j->stop_deadline)
			text_line(t, GC_WARN, "  stopping: killed in %s unless it exits",
				  dur_format(j->stop_deadline - now, b, sizeof(b)));
		if (j->not_before > now)
			text_line(t, 0, "  cooling down: may start again in %s",
				  dur_format(j->not_before - now, b, sizeof(b)));
	}
	for (size_t i = 0; i < m->nevents; i++) {
		const struct event *ev = &m->events[i];
		if (ev->job != st->job || !strstr(ev->kind, "preempt"))
			continue;
		text_line(t, 0, "  %s  %s: %s  (%s)", zone_clock(&m->zone, ev->time, a, sizeof(a)),
			  ev->kind, ev->reason, ev->actor);
	}

	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Log (stdout, last lines)");
	if (st->log_tail && st->log_tail[0])
		text_wrap(t, 0, 2, st->log_tail);
	else
		text_line(t, GC_DIM, "  (empty)");
}

static void j_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	struct text t = {.width = w};
	build(st, &t);
	text_draw(v, &t, g, x, y, w, h);
	text_release(&t);
}

static unsigned j_key(struct view *v, struct tui_state *st, enum action a)
{
	unsigned r = text_nav(v, a);
	if (!(r & R_UNHANDLED))
		return r;
	switch (a) {
	case ACT_BACK:
		return R_BACK;
	case ACT_CANCEL:
	case ACT_HOLD:
	case ACT_RELEASE:
	case ACT_OVERRIDE:
		if (!st->job)
			return R_NONE;
		st->req_job = st->job;
		st->req_act = a;
		return R_REQUEST;
	default:
		return R_UNHANDLED;
	}
}

static unsigned j_click(struct view *v, struct tui_state *st, int row)
{
	return R_NONE;
}

const struct view_ops view_job_ops = {
    .name = "Job",
    .sorts = "",
    .open = j_open,
    .refresh = j_refresh,
    .draw = j_draw,
    .key = j_key,
    .click = j_click,
    .close = j_close,
};
