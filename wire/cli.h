/*
 * cli.h - what gq's commands print with --json, from their structs. Job
 * fields come from the codec (wire/codec.c) so that `gq show --json` and
 * the API never disagree; a report (stats, preemptions, reclaim) prints as
 * the API's text of it. Each function writes one
 * JSON value and a newline to stdout. The shapes are documented in the
 * commands' man pages; scripts depend on them.
 */
#ifndef GQ_WIRE_CLI_H
#define GQ_WIRE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"

struct explain;
struct explain_set;
struct preempt_plan;

/* Every codec field of the job, plus "gpus" (requested), "argv" and "cwd"
 * (null when not visible to the caller); with ext, "slurm": the backend
 * scheduler's view (reason, reason_class, estimate, priority, partition,
 * qos, account, array), as gq ls --json and gq why --json carry it on an
 * ORDER_BACKEND snapshot. */
void jout_job(const struct job_info *ji, bool ext);
/* {"id": N} */
void jout_id(int64_t id);
/* gq submit's {"id": N}, with "window": WINDOW_STOP (codec.h) when win is
 * not NULL: its queue's window would stop the job. */
void jout_submitted(int64_t id, const struct window_stop *win);
/* {"now": N} */
void jout_now(int64_t now);
/* The outcome of an action on one job: exit 0, or the exit code and the
 * error's words. */
struct jout_action {
	int64_t id;
	int exit;
	char error[512];
};
/* {"action": "cancel", "jobs": [{"id", "ok", "exit"?, "error"?}]} in the
 * order named; "exit" and "error" when it did not work. */
void jout_actions(const char *action, const struct jout_action *a, size_t n);
/* An array of events; with lines, one compact object per line instead. */
void jout_events(const struct event *ev, size_t n, bool lines);
/* [{"name", "gpu_model", "gpu_mem_mb", "gpus", "busy", "free", "up",
 *   "jobs": [ids]}] */
void jout_nodes(const struct snapshot *s);

/*
 * `gq ls --json`: an array of the rows in the order given, each with id,
 * name, user, queue, tier, state, gpus, weight, submit_time, start_time,
 * end_time, waited, position, predicted_start, predicted_end, range
 * ({"low","high"} or null) and reason (null when not pending).
 */
void jout_ls(const struct explain_set *x, const struct job *const *rows, size_t n);
/* `gq why --json`: the ls fields of job j plus "explanation" (reason,
 * blocks, text, ahead, ahead_jobs, weight parts, needs, waits_for,
 * sooner, and with pp "preemption": outcome, mode, permit, stopping,
 * candidates, eligible, excluded {rule: count}, victims, wait_for, text);
 * "explanation" is null when j is not pending. pp may be NULL. */
void jout_why(const struct explain_set *x, const struct job *j, const struct preempt_plan *pp);
/* An array's own id (gq why, gq show): {"array_id", "tasks" (the range
 * with its throttle, as gq ls folds it), "ntasks", "throttle", "pending",
 * "running", "done", "failed", "cancelled", "next_task"}: next_task is
 * what gq why --json says of its next pending task (null when none, and
 * always from gq show, with x NULL). */
struct array_summary;
void jout_array(int64_t id, const struct array_summary *a, const char *range,
		const struct explain_set *x, const struct job *next, const struct preempt_plan *pp);
/* `gq eta --json`: an array of why objects, without "preemption". */
void jout_eta(const struct explain_set *x, const struct job *const *rows, size_t n);

/* The API's text of a report (wire.h) and a newline: gq stats --json,
 * gq preemptions --json, gq reclaim --json. */
void jout_stats(const struct stats_report *r);
void jout_preemptions(const struct preempt_list *l);
void jout_reclaim(const struct reclaim_report *r);

/* ---- gq policy (shapes in gq-policy(1)) ---- */
struct policy_diff;
struct impact;
struct policy_commit;

/* {"revision", "keys": [{"key", "value", "default", "is_default"}]} */
void jout_policy_show(const struct policy *p);

/* What check and diff print. Pointers may be NULL where said. */
struct jout_policy_report {
	const char *from;		   /* the base compared with, NULL when none */
	const char *to;			   /* the revision or file checked */
	const char *error;		   /* NULL when valid */
	const struct policy_diff *changes; /* NULL when there is no base */
	const char *text;		   /* diff: the textual diff; NULL for check */
	const struct snapshot *live;	   /* with impact: NULL when no server answered */
	const struct impact *impact;
};
/* {"from", "to", "valid", "error", "variables", "changes": [{"key", "kind",
 *  "old", "new"}], "text", "impact": {"policy_in_force", "now", "pending",
 *  "running", "moves": [{"job", "tier", "old_position", "new_position",
 *  "old_weight", "new_weight"}], "starts": [{"job", "old", "new"}],
 *  "preemptible": [{"job", "preemptible"}]} or null} */
void jout_policy_report(const struct jout_policy_report *r);

/* One commit as a compact object without a newline (log prints the array
 * around them): {"commit", "parent", "author", "email", "time", "summary",
 * "message", "trailers": [{"key", "value"}], "applied": [{"time", "actor",
 * "applied", "reason"}]} with the server's policy events about it;
 * "applied" is null when ev is NULL (no server answered). */
void jout_policy_commit(const struct policy_commit *c, const struct event_list *ev);

/* {"key", "value", "before" (null when not defined), "commit": {...}} */
void jout_policy_blame(const char *key, const char *value, const char *before,
		       const struct policy_commit *c);

#endif
