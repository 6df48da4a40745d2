/*
 * server.c - gq serve's start-up and shut-down: the state directory locked,
 * the journal loaded, running jobs found again, the threads and listeners
 * started and stopped.
 *
 * gq serve is four files, split as tmux splits its server: state.c, the
 * journalled state transitions (state.h) that the operations, the loop and
 * the plan executor (enforce.c) all make; loop.c, the scheduling loop (reap
 * exits, deadlines, plan, start); ops.c, the API's operations and the group
 * commit of submissions; and this file. internal.h holds what they share.
 *
 * One lock (s->mu) guards everything: the in-memory snapshot, the journal
 * connection, the event sequence. Every change is made inside a journal
 * transaction and becomes visible to readers only once committed, so what
 * a client has seen is always on disk. Submissions queue for the committer
 * thread, which writes all that arrived meanwhile in one transaction (one
 * fsync for many acknowledgements). The scheduler thread sleeps in poll()
 * on a wake-up pipe and the runner's exit notifications, with a timeout
 * only when a deadline is due by the real clock; it never polls at a fixed
 * rate.
 *
 * What to start is core's decision (sched_plan); the loop carries out the
 * plan, follows processes through the runner and journals every change.
 */
#define _GNU_SOURCE
#include "server/internal.h"

#include "os/mono.h"
#include "server/metrics.h"

/* ---- start-up and shut-down ---- */

/* Finds again the jobs a previous server started: alive ones are adopted,
 * finished ones recorded, never-started ones requeued. At start-up, and
 * when the server leaves the full state (state_failed). */
int recover(struct server *s, bool after_full, struct gq_err *out)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *while_ =
	    after_full ? "while the journal could not be written" : "while the server was down";
	int64_t *forget = xcalloc(s->st.snap.njobs + 1, sizeof(*forget));
	size_t nforget = 0;
	if (db_begin(s->st.db, &e) < 0)
		goto fail;
	for (size_t i = 0; i < s->st.snap.njobs; i++) {
		struct job *j = &s->st.snap.jobs[i];
		if (!job_state_holds_gpus(j->state))
			continue;
		int status = -1;
		int64_t ended = 0;
		enum run_state rs = runner_probe(s->st.runner, j->id, &status, &ended);
		int rc = 0;
		if (rs == RUN_ALIVE) {
			if (!after_full) /* the same server: nothing to adopt */
				log_info("job %" PRId64 ": still running, adopted", j->id);
			if (j->state == JOB_STARTING) {
				j->state = JOB_RUNNING;
				rc = state_persist(&s->st, j, &e);
				if (rc == 0)
					rc = state_emit(&s->st, j->id, "state", JOB_STARTING,
							JOB_RUNNING, "adopted", "scheduler", &e);
			}
		} else if (rs == RUN_EXITED) {
			log_info("job %" PRId64 ": ended %s", j->id, while_);
			rc = state_finish(&s->st, j, status, ended, NULL, &e);
			forget[nforget++] = j->id;
		} else if ((rs == RUN_UNKNOWN || rs == RUN_NEVER) && j->state == JOB_STARTING) {
			/* Stopped (or killed) between the journalled start and the
			 * job's fork: nothing of it ran. */
			log_info("job %" PRId64 ": was not started %s; pending again", j->id,
				 while_);
			rc = state_unstart(&s->st, j, "not started before the server stopped", &e);
			forget[nforget++] = j->id;
		} else {
			rc = state_lose(&s->st, j, &e);
			forget[nforget++] = j->id;
		}
		if (rc < 0)
			goto fail;
	}
	if (state_commit(&s->st, &e) < 0)
		goto fail;
	for (size_t i = 0; i < nforget; i++)
		runner_forget(s->st.runner, forget[i]);
	free(forget);
	return 0;
fail:
	/* The exit files stay: the next recover() reads them again. */
	free(forget);
	*out = e;
	return -1;
}

static int load_policy(struct server *s)
{
	struct gq_err e = GQ_ERR_INIT;
	s->prepo = repo_open_server(s->st.cfg->state_dir, s->st.cfg->policy, &e);
	if (!s->prepo) {
		log_warn("policy repository: %s; the built-in default policy is in force", e.msg);
		return 0;
	}
	struct policy *p = xmalloc(sizeof(*p));
	char oid[POLICY_OID_HEX] = "", last[64] = "";
	int rc = 0;
	if (repo_fetch(s->prepo, &e) < 0)
		log_warn("policy fetch: %s", e.msg);
	if (db_meta_get(s->st.db, "policy.revision", last, sizeof(last), &e) < 0)
		state_fatal(&e);
	/* What is in force is what was last applied, as the journal says:
	 * a restart changes nothing, and a revision committed but not
	 * applied stays so. HEAD only for a journal that records none (its
	 * first start), or when the recorded one is gone from the repository. */
	bool loaded = false;
	if (last[0] && repo_load(s->prepo, last, p, &e) == 0) {
		s->st.snap.policy = *p;
		log_info("policy %s in force (the last applied)", last);
		loaded = true;
	} else if (last[0]) {
		log_warn("policy %s, the last applied, cannot be read: %s; applying the "
			 "repository's HEAD",
			 last, e.msg);
	}
	if (loaded) {
		/* nothing to do */
	} else if (repo_resolve(s->prepo, "", oid, &e) == 0 &&
		   repo_load(s->prepo, oid, p, &e) == 0) {
		if (db_begin(s->st.db, &e) < 0 || ops_policy_put(s, p, "scheduler", &e) < 0 ||
		    state_commit(&s->st, &e) < 0)
			state_failed(&s->st, &e); /* in force, recorded by a later start */
		log_info("policy %s in force", p->revision);
	} else {
		ops_policy_refused(s, oid[0] ? oid : "HEAD", e.msg, "scheduler");
		log_warn("no good policy revision; the built-in default policy is in force");
	}
	free(p);
	return rc;
}

static int lock_state_dir(const char *dir, int *fd_out, struct gq_err *e)
{
	char *path = xasprintf("%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int rc = 0;
	if (fd < 0) {
		rc = err_set(e, GQ_EIO, "cannot open '%s': %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char pid[32] = "?";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		rc = err_set(
		    e, GQ_ECONFLICT,
		    "state directory '%s' is in use by another gq serve (pid %s); stop it or "
		    "use another --state-dir",
		    dir, pid);
		close(fd);
	} else {
		char b[32];
		int n = snprintf(b, sizeof(b), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) < 0 || pwrite(fd, b, (size_t)n, 0) != n)
			log_warn("cannot write the pid into '%s'", path);
		*fd_out = fd;
	}
	free(path);
	return rc;
}

static int mkdirs(const char *path, mode_t mode, struct gq_err *e)
{
	char *p = xstrdup(path);
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		mkdir(p, 0755);
		*q = '/';
	}
	int rc = 0;
	if (mkdir(p, mode) == 0)
		chmod(p, mode); /* exactly: the server's umask is 077 */
	else if (errno != EEXIST)
		rc = err_set(e, GQ_EIO, "cannot create state directory '%s': %s", path,
			     strerror(errno));
	free(p);
	return rc;
}

int server_state_dir_open(const char *dir, unsigned mode, int *lockfd, struct gq_err *e)
{
	return mkdirs(dir, (mode_t)mode, e) < 0 ? -1 : lock_state_dir(dir, lockfd, e);
}

static void server_free(struct server *s);

/* Everything a server is before its threads run: the state directory
 * locked, the journal open and loaded, running jobs found again. NULL with e
 * on failure (what was opened is closed). */
static struct server *server_open(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = xcalloc(1, sizeof(*s));
	s->lockfd = -1;
	s->st.cfg = cfg;
	s->root = geteuid() == 0;
	s->st.next_id = 1;
	s->st.wake[0] = s->st.wake[1] = -1;
	prom_hist_init_seconds(&s->passes);
	snapshot_init(&s->st.snap);
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->snapc_mu, NULL);
	pthread_cond_init(&s->snapc_cv, NULL);
	mono_cond_init(&s->ev_cv); /* server_events waits for mono_deadline */
	pthread_cond_init(&s->commit_cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);

	if (mkdirs(cfg->state_dir, s->root ? 0711 : 0700, e) < 0 ||
	    lock_state_dir(cfg->state_dir, &s->lockfd, e) < 0)
		goto fail;
	if (auth_open(cfg->tokens_file, geteuid(), cfg->admin_groups, &s->auth, e) < 0)
		goto fail;
	struct gpu_opts go = {.slots = cfg->gpus,
			      .model = cfg->gpu_model,
			      .mem_mb = cfg->gpu_mem_mb,
			      .cpus = cfg->cpus,
			      .node_mem_mb = cfg->mem_mb};
	if (gpus_detect(&go, snapshot_add_node(&s->st.snap), &s->gpus_how, e) < 0)
		goto fail;
	char *dbp = xasprintf("%s/gq.db", cfg->state_dir);
	int dbrc = db_open(dbp, &s->st.db, e);
	free(dbp);
	if (dbrc < 0)
		goto fail;
	if (db_event_last(s->st.db, &s->st.last_seq, e) < 0)
		goto fail;
	char clk[32] = "";
	if (db_meta_get(s->st.db, "clock", clk, sizeof(clk), e) < 0)
		goto fail;
	s->st.manual_now = clk[0] ? strtoll(clk, NULL, 10) : (int64_t)time(NULL);
	if (cfg->manual_clock && !clk[0]) {
		snprintf(clk, sizeof(clk), "%" PRId64, s->st.manual_now);
		if (db_meta_set(s->st.db, "clock", clk, e) < 0)
			goto fail;
	}
	/* The server's start: metrics do not count the time before it. */
	char born[32] = "";
	if (db_meta_get(s->st.db, "created", born, sizeof(born), e) < 0)
		goto fail;
	s->st.created = born[0] ? strtoll(born, NULL, 10) : state_now(&s->st);
	if (!born[0]) {
		snprintf(born, sizeof(born), "%" PRId64, s->st.created);
		if (db_meta_set(s->st.db, "created", born, e) < 0)
			goto fail;
	}
	s->st.ntf = notifier_start(&s->st);
	if (load_policy(s) < 0 || state_load(&s->st, e) < 0 || notify_resume(&s->st, e) < 0)
		goto fail;
	if (runner_open(cfg->state_dir, cfg->exe, &s->st.runner, e) < 0)
		goto fail;
	struct gq_err re = GQ_ERR_INIT;
	if (recover(s, false, &re) < 0)
		state_failed(&s->st, &re); /* it starts full, and recovers when space returns */
	if (pipe2(s->st.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		err_set(e, GQ_EIO, "pipe: %s", strerror(errno));
		goto fail;
	}
	return s;
fail:
	server_free(s);
	return NULL;
}

/* Closes what server_open opened; the threads are stopped already. */
static void server_free(struct server *s)
{
	notifier_stop(s->st.ntf);
	enforce_free(s->st.enf);
	runner_close(s->st.runner);
	db_close(s->st.db);
	repo_free(s->prepo);
	auth_free(s->auth);
	snapshot_release(&s->st.snap);
	for (size_t i = 0; i < sizeof(s->snapc) / sizeof(s->snapc[0]); i++)
		free(s->snapc[i].body);
	free(s->st.stops);
	free(s->st.sigs);
	if (s->st.wake[0] >= 0) {
		close(s->st.wake[0]);
		close(s->st.wake[1]);
	}
	if (s->lockfd >= 0)
		close(s->lockfd);
	free(s);
}

struct server *server_open_bare(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = server_open(cfg, e);
	if (s)
		pthread_create(&s->bare_committer, NULL, committer_main, s);
	return s;
}

void server_close_bare(struct server *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_broadcast(&s->ev_cv);
	pthread_cond_broadcast(&s->commit_cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->bare_committer, NULL);
	server_free(s);
}

int server_run(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = server_open(cfg, e);
	if (!s)
		return -1;
	int rc = -1;
	struct http_server *http = NULL, *metrics_http = NULL;
	bool threads = false;
	pthread_t committer, scheduler;
	const char *how = s->gpus_how;

	/* Signals go to the main thread's sigwait() only. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&committer, NULL, committer_main, s);
	pthread_create(&scheduler, NULL, scheduler_main, s);
	threads = true;
	if (http_start(cfg->listen, cfg->nlisten, s->root, CODEC_MAX_BODY, api_handle, s, &http,
		       e) < 0)
		goto out;
	/* Read-only and without identity: its sockets are world-accessible. */
	char *maddr[1] = {(char *)(uintptr_t)cfg->metrics_listen};
	if (cfg->metrics_listen &&
	    http_start(maddr, 1, true, 1024, metrics_handle, s, &metrics_http, e) < 0)
		goto out;
	log_info("gq serve ready: %d GPU%s (%s, model '%s'), state in '%s', %s clock, %zu jobs in "
		 "memory (active, or ended in the last %d h)",
		 s->st.snap.nodes[0].ngpus, s->st.snap.nodes[0].ngpus == 1 ? "" : "s", how,
		 s->st.snap.nodes[0].gpu_model, cfg->state_dir,
		 cfg->manual_clock ? "manual" : "real", s->st.snap.njobs,
		 STATE_MEMORY_WINDOW / 3600);
	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			/* The tokens file is also read again when it changes;
			 * the policy changes only with 'gq policy apply'. */
			if (cfg->tokens_file) {
				log_info("SIGHUP: reading the tokens file again");
				auth_reload(s->auth);
			} else {
				log_info(
				    "SIGHUP: no tokens file to read again (use 'gq policy apply')");
			}
			continue;
		}
		log_info("%s: shutting down; running jobs keep running",
			 sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}
	rc = 0;
out:
	if (threads) {
		pthread_mutex_lock(&s->mu);
		s->stopping = true;
		pthread_cond_broadcast(&s->ev_cv);
		pthread_cond_broadcast(&s->commit_cv);
		pthread_mutex_unlock(&s->mu);
		http_stop(metrics_http);
		http_stop(http);
		state_wake(&s->st);
		pthread_join(committer, NULL);
		pthread_join(scheduler, NULL);
		/* What the reclamation watches saw since their last write. */
		struct gq_err fe = GQ_ERR_INIT;
		pthread_mutex_lock(&s->mu);
		struct enforce_ctx ec = state_enforce_ctx(&s->st);
		if (db_begin(s->st.db, &fe) < 0 || enforce_flush(s->st.enf, &ec, &fe) < 0 ||
		    db_commit(s->st.db, &fe) < 0) {
			db_rollback(s->st.db);
			log_warn("%s; the next server resumes the reclamation watches from their "
				 "last write",
				 fe.msg);
		}
		pthread_mutex_unlock(&s->mu);
	}
	server_free(s);
	if (rc == 0)
		log_info("stopped");
	return rc;
}
