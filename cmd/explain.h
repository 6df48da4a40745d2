/*
 * explain.h - why each pending job waits and when it will start, as data
 * and as text: the client side of DESIGN §4 and §5, shared by `gq ls`,
 * `gq why`, `gq eta` and the dashboard (tui/), so that they all say the
 * same thing.
 *
 * explain_compute() runs core on a fetched snapshot: the queue-traversal
 * prediction (predict.h) and the wait reasons (reason.h: the primary
 * reason, every blocking constraint in its fixed order, the jobs ahead).
 * The rendering functions turn that into gq's sentences. Nothing here does
 * I/O; the caller prints.
 */
#ifndef GQ_CMD_EXPLAIN_H
#define GQ_CMD_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/place.h"
#include "core/predict.h"
#include "core/reason.h"

#define EXPLAIN_AHEAD_SHOWN 3

/* One pending job's explanation. Pointers are borrowed from the snapshot
 * and the set; valid while both live unchanged. */
struct explain {
	const struct job *job;
	const struct prediction *pred;
	const struct why *why; /* core's explanation, from the set's why_set */
	enum reason reason;   /* the primary reason */
	unsigned blocks;      /* REASON_BIT of every reason that applies */
	struct place_result place; /* placement on the GPUs free after the starts at now */
	int position;         /* 1-based in the scheduling order */
	int ahead;            /* pending jobs ahead of it */
	int nshown;           /* the first few of them, in order */
	const struct job *shown[EXPLAIN_AHEAD_SHOWN];
	double weight, base, c; /* weight = base × (1 + c) */
	bool rises;           /* the weight still rises by aging: */
	int64_t rise_at;      /* ... at this time */
	double rise_to;       /* ... to this weight */
	int64_t dep_waiting;  /* REASON_DEPENDENCY: the first unfinished dependency */
	bool dep_failed;      /* a dependency failed or was cancelled: never starts */
};

struct explain_set {
	const struct snapshot *s; /* borrowed */
	struct prediction_set ps;
	struct why_set ws;
	size_t n;
	struct explain *items; /* pending jobs in scheduling order */
};

/*
 * Computes the explanations of every pending job of s (sorted by
 * snapshot_sort; borrowed until explain_release). Never fails.
 */
void explain_compute(const struct snapshot *s, struct explain_set *out);
void explain_release(struct explain_set *x);
/* The explanation of job id, NULL when it is not pending. */
const struct explain *explain_find(const struct explain_set *x, int64_t id);

/* Appends the paragraph of `gq why` (DESIGN §4): reason, who is ahead,
 * weight and its next rise, needs vs free, likely start with its range and
 * the jobs it waits for. One line, no newline. */
void explain_text(const struct explain_set *x, const struct explain *ex, struct buf *out);
/* Appends what would make it start sooner, one suggestion per line (each
 * ends with a newline); nothing when nothing would. */
void explain_sooner(const struct explain_set *x, const struct explain *ex, struct buf *out);
/* Appends the short form for `gq ls`: "priority", "resources", ... with a
 * detail when it fits ("dependency #41"). */
void explain_short(const struct explain *ex, struct buf *out);
/* Appends "14:35 (range 14:10-16:20)" or "never (held)". */
void explain_eta(const struct explain_set *x, const struct explain *ex, struct buf *out);

#endif
