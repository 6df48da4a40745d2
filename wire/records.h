/*
 * records.h - the records a backend hands out besides jobs, nodes and
 * snapshots (core/): a submission, a page of events, the metrics of a
 * window, preemption records and the reclamation report. backend.h's
 * operations take and return them; wire.h gives each its text in the API.
 * Releasing accepts a zeroed record.
 */
#ifndef GQ_WIRE_RECORDS_H
#define GQ_WIRE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "core/job.h"
#include "core/policy.h"
#include "core/stats.h"
#include "core/util.h"

/* A submission: the job's scheduling fields (name, queue, tier, req,
 * estimate, time_limit, checkpointable, deps, held) in job, and what to run.
 * Fields left empty ("" queue, 0 time_limit) take the server's defaults. */
/* Which of a submission's fields the user gave (the command line or #GQ
 * lines), as against gq's defaults: a backend that reads a script's own
 * directives (#SBATCH) lets only these win over them. */
enum submit_given {
	SUBMIT_GIVEN_GPUS = 1u << 0, /* --gpus, --gpu-type, --same-node */
	SUBMIT_GIVEN_CPUS = 1u << 1,
	SUBMIT_GIVEN_MEM = 1u << 2,
	SUBMIT_GIVEN_TIER = 1u << 3,
	SUBMIT_GIVEN_QUEUE = 1u << 4,
	SUBMIT_GIVEN_NAME = 1u << 5,
	SUBMIT_GIVEN_TIME_LIMIT = 1u << 6,
};

struct submit_req {
	struct job job;
	unsigned given; /* enum submit_given bits */
	char **argv;	/* NULL-terminated; borrowed; with script, its arguments */
	const char *cwd;
	char **env;		     /* NULL-terminated "K=V"; borrowed */
	const char *script;	     /* a batch script's text instead of argv, or NULL */
	const char *idempotency_key; /* or NULL */
	const char *array;	     /* --array's spec ("0-99%8", array.h), or NULL */
	const char *output, *error;  /* -o / -e file name patterns (outpat.h), or NULL */
	const char *notify_webhook;  /* the user's notify.webhook (config.h), or NULL */
	const char *notify_command;  /* the user's notify.command, or NULL */
};

struct event_list {
	struct event *items;
	size_t n, cap;
};
void event_list_release(struct event_list *l);

/* Metrics of a window (core/stats.h) with the jobs per state now. */
/* Columns a scheduler's own records cannot give (gq stats on Slurm): null
 * in the JSON (a group's, or a department's for charged), "-" in the
 * table, named in "not_recorded". */
enum stats_not_recorded {
	STATS_NR_OVER_LIMIT = 1u << 0,
	STATS_NR_OVERTAKEN = 1u << 1,
	STATS_NR_WOULD_PREEMPT = 1u << 2,
	STATS_NR_WORK_LOST = 1u << 3,
	STATS_NR_CHARGED = 1u << 4, /* a department's, by gq's tier prices */
};
#define STATS_NR_COUNT 5
/* The JSON names of enum stats_not_recorded's bits, in bit order. */
extern const char *const stats_not_recorded_names[STATS_NR_COUNT];

struct stats_report {
	unsigned not_recorded; /* enum stats_not_recorded bits; 0 on gq serve */
	const char *scheduler; /* whose records ("Slurm"), NULL gq serve's; static */
	int64_t now;
	int64_t started; /* the server's start ("server_start"; 0: not said) */
	int counts[JOB_STATE_COUNT];
	struct stats st;
};
void stats_report_release(struct stats_report *r);

/* One preemption: who was suspended for whom, and when each step was. */
struct preempt_record {
	int64_t id;			/* from 1, in signal order */
	int64_t victim;			/* the job suspended */
	int64_t trigger;		/* the job it made room for; 0 for a window */
	char reason[16];		/* "priority", "permit" or "window" */
	char queue[GQ_NAME_MAX];	/* the victim's queue */
	char dept[GQ_NAME_MAX];		/* the victim's department */
	char trigger_dept[GQ_NAME_MAX]; /* the trigger's department, "" for a window */
	bool cross_dept;		/* charged one peak preemption to trigger_dept */
	int gpus;			/* GPUs the victim held */
	int64_t ran;			/* seconds its run had lasted at the signal */
	int64_t last_checkpoint;	/* its last report before the signal, 0 none */
	int64_t signalled, saved, released, restarted; /* 0: not (yet) */
	double work_lost;			       /* GPU-seconds */
	bool resumed;
};
struct preempt_list {
	int64_t now; /* the scheduler's clock */
	struct preempt_record *items;
	size_t n;
};
void preempt_list_release(struct preempt_list *l);

/* One entry of the reclamation report. */
enum reclaim_kind {
	RECLAIM_IDLE,	    /* running, no output and no checkpoint for reclaim.idleAfter */
	RECLAIM_FAILED,	    /* failed (or timed out), processes of it still alive */
	RECLAIM_UNRELEASED, /* finished otherwise, or stopping past its kill deadline, with
			       processes still alive */
};
/* "idle", "failed", "unreleased" (the names on the wire). */
const char *reclaim_kind_name(enum reclaim_kind k);

struct reclaim_entry {
	int64_t job;
	enum reclaim_kind kind;
	int gpus;
	char gpu_list[128]; /* "0,1" */
	int64_t since;	    /* idle: last sign of progress; else when it ended / its deadline */
	bool acts;	    /* the reclaim rollout mode covers the job's queue */
};
struct reclaim_report {
	int64_t now;
	enum rollout mode;	     /* reclaim.mode in force */
	char trial_queues[256];	     /* reclaim.trialQueues */
	int64_t idle_after;	     /* reclaim.idleAfter, seconds */
	int gpus;		     /* held by the entries, in all */
	struct reclaim_entry *items; /* by job */
	size_t n;
};
void reclaim_report_release(struct reclaim_report *r);

#endif
