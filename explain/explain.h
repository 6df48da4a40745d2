/*
 * explain.h - why each pending job waits and when it will start, in
 * words: the client side of DESIGN §4 and §5, shared by `gq ls`, `gq why`,
 * `gq eta` and the dashboard (tui/), so that they all say the same thing.
 *
 * explain_compute() runs core on a fetched snapshot — the queue-traversal
 * prediction (core/predict.h) and the wait reasons as data (core/reason.h)
 * — and the functions below turn that data into gq's sentences. Every
 * number and token comes from core; nothing here decides. The explanation
 * layer (explain/) sits on core/ only: no I/O, no clock, no jansson, no
 * terminal; the caller prints, and gives the reader's time zone
 * (explain/zone.h) in which every time is written.
 */
#ifndef GQ_EXPLAIN_EXPLAIN_H
#define GQ_EXPLAIN_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/depend.h"
#include "core/hint.h"
#include "core/job.h"
#include "core/predict.h"
#include "core/preempt.h"
#include "core/reason.h"
#include "zone.h"

/* One pending (or starting) job. Pointers are borrowed from the snapshot
 * and the set; valid while both live unchanged. */
struct explain {
	const struct job *job;
	const struct why *why;	       /* core's explanation */
	const struct prediction *pred; /* NULL for a job in state starting */
};

struct explain_set {
	const struct snapshot *s;  /* borrowed */
	const struct zone *reader; /* borrowed: times are written in it */
	struct zone server;	   /* the snapshot's zone, that of the windows */
	struct prediction_set ps;
	struct why_set ws;
	int nfree; /* free GPUs on nodes that are up, now */
	size_t n;
	struct explain *items; /* pending jobs in scheduling order, then starting ones */
	/* Set by the caller after explain_compute (both default to off):
	 * utf8: the reader's charset can print "×" and "…" (else "x" and
	 * "..."; the CLI asks nl_langinfo(CODESET)); reader_user: who reads,
	 * so that their own jobs say "your weight" (NULL: "its weight"). */
	bool utf8;
	const char *reader_user;
};

/*
 * Computes the explanations of every pending job of s (sorted by
 * snapshot_sort; borrowed until explain_release), to be written in the
 * reader's zone (borrowed too; NULL: UTC). Never fails.
 */
void explain_compute(const struct snapshot *s, const struct zone *reader, struct explain_set *out);
void explain_release(struct explain_set *x);
/* The explanation of job id, NULL when it is neither pending nor starting. */
const struct explain *explain_find(const struct explain_set *x, int64_t id);
/* The backend's priority of pending job id (struct job's ext_prio; Slurm's
 * on an ORDER_BACKEND snapshot), 0 when id is not pending in x. */
int64_t explain_prio(const struct explain_set *x, int64_t id);

/* Appends the paragraph of `gq why` (DESIGN §4): every blocking reason,
 * the primary first, with its numbers, who is ahead, weight and its next
 * rise (on an ORDER_BACKEND snapshot the backend's priority instead, and
 * where its factors are: sprio), needs vs free, a P0 reminder or a downgrade, likely start with its
 * range and the jobs it waits for, and when it is looked at again. One
 * line, no newline. */
void explain_text(const struct explain_set *x, const struct explain *ex, struct buf *out);
/* What would make it start sooner: core's counterfactual hints (hint.h),
 * a handful of predictions; for one job at a time. */
void explain_hints(const struct explain_set *x, const struct explain *ex, struct hint_set *out);
/* Appends those hints, one sentence a line, each ending with a newline
 * ("--gpus 4: starts about 2h10m sooner, at 14:35"), and that a job whose
 * dependency can never end should be cancelled; nothing when nothing
 * would help. hs: explain_hints()'s, or NULL to compute them here. */
void explain_sooner(const struct explain_set *x, const struct explain *ex,
		    const struct hint_set *hs, struct buf *out);
/* Appends the P0 reminder and its deadline, or the downgrade that
 * happened, as one sentence with a leading space ("Downgraded from P0 at
 * 14:30: not confirmed within 30m."), its times in the reader's zone
 * (NULL: UTC); nothing when neither. For any job of s (gq show too). */
void explain_downgrade(const struct snapshot *s, const struct zone *reader, const struct job *j,
		       struct buf *out);
/* Appends, for work over its department's monthly quota (job.h:
 * over_quota), what that makes of it, with a leading space: " Runs over
 * its department's monthly quota as preemptible lowest-tier work:
 * department lab used 2.4 of its 2 GPU-hours this month, so it goes after
 * every job within its quota, ..."; nothing for any other job of s. */
void explain_over_quota(const struct snapshot *s, const struct job *j, struct buf *out);
/* Appends when it will be looked at again: "when #88 ends (14:35)". */
void explain_reeval(const struct explain_set *x, const struct explain *ex, struct buf *out);
/*
 * What preemption can do for a pending job now (DESIGN §3), as core
 * decides it: permit_decide when the job holds a starvation permit, else
 * preempt_choose. Fills *out (release it with preempt_plan_release).
 * One job at a time: the choice walks the running jobs, too costly for
 * every row of a large queue.
 */
void explain_preempt(const struct explain_set *x, const struct explain *ex,
		     struct preempt_plan *out);
/* Appends that choice as one sentence for `gq why`, "Preemption: ...",
 * with no newline; nothing when preemption is not what it waits on (its
 * reason is not resources and it holds no permit, or nothing GPUs could
 * fix blocks it). On an ORDER_BACKEND snapshot (Slurm) only that the
 * backend preempts by its own QOS rules, when the reason is resources. */
void explain_preempt_text(const struct explain_set *x, const struct explain *ex,
			  const struct preempt_plan *pp, struct buf *out);

/*
 * Appends what its queue's window will do to a job just submitted (core's
 * preempt_window_stop), one sentence, no newline: "Queue night pauses at
 * 20:00 (window 20:00-08:00 UTC); starting now, this job is expected to
 * end at 21:00: it cannot checkpoint, so it would be stopped at 20:00 and
 * requeued, its work lost (queue.night.windowAction = requeue)." Times in
 * the reader's zone (NULL: UTC), the window in the server's.
 */
void explain_window_stop(const struct window_stop *w, const struct zone *reader, struct buf *out);

/* Appends the short form for `gq ls`: "priority (3 ahead)", "dependency #41". */
void explain_short(const struct explain *ex, struct buf *out);
/* Why a dependency can never be met, as gq serve's event and the job's end
 * reason say it: "dependency #12 failed (exit 1): afterok can never be
 * met"; quoted, as an error names it: "dependency '12' failed ...". Cut to
 * fit size. */
void explain_dep_never(const struct dep_never *d, bool quoted, char *out, size_t size);
/* Appends "14:35 (range 14:10-16:20)", "now" or "never while held". */
void explain_eta(const struct explain_set *x, const struct explain *ex, struct buf *out);
/* The predicted start (unix seconds) or 0 when unknown or never. */
int64_t explain_start(const struct explain *ex);

/* The reservation ex's predicted start waits for (gate "reservation"):
 * its own, which begins then, or one of every node, which ends then; NULL
 * none. */
const struct reservation *explain_resv(const struct explain_set *x, const struct explain *ex);

#endif
