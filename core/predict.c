/*
 * predict.c - the queue-traversal simulation behind ETAs and the plan.
 *
 * State: the free-GPU map (place.h), a heap of running jobs by expected
 * end, a heap of timed events (cooldown and dependency releases, window
 * ends), and the ready jobs in one queue per (tier, aging step) keyed by
 * their static rank (fair share, submit time, id), a sorted run beside a
 * heap (struct rqueue): the order at any time t is tier, then aging step
 * at t (highest first), then rank. A job moves to a higher step when t
 * crosses queued_time + k × interval; per tier the jobs are kept sorted by
 * queued_time with one cursor per step, so moving costs O(log n) per job
 * and step (O(1) when they move in rank order). Entries are invalidated
 * lazily by an epoch per job. The jobs a walk looks past and leaves
 * waiting go to a sorted stack beside their queue (its "front") rather
 * than back into it: the next walk reads them again first. A walk reads a
 * front where it lies and puts back only what changed (front_settle): the
 * jobs that left, and those it took off the queue. Each front entry
 * carries the job's runtime and GPU count, so that once a walk is blocked
 * it counts off the jobs that cannot start (look_past) with no look at
 * their records; a front knows how many of its entries went stale, and
 * only a front with none is read that way.
 *
 * Starvation permits: after each walk, the jobs that earned one start on
 * the GPUs the walk left free (permits()). They wait by group (queue and
 * kind of GPUs), tier and GPU count in queues keyed like the ready ones,
 * so that a pass skips, by counts, every queue whose jobs could not fit,
 * and reads only the first of each of the others.
 *
 * Nothing here allocates per event: every array is sized once from the
 * snapshot, except the queues and fronts, which grow by doubling.
 */
#include "predict.h"

#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "place.h"
#include "preempt.h"

#define MAX_BUCKETS 1024 /* aging steps told apart in the simulation */
#define PERMIT_G 64	 /* permit holders asking for fewer GPUs wait in heaps */

static const char *const never_names[NEVER_COUNT] = {
    [NEVER_NO] = "",
    [NEVER_HELD] = "held",
    [NEVER_DEP_FAILED] = "dependency_failed",
    [NEVER_DEP_NEVER] = "dependency_never",
    [NEVER_UNSATISFIABLE] = "unsatisfiable",
    [NEVER_DEPT_QUOTA] = "dept_quota",
    [NEVER_CAPACITY] = "capacity",
};

const char *predict_never_name(enum predict_never n)
{
	return (unsigned)n < NEVER_COUNT ? never_names[n] : "?";
}

static const char *const gate_names[GATE_COUNT] = {
    [GATE_NOW] = "now",		  [GATE_ENDS] = "ends",	    [GATE_DEPENDENCY] = "dependency",
    [GATE_COOLDOWN] = "cooldown", [GATE_WINDOW] = "window", [GATE_QUOTA] = "quota",
    [GATE_PERMIT] = "permit",
};

const char *predict_gate_name(enum predict_gate g)
{
	return (unsigned)g < GATE_COUNT ? gate_names[g] : "?";
}

/* Runtimes. Everything is capped at MAX_RUNTIME so that no sum of times
 * can overflow, whatever a snapshot holds. */

#define MAX_RUNTIME ((int64_t)100 * 366 * 86400)

static int64_t cap_rt(int64_t rt)
{
	return rt < 1 ? 1 : rt > MAX_RUNTIME ? MAX_RUNTIME : rt;
}

/* time_limit × hist_ratio, the ratio taken as at most 1. */
static int64_t by_ratio(const struct job *j)
{
	double r = j->hist_ratio > 1 ? 1 : j->hist_ratio;
	return (int64_t)((double)cap_rt(j->time_limit) * r + 0.5);
}

int64_t predict_runtime(const struct policy *p, const struct job *j)
{
	int64_t rt;
	if (j->estimate > 0)
		rt = j->estimate;
	else if (j->hist_runtime > 0)
		rt = j->hist_runtime;
	else if (j->time_limit > 0 && j->hist_ratio > 0)
		rt = by_ratio(j);
	else if (j->time_limit > 0)
		rt = j->time_limit;
	else
		rt = p->default_runtime;
	if (j->time_limit > 0 && rt > j->time_limit)
		rt = j->time_limit;
	return cap_rt(rt);
}

int64_t predict_runtime_low(const struct policy *p, const struct job *j)
{
	int64_t mid = predict_runtime(p, j), low = mid;
	if (j->estimate > 0 && j->estimate < low)
		low = j->estimate;
	if (j->hist_runtime > 0 && j->hist_runtime < low)
		low = j->hist_runtime;
	if (j->time_limit > 0 && j->hist_ratio > 0) {
		int64_t r = by_ratio(j);
		if (r > 0 && r < low)
			low = r;
	}
	return cap_rt(low);
}

int64_t predict_runtime_high(const struct policy *p, const struct job *j)
{
	int64_t mid = predict_runtime(p, j);
	return cap_rt(j->time_limit > mid ? j->time_limit : mid);
}

/* Expected end of a job holding GPUs, from a runtime; see predict_end(). */
static int64_t holder_end(const struct job *j, int64_t rt, int64_t now)
{
	int64_t st = j->start_time > 0 && j->start_time < now ? j->start_time : now;
	if (st < now - MAX_RUNTIME)
		st = now - MAX_RUNTIME;
	int64_t e = st + rt;
	if (e <= now && j->time_limit > 0 && st + cap_rt(j->time_limit) > now)
		e = st + cap_rt(j->time_limit);
	if (j->state == JOB_STOPPING && j->stop_deadline > 0 && j->stop_deadline < e)
		e = j->stop_deadline;
	return e < now + 1 ? now + 1 : e;
}

int64_t predict_end(const struct policy *p, const struct job *j, int64_t now)
{
	return holder_end(j, predict_runtime(p, j), now);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int64_t predict_hist_runtime(const int64_t *runtimes, size_t n)
{
	int64_t *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (runtimes[i] > 0)
			v[m++] = runtimes[i];
	int64_t r = 0;
	if (m) {
		qsort(v, m, sizeof(*v), cmp_i64);
		r = v[(m + 1) / 2 - 1];
	}
	free(v);
	return r;
}

double predict_hist_ratio(const int64_t *runtimes, const int64_t *limits, size_t n)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (runtimes[i] <= 0 || limits[i] <= 0)
			continue;
		double r = (double)runtimes[i] / (double)limits[i];
		v[m++] = r > 1 ? 1 : r;
	}
	double r = 0;
	if (m) {
		qsort(v, m, sizeof(*v), cmp_dbl);
		r = v[(m + 1) / 2 - 1];
	}
	free(v);
	return r;
}

/* History: finished runs grouped by user and name. */

struct hrun {
	const char *user, *name; /* borrowed from the snapshot */
	int64_t runtime, limit;
};

static int cmp_hrun_name(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int c = strcmp(x->user, y->user);
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = (x->runtime > y->runtime) - (x->runtime < y->runtime);
	return c;
}

static int cmp_ratio(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int c = strcmp(x->user, y->user);
	if (c)
		return c;
	/* runtime / limit compared without division */
	double l = (double)x->runtime * (double)y->limit, r = (double)y->runtime * (double)x->limit;
	return (l > r) - (l < r);
}

/* The first run of [lo, hi) matching user (and name when byname), by
 * binary search; *n gets how many match. */
static size_t group(const struct hrun *v, size_t count, const char *user, const char *name,
		    bool byname, size_t *n)
{
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].user, user);
		if (!c && byname)
			c = strcmp(v[mid].name, name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < count && !strcmp(v[end].user, user) && (!byname || !strcmp(v[end].name, name)))
		end++;
	*n = end - lo;
	return lo;
}

void predict_fill_history(struct snapshot *s)
{
	size_t n = 0, nl = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state == JOB_COMPLETED && j->start_time > 0 && j->end_time > j->start_time)
			n++;
	}
	struct hrun *byname = xmalloc((n ? n : 1) * sizeof(*byname));
	struct hrun *bylimit = xmalloc((n ? n : 1) * sizeof(*bylimit));
	n = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_COMPLETED || j->start_time <= 0 || j->end_time <= j->start_time)
			continue;
		struct hrun h = {j->user, j->name, j->end_time - j->start_time, j->time_limit};
		byname[n++] = h;
		if (j->time_limit > 0)
			bylimit[nl++] = h;
	}
	qsort(byname, n, sizeof(*byname), cmp_hrun_name);
	qsort(bylimit, nl, sizeof(*bylimit), cmp_ratio);
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (!job_state_active(j->state))
			continue;
		size_t m, at = group(byname, n, j->user, j->name, true, &m);
		j->hist_runtime = m ? byname[at + (m + 1) / 2 - 1].runtime : 0;
		at = group(bylimit, nl, j->user, NULL, false, &m);
		if (m) {
			const struct hrun *h = &bylimit[at + (m + 1) / 2 - 1];
			double r = (double)h->runtime / (double)h->limit;
			j->hist_ratio = r > 1 ? 1 : r;
		} else {
			j->hist_ratio = 0;
		}
	}
	free(byname);
	free(bylimit);
}

/* Heaps. */

struct rentry { /* a ready or parked job */
	uint64_t key;
	uint32_t p, epoch;
};

struct rheap {
	struct rentry *v;
	size_t n, cap;
};

/* A 4-ary heap: half the depth of a binary one, and the four children of
 * a node share a cache line, which is what a large heap is bound by. */
#define RD 4

static void rheap_push(struct rheap *h, uint64_t key, uint32_t p, uint32_t epoch)
{
	GROW(h->v, h->cap, h->n + 1);
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / RD;
		if (h->v[up].key <= key)
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = (struct rentry){key, p, epoch};
}

static struct rentry rheap_pop(struct rheap *h)
{
	struct rentry top = h->v[0], last = h->v[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t c = RD * i + 1;
		if (c >= n)
			break;
		size_t best = c, end = c + RD < n ? c + RD : n;
		for (size_t k = c + 1; k < end; k++)
			if (h->v[k].key < h->v[best].key)
				best = k;
		if (last.key <= h->v[best].key)
			break;
		h->v[i] = h->v[best];
		i = best;
	}
	if (n)
		h->v[i] = last;
	return top;
}

/*
 * The ready jobs of one (tier, aging step): a run of entries pushed in
 * ascending key order, taken from its head, beside a heap for the others.
 * Jobs become ready, and age, mostly in rank order (all the jobs of a
 * tier queued at one time age together), so most pushes and pops cost
 * O(1) instead of a heap's O(log n). Entries of equal key are the same
 * job, of which at most one entry is current: their order does not
 * matter.
 */
struct rqueue {
	struct rheap heap;
	struct rentry *run;
	size_t head, n, cap; /* run[head..n) */
};

static size_t rq_size(const struct rqueue *q)
{
	return q->heap.n + (q->n - q->head);
}

/* The smallest key; q must not be empty. */
static uint64_t rq_first(const struct rqueue *q)
{
	if (q->head == q->n)
		return q->heap.v[0].key;
	if (!q->heap.n)
		return q->run[q->head].key;
	return q->run[q->head].key < q->heap.v[0].key ? q->run[q->head].key : q->heap.v[0].key;
}

static void rq_push(struct rqueue *q, uint64_t key, uint32_t p, uint32_t epoch)
{
	if (q->head == q->n)
		q->head = q->n = 0;
	if (q->n && key < q->run[q->n - 1].key) {
		rheap_push(&q->heap, key, p, epoch);
		return;
	}
	if (q->n == q->cap && q->head > 0) {
		memmove(q->run, q->run + q->head, (q->n - q->head) * sizeof(*q->run));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap)
		GROW(q->run, q->cap, q->n + 1);
	q->run[q->n++] = (struct rentry){key, p, epoch};
}

/* The entry of smallest key, left in place; q must not be empty. */
static const struct rentry *rq_peek(const struct rqueue *q)
{
	if (q->head < q->n && (!q->heap.n || q->run[q->head].key <= q->heap.v[0].key))
		return &q->run[q->head];
	return &q->heap.v[0];
}

/* Takes the entry of smallest key; q must not be empty. */
static struct rentry rq_pop(struct rqueue *q)
{
	if (q->head < q->n && (!q->heap.n || q->run[q->head].key <= q->heap.v[0].key))
		return q->run[q->head++];
	return rheap_pop(&q->heap);
}

struct tentry { /* a timed event: an end (kind 0), a release (1), a window end (2) */
	int64_t t;
	uint32_t kind, arg;
};

struct theap {
	struct tentry *v;
	size_t n, cap;
};

static bool tless(const struct tentry *a, const struct tentry *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->arg < b->arg;
}

static void theap_push(struct theap *h, int64_t t, uint32_t kind, uint32_t arg)
{
	GROW(h->v, h->cap, h->n + 1);
	struct tentry e = {t, kind, arg};
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!tless(&e, &h->v[up]))
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = e;
}

static struct tentry theap_pop(struct theap *h)
{
	struct tentry top = h->v[0], last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && tless(&h->v[c + 1], &h->v[c]))
			c++;
		if (!tless(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

/* The simulation. */

/* An entry of a front (see struct sim), with what a walk needs to look
 * past the job without reading its record. */
struct fentry {
	uint64_t key;
	uint32_t p, epoch;
	int64_t rt;
	int gpus;
	bool special;
	uint8_t tier;
};

struct front {
	struct fentry *v;
	size_t n, cap;
	size_t stale; /* entries of jobs that have moved on (see migrate) */
};

enum { EV_END, EV_RELEASE, EV_WINDOW };
enum { ST_GATED, ST_READY, ST_PARK_WINDOW, ST_PARK_QUOTA, ST_STARTED, ST_NEVER };

struct pj { /* a pending job in the simulation; index = position - 1 */
	/* First what a walk reads of every job it looks at, in one cache
	 * line: a walk looks past dozens of jobs at every event. */
	uint32_t epoch;
	uint8_t status;
	bool unconstrained; /* any GPU model and memory */
	bool windowed;	    /* its queue has a window: only place_check_req knows if it is paused */
	bool has_deps;	    /* waits (or waited) for other jobs */
	bool special;	    /* windowed, or its queue has a limit: a walk may park it */
	bool in_front;	    /* its current entry is on its front */
	int bucket, gpus, qi, qlim; /* qlim: its queue's quota + borrowing limit, -1 none */
	int64_t rt;
	uint32_t jidx, rank;
	int tier, di, deps_left;
	int64_t q; /* aging reference: queued_time, INT64_MAX/4 when unset */
	int64_t rt_low, rt_high;
	int64_t release_at; /* earliest start allowed by cooldown */
	int64_t gate_t, gate_low, gate_high;
	enum predict_gate gate;
	int64_t gate_job; /* the job whose end released it (dependency, quota), 0 none */
	enum predict_never never;
	struct job_res req; /* a copy: the walk should not touch the large job records */
};

/* What the events need of a snapshot job, in one place: an end touches
 * one small record instead of the large job and several arrays. */
struct jinfo {
	int64_t id;
	int64_t end_low, end_high;     /* expected end range while it holds GPUs */
	const struct job_alloc *alloc; /* into the pool */
	int nalloc, held, qi;	       /* allocation entries, GPUs held, policy queue */
	uint32_t dep_begin, dep_end;   /* its dependents: dep_list[dep_begin..dep_end) */
};

struct hcand { /* a permit holder looked at one by one, with its place at t */
	uint64_t key;
	uint32_t p;
	int tier;
};

#define PERMIT_GROUPS 32

/* Permit holders of one queue asking for GPUs of one type, memory and
 * placement: whether free GPUs could take one of them is decided for the
 * whole heap of a GPU count at once, by counts (place_could_fit, the
 * queue's limit and window). mask: per tier, the GPU counts whose heap is
 * not empty. */
struct pgroup {
	struct job_res req; /* gpus unused */
	int qi;
	bool counted; /* cm is known: the counts can tell */
	uint64_t cm;  /* place_class_mask of req */
	int have;     /* in one permit round: GPUs of its kind free (on one node), -1 unknown */
	struct rqueue h[TIER_COUNT][PERMIT_G];
	uint64_t mask[TIER_COUNT];
};

struct sim {
	const struct snapshot *s;
	const struct policy *p;
	int64_t now;
	struct place_map m;
	size_t np;
	struct pj *pj;
	struct prediction *out; /* np items */
	struct job_alloc *pool; /* the set's allocs: sized so that it never moves */
	size_t npool, cap_pool;
	int64_t min_rt;		/* shortest expected runtime of any pending job */
	int64_t backfill_until; /* tmin of the walk at now */
	int32_t *of_job;
	/* per snapshot job: expected end range and the allocation it holds */
	struct jinfo *ji;
	/* per GPU: the job that released it last and when (t 0: free since now) */
	size_t *goff;
	uint32_t *rel_job;
	int64_t *rel_t;
	/* dependents: CSR over snapshot jobs */
	size_t *dep_off;
	uint32_t *dep_list;
	struct theap ends, events;
	size_t nrelease;      /* EV_RELEASE events in events */
	int64_t busy_t;	      /* the last time a job started, ended, aged or was released */
	int steps;	      /* aging buckets - 1 */
	struct rqueue *ready; /* [tier][bucket] */
	/* [tier][bucket]: entries looked past and put back by walks, in
	 * descending rank (the smallest on top, at the end); every one ranks
	 * at or before the entries its walk did not reach */
	struct front *front;
	size_t nready_zero;	  /* ready jobs asking for no GPU */
	size_t *by_q[TIER_COUNT]; /* pending indices per tier sorted by q */
	size_t nby_q[TIER_COUNT];
	size_t *cursor; /* [tier][bucket] */
	struct rheap park_quota[GQ_MAX_QUEUES];
	uint32_t *park_win[GQ_MAX_QUEUES];
	size_t npark_win[GQ_MAX_QUEUES], cap_park_win[GQ_MAX_QUEUES];
	int64_t win_event[GQ_MAX_QUEUES];
	uint32_t *putback;
	size_t nputback, cap_putback;
	struct fentry *settle; /* scratch for front_settle */
	size_t cap_settle;
	size_t *aux; /* scratch for the ordered walk of the end heap */
	size_t cap_aux;
	/* Starvation permits: the jobs that may ever start, by earn time
	 * (by_earn, the first nearned of them earned by the last event),
	 * and those of them that earned it and have not started yet
	 * (the holders). A holder that may start, asks for fewer than
	 * PERMIT_G GPUs and is at its last aging step (its place in the
	 * order no longer moves) waits in a heap by (step, rank): one per
	 * tier and GPU count in its group (struct pgroup: the holders of one
	 * queue asking for the same kind of GPUs); the others, and those of
	 * groups beyond PERMIT_GROUPS, in the list `lin`, looked at one by
	 * one. group_of: per position, its group, -1 none yet. */
	int64_t *earn; /* per position: when its permit is earned (permit_has()) */
	uint32_t *by_earn;
	size_t nby_earn, nearned;
	bool earn_sorted;
	struct pgroup *groups;
	size_t ngroups, cap_groups;
	int32_t *group_of;
	/* A holder in a heap below its last aging step is pushed again with
	 * its new key when it ages (young: by that time); hepoch[p] tells its
	 * current entry from older ones. */
	uint32_t *hepoch;
	struct rheap young;
	int8_t max_gpus[TIER_COUNT][PERMIT_G]; /* see holder_max_gpus */
	uint32_t *lin, *failed;
	struct hcand *cand;
	size_t nlin;
	bool zero_holder; /* some holder asks for no GPU */
};

static struct rqueue *ready_heap(struct sim *S, int tier, int b)
{
	return &S->ready[tier * (S->steps + 1) + b];
}

static struct front *ready_front(struct sim *S, int tier, int b)
{
	return &S->front[tier * (S->steps + 1) + b];
}

static int bucket_at(const struct sim *S, const struct pj *x, int64_t t)
{
	if (t <= x->q)
		return 0;
	int64_t k = order_aging_k(S->p, t - x->q);
	return k > S->steps ? S->steps : (int)k;
}

static void make_ready(struct sim *S, uint32_t p, int64_t t)
{
	struct pj *x = &S->pj[p];
	x->status = ST_READY;
	x->bucket = bucket_at(S, x, t);
	x->epoch++;
	if (x->gpus <= 0)
		S->nready_zero++;
	rq_push(ready_heap(S, x->tier, x->bucket), x->rank, p, x->epoch);
}

static void leave_ready(struct sim *S, struct pj *x, uint8_t status)
{
	if (x->gpus <= 0)
		S->nready_zero--;
	x->status = status;
}

/* Raises the gate of x to time t for reason g, with a range. */
static void gate_raise(struct pj *x, int64_t t, int64_t lo, int64_t hi, enum predict_gate g,
		       int64_t job)
{
	if (t >= x->gate_t) {
		x->gate_t = t;
		x->gate = g;
		x->gate_job = job;
	}
	if (lo > x->gate_low)
		x->gate_low = lo;
	if (hi > x->gate_high)
		x->gate_high = hi;
}

/* Moves ready jobs to higher aging steps as t passes their boundaries. */
static void migrate(struct sim *S, int64_t t)
{
	int64_t iv = S->p->aging_interval;
	for (int tier = 0; tier < TIER_COUNT; tier++) {
		for (int k = S->steps; k >= 1; k--) {
			size_t *c = &S->cursor[tier * (S->steps + 1) + k];
			int64_t lim = t - (int64_t)k * iv;
			while (*c < S->nby_q[tier]) {
				uint32_t p = (uint32_t)S->by_q[tier][*c];
				struct pj *x = &S->pj[p];
				if (x->q > lim)
					break;
				(*c)++;
				if (x->status != ST_READY || x->bucket >= k)
					continue;
				if (x->in_front) {
					/* Its entry there is stale now. */
					ready_front(S, tier, x->bucket)->stale++;
					x->in_front = false;
				}
				x->bucket = k;
				x->epoch++;
				S->busy_t = t;
				rq_push(ready_heap(S, tier, k), x->rank, p, x->epoch);
			}
		}
	}
}

static int64_t next_time(const struct sim *S)
{
	int64_t t = INT64_MAX;
	if (S->ends.n)
		t = S->ends.v[0].t;
	if (S->events.n && S->events.v[0].t < t)
		t = S->events.v[0].t;
	return t;
}

/* GPUs of snapshot job jidx's allocation that a request could use. */
static int matching_held(const struct sim *S, uint32_t jidx, const struct job_res *req,
			 bool unconstrained)
{
	if (unconstrained)
		return S->ji[jidx].held;
	int n = 0;
	for (int a = 0; a < S->ji[jidx].nalloc; a++) {
		const struct job_alloc *al = &S->ji[jidx].alloc[a];
		if ((size_t)al->node < S->s->nnodes &&
		    place_node_matches(&S->s->nodes[al->node], req))
			n += __builtin_popcountll(al->mask & S->m.upmask[al->node]);
	}
	return n;
}

/*
 * A lower bound of the time at which blocked job x could start: walk the
 * running jobs in end order, adding the GPUs they free, until the counts
 * (matching GPUs, and for P1/P2 the headroom) would allow it. Never before
 * the next end: nothing frees GPUs until then. have: the free GPUs that
 * match x's request; reserve: the headroom held back from it.
 */
static int64_t shadow(struct sim *S, const struct pj *x, int have, int reserve)
{
	const struct job_res *req = &x->req;
	int total = S->m.nfree;
	int need_total = x->gpus + reserve;
	if (!S->ends.n)
		return INT64_MAX;
	int64_t first = S->ends.v[0].t;
	if (have >= x->gpus && total >= need_total)
		return first;
	/* Best-first walk of the heap array: aux is a min-heap of positions. */
	size_t na = 0;
	GROW(S->aux, S->cap_aux, 1);
	S->aux[na++] = 0;
	const struct theap *h = &S->ends;
	while (na) {
		size_t pos = S->aux[0];
		size_t last = S->aux[--na], i = 0;
		for (;;) {
			size_t c = 2 * i + 1;
			if (c >= na)
				break;
			if (c + 1 < na && tless(&h->v[S->aux[c + 1]], &h->v[S->aux[c]]))
				c++;
			if (!tless(&h->v[S->aux[c]], &h->v[last]))
				break;
			S->aux[i] = S->aux[c];
			i = c;
		}
		if (na)
			S->aux[i] = last;
		const struct tentry *e = &h->v[pos];
		have += matching_held(S, e->arg, req, x->unconstrained);
		total += S->ji[e->arg].held;
		if (have >= x->gpus && total >= need_total)
			return e->t;
		for (size_t c = 2 * pos + 1; c <= 2 * pos + 2 && c < h->n; c++) {
			GROW(S->aux, S->cap_aux, na + 1);
			size_t k = na++;
			while (k > 0) {
				size_t up = (k - 1) / 2;
				if (!tless(&h->v[c], &h->v[S->aux[up]]))
					break;
				S->aux[k] = S->aux[up];
				k = up;
			}
			S->aux[k] = c;
		}
	}
	return INT64_MAX;
}

/* The jobs one start waits for, each once: GPUs of the same job come in
 * runs, so the last id is checked first. */
struct wait_ids {
	int n;
	int64_t v[GQ_MAX_ALLOC * GQ_MAX_NODE_GPUS + GQ_MAX_DEPS + 1];
};

static void add_wait(struct wait_ids *w, int64_t id)
{
	if (w->n && w->v[w->n - 1] == id)
		return;
	for (int i = 0; i < w->n; i++)
		if (w->v[i] == id)
			return;
	if (w->n < (int)(sizeof(w->v) / sizeof(w->v[0])))
		w->v[w->n++] = id;
}

/* Keeps the lowest PREDICT_MAX_WAITS ids in order (so that the cut is
 * deterministic) and counts them all. */
static void set_waits(struct prediction *o, struct wait_ids *w)
{
	o->nwaits_all = w->n;
	o->nwaits = 0;
	for (int i = 0; i < w->n; i++) {
		int64_t v = w->v[i];
		int k = o->nwaits < PREDICT_MAX_WAITS ? o->nwaits++ : PREDICT_MAX_WAITS;
		if (k == PREDICT_MAX_WAITS && v > o->waits[k - 1])
			continue;
		if (k == PREDICT_MAX_WAITS)
			k--;
		for (; k > 0 && o->waits[k - 1] > v; k--)
			o->waits[k] = o->waits[k - 1];
		o->waits[k] = v;
	}
}

static void start_job(struct sim *S, uint32_t p, int64_t t, const struct place_result *r,
		      bool backfilled)
{
	struct pj *x = &S->pj[p];
	struct prediction *o = &S->out[p];
	const struct snapshot *s = S->s;
	leave_ready(S, x, ST_STARTED);
	place_take(&S->m, x->qi, &x->req, r->nalloc, r->alloc);
	S->busy_t = t;
	o->placed = true;
	o->start = t;
	o->runtime = x->rt;
	o->end = t + x->rt;
	o->backfilled = backfilled;
	o->borrowed = r->borrowed;
	o->nalloc = r->nalloc;
	if (r->nalloc) {
		if (S->npool + (size_t)r->nalloc > S->cap_pool)
			BUG("predict: allocation pool overflow");
		o->alloc = &S->pool[S->npool];
		memcpy(&S->pool[S->npool], r->alloc, (size_t)r->nalloc * sizeof(*r->alloc));
		S->npool += (size_t)r->nalloc;
	}
	int64_t lo = x->gate_low, hi = x->gate_high, last_rel = 0;
	struct wait_ids w;
	w.n = 0;
	for (int a = 0; a < r->nalloc; a++) {
		size_t base = S->goff[r->alloc[a].node];
		uint64_t mask = r->alloc[a].mask;
		while (mask) {
			int g = __builtin_ctzll(mask);
			mask &= mask - 1;
			size_t gi = base + (size_t)g;
			if (S->rel_t[gi] <= S->now)
				continue;
			uint32_t rj = S->rel_job[gi];
			add_wait(&w, S->ji[rj].id);
			if (S->ji[rj].end_low > lo)
				lo = S->ji[rj].end_low;
			if (S->ji[rj].end_high > hi)
				hi = S->ji[rj].end_high;
			if (S->rel_t[gi] > last_rel)
				last_rel = S->rel_t[gi];
		}
	}
	const struct job *j = &s->jobs[x->jidx];
	for (int d = 0; x->has_deps && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj = snapshot_find(s, j->deps[d]);
		if (dj && dj->state != JOB_COMPLETED)
			add_wait(&w, dj->id);
	}
	if (x->gate == GATE_QUOTA && x->gate_job)
		add_wait(&w, x->gate_job);
	set_waits(o, &w);
	if (t == S->now)
		o->gate = GATE_NOW;
	else if (x->gate_t >= last_rel && x->gate_t > S->now)
		o->gate = x->gate;
	else
		o->gate = GATE_ENDS;
	if (lo < S->now)
		lo = S->now;
	o->low = lo < t ? lo : t;
	o->high = hi > t ? hi : t;
	S->ji[x->jidx].end_low = o->low + x->rt_low;
	S->ji[x->jidx].end_high = o->high + x->rt_high;
	S->ji[x->jidx].alloc = o->alloc;
	S->ji[x->jidx].nalloc = o->nalloc;
	S->ji[x->jidx].held = r->need;
	theap_push(&S->ends, o->end, EV_END, x->jidx);
}

static void park_window(struct sim *S, uint32_t p, const struct place_result *r)
{
	struct pj *x = &S->pj[p];
	int qi = x->qi;
	leave_ready(S, x, ST_PARK_WINDOW);
	GROW(S->park_win[qi], S->cap_park_win[qi], S->npark_win[qi] + 1);
	S->park_win[qi][S->npark_win[qi]++] = p;
	if (!S->win_event[qi]) {
		S->win_event[qi] = r->window_end;
		theap_push(&S->events, r->window_end, EV_WINDOW, (uint32_t)qi);
	}
}

static void park_quota(struct sim *S, uint32_t p)
{
	struct pj *x = &S->pj[p];
	leave_ready(S, x, ST_PARK_QUOTA);
	rheap_push(&S->park_quota[x->qi], (uint64_t)x->tier << 32 | x->rank, p, x->epoch);
}

static inline void putback_push(struct sim *S, uint32_t p)
{
	if (S->nputback == S->cap_putback)
		GROW(S->putback, S->cap_putback, S->nputback + 1);
	S->putback[S->nputback++] = p;
}

/* What a walk knows as it goes. */
struct walk_state {
	int64_t t;
	bool blocked; /* a job looked at could not start */
	int64_t tmin; /* once blocked: a job behind starts only if it ends by then */
	int64_t next; /* next_time(S), which only a start or a window parking changes */
	int examined; /* blocked jobs looked past */
	bool qparked[GQ_MAX_QUEUES];
};

enum look {
	LOOK_KEEP, /* stays ready, where it was */
	LOOK_LEFT, /* started or parked */
	LOOK_STOP, /* stays ready, and nothing more can start now */
};

/* Looks at ready job p (current entry) at w->t: starts it, parks it or
 * leaves it waiting, updating the walk's state. */
static enum look look_at(struct sim *S, struct walk_state *w, uint32_t p)
{
	const struct snapshot *s = S->s;
	struct pj *x = &S->pj[p];
	int64_t t = w->t;
	if (w->blocked && t + x->rt > w->tmin) {
		/* Would outlast a reservation whether it fits or not: it
		 * cannot start before the next event, which bounds tmin. */
		if (w->next < w->tmin)
			w->tmin = w->next;
		if (++w->examined >= PREDICT_BACKFILL_DEPTH || t + S->min_rt > w->tmin)
			return LOOK_STOP;
		return LOOK_KEEP;
	}
	if (x->qi >= 0 && w->qparked[x->qi]) {
		park_quota(S, p);
		return LOOK_LEFT;
	}
	/* Most jobs a walk looks at ask for more GPUs than are free, or
	 * would leave less than the headroom. Unless its queue may be paused
	 * or at its limit (which park it instead), such a job is blocked
	 * whatever else holds: the full check, whose result is large, is for
	 * the others. */
	struct place_result r;
	unsigned blocks = 0;
	int have = -1, reserve = 0;
	if (!x->windowed && (x->qlim < 0 || S->m.queue_used[x->qi] + x->gpus <= x->qlim)) {
		if (x->gpus > S->m.nfree)
			blocks = PLACE_BIT(PLACE_RESOURCES);
		else if (x->gpus > 0 &&
			 S->m.nfree - x->gpus < place_reserve(&S->m, (enum tier)x->tier, x->gpus))
			blocks = PLACE_BIT(PLACE_HEADROOM);
	}
	if (!blocks) {
		place_check_req(&S->m, s, &x->req, (enum tier)x->tier, x->qi, x->di, t, &r);
		if (r.blocks & PLACE_BIT(PLACE_WINDOW)) {
			park_window(S, p, &r);
			w->next = next_time(S);
			return LOOK_LEFT;
		}
		if (r.quota_queue) {
			/* Inside a queue at its limit, jobs start in order:
			 * the rest of the queue waits too. */
			w->qparked[x->qi] = true;
			park_quota(S, p);
			return LOOK_LEFT;
		}
		blocks = r.blocks;
		have = r.match_free;
		reserve = r.reserve;
	}
	if (!blocks && (!w->blocked || t + x->rt <= w->tmin)) {
		start_job(S, p, t, &r, w->blocked);
		w->next = next_time(S);
		return LOOK_LEFT;
	}
	if (!blocks) {
		/* Fits, but would outlast a reservation: it cannot start
		 * before the next event. */
		if (w->next < w->tmin)
			w->tmin = w->next;
	} else {
		int64_t nt = S->ends.n ? S->ends.v[0].t : INT64_MAX;
		if (w->tmin > nt) {
			if (have < 0) {
				have = x->unconstrained ? S->m.nfree
							: place_match_free(&S->m, s, &x->req);
				reserve = place_reserve(&S->m, (enum tier)x->tier, x->gpus);
			}
			int64_t sh = shadow(S, x, have, reserve);
			if (sh < w->tmin)
				w->tmin = sh;
		}
	}
	w->blocked = true;
	/* No job is shorter than min_rt: once that outlasts tmin, nothing
	 * more can start now. */
	if (++w->examined >= PREDICT_BACKFILL_DEPTH || t + S->min_rt > w->tmin)
		return LOOK_STOP;
	return LOOK_KEEP;
}

/*
 * Once a walk is blocked and tmin is no later than the next event, the
 * jobs it looks at are mostly ones that cannot start: those that would
 * outlast tmin and, unless a walk may park them, those that ask for more
 * GPUs than are free or would leave less than the headroom (which
 * look_at() decides from the counts too). Looking at one of them changes
 * nothing but the count of jobs examined (tmin stays: it is no later than
 * the next event already, and no shadow is needed below it). This counts
 * them off front f below index top, while they come before the heap h's
 * first entry, with no look at their records: f holds no stale entry.
 * Returns the index after the last one looked past; stops at
 * PREDICT_BACKFILL_DEPTH.
 */
static size_t look_past(struct sim *S, const struct front *f, size_t top, const struct rqueue *h,
			struct walk_state *w)
{
	int nfree = S->m.nfree;
	uint64_t first = rq_size(h) ? rq_first(h) : UINT64_MAX;
	while (top > 0 && w->examined < PREDICT_BACKFILL_DEPTH) {
		const struct fentry *fe = &f->v[top - 1];
		if (fe->key > first)
			break;
		if (w->t + fe->rt <= w->tmin &&
		    (fe->special ||
		     (fe->gpus <= nfree &&
		      (fe->gpus <= 0 ||
		       nfree - fe->gpus >= place_reserve(&S->m, (enum tier)fe->tier, fe->gpus)))))
			break;
		top--;
		w->examined++;
	}
	return top;
}

#define GONE UINT32_MAX /* a front entry whose job left, or went stale */

/*
 * After a walk looked at front f's entries at index top and above in
 * place: drops those marked GONE and merges in the jobs it took off the
 * heap and left waiting (S->putback, ascending), so that the front stays
 * sorted with the smallest on top.
 */
static void front_settle(struct sim *S, struct front *f, size_t top, size_t gone)
{
	if (!gone && !S->nputback)
		return;
	size_t nold = f->n - top, n = 0;
	GROW(S->settle, S->cap_settle, nold + S->nputback);
	size_t i = top, k = S->nputback;
	/* Both in descending rank: the front's from top up, the heap's from
	 * the last looked at. */
	while (i < f->n || k > 0) {
		if (i < f->n && f->v[i].p == GONE) {
			i++;
			continue;
		}
		if (i < f->n && (k == 0 || f->v[i].key > S->pj[S->putback[k - 1]].rank)) {
			S->settle[n++] = f->v[i++];
			continue;
		}
		uint32_t p = S->putback[--k];
		struct pj *x = &S->pj[p];
		S->settle[n++] = (struct fentry){.key = x->rank,
						 .p = p,
						 .epoch = x->epoch,
						 .rt = x->rt,
						 .gpus = x->gpus,
						 .special = x->special,
						 .tier = (uint8_t)x->tier};
		x->in_front = true;
	}
	GROW(f->v, f->cap, top + n);
	memcpy(&f->v[top], S->settle, n * sizeof(*S->settle));
	f->n = top + n;
}

static void walk(struct sim *S, int64_t t)
{
	struct walk_state w = {.t = t, .tmin = INT64_MAX, .next = next_time(S)};
	bool stop = false;
	for (int tier = 0; tier < TIER_COUNT && !stop; tier++) {
		for (int b = S->steps; b >= 0 && !stop; b--) {
			struct rqueue *h = ready_heap(S, tier, b);
			struct front *f = ready_front(S, tier, b);
			/* f->v[top..] have been looked at by this walk, where
			 * they lie; the heap's entries it looked at and left
			 * waiting are in S->putback until front_settle(). */
			size_t top = f->n, gone = 0;
			S->nputback = 0;
			while (rq_size(h) || top) {
				if (S->m.nfree == 0 && S->nready_zero == 0) {
					stop = true;
					break;
				}
				if (w.blocked && w.tmin <= w.next && top && !f->stale) {
					top = look_past(S, f, top, h, &w);
					if (w.examined >= PREDICT_BACKFILL_DEPTH) {
						stop = true;
						break;
					}
					if (!top && !rq_size(h))
						break;
				}
				/* The heap and the front merged: the lower rank
				 * first (the same rank is the same job, and then
				 * at most one of the two entries is current). */
				struct rentry e;
				struct fentry *fe = NULL;
				if (top && (!rq_size(h) || f->v[top - 1].key <= rq_first(h))) {
					fe = &f->v[--top];
					e = (struct rentry){fe->key, fe->p, fe->epoch};
				} else {
					e = rq_pop(h);
				}
				struct pj *x = &S->pj[e.p];
				if (x->status != ST_READY || x->epoch != e.epoch ||
				    x->bucket != b) {
					if (fe) {
						if (!f->stale--)
							BUG("predict: a stale entry on a front "
							    "was not counted");
						fe->p = GONE;
						gone++;
					}
					continue;
				}
				enum look r = look_at(S, &w, e.p);
				if (r == LOOK_LEFT) {
					if (fe) {
						fe->p = GONE;
						gone++;
						x->in_front = false;
					}
				} else if (!fe) {
					putback_push(S, e.p);
				}
				if (r == LOOK_STOP) {
					stop = true;
					break;
				}
			}
			front_settle(S, f, top, gone);
		}
	}
	if (t == S->now)
		S->backfill_until = w.blocked ? w.tmin : 0;
}

static void on_end(struct sim *S, uint32_t jidx, int64_t t)
{
	const struct snapshot *s = S->s;
	int qi = S->ji[jidx].qi;
	int64_t id = S->ji[jidx].id;
	for (int a = 0; a < S->ji[jidx].nalloc; a++) {
		const struct job_alloc *al = &S->ji[jidx].alloc[a];
		if (al->node < 0 || (size_t)al->node >= s->nnodes)
			continue;
		size_t base = S->goff[al->node];
		uint64_t mask = al->mask & S->m.upmask[al->node];
		while (mask) {
			int g = __builtin_ctzll(mask);
			mask &= mask - 1;
			S->rel_job[base + (size_t)g] = jidx;
			S->rel_t[base + (size_t)g] = t;
		}
	}
	place_give(&S->m, qi, &S->s->jobs[jidx].req, S->ji[jidx].nalloc, S->ji[jidx].alloc);
	for (uint32_t d = S->ji[jidx].dep_begin; d < S->ji[jidx].dep_end; d++) {
		uint32_t p = S->dep_list[d];
		struct pj *x = &S->pj[p];
		if (x->status != ST_GATED)
			continue;
		gate_raise(x, t, S->ji[jidx].end_low, S->ji[jidx].end_high, GATE_DEPENDENCY, id);
		if (--x->deps_left > 0)
			continue;
		if (x->release_at > t) {
			gate_raise(x, x->release_at, x->release_at, x->release_at, GATE_COOLDOWN,
				   0);
			theap_push(&S->events, x->release_at, EV_RELEASE, p);
			S->nrelease++;
		} else {
			make_ready(S, p, t);
		}
	}
	if (qi >= 0) {
		const struct queue_policy *q = &S->p->queues[qi];
		int room =
		    q->quota < 0 || q->borrow < 0 ? 0 : q->quota + q->borrow - S->m.queue_used[qi];
		/* In order, while the first waiting job fits under the limit:
		 * a queue at its limit starts its jobs in order. */
		struct rheap *h = &S->park_quota[qi];
		while (h->n) {
			struct pj *x = &S->pj[h->v[0].p];
			if (x->status != ST_PARK_QUOTA || x->epoch != h->v[0].epoch) {
				rheap_pop(h);
				continue;
			}
			if (x->gpus > room)
				break;
			struct rentry e = rheap_pop(h);
			gate_raise(x, t, S->ji[jidx].end_low, S->ji[jidx].end_high, GATE_QUOTA, id);
			make_ready(S, e.p, t);
			room -= x->gpus;
		}
	}
}

static void on_event(struct sim *S, const struct tentry *e, int64_t t)
{
	if (e->kind == EV_RELEASE) {
		if (S->pj[e->arg].status == ST_GATED)
			make_ready(S, e->arg, t);
		return;
	}
	int qi = (int)e->arg;
	S->win_event[qi] = 0;
	for (size_t i = 0; i < S->npark_win[qi]; i++) {
		uint32_t p = S->park_win[qi][i];
		struct pj *x = &S->pj[p];
		if (x->status != ST_PARK_WINDOW)
			continue;
		gate_raise(x, t, t, t, GATE_WINDOW, 0);
		make_ready(S, p, t);
	}
	S->npark_win[qi] = 0;
}

struct qkey {
	int64_t q;
	uint32_t rank;
	uint32_t p;
};

static int cmp_qkey(const void *a, const void *b)
{
	const struct qkey *x = a, *y = b;
	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The policy indices of the last few queue or department names looked up:
 * a lookup is a string search over the policy, and names repeat. */
#define NAME_CACHE 8
struct name_cache {
	char name[NAME_CACHE][GQ_NAME_MAX];
	int idx[NAME_CACHE];
	int n, next;
};

static int name_lookup(struct name_cache *c, const struct policy *p, const char *name,
		       int (*lookup)(const struct policy *, const char *))
{
	for (int i = 0; i < c->n; i++)
		if (c->name[i][0] == name[0] && !strncmp(c->name[i], name, GQ_NAME_MAX))
			return c->idx[i];
	int i = c->n < NAME_CACHE ? c->n++ : c->next++ % NAME_CACHE;
	STR_COPY(c->name[i], name);
	c->idx[i] = lookup(p, name);
	return c->idx[i];
}

/* Fills the simulation record of pending job j (snapshot index i) and says
 * whether it can ever start; deps_left counts the dependencies it waits
 * for. */
static void stage_pending(struct sim *S, const struct job *j, size_t i, struct name_cache *dc,
			  struct pj *x)
{
	const struct snapshot *s = S->s;
	x->jidx = (uint32_t)i;
	x->tier = (int)job_tier(j);
	x->qi = S->ji[i].qi;
	x->di = name_lookup(dc, S->p, j->dept, policy_dept_index);
	x->gpus = j->req.gpus;
	x->req = j->req;
	x->unconstrained = !j->req.gpu_type[0] && j->req.gpu_mem_mb <= 0;
	x->windowed = x->qi >= 0 && S->p->queues[x->qi].paused.set;
	x->qlim = -1;
	if (x->qi >= 0 && S->p->queues[x->qi].quota >= 0 && S->p->queues[x->qi].borrow >= 0)
		x->qlim = S->p->queues[x->qi].quota + S->p->queues[x->qi].borrow;
	x->special = x->windowed || x->qlim >= 0;
	x->q = j->queued_time > 0 ? j->queued_time : INT64_MAX / 4;
	x->rt = predict_runtime(S->p, j);
	x->rt_low = predict_runtime_low(S->p, j);
	x->rt_high = predict_runtime_high(S->p, j);
	x->release_at = j->not_before > S->now ? j->not_before : S->now;
	if (x->release_at > S->now + MAX_RUNTIME)
		x->release_at = S->now + MAX_RUNTIME;
	x->gate_t = x->gate_low = x->gate_high = S->now;
	x->gate = GATE_NOW;
	x->status = ST_GATED;
	x->never = NEVER_NO;
	if (j->held)
		x->never = NEVER_HELD;
	else if (place_satisfiable_map(&S->m, s, j, x->qi, NULL) < 0)
		x->never = NEVER_UNSATISFIABLE;
	else if (x->di >= 0 && x->gpus > 0 && S->p->depts[x->di].gpu_hours_month >= 0 &&
		 s->dstate[x->di].gpu_hours_month >= S->p->depts[x->di].gpu_hours_month)
		x->never = NEVER_DEPT_QUOTA;
	for (int d = 0; x->never == NEVER_NO && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj = snapshot_find(s, j->deps[d]);
		if (!dj || dj->state == JOB_COMPLETED)
			continue;
		if (!job_state_active(dj->state) || dj == j) {
			x->never = dj == j ? NEVER_DEP_NEVER : NEVER_DEP_FAILED;
			break;
		}
		x->deps_left++;
		x->has_deps = true;
	}
	if (x->never != NEVER_NO) {
		x->status = ST_NEVER;
		x->deps_left = 0;
	}
}

static void sim_init(struct sim *S, const struct snapshot *s, struct prediction_set *out)
{
	memset(S, 0, sizeof(*S));
	S->s = s;
	S->p = &s->policy;
	S->now = s->now;
	S->busy_t = s->now;
	size_t nj = s->njobs, nj1 = nj ? nj : 1;
	place_map_init(&S->m, s);
	out->nfree = S->m.nfree;
	S->steps = order_aging_steps(S->p);
	if (S->steps > MAX_BUCKETS - 1)
		S->steps = MAX_BUCKETS - 1;

	for (size_t i = 0; i < nj; i++)
		S->np += s->jobs[i].state == JOB_PENDING;
	size_t np = S->np, np1 = np ? np : 1;
	out->now = s->now;
	out->n = np;
	out->items = xcalloc(np1, sizeof(*out->items));
	out->njobs = nj;
	out->of_job = xmalloc(nj1 * sizeof(*out->of_job));
	out->ends = xcalloc(nj1, sizeof(*out->ends));
	S->out = out->items;
	S->of_job = out->of_job;

	S->goff = xmalloc((s->nnodes + 1) * sizeof(size_t));
	size_t ng = 0;
	for (size_t i = 0; i < s->nnodes; i++) {
		S->goff[i] = ng;
		int g = s->nodes[i].ngpus;
		ng += (size_t)(g < 0 ? 0 : g > GQ_MAX_NODE_GPUS ? GQ_MAX_NODE_GPUS : g);
	}
	S->goff[s->nnodes] = ng;
	S->rel_job = xcalloc(ng ? ng : 1, sizeof(uint32_t));
	S->rel_t = xcalloc(ng ? ng : 1, sizeof(int64_t));

	/*
	 * One pass over the job records, in snapshot order (they are large,
	 * and reading them in sequence is what the cache likes): every job's
	 * compact record, the ends of the jobs holding GPUs, and a staged
	 * record of every pending job with the keys of the order at now: its
	 * static rank (fair share, submit time, id), tier and aging step.
	 */
	S->ji = xcalloc(nj1, sizeof(*S->ji));
	/* Staged in snapshot order, then moved in place to position order. */
	S->pj = xcalloc(np1, sizeof(*S->pj));
	struct pj *stage = S->pj;
	struct order_key *keys = xmalloc(np1 * sizeof(*keys));
	uint32_t *bkey = xmalloc(np1 * sizeof(*bkey));
	struct name_cache qc = {.n = 0}, dc = {.n = 0};
	struct order_fs_cache fc = ORDER_FS_CACHE_INIT;
	size_t k = 0, npool = 0, ndeps = 0;
	S->min_rt = INT64_MAX;
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = &s->jobs[i];
		S->of_job[i] = -1;
		S->ji[i].id = j->id;
		S->ji[i].qi = name_lookup(&qc, S->p, j->queue, policy_queue_index);
		if (job_state_holds_gpus(j->state)) {
			int64_t e = predict_end(S->p, j, S->now);
			int64_t lo = holder_end(j, predict_runtime_low(S->p, j), S->now);
			int64_t hi = holder_end(j, predict_runtime_high(S->p, j), S->now);
			S->ji[i].end_low = lo < e ? lo : e;
			S->ji[i].end_high = hi > e ? hi : e;
			out->ends[i] = e;
			S->ji[i].alloc = j->alloc;
			S->ji[i].nalloc = j->nalloc < 0		     ? 0
					  : j->nalloc < GQ_MAX_ALLOC ? j->nalloc
								     : GQ_MAX_ALLOC;
			for (int a = 0; a < S->ji[i].nalloc; a++)
				S->ji[i].held += __builtin_popcountll(j->alloc[a].mask);
			npool += (size_t)S->ji[i].nalloc;
			theap_push(&S->ends, e, EV_END, (uint32_t)i);
			continue;
		}
		if (j->state != JOB_PENDING)
			continue;
		struct pj *x = &stage[k];
		stage_pending(S, j, i, &dc, x);
		if (x->rt < S->min_rt)
			S->min_rt = x->rt;
		/* a CPU-only job is placed on one node too */
		npool += (size_t)(x->gpus < 1		   ? 1
				  : x->gpus < GQ_MAX_ALLOC ? x->gpus
							   : GQ_MAX_ALLOC);
		ndeps += (size_t)x->deps_left;
		keys[k] = (struct order_key){order_fair_share_cached(s, j, &fc), j->submit_time,
					     j->id, k};
		int b = bucket_at(S, x, S->now);
		bkey[k] = (uint32_t)(x->tier * (S->steps + 1) + (S->steps - b));
		k++;
	}

	/* The order at now without a second sort: bucket the ranked jobs by
	 * tier and aging step, which keeps rank order inside each bucket. */
	uint32_t *rank = xmalloc(np1 * sizeof(*rank));
	order_rank_keys(keys, np, rank);
	free(keys);
	size_t nb = (size_t)TIER_COUNT * (size_t)(S->steps + 1);
	size_t *start = xcalloc(nb + 1, sizeof(*start));
	size_t *by_rank = xmalloc(np1 * sizeof(*by_rank));
	for (size_t i = 0; i < np; i++) {
		start[bkey[i] + 1]++;
		by_rank[rank[i]] = i;
	}
	for (size_t b = 1; b <= nb; b++)
		start[b] += start[b - 1];
	for (size_t r = 0; r < np; r++) {
		size_t i = by_rank[r];
		size_t p = start[bkey[i]]++;
		struct pj *x = &stage[i];
		x->rank = (uint32_t)r;
		struct prediction *o = &S->out[p];
		o->job = S->ji[x->jidx].id;
		o->idx = x->jidx;
		o->position = (int)p + 1;
		o->runtime = x->rt;
		o->never = x->never;
		S->of_job[x->jidx] = (int32_t)p;
		rank[p] = (uint32_t)i; /* rank[] is not read again */
	}
	/* src[p]: the staged record that goes to position p. */
	uint32_t *src = rank;
	/* Follow each cycle of the permutation once, with one spare record. */
	for (size_t p0 = 0; p0 < np; p0++) {
		if (src[p0] == p0)
			continue;
		struct pj spare = S->pj[p0];
		size_t p = p0;
		for (;;) {
			size_t i = src[p];
			src[p] = (uint32_t)p;
			if (i == p0) {
				S->pj[p] = spare;
				break;
			}
			S->pj[p] = S->pj[i];
			p = i;
		}
	}
	free(by_rank);
	free(start);
	free(rank);
	free(bkey);
	S->ready = xcalloc(nb, sizeof(*S->ready));
	S->front = xcalloc(nb, sizeof(*S->front));
	S->cursor = xcalloc(nb, sizeof(*S->cursor));

	/* The pool holds the allocations of the jobs holding GPUs too, so
	 * that an end reads them from there rather than from the job. */
	S->cap_pool = npool;
	S->pool = out->allocs = xmalloc((npool ? npool : 1) * sizeof(*S->pool));
	for (size_t i = 0; i < nj; i++) {
		struct jinfo *h = &S->ji[i];
		if (!h->nalloc)
			continue;
		memcpy(&S->pool[S->npool], h->alloc, (size_t)h->nalloc * sizeof(*h->alloc));
		h->alloc = &S->pool[S->npool];
		S->npool += (size_t)h->nalloc;
	}

	/* Dependents, as a CSR list per snapshot job. */
	S->dep_off = xcalloc(nj + 2, sizeof(size_t));
	S->dep_list = xmalloc((ndeps ? ndeps : 1) * sizeof(uint32_t));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t p = 0; p < S->np; p++) {
			const struct pj *x = &S->pj[p];
			if (!x->deps_left)
				continue;
			const struct job *j = &s->jobs[x->jidx];
			for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
				const struct job *dj = snapshot_find(s, j->deps[d]);
				if (!dj || dj->state == JOB_COMPLETED)
					continue;
				size_t di = (size_t)(dj - s->jobs);
				if (pass == 0)
					S->dep_off[di + 2]++;
				else
					S->dep_list[S->dep_off[di + 1]++] = (uint32_t)p;
			}
		}
		if (pass == 0)
			for (size_t i = 2; i < nj + 2; i++)
				S->dep_off[i] += S->dep_off[i - 1];
	}
	for (size_t i = 0; i < nj; i++) {
		S->ji[i].dep_begin = (uint32_t)S->dep_off[i];
		S->ji[i].dep_end = (uint32_t)S->dep_off[i + 1];
	}

	/* Per tier, by queued time, for the aging cursors; jobs already at
	 * the cap, or that never start, never move again. */
	struct qkey *qk = xmalloc((S->np ? S->np : 1) * sizeof(*qk));
	for (int tier = 0; tier < TIER_COUNT; tier++) {
		size_t n = 0;
		for (size_t p = 0; p < S->np; p++) {
			const struct pj *x = &S->pj[p];
			if (x->tier == tier && x->status != ST_NEVER &&
			    bucket_at(S, x, S->now) < S->steps)
				qk[n++] = (struct qkey){x->q, x->rank, (uint32_t)p};
		}
		qsort(qk, n, sizeof(*qk), cmp_qkey);
		S->by_q[tier] = xmalloc((n ? n : 1) * sizeof(size_t));
		S->nby_q[tier] = n;
		for (size_t i = 0; i < n; i++)
			S->by_q[tier][i] = qk[i].p;
	}
	free(qk);

	/* Permits: the jobs that may start and hold one at now are holders
	 * already; the others wait in by_earn, sorted when the simulation
	 * first goes past now (earn_sort). */
	size_t nh = 0;
	for (size_t p = 0; p < S->np; p++)
		nh += S->pj[p].status != ST_NEVER;
	S->by_earn = xmalloc((nh ? nh : 1) * sizeof(*S->by_earn));
	S->lin = xmalloc((nh ? nh : 1) * sizeof(*S->lin));
	S->cand = xmalloc((nh ? nh : 1) * sizeof(*S->cand));
	S->failed = xmalloc((nh ? nh : 1) * sizeof(*S->failed));
	S->group_of = xmalloc((S->np ? S->np : 1) * sizeof(*S->group_of));
	S->hepoch = xcalloc((S->np ? S->np : 1), sizeof(*S->hepoch));
	for (size_t p = 0; p < S->np; p++)
		S->group_of[p] = -1;
	S->earn = xmalloc((S->np ? S->np : 1) * sizeof(*S->earn));
	for (size_t p = 0; p < S->np; p++) {
		if (S->pj[p].status == ST_NEVER)
			continue;
		S->earn[p] = permit_earned_at(S->p, &s->jobs[S->pj[p].jidx]);
		if (S->earn[p] <= S->now) {
			S->lin[S->nlin++] = (uint32_t)p;
			S->zero_holder |= S->pj[p].gpus <= 0;
		} else
			S->by_earn[S->nby_earn++] = (uint32_t)p;
	}

	migrate(S, S->now);
	for (size_t p = 0; p < S->np; p++) {
		struct pj *x = &S->pj[p];
		if (x->status != ST_GATED || x->deps_left)
			continue;
		if (x->release_at > S->now) {
			gate_raise(x, x->release_at, x->release_at, x->release_at, GATE_COOLDOWN,
				   0);
			theap_push(&S->events, x->release_at, EV_RELEASE, (uint32_t)p);
			S->nrelease++;
		} else {
			make_ready(S, (uint32_t)p, S->now);
		}
	}
}

static void sim_release(struct sim *S)
{
	place_map_release(&S->m);
	free(S->ji);
	free(S->goff);
	free(S->rel_job);
	free(S->rel_t);
	free(S->dep_off);
	free(S->dep_list);
	free(S->ends.v);
	free(S->events.v);
	for (int i = 0; i < TIER_COUNT * (S->steps + 1); i++) {
		free(S->ready[i].heap.v);
		free(S->ready[i].run);
		free(S->front[i].v);
	}
	free(S->ready);
	free(S->front);
	free(S->cursor);
	for (int t = 0; t < TIER_COUNT; t++)
		free(S->by_q[t]);
	for (int q = 0; q < GQ_MAX_QUEUES; q++) {
		free(S->park_quota[q].v);
		free(S->park_win[q]);
	}
	free(S->putback);
	free(S->settle);
	free(S->aux);
	free(S->by_earn);
	free(S->earn);
	for (size_t g = 0; g < S->ngroups; g++) {
		for (int t = 0; t < TIER_COUNT; t++) {
			for (int c = 0; c < PERMIT_G; c++) {
				free(S->groups[g].h[t][c].heap.v);
				free(S->groups[g].h[t][c].run);
			}
		}
	}
	free(S->groups);
	free(S->group_of);
	free(S->hepoch);
	free(S->young.v);
	free(S->lin);
	free(S->cand);
	free(S->failed);
	free(S->pj);
}

/* The first time after now at which the plan may change with no event: a
 * release (cooldown) or the edge of any queue's window; the walk may have
 * stopped before parking every job of a paused queue. */
static int64_t first_wake(const struct sim *S)
{
	int64_t w = S->events.n ? S->events.v[0].t : 0;
	for (int q = 0; q < S->p->nqueues; q++) {
		int64_t e = place_window_next_edge(S->s, q, S->now);
		if (e && (!w || e < w))
			w = e;
	}
	return w;
}

/*
 * Starvation permits (preempt.h), after the walk at t, as sched_plan()
 * starts them after its starts: every job that earned its permit by t and
 * may start (ready, or parked behind its queue's limit: not held, its
 * dependencies ended, its cooldown over, its queue not paused), in the
 * order at t, starts on free GPUs if place_check lets it (quota, window,
 * headroom are not lifted), ahead of its turn.
 */

/* Could holder x start on the free GPUs at t, as the plan's count check
 * and place_check decide? */
static bool permit_fits(struct sim *S, const struct pj *x, int64_t t, struct place_result *r)
{
	if (x->status != ST_READY && x->status != ST_PARK_QUOTA)
		return false;
	int reserve = place_reserve(&S->m, (enum tier)x->tier, x->gpus);
	if (S->m.nfree < x->gpus + reserve)
		return false;
	return place_check_req(&S->m, S->s, &x->req, (enum tier)x->tier, x->qi, x->di, t, r);
}

/* A holder's place in the order at t (order.h) inside its tier, as the
 * walk reads it: aging step (highest first), then rank. */
static uint64_t holder_key(const struct sim *S, const struct pj *x, int64_t t)
{
	return (uint64_t)(S->steps - bucket_at(S, x, t)) << 32 | x->rank;
}

static int cmp_hcand(const void *pa, const void *pb)
{
	const struct hcand *a = pa, *b = pb;
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* The group of holder p, found or made; -1 when there are PERMIT_GROUPS
 * already. */
static int holder_group(struct sim *S, uint32_t p)
{
	if (S->group_of[p] >= 0)
		return S->group_of[p];
	const struct pj *x = &S->pj[p];
	for (size_t g = 0; g < S->ngroups; g++) {
		const struct pgroup *G = &S->groups[g];
		if (G->qi == x->qi && G->req.same_node == x->req.same_node &&
		    G->req.gpu_mem_mb == x->req.gpu_mem_mb &&
		    !strncmp(G->req.gpu_type, x->req.gpu_type, sizeof(G->req.gpu_type)))
			return S->group_of[p] = (int32_t)g;
	}
	if (S->ngroups == PERMIT_GROUPS)
		return -1;
	GROW(S->groups, S->cap_groups, S->ngroups + 1);
	struct pgroup *G = &S->groups[S->ngroups];
	memset(G, 0, sizeof(*G));
	G->req = x->req;
	G->qi = x->qi;
	G->counted = place_class_mask(&S->m, S->s, &G->req, &G->cm);
	return S->group_of[p] = (int32_t)S->ngroups++;
}

/* Does holder p wait in a heap from t on: it may start (ready, or parked
 * behind its queue's limit), its GPU count has a heap, and it has a
 * group? */
static bool holder_settled(struct sim *S, uint32_t p)
{
	const struct pj *x = &S->pj[p];
	return (x->status == ST_READY || x->status == ST_PARK_QUOTA) && x->gpus >= 0 &&
	       x->gpus < PERMIT_G && holder_group(S, p) >= 0;
}

/* Pushes holder p's current entry, keyed by its place at t; below its
 * last aging step, it is pushed again when it ages. */
static void holder_push(struct sim *S, uint32_t p, int64_t t)
{
	const struct pj *x = &S->pj[p];
	struct pgroup *G = &S->groups[S->group_of[p]];
	rq_push(&G->h[x->tier][x->gpus], holder_key(S, x, t), p, S->hepoch[p]);
	G->mask[x->tier] |= (uint64_t)1 << x->gpus;
	int b = bucket_at(S, x, t);
	if (x->q != INT64_MAX / 4 && b < S->steps)
		rheap_push(&S->young, (uint64_t)(x->q + (int64_t)(b + 1) * S->p->aging_interval), p,
			   S->hepoch[p]);
}

/* Holders in heaps that reached a new aging step by t get their new key. */
static void holder_age(struct sim *S, int64_t t)
{
	while (S->young.n && (int64_t)S->young.v[0].key <= t) {
		struct rentry e = rheap_pop(&S->young);
		const struct pj *x = &S->pj[e.p];
		if (e.epoch != S->hepoch[e.p] ||
		    (x->status != ST_READY && x->status != ST_PARK_QUOTA))
			continue;
		S->hepoch[e.p]++;
		holder_push(S, e.p, t);
	}
}

/* Per permit round: the free GPUs of each class, and the most on one
 * node (place_class_free), read when first needed (known); ncls 0 when
 * the counts cannot tell. */
struct class_counts {
	bool known;
	int ncls;
	int free[64], most[64];
};

/* Could the free GPUs at t take a holder of group G asking for g, by
 * counts: its queue's window and limit, GPUs of its kind (place_check
 * decides)? The answer only turns false as g grows. */
static bool group_could_fit(const struct sim *S, struct pgroup *G, struct class_counts *cc, int g,
			    int64_t t)
{
	if (G->qi >= 0) {
		const struct queue_policy *q = &S->p->queues[G->qi];
		if (q->quota >= 0 && q->borrow >= 0 &&
		    S->m.queue_used[G->qi] + g > q->quota + q->borrow)
			return false;
		if (q->paused.set && place_window_paused(S->s, G->qi, t))
			return false;
	}
	if (!G->counted || g <= 0)
		return true;
	if (!G->req.same_node && !G->req.gpu_type[0] && G->req.gpu_mem_mb <= 0)
		return g <= S->m.nfree; /* any GPU will do */
	if (!cc->known) {
		cc->known = true;
		cc->ncls = place_class_free(&S->m, cc->free, cc->most);
	}
	if (!cc->ncls)
		return true;
	if (G->have < 0) {
		G->have = 0;
		for (int c = 0; c < cc->ncls; c++) {
			if (!(G->cm >> c & 1))
				continue;
			if (!G->req.same_node)
				G->have += cc->free[c];
			else if (cc->most[c] > G->have)
				G->have = cc->most[c];
		}
	}
	return g <= G->have;
}

/* The largest GPU count below PERMIT_G that tier's count check lets in
 * (the check only gets harder with more GPUs), -1 none; it depends on
 * nfree alone (total and reserve do not change), and is kept for nfree
 * below PERMIT_G in max_gpus (0: not yet, else the count + 2). */
static int holder_max_gpus(struct sim *S, int tier)
{
	int8_t *memo =
	    S->m.nfree >= 0 && S->m.nfree < PERMIT_G ? &S->max_gpus[tier][S->m.nfree] : NULL;
	if (memo && *memo)
		return *memo - 2;
	int lo = 0, hi = S->m.nfree < PERMIT_G - 1 ? S->m.nfree : PERMIT_G - 1;
	if (hi < 0 || S->m.nfree >= hi + place_reserve(&S->m, (enum tier)tier, hi))
		lo = hi;
	else if (S->m.nfree < place_reserve(&S->m, (enum tier)tier, 0))
		lo = -1;
	while (lo >= 0 && lo < hi) { /* the last g that passes: 0 does */
		int mid = lo + (hi - lo + 1) / 2;
		if (S->m.nfree >= mid + place_reserve(&S->m, (enum tier)tier, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	if (memo)
		*memo = (int8_t)(lo + 2);
	return lo;
}

/* The top of heap (tier, g) that is still a holder that may start, NULL
 * when none: holders that started or never will are dropped, those that
 * may not start now (their queue paused) go back to lin. */
static const struct rentry *holder_top(struct sim *S, struct pgroup *G, int tier, int g)
{
	struct rqueue *h = &G->h[tier][g];
	while (rq_size(h)) {
		const struct rentry *top = rq_peek(h);
		const struct pj *x = &S->pj[top->p];
		bool current = top->epoch == S->hepoch[top->p];
		if (current && (x->status == ST_READY || x->status == ST_PARK_QUOTA))
			return top;
		struct rentry e = rq_pop(h);
		if (current && x->status != ST_STARTED && x->status != ST_NEVER) {
			S->hepoch[e.p]++; /* its entry on the aging heap, if any, is gone */
			S->lin[S->nlin++] = e.p;
		}
	}
	G->mask[tier] &= ~((uint64_t)1 << g);
	return NULL;
}

static void permit_start(struct sim *S, uint32_t p, int64_t t, const struct place_result *r)
{
	struct pj *x = &S->pj[p];
	if (x->status == ST_PARK_QUOTA) {
		/* start_job() takes it from the ready jobs. */
		x->status = ST_READY;
		if (x->gpus <= 0)
			S->nready_zero++;
	}
	if (x->in_front) {
		/* Out of its front, rather than left there stale: a front with
		 * a stale entry cannot be looked past by counts (look_past). */
		struct front *f = ready_front(S, x->tier, x->bucket);
		size_t lo = 0, hi = f->n;
		while (lo < hi) { /* descending keys: the first at or below rank */
			size_t mid = lo + (hi - lo) / 2;
			if (f->v[mid].key > x->rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == f->n || f->v[lo].p != p)
			BUG("predict: a permit holder is not on its front");
		memmove(&f->v[lo], &f->v[lo + 1], (f->n - lo - 1) * sizeof(*f->v));
		f->n--;
		x->in_front = false;
	}
	x->epoch++;
	if (S->earn[p] >= x->gate_t) {
		x->gate_t = S->earn[p];
		x->gate = GATE_PERMIT;
		x->gate_job = 0;
	}
	start_job(S, p, t, r, false);
	S->out[p].permit = true;
}

/* Sorts by_earn by earn time, then position: a stable radix sort on the
 * time after now (three passes of 11 bits), or qsort when some job earns
 * its permit beyond 2^32 s from now. */
static void earn_sort(struct sim *S)
{
	size_t n = S->nby_earn;
	S->earn_sorted = true;
	bool wide = false;
	for (size_t i = 0; i < n && !wide; i++)
		wide = S->earn[S->by_earn[i]] - S->now > (int64_t)UINT32_MAX;
	if (wide) {
		struct qkey *qk = xmalloc((n ? n : 1) * sizeof(*qk));
		for (size_t i = 0; i < n; i++) {
			uint32_t p = S->by_earn[i];
			qk[i] = (struct qkey){S->earn[p], p, p};
		}
		qsort(qk, n, sizeof(*qk), cmp_qkey);
		for (size_t i = 0; i < n; i++)
			S->by_earn[i] = qk[i].p;
		free(qk);
		return;
	}
	/* (time after now, position) pairs, in position order: stable. */
	uint64_t *v = xmalloc((n ? n : 1) * sizeof(*v)), *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)(S->earn[S->by_earn[i]] - S->now) << 32 | S->by_earn[i];
	for (int shift = 32; shift < 64; shift += 11) {
		size_t count[2049] = {0};
		for (size_t i = 0; i < n; i++)
			count[((v[i] >> shift) & 0x7ff) + 1]++;
		bool one = false; /* every digit alike: already in order */
		for (size_t b = 1; b <= 2048 && !one; b++)
			one = count[b] == n;
		if (one)
			continue;
		for (size_t b = 1; b <= 2048; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0x7ff]++] = v[i];
		uint64_t *sw = v;
		v = tmp;
		tmp = sw;
	}
	for (size_t i = 0; i < n; i++)
		S->by_earn[i] = (uint32_t)v[i];
	free(v);
	free(tmp);
}

static void permits(struct sim *S, int64_t t)
{
	if (t > S->now && !S->earn_sorted)
		earn_sort(S);
	while (S->nearned < S->nby_earn && S->earn[S->by_earn[S->nearned]] <= t) {
		uint32_t p = S->by_earn[S->nearned++];
		S->lin[S->nlin++] = p;
		S->zero_holder |= S->pj[p].gpus <= 0;
	}
	/* With no GPU free only a holder asking for none could start; the
	 * others are sorted out at the next pass. */
	if (S->m.nfree == 0 && !S->zero_holder)
		return;
	/* The holders looked at one by one: settled ones go to their heap,
	 * and those that may start now and pass the count check are
	 * candidates. */
	size_t k = 0, nc = 0, nfailed = 0;
	for (size_t i = 0; i < S->nlin; i++) {
		uint32_t p = S->lin[i];
		const struct pj *x = &S->pj[p];
		if (x->status == ST_STARTED || x->status == ST_NEVER)
			continue;
		if (holder_settled(S, p)) {
			holder_push(S, p, t);
			continue;
		}
		S->lin[k++] = p;
		if ((x->status == ST_READY || x->status == ST_PARK_QUOTA) &&
		    S->m.nfree >= x->gpus + place_reserve(&S->m, (enum tier)x->tier, x->gpus))
			S->cand[nc++] = (struct hcand){holder_key(S, x, t), p, x->tier};
	}
	S->nlin = k;
	holder_age(S, t);
	uint64_t any = 0;
	for (size_t g = 0; g < S->ngroups; g++)
		for (int tier = 0; tier < TIER_COUNT; tier++)
			any |= S->groups[g].mask[tier];
	if (!nc && !any)
		return;
	if (nc > 1)
		qsort(S->cand, nc, sizeof(*S->cand), cmp_hcand);
	size_t ci = 0;
	int mg[TIER_COUNT], mgfree[TIER_COUNT]; /* holder_max_gpus() at nfree mgfree */
	for (int tier = 0; tier < TIER_COUNT; tier++)
		mgfree[tier] = -1;
	struct class_counts cc;
	int ccfree = -1; /* cc and the groups' have are of the map at nfree ccfree */
	/* In the order at t, the first holder that passes the count check,
	 * again and again: the count only falls as holders start, so one
	 * that fails it now cannot start at t. */
	struct place_result r;
	for (;;) {
		int bt = TIER_COUNT, bg = -1, bgr = -1;
		uint64_t bkey = UINT64_MAX;
		/* The first candidate that still passes the count check. */
		while (ci < nc) {
			const struct pj *x = &S->pj[S->cand[ci].p];
			if (S->m.nfree >=
			    x->gpus + place_reserve(&S->m, (enum tier)x->tier, x->gpus))
				break;
			ci++;
		}
		bool fromc = ci < nc;
		if (fromc) {
			bt = S->cand[ci].tier;
			bkey = S->cand[ci].key;
		}
		if (ccfree != S->m.nfree) {
			/* A start that takes GPUs changes nfree; one that takes
			 * none changes no count. */
			ccfree = S->m.nfree;
			cc.known = false;
			for (size_t gr = 0; gr < S->ngroups; gr++)
				S->groups[gr].have = -1;
		}
		for (int tier = 0; tier <= bt && tier < TIER_COUNT; tier++) {
			if (mgfree[tier] != S->m.nfree) {
				mgfree[tier] = S->m.nfree;
				mg[tier] = holder_max_gpus(S, tier);
			}
			if (mg[tier] < 0)
				continue;
			int mgt = mg[tier];
			uint64_t lim = mgt >= 63 ? UINT64_MAX : ((uint64_t)1 << (mgt + 1)) - 1;
			for (size_t gr = 0; gr < S->ngroups; gr++) {
				struct pgroup *G = &S->groups[gr];
				uint64_t mask = G->mask[tier] & lim;
				while (mask) {
					int g = __builtin_ctzll(mask);
					mask &= mask - 1;
					if (!group_could_fit(S, G, &cc, g, t))
						break;
					const struct rentry *e = holder_top(S, G, tier, g);
					if (e && (tier < bt || e->key < bkey)) {
						bt = tier;
						bkey = e->key;
						bg = g;
						bgr = (int)gr;
					}
				}
			}
		}
		uint32_t p;
		if (bg >= 0) {
			p = rq_pop(&S->groups[bgr].h[bt][bg]).p;
		} else if (fromc) {
			p = S->cand[ci++].p;
		} else {
			break;
		}
		const struct pj *x = &S->pj[p];
		if (permit_fits(S, x, t, &r))
			permit_start(S, p, t, &r);
		else if (bg >= 0)
			S->failed[nfailed++] = p;
	}
	/* Those that did not fit are holders still. */
	for (size_t i = 0; i < nfailed; i++)
		holder_push(S, S->failed[i], t);
}

/* The first time in (t, before) at which a job earns a permit that would
 * let it start on the GPUs free after t (nothing changes them until
 * `before`), else `before`. */
static int64_t permit_wake(struct sim *S, int64_t t, int64_t before)
{
	struct place_result r;
	if (!S->earn_sorted)
		earn_sort(S);
	/* Each job is looked at here at most once: the next pass earns
	 * every job before the time returned. permit_fits() counts before
	 * it looks at nodes. */
	for (size_t i = S->nearned; i < S->nby_earn; i++) {
		uint32_t p = S->by_earn[i];
		int64_t e = S->earn[p];
		if (e >= before)
			break;
		if (e > t && permit_fits(S, &S->pj[p], e, &r))
			return e;
	}
	return before;
}

#define QUIET ((int64_t)8 * 86400) /* a week, and a day to spare */

static void run(const struct snapshot *s, int64_t until, struct prediction_set *out)
{
	prediction_set_release(out);
	struct sim S;
	sim_init(&S, s, out);
	int64_t t = S.now;
	bool first = true;
	for (;;) {
		if (!first) {
			while (S.ends.n && S.ends.v[0].t == t) {
				struct tentry e = theap_pop(&S.ends);
				on_end(&S, e.arg, t);
				S.busy_t = t;
			}
			while (S.events.n && S.events.v[0].t == t) {
				struct tentry e = theap_pop(&S.events);
				if (e.kind == EV_RELEASE) {
					S.nrelease--;
					S.busy_t = t;
				}
				on_event(&S, &e, t);
			}
		}
		migrate(&S, t);
		walk(&S, t);
		permits(&S, t);
		if (first) {
			out->wake = first_wake(&S);
			out->backfill_until = S.backfill_until == INT64_MAX ? 0 : S.backfill_until;
			first = false;
		}
		if (t >= until)
			break;
		/* With nothing holding GPUs and no release to come, only the
		 * queues' windows still open and close, every day alike: a
		 * week and a day with no start and no aging step means that
		 * no job left will ever start (say, one that fits only on
		 * nodes that are down, in a queue whose window keeps parking
		 * it), and would otherwise loop forever. */
		if (!S.ends.n && !S.nrelease && t - S.busy_t > QUIET)
			break;
		t = permit_wake(&S, t, next_time(&S));
		if (t == INT64_MAX)
			break;
	}
	bool finished = t < until || t == INT64_MAX;
	for (size_t p = 0; p < S.np; p++) {
		struct pj *x = &S.pj[p];
		struct prediction *o = &S.out[p];
		if (x->status == ST_STARTED || x->status == ST_NEVER || !finished)
			continue;
		o->never = x->status == ST_GATED && x->deps_left ? NEVER_DEP_NEVER : NEVER_CAPACITY;
	}
	sim_release(&S);
}

void predict_all(const struct snapshot *s, struct prediction_set *out)
{
	run(s, INT64_MAX, out);
}

void predict_until(const struct snapshot *s, int64_t until, struct prediction_set *out)
{
	run(s, until, out);
}

void prediction_set_init(struct prediction_set *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void prediction_set_release(struct prediction_set *ps)
{
	free(ps->items);
	free(ps->of_job);
	free(ps->ends);
	free(ps->allocs);
	prediction_set_init(ps);
}

const struct prediction *prediction_find(const struct prediction_set *ps, const struct snapshot *s,
					 int64_t id)
{
	const struct job *j = snapshot_find(s, id);
	if (!j)
		return NULL;
	size_t i = (size_t)(j - s->jobs);
	if (i >= ps->njobs || ps->of_job[i] < 0)
		return NULL;
	return &ps->items[ps->of_job[i]];
}
