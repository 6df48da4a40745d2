/*
 * ulimit.h - per-user limits (policy keys user.maxGpus, user.maxJobs,
 * queue.NAME.userMaxGpus, queue.NAME.userMaxJobs), as Slurm's
 * MaxTRESPerUser=gres/gpu=N and MaxSubmitJobsPerUser.
 *
 * A GPU limit bounds what one user's jobs hold at once, counted by what
 * each job asked for (req.gpus) while it is in a state that holds GPUs: a
 * pending job that would take its user past a limit waits, with the wait
 * reason user_limit, until one of the user's jobs ends. The queue's limit
 * counts the user's jobs of that queue, the overall one all of them. A job
 * asking for more than a limit allows can never start (place.h says so, as
 * for a queue's limit). A job limit bounds how many jobs one user has
 * pending or running (job_state_active; a task of an array is a job): a
 * submission past it is refused, nothing waits for it.
 *
 * This file counts and compares; who waits (reason.h, predict.h) and who is
 * refused (the server) are decided by their callers. Pure.
 */
#ifndef GQ_ULIMIT_H
#define GQ_ULIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

/* What one user's jobs of a snapshot hold and count. */
struct ulimit_user {
	const char *name; /* borrowed from the snapshot's job */
	int gpus;	  /* GPUs asked for by its jobs that hold GPUs */
	int jobs;	  /* its active jobs */
	int qgpus[GQ_MAX_QUEUES], qjobs[GQ_MAX_QUEUES]; /* the same, per policy queue */
};

/* Every user of a snapshot, by name (strcmp order); of_job[i] is the index
 * of snapshot job i's user. Owns its arrays; names live as long as the
 * snapshot. */
struct ulimit_table {
	size_t n;
	struct ulimit_user *users;
	size_t njobs;
	int32_t *of_job;
};

/* Does the policy set any GPU limit (overall or in some queue)? */
bool ulimit_gpus_set(const struct policy *p);

/* The most GPUs one job of queue qi (-1 unknown) may ever hold under the
 * user limits, -1 none; *queue_limit says whether the queue's limit is
 * that bound (it wins a tie). */
int ulimit_gpus_cap(const struct policy *p, int qi, bool *queue_limit);

/* Builds the table of s (allocates: release with ulimit_table_release). */
void ulimit_table_init(struct ulimit_table *t, const struct snapshot *s);
void ulimit_table_release(struct ulimit_table *t);
/* The user called name, NULL when no job of the snapshot has that user. */
const struct ulimit_user *ulimit_find(const struct ulimit_table *t, const char *name);

/* A limit that blocks, with its numbers: used = what the user holds (in
 * the queue when queue is set), limit = the key's value. */
struct ulimit_hit {
	bool queue; /* the queue's key (queue.NAME.userMax*), else user.max* */
	int used, limit;
};

/* Would `more` GPUs in queue qi take user u (NULL: holds nothing) past a
 * GPU limit? Fills *out with the queue's limit when both block. More = 0
 * never blocks. */
bool ulimit_gpus_over(const struct policy *p, const struct ulimit_user *u, int qi, int more,
		      struct ulimit_hit *out);
/* Would `more` new jobs in queue qi take user u past a job limit? */
bool ulimit_jobs_over(const struct policy *p, const struct ulimit_user *u, int qi, int more,
		      struct ulimit_hit *out);

/* What user `name`'s jobs of s hold and count now (zero when none): one
 * pass over s, for callers that ask about one user. */
void ulimit_of(const struct snapshot *s, const char *name, struct ulimit_user *out);

/* Would pending job j, starting now, take its user past a GPU limit, with
 * what the user's jobs of s hold now? One pass over s; false at once when
 * no GPU limit is set. */
bool ulimit_job_over(const struct snapshot *s, const struct job *j, struct ulimit_hit *out);

/* Adds gpus (negative: gives them back) to what user u holds in queue qi
 * (-1 unknown) and overall: the prediction's starts and ends. */
void ulimit_take(struct ulimit_user *u, int qi, int gpus);

#endif
