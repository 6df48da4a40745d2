/*
 * explain.c - wait reasons and ETAs in words (see explain.h). Core decides
 * and explains as data (core/predict.h, core/reason.h); this file only
 * words it, reason by reason.
 */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/downgrade.h"
#include "core/resv.h"
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
		buf_addstr(out, "never: a dependency of it can never be met");
		break;
	case NEVER_DEP_NEVER:
		buf_addstr(out, "never: a job it waits for never starts");
		break;
	case NEVER_UNSATISFIABLE: {
		const char *d = "";
		for (int i = 0; ex->why && i < ex->why->nitems; i++)
			if (ex->why->items[i].reason == REASON_UNSATISFIABLE)
				d = ex->why->items[i].detail;
		buf_addstr(out, !strcmp(d, "time")
				    ? "never: its time limit is over its queue's maximum"
				: !strcmp(d, "slurm") ? "never as it is: Slurm will not start it"
						      : "never: no node could ever fit it");
		break;
	}
	case NEVER_DEPT_QUOTA:
		buf_addstr(out, "not this month: its department used its GPU-hours");
		break;
	case NEVER_CAPACITY:
		buf_addstr(out, "not until more nodes are up");
		break;
	case NEVER_LIMIT: {
		bool user = !strcmp(ex->job->ext_class, "user_limit");
		buf_printf(out,
			   "unknown: no running job of its %s ends to make room under Slurm's "
			   "limit %s; it starts when that limit or their use changes",
			   user ? "user" : "account", ex->job->ext_reason);
		break;
	}
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

void explain_dep_never(const struct dep_never *d, bool quoted, char *out, size_t size)
{
	char how[48];
	switch (d->state) {
	case JOB_COMPLETED:
		snprintf(how, sizeof(how), "succeeded");
		break;
	case JOB_CANCELLED:
		snprintf(how, sizeof(how), "was cancelled");
		break;
	case JOB_TIMEOUT:
		snprintf(how, sizeof(how), "reached its time limit");
		break;
	default:
		if (d->gone)
			snprintf(how, sizeof(how), "is gone");
		else if (d->exit_status >= 0)
			snprintf(how, sizeof(how), "failed (exit %d)", d->exit_status);
		else
			snprintf(how, sizeof(how), "failed");
	}
	snprintf(out, size,
		 quoted ? "dependency '%lld' %s: %s can never be met"
			: "dependency #%lld %s: %s can never be met",
		 (long long)d->job, how, dep_kind_name(d->kind));
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
	case REASON_USER_LIMIT:
	case REASON_THROTTLE:
		if (it && !strcmp(it->detail, "slurm"))
			break; /* Slurm's own reason is shown beside it */
		if (it)
			buf_printf(out, " (%.0f/%.0f)", it->used, it->limit);
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

/* A number of a quota, rounded so that a limit never looks unmet nor a
 * usage under it: usage rounded up, a limit down, to a tenth unless whole. */
static void quota_num(double v, bool up, struct buf *out)
{
	double r = v * 10;
	double t = up ? (double)(int64_t)(r + 0.999999) : (double)(int64_t)r;
	if ((int64_t)t % 10 == 0)
		buf_printf(out, "%lld", (long long)(t / 10));
	else
		buf_printf(out, "%.1f", t / 10);
}

void explain_over_quota(const struct snapshot *s, const struct job *j, struct buf *out)
{
	int di = policy_dept_index(&s->policy, j->dept);
	if (!j->over_quota || j->ovr.set || di < 0)
		return;
	/* Preemption takes only jobs that can checkpoint: say so rather than
	 * call a job preemptible that never is. */
	buf_printf(out,
		   " Runs over its department's monthly quota as %slowest-tier work: department "
		   "%s used ",
		   j->checkpointable ? "preemptible " : "", j->dept);
	quota_num(s->dstate[di].gpu_hours_month, true, out);
	buf_addstr(out, " of its ");
	quota_num(s->policy.depts[di].gpu_hours_month, false, out);
	buf_addstr(out, " GPU-hours this month, so it goes after every job within its quota and "
			"starts only on GPUs none of them can use");
	if (j->checkpointable)
		buf_addstr(out, "; any of them may preempt it (gq-preempt(7)).");
	else
		buf_addstr(out, "; not --checkpointable, it is never preempted.");
}

/* One blocking reason's numbers, as a sentence with a leading space. */
static void item_detail(const struct explain_set *x, const struct explain *ex,
			const struct reason_item *it, struct buf *out)
{
	const struct job *j = ex->job;
	char t[32];
	switch (it->reason) {
	case REASON_HELD:
		buf_printf(out, " Held by %s", j->held_by[0] ? j->held_by : "?");
		/* Slurm does not say when: no "at -". */
		if (j->held_at > 0)
			buf_printf(out, " at %s", tm(x, j->held_at, t, sizeof(t)));
		if (j->held_reason[0])
			buf_printf(out, ": %s", j->held_reason);
		buf_addstr(out, ".");
		break;
	case REASON_DEPENDENCY: {
		enum dep_kind k = DEP_AFTEROK;
		for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++)
			if (j->deps[d] == it->job) {
				k = dep_kind_of(j, d);
				break;
			}
		if (it->never && strcmp(it->detail, "never")) { /* dead: it waits for nothing */
			buf_printf(out,
				   " Can never start: #%lld %s %s, so its %s can never be met.",
				   (long long)it->job, !strcmp(it->detail, "gone") ? "is" : "ended",
				   it->detail[0] ? it->detail : "?", dep_kind_name(k));
			break;
		}
		buf_printf(out, " Waits for #%lld to %s (%s; it is %s", (long long)it->job,
			   dep_kind_verb(k), dep_kind_name(k),
			   !strcmp(it->detail, "never") ? "never started"
			   : it->detail[0]		? it->detail
							: "?");
		if (it->until && !it->never)
			buf_printf(out, ", expected to end %s", tm(x, it->until, t, sizeof(t)));
		buf_addstr(out, ").");
		break;
	}
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
	case REASON_RESERVATION: {
		const struct reservation *r;
		resv_earliest(x->s, j, x->s->now, &r);
		char a[32], b[32];
		if (!r)
			break;
		if (j->reservation[0])
			buf_printf(out,
				   " It runs in reservation %s, which begins at %s (until %s).",
				   r->name, tm(x, r->start_time, a, sizeof(a)),
				   tm(x, r->end_time, b, sizeof(b)));
		else {
			buf_printf(out, " Reservation %s%s holds every node from %s to %s; ",
				   r->name, r->maint ? " (maintenance)" : "",
				   tm(x, r->start_time, a, sizeof(a)),
				   tm(x, r->end_time, b, sizeof(b)));
			if (j->time_limit > 0)
				buf_printf(out,
					   "started before it, its time limit (%s) would run into "
					   "it.",
					   dur_format(j->time_limit, t, sizeof(t)));
			else
				buf_addstr(out, "without a time limit, it would run into it.");
		}
		break;
	}
	case REASON_QUOTA:
		if (!strcmp(it->detail, "slurm")) {
			buf_printf(out,
				   " Slurm holds it by %s, a limit of account %s whose numbers gq "
				   "does not read.",
				   j->ext_reason, j->dept);
		} else if (!strcmp(it->detail, "dept")) {
			buf_printf(out, " Department %s used ", j->dept);
			quota_num(it->used, true, out);
			buf_addstr(out, " of its ");
			quota_num(it->limit, false, out);
			buf_addstr(out, " GPU-hours this month.");
		} else {
			int used = (int)it->used;
			buf_printf(out,
				   " Queue %s holds %d GPU%s of its limit %d; it needs %d more.",
				   j->queue, used, used == 1 ? "" : "s", (int)it->limit, it->need);
		}
		break;
	case REASON_USER_LIMIT: {
		if (!strcmp(it->detail, "slurm")) {
			buf_printf(out,
				   " Slurm holds it by %s, a limit of user %s whose numbers gq "
				   "does not read.",
				   j->ext_reason, j->user);
			break;
		}
		int used = (int)it->used;
		buf_printf(out, " User %s holds %d GPU%s of the %d one user may hold", j->user,
			   used, used == 1 ? "" : "s", (int)it->limit);
		if (!strcmp(it->detail, "queue"))
			buf_printf(out, " in queue %s", j->queue);
		buf_printf(out, "; it needs %d more.", it->need);
		break;
	}
	case REASON_THROTTLE:
		buf_printf(out,
			   " Array #%lld runs %.0f tasks at once, as many as its throttle (%%%.0f) "
			   "allows; the next starts when one ends.",
			   (long long)it->job, it->used, it->limit);
		break;
	case REASON_UNSATISFIABLE:
		if (!strcmp(it->detail, "time")) {
			char lim[32], most[32];
			buf_printf(out,
				   " Its time limit %s is over queue %s's maximum %s: 'gq update "
				   "--time-limit %s' or another queue.",
				   dur_format(j->time_limit, lim, sizeof(lim)), j->queue,
				   dur_format(it->have, most, sizeof(most)), most);
			break;
		}
		if (!strcmp(it->detail, "slurm")) {
			buf_printf(
			    out,
			    " Slurm will not start it as it is (%s): change the job or its queue.",
			    j->ext_reason);
			break;
		}
		buf_printf(out, " It asks for %d GPU%s; at most %d could ever be given (%s).",
			   it->need, it->need == 1 ? "" : "s", it->have, it->detail);
		break;
	case REASON_MISMATCH:
		buf_printf(out, " %d GPU%s free but only %d match%s.", it->free,
			   it->free == 1 ? " is" : "s are", it->have, it->have == 1 ? "es" : "");
		break;
	case REASON_RESOURCES:
		if (it->detail[0])
			buf_printf(out, " No node it can use has the %s it asks for free.",
				   !strcmp(it->detail, "cpus")	? "CPUs"
				   : !strcmp(it->detail, "mem") ? "memory"
								: "CPUs and memory");
		break;
	case REASON_HEADROOM: {
		int held = (int)it->limit;
		buf_printf(out, " %d GPU%s free but %d %s held back for P0.", it->free,
			   it->free == 1 ? " is" : "s are", held, held == 1 ? "is" : "are");
		break;
	}
	default:
		break;
	}
}

/* "Pending: held; also dependency and priority." then every reason's
 * numbers, in the fixed order (DESIGN §4). */
static void reasons_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct why *w = ex->why;
	/* Each reason once: a queue and a department quota are both quota. */
	enum reason r[REASON_COUNT];
	int n = 0;
	for (int i = 0; i < w->nitems; i++)
		if (!n || r[n - 1] != w->items[i].reason)
			r[n++] = w->items[i].reason;
	buf_printf(out, "Pending: %s", reason_name(w->primary));
	for (int i = 1; i < n; i++)
		buf_printf(out, "%s%s",
			   i == 1	? "; also "
			   : i == n - 1 ? " and "
					: ", ",
			   reason_name(r[i]));
	buf_addstr(out, ".");
	for (int i = 0; i < w->nitems; i++)
		item_detail(x, ex, &w->items[i], out);
}

void explain_downgrade(const struct snapshot *s, const struct zone *reader, const struct job *j,
		       struct buf *out)
{
	char t[32], u[32], d[32];
	int64_t a, b;
	if (downgrade_reminded(s, j, &a, &b))
		buf_printf(out,
			   " P0 reminder sent at %s: unless confirmed by %s (gq confirm %lld), it "
			   "is downgraded to P1.",
			   zone_time(reader, a, s->now, t, sizeof(t)),
			   zone_time(reader, b, s->now, u, sizeof(u)), (long long)j->id);
	else if (downgrade_happened(s, j, &a))
		buf_printf(out, " Downgraded from P0 at %s: not confirmed within %s.",
			   zone_time(reader, a, s->now, t, sizeof(t)),
			   dur_format(s->policy.confirm_within, d, sizeof(d)));
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
 * estimate and the limit the user gave, and knows), with the runs it was
 * taken from (runtime.h): " Expected to run 42m, the mean of alice's last 2
 * runs of 'train' (38m and 45m)." */
static void history_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct job *j = ex->job;
	const struct policy *pol = &x->s->policy;
	if (j->estimate > 0 || j->hist_runtime <= 0)
		return;
	int64_t rt = predict_runtime(pol, j);
	if (rt != j->hist_runtime)
		return; /* cut at its limit: the limit says it */
	char d[32], a[32], b[32];
	buf_printf(out, " Expected to run %s", dur_format(rt, d, sizeof(d)));
	bool two = j->hist_prev > 0;
	dur_format(j->hist_last, a, sizeof(a));
	dur_format(j->hist_prev, b, sizeof(b));
	switch (j->hist_src) {
	case HIST_NAME_LAST2:
		if (two)
			buf_printf(out, ", the mean of %s's last 2 runs of '%s' (%s and %s).",
				   j->user, j->name, b, a);
		else
			buf_printf(out, ", as long as %s's last run of '%s'.", j->user, j->name);
		return;
	case HIST_NAME_P50:
		if (j->hist_n == 2 && two) {
			buf_printf(out, ", the shorter of %s's 2 runs of '%s' (%s and %s).",
				   j->user, j->name, b, a);
			return;
		}
		buf_printf(out, ", the median of %s's %d runs of '%s'", j->user, j->hist_n,
			   j->name);
		if (two)
			buf_printf(out, " (the last 2 took %s and %s)", b, a);
		buf_addstr(out, ".");
		return;
	case HIST_USER_LAST2:
		if (two)
			buf_printf(out, ", the mean of %s's last 2 runs of any name (%s and %s).",
				   j->user, b, a);
		else
			buf_printf(out, ", as long as %s's last run of any name.", j->user);
		return;
	default:
		buf_printf(out, ", from %s's recent runs.", j->user);
	}
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

/* Held by a limit of the backend's own (reason.c's item "slurm"). */
static bool backend_limit(const struct explain *ex)
{
	const struct why *w = ex->why;
	for (int i = 0; i < w->nitems; i++)
		if (!strcmp(w->items[i].detail, "slurm"))
			return true;
	return false;
}

const struct reservation *explain_resv(const struct explain_set *x, const struct explain *ex)
{
	const struct prediction *p = ex->pred;
	if (!p || p->never != NEVER_NO || p->gate != GATE_RESERVATION)
		return NULL;
	for (size_t i = 0; i < x->s->nresv; i++) {
		const struct reservation *c = &x->s->resv[i];
		if (ex->job->reservation[0]
			? !strcmp(c->name, ex->job->reservation) && c->start_time == p->start
			: c->all_nodes && c->end_time == p->start)
			return c;
	}
	return NULL;
}

/* What the reason item says already (the reservation's window): the
 * name only. */
static void resv_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct reservation *r = explain_resv(x, ex);
	if (!r)
		buf_addstr(out, " when a reservation allows it");
	else if (ex->job->reservation[0])
		buf_printf(out, " when its reservation %s begins", r->name);
	else
		buf_printf(out, " when reservation %s ends", r->name);
}

/* The likely start and what sets it, as a sentence with a leading space. */
static void start_text(const struct explain_set *x, const struct explain *ex, struct buf *out)
{
	const struct why *w = ex->why;
	const struct prediction *p = ex->pred;
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
		if (backend_limit(ex))
			buf_addstr(out, " at the earliest: Slurm's limit may let it start when a "
					"running job of its account ends");
		else
			buf_addstr(out, " when its queue has room under its quota");
		break;
	case GATE_USER:
		if (backend_limit(ex))
			buf_addstr(out, " at the earliest: Slurm's limit may let it start when a "
					"running job of its user ends");
		else
			buf_addstr(out, " when its owner has room under the per-user GPU limit");
		break;
	case GATE_PERMIT:
		buf_addstr(out,
			   " when its starvation permit lets it take free GPUs ahead of its turn");
		break;
	case GATE_RESERVATION:
		resv_text(x, ex, out);
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

int64_t explain_prio(const struct explain_set *x, int64_t id)
{
	const struct explain *ex = explain_find(x, id);
	return ex ? ex->job->ext_prio : 0;
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
	reasons_text(x, ex, out);
	/* On a backend that orders the queue itself (Slurm) the order is its
	 * priority, not gq's weight: say that number, never gq's formula. */
	bool backend = x->s->order == ORDER_BACKEND;
	if (w->ahead) {
		buf_printf(out, " %d job%s ahead (", w->ahead, w->ahead == 1 ? "" : "s");
		int shown = w->nahead < 3 ? w->nahead : 3;
		for (int i = 0; i < shown; i++) {
			const struct why_ahead *a = &w->ahead_first[i];
			buf_printf(out, "%s%s #%lld ", i ? ", " : "", tier_name(a->tier),
				   (long long)a->job);
			if (backend)
				buf_printf(out, "priority %lld",
					   (long long)explain_prio(x, a->job));
			else
				buf_printf(out, "weight %.1f", a->weight);
			if (a->claim)
				buf_addstr(out, " with GPUs freed for it");
		}
		if (w->ahead > shown)
			buf_addstr(out, x->utf8 ? ", …" : ", ...");
		buf_addstr(out, ");");
	} else {
		buf_addstr(out, " None ahead;");
	}
	bool own = x->reader_user && !strcmp(x->reader_user, j->user);
	if (backend)
		buf_printf(out, " %s Slurm priority %lld (its factors: sprio -j %lld)",
			   own ? "your" : "its", (long long)j->ext_prio, (long long)j->id);
	else
		buf_printf(out, " %s weight %.1f = %.0f %s (1 + %.1f)", own ? "your" : "its",
			   w->weight, w->base, x->utf8 ? "×" : "x", w->c);
	if (w->rises)
		buf_printf(out, ", rises to %.1f at %s", w->rise_weight,
			   tm(x, w->rise_at, t, sizeof(t)));
	buf_addstr(out, ". Needs ");
	need_text(&j->req, out);
	if (j->req.gpus)
		buf_printf(out, "; %d free.", x->nfree);
	else
		buf_addstr(out, ".");
	explain_downgrade(x->s, x->reader, j, out);
	explain_over_quota(x->s, j, out);
	start_text(x, ex, out);
	if (w->reeval != REEVAL_NOW && w->reeval != REEVAL_NONE) {
		buf_addstr(out, " Looked at again ");
		explain_reeval(x, ex, out);
		buf_addstr(out, ".");
	}
}

/* "starts about 2h10m sooner, at 14:35": the gain rounded down and the
 * start up, to the minute, so that neither says more than the prediction. */
static void gain_text(const struct explain_set *x, const struct hint_item *h, struct buf *out)
{
	char d[32], t[32];
	int64_t at = (h->start + 59) / 60 * 60;
	if (h->gain)
		buf_printf(out, ": starts about %s sooner, at %s\n",
			   dur_format(h->gain / 60 * 60, d, sizeof(d)), tm(x, at, t, sizeof(t)));
	else
		buf_printf(out, ": could start at %s\n", tm(x, at, t, sizeof(t)));
}

void explain_hints(const struct explain_set *x, const struct explain *ex, struct hint_set *out)
{
	hint_job(x->s, &x->ps, ex->why, out);
}

void explain_sooner(const struct explain_set *x, const struct explain *ex,
		    const struct hint_set *hs, struct buf *out)
{
	const struct job *j = ex->job;
	const struct why *w = ex->why;
	char d[32];
	struct hint_set own;
	for (int i = 0; i < w->nitems; i++) {
		if (w->items[i].reason == REASON_DEPENDENCY && w->items[i].never) {
			buf_printf(out,
				   "It can never run: cancel it (gq cancel %lld) and resubmit\n",
				   (long long)j->id);
			return;
		}
	}
	if (!hs) {
		explain_hints(x, ex, &own);
		hs = &own;
	}
	for (int i = 0; i < hs->n; i++) {
		const struct hint_item *h = &hs->items[i];
		switch (h->hint) {
		case HINT_RELEASE:
			buf_printf(out, "Release it (gq release %lld)", (long long)j->id);
			break;
		case HINT_FEWER_GPUS:
			buf_printf(out, "--gpus %lld", (long long)h->value);
			break;
		case HINT_ANY_GPU_TYPE:
			buf_addstr(out, "Without --gpu-type and --gpu-mem");
			break;
		case HINT_GPU_TYPE:
			buf_printf(out, "--gpu-type %s", h->arg);
			break;
		case HINT_SPREAD:
			buf_addstr(out, "Without --same-node");
			break;
		case HINT_SHORTER_ESTIMATE:
			buf_printf(out, "--estimate %s", dur_format(h->value, d, sizeof(d)));
			break;
		case HINT_SHORTER_TIME_LIMIT:
			buf_printf(out, "--time-limit %s", dur_format(h->value, d, sizeof(d)));
			break;
		case HINT_BOUND:
			buf_printf(out,
				   "--estimate %s (with neither an estimate nor a time limit it is "
				   "not started ahead of a job it could delay)",
				   dur_format(h->value, d, sizeof(d)));
			break;
		case HINT_NO_DEPENDENCY:
			buf_addstr(out, "Without its dependency (--after");
			for (int k = 0; k < j->ndeps && k < GQ_MAX_DEPS; k++)
				buf_printf(out, "%s%lld", k ? "," : " ", (long long)j->deps[k]);
			buf_addstr(out, ")");
			break;
		case HINT_QUEUE:
			buf_printf(out, "--queue %s", h->arg);
			break;
		case HINT_PROMOTE:
			buf_printf(
			    out,
			    "Tier P%lld, if the work qualifies (admin: gq prio --reason TEXT "
			    "%lld P%lld)",
			    (long long)h->value, (long long)j->id, (long long)h->value);
			break;
		case HINT_COUNT:
			break;
		}
		gain_text(x, h, out);
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

/* The victims reclaimed (or the others): "#12 (P1, 2 GPUs) and #13 (P1,
 * 2 GPUs)". */
static void victims_text(const struct preempt_plan *pp, bool reclaimed, struct buf *out)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < pp->nvictims; i++)
		n += pp->victims[i].reclaimed == reclaimed;
	for (size_t i = 0; i < pp->nvictims; i++) {
		const struct preempt_victim *v = &pp->victims[i];
		if (v->reclaimed != reclaimed)
			continue;
		buf_printf(out, "%s#%lld (%s, %d GPU%s)",
			   k == 0	? ""
			   : k + 1 == n ? " and "
					: ", ",
			   (long long)v->job, tier_name(v->tier), v->gpus, v->gpus == 1 ? "" : "s");
		k++;
	}
}

/* "train" or "train and prod": the queues of the reclaimed victims. */
static void reclaimed_queues(const struct snapshot *s, const struct preempt_plan *pp,
			     struct buf *out)
{
	const char *seen[8];
	size_t n = 0;
	for (size_t i = 0; i < pp->nvictims && n < 8; i++) {
		const struct job *v =
		    pp->victims[i].reclaimed ? snapshot_find(s, pp->victims[i].job) : NULL;
		bool dup = !v;
		for (size_t k = 0; v && k < n; k++)
			dup = dup || !strcmp(seen[k], v->queue);
		if (!dup)
			seen[n++] = v->queue;
	}
	for (size_t k = 0; k < n; k++)
		buf_printf(out, "%s%s", k == 0 ? "" : k + 1 == n ? " and " : ", ", seen[k]);
}

void explain_preempt_text(const struct explain_set *x, const struct explain *ex,
			  const struct preempt_plan *pp, struct buf *out)
{
	const struct snapshot *s = x->s;
	char t[32];
	if (s->order == ORDER_BACKEND) { /* gq's preemption rules are gq serve's */
		if (ex->why->primary == REASON_RESOURCES)
			buf_addstr(out, "Preemption: Slurm's own, by QOS (which may preempt which: "
					"sacctmgr show qos format=name,preempt); gq does not plan "
					"it on Slurm.");
		return;
	}
	if (ex->why->primary != REASON_RESOURCES && !pp->permit)
		return;
	switch (pp->outcome) {
	case PREEMPT_FOUND:
		if (pp->reclaimed_gpus > 0) {
			int g = pp->reclaimed_gpus;
			buf_printf(out,
				   "Preemption: queue %s is under its quota (%d of %d GPU%s "
				   "used); can reclaim %d GPU%s borrowed by ",
				   ex->job->queue, pp->queue_used, pp->queue_quota,
				   pp->queue_quota == 1 ? "" : "s", g, g == 1 ? "" : "s");
			reclaimed_queues(s, pp, out);
			buf_addstr(out, " from ");
			victims_text(pp, true, out);
			bool others = false;
			for (size_t i = 0; i < pp->nvictims; i++)
				others = others || !pp->victims[i].reclaimed;
			if (others) {
				buf_addstr(out, " and free GPUs from ");
				victims_text(pp, false, out);
			}
		} else {
			buf_addstr(out,
				   pp->permit
				       ? "Preemption: its starvation permit can free GPUs from "
				       : "Preemption: can free GPUs from ");
			victims_text(pp, false, out);
		}
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

void explain_window_stop(const struct window_stop *w, const struct zone *reader, struct buf *out)
{
	char stop[32], t[32], win[16];
	struct zone server;
	zone_fixed(&server, w->tz_offset, NULL);
	zone_time(reader, w->stop, w->now, stop, sizeof(stop));
	buf_printf(out, "Queue %s pauses at %s (window %s %s); ", w->queue, stop,
		   window_format(&w->window, win, sizeof(win)), server.name);
	if (w->start > w->now)
		buf_printf(out, "starting at %s, ",
			   zone_time(reader, w->start, w->now, t, sizeof(t)));
	else
		buf_addstr(out, "starting now, ");
	if (w->expected)
		buf_printf(out,
			   "this job is expected to end at %s: it cannot checkpoint, so it "
			   "would be stopped at %s and requeued",
			   zone_time(reader, w->end, w->now, t, sizeof(t)), stop);
	else if (w->limit_end)
		buf_printf(out,
			   "this job may run until %s (its time limit): it cannot checkpoint, "
			   "so if it still runs at %s it will be stopped and requeued",
			   zone_time(reader, w->limit_end, w->now, t, sizeof(t)), stop);
	else
		buf_printf(out,
			   "this job has no time limit: it cannot checkpoint, so if it "
			   "still runs at %s it will be stopped and requeued",
			   stop);
	buf_printf(out, ", its work lost (queue.%s.windowAction = %s).", w->queue,
		   window_action_name(w->action));
}
