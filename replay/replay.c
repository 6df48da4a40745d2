/*
 * replay.c - the replay of replay.h: the event loop over a snapshot of the
 * active jobs, sched_plan() at every event, the predictions at submit, and
 * the figures computed from the replayed jobs afterwards.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calib.h"
#include "core/plan.h"
#include "core/predict.h"
#include "core/sched.h"
#include "core/share.h"
#include "core/stats.h"

/* Trace times are relative to its first submit; the snapshot's are unix
 * seconds where 0 means unset: the replay runs them from here. */
#define T0 INT64_C(1000000000)

const char *replay_predictor_name(enum replay_predictor p)
{
	static const char *const names[PRED_COUNT] = {"history", "limit", "zero"};
	return p < PRED_COUNT ? names[p] : "?";
}

const char *replay_hist_label(int bin)
{
	static const char *const l[REPLAY_HIST_BINS] = {"0",	"<1m", "<10m", "<1h", "<4h",
							"<12h", "<1d", "<3d",  "<1w", ">=1w"};
	return bin >= 0 && bin < REPLAY_HIST_BINS ? l[bin] : "?";
}

static int hist_bin(int64_t w)
{
	static const int64_t up[REPLAY_HIST_BINS - 1] = {
	    1, 60, 600, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400};
	for (int b = 0; b < REPLAY_HIST_BINS - 1; b++)
		if (w < up[b])
			return b;
	return REPLAY_HIST_BINS - 1;
}

void replay_opts_init(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	policy_defaults(&o->policy);
	o->tier = TIER_P1;
	o->accuracy = true;
}

int replay_machine(int units, int *nodes, int *per_node, struct gq_err *e)
{
	if (units < 1 || units > REPLAY_MAX_NODES * GQ_MAX_NODE_GPUS)
		return err_set(
		    e, GQ_EINVAL,
		    "a machine of %d units does not fit %d nodes of %d: give --nodes and "
		    "--gpus-per-node",
		    units, REPLAY_MAX_NODES, GQ_MAX_NODE_GPUS);
	for (int n = 1; n <= REPLAY_MAX_NODES; n++)
		if (units % n == 0 && units / n <= GQ_MAX_NODE_GPUS) {
			*nodes = n;
			*per_node = units / n;
			return 0;
		}
	int n = (units + GQ_MAX_NODE_GPUS - 1) / GQ_MAX_NODE_GPUS;
	*nodes = n;
	*per_node = (units + n - 1) / n;
	return 0;
}

void replay_result_release(struct replay_result *r)
{
	free(r->jobs);
	free(r->groups);
	memset(r, 0, sizeof(*r));
}

/* The replay's own state beside the snapshot, by job index (id - 1). */
struct rstate {
	const struct trace *t;
	const struct replay_opts *o;
	struct replay_result *r;
	struct snapshot s;
	struct rt_hist hist;
	struct calib_window *calib; /* the ranges' calibration, as gq serve's */
	int64_t *rem;		    /* work left, seconds */
	int64_t *run_end;	    /* end of the current run while it holds GPUs */
	int64_t *run_from;	    /* start of the current run */
	int64_t *pre_t;		    /* preemption times (for preempts_hour) */
	int *pre_q;
	size_t npre, precap_t, precap_q;
	int machine;
};

static int cmp_submit(const void *a, const void *b)
{
	const struct replay_job *x = a, *y = b;
	if (x->submit != y->submit)
		return (x->submit > y->submit) - (x->submit < y->submit);
	return (x->trace_idx > y->trace_idx) - (x->trace_idx < y->trace_idx);
}

/* The replayable jobs of the trace, in submit order. */
static void collect(struct rstate *st)
{
	const struct trace *t = st->t;
	struct replay_result *r = st->r;
	r->jobs = xcalloc(t->n ? t->n : 1, sizeof(*r->jobs));
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_job *tj = &t->jobs[i];
		if (tj->start < 0 || tj->end < 0) {
			r->skipped_never++;
			continue;
		}
		if (tj->units > st->machine) {
			r->skipped_too_wide++;
			continue;
		}
		struct replay_job *j = &r->jobs[r->njobs++];
		j->trace_idx = i;
		j->submit = tj->submit;
		j->trace_start = tj->start;
		j->start = j->end = -1;
		j->units = tj->units;
		j->tier = tj->tier >= 0 ? tj->tier : (int)st->o->tier;
		int qi = tj->queue[0] ? policy_queue_index(&st->o->policy, tj->queue) : -1;
		j->qi =
		    qi >= 0 ? qi : policy_queue_index(&st->o->policy, st->o->policy.default_queue);
	}
	qsort(r->jobs, r->njobs, sizeof(*r->jobs), cmp_submit);
}

static void add_job(struct rstate *st, size_t i, int64_t now)
{
	const struct replay_job *rj = &st->r->jobs[i];
	const struct trace_job *tj = &st->t->jobs[rj->trace_idx];
	const struct policy *p = &st->o->policy;
	struct job *j = snapshot_add_job(&st->s);
	job_init(j);
	j->id = (int64_t)i + 1;
	STR_COPY(j->name, tj->name);
	STR_COPY(j->user, tj->user[0] ? tj->user : "unknown");
	int qi = rj->qi >= 0 ? rj->qi : 0;
	STR_COPY(j->queue, p->queues[qi].name);
	STR_COPY(j->dept, p->queues[qi].dept);
	j->tier = (enum tier)rj->tier;
	j->state = JOB_PENDING;
	j->req.gpus = tj->units;
	j->submit_time = j->queued_time = now;
	j->time_limit = tj->limit;
	j->estimate =
	    tj->estimate > 0 && (!tj->limit || tj->estimate <= tj->limit) ? tj->estimate : 0;
	j->checkpointable = tj->checkpointable;
	int64_t rt = tj->end - tj->start;
	if (tj->limit > 0 && rt > tj->limit) {
		rt = tj->limit;
		st->r->capped_at_limit++;
	}
	st->rem[i] = rt;
	rt_hist_fill(&st->hist, j);
	/* Without the accuracy measurement nothing shows a range: no
	 * prediction at submit to record (sched_plan would make one). */
	if (!st->o->accuracy)
		j->pred_start0 = -1;
}

/* What gq would have shown at submit for the jobs with index >= first. */
static void predict_new(struct rstate *st, size_t first, struct prediction_set *ps)
{
	struct snapshot *s = &st->s;
	calib_get(st->calib, &s->calib);
	predict_all(s, ps);
	for (size_t k = 0; k < s->njobs; k++) {
		struct job *j = &s->jobs[k];
		size_t i = (size_t)(j->id - 1);
		if (i < first)
			continue;
		const struct prediction *pr = prediction_find(ps, s, j->id);
		struct replay_job *rj = &st->r->jobs[i];
		rj->predicted = pr && pr->placed;
		/* What gq serve records at submit (sched_plan's preds). */
		j->pred_start0 = rj->predicted ? pr->start : -1;
		if (!rj->predicted)
			continue;
		rj->pred[PRED_HISTORY] = pr->start - T0;
		rj->pred_low = pr->low - T0;
		rj->pred_high = pr->high - T0;
		rj->pred[PRED_ZERO] = rj->submit;
	}
	/* "limit": every runtime is its time limit, as Slurm's estimate has it. */
	struct saved {
		int64_t est, hr;
		double ratio;
	} *sv = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*sv));
	for (size_t k = 0; k < s->njobs; k++) {
		struct job *j = &s->jobs[k];
		sv[k] = (struct saved){j->estimate, j->hist_runtime, j->hist_ratio};
		if (j->time_limit > 0)
			j->estimate = j->hist_runtime = 0, j->hist_ratio = 0;
	}
	predict_all(s, ps);
	for (size_t k = 0; k < s->njobs; k++) {
		struct job *j = &s->jobs[k];
		j->estimate = sv[k].est, j->hist_runtime = sv[k].hr, j->hist_ratio = sv[k].ratio;
		size_t i = (size_t)(j->id - 1);
		if (i < first)
			continue;
		const struct prediction *pr = prediction_find(ps, s, j->id);
		struct replay_job *rj = &st->r->jobs[i];
		if (!pr || !pr->placed)
			rj->predicted = false;
		else
			rj->pred[PRED_LIMIT] = pr->start - T0;
	}
	free(sv);
	st->r->predictions += s->njobs;
}

/* Ends, stop deadlines and checkpoints at now; finished jobs leave the
 * snapshot. Returns whether the history changed. */
static bool advance(struct rstate *st, int64_t now)
{
	struct snapshot *s = &st->s;
	const struct policy *p = &st->o->policy;
	bool changed = false;
	size_t w = 0;
	for (size_t k = 0; k < s->njobs; k++) {
		struct job *j = &s->jobs[k];
		size_t i = (size_t)(j->id - 1);
		struct replay_job *rj = &st->r->jobs[i];
		if (job_state_holds_gpus(j->state) && st->run_end[i] <= now) {
			rj->end = st->run_end[i] - T0;
			j->state = JOB_COMPLETED;
			j->end_time = st->run_end[i];
			rt_hist_add(&st->hist, j);
			job_release(j);
			changed = true;
			continue;
		}
		if (j->state == JOB_STOPPING && j->stop_deadline <= now) {
			int64_t ran = now - st->run_from[i];
			int64_t kept = j->checkpointable && j->last_checkpoint > st->run_from[i]
					   ? j->last_checkpoint - st->run_from[i]
					   : 0;
			rj->lost += (ran - kept) * rj->units;
			st->rem[i] -= kept;
			j->state = JOB_PENDING;
			j->queued_time = now;
			j->restarts++;
			j->not_before = now + p->cooldown;
			job_set_alloc(j, 0, NULL);
			j->start_time = 0;
			j->stop_deadline = 0;
			j->last_checkpoint = 0;
		}
		if (j->checkpointable && job_state_holds_gpus(j->state)) {
			int64_t k2 = (now - st->run_from[i]) / REPLAY_CHECKPOINT_EVERY;
			if (k2 > 0)
				j->last_checkpoint = st->run_from[i] + k2 * REPLAY_CHECKPOINT_EVERY;
		}
		if (w != k)
			s->jobs[w] = *j; /* moved */
		w++;
	}
	s->njobs = w;
	/* Preemptions charged to each queue in the last hour. */
	for (int q = 0; q < GQ_MAX_QUEUES; q++)
		s->qstate[q].preempts_hour = 0;
	size_t keep = 0;
	for (size_t k = 0; k < st->npre; k++) {
		if (st->pre_t[k] <= now - 3600)
			continue;
		st->pre_t[keep] = st->pre_t[k];
		st->pre_q[keep] = st->pre_q[k];
		if (st->pre_q[keep] >= 0 && st->pre_q[keep] < GQ_MAX_QUEUES)
			s->qstate[st->pre_q[keep]].preempts_hour++;
		keep++;
	}
	st->npre = keep;
	return changed;
}

static void apply_plan(struct rstate *st, const struct plan *pl, int64_t now)
{
	struct snapshot *s = &st->s;
	const struct policy *p = &st->o->policy;
	for (size_t a = 0; a < pl->n; a++) {
		const struct plan_action *act = &pl->actions[a];
		struct job *j = snapshot_find(s, act->job);
		if (!j)
			continue;
		size_t i = (size_t)(j->id - 1);
		struct replay_job *rj = &st->r->jobs[i];
		switch (act->kind) {
		case PLAN_START:
			if (j->state != JOB_PENDING)
				break;
			j->state = JOB_RUNNING;
			j->start_time = now;
			j->borrowed = act->borrowed;
			job_set_alloc(j, act->nalloc, act->alloc);
			st->run_from[i] = now;
			st->run_end[i] = now + (st->rem[i] > 0 ? st->rem[i] : 0);
			if (rj->start < 0)
				rj->start = now - T0;
			calib_add_job(st->calib, j);
			break;
		case PLAN_PREEMPT:
			if (act->observe || !job_state_holds_gpus(j->state) ||
			    j->state == JOB_STOPPING)
				break;
			j->state = JOB_STOPPING;
			j->stop_deadline = now + (p->grace > 0 ? p->grace : 1);
			rj->preempted++;
			if (strcmp(act->reason, "window")) {
				GROW(st->pre_t, st->precap_t, st->npre + 1);
				GROW(st->pre_q, st->precap_q, st->npre + 1);
				st->pre_t[st->npre] = now;
				st->pre_q[st->npre++] = policy_queue_index(p, j->queue);
			}
			break;
		case PLAN_REMIND:
			j->reminded_at = now;
			break;
		case PLAN_DOWNGRADE:
			if (act->observe)
				j->confirmed_at = now;
			else
				j->tier = TIER_P1;
			break;
		case PLAN_KIND_COUNT:
			break;
		}
	}
}

/* The earliest event after now: a submit, an end, a stop deadline, the
 * plan's wake; INT64_MAX when nothing is left. */
static int64_t next_event(const struct rstate *st, size_t next, int64_t wake, int64_t now)
{
	int64_t t = INT64_MAX;
	if (next < st->r->njobs)
		t = st->r->jobs[next].submit + T0;
	for (size_t k = 0; k < st->s.njobs; k++) {
		const struct job *j = &st->s.jobs[k];
		size_t i = (size_t)(j->id - 1);
		if (job_state_holds_gpus(j->state) && st->run_end[i] < t)
			t = st->run_end[i];
		if (j->state == JOB_STOPPING && j->stop_deadline < t)
			t = j->stop_deadline;
	}
	if (wake > now && wake < t)
		t = wake;
	return t;
}

/* ---- the figures ---- */

static size_t fen_sum(const size_t *f, size_t i)
{
	size_t v = 0;
	for (; i > 0; i -= i & (~i + 1))
		v += f[i];
	return v;
}

static void fen_add(size_t *f, size_t n, size_t i)
{
	for (; i <= n; i += i & (~i + 1))
		f[i]++;
}

static int cmp_i64p(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* overtaken: how many later submissions (higher index) started strictly
 * before each job, by a Fenwick tree over the ranks of the starts. */
static void overtakes(struct replay_result *r)
{
	size_t n = r->njobs;
	int64_t *st = xmalloc((n ? n : 1) * sizeof(*st));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (r->jobs[i].start >= 0)
			st[m++] = r->jobs[i].start;
	qsort(st, m, sizeof(*st), cmp_i64p);
	size_t *fen = xcalloc(m + 1, sizeof(*fen));
	for (size_t i = n; i-- > 0;) {
		struct replay_job *j = &r->jobs[i];
		if (j->start < 0)
			continue;
		size_t lo = 0, hi = m; /* rank: how many starts are < j->start */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (st[mid] < j->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		j->overtaken = (int)fen_sum(fen, lo);
		/* its own rank: the position of the first start equal to it, + 1 */
		fen_add(fen, m, lo + 1);
	}
	free(fen);
	free(st);
}

static void group_stats(struct replay_result *r, const struct replay_opts *o,
			struct replay_group *g, int tier, int qi)
{
	int64_t *w = xmalloc((r->njobs ? r->njobs : 1) * sizeof(*w));
	size_t n = 0;
	double busy = 0;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct replay_job *j = &r->jobs[i];
		if ((tier >= 0 && j->tier != tier) || (qi >= 0 && j->qi != qi) || j->start < 0)
			continue;
		int64_t wait = j->start - j->submit;
		w[n++] = wait;
		if (wait > o->policy.tier[j->tier].wait_limit)
			g->over_limit++;
		g->overtakes += (size_t)j->overtaken;
		g->preemptions += (size_t)j->preempted;
		g->lost += j->lost;
		if (j->end >= 0)
			busy += (double)j->units * (double)(j->end - j->start) + (double)j->lost;
	}
	g->jobs = n;
	g->max = 0;
	for (size_t i = 0; i < n; i++)
		if (w[i] > g->max)
			g->max = w[i];
	g->p50 = stats_percentile(w, n, 50);
	g->p95 = stats_percentile(w, n, 95);
	double cap = (double)r->nodes * r->gpus_per_node * (double)(r->span > 0 ? r->span : 1);
	g->utilisation = busy / cap;
	free(w);
}

static void groups(struct replay_result *r, const struct replay_opts *o)
{
	r->groups = xcalloc(TIER_COUNT + GQ_MAX_QUEUES + 1, sizeof(*r->groups));
	bool tier_seen[TIER_COUNT] = {0}, q_seen[GQ_MAX_QUEUES] = {0};
	for (size_t i = 0; i < r->njobs; i++) {
		tier_seen[r->jobs[i].tier] = true;
		if (r->jobs[i].qi >= 0 && r->jobs[i].qi < GQ_MAX_QUEUES)
			q_seen[r->jobs[i].qi] = true;
	}
	for (int t = 0; t < TIER_COUNT; t++) {
		if (!tier_seen[t])
			continue;
		struct replay_group *g = &r->groups[r->ngroups++];
		STR_COPY(g->name, tier_name((enum tier)t));
		group_stats(r, o, g, t, -1);
	}
	for (int q = 0; q < o->policy.nqueues && q < GQ_MAX_QUEUES; q++) {
		if (!q_seen[q])
			continue;
		struct replay_group *g = &r->groups[r->ngroups++];
		snprintf(g->name, sizeof(g->name), "queue %s", o->policy.queues[q].name);
		group_stats(r, o, g, -1, q);
	}
	struct replay_group *g = &r->groups[r->ngroups++];
	STR_COPY(g->name, "all");
	group_stats(r, o, g, -1, -1);
	r->utilisation = g->utilisation;
}

static int64_t iabs(int64_t v)
{
	return v < 0 ? -v : v;
}

static void accuracy(struct replay_result *r)
{
	int64_t *err = xmalloc((r->njobs ? r->njobs : 1) * sizeof(*err));
	for (int p = 0; p < PRED_COUNT; p++)
		for (int ref = 0; ref < REF_COUNT; ref++)
			for (int c = 0; c < CLASS_COUNT; c++) {
				struct replay_acc *a = &r->acc[p][ref][c];
				size_t n = 0, in1 = 0, in10 = 0, x2 = 0, inr = 0, lo = 0, hi = 0;
				double sum = 0;
				for (size_t i = 0; i < r->njobs; i++) {
					const struct replay_job *j = &r->jobs[i];
					int64_t actual =
					    ref == REF_REPLAY ? j->start : j->trace_start;
					if (!j->predicted || actual < 0)
						continue;
					int64_t wait = actual - j->submit;
					bool at_once = wait < 60;
					if ((c == CLASS_AT_ONCE && !at_once) ||
					    (c == CLASS_WAITED && at_once))
						continue;
					int64_t pw = j->pred[p] - j->submit;
					int64_t d = iabs(j->pred[p] - actual);
					err[n++] = d;
					sum += (double)d;
					in1 += d <= 60;
					in10 += d <= 600;
					x2 += pw <= 2 * wait && 2 * pw >= wait;
					inr += actual >= j->pred_low && actual <= j->pred_high;
					lo += actual < j->pred_low;
					hi += actual > j->pred_high;
				}
				a->n = n;
				if (!n)
					continue;
				a->mean = sum / (double)n;
				a->within_1m = (double)in1 / (double)n;
				a->within_10m = (double)in10 / (double)n;
				a->within_x2 = (double)x2 / (double)n;
				a->in_range = (double)inr / (double)n;
				a->below = (double)lo / (double)n;
				a->above = (double)hi / (double)n;
				a->median = stats_percentile(err, n, 50);
				a->p90 = stats_percentile(err, n, 90);
			}
	free(err);
}

static void figures(struct replay_result *r, const struct rstate *st)
{
	int64_t first = INT64_MAX, last = 0, tfirst = INT64_MAX, tlast = 0;
	double tbusy = 0;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct replay_job *j = &r->jobs[i];
		const struct trace_job *tj = &st->t->jobs[j->trace_idx];
		first = j->submit < first ? j->submit : first;
		last = j->end > last ? j->end : last;
		tfirst = tj->submit < tfirst ? tj->submit : tfirst;
		tlast = tj->end > tlast ? tj->end : tlast;
		tbusy += (double)tj->units * (double)(tj->end - tj->start);
		if (j->start < 0)
			r->never_started++;
		else
			r->hist[hist_bin(j->start - j->submit)]++;
	}
	r->span = r->njobs ? last - first : 0;
	double units = (double)r->nodes * r->gpus_per_node;
	r->trace_utilisation =
	    r->njobs && tlast > tfirst ? tbusy / (units * (double)(tlast - tfirst)) : 0;
	overtakes(r);
	groups(r, st->o);
	if (st->o->accuracy)
		accuracy(r);
}

int replay_run(const struct trace *t, const struct replay_opts *o, struct replay_result *r,
	       struct gq_err *e)
{
	if (o->nodes < 1 || o->gpus_per_node < 1 || o->nodes > 100000 ||
	    o->gpus_per_node > GQ_MAX_NODE_GPUS)
		return err_set(e, GQ_EINVAL, "no machine: nodes 1.. and GPUs per node 1..%d",
			       GQ_MAX_NODE_GPUS);
	struct rstate st = {.t = t, .o = o, .r = r};
	st.machine = o->nodes * o->gpus_per_node;
	r->nodes = o->nodes;
	r->gpus_per_node = o->gpus_per_node;
	collect(&st);
	size_t n = r->njobs;
	st.rem = xcalloc(n ? n : 1, sizeof(*st.rem));
	st.run_end = xcalloc(n ? n : 1, sizeof(*st.run_end));
	st.run_from = xcalloc(n ? n : 1, sizeof(*st.run_from));
	snapshot_init(&st.s);
	st.s.policy = o->policy;
	for (int k = 0; k < o->nodes; k++) {
		struct node *nd = snapshot_add_node(&st.s);
		snprintf(nd->name, sizeof(nd->name), "n%d", k + 1);
		nd->ngpus = o->gpus_per_node;
		nd->up = true;
	}
	rt_hist_init(&st.hist);
	st.calib = xmalloc(sizeof(*st.calib));
	calib_init(st.calib);
	struct prediction_set ps;
	prediction_set_init(&ps);
	struct plan pl;
	plan_init(&pl);

	size_t next = 0;
	int64_t now = n ? r->jobs[0].submit + T0 : 0, prev = now, wake = 0;
	while (n && now != INT64_MAX) {
		st.s.now = now;
		share_advance(&st.s, prev);
		bool changed = advance(&st, now);
		size_t first = next;
		while (next < n && r->jobs[next].submit + T0 <= now)
			add_job(&st, next++, now);
		if (changed)
			for (size_t k = 0; k < st.s.njobs; k++)
				rt_hist_fill(&st.hist, &st.s.jobs[k]);
		if (o->accuracy && next > first)
			predict_new(&st, first, &ps);
		/* Nothing pending: nothing to start, remind or downgrade, and
		 * preemption only ever makes room for a pending job. */
		bool pending = false;
		for (size_t k = 0; k < st.s.njobs && !pending; k++)
			pending = st.s.jobs[k].state == JOB_PENDING;
		wake = 0;
		if (pending) {
			plan_release(&pl);
			plan_init(&pl);
			sched_plan(&st.s, &pl);
			apply_plan(&st, &pl, now);
			wake = pl.wake;
			r->plans++;
		}
		r->events++;
		if (o->progress && (r->events & 4095) == 0)
			o->progress(o->progress_arg, next, n);
		prev = now;
		now = next_event(&st, next, wake, now);
		if (now == INT64_MAX && st.s.njobs > 0)
			break; /* what is left can never start */
	}
	if (o->progress)
		o->progress(o->progress_arg, n, n);
	plan_release(&pl);
	prediction_set_release(&ps);
	rt_hist_release(&st.hist);
	free(st.calib);
	snapshot_release(&st.s);
	free(st.rem);
	free(st.run_end);
	free(st.run_from);
	free(st.pre_t);
	free(st.pre_q);
	figures(r, &st);
	return 0;
}
