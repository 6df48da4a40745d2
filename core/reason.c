/*
 * reason.c - wait reasons from the snapshot, the placement checks and the
 * prediction.
 *
 * Capacity is judged on the free-GPU map after the starts predicted at
 * now, since those GPUs are being handed out: a job behind a starting one
 * sees what is left. Everything else comes from the prediction set, so
 * that the explanation and the ETA never disagree.
 */
#include "reason.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "depend.h"
#include "order.h"
#include "place.h"
#include "resv.h"
#include "ulimit.h"

static const char *const reason_tokens[REASON_COUNT] = {
#define X(e, tok, text) [REASON_##e] = tok,
    REASON_LIST(X)
#undef X
};

static const char *const reason_texts[REASON_COUNT] = {
#define X(e, tok, text) [REASON_##e] = text,
    REASON_LIST(X)
#undef X
};

static const char *const reeval_tokens[REEVAL_COUNT] = {
#define X(e, tok) [REEVAL_##e] = tok,
    REEVAL_LIST(X)
#undef X
};

const char *reason_name(enum reason r)
{
	return (unsigned)r < REASON_COUNT ? reason_tokens[r] : "?";
}

const char *reason_text(enum reason r)
{
	return (unsigned)r < REASON_COUNT ? reason_texts[r] : "?";
}

int reason_parse(const char *token, enum reason *out)
{
	for (int i = 0; i < REASON_COUNT; i++) {
		if (!strcmp(token, reason_tokens[i])) {
			*out = (enum reason)i;
			return 0;
		}
	}
	return -1;
}

const char *reeval_name(enum reeval r)
{
	return (unsigned)r < REEVAL_COUNT ? reeval_tokens[r] : "?";
}

void why_set_init(struct why_set *ws)
{
	memset(ws, 0, sizeof(*ws));
}

void why_set_release(struct why_set *ws)
{
	free(ws->items);
	free(ws->of_job);
	free(ws->item_pool);
	free(ws->wait_pool);
	why_set_init(ws);
}

const struct why *why_find(const struct why_set *ws, const struct snapshot *s, int64_t id)
{
	const struct job *j = snapshot_find(s, id);
	if (!j)
		return NULL;
	size_t i = (size_t)(j - s->jobs);
	if (i >= ws->njobs || ws->of_job[i] < 0)
		return NULL;
	return &ws->items[ws->of_job[i]];
}

/* One job's lists while they are being built: at the ends of the set's
 * pools, which have room for the most a job can have (see make_room). */
struct work {
	struct why *w;
	struct reason_item *items; /* room for REASON_COUNT */
	struct why_wait *waits;	   /* room for PREDICT_MAX_WAITS */
};

static struct reason_item *add_item(struct work *k, enum reason r)
{
	struct reason_item *it = &k->items[k->w->nitems++];
	memset(it, 0, sizeof(*it));
	it->reason = r;
	return it;
}

/* Shared facts for every job of one call. */
struct ctx {
	const struct snapshot *s;
	const struct prediction_set *ps;
	struct place_map m;	     /* after the starts at now */
	int64_t qend[GQ_MAX_QUEUES]; /* earliest expected end of a job of the queue */
	int64_t qend_job[GQ_MAX_QUEUES];
	int64_t first_end, first_end_job; /* earliest expected end of any job */
	/* With a per-user GPU limit: the users after the starts at now, and
	 * the earliest expected end of each one's jobs holding GPUs, at
	 * [user * (GQ_MAX_QUEUES + 1)]: overall first, then per queue. */
	bool ulimits;
	struct ulimit_table ut;
	int64_t *uend, *uend_job;
	/* Per snapshot job: end_of() and whether it holds GPUs, so that the
	 * jobs a prediction waits for cost no look at their large records. */
	int64_t *end;
	bool *holds;
	/* Snapshot index by id - id_base when the ids are strictly increasing
	 * and dense enough (nid entries, -1 for a gap); else nid is 0 and
	 * find_index() searches. */
	int32_t *by_id;
	int64_t id_base;
	size_t nid;
};

/* The snapshot index of job id, -1 when there is none. */
static ptrdiff_t find_index(const struct ctx *c, int64_t id)
{
	if (c->nid) {
		if (id < c->id_base || (uint64_t)id - (uint64_t)c->id_base >= c->nid)
			return -1;
		return c->by_id[(uint64_t)id - (uint64_t)c->id_base];
	}
	const struct job *j = snapshot_find(c->s, id);
	return j ? j - c->s->jobs : -1;
}

/* The expected end of job j: ps->ends for a job holding GPUs, its
 * prediction for a pending one; 0 when unknown. */
static int64_t end_of(const struct ctx *c, const struct job *j)
{
	size_t i = (size_t)(j - c->s->jobs);
	if (job_state_holds_gpus(j->state))
		return c->ps->ends[i];
	if (i < c->ps->njobs && c->ps->of_job[i] >= 0) {
		const struct prediction *p = &c->ps->items[c->ps->of_job[i]];
		return p->placed ? p->end : 0;
	}
	return 0;
}

/* The dependency item: a dead dependency first, else one that never
 * starts, else the one expected to end last. */
static void dependency(const struct ctx *c, const struct job *j, struct work *k)
{
	const struct job *pick = NULL;
	int64_t pick_id = 0;
	int rank = -1;
	int64_t until = 0;
	for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj;
		enum dep_status ds = dep_status_at(c->s, j, d, &dj);
		if (ds == DEP_MET && dj != j)
			continue;
		int r;
		int64_t e = 0;
		if (dj == j || ds == DEP_NEVER) {
			r = 3;
		} else {
			e = end_of(c, dj);
			r = e ? 1 : 2; /* no end: it never starts */
		}
		if (r > rank || (r == rank && r == 1 && e > until)) {
			rank = r;
			pick = dj;
			pick_id = j->deps[d];
			until = e;
		}
	}
	if (rank < 0)
		return;
	struct reason_item *it = add_item(k, REASON_DEPENDENCY);
	it->job = pick_id;
	it->until = rank == 1 ? until : 0;
	it->never = rank >= 2;
	/* A dead dependency whose job is gone (the backend said so): "gone". */
	STR_COPY(it->detail, rank == 2 ? "never" : pick ? job_state_name(pick->state) : "gone");
}

static void reeval(const struct ctx *c, const struct place_result *r, struct work *k)
{
	struct why *w = k->w;
	const struct reason_item *it = &k->items[0];
	w->reeval_job = 0;
	w->reeval_at = 0;
	switch (it->reason) {
	case REASON_HELD:
		w->reeval = REEVAL_RELEASE;
		return;
	case REASON_UNSATISFIABLE:
		w->reeval = REEVAL_POLICY;
		return;
	case REASON_DEPENDENCY:
		if (it->never) {
			w->reeval = REEVAL_NONE;
			return;
		}
		w->reeval = REEVAL_JOB_END;
		w->reeval_job = it->job;
		w->reeval_at = it->until;
		return;
	case REASON_WINDOW:
	case REASON_COOLDOWN:
	case REASON_BEGIN:
	case REASON_RESERVATION:
		w->reeval = REEVAL_TIME;
		w->reeval_at = it->until;
		return;
	case REASON_QUOTA:
		if (!strcmp(it->detail, "slurm"))
			break; /* a backend's limit: when a job it waits for ends */
		/* Its department out of GPU-hours: no job's end changes that,
		 * whether or not its queue is at its limit too. */
		if (r->quota_dept || r->queue < 0 || !c->qend[r->queue]) {
			w->reeval = REEVAL_POLICY;
			return;
		}
		w->reeval = REEVAL_JOB_END;
		w->reeval_job = c->qend_job[r->queue];
		w->reeval_at = c->qend[r->queue];
		return;
	case REASON_USER_LIMIT: {
		if (!strcmp(it->detail, "slurm"))
			break;
		/* When one of the user's jobs (of the queue, for its limit) ends. */
		const struct job *j = &c->s->jobs[w->idx];
		size_t at = (size_t)c->ut.of_job[w->idx] * (GQ_MAX_QUEUES + 1);
		if (!strcmp(it->detail, "queue"))
			at += 1 + (size_t)policy_queue_index(&c->s->policy, j->queue);
		w->reeval = c->uend[at] ? REEVAL_JOB_END : REEVAL_POLICY;
		w->reeval_job = c->uend_job[at];
		w->reeval_at = c->uend[at];
		return;
	}
	case REASON_STARTING:
		w->reeval = REEVAL_NOW;
		return;
	default:
		break;
	}
	if (it->never && !strcmp(it->detail, "slurm")) {
		w->reeval = REEVAL_POLICY;
		return;
	}
	/* Capacity and contention: the first running job it waits for, else
	 * the next end of any job. */
	for (int i = 0; i < w->nwaits; i++) {
		if (k->waits[i].running) {
			w->reeval = REEVAL_JOB_END;
			w->reeval_job = k->waits[i].job;
			w->reeval_at = k->waits[i].end;
			return;
		}
	}
	if (c->first_end) {
		w->reeval = REEVAL_JOB_END;
		w->reeval_job = c->first_end_job;
		w->reeval_at = c->first_end;
		return;
	}
	w->reeval = REEVAL_POLICY;
}

static int cmp_wait(const void *a, const void *b)
{
	const struct why_wait *x = a, *y = b;
	if (x->running != y->running)
		return x->running ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

static void explain(const struct ctx *c, const struct prediction *pr, int ahead, int nfirst,
		    struct work *k)
{
	struct why *w = k->w;
	const struct snapshot *s = c->s;
	const struct job *j = &s->jobs[pr->idx];
	int64_t now = s->now;
	w->pred = pr;
	w->position = pr->position;
	w->ahead = ahead;
	w->nahead = nfirst < REASON_MAX_AHEAD ? nfirst : REASON_MAX_AHEAD;

	for (int i = 0; i < pr->nwaits; i++) {
		ptrdiff_t di = find_index(c, pr->waits[i]);
		struct why_wait *ww = &k->waits[w->nwaits++];
		ww->job = pr->waits[i];
		ww->running = di >= 0 && c->holds[di];
		ww->end = di >= 0 ? c->end[di] : 0;
	}
	qsort(k->waits, (size_t)w->nwaits, sizeof(k->waits[0]), cmp_wait);

	if (pr->placed && pr->start == now && !pr->never) {
		add_item(k, REASON_STARTING);
		w->primary = REASON_STARTING;
		w->reeval = REEVAL_NOW;
		return;
	}

	struct place_result r;
	place_check(&c->m, s, j, now, &r);
	if (j->held) {
		struct reason_item *it = add_item(k, REASON_HELD);
		it->never = true;
	}
	dependency(c, j, k);
	if (r.blocks & PLACE_BIT(PLACE_WINDOW)) {
		struct reason_item *it = add_item(k, REASON_WINDOW);
		it->until = r.window_end;
	}
	if (j->not_before > now) {
		struct reason_item *it = add_item(k, REASON_COOLDOWN);
		it->until = j->not_before;
	}
	if (j->begin_time > now) {
		struct reason_item *it = add_item(k, REASON_BEGIN);
		it->until = j->begin_time;
	}
	int64_t resv_at = s->nresv ? resv_earliest(s, j, now, NULL) : now;
	if (resv_at > now) {
		struct reason_item *it = add_item(k, REASON_RESERVATION);
		it->until = resv_at;
	}
	/* A limit the backend holds it by, whose numbers the snapshot does
	 * not carry (sim_init.c's init_backend_limits). */
	bool blimit = s->order == ORDER_BACKEND && !strcmp(j->ext_class, "user_limit");
	if (blimit || (s->order == ORDER_BACKEND && !strcmp(j->ext_class, "quota"))) {
		struct reason_item *it = add_item(k, blimit ? REASON_USER_LIMIT : REASON_QUOTA);
		STR_COPY(it->detail, "slurm");
		it->need = j->req.gpus;
		it->never = pr->never == NEVER_LIMIT;
	}
	if (r.quota_queue) {
		struct reason_item *it = add_item(k, REASON_QUOTA);
		STR_COPY(it->detail, "queue");
		it->need = r.need;
		it->used = r.queue_used;
		it->limit = r.queue_limit;
		it->quota = r.queue_quota;
	}
	if (r.quota_dept) {
		struct reason_item *it = add_item(k, REASON_QUOTA);
		STR_COPY(it->detail, "dept");
		it->need = r.need;
		it->used = r.dept_used;
		it->limit = r.dept_limit;
		it->never = true;
	}
	struct ulimit_hit uh;
	if (c->ulimits &&
	    ulimit_gpus_over(&s->policy, &c->ut.users[c->ut.of_job[pr->idx]],
			     policy_queue_index(&s->policy, j->queue), j->req.gpus, &uh)) {
		struct reason_item *it = add_item(k, REASON_USER_LIMIT);
		STR_COPY(it->detail, uh.queue ? "queue" : "all");
		it->need = j->req.gpus;
		it->used = uh.used;
		it->limit = uh.limit;
	}
	if (j->array_max > 0) {
		int running = array_running(s, j);
		if (running >= j->array_max) {
			struct reason_item *it = add_item(k, REASON_THROTTLE);
			it->job = j->array_id;
			it->used = running;
			it->limit = j->array_max;
		}
	}
	if (r.blocks & PLACE_BIT(PLACE_UNSATISFIABLE)) {
		struct reason_item *it = add_item(k, REASON_UNSATISFIABLE);
		enum place_unsat u = place_unsat_why(&c->m, s, j, &it->have);
		STR_COPY(it->detail, place_unsat_name(u));
		it->need = r.need;
		it->never = true;
	} else if (s->order == ORDER_BACKEND && !strcmp(j->ext_class, "unsatisfiable")) {
		/* A limit of Slurm's on each job that gq does not read. */
		struct reason_item *it = add_item(k, REASON_UNSATISFIABLE);
		STR_COPY(it->detail, "slurm");
		it->need = j->req.gpus;
		it->never = true;
	}
	if (r.blocks & PLACE_BIT(PLACE_MISMATCH)) {
		struct reason_item *it = add_item(k, REASON_MISMATCH);
		it->need = r.need;
		it->have = r.usable;
		it->free = r.free;
	}
	if (r.blocks & PLACE_BIT(PLACE_HEADROOM)) {
		struct reason_item *it = add_item(k, REASON_HEADROOM);
		it->need = r.need;
		it->free = r.free;
		it->limit = r.reserve;
	}
	if (ahead > 0) {
		struct reason_item *it = add_item(k, REASON_PRIORITY);
		it->have = ahead;
	}
	if ((r.blocks & PLACE_BIT(PLACE_RESOURCES)) || !w->nitems) {
		/* Nothing else blocks: what is left is capacity, which the
		 * prediction may have found too fragmented or gone. */
		struct reason_item *it = add_item(k, REASON_RESOURCES);
		it->need = r.need;
		it->free = r.free;
		it->never = pr->never == NEVER_CAPACITY;
		/* The GPUs are there; the CPUs or memory asked for are not. */
		STR_COPY(it->detail, r.cpu_short && r.mem_short ? "cpus+mem"
				     : r.cpu_short		? "cpus"
				     : r.mem_short		? "mem"
								: "");
	}
	w->primary = k->items[0].reason;
	for (int i = 0; i < w->nitems; i++)
		w->never |= k->items[i].never;
	w->never |= pr->never != NEVER_NO;
	reeval(c, &r, k);
}

/* c->uend: per user, the earliest expected end of its jobs that hold GPUs
 * now or start at now, overall and per queue. */
static void user_ends(struct ctx *c)
{
	const struct snapshot *s = c->s;
	size_t n = c->ut.n * (GQ_MAX_QUEUES + 1);
	c->uend = xcalloc(n ? n : 1, sizeof(*c->uend));
	c->uend_job = xcalloc(n ? n : 1, sizeof(*c->uend_job));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		int64_t e = c->end[i];
		if (j->req.gpus <= 0 || !e)
			continue;
		if (!c->holds[i]) {
			const struct prediction *p = i < c->ps->njobs && c->ps->of_job[i] >= 0
							 ? &c->ps->items[c->ps->of_job[i]]
							 : NULL;
			if (!p || !p->placed || p->start != s->now || p->never)
				continue;
		}
		size_t at = (size_t)c->ut.of_job[i] * (GQ_MAX_QUEUES + 1);
		int qi = policy_queue_index(&s->policy, j->queue);
		size_t slots[2] = {at, qi >= 0 ? at + 1 + (size_t)qi : at};
		for (int k = 0; k < 2; k++) {
			if (!c->uend[slots[k]] || e < c->uend[slots[k]]) {
				c->uend[slots[k]] = e;
				c->uend_job[slots[k]] = j->id;
			}
		}
	}
}

/* The set's pools, growing while jobs are explained; the pointers of the
 * items are set once at the end, when the pools no longer move. */
struct pools {
	size_t nitems, citems, nwaits, cwaits;
	size_t *off; /* per why: its first item and wait */
};

/* Room at the ends of the pools for one more job's lists, which k then
 * points at: they are built in place, with no copy. */
static void make_room(struct why_set *ws, struct pools *pl, struct work *k)
{
	GROW(ws->item_pool, pl->citems, pl->nitems + REASON_COUNT + 1);
	GROW(ws->wait_pool, pl->cwaits, pl->nwaits + PREDICT_MAX_WAITS + 1);
	k->items = &ws->item_pool[pl->nitems];
	k->waits = &ws->wait_pool[pl->nwaits];
}

/* Keeps the lists k built for why i (after make_room). */
static void keep(struct pools *pl, size_t i, const struct work *k)
{
	const struct why *w = k->w;
	pl->off[2 * i] = pl->nitems;
	pl->off[2 * i + 1] = pl->nwaits;
	pl->nitems += (size_t)w->nitems;
	pl->nwaits += (size_t)w->nwaits;
}

/* A pending job blocked by a dependency is not eligible: it shows no
 * aging, as a held one does (its wait that ages starts when the
 * dependency is met: gq serve keeps that in eligible_time). */
static bool dep_blocked(const struct snapshot *s, const struct job *j)
{
	return j->ndeps && j->state == JOB_PENDING && dep_met_at(s, j) < 0;
}

static double shown_weight(const struct snapshot *s, const struct job *j)
{
	return dep_blocked(s, j) ? s->policy.tier[job_tier(j)].base
				 : order_weight(&s->policy, j, s->now);
}

static void fill_weight(const struct snapshot *s, const struct job *j, struct why *w)
{
	w->job = j->id;
	w->tier = job_tier(j);
	w->base = s->policy.tier[w->tier].base;
	w->weight = shown_weight(s, j);
	w->c = dep_blocked(s, j) ? 0 : order_c(&s->policy, j, s->now);
}

/* Item slot of snapshot job idx: room made in the pools, the index kept,
 * the weight filled in. */
static struct why *begin_why(struct why_set *out, struct pools *pl, struct work *k,
			     const struct snapshot *s, size_t slot, size_t idx)
{
	struct why *w = &out->items[slot];
	k->w = w;
	make_room(out, pl, k);
	out->of_job[idx] = (int32_t)slot;
	fill_weight(s, &s->jobs[idx], w);
	w->idx = idx;
	return w;
}

void reason_all(const struct snapshot *s, const struct prediction_set *ps, struct why_set *out)
{
	why_set_release(out);
	size_t nstarting = 0;
	for (size_t i = 0; i < s->njobs; i++)
		nstarting += s->jobs[i].state == JOB_STARTING;
	out->now = s->now;
	out->n = ps->n + nstarting;
	out->items = xcalloc(out->n ? out->n : 1, sizeof(*out->items));
	out->njobs = s->njobs;
	out->of_job = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*out->of_job));
	for (size_t i = 0; i < s->njobs; i++)
		out->of_job[i] = -1;
	struct pools pl;
	memset(&pl, 0, sizeof(pl));
	pl.off = xmalloc((out->n ? out->n : 1) * 2 * sizeof(*pl.off));
	/* Sized for the usual two items and one wait per job: the
	 * pages a job does not use are never touched, and growing by copies
	 * is what costs. */
	GROW(out->item_pool, pl.citems, 2 * out->n + REASON_COUNT + 1);
	GROW(out->wait_pool, pl.cwaits, out->n + PREDICT_MAX_WAITS + 1);

	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.ps = ps;
	place_map_init(&c.m, s);
	c.end = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*c.end));
	c.holds = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*c.holds));
	bool increasing = true;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		increasing &= i == 0 || s->jobs[i - 1].id < j->id;
		c.holds[i] = job_state_holds_gpus(j->state);
		c.end[i] = end_of(&c, j);
		if (!c.holds[i])
			continue;
		int64_t e = ps->ends[i];
		if (!c.first_end || e < c.first_end) {
			c.first_end = e;
			c.first_end_job = j->id;
		}
		int qi = policy_queue_index(&s->policy, j->queue);
		if (qi >= 0 && (!c.qend[qi] || e < c.qend[qi])) {
			c.qend[qi] = e;
			c.qend_job[qi] = j->id;
		}
	}
	if (increasing && s->njobs) {
		uint64_t span = (uint64_t)s->jobs[s->njobs - 1].id - (uint64_t)s->jobs[0].id;
		if (span < 4 * (uint64_t)s->njobs) {
			c.id_base = s->jobs[0].id;
			c.nid = (size_t)span + 1;
			c.by_id = xmalloc(c.nid * sizeof(*c.by_id));
			memset(c.by_id, 0xff, c.nid * sizeof(*c.by_id));
			for (size_t i = 0; i < s->njobs; i++)
				c.by_id[(uint64_t)s->jobs[i].id - (uint64_t)c.id_base] = (int32_t)i;
		}
	}
	c.ulimits = ulimit_gpus_set(&s->policy);
	if (c.ulimits)
		ulimit_table_init(&c.ut, s);
	for (size_t i = 0; i < ps->n; i++) {
		const struct prediction *pr = &ps->items[i];
		if (!pr->placed || pr->start != s->now || pr->never)
			continue;
		const struct job *j = &s->jobs[pr->idx];
		int qi = policy_queue_index(&s->policy, j->queue);
		place_take(&c.m, qi, &j->req, pr->nalloc, pr->alloc);
		if (c.ulimits && j->req.gpus > 0)
			ulimit_take(&c.ut.users[c.ut.of_job[pr->idx]], qi, j->req.gpus);
	}
	if (c.ulimits)
		user_ends(&c);

	/* Who is ahead of whom needs the queue order and the predictions
	 * only: a job ahead counts unless it starts now or can never start,
	 * which is what its own explanation will say, and only for jobs that
	 * want the same (GPUs, or none). */
	int *ahead_of = xmalloc((ps->n ? ps->n : 1) * sizeof(*ahead_of));
	int nfirst[2] = {0, 0}, ahead[2] = {0, 0};
	for (size_t i = 0; i < ps->n; i++) {
		const struct prediction *pr = &ps->items[i];
		const struct job *j = &s->jobs[pr->idx];
		int cls = j->req.gpus > 0;
		ahead_of[i] = ahead[cls];
		if (pr->never || (pr->placed && pr->start == s->now))
			continue;
		ahead[cls]++;
		if (nfirst[cls] < REASON_MAX_AHEAD)
			out->ahead_first[cls][nfirst[cls]++] = (struct why_ahead){
			    j->id, job_tier(j), shown_weight(s, j), j->claim_time != 0};
	}
	/* The explanations in snapshot order: the job records are large, and
	 * reading them in sequence is what the cache likes. */
	struct work k;
	for (size_t idx = 0; idx < s->njobs; idx++) {
		if (idx >= ps->njobs || ps->of_job[idx] < 0)
			continue;
		size_t i = (size_t)ps->of_job[idx];
		const struct prediction *pr = &ps->items[i];
		const struct job *j = &s->jobs[idx];
		struct why *w = begin_why(out, &pl, &k, s, i, idx);
		w->rises = !dep_blocked(s, j) &&
			   order_next_rise(&s->policy, j, s->now, &w->rise_at, &w->rise_weight);
		explain(&c, pr, ahead_of[i],
			ahead_of[i] < REASON_MAX_AHEAD ? ahead_of[i] : REASON_MAX_AHEAD, &k);
		keep(&pl, i, &k);
	}
	free(ahead_of);
	size_t n = ps->n;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_STARTING)
			continue;
		struct why *w = begin_why(out, &pl, &k, s, n, i);
		add_item(&k, REASON_STARTING);
		w->primary = REASON_STARTING;
		w->reeval = REEVAL_NOW;
		keep(&pl, n++, &k);
	}
	for (size_t i = 0; i < out->n; i++) {
		struct why *w = &out->items[i];
		w->items = &out->item_pool[pl.off[2 * i]];
		w->waits = &out->wait_pool[pl.off[2 * i + 1]];
		const struct job *j = w->idx < s->njobs ? &s->jobs[w->idx] : NULL;
		w->ahead_first = out->ahead_first[j && j->req.gpus > 0];
	}
	free(pl.off);
	free(c.end);
	free(c.holds);
	free(c.by_id);
	free(c.uend);
	free(c.uend_job);
	if (c.ulimits)
		ulimit_table_release(&c.ut);
	place_map_release(&c.m);
}
