/*
 * order.c - weights with aging and the total order of pending jobs.
 *
 * Sorting precomputes each job's key once (tier, weight, fair share, submit
 * time, id) so that the comparison does no policy lookups; weights are
 * compared through the aging step k rather than the double they produce,
 * which is exact inside a tier (same base) and monotonic in k.
 */
#include "order.h"

#include <stdlib.h>
#include <string.h>

int order_aging_steps(const struct policy *p)
{
	if (p->aging_step <= 0 || p->aging_cap <= 0 || p->aging_interval <= 0)
		return 0;
	/* The epsilon absorbs 0.1 * 5 landing a hair below 0.5. */
	double k = p->aging_cap / p->aging_step - 1e-9;
	if (k > 1e6)
		k = 1e6;
	int n = (int)k;
	if ((double)n < k)
		n++;
	return n < 0 ? 0 : n;
}

double order_aging_c(const struct policy *p, int64_t k)
{
	int steps = order_aging_steps(p);
	if (k <= 0 || steps == 0)
		return 0;
	if (k >= steps)
		return p->aging_cap;
	return (double)k * p->aging_step;
}

int64_t order_aging_k(const struct policy *p, int64_t waited)
{
	if (waited <= 0 || p->aging_interval <= 0)
		return 0;
	return waited / p->aging_interval;
}

/* Eligible time only (job_eligible_since); none for a job whose backend
 * leaves queued_time unset. */
static int64_t waited_at(const struct job *j, int64_t now)
{
	int64_t q = j->queued_time > 0 ? job_eligible_since(j, now) : 0;
	return q > 0 && now > q ? now - q : 0;
}

double order_c(const struct policy *p, const struct job *j, int64_t now)
{
	return order_aging_c(p, order_aging_k(p, waited_at(j, now)));
}

double order_weight(const struct policy *p, const struct job *j, int64_t now)
{
	int64_t k = order_aging_k(p, waited_at(j, now));
	return p->tier[job_tier(j)].base * (1 + order_aging_c(p, k));
}

bool order_next_rise(const struct policy *p, const struct job *j, int64_t now, int64_t *at,
		     double *weight)
{
	int steps = order_aging_steps(p);
	int64_t k = order_aging_k(p, waited_at(j, now));
	if (steps == 0 || k >= steps || j->held)
		return false;
	/* A --begin ahead: the first rise is an interval after it. */
	int64_t q = j->queued_time > 0 ? job_aging_base(j) : now;
	if (q <= 0)
		q = now;
	int64_t step = (k + 1) * p->aging_interval;
	if (q > GQ_TIME_MAX - step)
		return false; /* a --begin past any clock: no rise to say */
	*at = q + step;
	*weight = p->tier[job_tier(j)].base * (1 + order_aging_c(p, k + 1));
	return true;
}

double order_fair_share(const struct snapshot *s, const struct job *j)
{
	int qi = policy_queue_index(&s->policy, j->queue);
	if (qi < 0)
		return 0;
	double share = s->policy.queues[qi].share;
	return s->qstate[qi].usage / (share > 0 ? share : 1e-9);
}

double order_fair_share_cached(const struct snapshot *s, const struct job *j,
			       struct order_fs_cache *c)
{
	if (s->order == ORDER_BACKEND)
		return -(double)j->ext_prio;
	for (int i = 0; i < c->n; i++)
		if (c->queue[i][0] == j->queue[0] && !strncmp(c->queue[i], j->queue, GQ_NAME_MAX))
			return c->fs[i];
	int i = c->n < ORDER_FS_CACHE ? c->n++ : c->next++ % ORDER_FS_CACHE;
	STR_COPY(c->queue[i], j->queue);
	c->fs[i] = order_fair_share(s, j);
	return c->fs[i];
}

struct okey {
	int tier;
	int64_t k; /* aging steps, capped */
	double fs;
	int64_t submit;
	int64_t id;
	size_t idx;
};

static void key_fill(const struct snapshot *s, const struct job *j, int64_t now, int steps,
		     double fs, struct okey *k)
{
	if (s->order == ORDER_BACKEND) { /* the backend's priority alone */
		k->tier = 0;
		k->k = 0;
		k->fs = -(double)j->ext_prio;
		k->submit = j->submit_time;
		k->id = j->id;
		return;
	}
	k->tier = job_order_rank(j);
	k->k = order_aging_k(&s->policy, waited_at(j, now));
	if (k->k > steps)
		k->k = steps;
	k->fs = fs;
	k->submit = j->submit_time;
	k->id = j->id;
}

static int key_cmp(const struct okey *a, const struct okey *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (a->k != b->k)
		return a->k > b->k ? -1 : 1;
	if (a->fs != b->fs)
		return a->fs < b->fs ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int key_qcmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

int order_cmp(const struct snapshot *s, const struct job *a, const struct job *b, int64_t now)
{
	struct okey ka, kb;
	int steps = order_aging_steps(&s->policy);
	key_fill(s, a, now, steps, order_fair_share(s, a), &ka);
	key_fill(s, b, now, steps, order_fair_share(s, b), &kb);
	return key_cmp(&ka, &kb);
}

size_t order_pending(const struct snapshot *s, size_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->njobs; i++)
		n += s->jobs[i].state == JOB_PENDING;
	if (!n)
		return 0;
	struct okey *keys = xmalloc(n * sizeof(*keys));
	int steps = order_aging_steps(&s->policy);
	struct order_fs_cache c = ORDER_FS_CACHE_INIT;
	size_t m = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		if (s->jobs[i].state != JOB_PENDING)
			continue;
		key_fill(s, &s->jobs[i], s->now, steps, order_fair_share_cached(s, &s->jobs[i], &c),
			 &keys[m]);
		keys[m++].idx = i;
	}
	qsort(keys, n, sizeof(*keys), key_qcmp);
	for (size_t i = 0; i < n; i++)
		out[i] = keys[i].idx;
	free(keys);
	return n;
}

static int rkey_cmp(const void *pa, const void *pb)
{
	const struct order_key *a = pa, *b = pb;
	if (a->fs != b->fs)
		return a->fs < b->fs ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

void order_rank_keys(struct order_key *keys, size_t n, uint32_t *rank)
{
	qsort(keys, n, sizeof(*keys), rkey_cmp);
	for (size_t i = 0; i < n; i++)
		rank[keys[i].i] = (uint32_t)i;
}

void order_rank_static(const struct snapshot *s, const size_t *idx, size_t n, uint32_t *rank)
{
	if (!n)
		return;
	struct order_key *keys = xmalloc(n * sizeof(*keys));
	struct order_fs_cache c = ORDER_FS_CACHE_INIT;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[idx[i]];
		keys[i].fs = order_fair_share_cached(s, j, &c);
		keys[i].submit = j->submit_time;
		keys[i].id = j->id;
		keys[i].i = i;
	}
	order_rank_keys(keys, n, rank);
	free(keys);
}
