/* polldiff.c - events from two polls of a Slurm cluster (core/polldiff.h). */
#include "harness.h"

#include "core/polldiff.h"

#include <string.h>

static struct job J(int64_t id, enum job_state st) {
	struct job j;
	job_init(&j);
	j.id = id;
	STR_COPY(j.name, "train");
	STR_COPY(j.user, "alice");
	STR_COPY(j.queue, "gpu");
	STR_COPY(j.dept, "proj_a");
	STR_COPY(j.ext_qos, "p1");
	j.tier = TIER_P1;
	j.state = st;
	j.submit_time = 1000 + id;
	j.req.gpus = 2;
	j.ext_prio = 100;
	j.exit_status = -1;
	return j;
}

/* Known = what a poll of jobs v[n] left. */
static struct pdiff
poll(const struct pknown *old, size_t nold, const struct job *v, size_t n, int64_t now, bool late)
{
	struct pdiff d;
	pdiff_compute(old, nold, v, n, now, late, &d);
	return d;
}

static const struct event *find(const struct pdiff *d, int64_t job, const char *kind, size_t nth)
{
	for (size_t i = 0; i < d->nev; i++)
		if (d->ev[i].job == job && !strcmp(d->ev[i].kind, kind) && nth-- == 0)
			return &d->ev[i];
	return NULL;
}

static void lifecycle(void)
{
	struct job a = J(1, JOB_PENDING);
	struct pdiff d0 = poll(NULL, 0, &a, 1, 2000, false);
	CHECK_INT(d0.nev, 1);
	const struct event *e = find(&d0, 1, "submit", 0);
	CHECK(e && e->time == 1001 && e->from == JOB_PENDING && e->to == JOB_PENDING &&
	      !strcmp(e->reason, "submitted") && !strcmp(e->actor, "alice") && !e->late);
	CHECK_INT(d0.nknown, 1);
	/* Held, then released. */
	a.held = true;
	struct pdiff d1 = poll(d0.known, d0.nknown, &a, 1, 2010, false);
	CHECK_INT(d1.nev, 1);
	CHECK((e = find(&d1, 1, "hold", 0)) && e->time == 2010 && !strcmp(e->reason, "held"));
	a.held = false;
	struct pdiff d2 = poll(d1.known, d1.nknown, &a, 1, 2020, false);
	CHECK_INT(d2.nev, 1);
	CHECK(find(&d2, 1, "release", 0) != NULL);
	/* Nothing changed: nothing. */
	struct pdiff d3 = poll(d2.known, d2.nknown, &a, 1, 2025, false);
	CHECK_INT(d3.nev, 0);
	/* Started at Slurm's start time. */
	a.state = JOB_RUNNING;
	a.start_time = 2028;
	struct pdiff d4 = poll(d3.known, d3.nknown, &a, 1, 2030, false);
	CHECK_INT(d4.nev, 1);
	CHECK((e = find(&d4, 1, "state", 0)) && e->from == JOB_PENDING && e->to == JOB_RUNNING &&
	      e->time == 2028);
	/* Completing is still running; then failed with its exit code. */
	a.state = JOB_STOPPING;
	struct pdiff d5 = poll(d4.known, d4.nknown, &a, 1, 2040, false);
	CHECK_INT(d5.nev, 0);
	a.state = JOB_FAILED;
	a.exit_status = 3;
	a.end_time = 2041;
	struct pdiff d6 = poll(d5.known, d5.nknown, &a, 1, 2050, false);
	CHECK_INT(d6.nev, 1);
	CHECK((e = find(&d6, 1, "state", 0)) && e->from == JOB_RUNNING && e->to == JOB_FAILED &&
	      e->time == 2041 && !strcmp(e->reason, "failed (exit 3)"));
	/* Purged by Slurm once finished: kept, no event. */
	struct pdiff d7 = poll(d6.known, d6.nknown, NULL, 0, 3000, false);
	CHECK_INT(d7.nev, 0);
	CHECK_INT(d7.nknown, 1);
	CHECK_INT(d7.known[0].state, JOB_FAILED);
	struct pdiff *all[] = {&d0, &d1, &d2, &d3, &d4, &d5, &d6, &d7};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		pdiff_release(all[i]);
}

static void cancel_pending_and_first_seen(void)
{
	struct job v[3] = {J(1, JOB_PENDING), J(2, JOB_COMPLETED), J(3, JOB_RUNNING)};
	v[1].start_time = 1100, v[1].end_time = 1200, v[1].exit_status = 0;
	v[2].start_time = 1300;
	struct pdiff d0 = poll(NULL, 0, v, 3, 2000, true);
	/* 1: submit; 2: submit, start, end; 3: submit, start; all late. */
	CHECK_INT(d0.nev, 6);
	for (size_t i = 0; i < d0.nev; i++)
		CHECK(d0.ev[i].late);
	const struct event *e = find(&d0, 2, "state", 1);
	CHECK(e && e->to == JOB_COMPLETED && e->time == 1200 &&
	      !strcmp(e->reason, "completed (exit 0)"));
	/* In time order. */
	for (size_t i = 1; i < d0.nev; i++)
		CHECK(d0.ev[i - 1].time <= d0.ev[i].time);
	/* Cancelled while pending, no start. */
	v[0].state = JOB_CANCELLED;
	v[0].end_time = 2003;
	struct pdiff d1 = poll(d0.known, d0.nknown, v, 3, 2005, false);
	CHECK_INT(d1.nev, 1);
	CHECK((e = find(&d1, 1, "state", 0)) && e->from == JOB_PENDING && e->to == JOB_CANCELLED &&
	      !strcmp(e->reason, "cancelled") && e->time == 2003 && !e->late);
	pdiff_release(&d0);
	pdiff_release(&d1);
}

static void requeue_and_preempt(void)
{
	struct job v[2] = {J(1, JOB_RUNNING), J(2, JOB_PENDING)};
	v[0].tier = TIER_P2, STR_COPY(v[0].ext_qos, "p2");
	v[0].start_time = 1500;
	v[1].tier = TIER_P0, STR_COPY(v[1].ext_qos, "p0");
	struct pdiff d0 = poll(NULL, 0, v, 2, 2000, false);
	/* The P0 starts, the P2 is requeued (Slurm gives it a new submit time). */
	v[0].state = JOB_PENDING, v[0].restarts = 1, v[0].submit_time = 2009;
	v[1].state = JOB_RUNNING, v[1].start_time = 2010;
	struct pdiff d1 = poll(d0.known, d0.nknown, v, 2, 2012, false);
	CHECK_INT(d1.reset_job, 0);
	const struct event *e = find(&d1, 1, "preempt", 0);
	CHECK(e && e->from == JOB_RUNNING && e->to == JOB_STOPPING &&
	      !strcmp(e->reason, "preempted by job 2"));
	CHECK((e = find(&d1, 1, "state", 0)) && e->from == JOB_STOPPING && e->to == JOB_PENDING &&
	      !strcmp(e->reason, "requeued"));
	CHECK(find(&d1, 2, "state", 0) != NULL);
	/* The P2 starts again, then is requeued by an admin (no preemptor). */
	v[0].state = JOB_RUNNING, v[0].start_time = 2100;
	struct pdiff d2 = poll(d1.known, d1.nknown, v, 2, 2101, false);
	CHECK_INT(d2.nev, 1);
	v[0].state = JOB_PENDING, v[0].restarts = 2, v[0].submit_time = 2150;
	struct pdiff d3 = poll(d2.known, d2.nknown, v, 2, 2160, false);
	CHECK_INT(d3.nev, 1);
	CHECK(find(&d3, 1, "preempt", 0) == NULL);
	CHECK((e = find(&d3, 1, "state", 0)) && e->from == JOB_RUNNING && e->to == JOB_PENDING &&
	      !strcmp(e->reason, "requeued"));
	/* Requeued and running again between two polls: the requeue before the start. */
	v[0].state = JOB_RUNNING, v[0].start_time = 2170;
	struct pdiff d4 = poll(d3.known, d3.nknown, v, 2, 2180, false);
	v[0].restarts = 3, v[0].submit_time = 2190, v[0].start_time = 2195;
	struct pdiff d5 = poll(d4.known, d4.nknown, v, 2, 2200, false);
	CHECK_INT(d5.nev, 2);
	CHECK(d5.nev == 2 && d5.ev[0].to == JOB_PENDING && d5.ev[1].to == JOB_RUNNING &&
	      d5.ev[0].time <= d5.ev[1].time && d5.ev[1].time == 2195);
	/* Requeued while the P0 still waits for its resources: preempted by
	 * it, not by a P1 that started with the victim (a P1 preempts no P2
	 * here, but the tier above is the likelier). */
	struct job w[3] = {J(3, JOB_RUNNING), J(4, JOB_PENDING), J(5, JOB_RUNNING)};
	w[0].tier = TIER_P2, w[0].start_time = 2300;
	w[1].tier = TIER_P0;
	w[2].start_time = 2300;
	struct pdiff d6 = poll(NULL, 0, w, 3, 2301, false);
	w[0].state = JOB_PENDING, w[0].restarts = 1, w[0].submit_time = 2310;
	struct pdiff d7 = poll(d6.known, d6.nknown, w, 3, 2311, false);
	CHECK((e = find(&d7, 3, "preempt", 0)) && !strcmp(e->reason, "preempted by job 4"));
	struct pdiff *all[] = {&d0, &d1, &d2, &d3, &d4, &d5, &d6, &d7};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		pdiff_release(all[i]);
}

static void qos_priority_gone(void)
{
	struct job v[3] = {J(1, JOB_PENDING), J(2, JOB_PENDING), J(3, JOB_RUNNING)};
	struct pdiff d0 = poll(NULL, 0, v, 3, 2000, false);
	/* One job's priority moves: recorded; its QOS changes: recorded. */
	v[0].ext_prio = 5000;
	STR_COPY(v[1].ext_qos, "p0");
	v[1].tier = TIER_P0;
	struct pdiff d1 = poll(d0.known, d0.nknown, v, 3, 2010, false);
	CHECK_INT(d1.nev, 2);
	const struct event *e = find(&d1, 1, "priority", 0);
	CHECK(e && !strcmp(e->reason, "priority 100 -> 5000"));
	CHECK((e = find(&d1, 2, "qos", 0)) && !strcmp(e->reason, "QOS p1 -> p0"));
	/* A recalculation moves both: nothing. */
	v[0].ext_prio = 5001, v[1].ext_prio = 101;
	struct pdiff d2 = poll(d1.known, d1.nknown, v, 3, 2020, false);
	CHECK_INT(d2.nev, 0);
	/* The running job vanishes unseen: gone, once. */
	struct pdiff d3 = poll(d2.known, d2.nknown, v, 2, 2030, true);
	CHECK_INT(d3.nev, 1);
	CHECK((e = find(&d3, 3, "gone", 0)) && e->from == JOB_RUNNING && e->to == JOB_RUNNING &&
	      e->late);
	struct pdiff d4 = poll(d3.known, d3.nknown, v, 2, 2040, false);
	CHECK_INT(d4.nev, 0);
	CHECK_INT(d4.nknown, 3);
	struct pdiff *all[] = {&d0, &d1, &d2, &d3, &d4};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		pdiff_release(all[i]);
}

static void ids_reset(void)
{
	struct job v[2] = {J(5, JOB_COMPLETED), J(9, JOB_COMPLETED)};
	struct pdiff d0 = poll(NULL, 0, v, 2, 2000, false);
	/* Same id, another submit time. */
	struct job n = J(5, JOB_PENDING);
	n.submit_time = 3000;
	struct pdiff d1 = poll(d0.known, d0.nknown, &n, 1, 3001, false);
	CHECK_INT(d1.reset_job, 5);
	CHECK_INT(d1.nev, 0);
	CHECK(strstr(d1.reset_why, "another submit time") != NULL);
	/* Same id, another user. */
	n = J(9, JOB_PENDING);
	STR_COPY(n.user, "bob");
	struct pdiff d2 = poll(d0.known, d0.nknown, &n, 1, 3001, false);
	CHECK_INT(d2.reset_job, 9);
	CHECK(strstr(d2.reset_why, "another user") != NULL);
	/* A new id below the highest known. */
	n = J(1, JOB_PENDING);
	struct pdiff d3 = poll(d0.known, d0.nknown, &n, 1, 3001, false);
	CHECK_INT(d3.reset_job, 1);
	/* Above it: a new job. */
	n = J(10, JOB_PENDING);
	struct pdiff d4 = poll(d0.known, d0.nknown, &n, 1, 3001, false);
	CHECK_INT(d4.reset_job, 0);
	CHECK_INT(d4.nev, 1);
	/* A running job seen with a new submit time before its restart count
	 * grew (a preemption's requeue under way, as ts08 met it): that job,
	 * not a reset. */
	struct job r = J(7, JOB_RUNNING);
	struct pdiff d5 = poll(NULL, 0, &r, 1, 2000, false);
	r.submit_time += 100;
	struct pdiff d6 = poll(d5.known, d5.nknown, &r, 1, 2200, false);
	CHECK_INT(d6.reset_job, 0);
	pdiff_release(&d5);
	pdiff_release(&d6);
	struct pdiff *all[] = {&d0, &d1, &d2, &d3, &d4};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		pdiff_release(all[i]);
}

/* Ended jobs the cluster no longer shows are forgotten PDIFF_FORGET after
 * their end (a gone one: after it was noticed gone), but the highest id. */
static void forget_after_a_day(void)
{
	struct job v[4] = {J(3, JOB_COMPLETED), J(4, JOB_RUNNING), J(5, JOB_PENDING),
			   J(6, JOB_CANCELLED)};
	v[0].end_time = 2000;
	v[3].end_time = 2000;
	struct pdiff d0 = poll(NULL, 0, v, 4, 2000, false);
	/* All four leave the queue; #4 and #5 unseen: gone at 2100. */
	struct pdiff d1 = poll(d0.known, d0.nknown, NULL, 0, 2100, false);
	CHECK_INT(d1.nknown, 4);
	CHECK(find(&d1, 4, "gone", 0) && find(&d1, 5, "gone", 0));
	/* A day after #3's end: it is forgotten, #6 (the highest id) is not,
	 * the gone ones are kept a day after they were noticed. */
	struct pdiff d2 = poll(d1.known, d1.nknown, NULL, 0, 2000 + PDIFF_FORGET + 1, false);
	CHECK_INT(d2.nknown, 3);
	CHECK_INT(d2.nev, 0);
	CHECK(d2.nknown == 3 && d2.known[0].id == 4 && d2.known[2].id == 6);
	struct pdiff d3 = poll(d2.known, d2.nknown, NULL, 0, 2100 + PDIFF_FORGET + 1, false);
	CHECK_INT(d3.nknown, 1);
	CHECK(d3.nknown == 1 && d3.known[0].id == 6);
	/* The ids check still knows the highest: a new job 2 is a reset. */
	struct job n = J(2, JOB_PENDING);
	struct pdiff d4 = poll(d3.known, d3.nknown, &n, 1, 2100 + PDIFF_FORGET + 2, false);
	CHECK_INT(d4.reset_job, 2);
	struct pdiff *all[] = {&d0, &d1, &d2, &d3, &d4};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		pdiff_release(all[i]);
}

static void known_as_job(void)
{
	struct job a = J(4, JOB_RUNNING);
	a.start_time = 1500;
	struct pknown k;
	pknown_of(&a, &k);
	struct job b;
	pknown_job(&k, &b);
	CHECK_INT(b.id, 4);
	CHECK_STR(b.queue, "gpu");
	CHECK_STR(b.dept, "proj_a");
	CHECK_INT(b.req.gpus, 2);
	CHECK_INT(b.submit_time, 1004);
	CHECK_INT(b.start_time, 1500);
	CHECK_INT(b.state, JOB_RUNNING);
	job_release(&b);
}

void suite_polldiff(void)
{
	RUN(lifecycle);
	RUN(cancel_pending_and_first_seen);
	RUN(requeue_and_preempt);
	RUN(qos_priority_gone);
	RUN(ids_reset);
	RUN(forget_after_a_day);
	RUN(known_as_job);
}
