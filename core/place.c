/*
 * place.c - the free-GPU map, constraint checks and best-fit allocation.
 *
 * Everything is a linear pass over the nodes; the prediction keeps its own
 * incremental counters on top of these functions rather than rebuilding a
 * map per step.
 */
#include "place.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *const block_names[PLACE_BLOCK_COUNT] = {
	[PLACE_UNSATISFIABLE] = "unsatisfiable", [PLACE_WINDOW] = "window",
	[PLACE_QUOTA] = "quota",		 [PLACE_MISMATCH] = "mismatch",
	[PLACE_HEADROOM] = "headroom",		 [PLACE_RESOURCES] = "resources",
};

const char *place_block_name(enum place_block b)
{
	return (unsigned)b < PLACE_BLOCK_COUNT ? block_names[b] : "?";
}

static uint64_t node_mask(const struct node *n)
{
	int g = n->ngpus < 0 ? 0 : n->ngpus > GQ_MAX_NODE_GPUS ? GQ_MAX_NODE_GPUS : n->ngpus;
	return g == 64 ? ~(uint64_t)0 : (((uint64_t)1 << g) - 1);
}

static int reserve_of(const struct policy *p, int total)
{
	return (int)floor(p->headroom * total + 1e-9);
}

void place_map_init(struct place_map *m, const struct snapshot *s)
{
	memset(m, 0, sizeof(*m));
	m->nnodes = s->nnodes;
	m->free = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*m->free));
	for (size_t i = 0; i < s->nnodes; i++) {
		if (!s->nodes[i].up)
			continue;
		m->free[i] = node_mask(&s->nodes[i]);
		m->total += __builtin_popcountll(m->free[i]);
	}
	m->nfree = m->total;
	m->reserve = reserve_of(&s->policy, m->total);
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!job_state_holds_gpus(j->state))
			continue;
		int qi = policy_queue_index(&s->policy, j->queue);
		for (int a = 0; a < j->nalloc && a < GQ_MAX_ALLOC; a++) {
			int nd = j->alloc[a].node;
			if (nd < 0 || (size_t)nd >= s->nnodes)
				continue;
			uint64_t held = j->alloc[a].mask & m->free[nd];
			m->free[nd] &= ~held;
			m->nfree -= __builtin_popcountll(held);
			if (qi >= 0)
				m->queue_used[qi] += __builtin_popcountll(j->alloc[a].mask & node_mask(&s->nodes[nd]));
		}
	}
}

void place_map_release(struct place_map *m)
{
	free(m->free);
	m->free = NULL;
	m->nnodes = 0;
}

bool place_node_matches(const struct node *n, const struct job_res *req)
{
	if (req->gpu_type[0] && strcmp(req->gpu_type, n->gpu_model) != 0)
		return false;
	return req->gpu_mem_mb <= 0 || n->gpu_mem_mb >= req->gpu_mem_mb;
}

static int day_seconds(int64_t t, int32_t tz)
{
	int64_t l = (t + tz) % 86400;
	return (int)(l < 0 ? l + 86400 : l);
}

bool place_window_paused(const struct snapshot *s, int qi, int64_t now)
{
	if (qi < 0 || qi >= s->policy.nqueues)
		return false;
	return window_contains(&s->policy.queues[qi].paused, day_seconds(now, s->tz_offset) / 60);
}

static int64_t until_minute(int64_t now, int32_t tz, int minute)
{
	int64_t d = (int64_t)minute * 60 - day_seconds(now, tz);
	return d <= 0 ? d + 86400 : d;
}

int64_t place_window_next_edge(const struct snapshot *s, int qi, int64_t now)
{
	if (qi < 0 || qi >= s->policy.nqueues || !s->policy.queues[qi].paused.set)
		return 0;
	const struct window *w = &s->policy.queues[qi].paused;
	int64_t a = until_minute(now, s->tz_offset, w->start_min);
	int64_t b = until_minute(now, s->tz_offset, w->end_min);
	return now + (a < b ? a : b);
}

/* Lowest `count` set bits of mask. */
static uint64_t low_bits(uint64_t mask, int count)
{
	uint64_t out = 0;
	while (count-- > 0 && mask) {
		uint64_t b = mask & (~mask + 1);
		out |= b;
		mask &= ~b;
	}
	return out;
}

/* Best-fit allocation of req on the free GPUs of m; returns the number of
 * allocation entries (> 0) or 0 when it does not fit. usable gets the free
 * matching GPUs (same_node: the most on one node). */
static int allocate(const struct place_map *m, const struct snapshot *s, const struct job_res *req,
		    struct job_alloc *alloc, int *usable)
{
	int need = req->gpus;
	int best = -1, best_free = 0, total = 0, most = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		if (!m->free[i] || !place_node_matches(&s->nodes[i], req))
			continue;
		int f = __builtin_popcountll(m->free[i]);
		total += f;
		if (f > most)
			most = f;
		if (f >= need && (best < 0 || f < best_free)) {
			best = (int)i;
			best_free = f;
		}
	}
	*usable = req->same_node ? most : total;
	if (best >= 0) {
		alloc[0].node = best;
		alloc[0].mask = low_bits(m->free[best], need);
		return 1;
	}
	if (req->same_node || total < need)
		return 0;
	/* Spread: repeatedly take the node with the most free GPUs. The
	 * chosen set is at most GQ_MAX_ALLOC nodes, so selection by repeated
	 * scans costs GQ_MAX_ALLOC passes at worst. */
	int n = 0, left = need;
	uint64_t taken_nodes[GQ_MAX_ALLOC];
	while (left > 0) {
		if (n == GQ_MAX_ALLOC)
			return 0;
		int pick = -1, pf = 0;
		for (size_t i = 0; i < m->nnodes; i++) {
			if (!m->free[i] || !place_node_matches(&s->nodes[i], req))
				continue;
			bool used = false;
			for (int k = 0; k < n; k++)
				used |= taken_nodes[k] == i;
			if (used)
				continue;
			int f = __builtin_popcountll(m->free[i]);
			if (f > pf) {
				pick = (int)i;
				pf = f;
			}
		}
		if (pick < 0)
			return 0;
		int take = pf < left ? pf : left;
		alloc[n].node = pick;
		alloc[n].mask = low_bits(m->free[pick], take);
		taken_nodes[n++] = (uint64_t)pick;
		left -= take;
	}
	return n;
}

bool place_check(const struct place_map *m, const struct snapshot *s, const struct job *j,
		 int64_t now, struct place_result *out)
{
	const struct policy *p = &s->policy;
	struct place_result r;
	memset(&r, 0, sizeof(r));
	r.need = j->req.gpus;
	r.free = m->nfree;
	r.reserve = job_tier(j) == TIER_P0 ? 0 : m->reserve;
	r.queue = policy_queue_index(p, j->queue);
	r.queue_quota = r.queue_limit = -1;
	r.dept = policy_dept_index(p, j->dept);
	r.dept_limit = -1;

	if (place_satisfiable(s, j, NULL) < 0)
		r.blocks |= PLACE_BIT(PLACE_UNSATISFIABLE);
	if (r.queue >= 0) {
		const struct queue_policy *q = &p->queues[r.queue];
		if (place_window_paused(s, r.queue, now)) {
			r.blocks |= PLACE_BIT(PLACE_WINDOW);
			r.window_end = now + until_minute(now, s->tz_offset, q->paused.end_min);
		}
		r.queue_used = m->queue_used[r.queue];
		r.queue_quota = q->quota;
		r.queue_limit = q->quota < 0 || q->borrow < 0 ? -1 : q->quota + q->borrow;
		if (r.queue_limit >= 0 && r.queue_used + r.need > r.queue_limit)
			r.quota_queue = true;
		r.borrowed = q->quota >= 0 && r.queue_used + r.need > q->quota;
	}
	if (r.dept >= 0) {
		r.dept_used = s->dstate[r.dept].gpu_hours_month;
		r.dept_limit = p->depts[r.dept].gpu_hours_month;
		if (r.dept_limit >= 0 && r.need > 0 && r.dept_used >= r.dept_limit)
			r.quota_dept = true;
	}
	if (r.quota_queue || r.quota_dept)
		r.blocks |= PLACE_BIT(PLACE_QUOTA);

	if (r.need > 0) {
		r.nalloc = allocate(m, s, &j->req, r.alloc, &r.usable);
		if (r.free < r.need)
			r.blocks |= PLACE_BIT(PLACE_RESOURCES);
		else if (!r.nalloc)
			r.blocks |= PLACE_BIT(PLACE_MISMATCH);
		if (r.free >= r.need && r.free - r.need < r.reserve)
			r.blocks |= PLACE_BIT(PLACE_HEADROOM);
	}
	if (r.blocks) {
		r.nalloc = 0;
		r.borrowed = false;
	}
	*out = r;
	return r.blocks == 0;
}

void place_take(struct place_map *m, int qi, int nalloc, const struct job_alloc *alloc)
{
	for (int a = 0; a < nalloc; a++) {
		size_t nd = (size_t)alloc[a].node;
		if (nd >= m->nnodes || (m->free[nd] & alloc[a].mask) != alloc[a].mask)
			BUG("place_take: GPUs %llx of node %zu are not free", (unsigned long long)alloc[a].mask, nd);
		m->free[nd] &= ~alloc[a].mask;
		int c = __builtin_popcountll(alloc[a].mask);
		m->nfree -= c;
		if (qi >= 0 && qi < GQ_MAX_QUEUES)
			m->queue_used[qi] += c;
	}
}

void place_give(struct place_map *m, int qi, int nalloc, const struct job_alloc *alloc)
{
	for (int a = 0; a < nalloc; a++) {
		size_t nd = (size_t)alloc[a].node;
		if (nd >= m->nnodes)
			continue;
		uint64_t back = alloc[a].mask & ~m->free[nd];
		m->free[nd] |= back;
		int c = __builtin_popcountll(back);
		m->nfree += c;
		if (qi >= 0 && qi < GQ_MAX_QUEUES)
			m->queue_used[qi] -= c;
	}
}

int place_satisfiable(const struct snapshot *s, const struct job *j, struct gq_err *e)
{
	const struct policy *p = &s->policy;
	const struct job_res *req = &j->req;
	int need = req->gpus;
	if (need <= 0)
		return 0;
	int all = 0, match = 0, most = 0;
	int top[GQ_MAX_ALLOC] = {0}; /* the GQ_MAX_ALLOC largest matching nodes */
	for (size_t i = 0; i < s->nnodes; i++) {
		int g = __builtin_popcountll(node_mask(&s->nodes[i]));
		all += g;
		if (!place_node_matches(&s->nodes[i], req))
			continue;
		match += g;
		if (g > most)
			most = g;
		for (int k = 0; k < GQ_MAX_ALLOC; k++) {
			if (g > top[k]) {
				int t = top[k];
				top[k] = g;
				g = t;
			}
		}
	}
	char what[96];
	if (req->gpu_type[0] && req->gpu_mem_mb > 0)
		snprintf(what, sizeof(what), " of type '%s' with %lld MB", req->gpu_type,
			 (long long)req->gpu_mem_mb);
	else if (req->gpu_type[0])
		snprintf(what, sizeof(what), " of type '%s'", req->gpu_type);
	else if (req->gpu_mem_mb > 0)
		snprintf(what, sizeof(what), " with %lld MB", (long long)req->gpu_mem_mb);
	else
		what[0] = 0;
	if (match < need)
		return err_set(e, GQ_EINVAL,
			       "needs %d GPUs%s, the cluster has %d such GPUs: ask for fewer or other GPUs",
			       need, what, match);
	if (req->same_node && most < need)
		return err_set(e, GQ_EINVAL,
			       "needs %d GPUs%s on one node, the largest matching node has %d: ask for fewer GPUs or drop same-node",
			       need, what, most);
	int span = 0;
	for (int k = 0; k < GQ_MAX_ALLOC; k++)
		span += top[k];
	if (span < need)
		return err_set(e, GQ_EINVAL,
			       "needs %d GPUs%s, at most %d fit on %d nodes: ask for fewer GPUs",
			       need, what, span, GQ_MAX_ALLOC);
	int qi = policy_queue_index(p, j->queue);
	if (qi >= 0) {
		const struct queue_policy *q = &p->queues[qi];
		if (q->quota >= 0 && q->borrow >= 0 && need > q->quota + q->borrow)
			return err_set(e, GQ_EINVAL,
				       "needs %d GPUs, queue '%s' may hold at most %d (quota %d + borrow %d): ask for fewer GPUs or use another queue",
				       need, q->name, q->quota + q->borrow, q->quota, q->borrow);
	}
	if (job_tier(j) != TIER_P0) {
		int reserve = reserve_of(p, all);
		if (need > all - reserve)
			return err_set(e, GQ_EINVAL,
				       "needs %d GPUs, %s jobs may use at most %d of %d (headroom.share keeps %d for P0): ask for fewer GPUs",
				       need, tier_name(job_tier(j)), all - reserve, all, reserve);
	}
	return 0;
}
