/*
 * replay.c - replay/replay.h on tiny constructed traces whose waits are
 * computed by hand: first come first served, backfill, tiers, aging
 * crossing a step, a starvation permit; and the predictions at submit.
 */
#include "replay/replay.h"

#include <stdio.h>
#include <string.h>

#include "harness.h"

struct tj { /* submit, units, runtime, limit, tier */
	int64_t submit;
	int units;
	int64_t run, limit;
	int tier;
};

/* Replays jobs on one node of 4 units (default policy without headroom);
 * queues[i] is the queue letter of job i, or queues NULL. */
static void replay_q(const struct tj *v, size_t n, const char *queues, struct replay_opts *o,
		     struct replay_result *r)
{
	struct trace t;
	trace_init(&t);
	for (size_t i = 0; i < n; i++) {
		GROW(t.jobs, t.cap, t.n + 1);
		struct trace_job *j = &t.jobs[t.n++];
		memset(j, 0, sizeof(*j));
		snprintf(j->id, sizeof(j->id), "%zu", i + 1);
		snprintf(j->user, sizeof(j->user), "u%zu", i + 1);
		j->submit = v[i].submit;
		j->start = v[i].submit;
		j->end = v[i].submit + v[i].run;
		j->units = v[i].units;
		j->limit = v[i].limit;
		j->tier = v[i].tier;
		j->completed = true;
		if (queues)
			snprintf(j->queue, sizeof(j->queue), "%c", queues[i]);
	}
	if (!o->nodes) {
		o->nodes = 1;
		o->gpus_per_node = 4;
	}
	o->policy.headroom = 0;
	memset(r, 0, sizeof(*r));
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(replay_run(&t, o, r, &e), 0);
	trace_release(&t);
}

static void replay(const struct tj *v, size_t n, struct replay_opts *o, struct replay_result *r)
{
	replay_q(v, n, NULL, o, r);
}

static int64_t wait_of(const struct replay_result *r, size_t i)
{
	return r->jobs[i].start - r->jobs[i].submit;
}

static void test_fcfs(void)
{
	/* A holds all 4 units until 100, B (4) follows, C (2) after B. */
	const struct tj v[] = {{0, 4, 100, 100, -1}, {10, 4, 50, 50, -1}, {20, 2, 10, 10, -1}};
	struct replay_opts o;
	struct replay_result r;
	replay_opts_init(&o);
	replay(v, 3, &o, &r);
	CHECK_INT(r.njobs, 3);
	CHECK_INT(wait_of(&r, 0), 0);
	CHECK_INT(wait_of(&r, 1), 90);
	CHECK_INT(wait_of(&r, 2), 130);
	CHECK_INT(r.jobs[2].end, 160);
	/* Runtimes are their limits: the predictions at submit are exact. */
	for (int i = 0; i < 3; i++) {
		CHECK(r.jobs[i].predicted);
		CHECK_INT(r.jobs[i].pred[PRED_HISTORY], r.jobs[i].start);
		CHECK_INT(r.jobs[i].pred[PRED_LIMIT], r.jobs[i].start);
		CHECK_INT(r.jobs[i].pred[PRED_ZERO], r.jobs[i].submit);
	}
	CHECK_INT(r.acc[PRED_HISTORY][REF_REPLAY][CLASS_ALL].median, 0);
	CHECK_DBL(r.acc[PRED_HISTORY][REF_REPLAY][CLASS_WAITED].within_1m, 1, 1e-9);
	CHECK_DBL(r.acc[PRED_ZERO][REF_REPLAY][CLASS_WAITED].within_1m, 0, 1e-9);
	CHECK_INT(r.acc[PRED_ZERO][REF_REPLAY][CLASS_WAITED].median, 90);
	/* The log says every job started at submit. */
	CHECK_INT(r.acc[PRED_ZERO][REF_TRACE][CLASS_ALL].median, 0);
	/* Nothing overtook anyone; utilisation (400+200+20) / (4 x 160). */
	CHECK_INT(r.groups[r.ngroups - 1].overtakes, 0);
	CHECK_DBL(r.utilisation, 620.0 / 640.0, 1e-9);
	CHECK_INT(r.hist[0], 1);
	CHECK_INT(r.hist[2], 2); /* 90 and 130 s: under 10 min */
	replay_result_release(&r);
}

static void test_backfill(void)
{
	/* A (3) until 100, B (4) blocked until 100; C (1, 50 s) fits and ends by
	 * 100: backfilled at once. D (1, limit 200) would outlast the
	 * reservation: it waits for B's end at 150. */
	const struct tj v[] = {
	    {0, 3, 100, 100, -1}, {10, 4, 50, 50, -1}, {20, 1, 50, 50, -1}, {30, 1, 20, 200, -1}};
	struct replay_opts o;
	struct replay_result r;
	replay_opts_init(&o);
	replay(v, 4, &o, &r);
	CHECK_INT(wait_of(&r, 0), 0);
	CHECK_INT(wait_of(&r, 1), 90);
	CHECK_INT(wait_of(&r, 2), 0);
	CHECK_INT(wait_of(&r, 3), 120);
	CHECK_INT(r.jobs[1].overtaken, 1); /* by C */
	replay_result_release(&r);
}

static void test_tiers(void)
{
	/* B (P2) waits while C (P0), submitted later, takes the node first. */
	const struct tj v[] = {{0, 4, 100, 100, 1}, {10, 4, 50, 50, 2}, {20, 4, 50, 50, 0}};
	struct replay_opts o;
	struct replay_result r;
	replay_opts_init(&o);
	replay(v, 3, &o, &r);
	CHECK_INT(wait_of(&r, 1), 140);
	CHECK_INT(wait_of(&r, 2), 80);
	CHECK_INT(r.jobs[1].overtaken, 1);
	CHECK_INT(r.ngroups, 5); /* P0, P1, P2, the queue "default", all */
	CHECK_STR(r.groups[0].name, "P0");
	CHECK_STR(r.groups[2].name, "P2");
	CHECK_INT(r.groups[2].p50, 140);
	CHECK_STR(r.groups[r.ngroups - 1].name, "all");
	CHECK_INT(r.groups[r.ngroups - 1].overtakes, 1);
	replay_result_release(&r);
}

/* Aging never crosses tiers: it crosses fair share. A and B are of queue
 * "a", which A's run charged; C, of the unused queue "b", comes 10 s before
 * A ends. Before B's first full interval of 30 min both weigh 30 and fair
 * share puts C first; after it B weighs 33 and goes first. */
static void aging(int64_t a_run, int64_t *wait_b, int64_t *wait_c)
{
	const struct tj v[] = {
	    {0, 4, a_run, a_run, 1}, {1, 4, 100, 100, 1}, {a_run - 10, 4, 100, 100, 1}};
	struct replay_opts o;
	struct replay_result r;
	replay_opts_init(&o);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&o.policy, "queue.a.share", "1", &e), 0);
	CHECK_INT(policy_set(&o.policy, "queue.b.share", "1", &e), 0);
	replay_q(v, 3, "aab", &o, &r);
	*wait_b = wait_of(&r, 1);
	*wait_c = wait_of(&r, 2);
	replay_result_release(&r);
}

static void test_aging_crossing_a_step(void)
{
	int64_t b, c;
	aging(1700, &b, &c); /* B waited 1699 s: no full interval, fair share */
	CHECK_INT(c, 10);
	CHECK_INT(b, 1799);
	aging(1900, &b, &c); /* B waited 1899 s: one interval, 33 > 30 */
	CHECK_INT(b, 1899);
	CHECK_INT(c, 110);
}

static void test_permit(void)
{
	/* A (2) runs 20 h; B (4) waits for it. C (P2, 2 units, limit 25 h)
	 * would outlast B's reservation: no backfill. At 12 h of waiting it
	 * earns its permit and takes the 2 free units ahead of B. */
	const int64_t h = 3600;
	const struct tj v[] = {{0, 2, 20 * h, 20 * h, 1}, {1, 4, h, h, 1}, {2, 2, h, 25 * h, 2}};
	struct replay_opts o;
	struct replay_result r;
	replay_opts_init(&o);
	replay(v, 3, &o, &r);
	CHECK_INT(wait_of(&r, 2), 12 * h);
	CHECK_INT(wait_of(&r, 1), 20 * h - 1);
	CHECK_INT(r.groups[0].name[1], '1');
	CHECK_INT(r.jobs[1].overtaken, 1);
	replay_result_release(&r);
}

static void test_machine(void)
{
	int n, g;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(replay_machine(100, &n, &g, &e), 0);
	CHECK(n == 2 && g == 50);
	CHECK_INT(replay_machine(240, &n, &g, &e), 0);
	CHECK(n == 4 && g == 60);
	CHECK_INT(replay_machine(8, &n, &g, &e), 0);
	CHECK(n == 1 && g == 8);
	CHECK_INT(replay_machine(1021, &n, &g, &e), 0); /* prime: 16 x 64 holds it */
	CHECK(n == 16 && g == 64);
	CHECK_INT(replay_machine(1025, &n, &g, &e), -1);
}

void suite_replay(void)
{
	RUN(test_fcfs);
	RUN(test_backfill);
	RUN(test_tiers);
	RUN(test_aging_crossing_a_step);
	RUN(test_permit);
	RUN(test_machine);
}
