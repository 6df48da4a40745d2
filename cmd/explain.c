/*
 * explain.c - wait reasons, ETAs and their sentences (see explain.h). The
 * decisions and the reasons are core's (predict.h, reason.h); this file
 * only words them.
 */
#include "explain.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/order.h"

/* Fills ex from core's explanation w; m is the free map after the starts
 * at now, which is what core judged capacity on. */
static void explain_one(const struct snapshot *s, const struct place_map *m, const struct why *w,
			struct explain *ex)
{
	ex->why = w;
	place_check(m, s, ex->job, s->now, &ex->place);
	ex->reason = w->primary;
	ex->blocks = 0;
	for (int i = 0; i < w->nitems; i++) {
		const struct reason_item *it = &w->items[i];
		ex->blocks |= REASON_BIT(it->reason);
		if (it->reason == REASON_DEPENDENCY) {
			ex->dep_waiting = it->job;
			ex->dep_failed = it->never;
		}
	}
	ex->position = w->position;
	ex->ahead = w->ahead;
	for (int i = 0; i < w->nahead && ex->nshown < EXPLAIN_AHEAD_SHOWN; i++) {
		const struct job *a = snapshot_find(s, w->ahead_first[i].job);
		if (a)
			ex->shown[ex->nshown++] = a;
	}
	ex->base = w->base;
	ex->weight = w->weight;
	ex->c = w->c;
	ex->rises = w->rises;
	ex->rise_at = w->rise_at;
	ex->rise_to = w->rise_weight;
}

void explain_compute(const struct snapshot *s, struct explain_set *out)
{
	memset(out, 0, sizeof(*out));
	out->s = s;
	prediction_set_init(&out->ps);
	why_set_init(&out->ws);
	predict_all(s, &out->ps);
	reason_all(s, &out->ps, &out->ws);
	out->n = out->ps.n;
	out->items = xcalloc(out->n ? out->n : 1, sizeof(*out->items));
	struct place_map m;
	place_map_init(&m, s);
	for (size_t i = 0; i < out->n; i++) {
		const struct prediction *p = &out->ps.items[i];
		if (p->placed && p->start == s->now && p->never == NEVER_NO)
			place_take(&m, policy_queue_index(&s->policy, s->jobs[p->idx].queue), p->nalloc,
				   p->alloc);
	}
	for (size_t i = 0; i < out->n; i++) {
		struct explain *ex = &out->items[i];
		ex->pred = &out->ps.items[i];
		ex->job = &s->jobs[ex->pred->idx];
		explain_one(s, &m, &out->ws.items[i], ex);
	}
	place_map_release(&m);
}

void explain_release(struct explain_set *x)
{
	prediction_set_release(&x->ps);
	why_set_release(&x->ws);
	free(x->items);
	x->items = NULL;
	x->n = 0;
}

const struct explain *explain_find(const struct explain_set *x, int64_t id)
{
	const struct prediction *p = prediction_find(&x->ps, x->s, id);
	if (!p)
		return NULL;
	return &x->items[p - x->ps.items];
}

static const char *tm(const struct explain_set *x, int64_t t, char *out, size_t size)
{
	return cmd_time(t, x->s->now, out, size);
}

/* "#88, #90 and #91" (the cut ones counted). */
static void id_list(const int64_t *ids, int n, int total, struct buf *out)
{
	for (int i = 0; i < n; i++)
		buf_printf(out, "%s#%lld", i == 0 ? "" : i == n - 1 && total == n ? " and " : ", ",
			   (long long)ids[i]);
	if (total > n)
		buf_printf(out, " and %d more", total - n);
}

static void never_text(const struct explain *ex, struct buf *out)
{
	switch (ex->pred->never) {
	case NEVER_HELD:
		buf_addstr(out, "never while held");
		break;
	case NEVER_DEP_FAILED:
		buf_addstr(out, "never: a job it waits for did not succeed");
		break;
	case NEVER_DEP_NEVER:
		buf_addstr(out, "never: a job it waits for never starts");
		break;
	case NEVER_UNSATISFIABLE:
		buf_addstr(out, "never: no node could ever fit it");
		break;
	case NEVER_DEPT_QUOTA:
		buf_addstr(out, "not this month: its department used its GPU-hours");
		break;
	case NEVER_CAPACITY:
		buf_addstr(out, "not until more nodes are up");
		break;
	case NEVER_NO:
	case NEVER_COUNT:
		buf_addstr(out, "unknown");
		break;
	}
}

void explain_eta(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct prediction *p = ex->pred;
	char a[32], b[32], c[32];
	if (p->never != NEVER_NO) {
		never_text(ex, out);
		return;
	}
	if (p->start <= x->s->now) {
		buf_addstr(out, "now");
		return;
	}
	buf_addstr(out, tm(x, p->start, a, sizeof(a)));
	if (p->low != p->high)
		buf_printf(out, " (range %s-%s)", tm(x, p->low, b, sizeof(b)), tm(x, p->high, c, sizeof(c)));
}

void explain_short(const struct explain *ex, struct buf *out)
{
	buf_addstr(out, reason_name(ex->reason));
	switch (ex->reason) {
	case REASON_DEPENDENCY:
		buf_printf(out, " #%lld", (long long)ex->dep_waiting);
		break;
	case REASON_PRIORITY:
		buf_printf(out, " (%d ahead)", ex->ahead);
		break;
	case REASON_RESOURCES:
		buf_printf(out, " (%d/%d free)", ex->place.free, ex->place.need);
		break;
	default:
		break;
	}
}

/* "8 GPUs of a100 with 80G on one node" */
static void need_text(const struct job_res *r, struct buf *out)
{
	buf_printf(out, "%d GPU%s", r->gpus, r->gpus == 1 ? "" : "s");
	if (r->gpu_type[0])
		buf_printf(out, " of %s", r->gpu_type);
	if (r->gpu_mem_mb)
		buf_printf(out, " with %lldG", (long long)(r->gpu_mem_mb / 1024));
	if (r->same_node)
		buf_addstr(out, " on one node");
}

static void reason_detail(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct place_result *pr = &ex->place;
	char t[32];
	switch (ex->reason) {
	case REASON_HELD:
		buf_printf(out, " Held by %s at %s.", j->held_by[0] ? j->held_by : "?",
			   tm(x, j->held_at, t, sizeof(t)));
		break;
	case REASON_DEPENDENCY: {
		const struct job *d = snapshot_find(x->s, ex->dep_waiting);
		buf_printf(out, " Waits for #%lld to finish", (long long)ex->dep_waiting);
		if (d)
			buf_printf(out, " (%s)", job_state_name(d->state));
		buf_addstr(out, ".");
		break;
	}
	case REASON_WINDOW:
		buf_printf(out, " Queue %s is paused until %s.", j->queue,
			   tm(x, pr->window_end, t, sizeof(t)));
		break;
	case REASON_COOLDOWN:
		buf_printf(out, " Preempted recently; may start again at %s.",
			   tm(x, j->not_before, t, sizeof(t)));
		break;
	case REASON_QUOTA:
		if (pr->quota_queue)
			buf_printf(out, " Queue %s holds %d GPUs of its limit %d.", j->queue, pr->queue_used,
				   pr->queue_limit);
		if (pr->quota_dept)
			buf_printf(out, " Department %s used %.0f of its %.0f GPU-hours this month.", j->dept,
				   pr->dept_used, pr->dept_limit);
		break;
	case REASON_MISMATCH:
		buf_printf(out, " %d GPUs are free but only %d match.", pr->free, pr->usable);
		break;
	case REASON_HEADROOM:
		buf_printf(out, " %d GPUs are free but %d are held back for P0.", pr->free, pr->reserve);
		break;
	default:
		break;
	}
}

void explain_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct prediction *p = ex->pred;
	const struct policy *pol = &x->s->policy;
	char t[32];
	buf_printf(out, "Pending: %s.", reason_name(ex->reason));
	reason_detail(x, ex, out);
	if (ex->ahead) {
		buf_printf(out, " %d job%s ahead (", ex->ahead, ex->ahead == 1 ? "" : "s");
		for (int i = 0; i < ex->nshown; i++) {
			const struct job *a = ex->shown[i];
			buf_printf(out, "%s%s #%lld weight %.1f", i ? ", " : "", tier_name(job_tier(a)),
				   (long long)a->id, order_weight(pol, a, x->s->now));
		}
		if (ex->ahead > ex->nshown)
			buf_addstr(out, ", …");
		buf_addstr(out, ");");
	} else {
		buf_addstr(out, " First in line;");
	}
	buf_printf(out, " your weight %.1f = %.0f × (1 + %.1f)", ex->weight, ex->base, ex->c);
	if (ex->rises)
		buf_printf(out, ", rises to %.1f at %s", ex->rise_to, tm(x, ex->rise_at, t, sizeof(t)));
	buf_addstr(out, ". Needs ");
	need_text(&j->req, out);
	buf_printf(out, "; %d free", ex->place.free);
	if (ex->place.usable != ex->place.free)
		buf_printf(out, ", %d matching", ex->place.usable);
	buf_addstr(out, ".");
	if (p->never != NEVER_NO) {
		buf_addstr(out, " Start: ");
		never_text(ex, out);
		buf_addstr(out, ".");
		return;
	}
	if (p->start <= x->s->now) {
		buf_addstr(out, " Starts now.");
		return;
	}
	buf_addstr(out, " Likely start ");
	explain_eta(x, ex, out);
	switch (p->gate) {
	case GATE_ENDS:
		if (p->nwaits) {
			buf_addstr(out, " when ");
			id_list(p->waits, p->nwaits, p->nwaits_all, out);
			buf_addstr(out, p->nwaits_all == 1 ? " ends" : " end");
		}
		break;
	case GATE_DEPENDENCY:
		buf_addstr(out, " after the job it waits for");
		break;
	case GATE_COOLDOWN:
		buf_addstr(out, " when its cooldown ends");
		break;
	case GATE_WINDOW:
		buf_addstr(out, " when its queue's window opens");
		break;
	case GATE_QUOTA:
		buf_addstr(out, " when its queue has room under its quota");
		break;
	case GATE_NOW:
	case GATE_COUNT:
		break;
	}
	if (p->backfilled)
		buf_addstr(out, ", backfilled");
	buf_addstr(out, ".");
}

void explain_sooner(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct place_result *pr = &ex->place;
	const struct prediction *p = ex->pred;
	switch (ex->reason) {
	case REASON_HELD:
		buf_printf(out, "Release it: gq release %lld\n", (long long)j->id);
		return;
	case REASON_DEPENDENCY:
		if (ex->dep_failed)
			buf_printf(out, "Its dependency #%lld did not succeed: cancel it (gq cancel %lld) and resubmit\n",
				   (long long)ex->dep_waiting, (long long)j->id);
		return;
	case REASON_WINDOW:
		buf_printf(out, "Submit to a queue that is not paused now (--queue)\n");
		return;
	case REASON_UNSATISFIABLE:
		buf_printf(out, "Ask for what a node has: see gq nodes\n");
		return;
	case REASON_MISMATCH:
		if (j->req.gpu_type[0] || j->req.gpu_mem_mb)
			buf_printf(out, "Drop --gpu-type or --gpu-mem: %d GPUs of any kind are free\n", pr->free);
		if (j->req.same_node)
			buf_printf(out, "Drop --same-node: %d GPUs are free across nodes\n", pr->free);
		return;
	case REASON_COOLDOWN:
	case REASON_STARTING:
		return;
	default:
		break;
	}
	if (j->req.gpus > pr->free && pr->free > 0)
		buf_printf(out, "Ask for %d GPU%s or fewer: that many are free now\n", pr->free,
			   pr->free == 1 ? "" : "s");
	if (!j->estimate && p->never == NEVER_NO && p->start > x->s->now)
		buf_printf(out, "Give --estimate: a short job can be backfilled into gaps\n");
	if (job_tier(j) != TIER_P0 && ex->ahead)
		buf_printf(out, "A higher tier if the work qualifies (an admin can: gq prio --reason TEXT %lld P%d)\n",
			   (long long)j->id, (int)job_tier(j) - 1);
}
