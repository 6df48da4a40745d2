/*
 * predictdiff.c - the fast predictor (core/predict.h) against the reference
 * (refpredict.h) on seeded random snapshots: every field of every
 * prediction and of the set must be the same. The snapshots mix tiers,
 * aging, queue quotas and borrowing, windows, dependencies, starvation
 * permits, cooldowns, holds, department quotas, per-user GPU limits, GPU types and memory,
 * CPU-only and same-node jobs, down nodes, stopping jobs and runtimes from
 * estimates, history and limits, so that backfill has gaps to fill; one in
 * four is ordered by a backend's priority (ORDER_BACKEND), across tiers.
 */
#include <stdio.h>
#include <string.h>

#include "core/depend.h"
#include "core/predict.h"
#include "core/util.h"
#include "fixture.h"
#include "harness.h"
#include "refpredict.h"

#define DIFF_SNAPSHOTS 3000 /* the README's figure */

static uint64_t rng(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int64_t pick(uint64_t *x, int64_t n)
{
	return n <= 0 ? 0 : (int64_t)(rng(x) % (uint64_t)n);
}

static void add_queue(struct policy *p, const char *name, const char *dept, int quota, int borrow)
{
	struct queue_policy *q = &p->queues[p->nqueues++];
	memset(q, 0, sizeof(*q));
	STR_COPY(q->name, name);
	STR_COPY(q->dept, dept);
	q->quota = quota;
	q->borrow = borrow;
	q->share = 1;
	q->max_preempt_hour = -1;
	q->user_max_gpus = -1;
	q->user_max_jobs = -1;
}

/* A random snapshot from seed; sorted. */
static void random_snapshot(struct snapshot *s, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	/* Times in minutes, or in tens of minutes, so that events coincide. */
	int64_t u = seed % 3 == 0 ? 600 : 60;
	int nnodes = 1 + (int)pick(&x, 5), gpus = 1 << pick(&x, 4);
	fx_init(s, nnodes, gpus);
	s->tz_offset = (int32_t)(pick(&x, 5) - 2) * 3600;
	for (int i = 0; i < nnodes; i++) {
		struct node *n = &s->nodes[i];
		if (pick(&x, 4) == 0)
			STR_COPY(n->gpu_model, "h100");
		if (pick(&x, 3) == 0)
			n->gpu_mem_mb = 40960;
		if (pick(&x, 8) == 0)
			n->up = false;
		if (pick(&x, 4) == 0) {
			n->cpus = 8 + (int)pick(&x, 24);
			n->mem_mb = 65536;
		}
	}
	struct policy *p = &s->policy;
	/* Aging: off, coarse, or fine. */
	switch (pick(&x, 3)) {
	case 0:
		p->aging_cap = 0;
		break;
	case 1:
		p->aging_step = 0.1;
		p->aging_cap = 0.5;
		p->aging_interval = 600 * (1 + pick(&x, 6));
		break;
	default:
		p->aging_step = 0.05;
		p->aging_cap = 1;
		p->aging_interval = u * (1 + pick(&x, 10));
		break;
	}
	for (int t = 0; t < TIER_COUNT; t++)
		p->tier[t].wait_limit = pick(&x, 3) ? 86400 * 365 : u * (20 + pick(&x, 400));
	p->headroom = pick(&x, 3) == 0 ? 0.25 : 0;
	p->default_runtime = 3600;
	if (pick(&x, 3) == 0) {
		struct dept_policy *d = &p->depts[p->ndepts++];
		memset(d, 0, sizeof(*d));
		STR_COPY(d->name, "lab");
		d->gpu_hours_month = 100;
		d->preempt_quota = -1;
		s->dstate[p->ndepts - 1].gpu_hours_month = pick(&x, 2) ? 150 : 10;
		/* Spent: its jobs never start, or run on below P2 (job.h). */
		d->over_action = pick(&x, 2) ? QUOTA_STOP : QUOTA_PREEMPTIBLE;
	}
	const char *dept2 = p->ndepts > 1 ? "lab" : "default";
	add_queue(p, "exp", dept2, pick(&x, 2) ? (int)pick(&x, 6) : -1,
		  pick(&x, 2) ? (int)pick(&x, 4) : -1);
	add_queue(p, "night", "default", -1, -1);
	if (pick(&x, 2)) {
		struct window *w = &p->queues[p->nqueues - 1].paused;
		w->set = true;
		w->start_min = (int)pick(&x, 1440);
		w->end_min = (int)pick(&x, 1440);
		if (w->end_min == w->start_min)
			w->end_min = (w->start_min + 60) % 1440;
	}
	s->qstate[1].usage = (double)pick(&x, 1000);
	s->qstate[2].usage = (double)pick(&x, 1000);
	s->now = MIN(pick(&x, 1440));

	/* One in ten is long enough for a walk to look past
	 * PREDICT_BACKFILL_DEPTH blocked jobs. */
	int njobs = seed % 10 == 7 ? 100 + (int)pick(&x, 100) : 1 + (int)pick(&x, 40);
	int node = 0, used = 0;
	for (int i = 1; i <= njobs; i++) {
		enum tier t = (enum tier)pick(&x, 3);
		int g = pick(&x, 8) == 0 ? 0 : 1 << pick(&x, 3);
		if (pick(&x, 12) == 0)
			g = 8 + (int)pick(&x, 9); /* across nodes: many jobs to wait for */
		struct job *j;
		int64_t kind = pick(&x, 10);
		if (kind < 3 && node < nnodes && g > 0 && g <= gpus) {
			if (used + g > gpus) {
				node++;
				used = 0;
			}
			if (node >= nnodes || !s->nodes[node].up)
				continue;
			j = fx_running(s, i, t, node, g, s->now - u * pick(&x, 300),
				       u * (1 + pick(&x, 400)));
			used += g;
			if (pick(&x, 6) == 0) {
				j->state = JOB_STOPPING;
				j->stop_deadline = s->now + u * pick(&x, 30);
			}
		} else if (kind == 3) {
			j = fx_pending(s, i, t, g, s->now - u * pick(&x, 600));
			j->state = pick(&x, 2) ? JOB_COMPLETED : JOB_FAILED;
		} else {
			j = fx_pending(s, i, t, g, s->now - u * pick(&x, 600));
			if (pick(&x, 5) == 0)
				j->queued_time = 0;
			j->submit_time = j->queued_time ? j->queued_time - u * pick(&x, 60)
							: s->now - u * pick(&x, 600);
			if (pick(&x, 10) == 0)
				j->held = true;
			if (pick(&x, 6) == 0)
				j->not_before = s->now + u * pick(&x, 120);
			if (pick(&x, 8) == 0)
				j->begin_time = s->now + u * pick(&x, 240);
			if (pick(&x, 6) == 0)
				STR_COPY(j->req.gpu_type, "h100");
			if (pick(&x, 8) == 0)
				j->req.gpu_mem_mb = 81920;
			if (pick(&x, 4) == 0)
				j->req.same_node = true;
			if (pick(&x, 6) == 0)
				j->req.cpus = 4 + (int)pick(&x, 16);
			int nd = pick(&x, 5) == 0 ? 1 + (int)pick(&x, 2) : 0;
			for (int d = 0; d < nd && i > 1; d++) {
				j->dep_kind[j->ndeps] = (uint8_t)pick(&x, DEP_KIND_COUNT);
				j->deps[j->ndeps++] =
				    1 + pick(&x, i + 1); /* itself, later ones too */
			}
			if (pick(&x, 6) == 0)
				j->ovr = (struct job_override){.set = true,
							       .tier = (enum tier)pick(&x, 3)};
		}
		switch (pick(&x, 5)) {
		case 0:
			j->estimate = 0;
			j->time_limit = u * (10 + pick(&x, 300));
			break;
		case 1:
			j->estimate = 0;
			j->hist_runtime = u * (1 + pick(&x, 200));
			break;
		case 2:
			j->estimate = 0;
			j->time_limit = u * (10 + pick(&x, 300));
			j->hist_ratio = (double)pick(&x, 12) / 10;
			break;
		case 3:
			j->estimate = 0;
			break;
		default:
			if (j->state == JOB_PENDING)
				j->estimate = u * (1 + pick(&x, 300));
			break;
		}
		int64_t q = pick(&x, 4);
		if (q == 1)
			STR_COPY(j->queue, "exp");
		else if (q == 2)
			STR_COPY(j->queue, "night");
		if (q == 1 && p->ndepts > 1)
			STR_COPY(j->dept, "lab");
	}
	/* One in four is ordered by a backend (Slurm): its priority across
	 * tiers, no aging, as backend/slurm.c builds it. Drawn apart from x,
	 * so that the other snapshots stay what they were. */
	if (seed % 4 == 1) {
		s->order = ORDER_BACKEND;
		p->aging_step = 0;
		uint64_t y = seed ^ 0xD1B54A32D192ED03ull;
		for (size_t i = 0; i < s->njobs; i++)
			s->jobs[i].ext_prio = (int64_t)pick(&y, 50);
		/* Slurm's reservations (core/resv.h): one of every node
		 * ahead, one some jobs name, one of some nodes. */
		for (int k = (int)pick(&y, 4); k > 0; k--) {
			struct reservation *r = snapshot_add_resv(s);
			snprintf(r->name, sizeof(r->name), "r%d", k);
			r->start_time = s->now + u * ((int64_t)pick(&y, 200) - 20);
			r->end_time = r->start_time + u * (1 + (int64_t)pick(&y, 200));
			r->all_nodes = k != 3;
			for (size_t i = 0; k == 2 && i < s->njobs; i++)
				if (pick(&y, 4) == 0)
					STR_COPY(s->jobs[i].reservation, r->name);
		}
	}
	/* One in three has per-user GPU limits, overall, in queue exp or
	 * both, over three users; drawn apart too. */
	if (seed % 3 == 2) {
		static const char *const users[] = {"alice", "bob", "carol"};
		uint64_t z = seed ^ 0x8CB92BA72F3D8DD7ull;
		int all = (int)pick(&z, 3);
		if (all != 1)
			p->user_max_gpus = 1 + (int)pick(&z, 2 * gpus);
		if (all != 0)
			p->queues[1].user_max_gpus = 1 + (int)pick(&z, gpus);
		for (size_t i = 0; i < s->njobs; i++)
			STR_COPY(s->jobs[i].user, users[pick(&z, 3)]);
	}
	snapshot_sort(s);
	snapshot_mark_over_quota(s);
}

/* Every field of a and b; prints the first difference. */
static bool same_set(const struct prediction_set *a, const struct prediction_set *b, uint64_t seed)
{
	char why[256] = "";
#define DIFF(cond, ...)                                                                            \
	do {                                                                                       \
		if (!why[0] && (cond))                                                             \
			snprintf(why, sizeof(why), __VA_ARGS__);                                   \
	} while (0)
	DIFF(a->now != b->now, "now");
	DIFF(a->wake != b->wake, "wake %lld ref %lld", (long long)a->wake, (long long)b->wake);
	DIFF(a->backfill_until != b->backfill_until, "backfill_until %lld ref %lld",
	     (long long)a->backfill_until, (long long)b->backfill_until);
	DIFF(a->nfree != b->nfree, "nfree");
	DIFF(a->n != b->n, "n %zu ref %zu", a->n, b->n);
	DIFF(a->njobs != b->njobs, "njobs");
	for (size_t i = 0; !why[0] && i < a->njobs && i < b->njobs; i++) {
		DIFF(a->of_job[i] != b->of_job[i], "of_job[%zu]", i);
		DIFF(a->ends[i] != b->ends[i], "ends[%zu]", i);
	}
	for (size_t i = 0; !why[0] && i < a->n && i < b->n; i++) {
		const struct prediction *x = &a->items[i], *y = &b->items[i];
		long long id = (long long)y->job;
#define F(f)                                                                                       \
	DIFF(x->f != y->f, "job %lld: " #f " %lld ref %lld", id, (long long)x->f, (long long)y->f)
		F(job);
		F(idx);
		F(position);
		F(never);
		F(placed);
		F(start);
		F(low);
		F(high);
		F(end);
		F(runtime);
		F(gate);
		F(backfilled);
		F(permit);
		F(nwaits);
		F(nwaits_all);
		F(borrowed);
		F(nalloc);
#undef F
		DIFF(memcmp(x->waits, y->waits, sizeof(x->waits[0]) * (size_t)x->nwaits),
		     "job %lld: waits", id);
		DIFF(x->nalloc == y->nalloc && x->nalloc > 0 &&
			 memcmp(x->alloc, y->alloc, sizeof(x->alloc[0]) * (size_t)x->nalloc),
		     "job %lld: alloc", id);
	}
#undef DIFF
	if (why[0])
		printf("# seed %llu: %s\n", (unsigned long long)seed, why);
	return !why[0];
}

static void test_fast_equals_reference(void)
{
	size_t bad = 0, placed = 0, permit = 0, backfilled = 0, never = 0, gates[GATE_COUNT] = {0};
	for (uint64_t seed = 1; seed <= DIFF_SNAPSHOTS; seed++) {
		struct snapshot s;
		random_snapshot(&s, seed);
		/* Most runs to the end; some only to now, as sched_plan(). */
		int64_t until = seed % 5 == 0 ? s.now : INT64_MAX;
		struct prediction_set a, b;
		prediction_set_init(&a);
		prediction_set_init(&b);
		predict_until(&s, until, &a);
		ref_predict_until(&s, until, &b);
		if (!same_set(&a, &b, seed))
			bad++;
		for (size_t i = 0; i < b.n; i++) {
			placed += b.items[i].placed;
			permit += b.items[i].permit;
			backfilled += b.items[i].backfilled;
			never += b.items[i].never != NEVER_NO;
			if (b.items[i].placed)
				gates[b.items[i].gate]++;
		}
		prediction_set_release(&a);
		prediction_set_release(&b);
		snapshot_release(&s);
	}
	printf("# %d snapshots: %zu placed, %zu backfilled, %zu by permit, %zu never; gates",
	       DIFF_SNAPSHOTS, placed, backfilled, permit, never);
	for (int g = 0; g < GATE_COUNT; g++)
		printf(" %s %zu", predict_gate_name((enum predict_gate)g), gates[g]);
	printf("\n");
	CHECK_INT(bad, 0);
	/* The snapshots reach every path the comparison is meant to cover. */
	CHECK(backfilled > 0 && permit > 0 && never > 0);
	for (int g = 0; g < GATE_COUNT; g++)
		CHECK(gates[g] > 0);
}

void suite_predictdiff(void)
{
	RUN(test_fast_equals_reference);
}
