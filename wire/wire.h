/*
 * wire.h - the format both ends of gq's HTTP API share (man/gq-api.7), as
 * text and gq's own structs: the one layer that knows JSON. gq serve's
 * request layer (server/api.c) encodes what it answers and decodes what it
 * is sent; the native backend (backend/native.c) does the reverse; the
 * journal keeps jobs and commands in the same text. Nothing outside wire/
 * sees a jansson type; wire/codec.h is the JSON-level part, for wire/ and
 * the tests only.
 *
 * Decoders are strict: an unknown field, a wrong type, a string too long
 * for its field or an out-of-range number is an error (GQ_EINVAL) whose
 * message names the field by its path ("job.req.gpus: expected an integer,
 * got a string"); malformed text says where ("malformed JSON at line 1,
 * column 7: ..."). They check shapes, never policy (a submission with 0
 * GPUs decodes fine; the server refuses it). Text returned is the
 * caller's to free; out of memory is fatal.
 */
#ifndef GQ_WIRE_H
#define GQ_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/records.h"
#include "core/event.h"
#include "core/job.h"
#include "core/preempt.h"
#include "core/stats.h"
#include "core/util.h"

/* The version of gq, client and server alike. */
#define GQ_VERSION "0.1.0"

/*
 * The version of the API this tree speaks, and the oldest it still
 * speaks. A request carries the client's pair (headers Gq-Api-Version and
 * Gq-Api-Oldest), every answer the server's; the two work together when
 * the ranges overlap. Bump GQ_API_VERSION when a shape changes in a way
 * the other side's strict decoders would refuse (a new field, a new
 * state); raise GQ_API_OLDEST when this side stops speaking an old one.
 */
#define GQ_API_VERSION 2 /* 2: an event's "late" */
#define GQ_API_OLDEST 1

struct wire_api {
	int oldest, current;
};
/* This side's range: GQ_API_OLDEST..GQ_API_VERSION, or N..N when the
 * environment has GQ_TEST_API_VERSION=N (a test of version skew claims
 * another version; documented in gq-api(7)). */
void wire_api_self(struct wire_api *out);
/* A peer's range from its two header values (NULL when absent: a peer
 * older than versioning, which speaks 1). -1 and GQ_EINVAL when a value is
 * not a version. */
int wire_api_parse(const char *current, const char *oldest, struct wire_api *out, struct gq_err *e);
/* 0 when self and peer share a version; otherwise -1 with GQ_EUNAVAIL and
 * one line in e saying which side to upgrade. peer_is_server says which
 * side peer is; describe names the server ("gq serve at 'unix:/...'"). */
int wire_api_check(const struct wire_api *self, const struct wire_api *peer, bool peer_is_server,
		   const char *describe, struct gq_err *e);

/* Maximum request body the server accepts and the size a client should
 * keep a submission under: argv, env and script included. */
#define CODEC_MAX_BODY (4u << 20)

/* The version string of the JSON library, for `gq version`. */
const char *wire_json_library_version(void);

/*
 * Snapshot: {"now", "tz_offset", "policy", "jobs": [...], "nodes": [...],
 * "queues": [{"name", "usage", "preempts_hour"}], "depts": [{"name",
 * "gpu_hours_month", "preempts_month"}]}. "queues"/"depts" name entries of
 * the policy; a name the policy lacks is an error.
 *
 * codec_snapshot_text writes it with its jobs in one of two forms:
 * CODEC_OBJECTS, lean job objects ("id" always, then only the fields whose
 * value differs from job_init()'s); CODEC_ROWS, a "job_columns" array of
 * column names (the scalar job fields, "req.gpus" and the other fields of
 * req, "override", "alloc", "deps"; "id" first, then only the columns in
 * which some job differs from job_init(), the most filled first),
 * "job_strings", "job_time_base" (s->now), and "jobs" as one array of
 * cells per job in column order: null where the job has the default,
 * trailing nulls left out, a string cell (names, tier, state) as its index
 * in job_strings, and a time (submit_time and the other unix times of a
 * job) as its distance from job_time_base. The rows form is a fifth of the
 * text and parses several times as fast. NULL and GQ_EINTERNAL in e when a
 * number of s is not finite.
 *
 * codec_snapshot_parse reads both forms ("job_columns" marks rows) into
 * *out (which must be snapshot_init()ed; its arrays are replaced), sorts
 * jobs by id and marks the work over its department's quota
 * (snapshot_mark_over_quota: job.over_quota is never sent); on error *out is released. Its JSON
 * tree lives in an arena of this thread dropped whole at the end (several times faster than malloc
 * for the ~30 blocks a job takes).
 */
enum codec_form { CODEC_OBJECTS, CODEC_ROWS };
char *codec_snapshot_text(const struct snapshot *s, enum codec_form form, size_t *len,
			  struct gq_err *e);
int codec_snapshot_parse(const char *text, size_t len, struct snapshot *out, struct gq_err *e);

/*
 * Job: every field of struct job; "override" is null when unset, "alloc"
 * lists {"node": N, "gpus": [i...]} objects. codec_job_write appends it to
 * b (bytes that are not UTF-8 become '?'); codec_job_write_lean the lean
 * form a snapshot carries (above); codec_jobs_text is {"jobs": [JOB, ...]}
 * with *len its length. codec_job_text is one job as one line (the
 * journal's form) and codec_job_from_text reads it back, starting from
 * job_init() (so the lean form reads back too).
 */
void codec_job_write(struct buf *b, const struct job *j);
void codec_job_write_lean(struct buf *b, const struct job *j);
char *codec_jobs_text(const struct job *jobs, size_t n, bool lean, size_t *len);
char *codec_job_text(const struct job *j);
int codec_job_from_text(const char *text, struct job *out, struct gq_err *e);
/* A job as GET /v1/jobs/ID answers it, len bytes of text. */
int wire_job_parse(const char *text, size_t len, struct job *out, struct gq_err *e);

/*
 * A submission as POST /v1/jobs takes it: the submittable job fields at the
 * top level (name, queue, tier, req, estimate, time_limit, checkpointable,
 * deps, held) and what to run: "argv" (array of strings) or "script"
 * (text) with its arguments in "args" (array of strings), "cwd" (absolute path), "env" (array of
 * "K=V"). Server-owned fields (id, user, state, ...) are rejected as unknown. The decoded form owns
 * its strings; submission_release() frees them.
 */
struct submission {
	struct job job; /* job_init() plus the fields given */
	char **argv;	/* NULL-terminated; with a script, its arguments ("args") or NULL */
	char **env;	/* NULL-terminated, never NULL after a successful decode */
	char *cwd;	/* NULL when not given */
	char *script;	/* NULL when not given */
	char *array;	/* the array's spec (array.h), NULL when not given */
	char *output;	/* -o's file name pattern (core/outpat.h), NULL: gq's log */
	char *error;	/* -e's; NULL: with the output (-o) or gq's log */
	/* The user's own notify.webhook / notify.command (gq submit
	 * --notify), NULL when not given. */
	char *notify_webhook;
	char *notify_command;
};
void submission_release(struct submission *s);
char *wire_submit_text(const struct submit_req *r);
/* The body of POST /v1/jobs (which must be an object). */
int wire_submit_parse(const char *text, size_t len, struct submission *out, struct gq_err *e);
/* The answer to a submission, {"id": N, "job": JOB} and, when its queue's
 * window would stop it, "window": WINDOW_STOP (codec.h): *id, and *win
 * with *has_win (win may be NULL: not read). A "warning" (the scheduler's
 * words about a job it did create) lands in e->msg with e->code GQ_OK. */
int wire_submitted_parse(const char *text, size_t len, int64_t *id, struct window_stop *win,
			 bool *has_win, struct gq_err *e);
/* {"id": N} with the warning when one is given (NULL, "": none). */
char *wire_submitted_text(int64_t id, const char *warning);
/* ,"window":WINDOW_STOP appended to b, for the server's answer. */
void wire_window_stop_write(struct buf *b, const struct window_stop *w);

/*
 * A command ({"argv"|"script" and "args", "cwd", "env"}), as the journal keeps it and
 * GET /v1/jobs/ID/command answers it, and back into a struct submission
 * (whose job part is then job_init()).
 */
char *codec_command_text(char *const *argv, const char *script, const char *cwd, char *const *env);
/* (With script, argv is its arguments, left out when NULL or empty.) The same from a whole
 * submission: with its output and error file patterns and its notification targets, each left out
 * when NULL. */
char *codec_command_text_sub(const struct submission *sub);
int codec_command_from_text(const char *text, struct submission *out, struct gq_err *e);

/* Events: {"events": [EVENT...], "next": SEQ}, an event being seq, time,
 * job, kind, from, to, reason, actor, and "late": true (API version 2)
 * when seen late (gq serve --slurm). wire_events_parse appends the page's
 * events to out (an empty page may come without the array). */
char *wire_events_text(const struct event *evs, size_t n, int64_t next);
int wire_events_parse(const char *text, size_t len, struct event_list *out, struct gq_err *e);
/* One event as one compact line (gq events --json-lines). */
char *wire_event_text(const struct event *ev);

/*
 * Metrics of a window, as GET /v1/stats?from=F&to=T answers them:
 * {"from", "to", "gpus", "gpu_seconds", "utilisation", "now", "jobs":
 * {STATE: N, ...}, "groups": [{"queue", "tier", "starts", "p50_wait",
 * "p95_wait", "longest_wait", "longest_job", "over_limit", "overtaken",
 * "preemptions", "would_preempt", "work_lost", "cancelled"}], "depts":
 * [{"dept", "gpu_hours", "charged"}]}, field for field struct stats_report
 * (backend.h). Parsing fills *out (release with stats_report_release).
 */
char *wire_stats_text(const struct stats_report *r);
int wire_stats_parse(const char *text, size_t len, struct stats_report *out, struct gq_err *e);

/* Preemption records, as GET /v1/preemptions answers them: {"now",
 * "preemptions": [{"id", "victim", "trigger", "reason", "queue", "dept",
 * "trigger_dept", "cross_dept", "gpus", "ran", "last_checkpoint",
 * "signalled", "saved", "released", "restarted", "work_lost", "resumed"}]},
 * field for field struct preempt_list. */
char *wire_preemptions_text(const struct preempt_list *l);
int wire_preemptions_parse(const char *text, size_t len, struct preempt_list *out,
			   struct gq_err *e);

/* The reclamation report, as GET /v1/reclaim answers it: {"now", "mode",
 * "trial_queues", "idle_after", "gpus", "jobs": [{"job", "kind", "gpus",
 * "gpu_list", "since", "for", "acts"}]}, "for" being now - since and "gpus"
 * the sum of the entries'. */
char *wire_reclaim_text(const struct reclaim_report *r);
int wire_reclaim_parse(const char *text, size_t len, struct reclaim_report *out, struct gq_err *e);

/* Policy: {"revision": "...", "keys": {"tier.P0.base": "100", ...}} with
 * every concrete key (policy_foreach). wire_revision_parse reads only its
 * "revision" (caller frees). */
char *wire_policy_text(const struct policy *p);
int wire_revision_parse(const char *text, size_t len, char **rev, struct gq_err *e);

/* GET /v1/ping: {"ok", "version", "user", "uid", "role", "now",
 * "manual_clock", "api_version", "api_oldest"}. */
struct wire_ping {
	const char *user;
	uint32_t uid;
	bool admin;
	int64_t now;
	bool manual_clock;
	struct wire_api api;
};
char *wire_ping_text(const struct wire_ping *p);

/* {"now": N}: the answer of POST /v1/clock; also read from a ping. */
char *wire_now_text(int64_t now);
int wire_now_parse(const char *text, size_t len, int64_t *now, struct gq_err *e);

/*
 * Request bodies of the job actions and admin calls. Each parse takes
 * len bytes of text; an empty body is {} where the body is optional.
 *   POST /v1/jobs/ID/ACTION: {} (wire_empty_parse; what names the action)
 *   POST /v1/jobs/ID/override: {"tier": "P0".."P2" | "clear": true,
 *       "reason": "..."}; *reason is the caller's (NULL when absent)
 *   POST /v1/clock: {"advance": S} or {"set": T}; the other is 0
 *   POST /v1/policy/apply: {"revision": "..."}; *rev is the caller's, ""
 *       when absent
 * The *_text forms make those bodies; -1 with GQ_EINVAL when a string is
 * not UTF-8.
 */
/*
 * A pending job's update, POST /v1/jobs/ID/update: {"name", "queue",
 * "tier", "estimate", "time_limit", "begin_time", "req": {"gpus",
 * "gpu_type"}, "deps"}, any of them, at least one. set says which fields
 * of job were given (the others are job_init's); deps replace the list.
 */
enum {
	UPD_NAME = 1u << 0,
	UPD_QUEUE = 1u << 1,
	UPD_TIER = 1u << 2,
	UPD_ESTIMATE = 1u << 3,
	UPD_TIME_LIMIT = 1u << 4,
	UPD_BEGIN = 1u << 5,
	UPD_NOTIFY = 1u << 6,
	UPD_GPUS = 1u << 7,
	UPD_GPU_TYPE = 1u << 8,
	UPD_DEPS = 1u << 9,
};
struct job_update {
	unsigned set;
	struct job job;
};
char *wire_update_text(const struct job_update *u);
int wire_update_parse(const char *text, size_t len, struct job_update *out, struct gq_err *e);

int wire_empty_parse(const char *text, size_t len, const char *what, struct gq_err *e);
/* POST /v1/jobs/ID/hold: {} or {"reason": "..."}; *reason is the caller's
 * (NULL when absent). wire_hold_text makes the body. */
int wire_hold_parse(const char *text, size_t len, char **reason, struct gq_err *e);
int wire_hold_text(const char *reason, char **out, struct gq_err *e);

/* gq serve --slurm's GET /v1/jobs/ID/files: where a job runs and writes, as
 * Slurm says it: {"cwd", "output", "error", "command"}, each a string or
 * null (not known, or not UTF-8). v[4] in that order, NULL: null; parse
 * fills out[4] (caller frees each). */
char *wire_job_files_text(const char *const v[4]);
int wire_job_files_parse(const char *text, size_t len, char *out[4], struct gq_err *e);
int wire_override_parse(const char *text, size_t len, enum tier *tier, bool *clear, char **reason,
			struct gq_err *e);
/* POST /v1/jobs/ID/priority (gq serve --slurm only: Slurm's operator
 * priority): {"priority": N}, N from 1 to 4294967293. */
int wire_priority_parse(const char *text, size_t len, int64_t *prio, struct gq_err *e);
char *wire_priority_text(int64_t prio);
int wire_override_text(enum tier tier, bool clear, const char *reason, char **out,
		       struct gq_err *e);
int wire_clock_parse(const char *text, size_t len, int64_t *advance, int64_t *set,
		     struct gq_err *e);
char *wire_clock_text(int64_t advance);
int wire_policy_apply_parse(const char *text, size_t len, char **rev, struct gq_err *e);
int wire_policy_apply_text(const char *rev, char **out, struct gq_err *e);

/* Error: {"error": {"code": "not_found", "message": "..."}}; the code is
 * err_code_name(). wire_error_parse fills *out from such a body and
 * returns 0; -1 when the text is not one. */
char *wire_error_text(const struct gq_err *e);
int wire_error_parse(const char *text, size_t len, struct gq_err *out);

/* Is text[len] one JSON value? (An answer whose content is not needed.) */
int wire_check(const char *text, size_t len, struct gq_err *e);

/* What gq serve POSTs to a webhook (gq-serve(8)): {"event", "time",
 * "job", "name", "user", "queue", "tier", "pending", "text"[,
 * "confirm_before"]}. */
struct webhook_note {
	const char *event; /* "reminder", "downgrade" */
	int64_t time;	   /* server clock */
	int64_t job;
	const char *name, *user, *queue, *tier;
	int64_t pending;  /* seconds pending since the cycle began */
	int64_t deadline; /* reminder: confirm before this time; 0 otherwise */
	const char *text; /* one human sentence */
};
char *wire_webhook_text(const struct webhook_note *n);

/* What a job's --notify sends, to a webhook and on a command's stdin alike
 * (gq-api(7), NOTIFICATIONS): {"event", "time", "job", "name", "user",
 * "state", "exit_code" (null until it ended), "runtime", "queue", "tier",
 * "text"}. */
struct notify_note {
	const char *event; /* "start", "end", "fail", "requeue" */
	int64_t time;	   /* server clock */
	int64_t job;
	const char *name, *user, *state, *queue, *tier;
	int exit_code; /* -1: none (not ended) */
	int64_t runtime;
	const char *text; /* one human sentence */
};
char *wire_notify_text(const struct notify_note *n);

#endif
