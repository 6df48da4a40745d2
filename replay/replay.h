/*
 * replay.h - `gq sim`'s replay: a trace (trace.h) stepped through time by
 * the scheduler gq serve runs (sched_plan), and what came out of it.
 *
 * The replay holds a snapshot of the jobs that are pending or running at
 * time t. At each event (a submit, an end, a preempted job's stop
 * deadline, the plan's wake time) it ends what ends, requeues what was
 * preempted, adds what is submitted, refreshes every active job's history
 * fields (predict_fill_history's rules, kept incrementally: runtime.h's
 * struct rt_hist), and carries out sched_plan()'s actions: starts, the
 * preemptions it does not merely observe, reminders and downgrades. Jobs
 * run their true runtime (end - start of the trace), never beyond their
 * time limit (req_s), where gq serve kills them. A checkpointable job
 * reports a checkpoint every REPLAY_CHECKPOINT_EVERY seconds of its run;
 * its preemption loses the work since the last one, another job's all of
 * its run. Everything is deterministic: same trace and options, same
 * result.
 *
 * With accuracy on, at every submit time the replay also asks what gq would
 * have shown then: predict_all() on the snapshot of that moment, once with
 * the history estimate (gq's own answer, with its range) and once with
 * every job's runtime taken as its time limit (predictor "limit"); "zero"
 * says every job starts at once. Pure: no I/O, no clock; progress goes
 * through a callback.
 */
#ifndef GQ_REPLAY_H
#define GQ_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "trace.h"

#define REPLAY_CHECKPOINT_EVERY 600
#define REPLAY_MAX_NODES 16 /* the widest machine replay_machine picks for a trace */
#define REPLAY_HIST_BINS 10

enum replay_predictor { PRED_HISTORY, PRED_LIMIT, PRED_ZERO, PRED_COUNT };
/* "history", "limit", "zero" */
const char *replay_predictor_name(enum replay_predictor p);

struct replay_opts {
	struct policy policy;
	int nodes, gpus_per_node; /* the machine */
	enum tier tier;		  /* of jobs the trace gives no tier */
	bool accuracy;		  /* predictions at submit */
	/* Called now and then (every few thousand events) with the jobs
	 * submitted so far; NULL for none. */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};

/* Fills o with the default policy, P1, accuracy on, no machine (0: the
 * caller picks one, replay_machine()). */
void replay_opts_init(struct replay_opts *o);

/*
 * The machine for a trace of `units` (the trace's size, else its widest
 * job): at most REPLAY_MAX_NODES nodes of at most GQ_MAX_NODE_GPUS units,
 * the fewest nodes that divide units evenly (100: 2 x 50; 240: 4 x 60),
 * else the fewest that hold it (the total then rounds up). -1 with
 * GQ_EINVAL when units is over 16 x 64.
 */
int replay_machine(int units, int *nodes, int *per_node, struct gq_err *e);

/* One replayed job, indexed like the trace's replayable jobs in submit
 * order (job id = index + 1). Times relative to the trace's. */
struct replay_job {
	size_t trace_idx;	    /* into trace.jobs */
	int64_t submit, start, end; /* start, end: -1 when it never started in the replay */
	int64_t trace_start;	    /* the log's start */
	int tier, qi;		    /* tier at submit, policy queue */
	int units;
	int overtaken; /* times a later submission started before it */
	int preempted;
	int64_t lost;		     /* unit-seconds of work lost to preemption */
	bool predicted;		     /* accuracy: predictions below are valid */
	int64_t pred[PRED_COUNT];    /* predicted start at submit */
	int64_t pred_low, pred_high; /* the history prediction's range */
};

struct replay_acc { /* accuracy of one predictor against one reference, one class */
	size_t n;
	int64_t median, p90; /* absolute error, seconds */
	double mean;
	double within_1m, within_10m, within_x2; /* shares 0..1 */
	double in_range;			 /* history only: start inside [low, high] */
	double below, above;			 /* ... before low, after high */
};

enum replay_ref { REF_REPLAY, REF_TRACE, REF_COUNT };
enum replay_class { CLASS_ALL, CLASS_AT_ONCE, CLASS_WAITED, CLASS_COUNT };

struct replay_group {		    /* a tier or a queue */
	char name[GQ_NAME_MAX + 8]; /* "P1", "queue default" */
	size_t jobs;
	int64_t p50, p95, max; /* waits */
	size_t over_limit;     /* waited past its tier's waitLimit */
	size_t overtakes, preemptions;
	int64_t lost;	    /* unit-seconds */
	double utilisation; /* its unit-seconds over the machine's, over the span */
};

struct replay_result {
	size_t njobs;		 /* replayed */
	size_t skipped_never;	 /* never started in the log: no runtime */
	size_t skipped_too_wide; /* wider than the machine */
	size_t capped_at_limit;	 /* ran past their limit in the log */
	size_t never_started;	 /* replayed, but never started (never fit) */
	int nodes, gpus_per_node;
	int64_t span; /* first submit to last end */
	double utilisation, trace_utilisation;
	struct replay_job *jobs;
	size_t ngroups;
	struct replay_group *groups; /* the tiers with jobs, then the queues, then "all" */
	/* wait histogram over all jobs: 0, <1m, <10m, <1h, <4h, <12h, <1d, <3d, <1w, more */
	size_t hist[REPLAY_HIST_BINS];
	struct replay_acc acc[PRED_COUNT][REF_COUNT][CLASS_COUNT];
	size_t events, plans, predictions;
};

/* Labels of the histogram's bins: "0", "<1m", ... */
const char *replay_hist_label(int bin);

void replay_result_release(struct replay_result *r);

/*
 * Replays t under o into *r (zeroed by the caller). Fails only on options
 * it cannot use (no machine: GQ_EINVAL); jobs it cannot replay are counted
 * in skipped_*. Deterministic.
 */
int replay_run(const struct trace *t, const struct replay_opts *o, struct replay_result *r,
	       struct gq_err *e);

#endif
