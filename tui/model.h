/*
 * model.h - what `gq top` shows, computed once per snapshot: the queue in
 * scheduling order with weights, wait reasons and ETAs (by the core, on the
 * fetched snapshot), running jobs, per-pool GPU use, pending counts by tier,
 * the last hour's history for the sparklines, and the recent events.
 *
 * A model is built off the UI thread and then only read: views borrow it
 * for one frame. It does no I/O; the fetching is app.c's.
 */
#ifndef GQ_TUI_MODEL_H
#define GQ_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/array.h"
#include "core/event.h"
#include "core/job.h"
#include "explain/explain.h"
#include "explain/zone.h"

#define MODEL_SPARK 60	      /* sparkline points: one a minute over the last hour */
#define MODEL_MAX_EVENTS 1000 /* events kept for the Events and Job views */
#define MODEL_MAX_POOLS 16

/* A pending (or starting) job, in scheduling order. */
struct qrow {
	size_t job;    /* index into snap.jobs */
	int pos;       /* 1-based position in scheduling order */
	double weight; /* the job's weight now (DESIGN §3) */
	int64_t eta;   /* predicted start (unix s); 0 when it never starts here */
	int64_t eta_lo, eta_hi;
	bool never;	 /* cannot start under this snapshot (held, ...) */
	char reason[24]; /* primary wait reason token ("priority", "held", ...) */
	/* A pending array folds into the row of its first task, as gq ls
	 * folds it (array_fold): that row's label "42_[3-99%8]", the others
	 * folded (the Queue view leaves them out). */
	bool folded;
	char label[ARRAY_LABEL_MAX];
};

/* GPUs of one model ("a100", or "slot" where there is no model name). */
struct pool {
	char name[32];
	int busy, total, nodes;
};

struct model {
	struct snapshot snap; /* owned; jobs sorted by id */
	struct zone zone;     /* the reader's: every time is shown in it */
	/* The core's predictions and reasons on snap, computed once in
	 * model_build and read by every view, the queue and the `gq why`
	 * text alike. */
	struct explain_set x;
	struct qrow *queue; /* pending jobs in scheduling order */
	size_t nqueue;
	size_t *running; /* indexes into snap.jobs of jobs holding GPUs, oldest start first */
	size_t nrunning;
	size_t *finished; /* recently finished jobs, most recent end first */
	size_t nfinished;
	int pending_by_tier[TIER_COUNT];
	int gpus_busy, gpus_total;
	struct pool pools[MODEL_MAX_POOLS];
	int npools;
	/* gpu_job[gpu_base[n] + i]: index+1 into snap.jobs of the job on GPU i of
	 * node n, 0 when free. */
	size_t *gpu_base;
	size_t *gpu_job;
	/* Queue length and GPU utilisation (0..1) over the last hour, a point a
	 * minute, oldest first, derived from the jobs' submit/start/end times. */
	double spark_pending[MODEL_SPARK];
	double spark_util[MODEL_SPARK];
	/* The most recent events, oldest first (a copy). */
	struct event *events;
	size_t nevents;
	/* The `gq why` text of job why_job, when the app asked for one (owned;
	 * NULL none). */
	char *why;
	int64_t why_job;
};

/*
 * Builds m from snap, which it takes over (snap is left empty, as after
 * snapshot_init), a copy of the reader's zone (NULL: UTC) and a copy of
 * the n events. The core computes order, weight, reason and ETA on the
 * snapshot, once. m must be zeroed or released, and stays where it is
 * while built (m->x points into m->snap).
 */
void model_build(struct model *m, struct snapshot *snap, const struct zone *zone,
		 const struct event *events, size_t n);
/* Frees everything; m is then zeroed. */
void model_release(struct model *m);

/* The queue row of job id, or NULL. Borrowed from m. */
const struct qrow *model_qrow(const struct model *m, int64_t id);
/* The job on GPU gpu of node node, or NULL when free. Borrowed from m. */
const struct job *model_gpu_job(const struct model *m, size_t node, int gpu);

/* The `gq why` text of job id: the paragraph, a newline and what would
 * make it start sooner, from m->x. NULL for a job neither pending nor
 * starting. The caller frees it. */
char *model_why(const struct model *m, int64_t id);

#endif
