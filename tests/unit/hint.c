/*
 * hint.c - every hint gq offers is true (issue #16): on seeded random
 * snapshots (queues with quotas and a window, tiers, holds, dependencies,
 * GPU models asked for by name, same-node, estimates, time limits or
 * neither), each hint of each pending job,
 * applied by this file's own reading of its change to a fresh copy of the
 * snapshot, and predicted with the full predict_all() (not the cut-short
 * run hint.c uses), makes the job start at the time the hint says, at
 * least HINT_MIN_GAIN sooner than without it (or at all). Plus the two
 * false hints of the issue, each as a fixture.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hint.h"
#include "core/reason.h"
#include "fixture.h"

#define HINT_SNAPSHOTS 1500

static uint64_t rng(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int64_t pick(uint64_t *x, int64_t n)
{
	return (int64_t)(rng(x) % (uint64_t)n);
}

static void set(struct snapshot *s, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, k, v, &e), 0);
}

static void random_snapshot(struct snapshot *s, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 11;
	int nnodes = 1 + (int)pick(&x, 3), gpus = 4 << pick(&x, 2);
	fx_init(s, nnodes, gpus);
	if (nnodes > 1 && pick(&x, 2))
		STR_COPY(s->nodes[nnodes - 1].gpu_model, "h100");
	if (pick(&x, 2))
		s->policy.headroom = 0;
	char v[16];
	snprintf(v, sizeof(v), "%d", (int)(1 + pick(&x, gpus)));
	set(s, "queue.default.quota", v);
	set(s, "queue.default.borrow", pick(&x, 2) ? "0" : "4");
	set(s, "queue.exp.quota", "-1");
	set(s, "queue.night.quota", "-1");
	if (pick(&x, 2))
		set(s, "queue.night.window", "00:00-23:59"); /* paused now (T0 is midday) */
	if (pick(&x, 3) == 0)
		set(s, "tier.P0.allow", "bob");
	static const char *const queues[] = {"default", "exp", "night"};
	static const char *const users[] = {"alice", "bob"};
	int64_t id = 1;
	for (int node = 0; node < nnodes; node++) {
		int used = 0;
		while (used < gpus && pick(&x, 3)) {
			int g = 1 + (int)pick(&x, gpus - used);
			struct job *j = fx_running(s, id++, (enum tier)pick(&x, 3), node, g,
						   MIN(-pick(&x, 60)), 60 * (1 + pick(&x, 120)));
			STR_COPY(j->queue, queues[pick(&x, 2)]);
			j->time_limit = 3600 * (1 + pick(&x, 4));
			used += g;
		}
	}
	int64_t first_pending = id;
	for (int n = 1 + (int)pick(&x, 10); n > 0; n--) {
		struct job *j = fx_pending(s, id++, (enum tier)pick(&x, 3), 1 + (int)pick(&x, gpus),
					   MIN(-pick(&x, 120)));
		STR_COPY(j->queue, queues[pick(&x, 3)]);
		STR_COPY(j->user, users[pick(&x, 2)]);
		j->estimate = pick(&x, 3) ? 60 * (1 + pick(&x, 120)) : 0;
		j->time_limit = pick(&x, 4) ? 3600 * (1 + pick(&x, 4)) : 0;
		if (j->estimate > j->time_limit && j->time_limit)
			j->estimate = j->time_limit;
		j->held = pick(&x, 8) == 0;
		int64_t model = pick(&x, 6);
		if (model == 0)
			STR_COPY(j->req.gpu_type, "h100");
		else if (model == 1 && nnodes > 1) /* with an h100 node: the other model */
			STR_COPY(j->req.gpu_type, "a100");
		j->req.same_node = pick(&x, 4) == 0;
		if (id - 1 > first_pending && pick(&x, 5) == 0) {
			j->ndeps = 1;
			j->deps[0] = first_pending + pick(&x, id - 1 - first_pending);
		}
	}
	snapshot_sort(s);
}

/* This file's reading of what each change means, kept apart from
 * hint_apply(): the property checks the engine against it. */
static void apply(const struct snapshot *s, const struct hint_item *h, struct job *j)
{
	switch (h->hint) {
	case HINT_RELEASE:
		j->held = false;
		break;
	case HINT_FEWER_GPUS:
		j->req.gpus = (int)h->value;
		break;
	case HINT_ANY_GPU_TYPE:
		memset(j->req.gpu_type, 0, sizeof(j->req.gpu_type));
		j->req.gpu_mem_mb = 0;
		break;
	case HINT_GPU_TYPE:
		snprintf(j->req.gpu_type, sizeof(j->req.gpu_type), "%s", h->arg);
		break;
	case HINT_SPREAD:
		j->req.same_node = false;
		break;
	case HINT_SHORTER_ESTIMATE:
	case HINT_BOUND:
		j->estimate = h->value;
		break;
	case HINT_SHORTER_TIME_LIMIT:
		j->time_limit = h->value;
		break;
	case HINT_NO_DEPENDENCY:
		j->ndeps = 0;
		break;
	case HINT_QUEUE: {
		const struct queue_policy *q = policy_queue(&s->policy, h->arg);
		CHECK(q != NULL);
		snprintf(j->queue, sizeof(j->queue), "%s", h->arg);
		snprintf(j->dept, sizeof(j->dept), "%s", q ? q->dept : "");
		if (q && !j->time_limit && q->default_time)
			j->time_limit = q->default_time;
		break;
	}
	case HINT_PROMOTE:
		j->ovr.set = true;
		j->ovr.tier = (enum tier)h->value;
		break;
	case HINT_COUNT:
		CHECK(false);
		break;
	}
}

static const struct prediction *find(const struct prediction_set *ps, const struct snapshot *s,
				     int64_t id)
{
	return prediction_find(ps, s, id);
}

static void test_every_hint_applied_starts_the_job_sooner(void)
{
	size_t offered = 0, bad = 0, jobs = 0, evaluated = 0, kinds[HINT_COUNT] = {0};
	for (uint64_t seed = 1; seed <= HINT_SNAPSHOTS; seed++) {
		struct snapshot s;
		random_snapshot(&s, seed);
		struct prediction_set ps;
		struct why_set ws;
		prediction_set_init(&ps);
		why_set_init(&ws);
		predict_all(&s, &ps);
		reason_all(&s, &ps, &ws);
		for (size_t i = 0; i < ws.n; i++) {
			const struct why *w = &ws.items[i];
			struct hint_set hs;
			hint_job(&s, &ps, w, &hs);
			jobs++;
			evaluated += (size_t)hs.evaluated;
			CHECK(hs.evaluated <= HINT_MAX_EVAL);
			const struct prediction *base = w->pred;
			bool base_ok = base && base->placed && base->never == NEVER_NO;
			for (int k = 0; k < hs.n; k++) {
				const struct hint_item *h = &hs.items[k];
				offered++;
				kinds[h->hint]++;
				struct snapshot c = s;
				c.jobs = malloc(s.njobs * sizeof(*c.jobs));
				memcpy(c.jobs, s.jobs, s.njobs * sizeof(*c.jobs));
				apply(&s, h, &c.jobs[w->idx]);
				struct prediction_set cps;
				prediction_set_init(&cps);
				predict_all(&c, &cps);
				const struct prediction *p = find(&cps, &c, w->job);
				bool ok = p && p->placed && p->never == NEVER_NO &&
					  p->start == h->start &&
					  (base_ok ? p->start + HINT_MIN_GAIN <= base->start &&
							 h->gain == base->start - p->start
						   : h->gain == 0);
				if (!ok && bad < 5)
					printf("# seed %llu job %lld: hint %s %lld '%s' says %lld, "
					       "predicted %lld (base %lld)\n",
					       (unsigned long long)seed, (long long)w->job,
					       hint_name(h->hint), (long long)h->value, h->arg,
					       (long long)h->start, p ? (long long)p->start : -1LL,
					       base_ok ? (long long)base->start : -1LL);
				bad += !ok;
				prediction_set_release(&cps);
				free(c.jobs);
			}
		}
		why_set_release(&ws);
		prediction_set_release(&ps);
		snapshot_release(&s);
	}
	printf("# %d snapshots: %zu jobs, %zu predictions run, %zu hints:", HINT_SNAPSHOTS, jobs,
	       evaluated, offered);
	for (int k = 0; k < HINT_COUNT; k++)
		printf(" %s %zu", hint_name((enum hint)k), kinds[k]);
	printf("\n");
	CHECK_INT(bad, 0);
	/* The property says something only if hints of most kinds are offered. */
	CHECK(offered > HINT_SNAPSHOTS);
	for (int k = 0; k < HINT_COUNT; k++)
		CHECK(kinds[k] > 0);
}

static bool offers(const struct snapshot *s, int64_t id, enum hint h)
{
	struct prediction_set ps;
	struct why_set ws;
	prediction_set_init(&ps);
	why_set_init(&ws);
	predict_all(s, &ps);
	reason_all(s, &ps, &ws);
	const struct why *w = why_find(&ws, s, id);
	CHECK(w != NULL);
	struct hint_set hs = {0};
	if (w)
		hint_job(s, &ps, w, &hs);
	bool found = false;
	for (int i = 0; i < hs.n; i++)
		found |= hs.items[i].hint == h;
	why_set_release(&ws);
	prediction_set_release(&ps);
	return found;
}

/* The first false hint: "ask for 1 GPU, that would fit" when 1
 * GPU is free, but the headroom keeps it for P0 (8 GPUs, 1 held back). */
static void test_no_fewer_gpus_into_the_headroom(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0.125");
	fx_running(&s, 1, TIER_P1, 0, 7, MIN(-10), 60 * 60);
	fx_pending(&s, 2, TIER_P1, 4, MIN(-5));
	snapshot_sort(&s);
	CHECK(!offers(&s, 2, HINT_FEWER_GPUS));
	snapshot_release(&s);
}

/* The second: "Tier P0" to jobs a tier cannot move (held, behind a
 * dependency, in a paused queue, never runnable), and where P0 jobs of
 * the same weight are ahead anyway. */
static void test_no_promote_where_a_tier_moves_nothing(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.night.window", "00:00-23:59");
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 60 * 60);
	fx_pending(&s, 2, TIER_P1, 8, MIN(-5))->held = true;
	fx_pending(&s, 3, TIER_P1, 8, MIN(-5));
	struct job *j = fx_pending(&s, 4, TIER_P1, 4, MIN(-5));
	j->ndeps = 1;
	j->deps[0] = 3;
	STR_COPY(fx_pending(&s, 5, TIER_P1, 4, MIN(-5))->queue, "night");
	fx_pending(&s, 6, TIER_P1, 16, MIN(-5)); /* never fits */
	snapshot_sort(&s);
	for (int64_t id = 2; id <= 6; id++)
		CHECK(!offers(&s, id, HINT_PROMOTE));
	snapshot_release(&s);

	/* P0 jobs that waited longer weigh more than a fresh P0: promoted,
	 * it would still start after all of them. */
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 60 * 60);
	for (int64_t id = 10; id < 14; id++)
		fx_pending(&s, id, TIER_P0, 8, MIN(-50))->estimate = 3600;
	fx_pending(&s, 20, TIER_P1, 8, MIN(-5))->estimate = 3600;
	snapshot_sort(&s);
	CHECK(!offers(&s, 20, HINT_PROMOTE));
	snapshot_release(&s);
}

/* The first hint of kind h of job id, or NULL (hs owned by the caller). */
static const struct hint_item *hint_of(const struct snapshot *s, int64_t id, enum hint h,
				       struct hint_set *hs)
{
	struct prediction_set ps;
	struct why_set ws;
	prediction_set_init(&ps);
	why_set_init(&ws);
	predict_all(s, &ps);
	reason_all(s, &ps, &ws);
	const struct why *w = why_find(&ws, s, id);
	memset(hs, 0, sizeof(*hs));
	if (w)
		hint_job(s, &ps, w, hs);
	why_set_release(&ws);
	prediction_set_release(&ps);
	for (int i = 0; i < hs->n; i++)
		if (hs->items[i].hint == h)
			return &hs->items[i];
	return NULL;
}

/* Another GPU model: the a100s are busy for an hour, the h100s free. */
static void test_another_gpu_model(void)
{
	struct snapshot s;
	struct hint_set hs;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	STR_COPY(s.nodes[1].gpu_model, "h100");
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 70 * 60); /* the a100s, to +60 */
	STR_COPY(fx_pending(&s, 2, TIER_P1, 4, MIN(-5))->req.gpu_type, "a100");
	snapshot_sort(&s);
	const struct hint_item *h = hint_of(&s, 2, HINT_GPU_TYPE, &hs);
	CHECK(h != NULL);
	if (h) {
		CHECK_STR(h->arg, "h100");
		CHECK_INT(h->start, MIN(0));
		CHECK_INT(h->gain, 3600);
	}
	/* One that names no model is offered none. */
	s.jobs[1].req.gpu_type[0] = '\0';
	CHECK(hint_of(&s, 2, HINT_GPU_TYPE, &hs) == NULL);
	snapshot_release(&s);
}

/* A shorter time limit: a job without an estimate is expected to run to
 * its limit (90m), too long for the hour before the P0 job's reservation;
 * with the limit at 1h it is backfilled now. With an estimate, the
 * estimate is the change offered. */
static void test_shorter_time_limit(void)
{
	struct snapshot s;
	struct hint_set hs;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 70 * 60); /* ends +60 */
	fx_pending(&s, 2, TIER_P0, 8, MIN(0));
	fx_pending(&s, 3, TIER_P1, 4, MIN(0))->time_limit = 90 * 60;
	snapshot_sort(&s);
	const struct hint_item *h = hint_of(&s, 3, HINT_SHORTER_TIME_LIMIT, &hs);
	CHECK(h != NULL);
	if (h) {
		CHECK_INT(h->value, 3600);
		CHECK_INT(h->start, MIN(0));
	}
	CHECK(hint_of(&s, 3, HINT_SHORTER_ESTIMATE, &hs) == NULL);
	s.jobs[2].estimate = 80 * 60;
	CHECK(hint_of(&s, 3, HINT_SHORTER_TIME_LIMIT, &hs) == NULL);
	CHECK(hint_of(&s, 3, HINT_SHORTER_ESTIMATE, &hs) != NULL);
	snapshot_release(&s);
}

void suite_hint(void)
{
	RUN(test_another_gpu_model);
	RUN(test_shorter_time_limit);
	RUN(test_every_hint_applied_starts_the_job_sooner);
	RUN(test_no_fewer_gpus_into_the_headroom);
	RUN(test_no_promote_where_a_tier_moves_nothing);
}
