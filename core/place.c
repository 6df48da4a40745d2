/*
 * place.c - the free-GPU map, constraint checks and best-fit allocation.
 *
 * Everything is a linear pass over the nodes; the prediction keeps its own
 * incremental counters on top of these functions rather than rebuilding a
 * map per step.
 */
#include "place.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ulimit.h"

static const char *const block_names[PLACE_BLOCK_COUNT] = {
    [PLACE_UNSATISFIABLE] = "unsatisfiable",
    [PLACE_WINDOW] = "window",
    [PLACE_QUOTA] = "quota",
    [PLACE_MISMATCH] = "mismatch",
    [PLACE_HEADROOM] = "headroom",
    [PLACE_RESOURCES] = "resources",
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

int place_reserve(const struct place_map *m, enum tier tier, int need)
{
	if (tier == TIER_P0)
		return 0;
	int room = m->total - need;
	if (room < 0)
		room = 0;
	return m->reserve < room ? m->reserve : room;
}

#define NF 65 /* free counts 0..64 */

/* The GPUs of the GQ_MAX_SPAN largest nodes of a histogram of nodes by
 * their GPUs (hist[g]: nodes with g GPUs, g 0..64). */
static int span_of(const int *hist)
{
	int left = GQ_MAX_SPAN, span = 0;
	for (int g = NF - 1; g > 0 && left > 0; g--) {
		int k = hist[g] < left ? hist[g] : left;
		span += k * g;
		left -= k;
	}
	return span;
}

/* The largest g with a node in hist, 0 when none. */
static int most_of(const int *hist)
{
	for (int g = NF - 1; g > 0; g--)
		if (hist[g])
			return g;
	return 0;
}

static void index_move(struct place_map *m, size_t nd, int from, int to)
{
	int c = m->node_class[nd];
	uint64_t bit = (uint64_t)1 << (nd % 64);
	if (from >= 0) {
		m->by_free[(size_t)from * m->words + nd / 64] &= ~bit;
		m->class_count[c * NF + from]--;
		m->class_free[c] -= from;
	}
	m->by_free[(size_t)to * m->words + nd / 64] |= bit;
	m->class_count[c * NF + to]++;
	m->class_free[c] += to;
}

/* What a node that does not say its CPUs or memory has of them: more than
 * any request (GQ_MAX_REQ_*) times any number of jobs can take. */
#define UNSIZED (INT64_C(1) << 60)

/* CPUs and memory of req on each node of an allocation: taken (sign -1) or
 * given back (+1). Nodes out of range are skipped. */
static void take_res(struct place_map *m, const struct job_res *req, int nalloc,
		     const struct job_alloc *alloc, int sign)
{
	if (!req || (req->cpus <= 0 && req->mem_mb <= 0))
		return;
	for (int a = 0; a < nalloc; a++) {
		int nd = alloc[a].node;
		if (nd < 0 || (size_t)nd >= m->nnodes)
			continue;
		m->cpus_free[nd] += sign * (int64_t)req->cpus;
		m->mem_free[nd] += sign * req->mem_mb;
	}
}

/* Node nd has req's CPUs and memory free. */
static bool res_free(const struct place_map *m, size_t nd, const struct job_res *req)
{
	return m->cpus_free[nd] >= req->cpus && m->mem_free[nd] >= req->mem_mb;
}

void place_map_init(struct place_map *m, const struct snapshot *s)
{
	memset(m, 0, sizeof(*m));
	size_t nn = s->nnodes;
	m->nnodes = nn;
	m->free = xcalloc(nn ? nn : 1, sizeof(*m->free));
	m->upmask = xcalloc(nn ? nn : 1, sizeof(*m->upmask));
	m->node_class = xcalloc(nn ? nn : 1, sizeof(*m->node_class));
	m->class_rep = xcalloc(nn ? nn : 1, sizeof(*m->class_rep));
	for (size_t i = 0; i < nn; i++) {
		const struct node *n = &s->nodes[i];
		int c = 0;
		while (c < m->nclasses) {
			const struct node *r = &s->nodes[m->class_rep[c]];
			if (r->gpu_mem_mb == n->gpu_mem_mb && !strcmp(r->gpu_model, n->gpu_model))
				break;
			c++;
		}
		if (c == m->nclasses)
			m->class_rep[m->nclasses++] = (int)i;
		m->node_class[i] = c;
		m->all_gpus += __builtin_popcountll(node_mask(n));
		if (!n->up)
			continue;
		m->upmask[i] = m->free[i] = node_mask(n);
		m->total += __builtin_popcountll(m->free[i]);
	}
	m->nfree = m->total;
	m->reserve = reserve_of(&s->policy, m->total);
	m->cpus_free = xcalloc(nn ? nn : 1, sizeof(*m->cpus_free));
	m->mem_free = xcalloc(nn ? nn : 1, sizeof(*m->mem_free));
	for (size_t i = 0; i < nn; i++) {
		const struct node *n = &s->nodes[i];
		m->sized |= n->cpus > 0 || n->mem_mb > 0;
		m->cpus_free[i] = n->cpus > 0 ? n->cpus : UNSIZED;
		m->mem_free[i] = n->mem_mb > 0 ? n->mem_mb : UNSIZED;
	}
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!job_state_holds_gpus(j->state))
			continue;
		int qi = policy_queue_index(&s->policy, j->queue);
		take_res(m, &j->req, j->nalloc, j->alloc, -1);
		for (int a = 0; a < j->nalloc; a++) {
			int nd = j->alloc[a].node;
			if (nd < 0 || (size_t)nd >= nn)
				continue;
			uint64_t held = j->alloc[a].mask & m->free[nd];
			m->free[nd] &= ~held;
			m->nfree -= __builtin_popcountll(held);
			if (qi >= 0)
				m->queue_used[qi] +=
				    __builtin_popcountll(j->alloc[a].mask & m->upmask[nd]);
		}
	}
	m->words = (nn + 63) / 64;
	m->by_free = xcalloc((m->words ? m->words : 1) * NF, sizeof(*m->by_free));
	m->class_count = xcalloc((size_t)(m->nclasses ? m->nclasses : 1) * NF, sizeof(int));
	m->class_free = xcalloc((size_t)(m->nclasses ? m->nclasses : 1), sizeof(int));
	m->class_all = xcalloc((size_t)(m->nclasses ? m->nclasses : 1), sizeof(int));
	m->class_hist = xcalloc((size_t)(m->nclasses ? m->nclasses : 1) * NF, sizeof(int));
	int any_hist[NF] = {0};
	for (size_t i = 0; i < nn; i++) {
		int g = __builtin_popcountll(node_mask(&s->nodes[i]));
		m->class_all[m->node_class[i]] += g;
		m->class_hist[(size_t)m->node_class[i] * NF + (size_t)g]++;
		any_hist[g]++;
	}
	m->any_most = most_of(any_hist);
	m->any_span = span_of(any_hist);
	m->scratch_cap = nn < GQ_MAX_SPAN ? nn : GQ_MAX_SPAN;
	m->scratch = xcalloc(m->scratch_cap ? m->scratch_cap : 1, sizeof(*m->scratch));
	for (size_t i = 0; i < nn; i++)
		if (s->nodes[i].up)
			index_move(m, i, -1, __builtin_popcountll(m->free[i]));
}

void place_map_release(struct place_map *m)
{
	free(m->free);
	free(m->upmask);
	free(m->node_class);
	free(m->class_rep);
	free(m->class_count);
	free(m->class_free);
	free(m->by_free);
	free(m->class_all);
	free(m->class_hist);
	free(m->scratch);
	free(m->cpus_free);
	free(m->mem_free);
	memset(m, 0, sizeof(*m));
}

static void *dup_array(const void *src, size_t n, size_t elem)
{
	void *p = xmalloc(n ? n * elem : 1);
	if (n)
		memcpy(p, src, n * elem);
	return p;
}

void place_map_copy(struct place_map *dst, const struct place_map *src)
{
	size_t nn = src->nnodes, nc = (size_t)src->nclasses;
	*dst = *src;
	dst->free = dup_array(src->free, nn, sizeof(*src->free));
	dst->upmask = dup_array(src->upmask, nn, sizeof(*src->upmask));
	dst->node_class = dup_array(src->node_class, nn, sizeof(int));
	dst->class_rep = dup_array(src->class_rep, nc, sizeof(int));
	dst->class_count = dup_array(src->class_count, nc * NF, sizeof(int));
	dst->class_free = dup_array(src->class_free, nc, sizeof(int));
	dst->by_free = dup_array(src->by_free, src->words * NF, sizeof(uint64_t));
	dst->class_all = dup_array(src->class_all, nc, sizeof(int));
	dst->class_hist = dup_array(src->class_hist, nc * NF, sizeof(int));
	dst->scratch = xcalloc(src->scratch_cap ? src->scratch_cap : 1, sizeof(*dst->scratch));
	dst->cpus_free = dup_array(src->cpus_free, nn, sizeof(int64_t));
	dst->mem_free = dup_array(src->mem_free, nn, sizeof(int64_t));
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

/* Which classes match req: bit c for class c. The index serves up to 64
 * classes; beyond that every lookup is a pass over the nodes. */
static bool class_matches(const struct place_map *m, const struct snapshot *s,
			  const struct job_res *req, uint64_t *mask)
{
	if (m->nclasses > 64)
		return false;
	uint64_t k = 0;
	for (int c = 0; c < m->nclasses; c++)
		if (place_node_matches(&s->nodes[m->class_rep[c]], req))
			k |= (uint64_t)1 << c;
	*mask = k;
	return true;
}

int place_match_free(const struct place_map *m, const struct snapshot *s, const struct job_res *req)
{
	uint64_t cm;
	int total = 0;
	if (!req->gpu_type[0] && req->gpu_mem_mb <= 0)
		return m->nfree;
	if (class_matches(m, s, req, &cm)) {
		for (int c = 0; c < m->nclasses; c++)
			if (cm >> c & 1)
				total += m->class_free[c];
		return total;
	}
	for (size_t i = 0; i < m->nnodes; i++)
		if (m->free[i] && place_node_matches(&s->nodes[i], req))
			total += __builtin_popcountll(m->free[i]);
	return total;
}

bool place_class_mask(const struct place_map *m, const struct snapshot *s,
		      const struct job_res *req, uint64_t *mask)
{
	return class_matches(m, s, req, mask);
}

int place_class_free(const struct place_map *m, int *free, int *most)
{
	if (m->nclasses > 64)
		return 0;
	for (int c = 0; c < m->nclasses; c++) {
		free[c] = m->class_free[c];
		most[c] = 0;
		/* From the largest node of the class down. */
		int top = most_of(&m->class_hist[(size_t)c * NF]);
		for (int f = top < NF - 1 ? top : NF - 1; f > 0; f--)
			if (m->class_count[c * NF + f]) {
				most[c] = f;
				break;
			}
	}
	return m->nclasses;
}

/* The first up node at index >= from with exactly f free GPUs whose class
 * is in cm; -1 when none. */
static int first_with(const struct place_map *m, int f, uint64_t cm, size_t from)
{
	const uint64_t *b = &m->by_free[(size_t)f * m->words];
	for (size_t w = from / 64; w < m->words; w++) {
		uint64_t x = b[w];
		if (w == from / 64)
			x &= ~(uint64_t)0 << (from % 64);
		while (x) {
			size_t nd = w * 64 + (size_t)__builtin_ctzll(x);
			if (cm >> m->node_class[nd] & 1)
				return (int)nd;
			x &= x - 1;
		}
	}
	return -1;
}

/* Best fit through the index: the smallest free count that suffices, its
 * lowest-index matching node; else the spread from the largest free counts
 * down, lowest index first. Same choices as allocate_scan(). */
static int allocate_index(const struct place_map *m, const struct job_res *req, uint64_t cm,
			  struct job_alloc *alloc, int *usable, int *match_free)
{
	int need = req->gpus, most = 0, total = 0;
	for (int c = 0; c < m->nclasses; c++) {
		if (!(cm >> c & 1))
			continue;
		total += m->class_free[c];
		/* no node has more free GPUs than the most any node has */
		for (int f = m->any_most < NF - 1 ? m->any_most : NF - 1; f > most; f--)
			if (m->class_count[c * NF + f]) {
				most = f;
				break;
			}
	}
	*match_free = total;
	*usable = req->same_node ? most : total;
	if (need <= most) {
		for (int f = need; f <= most; f++) {
			bool any = false;
			for (int c = 0; c < m->nclasses && !any; c++)
				any = (cm >> c & 1) && m->class_count[c * NF + f];
			if (!any)
				continue;
			int nd = first_with(m, f, cm, 0);
			alloc[0].node = nd;
			alloc[0].mask = low_bits(m->free[nd], need);
			return 1;
		}
		BUG("place: free index out of step");
	}
	if (req->same_node || total < need)
		return 0;
	int n = 0, left = need;
	for (int f = most; f > 0 && left > 0; f--) {
		for (int nd = first_with(m, f, cm, 0); nd >= 0 && left > 0;
		     nd = first_with(m, f, cm, (size_t)nd + 1)) {
			if ((size_t)n == m->scratch_cap)
				return 0;
			int take = f < left ? f : left;
			alloc[n].node = nd;
			alloc[n].mask = low_bits(m->free[nd], take);
			n++;
			left -= take;
		}
	}
	return left > 0 ? 0 : n;
}

/* The same choice by a pass over every node, for maps with more than 64
 * GPU classes. */
static int allocate_scan(const struct place_map *m, const struct snapshot *s,
			 const struct job_res *req, struct job_alloc *alloc, int *usable,
			 int *match_free)
{
	int need = req->gpus;
	int best = -1, best_free = 0, total = 0, most = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		if (!m->free[i] || !place_node_matches(&s->nodes[i], req) || !res_free(m, i, req))
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
	*match_free = total;
	*usable = req->same_node ? most : total;
	if (best >= 0) {
		alloc[0].node = best;
		alloc[0].mask = low_bits(m->free[best], need);
		return 1;
	}
	if (req->same_node || total < need)
		return 0;
	/* The most free first, lowest index on ties: one pass per free count,
	 * so each node is taken at most once. */
	int n = 0, left = need;
	for (int f = most; f > 0 && left > 0; f--) {
		for (size_t i = 0; i < m->nnodes && left > 0; i++) {
			if (__builtin_popcountll(m->free[i]) != f ||
			    !place_node_matches(&s->nodes[i], req) || !res_free(m, i, req))
				continue;
			if ((size_t)n == m->scratch_cap)
				return 0;
			int take = f < left ? f : left;
			alloc[n].node = (int)i;
			alloc[n].mask = low_bits(m->free[i], take);
			n++;
			left -= take;
		}
	}
	return left > 0 ? 0 : n;
}

/* A CPU-only request: the up node with the fewest free CPUs that has its
 * CPUs and memory free, then the least free memory, lowest index on ties. */
static int allocate_cpu_only(const struct place_map *m, const struct snapshot *s,
			     const struct job_res *req, struct job_alloc *alloc)
{
	int best = -1;
	for (size_t i = 0; i < m->nnodes; i++) {
		if (!s->nodes[i].up || !res_free(m, i, req))
			continue;
		if (best < 0 || m->cpus_free[i] < m->cpus_free[best] ||
		    (m->cpus_free[i] == m->cpus_free[best] && m->mem_free[i] < m->mem_free[best]))
			best = (int)i;
	}
	if (best < 0)
		return 0;
	alloc[0].node = best;
	alloc[0].mask = 0;
	return 1;
}

static int allocate(const struct place_map *m, const struct snapshot *s, const struct job_res *req,
		    struct job_alloc *alloc, int *usable, int *match_free)
{
	uint64_t cm;
	/* The index knows free GPUs only: a request for CPUs or memory on
	 * nodes that say how many they have looks at every node. */
	if (m->sized && (req->cpus > 0 || req->mem_mb > 0))
		return allocate_scan(m, s, req, alloc, usable, match_free);
	if (class_matches(m, s, req, &cm))
		return allocate_index(m, req, cm, alloc, usable, match_free);
	return allocate_scan(m, s, req, alloc, usable, match_free);
}

/* Which of CPUs and memory no usable up node has free for req. */
static void short_of(const struct place_map *m, const struct snapshot *s, const struct job_res *req,
		     struct place_result *r)
{
	bool cpus = false, mem = false;
	for (size_t i = 0; i < m->nnodes; i++) {
		if (!s->nodes[i].up || (req->gpus > 0 && !place_node_matches(&s->nodes[i], req)))
			continue;
		cpus |= m->cpus_free[i] >= req->cpus;
		mem |= m->mem_free[i] >= req->mem_mb;
	}
	/* Each is free somewhere, never both on one node: both are short. */
	r->cpu_short = !cpus || mem;
	r->mem_short = !mem || cpus;
}

bool place_check_fit(const struct place_map *m, const struct snapshot *s, const struct job *j,
		     int qi, int di, int64_t now, struct place_result *out)
{
	return place_check_req(m, s, &j->req, job_tier(j), qi, di, now, out);
}

bool place_check_req(const struct place_map *m, const struct snapshot *s, const struct job_res *req,
		     enum tier tier, int qi, int di, int64_t now, struct place_result *out)
{
	const struct policy *p = &s->policy;
	/* Straight into *out: the result is large, a copy costs as much as
	 * the rest of a check that fails. */
	struct place_result *r = out;
	memset(r, 0, sizeof(*r));
	r->alloc = m->scratch;
	r->need = req->gpus;
	r->free = m->nfree;
	r->reserve = place_reserve(m, tier, req->gpus);
	r->queue = qi;
	r->queue_quota = r->queue_limit = -1;
	r->dept = di;
	r->dept_limit = -1;
	if (qi >= 0) {
		const struct queue_policy *q = &p->queues[qi];
		if (q->paused.set && place_window_paused(s, qi, now)) {
			r->blocks |= PLACE_BIT(PLACE_WINDOW);
			r->window_end = now + until_minute(now, s->tz_offset, q->paused.end_min);
		}
		r->queue_used = m->queue_used[qi];
		r->queue_quota = q->quota;
		r->queue_limit = q->quota < 0 || q->borrow < 0 ? -1 : q->quota + q->borrow;
		if (r->queue_limit >= 0 && r->queue_used + r->need > r->queue_limit)
			r->quota_queue = true;
		r->borrowed = q->quota >= 0 && r->queue_used + r->need > q->quota;
	}
	if (di >= 0) {
		r->dept_used = s->dstate[di].gpu_hours_month;
		r->dept_limit = p->depts[di].gpu_hours_month;
		/* Spent, its work stops only when the policy says so; else it
		 * runs on as the lowest tier (job.h: over_quota). */
		if (r->dept_limit >= 0 && r->need > 0 && r->dept_used >= r->dept_limit &&
		    p->depts[di].over_action == QUOTA_STOP)
			r->quota_dept = true;
	}
	if (r->quota_queue || r->quota_dept)
		r->blocks |= PLACE_BIT(PLACE_QUOTA);
	if (r->need > 0) {
		r->nalloc = allocate(m, s, req, r->alloc, &r->usable, &r->match_free);
		if (r->free < r->need) {
			r->blocks |= PLACE_BIT(PLACE_RESOURCES);
		} else if (!r->nalloc) {
			/* Would the GPUs fit if CPUs and memory were not asked? */
			struct job_res g = *req;
			int u, mf;
			g.cpus = 0;
			g.mem_mb = 0;
			/* r->alloc holds nothing here: the scratch is free to use. */
			if (m->sized && (req->cpus > 0 || req->mem_mb > 0) &&
			    allocate(m, s, &g, r->alloc, &u, &mf)) {
				r->blocks |= PLACE_BIT(PLACE_RESOURCES);
				short_of(m, s, req, r);
			} else {
				r->blocks |= PLACE_BIT(PLACE_MISMATCH);
			}
		}
		if (r->free >= r->need && r->free - r->need < r->reserve)
			r->blocks |= PLACE_BIT(PLACE_HEADROOM);
	} else {
		r->nalloc = allocate_cpu_only(m, s, req, r->alloc);
		if (!r->nalloc) {
			r->blocks |= PLACE_BIT(PLACE_RESOURCES);
			short_of(m, s, req, r);
		}
	}
	if (r->blocks) {
		r->nalloc = 0;
		r->borrowed = false;
	}
	return r->blocks == 0;
}

bool place_check(const struct place_map *m, const struct snapshot *s, const struct job *j,
		 int64_t now, struct place_result *out)
{
	int qi = policy_queue_index(&s->policy, j->queue);
	int di = policy_dept_index(&s->policy, j->dept);
	place_check_fit(m, s, j, qi, di, now, out);
	if (place_satisfiable_map(m, s, j, qi, NULL) < 0) {
		out->blocks |= PLACE_BIT(PLACE_UNSATISFIABLE);
		out->nalloc = 0;
		out->borrowed = false;
	}
	return out->blocks == 0;
}

void place_take(struct place_map *m, int qi, const struct job_res *req, int nalloc,
		const struct job_alloc *alloc)
{
	take_res(m, req, nalloc, alloc, -1);
	for (int a = 0; a < nalloc; a++) {
		size_t nd = (size_t)alloc[a].node;
		if (nd >= m->nnodes || (m->free[nd] & alloc[a].mask) != alloc[a].mask)
			BUG("place_take: GPUs %llx of node %zu are not free",
			    (unsigned long long)alloc[a].mask, nd);
		int before = __builtin_popcountll(m->free[nd]);
		m->free[nd] &= ~alloc[a].mask;
		int c = __builtin_popcountll(alloc[a].mask);
		index_move(m, nd, before, before - c);
		m->nfree -= c;
		if (qi >= 0 && qi < GQ_MAX_QUEUES)
			m->queue_used[qi] += c;
	}
}

void place_give(struct place_map *m, int qi, const struct job_res *req, int nalloc,
		const struct job_alloc *alloc)
{
	take_res(m, req, nalloc, alloc, +1);
	for (int a = 0; a < nalloc; a++) {
		size_t nd = (size_t)alloc[a].node;
		if (nd >= m->nnodes)
			continue;
		uint64_t back = alloc[a].mask & m->upmask[nd] & ~m->free[nd];
		int before = __builtin_popcountll(m->free[nd]);
		m->free[nd] |= back;
		int c = __builtin_popcountll(back);
		if (c)
			index_move(m, nd, before, before + c);
		m->nfree += c;
		if (qi >= 0 && qi < GQ_MAX_QUEUES)
			m->queue_used[qi] -= c;
	}
}

/* What the cluster could ever hold for a request: GPUs on all nodes, the
 * matching ones, the most on one matching node, and the most on
 * GQ_MAX_SPAN matching nodes. */
struct capacity {
	int all, match, most, span;
};

static void capacity_scan(const struct snapshot *s, const struct job_res *req, struct capacity *c)
{
	int hist[NF] = {0};
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < s->nnodes; i++) {
		int g = __builtin_popcountll(node_mask(&s->nodes[i]));
		c->all += g;
		if (!place_node_matches(&s->nodes[i], req))
			continue;
		c->match += g;
		if (g > c->most)
			c->most = g;
		hist[g]++;
	}
	c->span = span_of(hist);
}

static void capacity_map(const struct place_map *m, const struct snapshot *s,
			 const struct job_res *req, struct capacity *c)
{
	int hist[NF] = {0};
	memset(c, 0, sizeof(*c));
	c->all = m->all_gpus;
	if (!req->gpu_type[0] && req->gpu_mem_mb <= 0) {
		c->match = m->all_gpus;
		c->most = m->any_most;
		c->span = m->any_span;
		return;
	}
	for (int k = 0; k < m->nclasses; k++) {
		if (!place_node_matches(&s->nodes[m->class_rep[k]], req))
			continue;
		const int *h = &m->class_hist[(size_t)k * NF];
		c->match += m->class_all[k];
		if (most_of(h) > c->most)
			c->most = most_of(h);
		for (int g = 1; g < NF; g++)
			hist[g] += h[g];
	}
	c->span = span_of(hist);
}

static const char *const unsat_names[UNSAT_COUNT] = {
    [UNSAT_NONE] = "",
    [UNSAT_GPUS] = "gpus",
    [UNSAT_SAME_NODE] = "same_node",
    [UNSAT_SPAN] = "span",
    [UNSAT_QUEUE_LIMIT] = "queue_limit",
    [UNSAT_USER_LIMIT] = "user_limit",
    [UNSAT_CPUS] = "cpus",
    [UNSAT_MEM] = "mem",
    [UNSAT_TIME] = "time",
};

const char *place_unsat_name(enum place_unsat u)
{
	return (unsigned)u < UNSAT_COUNT ? unsat_names[u] : "?";
}

/* Could any node ever give req its CPUs and memory (nodes that do not say
 * how many they have always could)? A GPU job needs them on a node with
 * matching GPUs. *have: the most CPUs / MiB of memory a node has. */
static enum place_unsat res_unsat(const struct snapshot *s, const struct job_res *req, int *have)
{
	int64_t most_cpus = 0, most_mem = 0;
	bool any = false;
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *n = &s->nodes[i];
		if (req->gpus > 0 && (!n->ngpus || !place_node_matches(n, req)))
			continue;
		int64_t cpus = n->cpus > 0 ? n->cpus : UNSIZED,
			mem = n->mem_mb > 0 ? n->mem_mb : UNSIZED;
		if (cpus >= req->cpus && mem >= req->mem_mb)
			return UNSAT_NONE;
		any = true;
		if (cpus > most_cpus)
			most_cpus = cpus;
		if (cpus >= req->cpus && mem > most_mem)
			most_mem = mem;
	}
	if (!any) /* no node of that kind at all: the GPU checks say so */
		return UNSAT_NONE;
	if (most_cpus < req->cpus) {
		*have = (int)most_cpus;
		return UNSAT_CPUS;
	}
	*have = most_mem > INT_MAX ? INT_MAX : (int)most_mem;
	return UNSAT_MEM;
}

/* Which static limit j breaks first, and the most GPUs that limit allows. */
/* A job that asks for no GPU, CPU or memory and for no more time than its
 * queue allows can always be placed. */
static bool asks_nothing(const struct snapshot *s, const struct job *j, int qi)
{
	if (qi >= 0 && s->policy.queues[qi].max_time > 0 &&
	    j->time_limit > s->policy.queues[qi].max_time)
		return false;
	return j->req.gpus <= 0 && j->req.cpus <= 0 && j->req.mem_mb <= 0;
}

static enum place_unsat unsat_kind(const struct snapshot *s, const struct job *j, int qi,
				   const struct capacity *c, int *have)
{
	const struct policy *p = &s->policy;
	const struct job_res *req = &j->req;
	int need = req->gpus;
	*have = need;
	if (qi >= 0 && p->queues[qi].max_time > 0 && j->time_limit > p->queues[qi].max_time) {
		int64_t mt = p->queues[qi].max_time;
		*have = mt > INT32_MAX ? INT32_MAX : (int)mt;
		return UNSAT_TIME;
	}
	if (req->cpus > 0 || req->mem_mb > 0) {
		enum place_unsat u = res_unsat(s, req, have);
		if (u != UNSAT_NONE)
			return u;
	}
	if (need <= 0)
		return UNSAT_NONE;
	if (c->match < need) {
		*have = c->match;
		return UNSAT_GPUS;
	}
	if (req->same_node && c->most < need) {
		*have = c->most;
		return UNSAT_SAME_NODE;
	}
	if (c->span < need) {
		*have = c->span;
		return UNSAT_SPAN;
	}
	if (qi >= 0) {
		const struct queue_policy *q = &p->queues[qi];
		if (q->quota >= 0 && q->borrow >= 0 && need > q->quota + q->borrow) {
			*have = q->quota + q->borrow;
			return UNSAT_QUEUE_LIMIT;
		}
	}
	bool ql;
	int cap = ulimit_gpus_cap(p, qi, &ql);
	if (cap >= 0 && need > cap) {
		*have = cap;
		return UNSAT_USER_LIMIT;
	}
	return UNSAT_NONE;
}

static int unsatisfiable(const struct snapshot *s, const struct job *j, int qi,
			 const struct capacity *c, struct gq_err *e)
{
	const struct policy *p = &s->policy;
	const struct job_res *req = &j->req;
	int need = req->gpus, have;
	enum place_unsat u = unsat_kind(s, j, qi, c, &have);
	if (u == UNSAT_NONE)
		return 0;
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
	switch (u) {
	case UNSAT_GPUS:
		return err_set(
		    e, GQ_EINVAL,
		    "needs %d GPU%s%s, the cluster has %d such GPU%s: ask for fewer or other GPUs",
		    need, need == 1 ? "" : "s", what, have, have == 1 ? "" : "s");
	case UNSAT_SAME_NODE:
		return err_set(
		    e, GQ_EINVAL,
		    "needs %d GPU%s%s on one node, the largest matching node has %d: ask "
		    "for fewer GPUs or drop same-node",
		    need, need == 1 ? "" : "s", what, have);
	case UNSAT_SPAN:
		return err_set(e, GQ_EINVAL,
			       "needs %d GPU%s%s, at most %d fit on %d nodes: ask for fewer GPUs",
			       need, need == 1 ? "" : "s", what, have, GQ_MAX_SPAN);
	case UNSAT_CPUS:
		return err_set(
		    e, GQ_EINVAL,
		    "needs %d CPUs on a node, the largest %snode has %d: ask for fewer CPUs",
		    req->cpus, need > 0 ? "matching " : "", have);
	case UNSAT_MEM: {
		char want[32], most[32];
		return err_set(
		    e, GQ_EINVAL,
		    "needs %s of memory on a node, the largest %snode has %s: ask for less "
		    "memory",
		    size_format(req->mem_mb, want, sizeof(want)), need > 0 ? "matching " : "",
		    size_format(have, most, sizeof(most)));
	}
	case UNSAT_QUEUE_LIMIT: {
		const struct queue_policy *q = &p->queues[qi];
		return err_set(e, GQ_EINVAL,
			       "needs %d GPU%s, queue '%s' may hold at most %d (quota %d + borrow "
			       "%d): ask for fewer GPUs or use another queue",
			       need, need == 1 ? "" : "s", q->name, have, q->quota, q->borrow);
	}
	case UNSAT_USER_LIMIT: {
		bool ql;
		ulimit_gpus_cap(p, qi, &ql);
		if (ql)
			return err_set(
			    e, GQ_EINVAL,
			    "needs %d GPU%s, one user's jobs of queue '%s' may hold at most "
			    "%d (queue.%s.userMaxGpus): ask for fewer GPUs or use another "
			    "queue",
			    need, need == 1 ? "" : "s", p->queues[qi].name, have,
			    p->queues[qi].name);
		return err_set(
		    e, GQ_EINVAL,
		    "needs %d GPU%s, one user's jobs may hold at most %d (user.maxGpus): "
		    "ask for fewer GPUs",
		    need, need == 1 ? "" : "s", have);
	}
	case UNSAT_TIME: {
		char lim[32], most[32];
		return err_set(
		    e, GQ_EINVAL,
		    "its time limit %s is over queue '%s''s maximum %s (queue.%s.maxTime): "
		    "ask for at most %s or use another queue",
		    dur_format(j->time_limit, lim, sizeof(lim)), p->queues[qi].name,
		    dur_format(p->queues[qi].max_time, most, sizeof(most)), p->queues[qi].name,
		    most);
	}
	default:
		BUG("place: unsatisfiable kind %d", (int)u);
	}
}

enum place_unsat place_unsat_why(const struct place_map *m, const struct snapshot *s,
				 const struct job *j, int *have)
{
	struct capacity c;
	int qi = policy_queue_index(&s->policy, j->queue);
	if (asks_nothing(s, j, qi)) {
		*have = 0;
		return UNSAT_NONE;
	}
	capacity_map(m, s, &j->req, &c);
	return unsat_kind(s, j, qi, &c, have);
}

int place_satisfiable(const struct snapshot *s, const struct job *j, struct gq_err *e)
{
	struct capacity c;
	int qi = policy_queue_index(&s->policy, j->queue);
	if (asks_nothing(s, j, qi))
		return 0;
	capacity_scan(s, &j->req, &c);
	return unsatisfiable(s, j, qi, &c, e);
}

int place_satisfiable_map(const struct place_map *m, const struct snapshot *s, const struct job *j,
			  int qi, struct gq_err *e)
{
	struct capacity c;
	if (asks_nothing(s, j, qi))
		return 0;
	capacity_map(m, s, &j->req, &c);
	return unsatisfiable(s, j, qi, &c, e);
}
