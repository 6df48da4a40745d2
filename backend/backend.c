/*
 * backend.c - choosing and opening a backend (see backend.h), and the
 * tmux-style default: the user's own gq serve, started in the background
 * when none is listening. It knows implementations only by their
 * struct backend_impl; it does not speak HTTP itself.
 */
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

static const struct backend_impl *const impls[] = {
    &backend_native,
    &backend_slurm,
};

void job_info_release(struct job_info *ji)
{
	if (ji->argv)
		for (char **a = ji->argv; *a; a++)
			free(*a);
	free(ji->argv);
	free(ji->script);
	free(ji->cwd);
	free(ji->stdout_path);
	free(ji->stderr_path);
	job_release(&ji->job);
	memset(ji, 0, sizeof(*ji));
}

#define LOG_CHUNK (4 << 20)

int job_info_file_logs(const struct job_info *ji, const char *stream, int64_t offset,
		       struct buf *out, int64_t *next, struct gq_err *e)
{
	const char *path =
	    !strcmp(stream, "stderr") && ji->stderr_path ? ji->stderr_path : ji->stdout_path;
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f) {
		/* Not started, or just started (slurmstepd creates the file a
		 * moment after Slurm says RUNNING): nothing written yet. */
		if (job_state_active(ji->job.state) &&
		    (ji->job.state != JOB_RUNNING || (path && errno == ENOENT))) {
			*next = offset;
			return 0;
		}
		if (!path)
			return err_set(e, GQ_ENOENT, "job %" PRId64 " names no output file",
				       ji->job.id);
		return err_set(e, GQ_ENOENT, "cannot read the log of job %" PRId64 " at '%s': %s",
			       ji->job.id, path, strerror(errno));
	}
	if (offset > 0)
		fseeko(f, (off_t)offset, SEEK_SET);
	/* At most LOG_CHUNK per call (the caller asks again from *next,
	 * follow.h): a 200 MB log is streamed, never held. */
	char chunk[65536];
	size_t n;
	int64_t at = offset;
	int rc = 0;
	while (at - offset < LOG_CHUNK && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (buf_add(out, chunk, n) < 0) {
			rc = err_set(e, GQ_ETOOBIG, "log of job %" PRId64 " is too big to hold",
				     ji->job.id);
			break;
		}
		at += (int64_t)n;
	}
	fclose(f);
	*next = at;
	return rc;
}

int backend_records(const struct backend *b, const char *cmd, struct gq_err *e)
{
	return backend_records_on(b->ops->scheduler, cmd, e);
}

int backend_records_on(const char *sched, const char *cmd, struct gq_err *e)
{
	if (!sched)
		return 0;
	/* The hint only where following it helps: gq serve --slurm keeps
	 * events (and stats from them), never a reclamation report, and of
	 * preemptions only the events it saw. */
	if (!strcmp(cmd, "reclaim"))
		return err_set(e, GQ_EUNAVAIL,
			       "gq reclaim is not available on %s: gq cannot see there whether a "
			       "job's GPUs are idle",
			       sched);
	if (!strcmp(cmd, "preemptions"))
		return err_set(
		    e, GQ_EUNAVAIL,
		    "gq preemptions is not available on %s: it does not record which job "
		    "preempted which (gq events through gq serve --slurm lists the "
		    "preemptions it saw)",
		    sched);
	return err_set(e, GQ_EUNAVAIL,
		       "gq %s is not available on %s (needs gq serve in front of it)", cmd, sched);
}

void backend_close(struct backend *b)
{
	if (b)
		b->ops->close(b);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Starts `gq serve` detached from this process (own session, stdin from
 * /dev/null, output appended to the log), the way tmux starts its server:
 * double fork so that it is never our zombie.
 */
static int spawn_server(const char *sock, const char *statedir, const char *log, struct gq_err *e)
{
	char exe[GQ_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return err_set(
		    e, GQ_EUNAVAIL,
		    "cannot find the gq binary to start 'gq serve': %s; start it yourself",
		    strerror(errno));
	exe[n] = '\0';
	char listen[GQ_PATH_MAX + 8];
	snprintf(listen, sizeof(listen), "unix:%s", sock);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return err_set(e, GQ_EUNAVAIL, "cannot start 'gq serve': fork: %s",
			       strerror(errno));
	if (pid == 0) {
		setsid();
		signal(SIGHUP, SIG_IGN);
		if (fork() != 0)
			_exit(0);
		int in = open("/dev/null", O_RDONLY);
		int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (in < 0 || out < 0)
			_exit(127);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		execl(exe, "gq", "serve", "--listen", listen, "--state-dir", statedir,
		      (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* Pings b until it answers or about 10 s have passed. */
static int wait_answer(struct backend *b, struct gq_err *e)
{
	long delay = 10, waited = 0;
	for (int i = 0; i < 200 && waited < 10000; i++) {
		if (b->ops->ping(b, e) == 0)
			return 0;
		sleep_ms(delay);
		waited += delay;
		if (delay < 200)
			delay *= 2;
	}
	return -1;
}

/*
 * The user's own server: ping it; when nothing answers and autostart is
 * on, start one under a lock (so that two gq commands started together
 * start one server) and wait for it.
 */
static struct backend *open_default(const struct backend_impl *impl, bool autostart,
				    const char *token_file, struct gq_err *e)
{
	char sock[GQ_PATH_MAX], addr[GQ_PATH_MAX + 8], dir[GQ_PATH_MAX], log[GQ_PATH_MAX + 16],
	    lockp[GQ_PATH_MAX + 16];
	if (default_socket(sock, sizeof(sock), autostart, e) < 0)
		return NULL;
	snprintf(addr, sizeof(addr), "unix:%s", sock);
	struct backend_target t = {.server = addr, .token_file = token_file};
	struct backend *b = impl->open(&t, e);
	if (!b || !autostart)
		return b;
	if (b->ops->ping(b, e) == 0)
		return b;
	if (e->code != GQ_EUNAVAIL)
		goto fail;
	if (state_dir(dir, sizeof(dir), true, e) < 0)
		goto fail;
	snprintf(log, sizeof(log), "%s/serve.log", dir);
	snprintf(lockp, sizeof(lockp), "%s.lock", sock);
	int lk = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lk < 0) {
		err_set(e, GQ_EUNAVAIL, "cannot create '%s': %s", lockp, strerror(errno));
		goto fail;
	}
	while (flock(lk, LOCK_EX) < 0 && errno == EINTR)
		;
	/* Someone else may have started it while we waited for the lock. */
	int rc = b->ops->ping(b, e);
	if (rc < 0) {
		rc = spawn_server(sock, dir, log, e);
		if (rc == 0 && wait_answer(b, e) < 0) {
			err_set(
			    e, GQ_EUNAVAIL,
			    "started 'gq serve' on '%s' but it did not answer within 10s; see '%s'",
			    sock, log);
			rc = -1;
		}
	}
	close(lk);
	if (rc == 0)
		return b;
fail:
	backend_close(b);
	return NULL;
}

struct backend *backend_open(bool autostart, struct gq_err *e)
{
	struct gq_config c;
	if (config_load(&c, e) < 0)
		return NULL;
	const struct backend_impl *impl = NULL;
	for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++)
		if (!strcmp(impls[i]->name, c.backend))
			impl = impls[i];
	if (!impl) {
		err_set(e, GQ_EINVAL,
			"unknown backend '%s'; set GQ_BACKEND or gq.backend to 'native' or 'slurm'",
			c.backend);
		return NULL;
	}
	const char *token = c.token_file[0] ? c.token_file : NULL;
	if (!c.server[0] && impl != &backend_native) {
		err_set(e, GQ_EINVAL, "backend '%s' needs an address: set GQ_SERVER or gq.server",
			c.backend);
		return NULL;
	}
	if (!c.server[0])
		return open_default(impl, autostart, token, e);
	struct backend_target t = {.server = c.server,
				   .token_file = token,
				   .qos_map = c.qos_map,
				   .ca_file = c.ca_file[0] ? c.ca_file : NULL};
	return impl->open(&t, e);
}
