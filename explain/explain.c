/*
 * explain.c - wait reasons and ETAs in words (see explain.h). Core decides
 * and explains as data (core/predict.h, core/reason.h); this file only
 * words it, reason by reason.
 */
#include "explain.h"

#include <stdlib.h>
#include <string.h>

#include "core/policy.h"

void explain_compute(const struct snapshot *s, const struct zone *reader, struct explain_set *out)
{
	memset(out, 0, sizeof(*out));
	out->s = s;
	out->reader = reader;
	zone_fixed(&out->server, s->tz_offset, NULL);
	prediction_set_init(&out->ps);
	why_set_init(&out->ws);
	predict_all(s, &out->ps);
	reason_all(s, &out->ps, &out->ws);
	out->nfree = out->ps.nfree;
	out->n = out->ws.n;
	out->items = xcalloc(out->n ? out->n : 1, sizeof(*out->items));
	for (size_t i = 0; i < out->n; i++) {
		const struct why *w = &out->ws.items[i];
		out->items[i].why = w;
		out->items[i].job = &s->jobs[w->idx];
		out->items[i].pred = w->pred;
	}
}

void explain_release(struct explain_set *x)
{
	why_set_release(&x->ws);
	prediction_set_release(&x->ps);
	free(x->items);
	x->items = NULL;
	x->n = 0;
}

const struct explain *explain_find(const struct explain_set *x, int64_t id)
{
	const struct why *w = why_find(&x->ws, x->s, id);
	return w ? &x->items[w - x->ws.items] : NULL;
}

int64_t explain_start(const struct explain *ex)
{
	const struct prediction *p = ex->pred;
	return p && p->never == NEVER_NO ? p->start : 0;
}

static const char *tm(const struct explain_set *x, int64_t t, char *out, size_t size)
{
	return zone_time(x->reader, t, x->s->now, out, size);
}

static void never_text(const struct explain *ex, struct buf *out)
{
	switch (ex->pred ? ex->pred->never : NEVER_NO) {
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
	if (!p || ex->why->primary == REASON_STARTING) {
		buf_addstr(out, "now");
		return;
	}
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
		buf_printf(out, " (range %s-%s)", tm(x, p->low, b, sizeof(b)),
			   tm(x, p->high, c, sizeof(c)));
}

void explain_short(const struct explain *ex, struct buf *out)
{
	const struct why *w = ex->why;
	const struct reason_item *it = w->nitems ? &w->items[0] : NULL;
	buf_addstr(out, reason_name(w->primary));
	switch (w->primary) {
	/* Without printf: gq ls writes one per pending row. */
	case REASON_DEPENDENCY:
		if (it && it->job) {
			buf_addstr(out, " #");
			buf_addint(out, it->job);
		}
		break;
	case REASON_PRIORITY:
		buf_addstr(out, " (");
		buf_addint(out, w->ahead);
		buf_addstr(out, " ahead)");
		break;
	case REASON_RESOURCES:
		if (it && it->detail[0]) { /* short of CPUs or memory, not GPUs */
			buf_addstr(out, " (");
			buf_addstr(out, it->detail);
			buf_addstr(out, ")");
		} else if (it) {
			buf_addstr(out, " (");
			buf_addint(out, it->free);
			buf_addstr(out, "/");
			buf_addint(out, it->need);
			buf_addstr(out, " free)");
		}
		break;
	case REASON_QUOTA:
		if (it && it->detail[0])
			buf_printf(out, " (%s)", it->detail);
		break;
	default:
		break;
	}
}

/* "8 GPUs of a100 with 80G on one node", then CPUs and memory when asked:
 * "2 GPUs, 4 CPUs and 64G of memory"; a CPU-only job "no GPUs, 1 CPU". */
static void need_text(const struct job_res *r, struct buf *out)
{
	char t[32];
	if (!r->gpus)
		buf_addstr(out, "no GPUs");
	else
		buf_printf(out, "%d GPU%s", r->gpus, r->gpus == 1 ? "" : "s");
	if (r->gpu_type[0])
		buf_printf(out, " of %s", r->gpu_type);
	if (r->gpu_mem_mb)
		buf_printf(out, " with %s", size_format(r->gpu_mem_mb, t, sizeof(t)));
	if (r->same_node)
		buf_addstr(out, " on one node");
	if (r->cpus)
		buf_printf(out, "%s%d CPU%s", r->mem_mb ? ", " : " and ", r->cpus,
			   r->cpus == 1 ? "" : "s");
	if (r->mem_mb)
		buf_printf(out, " and %s of memory", size_format(r->mem_mb, t, sizeof(t)));
}

/* The primary reason's numbers, as a sentence after "Pending: REASON." */
static void reason_detail(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct why *w = ex->why;
	const struct reason_item *it = w->nitems ? &w->items[0] : NULL;
	char t[32];
	if (!it)
		return;
	switch (w->primary) {
	case REASON_HELD:
		buf_printf(out, " Held by %s at %s.", j->held_by[0] ? j->held_by : "?",
			   tm(x, j->held_at, t, sizeof(t)));
		break;
	case REASON_DEPENDENCY:
		buf_printf(out, " Waits for #%lld to finish (%s", (long long)it->job,
			   it->detail[0] ? it->detail : "?");
		if (it->until && !it->never)
			buf_printf(out, ", expected to end %s", tm(x, it->until, t, sizeof(t)));
		buf_addstr(out, ").");
		break;
	case REASON_WINDOW: {
		/* The window is the server's wall clock; the end, the reader's. */
		const struct queue_policy *q = policy_queue(&x->s->policy, j->queue);
		char win[16] = "";
		if (q)
			window_format(&q->paused, win, sizeof(win));
		buf_printf(out, " Queue %s is paused until %s", j->queue,
			   tm(x, it->until, t, sizeof(t)));
		if (win[0])
			buf_printf(out, " (window %s %s)", win, x->server.name);
		buf_addstr(out, ".");
		break;
	}
	case REASON_COOLDOWN:
		buf_printf(out, " Preempted recently; may start again at %s.",
			   tm(x, it->until, t, sizeof(t)));
		break;
	case REASON_BEGIN:
		buf_printf(out, " Deferred by its owner; may not start before %s (--begin).",
			   tm(x, it->until, t, sizeof(t)));
		break;
	case REASON_QUOTA:
		if (!strcmp(it->detail, "dept"))
			buf_printf(out,
				   " Department %s used %.0f of its %.0f GPU-hours this month.",
				   j->dept, it->used, it->limit);
		else
			buf_printf(out, " Queue %s holds %.0f GPUs of its limit %.0f.", j->queue,
				   it->used, it->limit);
		break;
	case REASON_UNSATISFIABLE:
		buf_printf(out, " It asks for %d GPUs; at most %d could ever be given (%s).",
			   it->need, it->have, it->detail);
		break;
	case REASON_MISMATCH:
		buf_printf(out, " %d GPUs are free but only %d match.", it->free, it->have);
		break;
	case REASON_RESOURCES:
		if (it->detail[0])
			buf_printf(out, " No node it can use has the %s it asks for free.",
				   !strcmp(it->detail, "cpus")	? "CPUs"
				   : !strcmp(it->detail, "mem") ? "memory"
								: "CPUs and memory");
		break;
	case REASON_HEADROOM:
		buf_printf(out, " %d GPUs are free but %.0f are held back for P0.", it->free,
			   it->limit);
		break;
	default:
		break;
	}
}

static void waits_text(const struct why *w, struct buf *out)
{
	int n = w->nwaits;
	for (int i = 0; i < n; i++)
		buf_printf(out, "%s#%lld",
			   i == 0	? ""
			   : i == n - 1 ? " and "
					: ", ",
			   (long long)w->waits[i].job);
	buf_addstr(out, n == 1 ? " ends" : " end");
}

/* Where the expected runtime comes from when it is the history (the
 * estimate and the limit the user gave, and knows): " Expected to run 42m,
 * from alice's recent runs." (runtime.h: those of this name first). */
static void history_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct policy *pol = &x->s->policy;
	if (j->estimate > 0 || j->hist_runtime <= 0)
		return;
	int64_t rt = predict_runtime(pol, j);
	if (rt != j->hist_runtime)
		return; /* cut at its limit: the limit says it */
	char d[32];
	buf_printf(out, " Expected to run %s, from %s's recent runs%s%s%s.",
		   dur_format(rt, d, sizeof(d)), j->user, j->name[0] ? " (of '" : "", j->name,
		   j->name[0] ? "' first)" : "");
}

/* The first job waited for that runs past the end first expected of it:
 * its end is a fresh guess, and the reader should know. */
static void overdue_text(const struct explain_set *x, const struct why *w, struct buf *out)
{
	char t[32];
	for (int i = 0; i < w->nwaits; i++) {
		const struct job *j =
		    w->waits[i].running ? snapshot_find(x->s, w->waits[i].job) : NULL;
		if (!j || !predict_overdue(&x->s->policy, j, x->s->now))
			continue;
		buf_printf(out, " (#%lld is overdue: expected to end %s, it still runs)",
			   (long long)j->id,
			   tm(x, predict_first_end(&x->s->policy, j, x->s->now), t, sizeof(t)));
		return;
	}
}

void explain_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct why *w = ex->why;
	const struct prediction *p = ex->pred;
	char t[32];
	if (w->primary == REASON_STARTING && !p) {
		buf_addstr(out, "Starting: its GPUs are being assigned.");
		return;
	}
	buf_printf(out, "Pending: %s.", reason_name(w->primary));
	reason_detail(x, ex, out);
	if (w->ahead) {
		buf_printf(out, " %d job%s ahead (", w->ahead, w->ahead == 1 ? "" : "s");
		int shown = w->nahead < 3 ? w->nahead : 3;
		for (int i = 0; i < shown; i++)
			buf_printf(out, "%s%s #%lld weight %.1f", i ? ", " : "",
				   tier_name(w->ahead_first[i].tier),
				   (long long)w->ahead_first[i].job, w->ahead_first[i].weight);
		if (w->ahead > shown)
			buf_addstr(out, ", …");
		buf_addstr(out, ");");
	} else {
		buf_addstr(out, " None ahead;");
	}
	buf_printf(out, " your weight %.1f = %.0f × (1 + %.1f)", w->weight, w->base, w->c);
	if (w->rises)
		buf_printf(out, ", rises to %.1f at %s", w->rise_weight,
			   tm(x, w->rise_at, t, sizeof(t)));
	buf_addstr(out, ". Needs ");
	need_text(&j->req, out);
	if (j->req.gpus)
		buf_printf(out, "; %d free.", x->nfree);
	else
		buf_addstr(out, ".");
	if (!p || p->never != NEVER_NO) {
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
		if (w->nwaits) {
			buf_addstr(out, " when ");
			waits_text(w, out);
			overdue_text(x, w, out);
		}
		break;
	case GATE_DEPENDENCY:
		buf_addstr(out, " after the job it waits for");
		break;
	case GATE_COOLDOWN:
		buf_addstr(out, " when its cooldown ends");
		break;
	case GATE_BEGIN:
		buf_addstr(out, " at its begin time");
		break;
	case GATE_WINDOW:
		buf_addstr(out, " when its queue's window opens");
		break;
	case GATE_QUOTA:
		buf_addstr(out, " when its queue has room under its quota");
		break;
	case GATE_PERMIT:
		buf_addstr(out,
			   " when its starvation permit lets it take free GPUs ahead of its turn");
		break;
	case GATE_NOW:
	case GATE_COUNT:
		break;
	}
	if (p->permit && p->gate != GATE_PERMIT)
		buf_addstr(out, ", ahead of its turn by its starvation permit");
	if (p->backfilled)
		buf_addstr(out, ", backfilled");
	buf_addstr(out, ".");
	history_text(x, ex, out);
}

void explain_sooner(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct why *w = ex->why;
	char d[32];
	(void)x;
	for (int i = 0; i < w->nhints; i++) {
		const struct reason_hint *h = &w->hints[i];
		bool seen = false;
		for (int k = 0; k < i; k++)
			if (w->hints[k].hint == h->hint && w->hints[k].value == h->value &&
			    !strcmp(w->hints[k].arg, h->arg))
				seen = true;
		if (seen)
			continue;
		switch (h->hint) {
		case HINT_RELEASE:
			buf_printf(out, "Release it: gq release %lld\n", (long long)j->id);
			break;
		case HINT_CANCEL:
			buf_printf(out,
				   "It can never run: cancel it (gq cancel %lld) and resubmit\n",
				   (long long)j->id);
			break;
		case HINT_FEWER_GPUS:
			buf_printf(out, "Ask for %lld GPU%s or fewer: that would fit\n",
				   (long long)h->value, h->value == 1 ? "" : "s");
			break;
		case HINT_ANY_GPU_TYPE:
			buf_printf(
			    out,
			    "Drop --gpu-type / --gpu-mem: GPUs of another kind are free now\n");
			break;
		case HINT_SPREAD:
			buf_printf(out, "Drop --same-node: enough GPUs are free across nodes\n");
			break;
		case HINT_SHORTER_ESTIMATE:
			buf_printf(out,
				   "An --estimate of %s or less would let it start now, in a gap\n",
				   dur_format(h->value, d, sizeof(d)));
			break;
		case HINT_BOUND:
			buf_printf(out,
				   "It has no --estimate and no --time-limit, so it does not start "
				   "ahead of a waiting job it could delay; either, of %s or less, "
				   "would let it start now, in a gap\n",
				   dur_format(h->value, d, sizeof(d)));
			break;
		case HINT_QUEUE:
			buf_printf(out, "Queue %s has room now (--queue %s)\n", h->arg, h->arg);
			break;
		case HINT_PROMOTE:
			buf_printf(out,
				   "Tier P%lld would put it ahead, if the work qualifies (admin: "
				   "gq prio --reason TEXT %lld P%lld)\n",
				   (long long)h->value, (long long)j->id, (long long)h->value);
			break;
		case HINT_COUNT:
			break;
		}
	}
}

void explain_reeval(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct why *w = ex->why;
	char t[32];
	switch (w->reeval) {
	case REEVAL_RELEASE:
		buf_addstr(out, "when it is released");
		break;
	case REEVAL_JOB_END:
		buf_printf(out, "when #%lld ends", (long long)w->reeval_job);
		if (w->reeval_at)
			buf_printf(out, " (%s)", tm(x, w->reeval_at, t, sizeof(t)));
		break;
	case REEVAL_TIME:
		buf_printf(out, "at %s", tm(x, w->reeval_at, t, sizeof(t)));
		break;
	case REEVAL_POLICY:
		buf_addstr(out, "when the policy or the nodes change");
		break;
	case REEVAL_NONE:
		buf_addstr(out, "never");
		break;
	case REEVAL_NOW:
	case REEVAL_COUNT:
		buf_addstr(out, "now");
		break;
	}
}

void explain_preempt(const struct explain_set *x, const struct explain *ex,
		     struct preempt_plan *out)
{
	if (!permit_decide(x->s, ex->job, out)) {
		preempt_plan_release(out);
		preempt_choose(x->s, ex->job, out);
	}
}

/* "2 are not of a lower tier": the count, then the verb for one or many. */
static const struct {
	const char *one, *many, *rest;
} rule_words[PREEMPT_RULE_COUNT] = {
    [PREEMPT_RULE_TIER] = {"is", "are", "not of a lower tier"},
    [PREEMPT_RULE_CHECKPOINT] = {"has", "have", "no saved checkpoint to resume from"},
    [PREEMPT_RULE_PROTECTED] = {"has", "have", "run longer than the protection of"},
    [PREEMPT_RULE_COOLDOWN] = {"was", "were", "preempted too recently (cooldown)"},
    [PREEMPT_RULE_BUDGET] = {"is", "are", "in a queue out of preemptions this hour"},
    [PREEMPT_RULE_TRIAL] = {"is", "are", "outside the trial queues"},
    [PREEMPT_RULE_DEPARTMENT] =
	{"is", "are", "of another department, and its own has too few peak preemptions left"},
    [PREEMPT_RULE_MISMATCH] = {"holds", "hold", "no GPU of the kind it needs"},
    [PREEMPT_RULE_ENDS_SOON] = {"is", "are", "P0 expected to end soon, waited for instead"},
};

static void victims_text(const struct preempt_plan *pp, struct buf *out)
{
	for (size_t i = 0; i < pp->nvictims; i++) {
		const struct preempt_victim *v = &pp->victims[i];
		buf_printf(out, "%s#%lld (%s, %d GPU%s)",
			   i == 0		   ? ""
			   : i + 1 == pp->nvictims ? " and "
						   : ", ",
			   (long long)v->job, tier_name(v->tier), v->gpus, v->gpus == 1 ? "" : "s");
	}
}

void explain_preempt_text(const struct explain_set *x, const struct explain *ex,
			  const struct preempt_plan *pp, struct buf *out)
{
	const struct snapshot *s = x->s;
	char t[32];
	if (ex->why->primary != REASON_RESOURCES && !pp->permit)
		return;
	switch (pp->outcome) {
	case PREEMPT_FOUND:
		buf_addstr(out, pp->permit ? "Preemption: its starvation permit can free GPUs from "
					   : "Preemption: can free GPUs from ");
		victims_text(pp, out);
		if (pp->observe)
			buf_addstr(out, ", but preempt.mode is observe: nothing is preempted.");
		else
			buf_addstr(out, " at the next scheduling pass.");
		return;
	case PREEMPT_NOT_NEEDED:
		if (pp->stopping)
			buf_addstr(out, "Preemption: under way; the GPUs of the jobs being stopped "
					"will be enough.");
		else if (pp->permit)
			buf_addstr(out, "Preemption: not needed; its starvation permit lets it "
					"start on free GPUs ahead of its turn.");
		return;
	case PREEMPT_NO_RIGHTS:
		buf_printf(
		    out,
		    "Preemption: none; department %s has spent its peak preemptions this month.",
		    ex->job->dept);
		return;
	case PREEMPT_WAIT:
		buf_printf(out,
			   "Preemption: its starvation permit waits for P0 #%lld, expected to end "
			   "%s, instead of preempting it.",
			   (long long)pp->wait_for, tm(x, pp->wait_until, t, sizeof(t)));
		return;
	case PREEMPT_NONE:
		break;
	case PREEMPT_CANNOT_HELP:
	case PREEMPT_NO_PERMIT:
		return;
	}
	if (pp->candidates == 0) {
		buf_addstr(out, "Preemption: nothing to preempt; no other job holds GPUs.");
		return;
	}
	buf_printf(out, "Preemption: nothing to preempt; of %d running job%s,", pp->candidates,
		   pp->candidates == 1 ? "" : "s");
	const char *sep = " ";
	for (int r = 0; r < PREEMPT_RULE_COUNT; r++) {
		int n = pp->excluded[r];
		if (!n)
			continue;
		buf_printf(out, "%s%d %s %s", sep, n,
			   n == 1 ? rule_words[r].one : rule_words[r].many, rule_words[r].rest);
		if (r == PREEMPT_RULE_PROTECTED)
			buf_printf(out, " %s", dur_format(s->policy.protect, t, sizeof(t)));
		sep = ", ";
	}
	if (pp->eligible > 0)
		buf_printf(out, "%s%d that could be preempted %s too few GPUs", sep, pp->eligible,
			   pp->eligible == 1 ? "frees" : "free");
	buf_addstr(out, ".");
}
