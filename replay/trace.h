/*
 * trace.h - workload traces for `gq sim`: the CSV layout of
 * ../shared/traces/ and the Parallel Workloads Archive's SWF, parsed from
 * text into one list of jobs.
 *
 * Pure like core/ (make purity checks replay/ too): the caller reads the
 * file (cmd/sim.c, through zlib for .gz) and hands the text here. Neither
 * reader keeps a pointer into the text.
 *
 * CSV: a header line names the columns; job_id, submit_s, start_s, end_s,
 * gpus, user, queue and status must be there, and the optional req_s (the
 * time limit the user asked for), estimate, tier, checkpointable and name
 * are read when present; other columns are ignored. Fields are not quoted.
 * SWF: the 18 whitespace-separated fields of the standard; header comments
 * (';') give MaxProcs (or MaxNodes) as the machine's size; allocated
 * processors, else requested ones, are the units; -1 is unknown. The
 * executable number becomes the job name ("x<N>"), the user id "u<N>", the
 * queue number "q<N>".
 */
#ifndef GQ_TRACE_H
#define GQ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

struct trace_job {
	char id[40]; /* the trace's own id, for messages */
	int64_t submit;
	int64_t start, end; /* -1 unknown (never started, or not in the log) */
	int units;	    /* GPUs (or processors: the machine's unit) */
	int64_t limit;	    /* requested runtime, 0 none */
	int64_t estimate;   /* the user's estimate, 0 none */
	int tier;	    /* 0..2, -1 not in the trace */
	bool checkpointable;
	bool completed; /* status completed (SWF 1, CSV "COMPLETED" or 1) */
	char user[32], queue[32], name[64];
};

/* A trace owns its jobs, in the file's order. machine is the size the
 * trace itself gives (SWF MaxProcs), 0 unknown. */
struct trace {
	struct trace_job *jobs;
	size_t n, cap;
	int machine;
	int max_units; /* the widest job */
};

void trace_init(struct trace *t);
void trace_release(struct trace *t);

/*
 * Parse text[0..len) as CSV / SWF and append its jobs to t. `shown` names
 * the file in messages. On a malformed line: -1 with GQ_EINVAL and one line
 * "shown:LINE: what is wrong" (t then holds the jobs before it). The
 * replay orders jobs by submit time; the file need not.
 */
int trace_parse_csv(struct trace *t, const char *text, size_t len, const char *shown,
		    struct gq_err *e);
int trace_parse_swf(struct trace *t, const char *text, size_t len, const char *shown,
		    struct gq_err *e);

#endif
