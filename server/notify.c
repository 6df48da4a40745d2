/*
 * notify.c - notifications of jobs' changes (notify.h): the notes, their
 * journal, and notify.command's runner.
 */
#define _GNU_SOURCE /* pipe2 */
#include "server/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/notify.h"
#include "os/mono.h"
#include "server/auth.h"
#include "server/db.h"
#include "server/log.h"
#include "server/state.h"
#include "server/webhook.h"
#include "wire/wire.h"

#define COMMAND_TIMEOUT_MS 30000

/* What the sender reported: delivered (failure NULL) or given up. */
struct outcome {
	int64_t id, job;
	char *failure;
};

struct notifier {
	struct webhook *hook;
	/* Notes of the open transaction, delivered once it commits. */
	struct db_note *open;
	size_t nopen, open_cap;
	/* From the sender thread, guarded by mu. */
	pthread_mutex_t mu;
	struct outcome *done;
	size_t ndone, done_cap;
	struct state *st;
};

/* ---- notify.command ---- */

/* Runs d's command with /bin/sh as its job's user (when gq serve is root;
 * otherwise as gq serve's own user, the only one whose jobs it runs), the
 * JSON on its stdin, d's env and PATH and HOME, in HOME; at most
 * COMMAND_TIMEOUT_MS, then its process group is killed. Everything the
 * child needs is made before the fork: the server has threads. */
static int run_command(const struct webhook_delivery *d, struct gq_err *e)
{
	char home[4096] = "/";
	auth_home(d->uid, home, sizeof(home));
	char *envtext =
	    xasprintf("%sHOME=%s\nPATH=/usr/local/bin:/usr/bin:/bin\n", d->env ? d->env : "", home);
	size_t n = 1;
	for (const char *p = envtext; *p; p++)
		n += *p == '\n';
	char **envp = xcalloc(n + 1, sizeof(*envp)), *save = NULL;
	size_t k = 0;
	for (char *t = strtok_r(envtext, "\n", &save); t && k < n; t = strtok_r(NULL, "\n", &save))
		envp[k++] = t;
	char sh[] = "sh", dash_c[] = "-c";
	char *cmd = xstrdup(d->command);
	char *argv[] = {sh, dash_c, cmd, NULL};
	bool sw = geteuid() == 0 && d->uid != 0;
	gid_t gid = (gid_t)d->gid;
	int pfd[2] = {-1, -1}, null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int rc = -1;
	if (null < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		err_set(e, GQ_EIO, "notify.command: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		err_set(e, GQ_EIO, "notify.command: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pfd[0], 0);
		dup2(null, 1);
		dup2(null, 2);
		if (sw && (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid((uid_t)d->uid) < 0))
			_exit(126);
		if (chdir(home) < 0 && chdir("/") < 0)
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		execve("/bin/sh", argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[0]);
	pfd[0] = -1;
	size_t len = strlen(d->body), off = 0;
	while (off < len) { /* a command that does not read gets EPIPE: fine */
		ssize_t w = write(pfd[1], d->body + off, len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(pfd[1]);
	pfd[1] = -1;
	int status = 0;
	int64_t end = mono_ms() + COMMAND_TIMEOUT_MS;
	pid_t r;
	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && mono_ms() < end) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (r == 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		err_set(e, GQ_EUNAVAIL, "notify.command '%s': still running after %d s; killed",
			d->command, COMMAND_TIMEOUT_MS / 1000);
	} else if (r < 0) {
		err_set(e, GQ_EIO, "notify.command '%s': %s", d->command, strerror(errno));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = 0;
	} else if (WIFEXITED(status)) {
		err_set(e, GQ_EUNAVAIL, "notify.command '%s': exited %d", d->command,
			WEXITSTATUS(status));
	} else {
		err_set(e, GQ_EUNAVAIL, "notify.command '%s': killed by signal %d", d->command,
			WTERMSIG(status));
	}
out:
	if (null >= 0)
		close(null);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(cmd);
	free(envp);
	free(envtext);
	return rc;
}

/* ---- the sender's reports ---- */

static void on_done(void *arg, const struct webhook_delivery *d, const char *failure)
{
	struct notifier *n = arg;
	pthread_mutex_lock(&n->mu);
	GROW(n->done, n->done_cap, n->ndone + 1);
	n->done[n->ndone++] = (struct outcome){d->id, d->job, failure ? xstrdup(failure) : NULL};
	pthread_mutex_unlock(&n->mu);
	state_wake(n->st);
}

struct notifier *notifier_start(struct state *s)
{
	struct notifier *n = xcalloc(1, sizeof(*n));
	pthread_mutex_init(&n->mu, NULL);
	n->st = s;
	n->hook = webhook_start();
	webhook_hooks(n->hook, run_command, on_done, n);
	return n;
}

static void notes_clear(struct db_note *v, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		free(v[i].kind);
		free(v[i].target);
		free(v[i].body);
		free(v[i].env);
	}
	*n = 0;
}

void notifier_stop(struct notifier *n)
{
	if (!n)
		return;
	webhook_stop(n->hook);
	notes_clear(n->open, &n->nopen);
	free(n->open);
	for (size_t i = 0; i < n->ndone; i++)
		free(n->done[i].failure);
	free(n->done);
	pthread_mutex_destroy(&n->mu);
	free(n);
}

static void deliver(struct notifier *n, const struct db_note *x)
{
	bool hook = !strcmp(x->kind, "webhook");
	struct webhook_delivery d = {
	    .id = x->id,
	    .job = x->job,
	    .url = hook ? x->target : NULL,
	    .command = hook ? NULL : x->target,
	    .body = x->body,
	    .env = x->env,
	    .uid = x->uid,
	    .gid = x->gid,
	};
	webhook_deliver(n->hook, &d);
}

void notify_committed(struct state *s)
{
	struct notifier *n = s->ntf;
	if (!n)
		return;
	for (size_t i = 0; i < n->nopen; i++)
		deliver(n, &n->open[i]);
	notes_clear(n->open, &n->nopen);
}

void notify_rolled_back(struct state *s)
{
	if (s->ntf)
		notes_clear(s->ntf->open, &s->ntf->nopen);
}

int notify_resume(struct state *s, struct gq_err *e)
{
	struct db_note *v = NULL;
	size_t nv = 0;
	if (!s->ntf || db_notes_load(s->db, &v, &nv, e) < 0)
		return s->ntf ? -1 : 0;
	for (size_t i = 0; i < nv; i++)
		deliver(s->ntf, &v[i]);
	if (nv)
		log_info("%zu notifications from before the restart sent again", nv);
	db_notes_free(v, nv);
	return 0;
}

int notify_reap(struct state *s, struct gq_err *e)
{
	struct notifier *n = s->ntf;
	if (!n)
		return 0;
	pthread_mutex_lock(&n->mu);
	struct outcome *v = n->done;
	size_t nv = n->ndone;
	n->done = NULL;
	n->ndone = n->done_cap = 0;
	pthread_mutex_unlock(&n->mu);
	int rc = 0;
	for (size_t i = 0; i < nv; i++) {
		if (rc == 0)
			rc = db_note_del(s->db, v[i].id, e);
		const struct job *j = snapshot_find(&s->snap, v[i].job);
		if (rc == 0 && v[i].failure && j) {
			char why[160];
			snprintf(why, sizeof(why), "notification not delivered: %.130s",
				 v[i].failure);
			rc =
			    state_emit(s, j->id, "notify", j->state, j->state, why, "scheduler", e);
		}
		free(v[i].failure);
	}
	free(v);
	return rc;
}

/* ---- the notes of one event ---- */

/* "job 42 (train) failed: exit 3 after 2m". */
static void note_text(const struct job *j, unsigned ev, enum job_state to, int64_t runtime,
		      char *out, size_t size)
{
	char d[32];
	dur_format(runtime, d, sizeof(d));
	if (ev == NOTIFY_START)
		snprintf(out, size, "job %" PRId64 " (%s) started", j->id, j->name);
	else if (ev == NOTIFY_REQUEUE)
		snprintf(out, size, "job %" PRId64 " (%s) is pending again after %s of running",
			 j->id, j->name, d);
	else if (to == JOB_TIMEOUT)
		snprintf(out, size, "job %" PRId64 " (%s) reached its time limit after %s", j->id,
			 j->name, d);
	else if (to == JOB_CANCELLED)
		snprintf(out, size, "job %" PRId64 " (%s) was cancelled", j->id, j->name);
	else if (j->exit_status > 128 && to == JOB_FAILED)
		snprintf(out, size, "job %" PRId64 " (%s) failed: killed by signal %d after %s",
			 j->id, j->name, j->exit_status - 128, d);
	else
		snprintf(out, size, "job %" PRId64 " (%s) %s: exit %d after %s", j->id, j->name,
			 to == JOB_COMPLETED ? "completed" : "failed", j->exit_status, d);
}

/* The notes' env: GQ_* as the JSON says it. */
static char *note_env(const struct notify_note *x)
{
	char ex[16] = "";
	if (x->exit_code >= 0)
		snprintf(ex, sizeof(ex), "%d", x->exit_code);
	return xasprintf("GQ_JOB_ID=%" PRId64 "\nGQ_JOB_NAME=%s\nGQ_JOB_USER=%s\nGQ_JOB_STATE=%s\n"
			 "GQ_EXIT_CODE=%s\nGQ_RUNTIME=%" PRId64 "\nGQ_QUEUE=%s\nGQ_TIER=%s\n"
			 "GQ_NOTIFY_EVENT=%s\nGQ_NOTIFY_TIME=%" PRId64 "\n",
			 x->job, x->name, x->user, x->state, ex, x->runtime, x->queue, x->tier,
			 x->event, x->time);
}

static int put_note(struct state *s, const struct job *j, int64_t id, const char *kind,
		    const char *target, const char *body, const char *env, struct gq_err *e)
{
	struct db_note x = {
	    id, j->id, j->uid, j->gid, xstrdup(kind), xstrdup(target), xstrdup(body), xstrdup(env)};
	if (db_note_put(s->db, &x, e) < 0) {
		size_t one = 1;
		notes_clear(&x, &one);
		return -1;
	}
	struct notifier *n = s->ntf;
	GROW(n->open, n->open_cap, n->nopen + 1);
	n->open[n->nopen++] = x;
	return 0;
}

int notify_emit(struct state *s, const struct event *ev, struct gq_err *e)
{
	if (!s->ntf || ev->job <= 0 || (strcmp(ev->kind, "state") && strcmp(ev->kind, "preempt")))
		return 0;
	const struct job *j = snapshot_find(&s->snap, ev->job);
	unsigned mask, bit;
	if (!j || !j->notify[0] || notify_parse(j->notify, &mask, NULL) < 0 ||
	    !(bit = notify_event_of(mask, ev->from, ev->to)))
		return 0;
	/* The submitter's own targets, from the journalled submission. */
	char *cmdtext = NULL;
	struct submission sub;
	memset(&sub, 0, sizeof(sub));
	struct gq_err ce = GQ_ERR_INIT;
	if (db_job_command(s->db, j->id, &cmdtext, &ce) == 0 &&
	    codec_command_from_text(cmdtext, &sub, &ce) < 0)
		memset(&sub, 0, sizeof(sub));
	free(cmdtext);
	bool ended = !job_state_active(ev->to);
	int64_t runtime = j->start_time > 0 && ev->from != JOB_PENDING && ev->to != JOB_RUNNING
			      ? ev->time - j->start_time
			      : 0;
	char text[200];
	note_text(j, bit, ev->to, runtime, text, sizeof(text));
	struct notify_note x = {
	    .event = notify_event_name(bit),
	    .time = ev->time,
	    .job = j->id,
	    .name = j->name,
	    .user = j->user,
	    .state = job_state_name(ev->to),
	    .queue = j->queue,
	    .tier = tier_name(job_tier(j)),
	    .exit_code = ended && ev->to != JOB_CANCELLED ? j->exit_status : -1,
	    .runtime = runtime > 0 ? runtime : 0,
	    .text = text,
	};
	char *body = wire_notify_text(&x), *env = note_env(&x);
	const char *pol = s->snap.policy.notify_webhook;
	int rc = 0;
	if (pol[0])
		rc = put_note(s, j, ev->seq * 4, "webhook", pol, body, "", e);
	if (rc == 0 && sub.notify_webhook && strcmp(sub.notify_webhook, pol))
		rc = put_note(s, j, ev->seq * 4 + 1, "webhook", sub.notify_webhook, body, "", e);
	if (rc == 0 && sub.notify_command)
		rc = put_note(s, j, ev->seq * 4 + 2, "command", sub.notify_command, body, env, e);
	free(body);
	free(env);
	submission_release(&sub);
	return rc;
}
