/*
 * sim_init.c - the simulation's state for one snapshot (sim.h), built in
 * one pass over the job records and sized once, and its release.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "job.h"

#include "array.h"
#include "depend.h"
#include "permit.h"
#include "resv.h"

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
	x->otier = s->order == ORDER_BACKEND ? 0 : job_order_rank(j);
	x->qi = S->ji[i].qi;
	x->di = name_lookup(dc, S->p, j->dept, policy_dept_index);
	x->gpus = j->req.gpus;
	x->req = j->req;
	x->unconstrained = !j->req.gpu_type[0] && j->req.gpu_mem_mb <= 0;
	x->windowed = x->qi >= 0 && S->p->queues[x->qi].paused.set;
	x->qlim = -1;
	if (x->qi >= 0 && S->p->queues[x->qi].quota >= 0 && S->p->queues[x->qi].borrow >= 0)
		x->qlim = S->p->queues[x->qi].quota + S->p->queues[x->qi].borrow;
	bool ql;
	x->ui =
	    S->ulimits && x->gpus > 0 && ulimit_gpus_cap(S->p, x->qi, &ql) >= 0 ? S->ji[i].ui : -1;
	x->special = x->windowed || x->qlim >= 0 || x->ui >= 0;
	x->q = j->queued_time > 0 && !j->held ? job_aging_base(j) : INT64_MAX / 4;
	x->rt = predict_runtime(S->p, j);
	x->bf_rt = predict_bounded(j) ? x->rt : SIM_UNBOUNDED;
	x->rt_low = predict_runtime_low(S->p, j);
	x->rt_high = predict_runtime_high(S->p, j);
	x->release_at = j->not_before > S->now ? j->not_before : S->now;
	x->release_gate = GATE_COOLDOWN;
	x->release_jidx = -1;
	if (j->begin_time > x->release_at) {
		x->release_at = j->begin_time;
		x->release_gate = GATE_BEGIN;
	}
	if (s->nresv) {
		int64_t r = resv_earliest(s, j, x->release_at, NULL);
		if (r > x->release_at) {
			x->release_at = r;
			x->release_gate = GATE_RESERVATION;
		}
	}
	if (x->release_at > S->now + PREDICT_MAX_RUNTIME)
		x->release_at = S->now + PREDICT_MAX_RUNTIME;
	x->gate_t = x->gate_low = x->gate_high = S->now;
	x->gate = GATE_NOW;
	x->status = ST_GATED;
	x->never = NEVER_NO;
	if (j->held)
		x->never = NEVER_HELD;
	else if (place_satisfiable_map(&S->m, s, j, x->qi, NULL) < 0)
		x->never = NEVER_UNSATISFIABLE;
	else if (x->gpus > 0 && snapshot_dept_spent(s, x->di) &&
		 S->p->depts[x->di].over_action == QUOTA_STOP)
		x->never = NEVER_DEPT_QUOTA;
	for (int d = 0; x->never == NEVER_NO && d < j->ndeps && d < GQ_MAX_DEPS; d++) {
		const struct job *dj;
		enum dep_status ds = dep_status_at(s, j, d, &dj);
		if (ds == DEP_MET && dj != j)
			continue;
		if (ds == DEP_NEVER || dj == j) {
			x->never = dj == j ? NEVER_DEP_NEVER : NEVER_DEP_FAILED;
			break;
		}
		x->deps_left++;
		x->has_deps = true;
	}
	const struct job *tj = S->thr_dep && S->thr_dep[i] ? snapshot_find(s, S->thr_dep[i]) : NULL;
	if (x->never == NEVER_NO && tj && job_state_active(tj->state)) {
		x->deps_left++;
		x->has_deps = true;
	}
	if (x->never != NEVER_NO) {
		x->status = ST_NEVER;
		x->deps_left = 0;
	}
}

/* What the staging pass hands to the later steps of sim_init. */
struct staging {
	struct order_key *keys; /* per staged job: its static rank's keys */
	uint32_t *bkey;		/* per staged job: its (tier, aging step) bucket */
	size_t npool;		/* allocation entries the pool needs */
	size_t ndeps;		/* dependencies waited for, over all pending jobs */
};

/* The empty state and the prediction set's arrays, sized by the count of
 * pending jobs. */
static void init_state(struct sim *S, const struct snapshot *s, const struct job *as, size_t as_idx,
		       struct prediction_set *out)
{
	memset(S, 0, sizeof(*S));
	S->s = s;
	S->as = as_idx < s->njobs ? as : NULL;
	S->as_idx = as_idx;
	S->p = &s->policy;
	S->now = s->now;
	S->busy_t = s->now;
	size_t nj = s->njobs, nj1 = nj ? nj : 1;
	place_map_init(&S->m, s);
	out->nfree = S->m.nfree;
	S->steps = order_aging_steps(S->p);
	if (S->steps > MAX_BUCKETS - 1)
		S->steps = MAX_BUCKETS - 1;

	bool throttled = false;
	for (size_t i = 0; i < nj; i++) {
		S->np += sim_job(S, i)->state == JOB_PENDING;
		throttled |= sim_job(S, i)->array_max > 0;
	}
	if (throttled) {
		S->thr_dep = xmalloc(nj1 * sizeof(*S->thr_dep));
		array_throttle_deps(s, S->thr_dep);
	}
	S->ulimits = ulimit_gpus_set(S->p);
	if (S->ulimits) {
		ulimit_table_init(&S->ut, s);
		size_t nu = S->ut.n ? S->ut.n : 1;
		S->park_user = xcalloc(nu, sizeof(*S->park_user));
		S->npark_user = xcalloc(nu, sizeof(*S->npark_user));
		S->cap_park_user = xcalloc(nu, sizeof(*S->cap_park_user));
	}
	size_t np = S->np, np1 = np ? np : 1;
	out->now = s->now;
	out->n = np;
	out->items = xcalloc(np1, sizeof(*out->items));
	out->njobs = nj;
	out->of_job = xmalloc(nj1 * sizeof(*out->of_job));
	out->ends = xcalloc(nj1, sizeof(*out->ends));
	S->out = out->items;
	S->of_job = out->of_job;
}

/* Per GPU: who released it last, and when. */
static void init_releases(struct sim *S)
{
	const struct snapshot *s = S->s;
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
}

static void init_stage(struct sim *S, struct prediction_set *out, struct staging *st)
{
	const struct snapshot *s = S->s;
	/*
	 * One pass over the job records, in snapshot order (they are large,
	 * and reading them in sequence is what the cache likes): every job's
	 * compact record, the ends of the jobs holding GPUs, and a staged
	 * record of every pending job with the keys of the order at now: its
	 * static rank (fair share, submit time, id), tier and aging step.
	 */
	size_t nj = s->njobs, nj1 = nj ? nj : 1, np1 = S->np ? S->np : 1;
	S->ji = xcalloc(nj1, sizeof(*S->ji));
	/* the jobs one start waits for are jobs of the snapshot, each once */
	S->waitv = xmalloc((nj1 + 1) * sizeof(*S->waitv));
	S->waitcap = nj1 + 1;
	/* Staged in snapshot order, then moved in place to position order. */
	S->pj = xcalloc(np1, sizeof(*S->pj));
	struct pj *stage = S->pj;
	st->keys = xmalloc(np1 * sizeof(*st->keys));
	st->bkey = xmalloc(np1 * sizeof(*st->bkey));
	struct name_cache qc = {.n = 0}, dc = {.n = 0};
	struct order_fs_cache fc = ORDER_FS_CACHE_INIT;
	size_t k = 0;
	S->min_rt = INT64_MAX;
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = sim_job(S, i);
		S->of_job[i] = -1;
		S->ji[i].id = j->id;
		S->ji[i].qi = name_lookup(&qc, S->p, j->queue, policy_queue_index);
		S->ji[i].ui = S->ulimits ? S->ut.of_job[i] : -1;
		if (job_state_holds_gpus(j->state)) {
			int64_t e = predict_end(S->p, j, S->now);
			int64_t lo = predict_end_rt(j, predict_runtime_low(S->p, j), S->now);
			int64_t hi = predict_end_rt(j, predict_runtime_high(S->p, j), S->now);
			S->ji[i].end_low = lo < e ? lo : e;
			S->ji[i].end_high = hi > e ? hi : e;
			out->ends[i] = e;
			S->ji[i].alloc = j->alloc;
			S->ji[i].nalloc = j->nalloc < 0 ? 0 : j->nalloc;
			for (int a = 0; a < S->ji[i].nalloc; a++)
				S->ji[i].held += __builtin_popcountll(j->alloc[a].mask);
			st->npool += (size_t)S->ji[i].nalloc;
			theap_push(&S->ends, e, EV_END, (uint32_t)i);
			continue;
		}
		if (j->state != JOB_PENDING)
			continue;
		struct pj *x = &stage[k];
		stage_pending(S, j, i, &dc, x);
		if (x->rt < S->min_rt)
			S->min_rt = x->rt;
		/* a CPU-only job is placed on one node too; an allocation
		 * has at most one entry per node */
		size_t span = s->nnodes < GQ_MAX_SPAN ? s->nnodes : GQ_MAX_SPAN;
		st->npool += x->gpus < 1 ? 1 : (size_t)x->gpus < span ? (size_t)x->gpus : span;
		st->ndeps += (size_t)x->deps_left;
		st->keys[k] = (struct order_key){order_fair_share_cached(s, j, &fc), j->submit_time,
						 j->id, k};
		int b = bucket_at(S, x, S->now);
		st->bkey[k] = (uint32_t)(x->otier * (S->steps + 1) + (S->steps - b));
		k++;
	}
}

/* Gives every staged job its position and moves it there. */
static void init_positions(struct sim *S, struct staging *st)
{
	/* The order at now without a second sort: bucket the ranked jobs by
	 * tier and aging step, which keeps rank order inside each bucket. */
	size_t np = S->np, np1 = np ? np : 1;
	struct order_key *keys = st->keys;
	uint32_t *bkey = st->bkey;
	struct pj *stage = S->pj; /* staged in snapshot order */
	uint32_t *rank = xmalloc(np1 * sizeof(*rank));
	order_rank_keys(keys, np, rank);
	free(keys);
	size_t nb = (size_t)ORDER_RANKS * (size_t)(S->steps + 1);
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
}

/* A job of a holder of GPUs (a user or an account) and its expected end. */
struct holder_end {
	const char *name;
	int64_t end;
	uint32_t jidx;
};

static int cmp_holder_end(const void *a, const void *b)
{
	const struct holder_end *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->jidx > y->jidx) - (x->jidx < y->jidx);
}

/* The earliest end among v[0..n) (sorted) of holder name, or NULL. */
static const struct holder_end *holder_first(const struct holder_end *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? &v[lo] : NULL;
}

/*
 * A backend that schedules itself (ORDER_BACKEND: Slurm) holds some jobs
 * by limits whose numbers the snapshot does not carry: a user's
 * (QOSMaxGRESPerUser: ext_class "user_limit") or a group's (AssocGrpGRES:
 * "quota"). Such a job cannot start before a job of its user (of its
 * account, job.dept, for a group's limit) that holds resources ends: it
 * is released then, a bound the simulation may only make later; when no
 * such job runs, no end the snapshot knows of lifts the limit
 * (NEVER_LIMIT).
 */
static void init_backend_limits(struct sim *S, const int64_t *ends)
{
	const struct snapshot *s = S->s;
	if (s->order != ORDER_BACKEND)
		return;
	size_t nlim = 0;
	for (size_t p = 0; p < S->np; p++) {
		const struct job *j = sim_job(S, S->pj[p].jidx);
		/* Slurm's per-job limits (PartitionTimeLimit, QOSMax*PerJob,
		 * PartitionConfig...): it will not start the job as it is. */
		if (S->pj[p].status != ST_NEVER && !strcmp(j->ext_class, "unsatisfiable")) {
			S->pj[p].never = S->out[p].never = NEVER_UNSATISFIABLE;
			S->pj[p].status = ST_NEVER;
			S->pj[p].deps_left = 0;
			continue;
		}
		nlim += S->pj[p].status != ST_NEVER &&
			(!strcmp(j->ext_class, "user_limit") || !strcmp(j->ext_class, "quota"));
	}
	if (!nlim)
		return;
	size_t nh = 0;
	for (size_t i = 0; i < s->njobs; i++)
		nh += job_state_holds_gpus(sim_job(S, i)->state);
	struct holder_end *by_user = xmalloc((nh ? nh : 1) * sizeof(*by_user));
	struct holder_end *by_acct = xmalloc((nh ? nh : 1) * sizeof(*by_acct));
	size_t k = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = sim_job(S, i);
		if (!job_state_holds_gpus(j->state))
			continue;
		by_user[k] = (struct holder_end){j->user, ends[i], (uint32_t)i};
		by_acct[k++] = (struct holder_end){j->dept, ends[i], (uint32_t)i};
	}
	qsort(by_user, nh, sizeof(*by_user), cmp_holder_end);
	qsort(by_acct, nh, sizeof(*by_acct), cmp_holder_end);
	for (size_t p = 0; p < S->np; p++) {
		struct pj *x = &S->pj[p];
		const struct job *j = sim_job(S, x->jidx);
		bool user = !strcmp(j->ext_class, "user_limit");
		if (x->status == ST_NEVER || (!user && strcmp(j->ext_class, "quota")))
			continue;
		const struct holder_end *h =
		    user ? holder_first(by_user, nh, j->user) : holder_first(by_acct, nh, j->dept);
		if (!h) {
			x->never = S->out[p].never = NEVER_LIMIT;
			x->status = ST_NEVER;
			x->deps_left = 0;
			continue;
		}
		if (h->end > x->release_at) {
			x->release_at = h->end;
			x->release_gate = user ? GATE_USER : GATE_QUOTA;
			x->release_jidx = (int32_t)h->jidx;
		}
	}
	free(by_user);
	free(by_acct);
}

static void init_pool(struct sim *S, struct prediction_set *out, const struct staging *st)
{
	const struct snapshot *s = S->s;
	/* The pool holds the allocations of the jobs holding GPUs too, so
	 * that an end reads them from there rather than from the job. */
	size_t npool = st->npool, nj = s->njobs;
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
}

static void init_dependents(struct sim *S, const struct staging *st)
{
	const struct snapshot *s = S->s;
	/* Dependents, as a CSR list per snapshot job. */
	size_t nj = S->s->njobs;
	S->dep_off = xcalloc(nj + 2, sizeof(size_t));
	S->dep_list = xmalloc((st->ndeps ? st->ndeps : 1) * sizeof(uint32_t));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t p = 0; p < S->np; p++) {
			const struct pj *x = &S->pj[p];
			if (!x->deps_left)
				continue;
			const struct job *j = sim_job(S, x->jidx);
			for (int d = 0; d < j->ndeps && d < GQ_MAX_DEPS; d++) {
				const struct job *dj = snapshot_find(s, j->deps[d]);
				if (dep_status(dep_kind_of(j, d), dj) != DEP_WAIT)
					continue;
				size_t di = (size_t)(dj - s->jobs);
				if (pass == 0)
					S->dep_off[di + 2]++;
				else
					S->dep_list[S->dep_off[di + 1]++] = (uint32_t)p;
			}
			const struct job *tj = S->thr_dep && S->thr_dep[x->jidx]
						   ? snapshot_find(s, S->thr_dep[x->jidx])
						   : NULL;
			if (tj && job_state_active(tj->state)) {
				size_t di = (size_t)(tj - s->jobs);
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
}

static void init_aging(struct sim *S)
{
	/* Per tier, by queued time, for the aging cursors; jobs already at
	 * the cap, or that never start, never move again. */
	struct qkey *qk = xmalloc((S->np ? S->np : 1) * sizeof(*qk));
	for (int tier = 0; tier < ORDER_RANKS; tier++) {
		size_t n = 0;
		for (size_t p = 0; p < S->np; p++) {
			const struct pj *x = &S->pj[p];
			if (x->otier == tier && x->status != ST_NEVER &&
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
}

static void init_permits(struct sim *S)
{
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
		S->earn[p] = permit_earned_at(S->p, sim_job(S, S->pj[p].jidx));
		if (S->earn[p] <= S->now) {
			S->lin[S->nlin++] = (uint32_t)p;
			S->zero_holder |= S->pj[p].gpus <= 0;
		} else
			S->by_earn[S->nby_earn++] = (uint32_t)p;
	}
}

/* Every job free to go at now is ready; the others wait for their
 * release or their dependencies. */
static void init_gates(struct sim *S)
{
	sim_migrate(S, S->now);
	for (size_t p = 0; p < S->np; p++) {
		struct pj *x = &S->pj[p];
		if (x->status != ST_GATED || x->deps_left)
			continue;
		if (x->release_at > S->now) {
			gate_release(S, x);
			theap_push(&S->events, x->release_at, EV_RELEASE, (uint32_t)p);
			S->nrelease++;
		} else {
			make_ready(S, (uint32_t)p, S->now);
		}
	}
}

void sim_init(struct sim *S, const struct snapshot *s, const struct job *as, size_t as_idx,
	      struct prediction_set *out)
{
	struct staging st = {0};
	init_state(S, s, as, as_idx, out);
	init_releases(S);
	init_stage(S, out, &st);
	init_positions(S, &st);
	init_backend_limits(S, out->ends);
	init_pool(S, out, &st);
	init_dependents(S, &st);
	init_aging(S);
	init_permits(S);
	init_gates(S);
}

void sim_release(struct sim *S)
{
	place_map_release(&S->m);
	free(S->ji);
	free(S->waitv);
	free(S->goff);
	free(S->rel_job);
	free(S->rel_t);
	free(S->dep_off);
	free(S->dep_list);
	free(S->thr_dep);
	if (S->ulimits) {
		for (size_t u = 0; u < S->ut.n; u++)
			free(S->park_user[u]);
		free(S->park_user);
		free(S->npark_user);
		free(S->cap_park_user);
		ulimit_table_release(&S->ut);
	}
	free(S->ends.v);
	free(S->events.v);
	for (int i = 0; i < ORDER_RANKS * (S->steps + 1); i++) {
		free(S->ready[i].heap.v);
		free(S->ready[i].run);
		free(S->front[i].v);
	}
	free(S->ready);
	free(S->front);
	free(S->cursor);
	for (int t = 0; t < ORDER_RANKS; t++)
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
