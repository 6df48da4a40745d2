/* fixture.c - see fixture.h. */
#include "fixture.h"

#include <stdio.h>
#include <string.h>

void fx_init(struct snapshot *s, int nnodes, int gpus)
{
	snapshot_init(s);
	s->now = T0;
	for (int i = 0; i < nnodes; i++) {
		struct node *n = snapshot_add_node(s);
		snprintf(n->name, sizeof(n->name), "node%d", i);
		STR_COPY(n->gpu_model, "a100");
		n->gpu_mem_mb = 81920;
		n->ngpus = gpus;
		n->cpus = 64;
		n->mem_mb = 512 * 1024;
	}
}

struct job *fx_pending(struct snapshot *s, int64_t id, enum tier t, int gpus, int64_t queued)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	snprintf(j->name, sizeof(j->name), "job%lld", (long long)id);
	STR_COPY(j->user, "alice");
	STR_COPY(j->queue, "default");
	STR_COPY(j->dept, "default");
	j->tier = t;
	j->state = JOB_PENDING;
	j->req.gpus = gpus;
	j->submit_time = j->queued_time = queued;
	return j;
}

struct job *fx_running(struct snapshot *s, int64_t id, enum tier t, int node, int gpus,
		       int64_t start, int64_t est)
{
	uint64_t used = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *o = &s->jobs[i];
		if (!job_state_holds_gpus(o->state))
			continue;
		for (int a = 0; a < o->nalloc; a++)
			if (o->alloc[a].node == node)
				used |= o->alloc[a].mask;
	}
	struct job *j = fx_pending(s, id, t, gpus, start);
	j->state = JOB_RUNNING;
	j->start_time = start;
	j->estimate = est;
	j->nalloc = 1;
	j->alloc = xcalloc(1, sizeof(*j->alloc));
	j->alloc[0].node = node;
	for (int g = 0; g < 64 && gpus > 0; g++) {
		if (!(used & ((uint64_t)1 << g))) {
			j->alloc[0].mask |= (uint64_t)1 << g;
			gpus--;
		}
	}
	return j;
}
