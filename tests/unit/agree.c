/*
 * agree.c - what a client predicts is what the server plans (issue #15,
 * defect 1): on seeded random snapshots with a history of finished runs,
 * the server's way (sched_prepare() on its copy, then sched_plan()) and a
 * client's (the snapshot the server serves, prepared the same way, through
 * the wire in either form, then predict_all()) start the same jobs at now
 * on the same GPUs.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/predict.h"
#include "core/sched.h"
#include "fixture.h"
#include "wire/wire.h"

#define AGREE_SNAPSHOTS 3000

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

static const char *const users[] = {"alice", "bob", "carol"};
static const char *const names[] = {"train", "eval", "prep"};

static void who(uint64_t *x, struct job *j)
{
	STR_COPY(j->user, users[pick(x, 3)]);
	STR_COPY(j->name, names[pick(x, 3)]);
}

/* Minutes, limits of hours: the history (runs far shorter than their
 * limits) is what moves the ends and the gaps. */
static void random_snapshot(struct snapshot *s, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
	int nnodes = 1 + (int)pick(&x, 3), gpus = 4 << pick(&x, 2);
	fx_init(s, nnodes, gpus);
	if (pick(&x, 2))
		s->policy.headroom = 0;
	int64_t id = 1;
	for (int n = (int)pick(&x, 12); n > 0; n--) {
		struct job *j = fx_pending(s, id++, TIER_P1, 1, MIN(-600));
		who(&x, j);
		j->state = pick(&x, 5) ? JOB_COMPLETED : JOB_FAILED;
		j->start_time = MIN(-500 + pick(&x, 200));
		j->end_time = j->start_time + 60 * (1 + pick(&x, 90));
		j->time_limit = pick(&x, 3) ? 3600 * (1 + pick(&x, 4)) : 0;
	}
	for (int node = 0; node < nnodes; node++) {
		int used = 0;
		while (used < gpus && pick(&x, 3)) {
			int g = 1 + (int)pick(&x, gpus - used);
			struct job *j = fx_running(s, id++, (enum tier)pick(&x, 3), node, g,
						   MIN(-pick(&x, 60)), 0);
			who(&x, j);
			j->estimate = pick(&x, 3) ? 0 : 60 * (1 + pick(&x, 120));
			j->time_limit = 3600 * (1 + pick(&x, 4));
			used += g;
		}
	}
	for (int n = 1 + (int)pick(&x, 10); n > 0; n--) {
		struct job *j = fx_pending(s, id++, (enum tier)pick(&x, 3), 1 + (int)pick(&x, gpus),
					   MIN(-pick(&x, 120)));
		who(&x, j);
		j->estimate = pick(&x, 3) ? 0 : 60 * (1 + pick(&x, 120));
		j->time_limit = pick(&x, 4) ? 3600 * (1 + pick(&x, 4)) : 0;
	}
	/* Alice's department has spent its GPU-hours: its jobs run on below
	 * P2, which the client, which marks them itself, must see as gq
	 * serve does. */
	if (pick(&x, 3) == 0) {
		struct gq_err e = GQ_ERR_INIT;
		policy_set(&s->policy, "department.lab.gpuHours", "10", &e);
		s->dstate[policy_dept_index(&s->policy, "lab")].gpu_hours_month = 10;
		for (size_t i = 0; i < s->njobs; i++)
			if (!strcmp(s->jobs[i].user, "alice"))
				STR_COPY(s->jobs[i].dept, "lab");
	}
	snapshot_sort(s);
}

/* The client's snapshot: s as the server sends it, read back. */
static void through_the_wire(const struct snapshot *s, enum codec_form form, struct snapshot *out)
{
	struct gq_err e = GQ_ERR_INIT;
	size_t len = 0;
	char *text = codec_snapshot_text(s, form, &len, &e);
	CHECK(text != NULL);
	snapshot_init(out);
	CHECK_INT(codec_snapshot_parse(text ? text : "{}", text ? len : 2, out, &e), 0);
	free(text);
}

/* Starts at now that the plan and the prediction do not share. */
static size_t disagreements(const struct plan *pl, const struct prediction_set *ps)
{
	size_t bad = 0, starts = 0, now_starts = 0;
	for (size_t i = 0; i < ps->n; i++) {
		const struct prediction *pr = &ps->items[i];
		if (!pr->placed || pr->start != ps->now)
			continue;
		now_starts++;
		const struct plan_action *a = plan_find(pl, PLAN_START, pr->job);
		bad += !a || a->nalloc != pr->nalloc ||
		       memcmp(a->alloc, pr->alloc, sizeof(a->alloc[0]) * (size_t)a->nalloc) ||
		       pr->permit != !strcmp(a->reason, "permit");
	}
	for (size_t i = 0; i < pl->n; i++)
		starts += pl->actions[i].kind == PLAN_START;
	return bad + (starts > now_starts ? starts - now_starts : now_starts - starts);
}

static void test_client_starts_now_what_the_server_plans(void)
{
	size_t bad = 0, with_history = 0, starts = 0;
	for (uint64_t seed = 1; seed <= AGREE_SNAPSHOTS; seed++) {
		struct snapshot s;
		random_snapshot(&s, seed);
		/* The server: its planning copy, prepared, planned on. */
		sched_prepare(&s);
		struct plan pl;
		plan_init(&pl);
		sched_plan(&s, &pl);
		/* A client: the snapshot served, predicted on. */
		struct snapshot c;
		through_the_wire(&s, seed % 2 ? CODEC_ROWS : CODEC_OBJECTS, &c);
		struct prediction_set ps;
		prediction_set_init(&ps);
		predict_all(&c, &ps);
		size_t d = disagreements(&pl, &ps);
		if (d && bad < 5)
			printf("# seed %llu: %zu starts at now differ\n", (unsigned long long)seed,
			       d);
		bad += d > 0;
		for (size_t i = 0; i < s.njobs; i++)
			if (job_state_active(s.jobs[i].state) && s.jobs[i].hist_runtime > 0) {
				with_history++;
				break;
			}
		for (size_t i = 0; i < pl.n; i++)
			starts += pl.actions[i].kind == PLAN_START;
		prediction_set_release(&ps);
		snapshot_release(&c);
		plan_release(&pl);
		snapshot_release(&s);
	}
	printf("# %d snapshots: %zu with history, %zu starts at now\n", AGREE_SNAPSHOTS,
	       with_history, starts);
	CHECK_INT(bad, 0);
	/* The property says something only if history matters. */
	CHECK(with_history > AGREE_SNAPSHOTS / 2);
	CHECK(starts > AGREE_SNAPSHOTS);
}

void suite_agree(void)
{
	RUN(test_client_starts_now_what_the_server_plans);
}
