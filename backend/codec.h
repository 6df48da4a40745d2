/*
 * codec.h - the JSON shapes of gq's HTTP API (man/gq-api.7): jobs, nodes,
 * events, snapshots, submissions and errors, both ways.
 *
 * Both ends use it: gq serve's request layer encodes what it answers and
 * decodes what it is sent; the native backend does the reverse. It is the
 * one place that knows field names, so the two can never disagree. It is
 * not the place for policy or scheduling checks (a submission with 0 GPUs
 * decodes fine; the server refuses it): decoders check JSON types, ranges
 * of the C fields, enums and names of fields, nothing more.
 *
 * Decoders are strict: an unknown field, a wrong type, a string too long
 * for its field or an out-of-range number is an error (GQ_EINVAL) whose
 * message names the field by its path ("job.req.gpus: expected an integer,
 * got a string"). A field that is absent keeps the value it had before the
 * call (the decoders start from job_init() / zero / defaults as said).
 *
 * Encoders return a new jansson reference (json_decref() it); they never
 * fail (out of memory is fatal).
 */
#ifndef GQ_CODEC_H
#define GQ_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "backend/backend.h"
#include "core/event.h"
#include "core/job.h"
#include "core/stats.h"
#include "core/util.h"

/* Maximum request body the server accepts and the size a client should
 * keep a submission under: argv, env and script included. */
#define CODEC_MAX_BODY (4u << 20)

/* Parses text[len] as one JSON value. On error (GQ_EINVAL) the message says
 * where: "malformed JSON at line 1, column 7: ...". Duplicate keys in an
 * object are rejected. *out is a new reference. */
int codec_parse(const char *text, size_t len, json_t **out, struct gq_err *e);
/* Compact one-line text of v followed by nothing (no newline); caller frees. */
char *codec_dump(const json_t *v);

/*
 * Job: every field of struct job. Encoding always writes every field;
 * "override" is null when unset, "alloc" lists {"node": N, "gpus": [i...]}
 * objects. codec_job_decode starts from job_init().
 */
json_t *codec_job_encode(const struct job *j);
int codec_job_decode(const json_t *v, struct job *out, struct gq_err *e);

/* Node: name, gpu_model, gpu_mem_mb, ngpus, cpus, mem_mb, up. Starts from
 * zero with up = true. */
json_t *codec_node_encode(const struct node *n);
int codec_node_decode(const json_t *v, struct node *out, struct gq_err *e);

/* Event: seq, time, job, kind, from, to, reason, actor. Starts from zero. */
json_t *codec_event_encode(const struct event *ev);
int codec_event_decode(const json_t *v, struct event *out, struct gq_err *e);
/* An array of events; *items (caller frees) and *n written on success. */
int codec_events_decode(const json_t *arr, struct event **items, size_t *n, struct gq_err *e);

/*
 * Policy: {"revision": "...", "keys": {"tier.P0.base": "100", ...}} with
 * every concrete key (policy_foreach). Decoding starts from the defaults
 * without queues or departments, sets every key with policy_set() and runs
 * policy_validate(); unknown keys and bad values are errors.
 */
json_t *codec_policy_encode(const struct policy *p);
int codec_policy_decode(const json_t *v, struct policy *out, struct gq_err *e);

/*
 * Snapshot: {"now", "tz_offset", "policy", "jobs": [...], "nodes": [...],
 * "queues": [{"name", "usage", "preempts_hour"}], "depts": [{"name",
 * "gpu_hours_month", "preempts_month"}]}. "queues"/"depts" name entries of
 * the policy; a name the policy lacks is an error. Decoding fills *out
 * (which must be snapshot_init()ed; its arrays are replaced) and sorts
 * jobs by id. On error *out is released.
 */
json_t *codec_snapshot_encode(const struct snapshot *s);
int codec_snapshot_decode(const json_t *v, struct snapshot *out, struct gq_err *e);
/*
 * codec_parse then codec_snapshot_decode of a snapshot's text, the JSON
 * tree living in an arena of this thread that is dropped whole at the end
 * (several times faster than malloc for the ~30 blocks a job takes; other
 * threads keep using jansson with malloc meanwhile). Same returns and
 * errors as the two; out as for codec_snapshot_decode.
 */
int codec_snapshot_parse(const char *text, size_t len, struct snapshot *out, struct gq_err *e);

/*
 * The arena behind codec_snapshot_parse, for other large, short-lived
 * jansson trees (gq ls --json's 10,000 rows): between begin and end, this
 * thread's jansson allocations come from the arena and its frees of them
 * are no-ops; end drops it whole. No jansson value made in between may be
 * used (or decref'd) after end. Other threads are not affected. Arenas do
 * not nest.
 */
struct codec_arena {
	struct arena_chunk *head;
};
void codec_arena_begin(struct codec_arena *a);
void codec_arena_end(struct codec_arena *a);
/* Drops everything made in the arena so far (the same rule as end) but
 * stays active, keeping one chunk's memory for what comes next: for one
 * short-lived tree after another. */
void codec_arena_reset(struct codec_arena *a);

/*
 * A submission as POST /v1/jobs takes it: the submittable job fields at the
 * top level (name, queue, tier, req, estimate, time_limit, checkpointable,
 * deps, held) and what to run: "argv" (array of strings) or "script"
 * (text), "cwd" (absolute path), "env" (array of "K=V"). Server-owned
 * fields (id, user, state, ...) are rejected as unknown. The decoded form
 * owns its strings; submission_release() frees them.
 */
struct submission {
	struct job job; /* job_init() plus the fields given */
	char **argv;	/* NULL-terminated, or NULL when a script is given */
	char **env;	/* NULL-terminated, never NULL after a successful decode */
	char *cwd;	/* NULL when not given */
	char *script;	/* NULL when not given */
};
void submission_release(struct submission *s);
json_t *codec_submit_encode(const struct submit_req *r);
int codec_submit_decode(const json_t *v, struct submission *out, struct gq_err *e);

/*
 * Metrics of a window, as GET /v1/stats?from=F&to=T answers them:
 * {"now", "from", "to", "jobs": {STATE: N, ...}, "gpus", "gpu_seconds",
 * "utilisation", "groups": [{"queue", "tier", "starts", "p50_wait",
 * "p95_wait", "longest_wait", "longest_job", "over_limit", "overtaken",
 * "preemptions", "would_preempt", "work_lost", "cancelled"}], "depts":
 * [{"dept", "gpu_hours", "charged"}]}, field for field struct stats
 * (core/stats.h). counts[JOB_STATE_COUNT] are the jobs per state now.
 * codec_stats_parse decodes such a text into *out (release it with
 * stats_release) and the server's now; "jobs" is not kept.
 */
json_t *codec_stats_encode(const struct stats *st, const int *counts, int64_t now);
int codec_stats_parse(const char *text, size_t len, struct stats *out, int64_t *now,
		      struct gq_err *e);

/*
 * Fast text forms of what the server sends most: exactly the text
 * codec_dump(codec_job_encode(j)) gives (same fields, order and number
 * formats), written straight into a buffer, ~10x faster than building
 * jansson values; bytes that are not UTF-8 become '?'. codec_jobs_text
 * is {"jobs": [JOB, ...]}.
 * Callers free the returned text; *len is its length.
 */
void codec_job_write(struct buf *b, const struct job *j);
char *codec_jobs_text(const struct job *jobs, size_t n, size_t *len);
/*
 * The lean form of a job, as a snapshot carries it: "id" always, then only
 * the fields whose value differs from job_init()'s (0, "", false, tier P1,
 * state pending, exit_status -1, req.gpus 1): "req" only when one of its
 * fields does, "override" only when set, "alloc" and "deps" only when not
 * empty. codec_job_decode reads it back to the same job, since it starts
 * from job_init() and keeps what is absent. About half the text of the
 * full form for a pending job, so the client parses half as much.
 */
void codec_job_write_lean(struct buf *b, const struct job *j);
/*
 * The snapshot as codec_snapshot_encode's text, its jobs in one of two
 * forms: CODEC_OBJECTS, the lean objects above; CODEC_ROWS, a
 * "job_columns" array of column names (the scalar job fields, "req.gpus"
 * and the other fields of req, "override", "alloc", "deps"; "id" first,
 * then only the columns in which some job differs from job_init(), the
 * most filled first), "job_strings", "job_time_base" (s->now), and "jobs"
 * as one array of cells per job in column order: null where the job has
 * the default, trailing nulls left out, a string cell (names, tier,
 * state) as its index in job_strings, and a time (submit_time and the
 * other unix times of a job) as its distance from job_time_base. The
 * rows form is a fifth of the text and parses several times as fast (no
 * object per job, few strings, short numbers).
 * codec_snapshot_decode reads both: "job_columns" marks the rows form.
 */
enum codec_form { CODEC_OBJECTS, CODEC_ROWS };
/* NULL and GQ_EINTERNAL in e when a number of s is not finite. */
char *codec_snapshot_text(const struct snapshot *s, enum codec_form form, size_t *len,
			  struct gq_err *e);

/*
 * Text forms, for the server's journal: a job as one line of JSON (caller
 * frees) and back; a command ({"argv"|"script", "cwd", "env"}) as text and
 * back into a struct submission (whose job part is then job_init()).
 */
char *codec_job_text(const struct job *j);
int codec_job_from_text(const char *text, struct job *out, struct gq_err *e);
char *codec_command_text(char *const *argv, const char *script, const char *cwd, char *const *env);
int codec_command_from_text(const char *text, struct submission *out, struct gq_err *e);

/* Error: {"error": {"code": "not_found", "message": "..."}}; the code is
 * err_code_name(). Decoding a body that is not such an object fills *out
 * with GQ_EINTERNAL "unexpected answer from the server" and returns -1;
 * otherwise 0. */
json_t *codec_error_encode(const struct gq_err *e);
int codec_error_decode(const json_t *v, struct gq_err *out);

#endif
