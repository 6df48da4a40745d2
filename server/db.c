/*
 * db.c - the SQLite journal of gq serve: the only file that includes
 * sqlite3.h; sqlite_fail() turns SQLite's errors into ours.
 *
 * Statements are prepared once at open and reused, since the submit path
 * runs them thousands of times a second.
 */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/mono.h"
#include "wire/prom.h"

enum {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_JOB_INSERT,
	ST_JOB_UPDATE,
	ST_JOB_BY_IDEM,
	ST_JOB_COMMAND,
	ST_JOBS_LOAD,
	ST_JOB_GET,
	ST_JOB_MAX,
	ST_JOBS_ENDED,
	ST_JOBS_OF_ARRAY,
	ST_JOBS_FROM,
	ST_JOBS_ENDED_FROM,
	ST_EVENT_INSERT,
	ST_EVENTS_AFTER,
	ST_EVENT_LAST,
	ST_META_GET,
	ST_META_SET,
	ST_PREEMPT_PUT,
	ST_PREEMPTS_LOAD,
	ST_WATCH_PUT,
	ST_WATCH_DEL,
	ST_WATCHES_LOAD,
	ST_OBSERVED_PUT,
	ST_OBSERVED_DEL,
	ST_OBSERVED_LOAD,
	ST_JOB_DELETE,
	ST_NOTE_PUT,
	ST_NOTE_DEL,
	ST_NOTES_LOAD,
	ST_KNOWN_PUT,
	ST_KNOWN_LOAD,
	ST_COUNT
};

static const char *const sql_text[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_JOB_INSERT] = "INSERT INTO jobs(id, uid, idem, job, command, intent) "
		      "VALUES (?, ?, ?, ?, ?, '')",
    [ST_JOB_UPDATE] = "UPDATE jobs SET job = ?, intent = ? WHERE id = ?",
    [ST_JOB_BY_IDEM] = "SELECT id FROM jobs WHERE uid = ? AND idem = ?",
    [ST_JOB_COMMAND] = "SELECT command FROM jobs WHERE id = ?",
    /* jobs_end and jobs_array index the expressions these use; with no
     * ORDER BY (the callers sort), SQLite searches the index rather than
     * scan the table in id order. An active job's end_time is 0. */
    [ST_JOBS_LOAD] = "SELECT id, uid, idem, job, intent FROM jobs WHERE json_extract(job, "
		     "'$.end_time') = 0 OR json_extract(job, '$.end_time') >= ?",
    [ST_JOB_GET] = "SELECT id, uid, idem, job, intent FROM jobs WHERE id = ?",
    [ST_JOB_MAX] = "SELECT coalesce(max(id), 0) FROM jobs",
    [ST_JOBS_ENDED] = "SELECT id, uid, idem, job, intent FROM jobs WHERE json_extract(job, "
		      "'$.end_time') >= ? AND json_extract(job, '$.end_time') < ?",
    [ST_JOBS_OF_ARRAY] = "SELECT id, uid, idem, job, intent FROM jobs WHERE json_extract(job, "
			 "'$.array_id') = ?",
    /* A page of GET /v1/jobs: the primary key, in order, from a cursor. */
    [ST_JOBS_FROM] = "SELECT id, uid, idem, job, intent FROM jobs WHERE id > ? ORDER BY id LIMIT ?",
    /* A page of a window: the ids from jobs_end alone (the index holds
     * them), sorted, then their rows. The planner would rather walk the
     * primary key from the cursor, which reads the whole journal before a
     * recent window (5.5 s for a day at 200,000 jobs, 20 ms this way). */
    [ST_JOBS_ENDED_FROM] = "SELECT id, uid, idem, job, intent FROM jobs WHERE id IN (SELECT id "
			   "FROM jobs INDEXED BY jobs_end WHERE json_extract(job, '$.end_time') "
			   ">= ? AND json_extract(job, '$.end_time') < ? AND id > ? ORDER BY id "
			   "LIMIT ?) ORDER BY id",
    [ST_EVENT_INSERT] = "INSERT INTO events(seq, time, job, kind, from_state, to_state, "
			"reason, actor, late) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_EVENTS_AFTER] = "SELECT seq, time, job, kind, from_state, to_state, reason, actor, late "
			"FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
    [ST_EVENT_LAST] = "SELECT coalesce(max(seq), 0) FROM events",
    [ST_META_GET] = "SELECT v FROM meta WHERE k = ?",
    [ST_META_SET] = "INSERT INTO meta(k, v) VALUES (?, ?) "
		    "ON CONFLICT(k) DO UPDATE SET v = excluded.v",
    [ST_PREEMPT_PUT] = "INSERT OR REPLACE INTO preemptions(id, victim, trigger_job, reason, queue,"
		       " dept, trigger_dept, cross_dept, gpus, ran, last_checkpoint, signalled,"
		       " saved, released, restarted, work_lost, resumed)"
		       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_PREEMPTS_LOAD] = "SELECT id, victim, trigger_job, reason, queue, dept, trigger_dept,"
			 " cross_dept, gpus, ran, last_checkpoint, signalled, saved, released,"
			 " restarted, work_lost, resumed FROM preemptions ORDER BY id",
    [ST_WATCH_PUT] = "INSERT OR REPLACE INTO watches(job, log_size, progress) VALUES (?, ?, ?)",
    [ST_WATCH_DEL] = "DELETE FROM watches WHERE job = ?",
    [ST_WATCHES_LOAD] = "SELECT job, log_size, progress FROM watches ORDER BY job",
    [ST_OBSERVED_PUT] =
	"INSERT OR IGNORE INTO observed(victim, start, trigger_job) VALUES (?, ?, ?)",
    [ST_OBSERVED_DEL] = "DELETE FROM observed WHERE victim = ? AND start = ? AND trigger_job = ?",
    [ST_OBSERVED_LOAD] = "SELECT victim, start, trigger_job FROM observed"
			 " ORDER BY victim, start, trigger_job",
    [ST_JOB_DELETE] = "DELETE FROM jobs WHERE id = ?",
    [ST_NOTE_PUT] = "INSERT OR REPLACE INTO notes(id, job, uid, gid, kind, target, body, env)"
		    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_NOTE_DEL] = "DELETE FROM notes WHERE id = ?",
    [ST_NOTES_LOAD] = "SELECT id, job, uid, gid, kind, target, body, env FROM notes ORDER BY id",
    [ST_KNOWN_PUT] = "INSERT OR REPLACE INTO known(id, name, user, queue, dept, qos, tier, state,"
		     " held, gone, restarts, gpus, exit_status, prio, submit, start, end_time)"
		     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_KNOWN_LOAD] = "SELECT id, name, user, queue, dept, qos, tier, state, held, gone,"
		      " restarts, gpus, exit_status, prio, submit, start, end_time FROM known"
		      " ORDER BY id",
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, uid INTEGER NOT NULL,"
    " idem TEXT, job TEXT NOT NULL, command TEXT NOT NULL, intent TEXT NOT NULL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS jobs_idem ON jobs(uid, idem) WHERE idem IS NOT NULL;"
    /* Finished jobs leave memory a day after their end (state.h): the
     * journal finds them by end for the start-up load and gq history. */
    "CREATE INDEX IF NOT EXISTS jobs_end ON jobs(json_extract(job, '$.end_time'));"
    "CREATE INDEX IF NOT EXISTS jobs_array ON jobs(json_extract(job, '$.array_id'));"
    "CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY, time INTEGER NOT NULL,"
    " job INTEGER NOT NULL, kind TEXT NOT NULL, from_state INTEGER NOT NULL,"
    " to_state INTEGER NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS preemptions(id INTEGER PRIMARY KEY, victim INTEGER NOT NULL,"
    " trigger_job INTEGER NOT NULL, reason TEXT NOT NULL, queue TEXT NOT NULL,"
    " dept TEXT NOT NULL, trigger_dept TEXT NOT NULL, cross_dept INTEGER NOT NULL,"
    " gpus INTEGER NOT NULL, ran INTEGER NOT NULL, last_checkpoint INTEGER NOT NULL,"
    " signalled INTEGER NOT NULL, saved INTEGER NOT NULL, released INTEGER NOT NULL,"
    " restarted INTEGER NOT NULL, work_lost REAL NOT NULL, resumed INTEGER NOT NULL);"
    /* Added after the first release: CREATE ... IF NOT EXISTS gives an
     * older database these tables, empty, at its next open. */
    "CREATE TABLE IF NOT EXISTS watches(job INTEGER PRIMARY KEY, log_size INTEGER NOT NULL,"
    " progress INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS observed(victim INTEGER NOT NULL, start INTEGER NOT NULL,"
    " trigger_job INTEGER NOT NULL, PRIMARY KEY(victim, start, trigger_job));"
    "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, job INTEGER NOT NULL,"
    " uid INTEGER NOT NULL, gid INTEGER NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL,"
    " body TEXT NOT NULL, env TEXT NOT NULL);"
    /* gq serve --slurm's: the last known state of each job of the cluster. */
    "CREATE TABLE IF NOT EXISTS known(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
    " user TEXT NOT NULL, queue TEXT NOT NULL, dept TEXT NOT NULL, qos TEXT NOT NULL,"
    " tier INTEGER NOT NULL, state INTEGER NOT NULL, held INTEGER NOT NULL,"
    " gone INTEGER NOT NULL, restarts INTEGER NOT NULL, gpus INTEGER NOT NULL,"
    " exit_status INTEGER NOT NULL, prio INTEGER NOT NULL, submit INTEGER NOT NULL,"
    " start INTEGER NOT NULL, end_time INTEGER NOT NULL);";

/* Columns added after the first release, each to a table of the schema:
 * added to an older database at its next open. */
static const char *const added_columns[][2] = {
    {"events", "late INTEGER NOT NULL DEFAULT 0"},
};

struct db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *st[ST_COUNT];
	struct prom_hist commits; /* how long each COMMIT took (its fsync), seconds */
	/* The database and its WAL as opened (db_files_same): a file removed
	 * or replaced underneath leaves SQLite writing to a file nobody will
	 * read again. */
	dev_t dev[2];
	ino_t ino[2];
	bool broken;
	uint64_t changes; /* commits and rollbacks so far (db_changes) */
};

static const char *const db_file_sfx[2] = {"", "-wal"};

/* Are the journal's files at their paths still the ones SQLite writes?
 * When not, the journal is broken for good (until a restart): what is in
 * the WAL SQLite has open is copied into the database file, and every
 * write is refused with one line saying what happened. */
static int db_files_same(struct db *db, struct gq_err *e)
{
	for (int i = 0; i < 2 && !db->broken; i++) {
		char *f = xasprintf("%s%s", db->path, db_file_sfx[i]);
		struct stat st;
		if (stat(f, &st) < 0 || st.st_dev != db->dev[i] || st.st_ino != db->ino[i]) {
			db->broken = true;
			int nlog = 0, ncopied = 0;
			int rc = sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_FULL,
							   &nlog, &ncopied);
			err_set(
			    e, GQ_EIO,
			    "'%s' was removed or replaced while gq serve ran; writes are "
			    "refused until gq serve is restarted (%s)",
			    f,
			    rc == SQLITE_OK && ncopied == nlog
				? "everything acknowledged is in the database file"
				: "what was acknowledged since the last checkpoint may be lost");
			free(f);
			return -1;
		}
		free(f);
	}
	if (db->broken)
		return err_set(e, GQ_EIO,
			       "the journal's files were removed or replaced while gq serve ran; "
			       "writes are refused until gq serve is restarted");
	return 0;
}

/* A full disk is GQ_ENOSPACE, not GQ_EIO: the server refuses writes until
 * space returns instead of treating it as a broken journal. SQLite says
 * SQLITE_FULL, or an I/O error whose errno is ENOSPC (a failed write of the
 * WAL) or EDQUOT. */
static int sqlite_fail(struct db *db, const char *what, struct gq_err *e)
{
	int rc = sqlite3_errcode(db->h), sys = sqlite3_system_errno(db->h);
	bool full = rc == SQLITE_FULL || (rc == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT));
	return err_set(e, full ? GQ_ENOSPACE : GQ_EIO, "state database '%s': %s: %s", db->path,
		       what, sqlite3_errmsg(db->h));
}

/* Refuses a journal of a newer schema (before anything changes it) and
 * marks an older one, or one from before schemas, as of DB_SCHEMA: the
 * columns and fields it lacks are optional to this gq. */
static int schema_check(struct db *db, struct gq_err *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->h, "SELECT v FROM meta WHERE k = 'schema'", -1, &st, NULL) !=
	    SQLITE_OK)
		return sqlite_fail(db, "schema", e);
	int rc = sqlite3_step(st);
	long long have = 0;
	bool bad = false;
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		char *end = NULL;
		errno = 0;
		have = v ? strtoll(v, &end, 10) : 0;
		bad = !v || end == v || *end || errno || have < 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sqlite_fail(db, "schema", e);
	if (bad)
		return err_set(e, GQ_EIO,
			       "the journal '%s' has a schema gq cannot read (meta 'schema' is not "
			       "a positive number)",
			       db->path);
	if (have > DB_SCHEMA)
		return err_set(e, GQ_EIO,
			       "the journal '%s' was written by a newer gq (schema %lld); this gq "
			       "reads up to %d",
			       db->path, have, DB_SCHEMA);
	if (have == DB_SCHEMA)
		return 0;
	char *sql = xasprintf("INSERT INTO meta(k, v) VALUES ('schema', '%d') "
			      "ON CONFLICT(k) DO UPDATE SET v = excluded.v",
			      DB_SCHEMA);
	rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : sqlite_fail(db, "schema", e);
}

int db_open(const char *path, struct db **out, struct gq_err *e)
{
	struct db *db = xcalloc(1, sizeof(*db));
	prom_hist_init_seconds(&db->commits);
	db->path = xstrdup(path);
	/* The journal holds every job's command and environment: its files
	 * are the server's alone. SQLite makes -wal and -shm with the mode of
	 * the database; those of a gq that made them 0644 are set right. */
	static const char *const sfx[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char *f = xasprintf("%s%s", path, sfx[i]);
		int fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (i ? 0 : O_CREAT), 0600);
		int err = fd < 0 ? errno : fchmod(fd, 0600) < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (err && !(i && err == ENOENT)) {
			err_set(e, GQ_EIO, "state database '%s': cannot make it private: %s", f,
				strerror(err));
			free(f);
			goto fail;
		}
		free(f);
	}
	if (sqlite3_open_v2(path, &db->h,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		if (!db->h) {
			err_set(e, GQ_EIO, "state database '%s': cannot open", path);
			goto fail;
		}
		sqlite_fail(db, "open", e);
		goto fail;
	}
	sqlite3_busy_timeout(db->h, 5000);
	/* WAL + FULL: a commit is on disk when COMMIT returns, with one
	 * fsync of the log; readers never block the writer. The log is cut
	 * back to 64 MiB after each checkpoint: a burst (a prune of 200,000
	 * jobs) does not leave it at its peak size for good. */
	if (sqlite3_exec(
		db->h,
		"PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF; "
		"PRAGMA journal_size_limit=67108864;",
		NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db->h, schema, NULL, NULL, NULL) != SQLITE_OK) {
		sqlite_fail(db, "schema", e);
		goto fail;
	}
	if (schema_check(db, e) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(added_columns) / sizeof(added_columns[0]); i++) {
		char *sql = xasprintf("ALTER TABLE %s ADD COLUMN %s", added_columns[i][0],
				      added_columns[i][1]);
		int arc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
		free(sql);
		if (arc != SQLITE_OK && !strstr(sqlite3_errmsg(db->h), "duplicate column")) {
			sqlite_fail(db, "schema", e);
			goto fail;
		}
	}
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(db->h, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &db->st[i], NULL) != SQLITE_OK) {
			sqlite_fail(db, "prepare", e);
			goto fail;
		}
	}
	/* The schema's statements made both files (WAL mode). */
	for (int i = 0; i < 2; i++) {
		char *f = xasprintf("%s%s", path, db_file_sfx[i]);
		struct stat st;
		int src = stat(f, &st);
		free(f);
		if (src < 0) {
			err_set(e, GQ_EIO, "state database '%s%s': %s", path, db_file_sfx[i],
				strerror(errno));
			goto fail;
		}
		db->dev[i] = st.st_dev;
		db->ino[i] = st.st_ino;
	}
	*out = db;
	return 0;
fail:
	db_close(db);
	return -1;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

/* Runs a statement that returns no rows, then resets it. */
static int step_done(struct db *db, sqlite3_stmt *st, const char *what, struct gq_err *e)
{
	int rc = sqlite3_step(st);
	int ret = 0;
	if (rc != SQLITE_DONE)
		ret = sqlite_fail(db, what, e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int db_begin(struct db *db, struct gq_err *e)
{
	if (db_files_same(db, e) < 0)
		return -1;
	return step_done(db, db->st[ST_BEGIN], "begin", e);
}

int db_commit(struct db *db, struct gq_err *e)
{
	double t0 = mono_s();
	int rc = step_done(db, db->st[ST_COMMIT], "commit", e);
	db->changes++;
	if (rc == 0)
		prom_hist_observe(&db->commits, mono_s() - t0);
	return rc;
}

const struct prom_hist *db_commit_times(const struct db *db)
{
	return &db->commits;
}

uint64_t db_changes(const struct db *db)
{
	return db->changes;
}

void db_rollback(struct db *db)
{
	db->changes++;
	if (sqlite3_get_autocommit(db->h))
		return;
	step_done(db, db->st[ST_ROLLBACK], "rollback", NULL);
}

int db_job_delete(struct db *db, int64_t id, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_DELETE];
	sqlite3_bind_int64(st, 1, id);
	return step_done(db, st, "delete job", e);
}

int db_job_insert(struct db *db, int64_t id, uint32_t uid, const char *idem, const char *job,
		  const char *command, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_INSERT];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, uid);
	if (idem)
		sqlite3_bind_text(st, 3, idem, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, command, -1, SQLITE_STATIC);
	return step_done(db, st, "insert job", e);
}

int db_job_update(struct db *db, int64_t id, const char *job, const char *intent, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_UPDATE];
	sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, intent ? intent : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	return step_done(db, st, "update job", e);
}

int db_job_by_idem(struct db *db, uint32_t uid, const char *idem, int64_t *id, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_BY_IDEM];
	sqlite3_bind_int64(st, 1, uid);
	sqlite3_bind_text(st, 2, idem, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st), ret = 0;
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = sqlite_fail(db, "find idempotency key", e);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

int db_job_command(struct db *db, int64_t id, char **out, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_COMMAND];
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st), ret = 0;
	if (rc == SQLITE_ROW)
		*out = xstrdup(col_text(st, 0));
	else if (rc == SQLITE_DONE)
		ret = err_set(e, GQ_ENOENT, "no job '%lld' in the state database", (long long)id);
	else
		ret = sqlite_fail(db, "read command", e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

/* Steps st (bound, reset here) and calls fn for each row. */
static int jobs_walk(struct db *db, sqlite3_stmt *st, db_job_fn fn, void *arg, struct gq_err *e)
{
	int rc, ret = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *idem =
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : col_text(st, 2);
		if (fn(arg, sqlite3_column_int64(st, 0), (uint32_t)sqlite3_column_int64(st, 1),
		       idem, col_text(st, 3), col_text(st, 4), e) < 0) {
			ret = -1;
			break;
		}
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = sqlite_fail(db, "read jobs", e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int db_jobs_load(struct db *db, int64_t ended_since, db_job_fn fn, void *arg, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOBS_LOAD];
	sqlite3_bind_int64(st, 1, ended_since);
	return jobs_walk(db, st, fn, arg, e);
}

int db_jobs_ended(struct db *db, int64_t from, int64_t to, db_job_fn fn, void *arg,
		  struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOBS_ENDED];
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	return jobs_walk(db, st, fn, arg, e);
}

int db_jobs_of_array(struct db *db, int64_t array_id, db_job_fn fn, void *arg, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOBS_OF_ARRAY];
	sqlite3_bind_int64(st, 1, array_id);
	return jobs_walk(db, st, fn, arg, e);
}

int db_job_get(struct db *db, int64_t id, db_job_fn fn, void *arg, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOB_GET];
	sqlite3_bind_int64(st, 1, id);
	return jobs_walk(db, st, fn, arg, e);
}

int db_jobs_from(struct db *db, int64_t after, int max, db_job_fn fn, void *arg, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOBS_FROM];
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, max);
	return jobs_walk(db, st, fn, arg, e);
}

/* Steps st, a query of one integer, into *out; resets it. */
static int one_int64(struct db *db, sqlite3_stmt *st, int64_t *out, struct gq_err *e)
{
	int ret = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		ret = sqlite_fail(db, "read jobs", e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int db_jobs_ended_from(struct db *db, int64_t from, int64_t to, int64_t after, int max,
		       db_job_fn fn, void *arg, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_JOBS_ENDED_FROM];
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int(st, 4, max);
	return jobs_walk(db, st, fn, arg, e);
}

int db_job_max_id(struct db *db, int64_t *out, struct gq_err *e)
{
	return one_int64(db, db->st[ST_JOB_MAX], out, e);
}

int db_event_insert(struct db *db, const struct event *ev, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_EVENT_INSERT];
	sqlite3_bind_int64(st, 1, ev->seq);
	sqlite3_bind_int64(st, 2, ev->time);
	sqlite3_bind_int64(st, 3, ev->job);
	sqlite3_bind_text(st, 4, ev->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, (int)ev->from);
	sqlite3_bind_int(st, 6, (int)ev->to);
	sqlite3_bind_text(st, 7, ev->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, ev->actor, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, ev->late ? 1 : 0);
	return step_done(db, st, "insert event", e);
}

int db_events_after(struct db *db, int64_t after, struct event *out, int max, int *n,
		    struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_EVENTS_AFTER];
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, max);
	int rc, cnt = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && cnt < max) {
		struct event *ev = &out[cnt++];
		memset(ev, 0, sizeof(*ev));
		ev->seq = sqlite3_column_int64(st, 0);
		ev->time = sqlite3_column_int64(st, 1);
		ev->job = sqlite3_column_int64(st, 2);
		STR_COPY(ev->kind, col_text(st, 3));
		int f = sqlite3_column_int(st, 4), t = sqlite3_column_int(st, 5);
		ev->from = (unsigned)f < JOB_STATE_COUNT ? (enum job_state)f : JOB_PENDING;
		ev->to = (unsigned)t < JOB_STATE_COUNT ? (enum job_state)t : JOB_PENDING;
		STR_COPY(ev->reason, col_text(st, 6));
		STR_COPY(ev->actor, col_text(st, 7));
		ev->late = sqlite3_column_int(st, 8) != 0;
	}
	int ret = 0;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = sqlite_fail(db, "read events", e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (ret == 0)
		*n = cnt;
	return ret;
}

int db_event_last(struct db *db, int64_t *seq, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_EVENT_LAST];
	int ret = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		*seq = sqlite3_column_int64(st, 0);
	else
		ret = sqlite_fail(db, "read last event", e);
	sqlite3_reset(st);
	return ret;
}

int db_meta_get(struct db *db, const char *key, char *out, size_t size, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_META_GET];
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st), ret = 0;
	if (rc == SQLITE_ROW)
		str_copy(out, size, col_text(st, 0));
	else if (rc == SQLITE_DONE)
		str_copy(out, size, "");
	else
		ret = sqlite_fail(db, "read meta", e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int db_meta_set(struct db *db, const char *key, const char *value, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_META_SET];
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return step_done(db, st, "write meta", e);
}

/* Steps st to its end, each row read by `row` into a new element of
 * *out (elem bytes; caller frees). */
static int load_rows(struct db *db, sqlite3_stmt *st, size_t elem,
		     void (*row)(sqlite3_stmt *st, void *item), const char *what, void **out,
		     size_t *n, struct gq_err *e)
{
	char *v = NULL;
	size_t cnt = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		grow_array((void **)&v, &cap, cnt + 1, elem);
		memset(v + cnt * elem, 0, elem);
		row(st, v + cnt * elem);
		cnt++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return sqlite_fail(db, what, e);
	}
	*out = v;
	*n = cnt;
	return 0;
}

int db_preempt_put(struct db *db, const struct preempt_record *r, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_PREEMPT_PUT];
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, r->victim);
	sqlite3_bind_int64(st, 3, r->trigger);
	sqlite3_bind_text(st, 4, r->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, r->dept, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->trigger_dept, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, r->cross_dept);
	sqlite3_bind_int(st, 9, r->gpus);
	sqlite3_bind_int64(st, 10, r->ran);
	sqlite3_bind_int64(st, 11, r->last_checkpoint);
	sqlite3_bind_int64(st, 12, r->signalled);
	sqlite3_bind_int64(st, 13, r->saved);
	sqlite3_bind_int64(st, 14, r->released);
	sqlite3_bind_int64(st, 15, r->restarted);
	sqlite3_bind_double(st, 16, r->work_lost);
	sqlite3_bind_int(st, 17, r->resumed);
	return step_done(db, st, "write preemption record", e);
}

static void preempt_row(sqlite3_stmt *st, void *item)
{
	struct preempt_record *r = item;
	r->id = sqlite3_column_int64(st, 0);
	r->victim = sqlite3_column_int64(st, 1);
	r->trigger = sqlite3_column_int64(st, 2);
	STR_COPY(r->reason, col_text(st, 3));
	STR_COPY(r->queue, col_text(st, 4));
	STR_COPY(r->dept, col_text(st, 5));
	STR_COPY(r->trigger_dept, col_text(st, 6));
	r->cross_dept = sqlite3_column_int(st, 7) != 0;
	r->gpus = sqlite3_column_int(st, 8);
	r->ran = sqlite3_column_int64(st, 9);
	r->last_checkpoint = sqlite3_column_int64(st, 10);
	r->signalled = sqlite3_column_int64(st, 11);
	r->saved = sqlite3_column_int64(st, 12);
	r->released = sqlite3_column_int64(st, 13);
	r->restarted = sqlite3_column_int64(st, 14);
	r->work_lost = sqlite3_column_double(st, 15);
	r->resumed = sqlite3_column_int(st, 16) != 0;
}

int db_preempts_load(struct db *db, struct preempt_record **out, size_t *n, struct gq_err *e)
{
	return load_rows(db, db->st[ST_PREEMPTS_LOAD], sizeof(**out), preempt_row,
			 "load preemption records", (void **)out, n, e);
}

int db_watch_put(struct db *db, const struct db_watch *w, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_WATCH_PUT];
	sqlite3_bind_int64(st, 1, w->job);
	sqlite3_bind_int64(st, 2, w->log_size);
	sqlite3_bind_int64(st, 3, w->progress);
	return step_done(db, st, "write reclamation watch", e);
}

int db_watch_del(struct db *db, int64_t job, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_WATCH_DEL];
	sqlite3_bind_int64(st, 1, job);
	return step_done(db, st, "delete reclamation watch", e);
}

static void watch_row(sqlite3_stmt *st, void *item)
{
	*(struct db_watch *)item = (struct db_watch){
	    sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
}

int db_watches_load(struct db *db, struct db_watch **out, size_t *n, struct gq_err *e)
{
	return load_rows(db, db->st[ST_WATCHES_LOAD], sizeof(**out), watch_row,
			 "load reclamation watches", (void **)out, n, e);
}

/* victim, start, trigger as parameters 1-3 of st */
static void bind_observed(sqlite3_stmt *st, const struct db_observed *o)
{
	sqlite3_bind_int64(st, 1, o->victim);
	sqlite3_bind_int64(st, 2, o->start);
	sqlite3_bind_int64(st, 3, o->trigger);
}

int db_observed_put(struct db *db, const struct db_observed *o, struct gq_err *e)
{
	bind_observed(db->st[ST_OBSERVED_PUT], o);
	return step_done(db, db->st[ST_OBSERVED_PUT], "write observed preemption", e);
}

int db_observed_del(struct db *db, const struct db_observed *o, struct gq_err *e)
{
	bind_observed(db->st[ST_OBSERVED_DEL], o);
	return step_done(db, db->st[ST_OBSERVED_DEL], "delete observed preemption", e);
}

static void observed_row(sqlite3_stmt *st, void *item)
{
	*(struct db_observed *)item = (struct db_observed){
	    sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
}

int db_observed_load(struct db *db, struct db_observed **out, size_t *n, struct gq_err *e)
{
	return load_rows(db, db->st[ST_OBSERVED_LOAD], sizeof(**out), observed_row,
			 "load observed preemptions", (void **)out, n, e);
}

int db_note_put(struct db *db, const struct db_note *n, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_NOTE_PUT];
	sqlite3_bind_int64(st, 1, n->id);
	sqlite3_bind_int64(st, 2, n->job);
	sqlite3_bind_int64(st, 3, n->uid);
	sqlite3_bind_int64(st, 4, n->gid);
	sqlite3_bind_text(st, 5, n->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, n->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, n->body, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, n->env, -1, SQLITE_STATIC);
	return step_done(db, st, "write notification", e);
}

int db_note_del(struct db *db, int64_t id, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_NOTE_DEL];
	sqlite3_bind_int64(st, 1, id);
	return step_done(db, st, "delete notification", e);
}

static void note_row(sqlite3_stmt *st, void *item)
{
	*(struct db_note *)item = (struct db_note){
	    .id = sqlite3_column_int64(st, 0),
	    .job = sqlite3_column_int64(st, 1),
	    .uid = (uint32_t)sqlite3_column_int64(st, 2),
	    .gid = (uint32_t)sqlite3_column_int64(st, 3),
	    .kind = xstrdup(col_text(st, 4)),
	    .target = xstrdup(col_text(st, 5)),
	    .body = xstrdup(col_text(st, 6)),
	    .env = xstrdup(col_text(st, 7)),
	};
}

int db_notes_load(struct db *db, struct db_note **out, size_t *n, struct gq_err *e)
{
	return load_rows(db, db->st[ST_NOTES_LOAD], sizeof(**out), note_row, "load notifications",
			 (void **)out, n, e);
}

void db_notes_free(struct db_note *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].kind);
		free(v[i].target);
		free(v[i].body);
		free(v[i].env);
	}
	free(v);
}

int db_known_put(struct db *db, const struct pknown *k, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_KNOWN_PUT];
	sqlite3_bind_int64(st, 1, k->id);
	sqlite3_bind_text(st, 2, k->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, k->user, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, k->queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, k->dept, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, k->qos, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, (int)k->tier);
	sqlite3_bind_int(st, 8, (int)k->state);
	sqlite3_bind_int(st, 9, k->held);
	sqlite3_bind_int(st, 10, k->gone);
	sqlite3_bind_int(st, 11, k->restarts);
	sqlite3_bind_int(st, 12, k->gpus);
	sqlite3_bind_int(st, 13, k->exit_status);
	sqlite3_bind_int64(st, 14, k->prio);
	sqlite3_bind_int64(st, 15, k->submit);
	sqlite3_bind_int64(st, 16, k->start);
	sqlite3_bind_int64(st, 17, k->end);
	return step_done(db, st, "save a known job", e);
}

int db_known_load(struct db *db, struct pknown **out, size_t *n, struct gq_err *e)
{
	sqlite3_stmt *st = db->st[ST_KNOWN_LOAD];
	struct pknown *v = NULL;
	size_t cnt = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(v, cap, cnt + 1);
		struct pknown *k = &v[cnt++];
		memset(k, 0, sizeof(*k));
		k->id = sqlite3_column_int64(st, 0);
		STR_COPY(k->name, col_text(st, 1));
		STR_COPY(k->user, col_text(st, 2));
		STR_COPY(k->queue, col_text(st, 3));
		STR_COPY(k->dept, col_text(st, 4));
		STR_COPY(k->qos, col_text(st, 5));
		int t = sqlite3_column_int(st, 6), s = sqlite3_column_int(st, 7);
		k->tier = (unsigned)t < TIER_COUNT ? (enum tier)t : TIER_P1;
		k->state = (unsigned)s < JOB_STATE_COUNT ? (enum job_state)s : JOB_PENDING;
		k->held = sqlite3_column_int(st, 8) != 0;
		k->gone = sqlite3_column_int(st, 9) != 0;
		k->restarts = sqlite3_column_int(st, 10);
		k->gpus = sqlite3_column_int(st, 11);
		k->exit_status = sqlite3_column_int(st, 12);
		k->prio = sqlite3_column_int64(st, 13);
		k->submit = sqlite3_column_int64(st, 14);
		k->start = sqlite3_column_int64(st, 15);
		k->end = sqlite3_column_int64(st, 16);
	}
	int ret = 0;
	if (rc != SQLITE_DONE) {
		ret = sqlite_fail(db, "load known jobs", e);
		free(v);
	} else {
		*out = v;
		*n = cnt;
	}
	sqlite3_reset(st);
	return ret;
}
