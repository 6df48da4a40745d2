/*
 * state.h - gq serve's journalled state and its transitions: what both the
 * operations (ops.c), the scheduling loop (loop.c) and the plan executor
 * (enforce.c) change, and the one way each change is made: in memory and
 * in the journal's open transaction at once, visible once committed.
 *
 * Everything here is guarded by the server's lock: call with it held. A
 * function that writes the journal does so inside the caller's transaction
 * (db_begin ... state_commit) and returns -1 with e filled when the write
 * fails; the caller then hands e to state_failed(), which rolls memory back
 * with the journal (see "when the journal cannot commit" in state.c).
 */
#ifndef GQ_SERVER_STATE_H
#define GQ_SERVER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/util.h"
#include "server/enforce.h"

struct server_config;
struct db;
struct runner;

/* Why a running job is being stopped: decides its state once it exited. */
enum stop_intent {
	STOP_NONE,
	STOP_CANCEL,  /* -> cancelled */
	STOP_REQUEUE, /* -> pending, restarts + 1 */
	STOP_TIMEOUT, /* -> timeout */
	STOP_PREEMPT, /* -> pending, restarts + 1, not_before = now + cooldown */
};

struct stop_rec {
	int64_t id;
	enum stop_intent intent;
	bool killed;
};

/* A signal a stop sends once the stop is committed (state_commit). */
struct pending_sig {
	int64_t id;
	int sig;
};

struct state {
	const struct server_config *cfg;
	struct snapshot snap; /* every job known, the node, the policy */
	struct db *db;
	struct runner *runner;
	struct enforce *enf;
	int64_t next_id, last_seq;
	int64_t manual_now; /* the clock, when cfg->manual_clock */
	int64_t created;    /* when this journal was first opened (meta "created") */
	int64_t share_prev; /* usage is accounted up to here */
	struct stop_rec *stops;
	size_t nstops, stops_cap;
	/* The journal cannot commit (state_failed): writes are refused and
	 * the scheduler only tries the journal again (state_probe). */
	bool full;
	struct gq_err full_err; /* what failed first */
	struct pending_sig *sigs;
	size_t nsigs, sigs_cap;
	int wake[2];	      /* the scheduler's wake-up pipe */
	struct notifier *ntf; /* --notify's notes (notify.h); NULL: none sent */
};

/* The server's clock: manual or the real one. */
int64_t state_now(const struct state *s);
/* What enforce's hooks work on, now. */
struct enforce_ctx state_enforce_ctx(struct state *s);
/* Makes the scheduler pass again soon. */
void state_wake(struct state *s);

/* A running job's stop intent: NULL (find) or STOP_NONE when it has none. */
struct stop_rec *state_stop_find(struct state *s, int64_t id);
void state_stop_set(struct state *s, int64_t id, enum stop_intent in);

/* Writes job j (a job of s->snap) to the journal. */
int state_persist(struct state *s, const struct job *j, struct gq_err *e);
/* Records an event (actor NULL: "scheduler"). */
int state_emit(struct state *s, int64_t job, const char *kind, enum job_state from,
	       enum job_state to, const char *reason, const char *actor, struct gq_err *e);

/*
 * Stops running job j: marks it stopping with stop_deadline = now + grace
 * (then SIGKILL, by the loop), records an event (kind "preempt" for
 * STOP_PREEMPT, else "state"; running -> stopping, reason, actor) and sends
 * sig to its process group once the transaction commits. When it exits it
 * becomes what intent says (state_finish).
 */
int state_stop(struct state *s, struct job *j, enum stop_intent intent, int sig, int64_t grace,
	       const char *actor, const char *reason, struct gq_err *e);
/* Job j's process ended with status, at unix time ended by its supervisor's
 * account (0 unknown): it becomes what its stop intent says; why, when not
 * NULL, is the event's reason. */
int state_finish(struct state *s, struct job *j, int status, int64_t ended, const char *why,
		 struct gq_err *e);
/* Job j's supervisor died without recording a status: what is left of it is
 * killed and it fails. */
int state_lose(struct state *s, struct job *j, struct gq_err *e);
/* Finished jobs are kept in memory this long after their end (s): the
 * snapshot shows the last day's (RECENT_WINDOW), and an hour more keeps a
 * job from leaving and coming back at the window's edge. Older ones live
 * in the journal only, as Slurm forgets a job MinJobAge after its end. */
#define STATE_MEMORY_WINDOW (86400 + 3600)
/* Job id, from memory or, when it left it, from the journal (put back into
 * memory until the next state_evict); NULL when there is none (e->code
 * GQ_OK) or the journal failed (e). The pointer is good until memory
 * changes. */
struct job *state_find(struct state *s, int64_t id, struct gq_err *e);
/* The jobs j waits for, into memory (state_find) where they are not: the
 * plan and dep_never read them there. For a job that becomes active. j may
 * move. */
int state_find_deps(struct state *s, const struct job *j, struct gq_err *e);
/* Drops from memory the finished jobs that ended before cut, save job keep
 * and those an active job waits for; fn, when not NULL, is called on each
 * first, and its -1 (with e) keeps that job and stops there. *dropped says
 * how many went. */
typedef int (*state_drop_fn)(void *arg, struct job *j, struct gq_err *e);
int state_drop_finished(struct state *s, int64_t cut, int64_t keep, state_drop_fn fn, void *arg,
			size_t *dropped, struct gq_err *e);
/* Drops from memory the jobs that ended before now - STATE_MEMORY_WINDOW
 * (they stay in the journal); returns how many. */
size_t state_evict(struct state *s, int64_t now);
/* Job j (STARTING, or RUNNING by a supervisor that never made its process)
 * did not run: pending again, with why as the event's reason. */
int state_unstart(struct state *s, struct job *j, const char *why, struct gq_err *e);

/* Dept GPU-hours of the running month and fair-share usage, from the last
 * account to now (a no-op when now has passed). */
void state_account(struct state *s, int64_t now);
/* Journals the usage state_account keeps. */
int state_save_usage(struct state *s, struct gq_err *e);

/* Commits, then sends the signals of the stops it journalled. */
int state_commit(struct state *s, struct gq_err *e);
/* A write failed: rolls the transaction back, memory with it
 * (state_load), and enters the full state. */
void state_failed(struct state *s, const struct gq_err *e);
/* Enters the full state (once; e is what failed first). */
void state_full_enter(struct state *s, const struct gq_err *e);
/* The answer to a write while full; what: "submissions" or "changes".
 * Returns -1. */
int state_full_refusal(struct state *s, const char *what, struct gq_err *e);
/* While full: does the journal commit again? Leaves the full state if so. */
bool state_probe(struct state *s);
/* Reading the journal failed: memory cannot be made from it. Logs and
 * exits, so that a restart tries again. */
GQ_NORETURN void state_fatal(const struct gq_err *e);

/* Memory from the journal: the jobs and their stop intents, the event
 * sequence, enforce's records, the usage. At start-up and after a failed
 * commit (state_failed); the policy, the clock, the nodes and next_id stay
 * as they are. */
int state_load(struct state *s, struct gq_err *e);

#endif
