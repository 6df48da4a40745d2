/*
 * preempt.c - benchmark of the preemption choice and of the metrics: on
 * 2,000 nodes of 8 GPUs fully used by 16,000 one-GPU jobs (a third of them
 * checkpointable, no preemption budget limit), how long one victim choice takes for a P0 job of 1,
 * 8 and 64 GPUs, and the preemption part of one plan with N pending jobs; then how long
 * stats_compute() takes over the events of N jobs (submit, start, end: 3N events). Prints figures;
 * asserts nothing.
 *
 *   build/bench/preempt [PENDING]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/order.h"
#include "core/place.h"
#include "core/preempt.h"
#include "core/sched.h"
#include "core/stats.h"
#include "os/mono.h"

#define NOW 10000000

static void cluster(struct snapshot *s, int pending)
{
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(s);
	s->now = NOW;
	/* No budget limit, so that the search, not the budget, is measured. */
	policy_set(&s->policy, "preempt.maxPerQueueHour", "1000000", &e);
	for (int i = 0; i < 2000; i++) {
		struct node *n = snapshot_add_node(s);
		snprintf(n->name, sizeof(n->name), "n%04d", i);
		n->ngpus = 8;
	}
	int64_t id = 1;
	for (int i = 0; i < 2000; i++) {
		for (int g = 0; g < 8; g++, id++) {
			struct job *j = snapshot_add_job(s);
			j->id = id;
			STR_COPY(j->queue, "default");
			j->tier = (id % 5) ? TIER_P2 : TIER_P1;
			j->state = JOB_RUNNING;
			j->req.gpus = 1;
			j->nalloc = 1;
			j->alloc = xcalloc(1, sizeof(*j->alloc));
			j->alloc[0].node = i;
			j->alloc[0].mask = 1ull << g;
			j->start_time = NOW - 60 - (id * 7919) % 1700;
			j->checkpointable = id % 3 == 0;
			j->last_checkpoint = j->checkpointable ? NOW - (id * 104729) % 600 : 0;
		}
	}
	for (int i = 0; i < pending; i++, id++) {
		struct job *j = snapshot_add_job(s);
		j->id = id;
		STR_COPY(j->queue, "default");
		j->tier = (enum tier)(i % 3);
		j->state = JOB_PENDING;
		j->req.gpus = 1 << (i % 4);
		j->submit_time = j->queued_time = NOW - (i * 31) % 3600;
	}
	snapshot_sort(s);
}

static void bench_choose(void)
{
	struct snapshot s;
	cluster(&s, 3);
	int sizes[] = {1, 8, 64};
	for (int k = 0; k < 3; k++) {
		struct job *t = &s.jobs[s.njobs - 1];
		t->tier = TIER_P0;
		t->req.gpus = sizes[k];
		struct preempt_plan p;
		int reps = 20;
		double t0 = mono_s() * 1e3;
		for (int r = 0; r < reps; r++) {
			preempt_choose(&s, t, &p);
			if (r < reps - 1)
				preempt_plan_release(&p);
		}
		double dt = (mono_s() * 1e3 - t0) / reps;
		printf("preempt_choose  %2d GPUs: %6.2f ms  (%s, %zu victims, %d of %d candidates "
		       "eligible)\n",
		       sizes[k], dt, preempt_outcome_name(p.outcome), p.nvictims, p.eligible,
		       p.candidates);
		preempt_plan_release(&p);
	}
	snapshot_release(&s);
}

static void bench_plan(int pending)
{
	struct snapshot s;
	cluster(&s, pending);
	size_t *idx = malloc(s.njobs * sizeof(*idx));
	size_t n = order_pending(&s, idx);
	struct place_map m;
	place_map_init(&m, &s);
	struct plan pl;
	plan_init(&pl);
	double t0 = mono_s() * 1e3;
	preempt_add_to_plan(&s, &m, idx, n, &pl);
	double dt = mono_s() * 1e3 - t0;
	int victims = 0;
	for (size_t i = 0; i < pl.n; i++)
		victims += pl.actions[i].kind == PLAN_PREEMPT;
	printf("preempt_add_to_plan, %6d pending: %7.2f ms  (%d victims)\n", pending, dt, victims);
	plan_release(&pl);
	place_map_release(&m);
	free(idx);
	snapshot_release(&s);
}

/* One event to be: at time t, job's submission (0), start (1) or end (2). */
struct ev_src {
	int64_t t;
	int job;
	int kind;
};

static int cmp_src(const void *a, const void *b)
{
	const struct ev_src *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->job - y->job;
}

static void bench_stats(int njobs)
{
	struct snapshot s;
	snapshot_init(&s);
	snapshot_add_node(&s)->ngpus = 8;
	for (int i = 0; i < njobs; i++) {
		struct job *j = snapshot_add_job(&s);
		j->id = i + 1;
		STR_COPY(j->queue, i % 2 ? "default" : "exp");
		j->tier = (enum tier)(i % 3);
		j->req.gpus = 1;
		j->submit_time = (int64_t)i * 10;
	}
	/* Submitted every 10 s, each waits (i * 7) % 900 s and runs 300 s. */
	size_t nev = (size_t)njobs * 3;
	struct ev_src *src = calloc(nev, sizeof(*src));
	for (int i = 0; i < njobs; i++) {
		int64_t sub = (int64_t)i * 10, st = sub + (i * 7) % 900;
		src[3 * i] = (struct ev_src){sub, i + 1, 0};
		src[3 * i + 1] = (struct ev_src){st, i + 1, 1};
		src[3 * i + 2] = (struct ev_src){st + 300, i + 1, 2};
	}
	qsort(src, nev, sizeof(*src), cmp_src);
	struct event *ev = calloc(nev, sizeof(*ev));
	static const enum job_state from[] = {JOB_PENDING, JOB_PENDING, JOB_RUNNING};
	static const enum job_state to[] = {JOB_PENDING, JOB_RUNNING, JOB_COMPLETED};
	for (size_t k = 0; k < nev; k++) {
		ev[k].seq = (int64_t)k + 1;
		ev[k].time = src[k].t;
		ev[k].job = src[k].job;
		STR_COPY(ev[k].kind, "state");
		ev[k].from = from[src[k].kind];
		ev[k].to = to[src[k].kind];
	}
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	double t0 = mono_s() * 1e3;
	stats_compute(&s, ev, nev, 0, (int64_t)njobs * 10 + 1200, &st, &e);
	double dt = mono_s() * 1e3 - t0;
	printf("stats_compute, %7d jobs, %7zu events: %7.2f ms  (%zu groups)\n", njobs, nev, dt,
	       st.ngroups);
	stats_release(&st);
	free(src);
	free(ev);
	snapshot_release(&s);
}

int main(int argc, char **argv)
{
	int pending = argc > 1 ? atoi(argv[1]) : 100000;
	bench_choose();
	bench_plan(pending / 100);
	bench_plan(pending / 10);
	bench_plan(pending);
	bench_stats(pending / 10);
	bench_stats(pending);
	return 0;
}
