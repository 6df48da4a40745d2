/*
 * codec.h - the JSON level of wire/ (wire.h): jansson values <-> gq's
 * structs, for wire/'s own files and the tests. Nothing else includes it;
 * `make layers` checks that no object outside wire/ uses jansson.
 *
 * Decoders follow wire.h's rules. A field that is absent keeps the value it
 * had before the call (the decoders start from job_init() / zero / defaults
 * as said). Encoders return a new jansson reference (json_decref() it);
 * they never fail (out of memory is fatal).
 */
#ifndef GQ_WIRE_CODEC_H
#define GQ_WIRE_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "wire/wire.h"
#include "core/event.h"
#include "core/job.h"
#include "core/preempt.h"
#include "core/stats.h"
#include "core/util.h"

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
 * The arena behind codec_snapshot_parse (wire.h), for other large, short-lived
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

json_t *codec_submit_encode(const struct submit_req *r);
int codec_submit_decode(const json_t *v, struct submission *out, struct gq_err *e);

/* The shapes of wire.h's stats, preemptions and reclaim texts. Decoding
 * fills *out, whose arrays become the caller's; on error nothing is kept. */
json_t *codec_stats_encode(const struct stats *st, const int *counts, int64_t now);
int codec_stats_decode(const json_t *v, struct stats_report *out, struct gq_err *e);
json_t *codec_preemptions_encode(const struct preempt_list *l);
int codec_preemptions_decode(const json_t *v, struct preempt_list *out, struct gq_err *e);
json_t *codec_reclaim_encode(const struct reclaim_report *r);
int codec_reclaim_decode(const json_t *v, struct reclaim_report *out, struct gq_err *e);

/*
 * A window's stop of a job, said at its submit (core/preempt.h's
 * struct window_stop): {"queue", "action": "requeue", "window": "HH:MM-HH:MM"
 * (the queue's pause, local time of tz_offset), "tz_offset", "now",
 * "start", "stop", "end", "limit_end" (0: no time limit), "expected"}.
 */
json_t *codec_window_stop_encode(const struct window_stop *w);
int codec_window_stop_decode(const json_t *v, struct window_stop *out, struct gq_err *e);

/* Error: {"error": {"code": "not_found", "message": "..."}}; the code is
 * err_code_name(). Decoding a body that is not such an object, or whose code
 * is "ok", fills *out with GQ_EINTERNAL "unexpected answer from the server"
 * and returns -1; otherwise 0. */
json_t *codec_error_encode(const struct gq_err *e);
int codec_error_decode(const json_t *v, struct gq_err *out);

#endif
