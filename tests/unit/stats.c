/* stats.c - metrics from a small hand-made event stream, exact values. */
#include "harness.h"

#include "core/stats.h"

#include <string.h>

struct evlog {
	struct event v[64];
	size_t n;
};

static void ev(struct evlog *l, int64_t t, int64_t job, enum job_state from, enum job_state to,
	       const char *kind)
{
	struct event *e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->seq = (int64_t)++l->n;
	e->time = t;
	e->job = job;
	e->from = from;
	e->to = to;
	STR_COPY(e->kind, kind);
}

static void job(struct snapshot *s, int64_t id, const char *queue, const char *dept, enum tier t,
		int gpus, int64_t submit)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	STR_COPY(j->queue, queue);
	STR_COPY(j->dept, dept);
	j->tier = t;
	j->req.gpus = gpus;
	j->submit_time = j->queued_time = submit;
}

#define P JOB_PENDING
#define R JOB_RUNNING
#define S JOB_STOPPING

/*
 * 8 GPUs. default/P1: #1 (2 GPUs) waits 100, #2 (4) waits 390, #3 (1) waits
 * 30 and overtakes #1 and #2, #6 is cancelled after pending 1000 s.
 * exp/P2 (department research): #4 (1 GPU) waits 30 (overtaking #1 and #2
 * again), checkpoints at 500, is preempted at 800, released at 900,
 * restarts at 2000 (second wait 1100); #7 pends to the end of the window.
 * default/P0: #5 waits 30 (a higher tier passing: no overtake).
 */
static void scenario(struct snapshot *s, struct evlog *l)
{
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(s);
	policy_set(&s->policy, "department.research.gpuHours", "100", &e);
	policy_set(&s->policy, "queue.exp.department", "research", &e);
	policy_set(&s->policy, "tier.P2.waitLimit", "2h", &e);
	snapshot_add_node(s)->ngpus = 8;
	job(s, 1, "default", "default", TIER_P1, 2, 0);
	job(s, 2, "default", "default", TIER_P1, 4, 10);
	job(s, 3, "default", "default", TIER_P1, 1, 20);
	job(s, 4, "exp", "research", TIER_P2, 1, 30);
	job(s, 5, "default", "default", TIER_P0, 1, 40);
	job(s, 6, "default", "default", TIER_P1, 1, 5000);
	job(s, 7, "exp", "research", TIER_P2, 1, 100);
	snapshot_sort(s);
	l->n = 0;
	ev(l, 0, 1, P, P, "submit");
	ev(l, 10, 2, P, P, "submit");
	ev(l, 20, 3, P, P, "submit");
	ev(l, 30, 4, P, P, "submit");
	ev(l, 40, 5, P, P, "submit");
	ev(l, 50, 3, P, R, "state");
	ev(l, 60, 4, P, R, "state");
	ev(l, 70, 5, P, R, "state");
	ev(l, 100, 1, P, R, "state");
	ev(l, 100, 7, P, P, "submit");
	ev(l, 400, 2, P, R, "state");
	ev(l, 500, 4, R, R, "checkpoint");
	ev(l, 800, 4, R, S, "preempt");
	ev(l, 900, 4, S, P, "state");
	ev(l, 1000, 5, R, JOB_COMPLETED, "state");
	ev(l, 1050, 3, R, JOB_COMPLETED, "state");
	ev(l, 1100, 1, R, JOB_COMPLETED, "state");
	ev(l, 2000, 4, P, R, "state");
	ev(l, 2400, 2, R, JOB_COMPLETED, "state");
	ev(l, 3000, 4, R, JOB_COMPLETED, "state");
	ev(l, 5000, 6, P, P, "submit");
	ev(l, 6000, 6, P, JOB_CANCELLED, "state");
}

static const struct stats_group *find(const struct stats *st, const char *q, enum tier t)
{
	for (size_t i = 0; i < st->ngroups; i++)
		if (!strcmp(st->groups[i].queue, q) && st->groups[i].tier == t)
			return &st->groups[i];
	return NULL;
}

static void test_percentiles_nearest_rank(void)
{
	int64_t a[] = {4, 1, 3, 2};
	CHECK_INT(stats_percentile(a, 4, 50), 2);
	CHECK_INT(stats_percentile(a, 4, 95), 4);
	int64_t b[] = {10,  20,	 30,  40,  50,	60,  70,  80,  90,  100,
		       110, 120, 130, 140, 150, 160, 170, 180, 190, 200};
	CHECK_INT(stats_percentile(b, 20, 95), 190);
	CHECK_INT(stats_percentile(b, 20, 50), 100);
	CHECK_INT(stats_percentile(b, 1, 95), 10);
	CHECK_INT(stats_percentile(b, 0, 50), 0);
}

static void test_waits_per_queue_and_tier(void)
{
	struct snapshot s;
	struct evlog l;
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	scenario(&s, &l);
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 10000, &st, &e), 0);
	CHECK_INT(st.ngroups, 6); /* default/P0, default/P1, exp/P2, and 3 totals */
	const struct stats_group *g = find(&st, "default", TIER_P1);
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(g->starts, 3);
		CHECK_INT(g->p50_wait, 100);
		CHECK_INT(g->p95_wait, 390);
		CHECK_INT(g->longest_wait, 1000); /* #6, cancelled while pending */
		CHECK_INT(g->longest_job, 6);
		CHECK_INT(g->over_limit, 0);
		CHECK_INT(g->cancelled, 1);
		CHECK_INT(g->overtaken, 4);
	}
	g = find(&st, "exp", TIER_P2);
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(g->starts, 2);
		CHECK_INT(g->p50_wait, 30);
		CHECK_INT(g->p95_wait, 1100);
		CHECK_INT(g->longest_wait, 9900); /* #7, still pending at the end */
		CHECK_INT(g->longest_job, 7);
		CHECK_INT(g->over_limit, 1);
		CHECK_INT(g->overtaken, 0);
		CHECK_INT(g->preemptions, 1);
		CHECK_DBL(g->work_lost, 300, 0); /* 1 GPU x (800 - checkpoint at 500) */
	}
	g = find(&st, "default", TIER_P0);
	CHECK(g && g->starts == 1 && g->p50_wait == 30 && g->overtaken == 0);
	g = find(&st, "*", TIER_P1);
	CHECK(g && g->starts == 3 && g->overtaken == 4 && g->cancelled == 1);
	CHECK_STR(st.groups[st.ngroups - 1].queue, "*");
	stats_release(&st);
	snapshot_release(&s);
}

static void test_utilisation_and_price(void)
{
	struct snapshot s;
	struct evlog l;
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	scenario(&s, &l);
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 10000, &st, &e), 0);
	/* #1 2x1000, #2 4x2000, #3 1000, #4 840 + 1000, #5 930. */
	CHECK_DBL(st.gpu_seconds, 13770, 0);
	CHECK_INT(st.gpus, 8);
	CHECK_DBL(st.utilisation, 13770.0 / 80000, 1e-12);
	CHECK_INT(st.ndepts, 2);
	if (st.ndepts == 2) {
		CHECK_STR(st.depts[0].dept, "default");
		CHECK_DBL(st.depts[0].gpu_hours, 11930.0 / 3600, 1e-12);
		CHECK_DBL(st.depts[0].charged, (11000 + 930 * 1.5) / 3600, 1e-12);
		CHECK_STR(st.depts[1].dept, "research");
		CHECK_DBL(st.depts[1].charged, 1840 * 0.3 / 3600, 1e-12);
	}
	stats_release(&st);
	snapshot_release(&s);
}

static void test_window_clips(void)
{
	struct snapshot s;
	struct evlog l;
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	scenario(&s, &l);
	CHECK_INT(stats_compute(&s, l.v, l.n, 1000, 2000, &st, &e), 0);
	/* #1 100 s x 2, #2 1000 s x 4, #3 50 s. */
	CHECK_DBL(st.gpu_seconds, 4250, 0);
	const struct stats_group *g = find(&st, "exp", TIER_P2);
	CHECK(g && g->starts == 0 && g->preemptions == 0 && g->work_lost == 0);
	g = find(&st, "default", TIER_P1);
	CHECK(g && g->starts == 0 && g->overtaken == 0 && g->p50_wait == 0);
	stats_release(&st);
	snapshot_release(&s);
}

static void test_checkpoint_in_grace_loses_nothing(void)
{
	struct snapshot s;
	struct evlog l;
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(&s);
	snapshot_add_node(&s)->ngpus = 8;
	job(&s, 1, "default", "default", TIER_P2, 4, 0);
	l.n = 0;
	ev(&l, 0, 1, P, P, "submit");
	ev(&l, 10, 1, P, R, "state");
	ev(&l, 600, 1, R, S, "preempt");
	ev(&l, 620, 1, S, S, "checkpoint");
	ev(&l, 630, 1, S, P, "state");
	ev(&l, 640, 1, P, P, "would-preempt");
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 1000, &st, &e), 0);
	const struct stats_group *g = find(&st, "default", TIER_P2);
	CHECK(g && g->preemptions == 1 && g->work_lost == 0 && g->would_preempt == 1);
	stats_release(&st);
	/* Without the checkpoint: 4 GPUs x 590 s. */
	l.v[3].to = S;
	STR_COPY(l.v[3].kind, "state");
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 1000, &st, &e), 0);
	g = find(&st, "default", TIER_P2);
	CHECK(g && g->work_lost == 4 * 590);
	stats_release(&st);
	/* A cancel of a running job stops it too, and is no preemption. */
	STR_COPY(l.v[2].kind, "state");
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 1000, &st, &e), 0);
	g = find(&st, "default", TIER_P2);
	CHECK(g && g->preemptions == 0 && g->work_lost == 0);
	stats_release(&st);
	snapshot_release(&s);
}

/* gq serve --slurm's "gone": #1 waits from 0 and leaves the queue unseen at
 * 300, #2 runs from 0 on 4 GPUs and is gone at 500. Neither stays active to
 * the window's end: the longest wait is 300, not 1000, the GPU time 2000. */
static void test_gone_ends_the_wait_and_the_run(void)
{
	struct snapshot s;
	struct evlog l = {.n = 0};
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(&s);
	snapshot_add_node(&s)->ngpus = 8;
	job(&s, 1, "default", "default", TIER_P1, 2, 0);
	job(&s, 2, "default", "default", TIER_P1, 4, 0);
	snapshot_sort(&s);
	ev(&l, 0, 1, P, P, "submit");
	ev(&l, 0, 2, P, P, "submit");
	ev(&l, 0, 2, P, R, "state");
	ev(&l, 300, 1, P, P, "gone");
	ev(&l, 500, 2, R, R, "gone");
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 1000, &st, &e), 0);
	const struct stats_group *g = find(&st, "default", TIER_P1);
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(g->starts, 1);
		CHECK_INT(g->longest_wait, 300);
		CHECK_INT(g->longest_job, 1);
		CHECK_INT(g->cancelled, 0);
	}
	CHECK_DBL(st.gpu_seconds, 2000, 0);
	stats_release(&st);
	snapshot_release(&s);
}

static void test_bad_input(void)
{
	struct snapshot s;
	struct evlog l;
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	scenario(&s, &l);
	CHECK_INT(stats_compute(&s, l.v, l.n, 100, 100, &st, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	l.v[3].seq = 1;
	CHECK_INT(stats_compute(&s, l.v, l.n, 0, 100, &st, &e), -1);
	CHECK_STR(e.msg, "event 1 after event 3; pass events in seq order");
	snapshot_release(&s);
}

/* job_run_time: the time a job's runs held GPUs, never the time it was
 * pending between or after them (issue 27, defect 6). */
static void test_run_time_counts_runs_only(void)
{
	struct job j;
	job_init(&j);
	j.req.gpus = 2;
	j.runs_kept = true;
	j.state = JOB_RUNNING;
	j.start_time = 1000;
	int64_t s, gs;
	job_run_time(&j, 1600, &s, &gs);
	CHECK_INT(s, 600);
	CHECK_INT(gs, 1200);
	/* Preempted at 1900, pending, cancelled at 5500. */
	job_run_end(&j, 1900);
	j.state = JOB_PENDING;
	job_run_time(&j, 4000, &s, &gs);
	CHECK_INT(s, 900);
	CHECK_INT(gs, 1800);
	j.state = JOB_CANCELLED;
	j.end_time = 5500;
	job_run_time(&j, j.end_time, &s, &gs);
	CHECK_INT(s, 900);
	CHECK_INT(gs, 1800);
	/* Requeued, then a second run on 4 GPUs from 6000 to 6300. */
	j.req.gpus = 4;
	j.state = JOB_RUNNING;
	j.start_time = 6000;
	j.end_time = 0;
	job_run_time(&j, 6100, &s, &gs);
	CHECK_INT(s, 1000);
	CHECK_INT(gs, 2200);
	job_run_end(&j, 6300);
	j.state = JOB_COMPLETED;
	j.end_time = 6300;
	job_run_time(&j, 9999, &s, &gs);
	CHECK_INT(s, 1200);
	CHECK_INT(gs, 3000);
	/* A run that ends where it starts adds nothing. */
	j.start_time = 7000;
	job_run_end(&j, 7000);
	CHECK_INT(j.ran_time, 1200);
}

/* Without runs kept (Slurm's accounting: one run), start to end. */
static void test_run_time_of_one_run(void)
{
	struct job j;
	job_init(&j);
	j.req.gpus = 3;
	j.state = JOB_RUNNING;
	j.start_time = 1000;
	int64_t s, gs;
	job_run_time(&j, 1500, &s, &gs);
	CHECK_INT(s, 500);
	CHECK_INT(gs, 1500);
	j.state = JOB_TIMEOUT;
	j.end_time = 4600;
	job_run_time(&j, 9000, &s, &gs);
	CHECK_INT(s, 3600);
	CHECK_INT(gs, 10800);
	j.start_time = 0; /* never started */
	job_run_time(&j, 9000, &s, &gs);
	CHECK_INT(s, 0);
	CHECK_INT(gs, 0);
}

void suite_stats(void)
{
	RUN(test_run_time_counts_runs_only);
	RUN(test_run_time_of_one_run);
	RUN(test_percentiles_nearest_rank);
	RUN(test_waits_per_queue_and_tier);
	RUN(test_utilisation_and_price);
	RUN(test_window_clips);
	RUN(test_checkpoint_in_grace_loses_nothing);
	RUN(test_gone_ends_the_wait_and_the_run);
	RUN(test_bad_input);
}
