/*
 * backend.h - how gq reaches a scheduler: one interface, one implementation
 * per scheduler (native: gq serve over HTTP, backend/native.c).
 *
 * cmd/ and tui/ only ever talk to a struct backend. Explanations and
 * predictions are not asked of the backend: the client fetches a snapshot
 * and runs core on it. A new implementation (slurm) adds one file with its
 * ops and one line in backend.c's list; nothing in cmd/ changes.
 *
 * Every operation takes and returns gq's own structs (core/ and below),
 * never text of a protocol: addresses, sockets, headers and JSON belong to
 * the implementation (native.c reads and writes bodies through wire/). An
 * operation a scheduler has no counterpart for may be NULL where said;
 * commands then say "this backend ..." and exit 5.
 *
 * Every call returns 0 or -1 with e filled; e->code says what kind of
 * failure (GQ_ENOENT no such job, GQ_EPERM not yours, GQ_EUNAVAIL cannot
 * reach the scheduler or speak its version, GQ_ECONFLICT wrong state,
 * GQ_EINVAL refused input, GQ_EINTERNAL an answer that is not what the
 * interface promises), e->msg is one line fit to print. Out-parameters are
 * written only on success, and are then the caller's to release. A struct
 * backend is used by one thread at a time.
 */
#ifndef GQ_BACKEND_H
#define GQ_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"
#include "core/job.h"
#include "core/preempt.h"
#include "core/util.h"
#include "wire/records.h"

/* One job with what the snapshot leaves out: what it runs and where. */
struct job_info {
	struct job job;
	char **argv;  /* NULL-terminated, owned; NULL when unknown; with script, its arguments */
	char *script; /* a batch script's text, owned, or NULL */
	char *cwd;    /* owned, or NULL */
	char *stdout_path; /* owned, or NULL */
	char *stderr_path; /* owned, or NULL */
};
void job_info_release(struct job_info *ji);
/* The log of ji's job read from its output file where gq runs (stream
 * "stderr": its error file, if it has one), from offset: at most 4 MiB
 * appended to out, *next the offset after it (ask again from there). A job
 * not started yet, or whose file is not there yet, has nothing (*next =
 * offset); a file that cannot be read is GQ_ENOENT naming it. For
 * schedulers whose jobs write files gq reads as the user (Slurm). */
int job_info_file_logs(const struct job_info *ji, const char *stream, int64_t offset,
		       struct buf *out, int64_t *next, struct gq_err *e);

struct backend;
struct job_update;

/* What gq history asks for (backend_ops.history). */
struct history_query {
	unsigned states;
	const char *user;
	int64_t since, until;
};

struct backend_ops {
	const char *name; /* "native", "slurm" */
	/* NULL on gq serve; else the name of the scheduler that decides
	 * ("Slurm"). It keeps none of gq serve's records (events, metrics,
	 * preemptions, reclamation): the commands built on them refuse there
	 * (backend_records). Its own view of each job (job.ext_*) is shown
	 * beside gq's. */
	const char *scheduler;
	/* true when submit reads a script's #SBATCH lines (sbatch's options,
	 * core/sbatch.h); gq submit then warns about those it cannot honour. */
	bool reads_sbatch;
	/* true when logs reads the job's own output files (job_info's
	 * stdout_path and stderr_path: one file for both, when they are the
	 * same or there is no error file) rather than streams kept apart
	 * (Slurm, and gq serve --slurm); NULL: never. */
	bool (*logs_are_files)(struct backend *b);
	/* Cheap round trip: 0 when the scheduler answers. */
	int (*ping)(struct backend *b, struct gq_err *e);
	/* The whole picture: jobs (active and recent), nodes, policy, now.
	 * out must be snapshot_init'ed; on success it holds the fetched state
	 * with jobs sorted by id. */
	int (*snapshot)(struct backend *b, struct snapshot *out, struct gq_err *e);
	/* One job, including finished ones the snapshot no longer carries. */
	int (*job)(struct backend *b, int64_t id, struct job_info *out, struct gq_err *e);
	/* On success *id is the new job's id, and *has_win whether its
	 * queue's window would stop it (then *win says when; never on a
	 * backend without windows). A request no node could ever fit fails
	 * with GQ_EINVAL and the reason in e->msg. On success, a non-empty
	 * e->msg (code GQ_OK) is the scheduler's warning about the job it
	 * created (Slurm's errors[] beside a job id). */
	int (*submit)(struct backend *b, const struct submit_req *r, int64_t *id,
		      struct window_stop *win, bool *has_win, struct gq_err *e);
	int (*cancel)(struct backend *b, int64_t id, struct gq_err *e);
	/* reason: the text to keep with the hold, NULL or "" none; a backend
	 * that cannot keep one fails with GQ_EUNAVAIL and does not hold. */
	int (*hold)(struct backend *b, int64_t id, const char *reason, struct gq_err *e);
	int (*release)(struct backend *b, int64_t id, struct gq_err *e);
	int (*requeue)(struct backend *b, int64_t id, struct gq_err *e);
	/* Admin: treat the job as `tier`; reason is recorded. clear removes it. */
	int (*override)(struct backend *b, int64_t id, enum tier tier, bool clear,
			const char *reason, struct gq_err *e);
	/* Admin: the scheduler's own numeric priority of the job (Slurm's
	 * operator priority). Optional: NULL where the scheduler has none
	 * (gq serve orders by tier and its formula). */
	int (*priority)(struct backend *b, int64_t id, int64_t prio, struct gq_err *e);
	int (*confirm)(struct backend *b, int64_t id, struct gq_err *e);
	int (*checkpoint)(struct backend *b, int64_t id, struct gq_err *e);
	/* Appends the job's log (stream "stdout" or "stderr") from offset to out;
	 * *next is the offset to ask for next time. */
	int (*logs)(struct backend *b, int64_t id, const char *stream, int64_t offset,
		    struct buf *out, int64_t *next, struct gq_err *e);
	/* Events with seq > after, in order (at most the server's page, 1000);
	 * waits up to wait_ms for the first one. Appends to out. */
	int (*events)(struct backend *b, int64_t after, int wait_ms, struct event_list *out,
		      struct gq_err *e);
	/* Metrics of the window [from, to) as the scheduler computes them
	 * (from 0 = to - 24h, to 0 = now). Optional (NULL when the backend has
	 * none). out is the caller's to release. */
	int (*stats)(struct backend *b, int64_t from, int64_t to, struct stats_report *out,
		     struct gq_err *e);
	/* Preemption records, oldest first: every one, or those in which job is
	 * victim or trigger (job != 0). Optional. */
	int (*preemptions)(struct backend *b, int64_t job, struct preempt_list *out,
			   struct gq_err *e);
	/* Finished jobs the scheduler keeps (gq history): those of q's states
	 * (bits 1 << state; 0 = every finished state) and user (NULL every
	 * user) that ended in [q->since, q->until) (0: unbounded), in id
	 * order; *out (caller frees) and *n. Optional. */
	int (*history)(struct backend *b, const struct history_query *q, struct job **out,
		       size_t *n, struct gq_err *e);
	/* The reclamation report now. Optional. */
	int (*reclaim)(struct backend *b, struct reclaim_report *out, struct gq_err *e);
	/* Manual clock: move by delta seconds (0 = just read it); *now gets the
	 * time. GQ_ECONFLICT when the server's clock is not manual. */
	int (*clock)(struct backend *b, int64_t delta, int64_t *now, struct gq_err *e);
	/* Ask the server to load a policy revision ("" = HEAD); *applied (caller
	 * frees) is the revision now in force. */
	int (*policy_apply)(struct backend *b, const char *rev, char **applied, struct gq_err *e);
	/* A short description: "gq serve at unix:/run/user/1000/gq/sock".
	 * Borrowed, valid until close. */
	const char *(*describe)(struct backend *b);
	void (*close)(struct backend *b);
	/* Changes the fields of pending job id that u->set says (wire.h's
	 * struct job_update; deps replace the list). GQ_ECONFLICT when it is
	 * no longer pending; GQ_EUNAVAIL for a field the scheduler cannot
	 * change. */
	int (*update)(struct backend *b, int64_t id, const struct job_update *u, struct gq_err *e);
};

struct backend {
	const struct backend_ops *ops;
	void *impl;
};

/* Where a backend implementation connects: the resolved configuration. */
struct backend_target {
	const char *server;	/* "unix:/PATH", "http://HOST:PORT" or "https://..." */
	const char *token_file; /* or NULL */
	const char *qos_map;	/* slurm: QOS → tier ("" = the default map) */
	const char *ca_file;	/* https: CA bundle, or NULL for the system's */
	/* slurm: the history of every user's jobs, not only the caller's
	 * (gq serve --slurm, whose snapshot every user reads) */
	bool all_users;
	/* slurm: act as this user with this token instead of the process's
	 * own account and SLURM_JWT / token_file (gq serve --slurm acting
	 * for a client); both or neither. */
	const char *user, *token;
};

/* An implementation's constructor; listed in backend.c. */
struct backend_impl {
	const char *name;
	struct backend *(*open)(const struct backend_target *t, struct gq_err *e);
};
extern const struct backend_impl backend_native;
extern const struct backend_impl backend_slurm;

/*
 * Opens the configured backend: GQ_SERVER / GQ_BACKEND from the environment,
 * else server and backend keys of $XDG_CONFIG_HOME/gq/config, else the
 * user's own gq serve on its default socket, started in the background when
 * autostart is true and nothing is listening (its log goes to
 * $XDG_STATE_HOME/gq/serve.log). NULL with e filled on failure.
 * Free with backend_close.
 */
struct backend *backend_open(bool autostart, struct gq_err *e);
/* Accepts NULL. */
void backend_close(struct backend *b);

/* 0 when b keeps gq serve's records, which `gq CMD` is built on; else -1
 * with GQ_EUNAVAIL (exit 5) and one line: "gq CMD is not available on
 * Slurm (needs gq serve in front of it)" where gq serve --slurm keeps them
 * (events, stats), why not for preemptions and reclaim, which it does not. */
int backend_records(const struct backend *b, const char *cmd, struct gq_err *e);
/* The same for a scheduler named sched (NULL: gq serve). */
int backend_records_on(const char *sched, const char *cmd, struct gq_err *e);

#endif
