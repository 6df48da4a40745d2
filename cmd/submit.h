/*
 * submit.h - the #GQ directive parser of `gq submit`, outside cmd/submit.c
 * for one user: the fuzz target of tests/fuzz/. Commands use cmd_submit.
 */
#ifndef GQ_CMD_SUBMIT_H
#define GQ_CMD_SUBMIT_H

#include "core/job.h"
#include "core/preempt.h"

/*
 * Applies the #GQ lines at the top of script text (named path in
 * messages) to *job, as `gq submit SCRIPT` does before its command line.
 * Returns EXIT_OK, or EXIT_USAGE after printing the reason to stderr;
 * *job is written only on success.
 */
int submit_directives(const char *path, const char *text, struct job *job);

/*
 * Applies one of gq submit's job options by its long name ("gpus",
 * "gpu-type", "estimate", "time-limit", "tier", "queue", "name", "after",
 * "begin", ...) to *job, checked as gq submit checks it, with c's name in
 * messages: the one parser of these flags for submit, update and run.
 * --begin's text goes to begin (begin_size bytes), to be read on the
 * server's clock (begin.h). Returns EXIT_OK, or EXIT_USAGE after the line.
 */
struct cmd_entry;
int submit_job_option(const struct cmd_entry *c, const char *flag, const char *arg, struct job *job,
		      char *begin, size_t begin_size);

/*
 * What gq submit does before it prints: reads the command line argv (gq
 * submit's options, then -- COMMAND or a script) with c's name in
 * messages, and queues the job. gq run uses it with its own entry, which
 * refuses --array and --json. On EXIT_OK *out holds the open backend
 * (the caller closes it) and the new job's id, or out->b is NULL when
 * there was nothing to queue (-h printed the usage); otherwise the reason
 * was printed and the exit code is returned.
 */
struct backend;
struct submitted {
	struct backend *b;
	int64_t id;
	bool json;
	int ntasks;	/* an array's tasks; 0: one job */
	struct job job; /* as submitted */
	bool has_win;	/* its queue's window would stop it: win says when */
	struct window_stop win;
};
int submit_queue(const struct cmd_entry *c, int argc, char **argv, struct submitted *out);

#endif
