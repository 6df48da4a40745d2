/*
 * history.h - the accounting history on the wire: the job list that GET
 * /v1/jobs answers, read back, and gq history's rows as JSON and CSV (the
 * shapes gq-history(1) documents). The rows are made by the command; this
 * file only writes them.
 */
#ifndef GQ_WIRE_HISTORY_H
#define GQ_WIRE_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/util.h"

struct job_list {
	struct job *jobs; /* owned */
	size_t n;
};

/* {"jobs": [JOB, ...]} (GET /v1/jobs) into *jobs (caller frees) and *n. */
int wire_jobs_parse(const char *text, size_t len, struct job **jobs, size_t *n, struct gq_err *e);

/* One finished job as gq history reports it. */
struct history_row {
	const struct job *job; /* borrowed */
	int64_t wait;	       /* its last pending stretch (job_waited) */
	int64_t runtime;       /* its runs' time, job_run_time; 0 when it never started */
	double gpu_hours;      /* its runs' GPU-seconds / 3600 (job_run_time) */
	double charged;	       /* gpu_hours x its tier's price; NAN: not gq's to say (Slurm) */
};

/* The rows as a JSON array of objects: id, name, user, queue, dept, tier,
 * state, exit (null when unknown), submit_time, start_time (null when never
 * started), end_time, wait, runtime, gpus, gpu_hours, charged (null when
 * NAN). Caller frees. */
char *wire_history_json(const struct history_row *rows, size_t n);

/* The same columns as CSV (RFC 4180: a header line, fields with a comma,
 * quote or line break quoted, quotes doubled; times in unix seconds, an
 * unknown exit, start or charge empty). Caller frees. */
char *wire_history_csv(const struct history_row *rows, size_t n);

/* gq stats --by: GPU-hours and their price per user or department. */
struct usage_row {
	char name[32];
	int jobs;
	double gpu_hours, charged;
};
/* {"by": by, "rows": [{"name", "jobs", "gpu_hours", "charged"}, ...]}. Caller frees. */
char *wire_usage_json(const char *by, const struct usage_row *rows, size_t n);

#endif
