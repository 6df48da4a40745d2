/*
 * simq.h - the heaps and queues of the simulation (sim.h): a 4-ary heap
 * of ready or parked jobs (struct rheap), a sorted run beside such a heap
 * (struct rqueue), the heap of timed events (struct theap) and the fronts
 * a walk leaves behind (struct front). Private to the prediction; the
 * functions are inline because the walk calls them for every job it looks
 * at.
 */
#ifndef GQ_SIMQ_H
#define GQ_SIMQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

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

static inline void rheap_push(struct rheap *h, uint64_t key, uint32_t p, uint32_t epoch)
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

static inline struct rentry rheap_pop(struct rheap *h)
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

static inline size_t rq_size(const struct rqueue *q)
{
	return q->heap.n + (q->n - q->head);
}

/* The smallest key; q must not be empty. */
static inline uint64_t rq_first(const struct rqueue *q)
{
	if (q->head == q->n)
		return q->heap.v[0].key;
	if (!q->heap.n)
		return q->run[q->head].key;
	return q->run[q->head].key < q->heap.v[0].key ? q->run[q->head].key : q->heap.v[0].key;
}

static inline void rq_push(struct rqueue *q, uint64_t key, uint32_t p, uint32_t epoch)
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
static inline const struct rentry *rq_peek(const struct rqueue *q)
{
	if (q->head < q->n && (!q->heap.n || q->run[q->head].key <= q->heap.v[0].key))
		return &q->run[q->head];
	return &q->heap.v[0];
}

/* Takes the entry of smallest key; q must not be empty. */
static inline struct rentry rq_pop(struct rqueue *q)
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

static inline bool tless(const struct tentry *a, const struct tentry *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->arg < b->arg;
}

static inline void theap_push(struct theap *h, int64_t t, uint32_t kind, uint32_t arg)
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

static inline struct tentry theap_pop(struct theap *h)
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

/* An entry of a front (see struct sim), with what a walk needs to look
 * past the job without reading its record. */
struct fentry {
	uint64_t key;
	uint32_t p, epoch;
	int64_t rt; /* the job's bf_rt */
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
enum { ST_GATED, ST_READY, ST_PARK_WINDOW, ST_PARK_QUOTA, ST_PARK_USER, ST_STARTED, ST_NEVER };

/* A pending job by queued time, then rank: the order of the aging
 * cursors and of permit earn times. */
struct qkey {
	int64_t q;
	uint32_t rank;
	uint32_t p;
};

static inline int cmp_qkey(const void *a, const void *b)
{
	const struct qkey *x = a, *y = b;
	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

#endif
