/*
 * calib.c - the calibration of predicted ranges (core/calib.h, issue #15:
 * a range users can trust holds 80 % of starts).
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "core/calib.h"
#include "core/predict.h"
#include "core/sched.h"
#include "core/util.h"
#include "fixture.h"
#include "wire/wire.h"

/* A job of the calibration: submitted at `sub`, predicted then to start
 * `pw` later, started `w` after its submit. */
static struct job *started(struct snapshot *s, int64_t id, int64_t sub, int64_t pw, int64_t w)
{
	struct job *j = fx_pending(s, id, TIER_P1, 1, sub);
	j->state = JOB_COMPLETED;
	j->pred_start0 = sub + pw;
	j->start_time = sub + w;
	j->end_time = j->start_time + 60;
	return j;
}

static void add_ratio(struct calib_window *w, double r)
{
	struct job j;
	job_init(&j);
	j.submit_time = T0;
	j.pred_start0 = T0 + 1000;
	j.start_time = T0 + (int64_t)(r * 1000 + 0.5);
	calib_add_job(w, &j);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The quantiles by nearest rank, from CALIB_MIN jobs on. */
static void test_quantiles(void)
{
	struct calib_window *w = xmalloc(sizeof(*w));
	calib_init(w);
	struct predict_calib c;
	for (int k = 1; k < CALIB_MIN; k++)
		add_ratio(w, k / 100.0);
	calib_get(w, &c);
	CHECK_INT(c.n, 0); /* too few to say */
	for (int k = CALIB_MIN; k <= 100; k++)
		add_ratio(w, k / 100.0);
	calib_get(w, &c);
	CHECK_INT(c.n, 100);
	CHECK_DBL(c.lo, 0.10, 1e-9);
	CHECK_DBL(c.hi, 0.90, 1e-9);
	free(w);
}

/* The window keeps the latest CALIB_WINDOW ratios: the same quantiles as
 * sorting them afresh, whatever came before. */
static void test_window_keeps_the_latest(void)
{
	struct calib_window *w = xmalloc(sizeof(*w));
	calib_init(w);
	enum { N = 3 * CALIB_WINDOW + 17 };
	double *all = xmalloc(N * sizeof(*all)), *last = xmalloc(CALIB_WINDOW * sizeof(*last));
	uint64_t x = 42;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* Drifting upwards, so that an old ratio left behind shows. */
		all[i] = (double)(x % 1000) / 1000.0 * (1 + i / CALIB_WINDOW);
		add_ratio(w, all[i]);
	}
	for (int i = 0; i < CALIB_WINDOW; i++) {
		/* What add_ratio kept: the start rounds to a second. */
		last[i] = (double)(int64_t)(all[N - CALIB_WINDOW + i] * 1000 + 0.5) / 1000.0;
	}
	qsort(last, CALIB_WINDOW, sizeof(*last), cmp_dbl);
	struct predict_calib c;
	calib_get(w, &c);
	CHECK_INT(c.n, CALIB_WINDOW);
	CHECK_DBL(c.lo, last[(int)(CALIB_LO * (CALIB_WINDOW - 1))], 1e-12);
	CHECK_DBL(c.hi, last[(int)(CALIB_HI * (CALIB_WINDOW - 1))], 1e-12);
	free(all);
	free(last);
	free(w);
}

/* What counts: a first run that started, predicted at its submit to wait
 * a minute or more. */
static void test_what_counts(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	int64_t id = 1;
	for (int k = 0; k < CALIB_MIN; k++)
		started(&s, id++, MIN(-600 + k), 600, 1200);	 /* ratio 2 */
	started(&s, id++, MIN(-300), 30, 6000);			 /* predicted under a minute */
	started(&s, id++, MIN(-300), 600, 60)->restarts = 1;	 /* a requeued run */
	started(&s, id++, MIN(-300), 600, 60)->pred_start0 = -1; /* no prediction */
	struct job *p = started(&s, id++, MIN(-300), 600, 60);
	p->state = JOB_PENDING; /* never started */
	p->start_time = 0;
	snapshot_sort(&s);
	predict_fill_calib(&s);
	CHECK_INT(s.calib.n, CALIB_MIN);
	CHECK_DBL(s.calib.lo, 2.0, 1e-12);
	CHECK_DBL(s.calib.hi, 2.0, 1e-12);
	/* One job fewer and there is no calibration. */
	s.jobs[0].restarts = 1;
	predict_fill_calib(&s);
	CHECK_INT(s.calib.n, 0);
	snapshot_release(&s);
}

/* The snapshot's calibration is the window's over its jobs by start time:
 * what gq sim keeps incrementally is what gq serve computes. */
static void test_fill_is_the_window_in_start_order(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct calib_window *w = xmalloc(sizeof(*w));
	calib_init(w);
	uint64_t x = 7;
	int64_t n = CALIB_WINDOW + 300;
	for (int64_t id = 1; id <= n; id++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		started(&s, id, MIN(-5000) + id * 60, 60 + (int64_t)(x % 3600),
			(int64_t)((x >> 20) % 7200));
	}
	snapshot_sort(&s);
	/* By start time: a job's start is its submit plus its wait. */
	const struct job **v = xmalloc((size_t)n * sizeof(*v));
	for (int64_t i = 0; i < n; i++)
		v[i] = &s.jobs[i];
	for (int64_t i = 1; i < n; i++) /* insertion sort: the test's own */
		for (int64_t k = i; k > 0 && (v[k - 1]->start_time > v[k]->start_time ||
					      (v[k - 1]->start_time == v[k]->start_time &&
					       v[k - 1]->id > v[k]->id));
		     k--) {
			const struct job *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (int64_t i = 0; i < n; i++)
		calib_add_job(w, v[i]);
	struct predict_calib want;
	calib_get(w, &want);
	predict_fill_calib(&s);
	CHECK_INT(s.calib.n, want.n);
	CHECK_DBL(s.calib.lo, want.lo, 0);
	CHECK_DBL(s.calib.hi, want.hi, 0);
	CHECK(want.lo < want.hi);
	free(v);
	free(w);
	snapshot_release(&s);
}

static void test_widen(void)
{
	struct predict_calib c = {0.5, 3.0, 100};
	int64_t lo = T0 + 3000, hi = T0 + 4000;
	calib_widen(&c, T0, T0 + 3600, &lo, &hi);
	CHECK_INT(lo, T0 + 1800);
	CHECK_INT(hi, T0 + 10800);
	/* Never narrower than the simulation's. */
	lo = T0 + 100, hi = T0 + 20000;
	calib_widen(&c, T0, T0 + 3600, &lo, &hi);
	CHECK_INT(lo, T0 + 100);
	CHECK_INT(hi, T0 + 20000);
	/* Under a minute's wait, or without a calibration: as it was. */
	lo = hi = T0 + 59;
	calib_widen(&c, T0, T0 + 59, &lo, &hi);
	CHECK_INT(hi, T0 + 59);
	struct predict_calib none = {0};
	lo = hi = T0 + 3600;
	calib_widen(&none, T0, T0 + 3600, &lo, &hi);
	CHECK_INT(lo, T0 + 3600);
	CHECK_INT(hi, T0 + 3600);
	/* Far ahead: within what a decoder takes. */
	struct predict_calib huge = {0, 1e4, 100};
	lo = hi = GQ_CLOCK_MAX;
	calib_widen(&huge, T0, GQ_CLOCK_MAX, &lo, &hi);
	CHECK_INT(lo, T0);
	CHECK_INT(hi, GQ_TIME_MAX);
}

/* predict_all widens each range by the snapshot's calibration; the starts
 * stay the simulation's. */
static void test_predictions_take_it(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 60 * 60);
	fx_pending(&s, 2, TIER_P1, 8, MIN(-5))->estimate = 1800;
	snapshot_sort(&s);
	struct prediction_set a, b;
	prediction_set_init(&a);
	prediction_set_init(&b);
	predict_all(&s, &a);
	s.calib = (struct predict_calib){0.25, 4.0, 200};
	predict_all(&s, &b);
	const struct prediction *pa = prediction_find(&a, &s, 2), *pb = prediction_find(&b, &s, 2);
	CHECK(pa && pb && pa->placed && pb->placed);
	if (pa && pb) {
		CHECK_INT(pb->start, pa->start);
		CHECK_INT(pa->start, MIN(50));
		CHECK_INT(pb->low, MIN(0) + 50 * 60 / 4);
		CHECK_INT(pb->high, MIN(200));
		CHECK(pa->low > pb->low && pa->high < pb->high);
	}
	prediction_set_release(&a);
	prediction_set_release(&b);
	snapshot_release(&s);
}

/* The plan hands the server each new job's predicted start once: a start
 * for a job just submitted (a second later, or at once for a batch), -1
 * for one first seen long after its submit, nothing for one already
 * recorded or held. */
static void test_plan_records_the_start_at_submit(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 60 * 60);
	fx_pending(&s, 2, TIER_P1, 8, MIN(0))->estimate = 1800;
	fx_pending(&s, 3, TIER_P1, 8, MIN(-30))->estimate = 1800;
	fx_pending(&s, 4, TIER_P1, 8, MIN(0))->pred_start0 = MIN(80);
	fx_pending(&s, 5, TIER_P1, 8, MIN(0))->held = true;
	snapshot_sort(&s);
	struct prediction_set ps;
	prediction_set_init(&ps);
	predict_all(&s, &ps);
	const struct prediction *p2 = prediction_find(&ps, &s, 2);
	int64_t want = p2 && p2->placed ? p2->start : 0;
	CHECK(want >= MIN(50));
	prediction_set_release(&ps);
	/* At its submit: nothing yet, and a pass a second later. */
	struct plan pl;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.npred, 0);
	CHECK_INT(pl.wake, s.now + SCHED_RECORD_DELAY);
	plan_release(&pl);
	s.now += SCHED_RECORD_DELAY;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.npred, 2);
	for (size_t i = 0; i < pl.npred; i++) {
		if (pl.preds[i].job == 2)
			CHECK_INT(pl.preds[i].start, want);
		else
			CHECK(pl.preds[i].job == 3 && pl.preds[i].start == -1);
	}
	plan_release(&pl);
	/* Once recorded, no more and no whole prediction. */
	snapshot_find(&s, 2)->pred_start0 = MIN(50);
	snapshot_find(&s, 3)->pred_start0 = -1;
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.npred, 0);
	plan_release(&pl);
	/* A batch is recorded at once. */
	s.now = MIN(0);
	for (int64_t id = 10; id < 10 + SCHED_RECORD_BATCH; id++)
		fx_pending(&s, id, TIER_P1, 1, MIN(0));
	snapshot_sort(&s);
	plan_init(&pl);
	sched_plan(&s, &pl);
	CHECK_INT(pl.npred, SCHED_RECORD_BATCH);
	size_t placed = 0;
	for (size_t i = 0; i < pl.npred; i++)
		placed += pl.preds[i].start > 0;
	CHECK_INT(placed, SCHED_RECORD_BATCH);
	plan_release(&pl);
	snapshot_release(&s);
}

/* The calibration travels in the snapshot, and a bad one is refused. */
static void test_wire(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.calib = (struct predict_calib){0.125, 2.5, 321};
	struct gq_err e = GQ_ERR_INIT;
	for (int form = 0; form < 2; form++) {
		size_t len = 0;
		char *text = codec_snapshot_text(&s, form ? CODEC_ROWS : CODEC_OBJECTS, &len, &e);
		CHECK(text != NULL);
		struct snapshot back;
		snapshot_init(&back);
		CHECK_INT(codec_snapshot_parse(text ? text : "{}", text ? len : 2, &back, &e), 0);
		CHECK_DBL(back.calib.lo, 0.125, 0);
		CHECK_DBL(back.calib.hi, 2.5, 0);
		CHECK_INT(back.calib.n, 321);
		snapshot_release(&back);
		free(text);
	}
	static const char *const bad[] = {
	    "{\"now\":1,\"calib\":{\"lo\":2,\"hi\":1,\"n\":5}}",
	    "{\"now\":1,\"calib\":{\"lo\":-1,\"hi\":1,\"n\":5}}",
	    "{\"now\":1,\"calib\":{\"lo\":0,\"hi\":1,\"n\":0}}",
	    "{\"now\":1,\"calib\":{\"lo\":0,\"hi\":1e9,\"n\":5}}",
	    "{\"now\":1,\"calib\":{\"lo\":0,\"hi\":1}}",
	    "{\"now\":1,\"calib\":[0,1,5]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct snapshot back;
		snapshot_init(&back);
		struct gq_err be = GQ_ERR_INIT;
		CHECK_INT(codec_snapshot_parse(bad[i], strlen(bad[i]), &back, &be), -1);
		CHECK(strstr(be.msg, "snapshot.calib") != NULL);
		snapshot_release(&back);
	}
	snapshot_release(&s);
}

void suite_calib(void)
{
	RUN(test_quantiles);
	RUN(test_window_keeps_the_latest);
	RUN(test_what_counts);
	RUN(test_fill_is_the_window_in_start_order);
	RUN(test_widen);
	RUN(test_predictions_take_it);
	RUN(test_plan_records_the_start_at_submit);
	RUN(test_wire);
}
