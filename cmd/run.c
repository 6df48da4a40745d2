/*
 * run.c - `gq run [OPTIONS] -- COMMAND`: what srun is for in everyday use.
 * Queues the job as gq submit does (its options, its code: submit.h),
 * waits for it to start (a status line on a terminal's stderr), streams
 * its stdout and stderr to ours as they grow (follow.h, as gq logs -f),
 * and exits with its exit status; SIGINT, SIGTERM or SIGHUP cancel it (its
 * output is still followed to its end; a second one stops at once).
 *
 * It is a client of the backend's ordinary calls (submit, job, logs,
 * cancel), so it works wherever gq logs can read a job's output.
 */
#include "cmd.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "explain/explain.h"
#include "os/mono.h"
#include "follow.h"
#include "submit.h"

#define STATUS_MS 1000 /* how often the waiting line is worked out again */

static void on_signal(int sig)
{
	cmd_interrupted = sig;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a pause ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* "waiting: priority" as gq ls says it, from a snapshot; "" when it
 * cannot be worked out (the line then says only that it waits). */
static void wait_reason(struct backend *b, int64_t id, struct buf *out)
{
	struct snapshot s;
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(&s);
	if (b->ops->snapshot(b, &s, &e) < 0) {
		snapshot_release(&s);
		return;
	}
	struct explain_set x;
	explain_compute(&s, cmd_zone(s.now), &x);
	const struct explain *ex = explain_find(&x, id);
	if (ex)
		explain_short(ex, out);
	explain_release(&x);
	snapshot_release(&s);
}

/* The status line, rewritten in place on a terminal. */
static void status_line(int64_t id, const char *reason)
{
	fprintf(stderr, "\r\033[Kgq run: queued as job %lld, waiting%s%s", (long long)id,
		reason[0] ? ": " : "", reason);
	fflush(stderr);
}

/* SIGINT and friends: the job is cancelled, whatever its state. */
static int cancel_job(struct backend *b, int64_t id, bool tty)
{
	struct gq_err e = GQ_ERR_INIT;
	if (tty)
		fputs("\r\033[K", stderr);
	if (b->ops->cancel(b, id, &e) < 0 && e.code != GQ_ECONFLICT) {
		fprintf(stderr, "gq run: interrupted, but job %lld could not be cancelled: %s\n",
			(long long)id, e.msg);
		return EXIT_FAIL;
	}
	fprintf(stderr, "gq run: interrupted; job %lld cancelled\n", (long long)id);
	return 130;
}

/* Its exit status as a shell gives it; a line on stderr when it did not
 * complete. */
static int job_exit(const struct job *j)
{
	int st = j->exit_status;
	if (j->state == JOB_COMPLETED)
		return st > 0 ? st : 0;
	if (st >= 0)
		fprintf(stderr, "gq run: job %lld %s, exit status %d\n", (long long)j->id,
			job_state_name(j->state), st);
	else
		fprintf(stderr, "gq run: job %lld %s\n", (long long)j->id,
			job_state_name(j->state));
	if (st > 0 && st < 256)
		return st;
	return EXIT_FAIL;
}

/* A server that cannot be reached (restarted, say) while the job goes on:
 * say so once, and try again every half second for RECONNECT_MS; true to
 * go on. *down is when it was first missed (0: it answers). */
#define RECONNECT_MS (5 * 60 * 1000)
static bool server_lost(int64_t id, const struct gq_err *e, int64_t *down)
{
	if (e->code != GQ_EUNAVAIL)
		return false;
	int64_t now = mono_ms();
	if (!*down) {
		*down = now;
		fprintf(stderr, "gq run: %s; job %lld goes on, trying again for %d min\n", e->msg,
			(long long)id, RECONNECT_MS / 60000);
	}
	if (now - *down >= RECONNECT_MS)
		return false;
	follow_pause(500);
	return true;
}

static int run_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_run;
	cmd_interrupted = 0;
	catch_signals();
	struct submitted sb;
	int rc = submit_queue(c, argc, argv, &sb);
	if (rc != EXIT_OK || !sb.b)
		return rc;
	struct backend *b = sb.b;
	int64_t id = sb.id;
	bool tty = isatty(2) != 0;
	struct follow f[2] = {{"stdout", stdout, 0}, {"stderr", stderr, 0}};
	struct gq_err e = GQ_ERR_INIT;
	struct buf reason;
	buf_init(&reason, 0);
	bool started = false, shown = false;
	int64_t next_status = 0, down = 0;
	bool cancelled = false;
	for (;;) {
		if (cmd_interrupted && cancelled)
			break; /* a second Ctrl-C: stop waiting for its last words */
		if (cmd_interrupted) {
			rc = cancel_job(b, id, tty && shown && !started);
			if (!started || rc != 130)
				break;
			/* What it wrote before the interrupt and as it ends
			 * (a trap on SIGTERM) is still to be shown: go on
			 * until it has ended, then drain once more. */
			cancelled = true;
			cmd_interrupted = 0;
		}
		struct job_info ji;
		if (b->ops->job(b, id, &ji, &e) < 0) {
			if (server_lost(id, &e, &down))
				continue;
			rc = cmd_fail(&e);
			break;
		}
		if (down) {
			fprintf(stderr, "gq run: the server answers again\n");
			down = 0;
		}
		struct job j = ji.job;
		/* One file for both (Slurm's default, or -o and -e the same):
		 * its text once, on stdout. */
		int nf = b->ops->logs_are_files && b->ops->logs_are_files(b) && ji.stdout_path &&
				 (!ji.stderr_path || !strcmp(ji.stdout_path, ji.stderr_path))
			     ? 1
			     : 2;
		job_info_release(&ji);
		bool active = job_state_active(j.state);
		if (!started && j.state != JOB_PENDING) {
			started = true;
			if (tty && shown)
				fputs("\r\033[K", stderr);
		}
		if (!started && tty && mono_ms() >= next_status) {
			buf_reset(&reason);
			wait_reason(b, id, &reason);
			status_line(id, reason.len ? reason.data : "");
			shown = true;
			next_status = mono_ms() + STATUS_MS;
		}
		if (started && follow_drain(b, id, f, nf, &e) < 0) {
			if (server_lost(id, &e, &down))
				continue;
			rc = cmd_fail(&e);
			break;
		}
		if (!active) {
			/* Drain once more: output written just before the exit. */
			if (follow_drain(b, id, f, nf, &e) < 0) {
				if (server_lost(id, &e, &down))
					continue;
				rc = cmd_fail(&e);
			} else if (!cancelled)
				rc = job_exit(&j);
			break;
		}
		follow_pause(FOLLOW_MS);
	}
	buf_release(&reason);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_run = {
    .name = "run",
    .usage = "[OPTIONS] -- COMMAND [ARG...] | [OPTIONS] SCRIPT",
    .summary = "queue a job, wait for it, stream its output and exit with its status",
    .flags = CMD_NEEDS_BACKEND,
    .exec = run_exec,
};
