/*
 * metrics.c - what GET /metrics says (metrics.h), gathered from a copy of
 * the state (what clients see: active jobs, those that ended in the last
 * 24 h), the preemption records, the journal's events and the server's
 * timings, then written through wire/prom.h. It decides nothing and
 * changes nothing.
 *
 * Series are written for every queue of the policy and every tier, with
 * zeros, so that a dashboard's panels have lines from the first scrape;
 * queues that only jobs still name (a queue the policy dropped) are added.
 */
#define _GNU_SOURCE
#include "server/metrics.h"

#include "server/internal.h"

#include "core/permit.h"
#include "core/stats.h"

/* The jobs of one queue and tier. */
struct group {
	char queue[GQ_NAME_MAX];
	enum tier tier;
	int states[JOB_STATE_COUNT];
	int permits;
	int64_t oldest_wait; /* the longest current pending wait, seconds */
};

struct groups {
	struct group *v;
	size_t n, cap;
};

static struct group *group_get(struct groups *g, const char *queue, enum tier t)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].tier == t && !strcmp(g->v[i].queue, queue))
			return &g->v[i];
	GROW(g->v, g->cap, g->n + 1);
	struct group *x = &g->v[g->n++];
	memset(x, 0, sizeof(*x));
	STR_COPY(x->queue, queue);
	x->tier = t;
	return x;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int c = strcmp(a->queue, b->queue);
	return c ? c : (int)a->tier - (int)b->tier;
}

/* A counter or gauge per label value list, summed by key. */
struct keyed {
	char queue[GQ_NAME_MAX];
	char reason[16];
	double n, lost;
};

static struct keyed *keyed_get(struct keyed **v, size_t *n, size_t *cap, const char *queue,
			       const char *reason)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].queue, queue) && !strcmp((*v)[i].reason, reason))
			return &(*v)[i];
	GROW(*v, *cap, *n + 1);
	struct keyed *k = &(*v)[(*n)++];
	memset(k, 0, sizeof(*k));
	STR_COPY(k->queue, queue);
	STR_COPY(k->reason, reason);
	return k;
}

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = strcmp(a->queue, b->queue);
	return c ? c : strcmp(a->reason, b->reason);
}

static void sample_qt(struct buf *b, const char *name, const char *queue, enum tier t, double v)
{
	struct prom_label l[] = {{"queue", queue}, {"tier", tier_name(t)}};
	prom_sample(b, name, l, 2, v);
}

/* What is read under the lock: the server's own counters and timings. */
struct locked {
	int64_t submitted;
	size_t in_memory; /* jobs the server holds in memory (state.h) */
	struct prom_hist passes, commits;
};

static void write_jobs(struct buf *b, struct groups *g, const struct snapshot *snap)
{
	prom_family(b, "gq_jobs", "gauge",
		    "Jobs by state, queue and tier: the active ones, and those that ended in the "
		    "last 24 hours.");
	for (size_t i = 0; i < g->n; i++)
		for (int st = 0; st < JOB_STATE_COUNT; st++) {
			struct prom_label l[] = {{"queue", g->v[i].queue},
						 {"tier", tier_name(g->v[i].tier)},
						 {"state", job_state_name((enum job_state)st)}};
			prom_sample(b, "gq_jobs", l, 3, g->v[i].states[st]);
		}
	prom_family(b, "gq_pending_oldest_wait_seconds", "gauge",
		    "How long the longest-waiting pending job of the queue and tier has waited.");
	for (size_t i = 0; i < g->n; i++)
		sample_qt(b, "gq_pending_oldest_wait_seconds", g->v[i].queue, g->v[i].tier,
			  (double)g->v[i].oldest_wait);
	prom_family(b, "gq_permits", "gauge",
		    "Pending jobs that hold a starvation permit (waited past their tier's limit).");
	for (size_t i = 0; i < g->n; i++)
		sample_qt(b, "gq_permits", g->v[i].queue, g->v[i].tier, g->v[i].permits);
	(void)snap;
}

/* The waits of the last 24 hours that ended with a start, per queue and
 * tier, as a summary (core/stats.h's nearest-rank P50 and P95). */
static void write_waits(struct buf *b, const struct stats *st)
{
	prom_family(
	    b, "gq_job_wait_seconds", "summary",
	    "Pending time of the jobs that started in the last 24 hours, by queue and tier.");
	for (size_t i = 0; i < st->ngroups; i++) {
		const struct stats_group *g = &st->groups[i];
		if (!strcmp(g->queue, "*"))
			continue; /* the totals: sum() in PromQL gives them */
		const char *t = tier_name(g->tier);
		struct prom_label q50[] = {{"queue", g->queue}, {"tier", t}, {"quantile", "0.5"}};
		struct prom_label q95[] = {{"queue", g->queue}, {"tier", t}, {"quantile", "0.95"}};
		struct prom_label l[] = {{"queue", g->queue}, {"tier", t}};
		prom_sample(b, "gq_job_wait_seconds", q50, 3, (double)g->p50_wait);
		prom_sample(b, "gq_job_wait_seconds", q95, 3, (double)g->p95_wait);
		prom_sample(b, "gq_job_wait_seconds_sum", l, 2, (double)g->wait_sum);
		prom_sample(b, "gq_job_wait_seconds_count", l, 2, g->starts);
	}
	prom_family(b, "gq_jobs_over_wait_limit", "gauge",
		    "Jobs of the last 24 hours that waited longer than their tier's wait limit.");
	for (size_t i = 0; i < st->ngroups; i++)
		if (strcmp(st->groups[i].queue, "*"))
			sample_qt(b, "gq_jobs_over_wait_limit", st->groups[i].queue,
				  st->groups[i].tier, st->groups[i].over_limit);
}

static void write_gpus(struct buf *b, const struct snapshot *snap)
{
	struct place_map m;
	place_map_init(&m, snap);
	prom_family(b, "gq_gpus", "gauge", "GPUs on the nodes that are up, busy or free.");
	struct prom_label busy[] = {{"state", "busy"}}, fr[] = {{"state", "free"}};
	prom_sample(b, "gq_gpus", busy, 1, m.total - m.nfree);
	prom_sample(b, "gq_gpus", fr, 1, m.nfree);
	prom_family(b, "gq_gpus_headroom", "gauge",
		    "GPUs held back from P1 and P2 for P0 (policy key headroom.share).");
	prom_sample(b, "gq_gpus_headroom", NULL, 0, m.reserve);
	place_map_release(&m);
}

static void write_preemptions(struct buf *b, const struct preempt_record *r, size_t n)
{
	struct keyed *by_reason = NULL, *by_queue = NULL;
	size_t nr = 0, cr = 0, nq = 0, cq = 0;
	for (size_t i = 0; i < n; i++) {
		keyed_get(&by_reason, &nr, &cr, r[i].queue, r[i].reason)->n++;
		keyed_get(&by_queue, &nq, &cq, r[i].queue, "")->lost += r[i].work_lost;
	}
	if (nr)
		qsort(by_reason, nr, sizeof(*by_reason), cmp_keyed);
	if (nq)
		qsort(by_queue, nq, sizeof(*by_queue), cmp_keyed);
	prom_family(b, "gq_preemptions_total", "counter",
		    "Jobs preempted (signalled to make room), by the victim's queue and why: "
		    "priority, permit or window.");
	for (size_t i = 0; i < nr; i++) {
		struct prom_label l[] = {{"queue", by_reason[i].queue},
					 {"reason", by_reason[i].reason}};
		prom_sample(b, "gq_preemptions_total", l, 2, by_reason[i].n);
	}
	prom_family(b, "gq_preemption_work_lost_gpu_seconds_total", "counter",
		    "Work lost to preemptions: GPUs x seconds since the victim's last checkpoint.");
	for (size_t i = 0; i < nq; i++) {
		struct prom_label l[] = {{"queue", by_queue[i].queue}};
		prom_sample(b, "gq_preemption_work_lost_gpu_seconds_total", l, 1, by_queue[i].lost);
	}
	free(by_reason);
	free(by_queue);
}

static void write_downgrades(struct buf *b, const struct event *ev, size_t n)
{
	double done = 0, observed = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ev[i].kind, "downgrade"))
			done++;
		else if (!strcmp(ev[i].kind, "would-downgrade"))
			observed++;
	}
	prom_family(b, "gq_downgrades_total", "counter",
		    "P0 jobs downgraded to P1 for want of a confirmation.");
	prom_sample(b, "gq_downgrades_total", NULL, 0, done);
	prom_family(b, "gq_downgrades_observed_total", "counter",
		    "Downgrades observe mode recorded without acting.");
	prom_sample(b, "gq_downgrades_observed_total", NULL, 0, observed);
}

static void write_locked(struct buf *b, const struct locked *lk)
{
	prom_family(b, "gq_jobs_submitted_total", "counter", "Jobs ever accepted by this server.");
	prom_sample(b, "gq_jobs_submitted_total", NULL, 0, (double)lk->submitted);
	prom_family(b, "gq_jobs_in_memory", "gauge",
		    "Jobs held in memory: the active ones and those that ended in the last 25 h "
		    "(older ones are in the journal only).");
	prom_sample(b, "gq_jobs_in_memory", NULL, 0, (double)lk->in_memory);
	prom_family(b, "gq_scheduler_pass_seconds", "histogram",
		    "How long one scheduling pass took (reap, deadlines, plan, start).");
	prom_hist_write(b, "gq_scheduler_pass_seconds", NULL, 0, &lk->passes);
	prom_family(b, "gq_journal_commit_seconds", "histogram",
		    "How long one commit of the SQLite journal took (its fsync).");
	prom_hist_write(b, "gq_journal_commit_seconds", NULL, 0, &lk->commits);
}

char *metrics_text(struct server *s, size_t *len, struct gq_err *e)
{
	struct snapshot snap;
	snapshot_init(&snap);
	struct locked lk;
	int64_t seq;
	pthread_mutex_lock(&s->mu);
	copy_locked(s, &snap, state_now(&s->st));
	seq = s->st.last_seq;
	lk.submitted = s->st.next_id - 1;
	lk.in_memory = s->st.snap.njobs;
	lk.passes = s->passes;
	lk.commits = *db_commit_times(s->st.db);
	pthread_mutex_unlock(&s->mu);
	snapshot_mark_over_quota(&snap); /* its tier and permits, as the plan sees them */

	struct groups g = {0};
	for (int q = 0; q < snap.policy.nqueues; q++)
		for (int t = 0; t < TIER_COUNT; t++)
			group_get(&g, snap.policy.queues[q].name, (enum tier)t);
	for (size_t i = 0; i < snap.njobs; i++) {
		const struct job *j = &snap.jobs[i];
		struct group *x = group_get(&g, j->queue, job_tier(j));
		x->states[j->state]++;
		if (j->state != JOB_PENDING)
			continue;
		int64_t since = job_waiting_since(j);
		if (since > 0 && snap.now - since > x->oldest_wait)
			x->oldest_wait = snap.now - since;
		if (!j->held && permit_earned_at(&snap.policy, j) <= snap.now)
			x->permits++;
	}
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);

	struct preempt_record *recs = NULL;
	size_t nrecs = 0;
	int64_t now;
	server_preemptions(s, 0, 0, &recs, &nrecs, &now);
	struct event *ev = NULL;
	size_t nev = 0;
	struct stats st;
	memset(&st, 0, sizeof(st));
	char *text = NULL;
	if (ops_all_events(s, seq, &ev, &nev, e) < 0 ||
	    stats_compute(&snap, ev, nev, snap.now + 1 - RECENT_WINDOW, snap.now + 1, &st, e) < 0)
		goto out;

	struct buf b;
	buf_init(&b, 0);
	prom_family(&b, "gq_build_info", "gauge", "The version of this gq serve; always 1.");
	struct prom_label v[] = {{"version", GQ_VERSION}};
	prom_sample(&b, "gq_build_info", v, 1, 1);
	write_jobs(&b, &g, &snap);
	write_waits(&b, &st);
	write_gpus(&b, &snap);
	write_preemptions(&b, recs, nrecs);
	write_downgrades(&b, ev, nev);
	write_locked(&b, &lk);
	*len = b.len;
	text = buf_detach(&b);
out:
	stats_release(&st);
	free(ev);
	free(recs);
	free(g.v);
	snapshot_release(&snap);
	return text;
}

void metrics_reply(struct server *s, struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	size_t len = 0;
	char *text = metrics_text(s, &len, &e);
	if (!text) {
		log_warn("metrics: %s", e.msg);
		resp->status = err_http_status(e.code);
		resp->body = wire_error_text(&e);
		resp->len = strlen(resp->body);
		return;
	}
	resp->status = 200;
	resp->body = text;
	resp->len = len;
	resp->content_type = PROM_CONTENT_TYPE;
}

void metrics_handle(void *arg, const struct http_req *req, struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	if (strcmp(req->path, "/metrics") != 0) {
		err_set(&e, GQ_ENOENT,
			"no endpoint '%s': this listener serves GET /metrics only (gq-api(7))",
			req->path);
		resp->status = 404;
	} else if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
		err_set(&e, GQ_EINVAL, "method %s is not allowed on '/metrics'; use GET",
			req->method);
		resp->status = 405;
		http_resp_header(resp, "Allow", "GET");
	} else {
		metrics_reply(arg, resp);
		return;
	}
	resp->body = wire_error_text(&e);
	resp->len = strlen(resp->body);
}
