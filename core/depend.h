/*
 * depend.h - job dependencies and their kinds, as Slurm users write them.
 *
 * A job may wait for up to GQ_MAX_DEPS other jobs, each with a kind: afterok
 * (the other job succeeds: exit 0), afterany (it ends, however), afternotok
 * (it ends without succeeding: failed, cancelled, timed out). A plain id
 * ("--after 12") is afterok: what gq did before kinds existed, where a job
 * whose dependency failed never starts.
 *
 * Like Slurm's kill_invalid_depend, a pending job whose dependency can never
 * be met (afterok on a job that failed, afternotok on one that succeeded) is
 * cancelled by gq serve: dep_never() says which dependency and why; the
 * server acts on it. A dependency on a job that is gone (forgotten after it
 * ended) counts as met, as Slurm counts a purged job.
 *
 * This file is the one rule of "is this dependency met"; the prediction,
 * the wait reasons and the server all ask it.
 */
#ifndef GQ_DEPEND_H
#define GQ_DEPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "util.h"

/* X(ENUM, Slurm's word, what it waits for); DEP_AFTEROK is 0: a zeroed job
 * waits for success, as a plain id does. */
#define DEP_KIND_LIST(X)                                                                           \
	X(AFTEROK, "afterok", "succeed")                                                           \
	X(AFTERANY, "afterany", "end")                                                             \
	X(AFTERNOTOK, "afternotok", "fail")

/* clang-format off */
enum dep_kind {
#define X(e, t, v) DEP_##e,
	DEP_KIND_LIST(X)
#undef X
	DEP_KIND_COUNT
};
/* clang-format on */

/* "afterok", ...; "?" out of range. */
const char *dep_kind_name(enum dep_kind k);
/* What the kind waits for the other job to do: "succeed", "end", "fail". */
const char *dep_kind_verb(enum dep_kind k);
/* The kind named by the n bytes at s; -1 when none is. */
int dep_kind_parse(const char *s, size_t n, enum dep_kind *out);

enum dep_status {
	DEP_WAIT,  /* the other job is still pending or running */
	DEP_MET,   /* it ended as the kind asks, or is gone */
	DEP_NEVER, /* it ended otherwise: this dependency can never be met */
};

/* Whether a dependency of kind k on job dj (NULL: gone) is met. */
enum dep_status dep_status(enum dep_kind k, const struct job *dj);
/* Whether j's i-th dependency is met: dep_status of its job in s (sorted),
 * except that one the backend marks dead (j->dep_dead, Slurm's
 * DependencyNeverSatisfied) can never be met, even when its job is gone.
 * *dj, when dj is not NULL, gets that job (NULL: gone). */
enum dep_status dep_status_at(const struct snapshot *s, const struct job *j, int i,
			      const struct job **dj);
/* When j's dependencies were all met: the latest end_time of their jobs
 * (0 when none is known: no dependencies, or their jobs are gone); -1
 * while one is not met (still waiting, or never). gq serve keeps it in
 * j->eligible_time, so that the wait that ages starts there (job.h). */
int64_t dep_met_at(const struct snapshot *s, const struct job *j);
/* The kind of j's i-th dependency (0 <= i < j->ndeps). */
enum dep_kind dep_kind_of(const struct job *j, int i);

/*
 * Parses a dependency list into j (appending to what j has): Slurm's form
 * "afterok:12:13,afterany:14" and gq's plain ids "12,#13" (afterok), mixed
 * as one likes. 0, or -1 with GQ_EINVAL and a line naming the bad part
 * ("'after:4': kind 'after' is not one gq knows; use afterok, afterany or
 * afternotok"), j unchanged. Slurm's '?' (any of) and singleton are
 * refused, not guessed at.
 */
int dep_parse(const char *s, struct job *j, struct gq_err *e);
/* j's dependencies in Slurm's form, consecutive ones of a kind grouped:
 * "afterok:12:13,afterany:14"; "" when none. Cut to fit size. */
void dep_format(const struct job *j, char *out, size_t size);

/* Why a dependency can never be met. */
struct dep_never {
	int64_t job;	      /* the dependency */
	enum dep_kind kind;   /* what j asked of it */
	bool gone;	      /* its job is no longer known (the backend said it is dead) */
	enum job_state state; /* how it ended (not when gone) */
	int exit_status;      /* its exit status (-1 unknown) */
};

/* For a pending job j of s: true, with the first dependency that can never
 * be met in *out, when there is one (s sorted, as for snapshot_find); a
 * dependency on j itself is none of its business (the server refuses it).
 * gq serve cancels such a job at its next pass. */
bool dep_never(const struct snapshot *s, const struct job *j, struct dep_never *out);

/*
 * Whether j, with the dependencies it has (a change not yet in s), would
 * wait for itself through the pending jobs of s (sorted): A waiting for B,
 * B for C and C for A, none of which could ever start, whatever the kinds
 * (each asks the other job to end). A dependency on j itself is such a
 * cycle too. Jobs that are not pending wait for nothing and end a path.
 * True with the cycle in path: path[0] is the dependency of j it starts
 * with, the last is the job that waits for j, *len their number; at most
 * size are written (the first ones of a longer cycle), *len is the full
 * length all the same. Allocates (and frees) a mark per job of s.
 */
bool dep_cycle(const struct snapshot *s, const struct job *j, int64_t *path, size_t size,
	       size_t *len);

#endif
