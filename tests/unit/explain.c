/* explain.c - the explanation layer (explain/): the pure time formatter
 * against libc's gmtime on random times and offsets, zone tables, the
 * window named in its server's zone, busy GPUs and "waiting since". */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain/explain.h"
#include "explain/gpus.h"
#include "explain/zone.h"
#include "fixture.h"

static void test_zone_local_is_civil_time(void)
{
	char b[32];
	CHECK_STR(zone_stamp(NULL, 0, true, b, sizeof(b)), "1970-01-01 00:00:00");
	CHECK_STR(zone_stamp(NULL, 951782400, true, b, sizeof(b)), "2000-02-29 00:00:00");
	CHECK_STR(zone_stamp(NULL, 1800000000, false, b, sizeof(b)), "2027-01-15 08:00");
	CHECK_STR(zone_stamp(NULL, 253402300799LL, true, b, sizeof(b)), "9999-12-31 23:59:59");
	struct zone ny;
	zone_fixed(&ny, -5 * 3600, "America/New_York");
	CHECK_STR(zone_stamp(&ny, 1800000000LL - 9 * 3600, true, b, sizeof(b)),
		  "2027-01-14 18:00:00");
	CHECK_STR(zone_clock(&ny, 3600, b, sizeof(b)), "20:00:00");
}

/* The slow twin: libc's gmtime_r of t shifted by the offset, on 20,000
 * seeded random times and offsets. */
static void test_zone_matches_gmtime(void)
{
	srand(12);
	int bad = 0;
	for (int i = 0; i < 20000 && bad < 5; i++) {
		int64_t t = ((int64_t)rand() << 16 ^ rand()) % GQ_CLOCK_MAX;
		int32_t off = (int32_t)(rand() % (28 * 3600)) - 14 * 3600;
		struct zone z;
		zone_fixed(&z, off, NULL);
		char got[32], want[32];
		zone_stamp(&z, t, true, got, sizeof(got));
		time_t tt = (time_t)(t + off);
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(want, sizeof(want), "%Y-%m-%d %H:%M:%S", &tm);
		if (!CHECK_STR(got, want))
			bad++;
	}
}

static void test_zone_time_same_day_or_date(void)
{
	struct zone z;
	zone_fixed(&z, 3600, NULL);
	int64_t now = 1800000000; /* 09:00 at +01:00 */
	char b[32];
	CHECK_STR(zone_time(&z, 0, now, b, sizeof(b)), "-");
	CHECK_STR(zone_time(&z, now + 3600 + 60 * 35, now, b, sizeof(b)), "10:35");
	CHECK_STR(zone_time(&z, now - 9 * 3600 - 60, now, b, sizeof(b)), "Jan 14 23:59");
	CHECK_STR(zone_time(&z, now + 15 * 3600, now, b, sizeof(b)), "Jan 16 00:00");
	/* The same instant is another day in another zone. */
	CHECK_STR(zone_time(NULL, now + 15 * 3600, now, b, sizeof(b)), "23:00");
}

static void test_zone_table_changes_offset(void)
{
	struct zone z;
	zone_fixed(&z, 3600, "Europe/Berlin");
	zone_add(&z, 1000000, 7200);
	zone_add(&z, 500, 0); /* not later: ignored */
	CHECK_INT(z.n, 2);
	CHECK_INT(zone_offset(&z, 999999), 3600);
	CHECK_INT(zone_offset(&z, 1000000), 7200);
	CHECK_INT(zone_offset(&z, -5), 3600);
	struct zone zero;
	memset(&zero, 0, sizeof(zero));
	CHECK_INT(zone_offset(&zero, 1000000), 0);
	CHECK_STR(z.name, "Europe/Berlin");
}

static void test_zone_offset_names(void)
{
	char b[24];
	CHECK_STR(zone_offset_name(0, b, sizeof(b)), "UTC");
	CHECK_STR(zone_offset_name(3600, b, sizeof(b)), "UTC+01:00");
	CHECK_STR(zone_offset_name(-12600, b, sizeof(b)), "UTC-03:30");
	CHECK_STR(zone_offset_name(20700, b, sizeof(b)), "UTC+05:45");
}

/* gq why of a job in its queue's window: the end in the reader's zone,
 * the window in the server's, named. */
static void test_window_names_the_server_zone(void)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	fx_init(&s, 1, 8);
	CHECK_INT(policy_set(&s.policy, "queue.default.window", "20:00-08:00", &e), 0);
	s.tz_offset = 3600;
	s.now = 1800000000LL - 1800000000LL % 86400 + 22 * 3600; /* 23:00 at the server */
	fx_pending(&s, 1, TIER_P1, 1, s.now);
	snapshot_sort(&s);
	struct zone ny;
	zone_fixed(&ny, -5 * 3600, "America/New_York");
	struct explain_set x;
	explain_compute(&s, &ny, &x);
	const struct explain *ex = explain_find(&x, 1);
	CHECK(ex != NULL);
	if (ex) {
		struct buf b;
		buf_init(&b, 0);
		explain_text(&x, ex, &b);
		/* 08:00 at +01:00 is 02:00 the next day in New York (17:00 now). */
		CHECK(strstr(b.data,
			     "Pending: window. Queue default is paused until Jan 16 02:00 (window "
			     "20:00-08:00 UTC+01:00).") == b.data);
		buf_release(&b);
	}
	explain_release(&x);
	snapshot_release(&s);
}

/* On a snapshot ordered by its backend (Slurm) the paragraph says the
 * backend's priority of the job and of those ahead, and where its factors
 * are; never gq's weight formula. */
static void test_backend_order_says_its_priority(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.order = ORDER_BACKEND;
	fx_running(&s, 1, TIER_P1, 0, 7, MIN(-10), 3600);
	fx_pending(&s, 10, TIER_P2, 4, MIN(-5));
	fx_pending(&s, 20, TIER_P1, 4, MIN(-1));
	s.jobs[1].ext_prio = 2059; /* the P2 job first: Slurm's order crosses tiers */
	s.jobs[2].ext_prio = 1059;
	snapshot_sort(&s);
	struct explain_set x;
	explain_compute(&s, NULL, &x);
	x.reader_user = "alice";
	const struct explain *ex = explain_find(&x, 20);
	CHECK(ex != NULL);
	struct buf b;
	buf_init(&b, 0);
	if (ex) {
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "1 job ahead (P2 #10 priority 2059); ") != NULL);
		CHECK(strstr(b.data, " Slurm priority 1059 (its factors: sprio -j 20)") != NULL);
		CHECK(strstr(b.data, " weight") == NULL);
	}
	/* #10 waits for GPUs: preemption is the backend's (Slurm's QOS
	 * rules), not gq's plan. */
	ex = explain_find(&x, 10);
	if (CHECK(ex != NULL) && CHECK_INT(ex->why->primary, REASON_RESOURCES)) {
		struct preempt_plan pp = {0};
		explain_preempt(&x, ex, &pp);
		buf_reset(&b);
		explain_preempt_text(&x, ex, &pp, &b);
		CHECK(b.data && strstr(b.data, "Preemption: Slurm's own, by QOS") == b.data);
		preempt_plan_release(&pp);
	}
	buf_release(&b);
	explain_release(&x);
	snapshot_release(&s);
}

/* A job ahead by its claim (GPUs a preemption freed for it) is said to
 * be: its weight alone would not put it there. */
static void test_claim_ahead_is_said(void)
{
	struct snapshot s;
	fx_init(&s, 1, 2);
	fx_running(&s, 1, TIER_P2, 0, 3, MIN(-10), 3600);
	fx_pending(&s, 10, TIER_P0, 1, MIN(-5));
	fx_pending(&s, 20, TIER_P0, 1, MIN(-1));
	s.jobs[2].claim_time = s.now;
	snapshot_sort(&s);
	struct explain_set x;
	explain_compute(&s, NULL, &x);
	const struct explain *ex = explain_find(&x, 10);
	if (CHECK(ex != NULL)) {
		struct buf b;
		buf_init(&b, 0);
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "1 job ahead (P0 #20 weight 100.0 with GPUs freed for it);") !=
		      NULL);
		buf_release(&b);
	}
	explain_release(&x);
	snapshot_release(&s);
}

/* A job Slurm holds by a limit whose numbers gq does not read
 * (QOSMaxGRESPerUser, AssocGrpGRES) never reads "Starts now" beside free
 * GPUs: it starts, at the earliest, when a running job of its user (of
 * its account, for a group's limit) ends, and when none runs the start
 * is unknown. */
static void test_backend_limit_is_not_starts_now(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.order = ORDER_BACKEND;
	fx_running(&s, 1, TIER_P2, 0, 2, MIN(-10), 3600); /* alice's, ends at +50 */
	struct job *b = fx_running(&s, 2, TIER_P1, 0, 1, MIN(-10), 1800);
	STR_COPY(b->user, "bob");
	STR_COPY(b->dept, "proj_b"); /* bob's account, ends at +20 */
	struct job *u = fx_pending(&s, 10, TIER_P2, 1, MIN(-5));
	STR_COPY(u->ext_reason, "QOSMaxGRESPerUser");
	STR_COPY(u->ext_class, "user_limit");
	struct job *q = fx_pending(&s, 11, TIER_P1, 1, MIN(-4));
	STR_COPY(q->user, "carol");
	STR_COPY(q->dept, "proj_b");
	STR_COPY(q->ext_reason, "AssocGrpGRES");
	STR_COPY(q->ext_class, "quota");
	struct job *n = fx_pending(&s, 12, TIER_P1, 1, MIN(-3));
	STR_COPY(n->user, "dave");
	STR_COPY(n->dept, "proj_c");
	STR_COPY(n->ext_reason, "QOSMaxGRESPerUser");
	STR_COPY(n->ext_class, "user_limit");
	fx_pending(&s, 13, TIER_P1, 1, MIN(-2)); /* free to start */
	snapshot_sort(&s);
	struct explain_set x;
	explain_compute(&s, NULL, &x);
	struct buf t;
	buf_init(&t, 0);
	const struct explain *ex = explain_find(&x, 10);
	if (CHECK(ex != NULL)) {
		CHECK_INT(ex->pred->start, MIN(50));
		CHECK_INT(ex->pred->gate, GATE_USER);
		CHECK_INT(ex->why->primary, REASON_USER_LIMIT);
		explain_text(&x, ex, &t);
		CHECK(strstr(t.data,
			     "Pending: user_limit. Slurm holds it by QOSMaxGRESPerUser, a "
			     "limit of user alice whose numbers gq does not read.") == t.data);
		CHECK(strstr(t.data, "Starts now") == NULL);
		CHECK(strstr(t.data, "at the earliest: Slurm's limit may let it start when a "
				     "running job of its user ends") != NULL);
		CHECK(strstr(t.data, "Looked at again when #1 ends") != NULL);
	}
	ex = explain_find(&x, 11);
	if (CHECK(ex != NULL)) {
		CHECK_INT(ex->pred->start, MIN(20)); /* bob's job, of account proj_b */
		CHECK_INT(ex->pred->gate, GATE_QUOTA);
		CHECK_INT(ex->why->primary, REASON_QUOTA);
	}
	ex = explain_find(&x, 12);
	if (CHECK(ex != NULL)) {
		CHECK_INT(ex->pred->never, NEVER_LIMIT);
		buf_reset(&t);
		explain_text(&x, ex, &t);
		CHECK(strstr(t.data, " Start: unknown: no running job of its user ends to make "
				     "room under Slurm's limit QOSMaxGRESPerUser") != NULL);
	}
	ex = explain_find(&x, 13);
	if (CHECK(ex != NULL))
		CHECK_INT(ex->pred->start, s.now);
	buf_release(&t);
	explain_release(&x);
	snapshot_release(&s);
}

struct seen {
	size_t job[8];
	uint64_t mask[8];
	int n;
};

static void note(size_t job, uint64_t mask, void *arg)
{
	struct seen *s = arg;
	if (s->n < 8) {
		s->job[s->n] = job;
		s->mask[s->n++] = mask;
	}
}

/* Issue #16's wording: "your weight" only for the reader's own job, "x" and
 * "..." unless the charset is UTF-8, "1 GPU is free". */
static void test_words_follow_reader_and_charset(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s.policy, "headroom.share", "0.125", &e), 0);
	fx_running(&s, 1, TIER_P1, 0, 7, MIN(-10), 3600);
	for (int64_t id = 10; id < 15; id++)
		fx_pending(&s, id, TIER_P0, 8, MIN(-5));
	fx_pending(&s, 20, TIER_P2, 1, MIN(-1));
	snapshot_sort(&s);
	struct explain_set x;
	explain_compute(&s, NULL, &x);
	const struct explain *ex = explain_find(&x, 20);
	CHECK(ex != NULL);
	struct buf b;
	buf_init(&b, 0);
	if (ex) {
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, " its weight 5.0 = 5 x (1 + 0.0)") != NULL);
		CHECK(strstr(b.data, "P0 #12 weight 100.0, ...);") != NULL);
		CHECK(strstr(b.data, "1 GPU is free but 1 is held back for P0.") != NULL);
		CHECK(!strstr(b.data, "×") && !strstr(b.data, "…"));
		x.utf8 = true;
		x.reader_user = "bob";
		buf_reset(&b);
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, " its weight 5.0 = 5 × (1 + 0.0)") != NULL);
		CHECK(strstr(b.data, "P0 #12 weight 100.0, …);") != NULL);
		x.reader_user = "alice";
		buf_reset(&b);
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, " your weight 5.0 = 5 × (1 + 0.0)") != NULL);
	}
	buf_release(&b);
	explain_release(&x);
	snapshot_release(&s);
}

static void test_gpus_busy_of_a_node(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	fx_running(&s, 1, TIER_P1, 0, 2, T0 - 60, 3600); /* GPUs 0,1 of node 0 */
	fx_running(&s, 2, TIER_P1, 1, 4, T0 - 60, 3600); /* node 1 */
	fx_running(&s, 3, TIER_P1, 0, 1, T0 - 60, 3600); /* GPU 2 of node 0 */
	struct job *f = fx_running(&s, 4, TIER_P1, 0, 1, T0 - 60, 3600);
	f->state = JOB_COMPLETED; /* ended: holds nothing */
	struct seen seen = {0};
	CHECK_INT(gpus_busy(&s, 0, note, &seen), 0x7);
	CHECK_INT(seen.n, 2);
	CHECK_INT(s.jobs[seen.job[0]].id, 1);
	CHECK_INT(seen.mask[0], 0x3);
	CHECK_INT(s.jobs[seen.job[1]].id, 3);
	CHECK_INT(seen.mask[1], 0x4);
	CHECK_INT(gpus_busy(&s, 1, NULL, NULL), 0xf);
	snapshot_release(&s);
}

static void test_waiting_since(void)
{
	struct job j;
	job_init(&j);
	j.submit_time = 100;
	CHECK_INT(job_waiting_since(&j), 100); /* a backend that leaves it unset */
	j.queued_time = 250;		       /* requeued after preemption */
	CHECK_INT(job_waiting_since(&j), 250);
}

/* gq ls' {waited} and the JSON's "waited": the last pending stretch only. */
/* The submit's note on a window that would stop the job, in each of its
 * three forms; times in the reader's zone, the window in the server's. */
static void test_window_stop_words(void)
{
	struct window_stop w;
	memset(&w, 0, sizeof(w));
	STR_COPY(w.queue, "night");
	w.action = WINDOW_REQUEUE;
	w.window = (struct window){.set = true, .start_min = 20 * 60, .end_min = 8 * 60};
	w.now = 1893524400; /* 2030-01-01 19:00 UTC */
	w.start = w.now;
	w.stop = w.now + 3600;
	w.end = w.now + 7200;
	w.limit_end = w.now + 3 * 3600;
	w.expected = true;
	struct buf b;
	buf_init(&b, 0);
	explain_window_stop(&w, NULL, &b);
	CHECK_STR(b.data,
		  "Queue night pauses at 20:00 (window 20:00-08:00 UTC); starting now, this "
		  "job is expected to end at 21:00: it cannot checkpoint, so it would be "
		  "stopped at 20:00 and requeued, its work lost (queue.night.windowAction = "
		  "requeue).");
	buf_reset(&b);
	w.expected = false;
	w.start = w.now + 1800;
	explain_window_stop(&w, NULL, &b);
	CHECK_STR(b.data,
		  "Queue night pauses at 20:00 (window 20:00-08:00 UTC); starting at 19:30, "
		  "this job may run until 22:00 (its time limit): it cannot checkpoint, so "
		  "if it still runs at 20:00 it will be stopped and requeued, its work lost "
		  "(queue.night.windowAction = requeue).");
	buf_reset(&b);
	w.limit_end = 0;
	w.tz_offset = 3600; /* the server's zone; the reader's stays UTC */
	explain_window_stop(&w, NULL, &b);
	CHECK_STR(b.data, "Queue night pauses at 20:00 (window 20:00-08:00 UTC+01:00); starting at "
			  "19:30, this job has no time limit: it cannot checkpoint, so if it still "
			  "runs at 20:00 it will be stopped and requeued, its work lost "
			  "(queue.night.windowAction = requeue).");
	buf_release(&b);
}

static void test_waited_is_the_wait_not_the_run(void)
{
	struct job j;
	job_init(&j);
	j.submit_time = 100;
	j.state = JOB_PENDING;
	CHECK_INT(job_waited(&j, 160), 60);
	j.state = JOB_RUNNING;
	j.start_time = 130;
	CHECK_INT(job_waited(&j, 1000), 30); /* not 870, the run */
	j.state = JOB_CANCELLED;
	j.start_time = 0;
	j.end_time = 150;
	CHECK_INT(job_waited(&j, 1000), 50); /* cancelled while pending */
	j.state = JOB_RUNNING;		     /* requeued at 250, started again at 400 */
	j.queued_time = 250;
	j.start_time = 400;
	CHECK_INT(job_waited(&j, 1000), 150);
	j.submit_time = j.queued_time = 0;
	CHECK_INT(job_waited(&j, 1000), 0);
}

/* A hold with no time (Slurm does not give one) is said without one:
 * "Held by admin.", never "at -"; gq serve's says when. */
static void test_hold_without_a_time(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	s.now = 1800000000LL;
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, s.now - 60);
	j->held = true;
	STR_COPY(j->held_by, "admin");
	j = fx_pending(&s, 2, TIER_P1, 1, s.now - 60);
	j->held = true;
	STR_COPY(j->held_by, "alice");
	j->held_at = s.now - 30;
	snapshot_sort(&s);
	struct zone utc;
	zone_fixed(&utc, 0, "UTC");
	struct explain_set x;
	explain_compute(&s, &utc, &x);
	struct buf b;
	buf_init(&b, 0);
	const struct explain *ex = explain_find(&x, 1);
	if (CHECK(ex != NULL)) {
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "Pending: held. Held by admin. ") == b.data);
	}
	buf_reset(&b);
	ex = explain_find(&x, 2);
	if (CHECK(ex != NULL)) {
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "Pending: held. Held by alice at 07:59. ") == b.data);
	}
	buf_release(&b);
	explain_release(&x);
	snapshot_release(&s);
}

void suite_explain(void)
{
	RUN(test_hold_without_a_time);
	RUN(test_words_follow_reader_and_charset);
	RUN(test_backend_order_says_its_priority);
	RUN(test_claim_ahead_is_said);
	RUN(test_backend_limit_is_not_starts_now);
	RUN(test_zone_local_is_civil_time);
	RUN(test_zone_matches_gmtime);
	RUN(test_zone_time_same_day_or_date);
	RUN(test_zone_table_changes_offset);
	RUN(test_zone_offset_names);
	RUN(test_window_names_the_server_zone);
	RUN(test_gpus_busy_of_a_node);
	RUN(test_waiting_since);
	RUN(test_waited_is_the_wait_not_the_run);
	RUN(test_window_stop_words);
}
