/*
 * model.c - turns a fetched snapshot into what `gq top` shows (model.h).
 * Scheduling order, weights, reasons and ETAs come from the core, run here
 * on the snapshot exactly as `gq why` runs them; this file only arranges
 * their results and counts things. No I/O, no clock: "now" is the
 * snapshot's.
 */
#include "model.h"

#include <langinfo.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "explain/gpus.h"

/* Sorting job indexes by one time field, the id breaking ties. */
struct sort_key {
	int64_t key, id;
	size_t idx;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorts idx[0..n) by start time ascending (by_end false) or end time
 * descending (by_end true). */
static void sort_idx(size_t *idx, size_t n, const struct job *jobs, bool by_end)
{
	struct sort_key *k = xcalloc(n + 1, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[idx[i]];
		k[i].key = by_end ? -j->end_time : j->start_time;
		k[i].id = by_end ? -j->id : j->id;
		k[i].idx = idx[i];
	}
	qsort(k, n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < n; i++)
		idx[i] = k[i].idx;
	free(k);
}

/* Marks the GPUs of node o->n that job holds as its in gpu_job. */
struct gpu_owner {
	struct model *m;
	size_t n;
};

static void own_gpus(size_t job, uint64_t mask, void *arg)
{
	const struct gpu_owner *o = arg;
	for (int g = 0; g < o->m->snap.nodes[o->n].ngpus && g < GQ_MAX_NODE_GPUS; g++)
		if (mask & ((uint64_t)1 << g))
			o->m->gpu_job[o->m->gpu_base[o->n] + (size_t)g] = job + 1;
}

static void build_pools(struct model *m)
{
	const struct snapshot *s = &m->snap;
	size_t total = 0;
	m->gpu_base = xcalloc(s->nnodes + 1, sizeof(size_t));
	for (size_t n = 0; n < s->nnodes; n++) {
		m->gpu_base[n] = total;
		total += (size_t)s->nodes[n].ngpus;
	}
	m->gpu_base[s->nnodes] = total;
	m->gpu_job = xcalloc(total + 1, sizeof(size_t));
	for (size_t n = 0; n < s->nnodes; n++) {
		struct gpu_owner o = {m, n};
		gpus_busy(s, n, own_gpus, &o);
	}
	for (size_t n = 0; n < s->nnodes; n++) {
		const struct node *nd = &s->nodes[n];
		const char *name = nd->gpu_model[0] ? nd->gpu_model : "slot";
		int p;
		for (p = 0; p < m->npools; p++)
			if (!strcmp(m->pools[p].name, name))
				break;
		if (p == m->npools) {
			if (m->npools == MODEL_MAX_POOLS)
				p = MODEL_MAX_POOLS - 1; /* the last pool takes the rest */
			else
				STR_COPY(m->pools[m->npools++].name, name);
		}
		int busy = 0;
		for (int g = 0; g < nd->ngpus; g++)
			busy += m->gpu_job[m->gpu_base[n] + (size_t)g] != 0;
		m->pools[p].nodes++;
		if (nd->up) {
			m->pools[p].total += nd->ngpus;
			m->gpus_total += nd->ngpus;
		}
		m->pools[p].busy += busy;
		m->gpus_busy += busy;
	}
}

/* The last hour, a point a minute, reconstructed from the jobs' own times:
 * a job was pending from its (re)queue time until its start, and held its
 * GPUs from its start until its end. */
static void build_history(struct model *m)
{
	const struct snapshot *s = &m->snap;
	int total = m->gpus_total;
	for (int i = 0; i < MODEL_SPARK; i++) {
		int64_t t = s->now - (int64_t)(MODEL_SPARK - 1 - i) * 60;
		int pending = 0, busy = 0;
		for (size_t k = 0; k < s->njobs; k++) {
			const struct job *j = &s->jobs[k];
			int64_t qt = job_waiting_since(j);
			bool ended = j->end_time && j->end_time <= t;
			bool started = j->start_time && j->start_time <= t && j->start_time >= qt;
			if (ended)
				continue;
			if (j->state == JOB_PENDING) {
				if (qt && qt <= t)
					pending++;
			} else if (started) {
				if (j->state != JOB_COMPLETED || j->end_time > t)
					busy += j->req.gpus;
			} else if (j->submit_time && j->submit_time <= t) {
				pending++;
			}
		}
		m->spark_pending[i] = pending;
		m->spark_util[i] = total > 0 ? (busy > total ? 1.0 : (double)busy / total) : 0;
	}
}

void model_build(struct model *m, struct snapshot *snap, const struct zone *zone,
		 const struct event *events, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->snap = *snap;
	snap->jobs = NULL;
	snap->nodes = NULL;
	snap->resv = NULL;
	snap->njobs = snap->jobs_cap = snap->nnodes = snap->nodes_cap = 0;
	snap->nresv = snap->resv_cap = 0;
	snapshot_sort(&m->snap);
	const struct snapshot *s = &m->snap;
	if (zone)
		m->zone = *zone;
	else
		zone_fixed(&m->zone, 0, NULL);
	explain_compute(s, &m->zone, &m->x);
	/* As gq why words it: "your weight" for the reader's own jobs, x and
	 * ... unless the charset is UTF-8. */
	static char me[64];
	if (!me[0]) {
		const struct passwd *pw = getpwuid(getuid());
		snprintf(me, sizeof(me), "%s", pw && pw->pw_name ? pw->pw_name : "");
	}
	const char *cs = nl_langinfo(CODESET);
	m->x.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	m->x.reader_user = me;

	m->running = xcalloc(s->njobs + 1, sizeof(size_t));
	m->finished = xcalloc(s->njobs + 1, sizeof(size_t));
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (job_state_holds_gpus(j->state))
			m->running[m->nrunning++] = i;
		else if (!job_state_active(j->state))
			m->finished[m->nfinished++] = i;
		else if (j->state == JOB_PENDING)
			m->pending_by_tier[job_tier(j)]++;
	}
	sort_idx(m->running, m->nrunning, s->jobs, false);
	sort_idx(m->finished, m->nfinished, s->jobs, true);
	build_pools(m);
	build_history(m);
	analyze_queue(m);

	if (n > MODEL_MAX_EVENTS) {
		events += n - MODEL_MAX_EVENTS;
		n = MODEL_MAX_EVENTS;
	}
	m->events = xcalloc(n + 1, sizeof(*m->events));
	if (n)
		memcpy(m->events, events, n * sizeof(*events));
	m->nevents = n;
}

void model_release(struct model *m)
{
	explain_release(&m->x);
	snapshot_release(&m->snap);
	free(m->queue);
	free(m->running);
	free(m->finished);
	free(m->gpu_base);
	free(m->gpu_job);
	free(m->events);
	free(m->why);
	memset(m, 0, sizeof(*m));
}

const struct qrow *model_qrow(const struct model *m, int64_t id)
{
	for (size_t i = 0; i < m->nqueue; i++)
		if (m->snap.jobs[m->queue[i].job].id == id)
			return &m->queue[i];
	return NULL;
}

const struct job *model_gpu_job(const struct model *m, size_t node, int gpu)
{
	if (!m->gpu_job || node >= m->snap.nnodes || gpu < 0 || gpu >= m->snap.nodes[node].ngpus)
		return NULL;
	size_t k = m->gpu_job[m->gpu_base[node] + (size_t)gpu];
	return k ? &m->snap.jobs[k - 1] : NULL;
}

char *model_why(const struct model *m, int64_t id)
{
	/* A model not built yet (the app's first, empty one) explains nothing. */
	const struct explain *ex = id && m->x.s ? explain_find(&m->x, id) : NULL;
	if (!ex)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	explain_text(&m->x, ex, &b);
	buf_addstr(&b, "\n");
	explain_sooner(&m->x, ex, NULL, &b);
	return buf_detach(&b);
}
