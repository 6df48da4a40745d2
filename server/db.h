/*
 * db.h - gq serve's durable state in SQLite (WAL mode, synchronous=FULL):
 * jobs, what they run, events, a few named values (the manual clock,
 * the policy revision in force), the preemption records, and what
 * enforce.c must remember across a restart (reclamation watches, observe
 * mode's would-preemptions).
 *
 * This file is the only sqlite user. It stores and returns text: the job
 * and command JSON are made and read by the caller (state.c through the
 * codec), so the schema does not change when a job gains a field.
 *
 * A struct db is not thread-safe; the server serialises every use under its
 * lock. Every function returns 0 / -1 with e filled (GQ_EIO, the
 * message naming the database file and SQLite's error; GQ_ENOSPACE when
 * the disk is full).
 */
#ifndef GQ_SERVER_DB_H
#define GQ_SERVER_DB_H

#include <stdint.h>

#include "core/event.h"
#include "core/polldiff.h"
#include "core/util.h"
#include "server/enforce.h"

struct db;

/*
 * The journal's schema: what its rows hold (the job JSON's fields
 * included, which an older gq's codec refuses). Raise it with any change
 * an older gq could not read; a journal keeps the highest schema that
 * wrote it (meta "schema"; none before schemas were kept, read as any).
 */
#define DB_SCHEMA 1

/* Opens (creating when absent) the database at path. One written by a
 * newer gq (schema above DB_SCHEMA) is refused with GQ_EIO and left as
 * it was. */
int db_open(const char *path, struct db **out, struct gq_err *e);
void db_close(struct db *db);

/* A transaction around a batch of writes: one fsync per commit. After a
 * failed write or commit the caller rolls back (SQLite may have done so
 * already; db_rollback then does nothing). */
int db_begin(struct db *db, struct gq_err *e);
int db_commit(struct db *db, struct gq_err *e);
/* How long the commits that succeeded took; borrowed while db is open, read
 * under the same lock as every other use of db. */
struct prom_hist;
const struct prom_hist *db_commit_times(const struct db *db);
/* How many commits and rollbacks there were: what the server's memory is
 * made of changes only with it (the snapshot cache's key, ops.c). */
uint64_t db_changes(const struct db *db);
void db_rollback(struct db *db);

/* Inserts a new job. idem may be NULL (no Idempotency-Key). */
/* Forgets job id (gq serve --keep-finished); its events stay. */
int db_job_delete(struct db *db, int64_t id, struct gq_err *e);
int db_job_insert(struct db *db, int64_t id, uint32_t uid, const char *idem, const char *job,
		  const char *command, struct gq_err *e);
/* The id of uid's job submitted with Idempotency-Key idem: 1 and *id when
 * there is one, 0 when not, -1 on failure. Sees the current transaction. */
int db_job_by_idem(struct db *db, uint32_t uid, const char *idem, int64_t *id, struct gq_err *e);
/* Replaces the job's JSON and its stop intent ("" none). */
int db_job_update(struct db *db, int64_t id, const char *job, const char *intent, struct gq_err *e);
/* The command JSON of job id; *out (caller frees) on success; GQ_ENOENT. */
int db_job_command(struct db *db, int64_t id, char **out, struct gq_err *e);

/* The walks below call fn for each job, in no particular order (through
 * an index); fn's -1 stops the walk and is returned (fn fills e). The
 * strings are valid during the call. */
typedef int (*db_job_fn)(void *arg, int64_t id, uint32_t uid, const char *idem, const char *job,
			 const char *intent, struct gq_err *e);
/* The jobs memory holds at start: active ones, and those that ended at or
 * after ended_since. */
int db_jobs_load(struct db *db, int64_t ended_since, db_job_fn fn, void *arg, struct gq_err *e);
/* The jobs that ended in [from, to). */
int db_jobs_ended(struct db *db, int64_t from, int64_t to, db_job_fn fn, void *arg,
		  struct gq_err *e);
/* The tasks of array array_id. */
int db_jobs_of_array(struct db *db, int64_t array_id, db_job_fn fn, void *arg, struct gq_err *e);
/* Job id, when there is one (fn is not called otherwise). */
int db_job_get(struct db *db, int64_t id, db_job_fn fn, void *arg, struct gq_err *e);
/* At most max jobs with ids above after, in id order (a page). */
int db_jobs_from(struct db *db, int64_t after, int max, db_job_fn fn, void *arg, struct gq_err *e);
/* A page of those that ended in [from, to): at most max, ids above after,
 * in id order. */
int db_jobs_ended_from(struct db *db, int64_t from, int64_t to, int64_t after, int max,
		       db_job_fn fn, void *arg, struct gq_err *e);
/* The highest job id ever given that the journal still holds, 0 none. */
int db_job_max_id(struct db *db, int64_t *out, struct gq_err *e);

int db_event_insert(struct db *db, const struct event *ev, struct gq_err *e);
/* Up to max events with seq > after, in order, into out[] (caller's array
 * of max); *n written. */
int db_events_after(struct db *db, int64_t after, struct event *out, int max, int *n,
		    struct gq_err *e);
/* The highest event seq (0 when none). */
int db_event_last(struct db *db, int64_t *seq, struct gq_err *e);

/* gq serve --slurm: the last known state of each job of the cluster
 * (core/polldiff.h); put inserts or replaces k->id; load gives every one
 * in id order into *out (caller frees; NULL when none). */
int db_known_put(struct db *db, const struct pknown *k, struct gq_err *e);
int db_known_load(struct db *db, struct pknown **out, size_t *n, struct gq_err *e);

/* Named values. db_meta_get writes "" when the key is absent. */
int db_meta_get(struct db *db, const char *key, char *out, size_t size, struct gq_err *e);
int db_meta_set(struct db *db, const char *key, const char *value, struct gq_err *e);

/* Preemption records (enforce.h): insert or replace record r->id; load
 * every record in id order into *out (caller frees; NULL when none). */
int db_preempt_put(struct db *db, const struct preempt_record *r, struct gq_err *e);
int db_preempts_load(struct db *db, struct preempt_record **out, size_t *n, struct gq_err *e);

/* The reclamation watch of a running job (enforce.c): its logs' size
 * (stdout + stderr) when last saved and its last sign of progress. */
struct db_watch {
	int64_t job, log_size, progress;
};
/* Insert or replace job w->job's watch; delete job's (none: no error);
 * load every watch in job order into *out (caller frees; NULL when none). */
int db_watch_put(struct db *db, const struct db_watch *w, struct gq_err *e);
int db_watch_del(struct db *db, int64_t job, struct gq_err *e);
int db_watches_load(struct db *db, struct db_watch **out, size_t *n, struct gq_err *e);

/* A would-preemption observe mode recorded: victim, the start time of the
 * victim's run, trigger (0 for a window). put ignores one already there,
 * del one that is not; load as db_watches_load. */
struct db_observed {
	int64_t victim, start, trigger;
};
int db_observed_put(struct db *db, const struct db_observed *o, struct gq_err *e);
int db_observed_del(struct db *db, const struct db_observed *o, struct gq_err *e);
int db_observed_load(struct db *db, struct db_observed **out, size_t *n, struct gq_err *e);

/* A notification not yet delivered (server/notify.c): its id (the
 * event's seq x 4 + its target's number), the job and its owner, kind
 * "webhook" (target a URL) or "command" (target a shell command line run
 * as uid:gid with env, "K=V" lines), and the JSON body. Written in the
 * transaction of the change it tells of, deleted once delivered or given
 * up; what is left at a restart is sent again. */
struct db_note {
	int64_t id, job;
	uint32_t uid, gid;
	char *kind, *target, *body, *env;
};
int db_note_put(struct db *db, const struct db_note *n, struct gq_err *e);
int db_note_del(struct db *db, int64_t id, struct gq_err *e);
/* Every note in id order into *out; free with db_notes_free. */
int db_notes_load(struct db *db, struct db_note **out, size_t *n, struct gq_err *e);
void db_notes_free(struct db_note *v, size_t n);

#endif
