/*
 * runner.c - the job supervisor and the server's side of it: write the
 * spec, fork the supervisor with its lock held, signal, probe, follow exit
 * files with inotify.
 *
 * The lock on S/run/ID/lock is taken by the server before the fork and
 * inherited by the supervisor (the same open file description), so there is
 * no instant at which a started job looks "not started" to a restarted
 * server: nothing is ever started twice.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct runner {
	char *dir; /* the state directory */
	char *exe;
	int ino;
};

#define LOCK_FD 3
#define READY_FD 4

static char *run_dir(const struct runner *r, int64_t id)
{
	return xasprintf("%s/run/%lld", r->dir, (long long)id);
}

static char *job_dir(const struct runner *r, int64_t id)
{
	return xasprintf("%s/jobs/%lld", r->dir, (long long)id);
}

char *runner_spool_path(const struct runner *r, int64_t id)
{
	return job_dir(r, id);
}

char *runner_log_path(const struct runner *r, int64_t id, const char *stream)
{
	return xasprintf("%s/jobs/%lld/%s", r->dir, (long long)id, stream);
}

/* mkdir with exactly mode (the server's umask is 077). */
static int mkdir_p1(const char *path, mode_t mode, struct gq_err *e)
{
	if (mkdir(path, mode) < 0) {
		if (errno != EEXIST)
			return err_set(e, GQ_EIO, "cannot create '%s': %s", path, strerror(errno));
	} else if (chmod(path, mode) < 0)
		return err_set(e, GQ_EIO, "cannot set the mode of '%s': %s", path, strerror(errno));
	return 0;
}

int runner_open(const char *state_dir, const char *exe, struct runner **out, struct gq_err *e)
{
	struct runner *r = xcalloc(1, sizeof(*r));
	r->dir = xstrdup(state_dir);
	r->exe = xstrdup(exe);
	r->ino = -1;
	char *run = xasprintf("%s/run", state_dir), *jobs = xasprintf("%s/jobs", state_dir);
	int rc = -1;
	if (mkdir_p1(run, 0700, e) < 0 || mkdir_p1(jobs, 0711, e) < 0)
		goto out;
	r->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (r->ino < 0 || inotify_add_watch(r->ino, run, IN_MOVED_TO) < 0) {
		err_set(e, GQ_EIO, "cannot watch '%s': %s", run, strerror(errno));
		goto out;
	}
	*out = r;
	rc = 0;
out:
	free(run);
	free(jobs);
	if (rc < 0)
		runner_close(r);
	return rc;
}

void runner_close(struct runner *r)
{
	if (!r)
		return;
	if (r->ino >= 0)
		close(r->ino);
	free(r->dir);
	free(r->exe);
	free(r);
}

int runner_fd(const struct runner *r)
{
	return r->ino;
}

int runner_drain(struct runner *r, int64_t *ids, int max)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;
	bool lost = false;
	for (;;) {
		ssize_t len = read(r->ino, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (char *p = buf; p < buf + len;) {
			struct inotify_event *ev = (struct inotify_event *)(void *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				lost = true;
				continue;
			}
			if (!ev->len)
				continue;
			char *end;
			long long id = strtoll(ev->name, &end, 10);
			if (end == ev->name || strcmp(end, ".exit") != 0)
				continue;
			if (n < max)
				ids[n++] = id;
			else
				lost = true;
		}
	}
	return lost ? -1 : n;
}

/* Writes data[len] to path atomically: a temporary file, fsync, rename.
 * On failure errno says why (ENOSPC: the disk is full). */
static int write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char *tmp = xasprintf("%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int err = 0;
	if (fd < 0) {
		err = errno;
		goto out;
	}
	const char *p = data;
	while (len > 0 && !err) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : ENOSPC;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	/* A full disk may show only at fsync (delayed allocation); the file
	 * is closed either way, so that a retry does not leak it. */
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
out:
	if (err)
		unlink(tmp);
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}

static bool no_space(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

static void spec_add(struct buf *b, const char *key, const char *value)
{
	if (buf_printf(b, "%s=%s", key, value) < 0 || buf_add(b, "", 1) < 0)
		BUG("unbounded buffer refused data");
}

static void rm_run_files(const struct runner *r, int64_t id)
{
	char *d = run_dir(r, id);
	static const char *const names[] = {"spec", "spec.tmp", "pid", "pid.tmp", "lock"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *f = xasprintf("%s/%s", d, names[i]);
		unlink(f);
		free(f);
	}
	char *x = xasprintf("%s.exit", d);
	unlink(x);
	free(x);
	rmdir(d);
	free(d);
}

void runner_forget(struct runner *r, int64_t id)
{
	rm_run_files(r, id);
}

int runner_start(struct runner *r, const struct run_spec *s, struct gq_err *e)
{
	char *rd = run_dir(r, s->id), *jd = job_dir(r, s->id);
	char *ck = xasprintf("%s/checkpoint", jd), *lockp = xasprintf("%s/lock", rd);
	char *specp = xasprintf("%s/spec", rd);
	struct buf spec;
	buf_init(&spec, 0);
	int lockfd = -1, pfd[2] = {-1, -1}, devnull = -1, rc = -1;

	rm_run_files(r, s->id);
	/* S/jobs is root's: nobody else can put a link at jd's place, and
	 * lchown() would not follow one. What is inside jd is the user's: the
	 * supervisor creates and opens it as the user (runner_supervise). */
	if (mkdir_p1(rd, 0700, e) < 0 || mkdir_p1(jd, 0700, e) < 0)
		goto out;
	if (s->switch_user && lchown(jd, s->uid, s->gid) < 0) {
		err_set(e, GQ_EIO, "cannot give '%s' to uid %u: %s", jd, s->uid, strerror(errno));
		goto out;
	}

	char num[64];
	for (size_t i = 0; s->argv && s->argv[i]; i++)
		spec_add(&spec, "arg", s->argv[i]);
	if (s->script) {
		/* The supervisor writes it once it is the user: jd is the user's. */
		char *sp = runner_log_path(r, s->id, "script");
		spec_add(&spec, "scriptfile", sp);
		free(sp);
		spec_add(&spec, "script", s->script);
	}
	static const char *const ours[] = {
	    "CUDA_VISIBLE_DEVICES=", "GQ_GPUS=",	   "GQ_JOB_ID=",
	    "GQ_RESTART_COUNT=",     "GQ_CHECKPOINT_DIR=", "GQ_GRACE_SECONDS=",
	    "GQ_ARRAY_JOB_ID=",	     "GQ_ARRAY_TASK_ID=",  "SLURM_ARRAY_JOB_ID=",
	    "SLURM_ARRAY_TASK_ID="};
	for (size_t i = 0; s->env && s->env[i]; i++) {
		bool skip = false;
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			if (!strncmp(s->env[i], ours[k], strlen(ours[k])))
				skip = true;
		if (!skip)
			spec_add(&spec, "env", s->env[i]);
	}
	char *v = xasprintf("CUDA_VISIBLE_DEVICES=%s", s->gpus);
	spec_add(&spec, "env", v);
	free(v);
	v = xasprintf("GQ_GPUS=%s", s->gpus);
	spec_add(&spec, "env", v);
	free(v);
	v = xasprintf("GQ_JOB_ID=%lld", (long long)s->id);
	spec_add(&spec, "env", v);
	free(v);
	v = xasprintf("GQ_RESTART_COUNT=%d", s->restarts);
	spec_add(&spec, "env", v);
	free(v);
	v = xasprintf("GQ_CHECKPOINT_DIR=%s", ck);
	spec_add(&spec, "env", v);
	free(v);
	v = xasprintf("GQ_GRACE_SECONDS=%lld", (long long)s->grace);
	spec_add(&spec, "env", v);
	free(v);
	if (s->array_id) {
		static const char *const names[] = {"GQ_ARRAY_JOB_ID", "SLURM_ARRAY_JOB_ID",
						    "GQ_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_ID"};
		for (int k = 0; k < 4; k++) {
			v = xasprintf("%s=%lld", names[k],
				      k < 2 ? (long long)s->array_id : (long long)s->array_task);
			spec_add(&spec, "env", v);
			free(v);
		}
	}
	spec_add(&spec, "cwd", s->cwd);
	if (s->switch_user) {
		snprintf(num, sizeof(num), "%u", s->uid);
		spec_add(&spec, "uid", num);
		snprintf(num, sizeof(num), "%u", s->gid);
		spec_add(&spec, "gid", num);
		for (int i = 0; i < s->ngroups; i++) {
			snprintf(num, sizeof(num), "%u", (unsigned)s->groups[i]);
			spec_add(&spec, "group", num);
		}
	}
	char *out = runner_log_path(r, s->id, "stdout"), *err = runner_log_path(r, s->id, "stderr");
	spec_add(&spec, "stdout", out);
	spec_add(&spec, "stderr", err);
	spec_add(&spec, "checkpoint", ck);
	if (s->out_file)
		spec_add(&spec, "ustdout", s->out_file);
	if (s->err_file)
		spec_add(&spec, "ustderr", s->err_file);
	free(out);
	free(err);
	if (write_atomic(specp, spec.data, spec.len, 0600) < 0) {
		err_set(e, no_space(errno) ? GQ_ENOSPACE : GQ_EIO, "cannot write '%s': %s", specp,
			strerror(errno));
		goto out;
	}

	lockfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd < 0 || flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		err_set(e, GQ_EIO, "cannot lock '%s': %s", lockp, strerror(errno));
		goto out;
	}
	/* t91's kill -9 of the server in the instant between a journalled
	 * start and the supervisor's fork (tests/README). */
	if (getenv("GQ_TEST_KILL_BEFORE_FORK"))
		raise(SIGKILL);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		err_set(e, GQ_EIO, "cannot start job '%lld': %s", (long long)s->id,
			strerror(errno));
		goto out;
	}
	char *const args[] = {r->exe, (char *)(uintptr_t) "__supervise", rd, NULL};
	pid_t p1 = fork();
	if (p1 < 0) {
		err_set(e, GQ_EIO, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (p1 == 0) {
		/* Only async-signal-safe calls from here to exec. The double fork
		 * makes the supervisor a child of init, not of the server. The
		 * server blocks SIGTERM & co. for its sigwait(); exec keeps the
		 * mask, so the supervisor and its job start with none blocked. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setsid();
		pid_t p2 = fork();
		if (p2 != 0)
			_exit(p2 < 0 ? 1 : 0);
		/* Move both out of the way first: either may already sit on
		 * fd 3 or 4, and dup2 onto itself would keep FD_CLOEXEC. */
		int l = fcntl(lockfd, F_DUPFD, 10), w = fcntl(pfd[1], F_DUPFD, 10);
		if (l < 0 || w < 0 || dup2(l, LOCK_FD) < 0 || dup2(w, READY_FD) < 0 ||
		    dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			_exit(126);
		execv(r->exe, args);
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	close(lockfd); /* the supervisor holds the lock now */
	lockfd = -1;
	int st;
	while (waitpid(p1, &st, 0) < 0 && errno == EINTR)
		;
	/* The supervisor writes the job's pid once it has forked it; EOF
	 * without it means the supervisor could not start. */
	char pidbuf[32];
	ssize_t n = 0;
	struct pollfd pf = {pfd[0], POLLIN, 0};
	if (poll(&pf, 1, 10000) > 0) {
		do
			n = read(pfd[0], pidbuf, sizeof(pidbuf) - 1);
		while (n < 0 && errno == EINTR);
	}
	if (n <= 0) {
		err_set(e, GQ_EIO, "the supervisor of job '%lld' did not start; see '%s'",
			(long long)s->id, rd);
		goto out;
	}
	rc = 0;
out:
	if (lockfd >= 0)
		close(lockfd);
	if (devnull >= 0)
		close(devnull);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	buf_release(&spec);
	free(rd);
	free(jd);
	free(ck);
	free(lockp);
	free(specp);
	return rc;
}

static int read_small(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = '\0';
	return 0;
}

int runner_signal(struct runner *r, int64_t id, int sig, struct gq_err *e)
{
	char *rd = run_dir(r, id), *pp = xasprintf("%s/pid", rd);
	char b[32];
	int rc = 0;
	long pid = 0;
	if (read_small(pp, b, sizeof(b)) < 0 || (pid = strtol(b, NULL, 10)) <= 1)
		rc = err_set(e, GQ_ENOENT, "job '%lld' has no process", (long long)id);
	else if (kill((pid_t)-pid, sig) < 0)
		rc = err_set(e, errno == ESRCH ? GQ_ENOENT : GQ_EIO,
			     "cannot signal job '%lld' (process group %ld): %s", (long long)id, pid,
			     strerror(errno));
	free(rd);
	free(pp);
	return rc;
}

long runner_pgid(struct runner *r, int64_t id)
{
	char *rd = run_dir(r, id), *pp = xasprintf("%s/pid", rd);
	char b[32];
	long pid = 0;
	if (read_small(pp, b, sizeof(b)) == 0)
		pid = strtol(b, NULL, 10);
	free(rd);
	free(pp);
	return pid > 1 ? pid : 0;
}

/* The exit file holds "STATUS WHEN": the exit status and the unix time at
 * which the supervisor saw the job end. Files of older supervisors hold only
 * the status; *ended is then 0. */
static bool read_exit(const struct runner *r, int64_t id, int *status, int64_t *ended)
{
	char *x = xasprintf("%s/run/%lld.exit", r->dir, (long long)id);
	char b[64];
	bool ok = read_small(x, b, sizeof(b)) == 0;
	free(x);
	if (ok) {
		char *end;
		*status = (int)strtol(b, &end, 10);
		long long t = strtoll(end, NULL, 10);
		*ended = t > 0 && t < GQ_TIME_MAX ? (int64_t)t : 0;
	}
	return ok;
}

enum run_state runner_probe(struct runner *r, int64_t id, int *status, int64_t *ended)
{
	/* The exit file is the supervisor's last act: once it exists the job
	 * is over, even while the supervisor still holds its lock. */
	if (read_exit(r, id, status, ended))
		return RUN_EXITED;
	char *lockp = xasprintf("%s/run/%lld/lock", r->dir, (long long)id);
	int fd = open(lockp, O_RDWR | O_CLOEXEC);
	free(lockp);
	if (fd < 0)
		return RUN_UNKNOWN;
	int held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	if (held)
		return RUN_ALIVE;
	/* It may have written its status between the two looks. */
	if (read_exit(r, id, status, ended))
		return RUN_EXITED;
	/* The pid file is written right after the job's fork: without it the
	 * supervisor died (or its server, before the fork) first. */
	char *pidp = xasprintf("%s/run/%lld/pid", r->dir, (long long)id);
	bool forked = access(pidp, F_OK) == 0;
	free(pidp);
	return forked ? RUN_LOST : RUN_NEVER;
}

/* ---- the supervisor ---- */

static volatile sig_atomic_t sv_child;

static void sv_forward(int sig)
{
	if (sv_child > 0)
		kill(-sv_child, sig);
}

struct sv_spec {
	char **argv, **env; /* with script, argv is its arguments */
	size_t nargv, nenv;
	const char *script, *scriptfile;    /* a batch script's text and where it goes */
	const char *cwd, *out, *err, *ckpt; /* gq's log of the job, $GQ_CHECKPOINT_DIR */
	const char *uout, *uerr;	    /* the job's own -o / -e files */
	bool switch_user;
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int ngroups;
};

static void sv_push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

static int sv_parse(char *data, size_t len, struct sv_spec *s)
{
	for (char *p = data, *next; p < data + len; p = next) {
		next = p + strlen(p) + 1;
		char *eq = strchr(p, '=');
		if (!eq)
			return -1;
		*eq = '\0';
		char *v = eq + 1;
		if (!strcmp(p, "arg"))
			sv_push(&s->argv, &s->nargv, v);
		else if (!strcmp(p, "env"))
			sv_push(&s->env, &s->nenv, v);
		else if (!strcmp(p, "script"))
			s->script = v;
		else if (!strcmp(p, "scriptfile"))
			s->scriptfile = v;
		else if (!strcmp(p, "cwd"))
			s->cwd = v;
		else if (!strcmp(p, "stdout"))
			s->out = v;
		else if (!strcmp(p, "stderr"))
			s->err = v;
		else if (!strcmp(p, "checkpoint"))
			s->ckpt = v;
		else if (!strcmp(p, "ustdout"))
			s->uout = v;
		else if (!strcmp(p, "ustderr"))
			s->uerr = v;
		else if (!strcmp(p, "uid")) {
			s->switch_user = true;
			s->uid = (uid_t)strtoul(v, NULL, 10);
		} else if (!strcmp(p, "gid"))
			s->gid = (gid_t)strtoul(v, NULL, 10);
		else if (!strcmp(p, "group") && s->ngroups < 256)
			s->groups[s->ngroups++] = (gid_t)strtoul(v, NULL, 10);
	}
	if ((!s->argv && !s->script) || !!s->script != !!s->scriptfile || !s->cwd || !s->out ||
	    !s->err)
		return -1;
	if (!s->argv)
		s->argv = xcalloc(1, sizeof(*s->argv));
	if (!s->env)
		s->env = xcalloc(1, sizeof(*s->env));
	return 0;
}

/* In the job's child, as the user: writes the script to s->scriptfile
 * (the user's spool directory: never through a link, never as root) and
 * returns the argv that executes it, its interpreter the one of its "#!"
 * line or /bin/sh. Exits the child on failure. */
static char **sv_script(const struct sv_spec *s)
{
	int fd = open(s->scriptfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0700);
	size_t len = strlen(s->script);
	const char *p = s->script;
	if (fd < 0 || fchmod(fd, 0700) < 0) {
		dprintf(2, "gq: cannot write the script to '%s': %s\n", s->scriptfile,
			strerror(errno));
		_exit(126);
	}
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dprintf(2, "gq: cannot write the script to '%s': %s\n", s->scriptfile,
				w < 0 ? strerror(errno) : "short write");
			_exit(126);
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd) < 0) {
		dprintf(2, "gq: cannot write the script to '%s': %s\n", s->scriptfile,
			strerror(errno));
		_exit(126);
	}
	bool shebang = !strncmp(s->script, "#!", 2);
	char **argv = xcalloc(s->nargv + 3, sizeof(*argv));
	size_t n = 0;
	if (!shebang)
		argv[n++] = (char *)(uintptr_t) "/bin/sh";
	argv[n++] = (char *)(uintptr_t)s->scriptfile;
	for (size_t i = 0; i < s->nargv; i++)
		argv[n++] = s->argv[i];
	return argv;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct buf b;
	buf_init(&b, 64u << 20);
	char tmp[8192];
	ssize_t n;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		if (buf_add(&b, tmp, (size_t)n) < 0)
			break;
	close(fd);
	*len = b.len;
	return buf_detach(&b);
}

int runner_supervise(const char *rundir)
{
	/* Nothing but the lock and the ready pipe may leak in. */
	close_range(READY_FD + 1, ~0U, 0);
	if (fcntl(LOCK_FD, F_GETFD) < 0 || fcntl(READY_FD, F_GETFD) < 0)
		return 2;
	fcntl(LOCK_FD, F_SETFD, FD_CLOEXEC);
	fcntl(READY_FD, F_SETFD, FD_CLOEXEC);
	/* Everything below is freed before the return: the supervisor lives
	 * as long as its job, and a sanitized build reports what it leaks. */
	char *specp = xasprintf("%s/spec", rundir), *pidp = NULL, *exitp = NULL;
	size_t len = 0;
	char *data = slurp(specp, &len);
	struct sv_spec s;
	memset(&s, 0, sizeof(s));
	int rc = 2;
	if (!data || sv_parse(data, len, &s) < 0)
		goto done;

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sv_forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	pid_t child = fork();
	if (child < 0)
		goto done;
	if (child == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		int dn = open("/dev/null", O_RDONLY);
		if (dn >= 0)
			dup2(dn, 0);
		/* The user first: everything below is the user's (the job's
		 * spool directory is, and so is whatever is in it), so it is
		 * opened, created and entered with the user's rights, never
		 * root's (gq-serve(8), SECURITY). */
		if (s.switch_user && (setgroups((size_t)s.ngroups, s.groups) < 0 ||
				      setgid(s.gid) < 0 || setuid(s.uid) < 0))
			_exit(126);
		umask(022); /* the job's own, not the server's 077 */
		int out = open(s.out, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		int err = open(s.err, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0 || err < 0)
			_exit(126);
		dup2(out, 1);
		dup2(err, 2);
		if (s.ckpt && mkdir(s.ckpt, 0700) < 0 && errno != EEXIST) {
			dprintf(2, "gq: cannot create '%s': %s\n", s.ckpt, strerror(errno));
			_exit(126);
		}
		if (chdir(s.cwd) < 0) {
			dprintf(2, "gq: cannot enter '%s': %s\n", s.cwd, strerror(errno));
			_exit(127);
		}
		/* -o / -e: the user's rights, not the server's, decide. An
		 * error goes to gq's own log of the job. */
		for (int k = 0; k < 2; k++) {
			const char *f = k ? s.uerr : s.uout;
			if (!f)
				continue;
			int fd = open(f, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (fd < 0) {
				dprintf(2, "gq: cannot open '%s': %s\n", f, strerror(errno));
				_exit(126);
			}
			dup2(fd, k ? 2 : 1);
			if (!k && !s.uerr) /* -o alone takes stderr too, as sbatch's */
				dup2(fd, 2);
			close(fd);
		}
		extern char **environ;
		if (s.script) {
			char **argv = sv_script(&s);
			environ = s.env;
			execv(argv[0], argv);
			/* Its interpreter, as the #! line names it. */
			const char *nl = strchr(s.script, '\n');
			int n = nl ? (int)(nl - s.script) : (int)strlen(s.script);
			if (argv[0] == s.scriptfile)
				dprintf(
				    2, "gq: cannot run the script with its first line '%.*s': %s\n",
				    n > 200 ? 200 : n, s.script, strerror(errno));
			else
				dprintf(2, "gq: cannot run the script with /bin/sh: %s\n",
					strerror(errno));
			_exit(errno == ENOENT ? 127 : 126);
		}
		environ = s.env;
		execvp(s.argv[0], s.argv);
		dprintf(2, "gq: cannot run '%s': %s\n", s.argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	sv_child = child;
	setpgid(child, child); /* also here, so the group exists before any signal */
	char b[32];
	int n = snprintf(b, sizeof(b), "%d\n", (int)child);
	pidp = xasprintf("%s/pid", rundir);
	bool pid_saved = write_atomic(pidp, b, (size_t)n, 0600) == 0;
	ssize_t w = write(READY_FD, b, (size_t)n);
	(void)w;
	close(READY_FD);

	/* Without the pid file the server cannot signal the job: on a full
	 * disk, try again every second while the job runs. */
	int st = 0;
	for (;;) {
		pid_t got = waitpid(child, &st, pid_saved ? 0 : WNOHANG);
		if (got == child || (got < 0 && errno != EINTR))
			break;
		if (got == 0) {
			sleep(1);
			pid_saved = write_atomic(pidp, b, (size_t)n, 0600) == 0;
		}
	}
	int status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	/* When it ended, as the server would have seen it: a server that is down
	 * now must not take its own restart for the job's end. */
	n = snprintf(b, sizeof(b), "%d %lld\n", status, (long long)time(NULL));
	exitp = xasprintf("%s.exit", rundir);
	/* The exit file is what the server records the end from; without it
	 * the job would count as lost. On a full disk the supervisor waits
	 * for space, holding its lock (the job still looks alive). */
	while ((rc = write_atomic(exitp, b, (size_t)n, 0600) < 0 ? 3 : 0) != 0 && no_space(errno))
		sleep(1);
done:
	free(s.argv); /* the strings are in data */
	free(s.env);
	free(data);
	free(specp);
	free(pidp);
	free(exitp);
	return rc;
}
