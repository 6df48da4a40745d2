/*
 * job.c - the model's small functions: state names, the snapshot's
 * containers and lookups.
 */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[JOB_STATE_COUNT] = {
	[JOB_PENDING] = "pending",     [JOB_STARTING] = "starting",   [JOB_RUNNING] = "running",
	[JOB_STOPPING] = "stopping",   [JOB_COMPLETED] = "completed", [JOB_FAILED] = "failed",
	[JOB_CANCELLED] = "cancelled", [JOB_TIMEOUT] = "timeout",
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? state_names[s] : "unknown";
}

int job_state_parse(const char *s, enum job_state *out)
{
	for (int i = 0; i < JOB_STATE_COUNT; i++) {
		if (!strcmp(s, state_names[i])) {
			*out = (enum job_state)i;
			return 0;
		}
	}
	return -1;
}

bool job_state_active(enum job_state s)
{
	return s == JOB_PENDING || job_state_holds_gpus(s);
}

bool job_state_holds_gpus(enum job_state s)
{
	return s == JOB_STARTING || s == JOB_RUNNING || s == JOB_STOPPING;
}

enum tier job_tier(const struct job *j)
{
	return j->ovr.set ? j->ovr.tier : j->tier;
}

int job_gpus_held(const struct job *j)
{
	if (!job_state_holds_gpus(j->state))
		return 0;
	int n = 0;
	for (int i = 0; i < j->nalloc; i++)
		n += __builtin_popcountll(j->alloc[i].mask);
	return n;
}

void job_gpu_list(const struct job *j, char *out, size_t size)
{
	size_t n = 0;
	if (size)
		out[0] = '\0';
	for (int a = 0; a < j->nalloc && a < GQ_MAX_ALLOC; a++)
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++)
			if (j->alloc[a].mask & (UINT64_C(1) << g))
				n += (size_t)snprintf(out + (n < size ? n : size),
						      n < size ? size - n : 0, "%s%d", n ? "," : "", g);
}

void job_init(struct job *j)
{
	memset(j, 0, sizeof(*j));
	j->tier = TIER_P1;
	j->exit_status = -1;
	j->req.gpus = 1;
}

void snapshot_init(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	policy_defaults(&s->policy);
}

void snapshot_release(struct snapshot *s)
{
	free(s->jobs);
	free(s->nodes);
	s->jobs = NULL;
	s->nodes = NULL;
	s->njobs = s->jobs_cap = s->nnodes = s->nodes_cap = 0;
}

struct job *snapshot_add_job(struct snapshot *s)
{
	GROW(s->jobs, s->jobs_cap, s->njobs + 1);
	struct job *j = &s->jobs[s->njobs++];
	job_init(j);
	return j;
}

struct node *snapshot_add_node(struct snapshot *s)
{
	GROW(s->nodes, s->nodes_cap, s->nnodes + 1);
	struct node *n = &s->nodes[s->nnodes++];
	memset(n, 0, sizeof(*n));
	n->up = true;
	return n;
}

static int cmp_job_id(const void *a, const void *b)
{
	int64_t x = ((const struct job *)a)->id, y = ((const struct job *)b)->id;
	return (x > y) - (x < y);
}

void snapshot_sort(struct snapshot *s)
{
	/* Snapshots mostly arrive sorted: a look costs less than a sort that
	 * moves 10,000 jobs of ~1 KB. */
	size_t i = 1;
	while (i < s->njobs && s->jobs[i - 1].id < s->jobs[i].id)
		i++;
	if (i < s->njobs)
		qsort(s->jobs, s->njobs, sizeof(*s->jobs), cmp_job_id);
}

struct job *snapshot_find(const struct snapshot *s, int64_t id)
{
	size_t n = s->njobs;
	/* Ids are mostly dense: look first where an even spread would put
	 * id, which saves a dozen cache misses on records of ~1 KB. A match
	 * there that is the only job with that id is the search's answer. */
	if (n && id >= s->jobs[0].id && id <= s->jobs[n - 1].id) {
		uint64_t span = (uint64_t)s->jobs[n - 1].id - (uint64_t)s->jobs[0].id;
		uint64_t off = (uint64_t)id - (uint64_t)s->jobs[0].id;
		size_t g = span ? (size_t)((double)off / (double)span * (double)(n - 1)) : 0;
		if (g < n && s->jobs[g].id == id && (g == 0 || s->jobs[g - 1].id != id) &&
		    (g + 1 == n || s->jobs[g + 1].id != id))
			return &s->jobs[g];
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->jobs[mid].id < id)
			lo = mid + 1;
		else if (s->jobs[mid].id > id)
			hi = mid;
		else
			return &s->jobs[mid];
	}
	return NULL;
}

int snapshot_gpus_total(const struct snapshot *s)
{
	int n = 0;
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].up)
			n += s->nodes[i].ngpus;
	return n;
}
