/*
 * jobsig.h - the signal a job asks for before its time limit (`--signal
 * [B:]SIG[@SECONDS]`, Slurm's sbatch --signal): reading the form a user
 * types and the names of the signals it may name.
 *
 * It is not how the signal is sent (the server's loop does that, once,
 * SECONDS before start + time_limit); here only words and numbers.
 */
#ifndef GQ_JOBSIG_H
#define GQ_JOBSIG_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define JOBSIG_DEFAULT_BEFORE 60 /* seconds, when the form gives no @TIME */
#define JOBSIG_MAX 31		 /* the highest signal number a job may ask for */

/*
 * Reads s: [B:]SIG[@SECONDS], SIG a name with or without "SIG" ("USR1",
 * "SIGTERM", any case) or a number 1..JOBSIG_MAX, SECONDS a whole number
 * of seconds 1.. (or a gq duration: "2m"); "@SECONDS" alone means USR1.
 * "B:" is accepted and means nothing more: the signal always goes to the
 * job's whole process group. Returns 0 with *sig and *before, or -1 with
 * GQ_EINVAL and a line naming s.
 */
int jobsig_parse(const char *s, int *sig, int64_t *before, struct gq_err *e);

/* The name of signal sig without "SIG" ("USR1"), or NULL for a number
 * without one here. */
const char *jobsig_name(int sig);

/* 0 when sig (0: none) and before fit a job with time_limit: sig in
 * 1..JOBSIG_MAX, before in 1..time_limit-1; -1 with GQ_EINVAL otherwise
 * ("signal: ..."). A time_limit of 0 (none yet: the queue's default may
 * give one) is not checked here; the server refuses a signal on a job
 * that ends up without a limit. */
int jobsig_check(int sig, int64_t before, int64_t time_limit, struct gq_err *e);

#endif
