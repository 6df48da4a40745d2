/*
 * runner.h - running jobs so that they outlive gq serve: each job runs
 * under a small supervising process (`gq __supervise`, the hidden command
 * in cmd/supervise.c) that records its exit status in the state directory.
 *
 * Files, under the state directory S:
 *   S/run/ID/spec   what to run (written by the server before the start)
 *   S/run/ID/lock   flock()ed from before the supervisor is forked until it
 *                   exits: "is the supervisor alive?" without a pid race
 *   S/run/ID/pid    the job's process (group) id, once it is forked
 *   S/run/ID.exit   "STATUS\n", written atomically when the job ended
 *   S/jobs/ID/stdout, stderr      the job's logs (appended across restarts)
 *   S/jobs/ID/checkpoint/         GQ_CHECKPOINT_DIR
 *
 * The server learns of exits through inotify on S/run (runner_fd()), so a
 * job started by an earlier server is followed the same way as its own.
 * This is not where decisions are made: the runner starts, signals and
 * reports; the loop (loop.c) decides.
 */
#ifndef GQ_SERVER_RUNNER_H
#define GQ_SERVER_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util.h"

struct runner;

/* What to run. Borrowed for the duration of runner_start(). */
struct run_spec {
	int64_t id;
	/* NULL-terminated; with script, the script's arguments (or NULL) */
	char *const *argv;
	/* A batch script's text, or NULL: the supervisor writes it to
	 * S/jobs/ID/script as the job's user and executes it (with /bin/sh
	 * when its first line is no "#!" line). */
	const char *script;
	const char *cwd;  /* absolute */
	char *const *env; /* NULL-terminated "K=V"; GQ_* and CUDA_VISIBLE_DEVICES are added */
	bool switch_user; /* run as uid/gid/groups (the server runs as root) */
	uint32_t uid, gid;
	const gid_t *groups;
	int ngroups;
	const char *gpus; /* "0,1,3" */
	int restarts;
	int64_t grace; /* GQ_GRACE_SECONDS */
	/* A task of an array: GQ_ARRAY_JOB_ID / GQ_ARRAY_TASK_ID and
	 * Slurm's SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID; 0: not a task. */
	int64_t array_id;
	int array_task;
	/* The job's own output and error files (absolute; gq submit -o/-e),
	 * NULL: gq's log of the job only. */
	const char *out_file, *err_file;
};

/* Creates S/run and S/jobs and the inotify watch; exe is the gq binary
 * that will be run as `exe __supervise`. */
int runner_open(const char *state_dir, const char *exe, struct runner **out, struct gq_err *e);
void runner_close(struct runner *r);

/* Starts the supervisor of job spec->id. On success the job's process is
 * being started by it; the supervisor's death or the job's exit will show
 * in runner_probe(). GQ_EIO when files cannot be written or fork fails. */
int runner_start(struct runner *r, const struct run_spec *spec, struct gq_err *e);

/* Sends sig to the job's process group. GQ_ENOENT when the job has no
 * process (not started yet, or gone). */
int runner_signal(struct runner *r, int64_t id, int sig, struct gq_err *e);

enum run_state {
	RUN_ALIVE,   /* the supervisor holds its lock */
	RUN_EXITED,  /* *status is the exit code, or 128+signal; *ended when (unix s) */
	RUN_LOST,    /* the supervisor died without recording a status */
	RUN_UNKNOWN, /* no run files: never started */
	RUN_NEVER,   /* run files, but the supervisor ended before it made the job's
			process (no pid file): nothing of the job ran */
};
/* What became of job id's run. */
enum run_state runner_probe(struct runner *r, int64_t id, int *status, int64_t *ended);

/* The job's process group id, 0 when it has none (never started, or its
 * run files are gone). */
long runner_pgid(struct runner *r, int64_t id);

/* Removes the run files once its status is recorded. */
void runner_forget(struct runner *r, int64_t id);

/* The inotify descriptor: readable when some S/run/ID.exit appeared. */
int runner_fd(const struct runner *r);
/* Reads pending notifications; writes up to max job ids whose exit files
 * appeared into ids and returns how many (0 when none), or -1 when
 * notifications were lost (queue overflow, or more than max): then every
 * running job must be probed. */
int runner_drain(struct runner *r, int64_t *ids, int max);

/* Path of a job's log ("stdout" / "stderr"); caller frees. */
char *runner_log_path(const struct runner *r, int64_t id, const char *stream);
/* The job's spool directory, S/jobs/ID (its user's); caller frees. */
char *runner_spool_path(const struct runner *r, int64_t id);

/* The supervisor itself: `gq __supervise RUNDIR` with the lock on fd 3.
 * Returns the exit code of the supervisor. */
int runner_supervise(const char *rundir);

#endif
