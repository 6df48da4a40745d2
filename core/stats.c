/*
 * stats.c - metrics from events: one pass over the events in seq order,
 * keeping each job's state and the times that matter. See stats.h for the
 * definitions.
 *
 * Overtakes are counted without looking at every pending job at every
 * start: the jobs are laid out sorted by (group, submit time, id) and a
 * Fenwick tree over that layout holds 1 for each job pending now, so "how
 * many jobs of group g submitted before B are pending" is two prefix sums
 * and a binary search.
 */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct track {
	int group;
	size_t pos; /* in the (group, submit, id) layout */
	bool seen, over;
	enum job_state st;
	int64_t pend_since, hold_since, run_start, last_ckpt, signal;
	bool loss_open; /* preempted in the window, loss not yet settled */
};

struct waits {
	int64_t *v;
	size_t n, cap;
};

/* One element of the layout: the sort key and the job it is. */
struct lkey {
	const char *queue;
	enum tier tier;
	int64_t submit, id;
	size_t job;
};

struct ctx {
	const struct snapshot *s;
	int64_t from, to;
	struct track *t;
	struct lkey *layout;
	size_t *gbase; /* group g occupies layout[gbase[g] .. gbase[g + 1]) */
	int *fen;      /* Fenwick tree over the layout, 1-based */
	size_t nlayout, ngroups;
	struct stats_group *g; /* ngroups per-queue groups, then TIER_COUNT totals */
	struct waits *w;       /* same indexing as g */
	size_t ndepts, dcap;
	struct stats_dept *d;
	double gpu_seconds;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_lkey(const void *pa, const void *pb)
{
	const struct lkey *a = pa, *b = pb;
	int c = strcmp(a->queue, b->queue);
	if (c)
		return c;
	if (a->tier != b->tier)
		return (int)a->tier - (int)b->tier;
	c = cmp_i64(a->submit, b->submit);
	return c ? c : cmp_i64(a->id, b->id);
}

static int cmp_wait(const void *pa, const void *pb)
{
	return cmp_i64(*(const int64_t *)pa, *(const int64_t *)pb);
}

int64_t stats_percentile(int64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_wait);
	double r = ceil(p / 100.0 * (double)n);
	size_t k = r < 1 ? 1 : (size_t)r;
	if (k > n)
		k = n;
	return v[k - 1];
}

static void fen_add(struct ctx *c, size_t pos, int d)
{
	for (size_t i = pos + 1; i <= c->nlayout; i += i & -i)
		c->fen[i] += d;
}

/* Sum over layout positions [0, pos). */
static int fen_sum(const struct ctx *c, size_t pos)
{
	int n = 0;
	for (size_t i = pos; i > 0; i -= i & -i)
		n += c->fen[i];
	return n;
}

static void build_groups(struct ctx *c)
{
	const struct snapshot *s = c->s;
	c->nlayout = s->njobs;
	c->layout = xcalloc(s->njobs ? s->njobs : 1, sizeof(*c->layout));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		c->layout[i] = (struct lkey){j->queue, job_tier(j), j->submit_time, j->id, i};
	}
	qsort(c->layout, s->njobs, sizeof(*c->layout), cmp_lkey);
	c->gbase = xcalloc(s->njobs + 1, sizeof(*c->gbase));
	c->t = xcalloc(s->njobs ? s->njobs : 1, sizeof(*c->t));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct lkey *k = &c->layout[i];
		if (!i || strcmp(k->queue, k[-1].queue) || k->tier != k[-1].tier)
			c->gbase[c->ngroups++] = i;
		c->t[k->job].group = (int)c->ngroups - 1;
		c->t[k->job].pos = i;
	}
	c->gbase[c->ngroups] = s->njobs;
	c->fen = xcalloc(s->njobs + 1, sizeof(*c->fen));
	c->g = xcalloc(c->ngroups + TIER_COUNT, sizeof(*c->g));
	c->w = xcalloc(c->ngroups + TIER_COUNT, sizeof(*c->w));
	for (size_t g = 0; g < c->ngroups; g++) {
		STR_COPY(c->g[g].queue, c->layout[c->gbase[g]].queue);
		c->g[g].tier = c->layout[c->gbase[g]].tier;
	}
	for (int t = 0; t < TIER_COUNT; t++) {
		STR_COPY(c->g[c->ngroups + (size_t)t].queue, "*");
		c->g[c->ngroups + (size_t)t].tier = (enum tier)t;
	}
}

/* The group and the tier total of job index ji. */
static struct stats_group *grp(struct ctx *c, size_t ji)
{
	return &c->g[c->t[ji].group];
}

static struct stats_group *total(struct ctx *c, size_t ji)
{
	return &c->g[c->ngroups + (size_t)job_tier(&c->s->jobs[ji])];
}

static void add_wait(struct ctx *c, size_t gi, int64_t w)
{
	struct waits *ws = &c->w[gi];
	GROW(ws->v, ws->cap, ws->n + 1);
	ws->v[ws->n++] = w;
}

static struct stats_dept *dept(struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->ndepts; i++)
		if (!strcmp(c->d[i].dept, name))
			return &c->d[i];
	GROW(c->d, c->dcap, c->ndepts + 1);
	struct stats_dept *d = &c->d[c->ndepts++];
	memset(d, 0, sizeof(*d));
	STR_COPY(d->dept, name);
	return d;
}

/* A pending stretch of job ji ended at time t (or is still open at t == to). */
static void end_wait(struct ctx *c, size_t ji, int64_t t, bool started)
{
	struct track *tr = &c->t[ji];
	const struct job *j = &c->s->jobs[ji];
	fen_add(c, tr->pos, -1);
	if (t < c->from)
		return;
	int64_t w = t - tr->pend_since;
	struct stats_group *gs[2] = {grp(c, ji), total(c, ji)};
	size_t gi[2] = {(size_t)tr->group, c->ngroups + (size_t)job_tier(j)};
	for (int k = 0; k < 2; k++) {
		if (started) {
			gs[k]->starts++;
			gs[k]->wait_sum += w;
			add_wait(c, gi[k], w);
		}
		if (w > gs[k]->longest_wait || (w == gs[k]->longest_wait && gs[k]->longest_job &&
						j->id < gs[k]->longest_job)) {
			gs[k]->longest_wait = w;
			gs[k]->longest_job = j->id;
		}
	}
	if (w > c->s->policy.tier[job_tier(j)].wait_limit && !tr->over) {
		tr->over = true;
		gs[0]->over_limit++;
		gs[1]->over_limit++;
	}
}

/* Job bi starts at t: every pending job it overtakes counts once. */
static void count_overtakes(struct ctx *c, size_t bi)
{
	const struct job *b = &c->s->jobs[bi];
	struct lkey key = {NULL, TIER_P0, b->submit_time, b->id, bi};
	for (size_t g = 0; g < c->ngroups; g++) {
		if (c->g[g].tier > job_tier(b))
			continue;
		/* First position in the group not submitted before b. */
		size_t lo = c->gbase[g], hi = c->gbase[g + 1];
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct lkey *m = &c->layout[mid];
			int cmp = cmp_i64(m->submit, key.submit);
			if (!cmp)
				cmp = cmp_i64(m->id, key.id);
			if (cmp < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		int n = fen_sum(c, lo) - fen_sum(c, c->gbase[g]);
		c->g[g].overtaken += n;
		c->g[c->ngroups + (size_t)c->g[g].tier].overtaken += n;
	}
}

static void add_gpu_time(struct ctx *c, size_t ji, int64_t a, int64_t b)
{
	if (a < c->from)
		a = c->from;
	if (b > c->to)
		b = c->to;
	if (b <= a)
		return;
	const struct job *j = &c->s->jobs[ji];
	double gs = (double)j->req.gpus * (double)(b - a);
	c->gpu_seconds += gs;
	struct stats_dept *d = dept(c, j->dept);
	d->gpu_hours += gs / 3600.0;
	d->charged += gs / 3600.0 * c->s->policy.tier[job_tier(j)].price;
}

static void settle_loss(struct ctx *c, size_t ji)
{
	struct track *tr = &c->t[ji];
	if (!tr->loss_open)
		return;
	tr->loss_open = false;
	int64_t since = tr->last_ckpt > tr->run_start ? tr->last_ckpt : tr->run_start;
	int64_t lost = tr->signal - since;
	if (lost <= 0)
		return;
	double gs = (double)c->s->jobs[ji].req.gpus * (double)lost;
	grp(c, ji)->work_lost += gs;
	total(c, ji)->work_lost += gs;
}

static void enter(struct ctx *c, size_t ji, enum job_state st, int64_t t)
{
	struct track *tr = &c->t[ji];
	if (st == JOB_PENDING) {
		tr->pend_since = t;
		fen_add(c, tr->pos, 1);
	}
	if (job_state_holds_gpus(st))
		tr->hold_since = tr->run_start = t;
	tr->st = st;
}

static void first_sight(struct ctx *c, size_t ji, const struct event *ev)
{
	const struct job *j = &c->s->jobs[ji];
	struct track *tr = &c->t[ji];
	int64_t since = ev->time;
	tr->seen = true;
	if (ev->from == JOB_PENDING && ev->to != JOB_PENDING)
		since = job_waiting_since(j);
	else if (job_state_holds_gpus(ev->from) && j->start_time)
		since = j->start_time;
	enter(c, ji, ev->from, since);
}

static void step(struct ctx *c, const struct event *ev)
{
	const struct job *j = snapshot_find(c->s, ev->job);
	if (!j)
		return;
	size_t ji = (size_t)(j - c->s->jobs);
	struct track *tr = &c->t[ji];
	bool in = ev->time >= c->from;
	if (!tr->seen)
		first_sight(c, ji, ev);
	if (!strcmp(ev->kind, "checkpoint"))
		tr->last_ckpt = ev->time;
	if (!strcmp(ev->kind, "would-preempt") && in) {
		grp(c, ji)->would_preempt++;
		total(c, ji)->would_preempt++;
	}
	enum job_state from = tr->st, to = ev->to;
	if (!strcmp(ev->kind, "gone")) {
		/* gq serve --slurm: it left the cluster's queue, its end unseen.
		 * Its wait or its hold of GPUs ends when that was noticed, and
		 * no final state is counted (the one set here only stops the
		 * tracking). */
		if (from == JOB_PENDING)
			end_wait(c, ji, ev->time, false);
		if (from == JOB_STOPPING)
			settle_loss(c, ji);
		if (job_state_holds_gpus(from))
			add_gpu_time(c, ji, tr->hold_since, ev->time);
		tr->st = JOB_COMPLETED;
		return;
	}
	if (to == from)
		return;
	if (from == JOB_PENDING) {
		bool start = to == JOB_STARTING || to == JOB_RUNNING;
		end_wait(c, ji, ev->time, start);
		if (start && in)
			count_overtakes(c, ji);
	}
	if (from == JOB_STOPPING)
		settle_loss(c, ji);
	if (job_state_holds_gpus(from) && !job_state_holds_gpus(to))
		add_gpu_time(c, ji, tr->hold_since, ev->time);
	/* Cancels, requeues and time limits stop jobs too: only kind
	 * "preempt" is a preemption. */
	if (to == JOB_STOPPING && in && !strcmp(ev->kind, "preempt")) {
		grp(c, ji)->preemptions++;
		total(c, ji)->preemptions++;
		tr->signal = ev->time;
		tr->loss_open = true;
	}
	if (to == JOB_CANCELLED && in) {
		grp(c, ji)->cancelled++;
		total(c, ji)->cancelled++;
	}
	if (job_state_holds_gpus(from) && job_state_holds_gpus(to)) {
		tr->st = to; /* starting -> running -> stopping: one hold, one run */
		return;
	}
	enter(c, ji, to, ev->time);
}

static void finish(struct ctx *c)
{
	for (size_t ji = 0; ji < c->s->njobs; ji++) {
		struct track *tr = &c->t[ji];
		if (!tr->seen)
			continue;
		if (tr->st == JOB_PENDING)
			end_wait(c, ji, c->to, false);
		if (tr->st == JOB_STOPPING)
			settle_loss(c, ji);
		if (job_state_holds_gpus(tr->st))
			add_gpu_time(c, ji, tr->hold_since, c->to);
	}
	for (size_t g = 0; g < c->ngroups + TIER_COUNT; g++) {
		c->g[g].p50_wait = stats_percentile(c->w[g].v, c->w[g].n, 50);
		c->g[g].p95_wait = stats_percentile(c->w[g].v, c->w[g].n, 95);
	}
}

static int cmp_dept(const void *pa, const void *pb)
{
	return strcmp(((const struct stats_dept *)pa)->dept, ((const struct stats_dept *)pb)->dept);
}

int stats_compute(const struct snapshot *s, const struct event *ev, size_t nev, int64_t from,
		  int64_t to, struct stats *out, struct gq_err *e)
{
	if (to <= from)
		return err_set(e, GQ_EINVAL,
			       "empty stats window [%lld, %lld); 'to' must be after 'from'",
			       (long long)from, (long long)to);
	for (size_t i = 1; i < nev; i++)
		if (ev[i].seq <= ev[i - 1].seq)
			return err_set(e, GQ_EINVAL,
				       "event %lld after event %lld; pass events in seq order",
				       (long long)ev[i].seq, (long long)ev[i - 1].seq);
	struct ctx c = {.s = s, .from = from, .to = to};
	build_groups(&c);
	for (size_t i = 0; i < nev && ev[i].time < to; i++)
		if (ev[i].job)
			step(&c, &ev[i]);
	finish(&c);

	memset(out, 0, sizeof(*out));
	out->from = from;
	out->to = to;
	out->ngroups = c.ngroups + TIER_COUNT;
	out->groups = c.g;
	if (c.ndepts)
		qsort(c.d, c.ndepts, sizeof(*c.d), cmp_dept);
	out->ndepts = c.ndepts;
	out->depts = c.d;
	out->gpus = snapshot_gpus_total(s);
	out->gpu_seconds = c.gpu_seconds;
	out->utilisation =
	    out->gpus ? c.gpu_seconds / ((double)out->gpus * (double)(to - from)) : 0;
	for (size_t g = 0; g < c.ngroups + TIER_COUNT; g++)
		free(c.w[g].v);
	free(c.w);
	free(c.t);
	free(c.layout);
	free(c.gbase);
	free(c.fen);
	return 0;
}

void stats_release(struct stats *st)
{
	free(st->groups);
	free(st->depts);
	st->groups = NULL;
	st->depts = NULL;
	st->ngroups = st->ndepts = 0;
}

/* ---- accounting records ---- */

/* Events sort by time, then job, then their place in the job's life. */
static int cmp_event_time(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void acct_event(struct event **ev, size_t *n, size_t *cap, int64_t t, int64_t job,
		       const char *kind, enum job_state from, enum job_state to)
{
	GROW(*ev, *cap, *n + 1);
	struct event *x = &(*ev)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->seq = (int64_t)*n; /* the order within a job until sorted */
	x->time = t;
	x->job = job;
	snprintf(x->kind, sizeof(x->kind), "%s", kind);
	x->from = from;
	x->to = to;
}

/* Records by job id, then submission (a requeued job's runs in order);
 * the rest makes the order total. */
static int cmp_acct(const void *pa, const void *pb)
{
	const struct stats_acct *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (int)a->state - (int)b->state;
}

void stats_acct_events(const struct stats_acct *r, size_t n, struct snapshot *s, struct event **ev,
		       size_t *nev)
{
	struct event *out = NULL;
	size_t k = 0, cap = 0;
	struct stats_acct *c = xcalloc(n ? n : 1, sizeof(*c));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].submit > 0)
			c[m++] = r[i];
	if (m)
		qsort(c, m, sizeof(*c), cmp_acct);
	for (size_t p = 0; p < m; p++) {
		const struct stats_acct *a = &c[p];
		/* A requeued job has a record per run, the later ones submitted
		 * when the one before ended: one job, back to pending between. */
		bool again = p > 0 && c[p - 1].id == a->id;
		bool requeued = p + 1 < m && c[p + 1].id == a->id;
		if (!again) {
			struct job *j = snapshot_add_job(s);
			job_init(j);
			j->id = a->id;
			STR_COPY(j->user, a->user);
			STR_COPY(j->queue, a->queue);
			STR_COPY(j->dept, a->dept);
			j->tier = a->tier;
			j->req.gpus = a->gpus;
			j->submit_time = a->submit;
			acct_event(&out, &k, &cap, a->submit, a->id, "state", JOB_PENDING,
				   JOB_PENDING);
		}
		struct job *j = &s->jobs[s->njobs - 1];
		j->queued_time = a->submit;
		j->start_time = a->start;
		j->end_time = a->end;
		j->state = a->state;
		bool started = a->start > 0 && a->start >= a->submit;
		if (started)
			acct_event(&out, &k, &cap, a->start, a->id, "state", JOB_PENDING,
				   JOB_RUNNING);
		if (!requeued && (job_state_active(a->state) || a->end <= 0))
			continue;
		int64_t end = a->end < a->submit ? a->submit : a->end;
		if (started && end < a->start)
			end = a->start;
		enum job_state from = started ? JOB_RUNNING : JOB_PENDING;
		if (a->preempted && started) {
			acct_event(&out, &k, &cap, end, a->id, "preempt", JOB_RUNNING,
				   JOB_STOPPING);
			from = JOB_STOPPING;
		}
		if (requeued) {
			if (from != JOB_PENDING)
				acct_event(&out, &k, &cap, end, a->id, "state", from, JOB_PENDING);
		} else {
			acct_event(&out, &k, &cap, end, a->id, "state", from, a->state);
		}
	}
	free(c);
	if (k)
		qsort(out, k, sizeof(*out), cmp_event_time);
	for (size_t i = 0; i < k; i++)
		out[i].seq = (int64_t)i + 1;
	snapshot_sort(s);
	*ev = out;
	*nev = k;
}
