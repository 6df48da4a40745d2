/*
 * array.h - job arrays: Slurm's --array syntax, and the throttle as the
 * core sees it.
 *
 * An array is one submission of many tasks. gq serve gives the array an id
 * of its own (A) and each task the next ids, in index order; every task is
 * an ordinary job with array_id = A and array_task = its index, so that
 * ordering, placement, reasons and predictions treat tasks as jobs. A
 * throttle ("%N") lets at most N tasks of the array hold GPUs at once; the
 * core keeps it by giving each throttled task one more thing to wait for
 * (array_throttle_deps), which the prediction, and therefore sched_plan,
 * honour as a dependency.
 *
 * This file parses and counts; it does not submit, name or print.
 */
#ifndef GQ_ARRAY_H
#define GQ_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "util.h"

/* Slurm's default MaxArraySize: task indices 0..GQ_ARRAY_MAX_SIZE - 1, and
 * so at most that many tasks in one array. */
#define GQ_ARRAY_MAX_SIZE 1001

struct array_spec {
	int ntasks;
	int tasks[GQ_ARRAY_MAX_SIZE]; /* ascending, no repeats */
	int throttle;		      /* at most this many at once; 0 none */
};

/*
 * Parses sbatch's --array value: a comma-separated list of indices N,
 * ranges N-M and stepped ranges N-M:S, then an optional "%T" throttle
 * ("0-99%8", "1,3,5-7", "0-15:4"). Indices are 0..GQ_ARRAY_MAX_SIZE - 1;
 * repeats are merged. Returns 0 and fills *out, or -1 with GQ_EINVAL and
 * a line naming the faulty part.
 */
int array_parse(const char *spec, struct array_spec *out, struct gq_err *e);

/*
 * The compact form of a set of task indices with a throttle, as squeue
 * shows a pending array: "3-99%8", "1,3,5-7", "0-12:4" (a stepped range
 * when the gaps are equal and there are at least three). Cut to fit size
 * (ending in "..."); returns out.
 */
char *array_format(const int *tasks, int n, int throttle, char *out, size_t size);

/*
 * For every job of s (sorted by id), the id of the sibling a throttled
 * pending task waits for, else 0: out[i] is for s->jobs[i]. Within each
 * throttled array, the tasks that hold GPUs (by id) and then the pending
 * tasks that are not held (by id) are lined up; the task at place p >= N
 * waits for the end of the task at place p - N. With every task's
 * runtime equal that is the throttle exactly; otherwise a task waits for
 * a given sibling rather than the first to end, never starting earlier
 * than the throttle allows. O(njobs).
 */
void array_throttle_deps(const struct snapshot *s, int64_t *out);

/* Tasks of j's array (j->array_id) that hold GPUs in s; 0 for a job that
 * is not a task. O(tasks) when s is sorted. */
int array_running(const struct snapshot *s, const struct job *j);

/*
 * Folds the pending tasks of each array among rows[0, n) (pending jobs in
 * display order) into the row of the first of them, as squeue shows a
 * pending array: label[i] of that row becomes "42_[3-99%8]" (its tasks'
 * indices in index order, the throttle) and drop[i] is set for the
 * array's other rows; every other label is "" and drop false. An array
 * with one row there stays a task row. What gq ls and gq top fold.
 */
#define ARRAY_LABEL_MAX 288
void array_fold(const struct job *const *rows, size_t n, bool *drop,
		char (*label)[ARRAY_LABEL_MAX]);

/* An array as a whole, from the tasks s has of it: what `gq why` and
 * `gq show` say of the array's own id. */
struct array_summary {
	int ntasks;
	int tasks[GQ_ARRAY_MAX_SIZE]; /* their indices, ascending */
	int throttle;		      /* 0 none */
	/* By state: pending (held too), running (starting, running,
	 * stopping), done (completed), failed (failed, timed out),
	 * cancelled. */
	int pending, running, done, failed, cancelled;
};

/* Fills *out with array a's tasks in s (sorted by id); returns their
 * count, 0 when s has no task of a (out is then all zero). */
int array_summary(const struct snapshot *s, int64_t a, struct array_summary *out);

#endif
