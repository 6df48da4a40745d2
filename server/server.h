/*
 * server.h - gq serve's state and what can be done to it: the jobs (a
 * struct snapshot kept in memory, journalled in SQLite), the scheduling
 * loop that carries out core's plan, and the operations the API offers.
 *
 * Threads: HTTP handlers call the server_* operations concurrently; one
 * committer thread batches submissions into one transaction each (group
 * commit); one scheduler thread reacts to submissions, exits, clock moves
 * and deadlines. Everything in struct server is guarded by its lock; the
 * operations take it themselves.
 *
 * Decisions are core's: the scheduler calls sched_plan() and does what the
 * plan says. This file only carries out, journals and reports.
 *
 * Operations return 0 or -1 with e filled: GQ_ENOENT no such job,
 * GQ_EPERM not the caller's job or not an admin, GQ_ECONFLICT wrong state,
 * GQ_EINVAL bad arguments, GQ_EIO the journal failed, GQ_ENOSPACE the
 * journal cannot commit for a full disk (writes are refused until it can;
 * see "when the journal cannot commit" in state.c).
 */
#ifndef GQ_SERVER_SERVER_H
#define GQ_SERVER_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/wire.h"
#include "core/event.h"
#include "core/job.h"
#include "core/preempt.h"
#include "core/stats.h"
#include "server/auth.h"
#include "server/enforce.h"
#include "server/log.h"

struct server_config {
	char **listen; /* "unix:PATH" / "HOST:PORT" */
	int nlisten;
	const char *metrics_listen; /* GET /metrics only, no authentication; NULL none */
	int64_t keep_finished; /* finished jobs are forgotten this long after they ended; 0 never */
	const char *state_dir;
	bool manual_clock;
	int gpus; /* slots, or -1 to ask nvidia-smi */
	const char *gpu_model;
	int64_t gpu_mem_mb; /* -1: detected */
	int cpus;	    /* CPUs jobs may ask for; -1: the machine's */
	int64_t mem_mb;	    /* memory jobs may ask for; -1: the machine's */
	const char *tokens_file;
	const char *admin_groups;
	const char *policy; /* policy repository spec (repo_open_server), NULL default */
	const char *exe;    /* this gq binary, for `gq __supervise` */
	enum log_level log_level;
};

/* Runs gq serve in the foreground until SIGTERM or SIGINT: locks the state
 * directory, opens the journal, re-adopts running jobs, listens. Jobs keep
 * running when it returns. */
int server_run(const struct server_config *cfg, struct gq_err *e);

struct server;

/* The server of server_run without its scheduler, HTTP front or signals,
 * for a caller of api_handle() in the same process (the API's fuzz
 * target): the state directory locked, the journal open and loaded, a
 * committer thread committing submissions. It starts no job. NULL with e
 * on failure. server_close_bare stops the committer and frees it all
 * (NULL: nothing). */
struct server *server_open_bare(const struct server_config *cfg, struct gq_err *e);
void server_close_bare(struct server *s);

/* ---- operations for the API (they lock) ---- */

struct server_info {
	int64_t now;
	bool manual_clock;
	int64_t last_seq;
};
void server_info(struct server *s, struct server_info *out);

/* A copy of the state for clients: active jobs and jobs that ended within
 * the last 24 hours. *out must be snapshot_init()ed. */
void server_snapshot(struct server *s, struct snapshot *out, int64_t *last_seq);
/* GET /v1/snapshot's body, JSON in rows form or objects (wire.h), and its
 * event seq: what clients read most and what costs most to make, so it is
 * encoded once per moment (the journal's db_changes(), the clock) and
 * form, and copied for every reader of that moment; readers who come while
 * it is made wait for it. *body is the caller's. */
int server_snapshot_text(struct server *s, bool rows, char **body, size_t *len, int64_t *seq,
			 struct gq_err *e);

struct job_filter {
	bool all;	      /* every state */
	unsigned states;      /* bit (1 << state); 0 = the active states */
	const char *user;     /* NULL = everyone */
	size_t limit;	      /* the last N; 0 = all */
	int64_t since, until; /* when not 0: only jobs that ended in [since, until) */
	/* A page: the first page matching jobs with ids above after (limit
	 * is then not used); 0 = every match at once. */
	size_t page;
	int64_t after;
};
/* Matching jobs in id order; *out (caller frees) and *n. A page that is
 * full may have more after it: *more (may be NULL) then says so. */
void server_jobs(struct server *s, const struct job_filter *f, struct job **out, size_t *n,
		 bool *more);

int server_job(struct server *s, int64_t id, struct job *out, struct gq_err *e);

/* Submits; acknowledged (returns 0) once committed. With idem (an
 * Idempotency-Key), a repeat by the same user returns the first job's id
 * with *replay = true. sub is consumed (its strings are released). */
int server_submit(struct server *s, const struct identity *who, struct submission *sub,
		  const char *idem, struct job *out, bool *replay, struct gq_err *e);

/* Whether job id's queue window would stop it, predicted on a copy of
 * the state now (core/preempt.h: preempt_window_stop): true and *out
 * filled when so. Cheap unless the job could be stopped by a window at
 * all (preempt_window_may_stop): then one prediction, out of the lock. */
bool server_window_stop(struct server *s, int64_t id, struct window_stop *out);

enum job_action {
	ACT_CANCEL,
	ACT_HOLD,
	ACT_RELEASE,
	ACT_REQUEUE,
	ACT_OVERRIDE, /* admin: tier + reason, or clear */
	ACT_CONFIRM,
	ACT_CHECKPOINT,
};
struct act_args {
	enum tier tier;
	bool clear;
	const char *reason;
};
int server_act(struct server *s, const struct identity *who, int64_t id, enum job_action a,
	       const struct act_args *args, struct job *out, struct gq_err *e);

/* Changes the fields of pending job id that u says (wire.h), checked as a
 * submission is; audited as an "update" event and journalled. GQ_ECONFLICT
 * when the job is no longer pending. */
int server_update(struct server *s, const struct identity *who, int64_t id,
		  const struct job_update *u, struct job *out, struct gq_err *e);

/* The job's command JSON (caller frees); owner or admin. */
int server_command(struct server *s, const struct identity *who, int64_t id, char **json,
		   struct gq_err *e);
/* Opens the job's log stream ("stdout"/"stderr"): its -o / -e file, else
 * gq's log of the job in the spool, always with the rights of the job's
 * user (asuser.h); owner or admin. *fd is -1 when the file does not exist
 * yet (nothing written). GQ_EPERM when the user may not read it, GQ_EIO
 * when it is not a regular file. */
int server_log_open(struct server *s, const struct identity *who, int64_t id, const char *stream,
		    int *fd, struct gq_err *e);

/* Events with seq > after (at most max), waiting up to wait_ms for the
 * first. *out (caller frees), *n; *next is the seq to ask after next. */
int server_events(struct server *s, int64_t after, int wait_ms, int max, struct event **out,
		  size_t *n, int64_t *next, struct gq_err *e);

/* Metrics of [from, to) (to 0 = now; from 0 = to - 24h), from never before
 * the server's start (*started: its journal's creation, or its first event
 * when that is earlier), so that utilisation does not count hours when no
 * server existed. */
int server_stats(struct server *s, int64_t from, int64_t to, struct stats *out, int *counts,
		 int64_t *now, int64_t *started, struct gq_err *e);

/* Preemption records (enforce.h), oldest first: every one, or those where
 * job is victim or trigger (job != 0), the last `limit` (0 = all). *out is
 * the caller's. */
void server_preemptions(struct server *s, int64_t job, size_t limit, struct preempt_record **out,
			size_t *n, int64_t *now);

/* The reclamation report now (enforce.h); *out is the caller's. The policy
 * in force is copied to *p for its reclaim.* keys. */
void server_reclaim(struct server *s, struct reclaim_entry **out, size_t *n, int64_t *now,
		    struct policy *p);

/* Manual clock (admin): advance by delta >= 0, or set to `set` (>= now)
 * when set != 0. *now is the new time. GQ_ECONFLICT without
 * --manual-clock. */
int server_clock(struct server *s, const struct identity *who, int64_t delta, int64_t set,
		 int64_t *now, struct gq_err *e);

void server_policy(struct server *s, struct policy *out);
/* Admin: load revision rev ("" = the followed branch) and put it in
 * force; *out gets it. A revision that does not validate is refused
 * (GQ_EINVAL) and recorded as an event; the policy in force stays. */
int server_policy_apply(struct server *s, const struct identity *who, const char *rev,
			struct policy *out, struct gq_err *e);

/* The tokens / peer-credential checker, for the request layer. */
const struct auth *server_auth(struct server *s);

/* Creates state directory dir (mode, its parents 0755) when absent and
 * locks it for this process (*lockfd, held until exit), as gq serve does:
 * GQ_ECONFLICT when another gq serve holds it. */
int server_state_dir_open(const char *dir, unsigned mode, int *lockfd, struct gq_err *e);

#endif
