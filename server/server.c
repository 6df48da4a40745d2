/*
 * server.c - gq serve's state, journal, group commit and scheduling loop.
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
 * What to start is core's decision (sched_plan); this file carries out the
 * plan, follows processes through the runner and journals every change.
 */
#define _GNU_SOURCE
#include "server/internal.h"

/* ---- start-up and shut-down ---- */

static int load_job(void *arg, int64_t id, uint32_t uid, const char *idem, const char *text,
		    const char *intent, struct gq_err *e)
{
	(void)uid;
	(void)idem;
	struct server *s = arg;
	struct job *j = snapshot_add_job(&s->snap);
	if (codec_job_from_text(text, j, e) < 0) {
		err_prefix(e, "job %" PRId64 " in the journal", id);
		return -1;
	}
	for (int i = 1; i < (int)(sizeof(intent_names) / sizeof(intent_names[0])); i++)
		if (!strcmp(intent, intent_names[i]))
			stop_set(s, id, (enum stop_intent)i);
	if (id >= s->next_id)
		s->next_id = id + 1;
	return 0;
}

/* Memory from the journal: the jobs and their stop intents, the event
 * sequence, enforce's records, the usage. At start-up and after a failed
 * commit (journal_failed); the policy, the clock, the nodes and next_id stay
 * as they are (a failed policy or clock change puts its own back). */
int load_journal(struct server *s, struct gq_err *e)
{
	struct enforce *en = NULL;
	s->snap.njobs = 0;
	s->nstops = 0;
	if (db_event_last(s->db, &s->last_seq, e) < 0 || db_jobs_load(s->db, load_job, s, e) < 0 ||
	    enforce_open(s->db, &en, e) < 0)
		return -1;
	snapshot_sort(&s->snap);
	enforce_free(s->enf);
	s->enf = en;
	memset(s->snap.qstate, 0, sizeof(s->snap.qstate));
	memset(s->snap.dstate, 0, sizeof(s->snap.dstate));
	load_usage(s);
	return 0;
}

/* Finds again the jobs a previous server started: alive ones are adopted,
 * finished ones recorded, never-started ones requeued. At start-up, and
 * when the server leaves the full state (journal_failed). */
int recover(struct server *s, bool after_full, struct gq_err *out)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *while_ =
	    after_full ? "while the journal could not be written" : "while the server was down";
	int64_t *forget = xcalloc(s->snap.njobs + 1, sizeof(*forget));
	size_t nforget = 0;
	if (db_begin(s->db, &e) < 0)
		goto fail;
	for (size_t i = 0; i < s->snap.njobs; i++) {
		struct job *j = &s->snap.jobs[i];
		if (!job_state_holds_gpus(j->state))
			continue;
		int status = -1;
		int64_t ended = 0;
		enum run_state rs = runner_probe(s->runner, j->id, &status, &ended);
		int rc = 0;
		if (rs == RUN_ALIVE) {
			if (!after_full) /* the same server: nothing to adopt */
				log_info("job %" PRId64 ": still running, adopted", j->id);
			if (j->state == JOB_STARTING) {
				j->state = JOB_RUNNING;
				rc = persist(s, j, &e);
				if (rc == 0)
					rc = emit(s, j->id, "state", JOB_STARTING, JOB_RUNNING,
						  "adopted", "scheduler", &e);
			}
		} else if (rs == RUN_EXITED) {
			log_info("job %" PRId64 ": ended %s", j->id, while_);
			rc = finish_locked(s, j, status, ended, NULL, &e);
			forget[nforget++] = j->id;
		} else if (rs == RUN_UNKNOWN && j->state == JOB_STARTING) {
			log_info("job %" PRId64 ": was not started %s; pending again", j->id,
				 while_);
			j->state = JOB_PENDING;
			j->nalloc = 0;
			j->start_time = 0;
			rc = persist(s, j, &e);
			if (rc == 0)
				rc = emit(s, j->id, "state", JOB_STARTING, JOB_PENDING,
					  "not started before the server stopped", "scheduler", &e);
			forget[nforget++] = j->id;
		} else {
			rc = lose_locked(s, j, &e);
			forget[nforget++] = j->id;
		}
		if (rc < 0)
			goto fail;
	}
	if (journal_commit(s, &e) < 0)
		goto fail;
	for (size_t i = 0; i < nforget; i++)
		runner_forget(s->runner, forget[i]);
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
	s->prepo = policy_repo_open_server(s->cfg->state_dir, s->cfg->policy, &e);
	if (!s->prepo) {
		log_warn("policy repository: %s; the built-in default policy is in force", e.msg);
		return 0;
	}
	struct policy *p = xmalloc(sizeof(*p));
	char oid[POLICY_OID_HEX] = "", last[64] = "";
	int rc = 0;
	if (policy_repo_fetch(s->prepo, &e) < 0)
		log_warn("policy fetch: %s", e.msg);
	if (db_meta_get(s->db, "policy.revision", last, sizeof(last), &e) < 0)
		journal_fatal(&e);
	if (policy_repo_resolve(s->prepo, "", oid, &e) == 0 &&
	    policy_repo_load(s->prepo, oid, p, &e) == 0) {
		if (strcmp(p->revision, last) != 0) {
			if (db_begin(s->db, &e) < 0 || policy_put(s, p, "scheduler", &e) < 0 ||
			    journal_commit(s, &e) < 0)
				journal_failed(s, &e); /* in force, recorded by a later start */
		} else {
			s->snap.policy = *p;
		}
		log_info("policy %s in force", p->revision);
	} else {
		policy_refused(s, oid[0] ? oid : "HEAD", e.msg, "scheduler");
		if (last[0] && policy_repo_load(s->prepo, last, p, &e) == 0) {
			s->snap.policy = *p;
			log_info("policy %s (the last good one) in force", last);
		} else {
			log_warn(
			    "no good policy revision; the built-in default policy is in force");
		}
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
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		rc = err_set(e, GQ_EIO, "cannot create state directory '%s': %s", path,
			     strerror(errno));
	free(p);
	return rc;
}

static void server_free(struct server *s);

/* Everything a server is before its threads run: the state directory
 * locked, the journal open and loaded, running jobs found again. NULL with e
 * on failure (what was opened is closed). */
static struct server *server_open(const struct server_config *cfg, struct gq_err *e)
{
	struct server *s = xcalloc(1, sizeof(*s));
	s->lockfd = -1;
	s->cfg = cfg;
	s->root = geteuid() == 0;
	s->next_id = 1;
	s->wake[0] = s->wake[1] = -1;
	snapshot_init(&s->snap);
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->ev_cv, &ca);
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
	if (gpus_detect(&go, snapshot_add_node(&s->snap), &s->gpus_how, e) < 0)
		goto fail;
	char *dbp = xasprintf("%s/gq.db", cfg->state_dir);
	int dbrc = db_open(dbp, &s->db, e);
	free(dbp);
	if (dbrc < 0)
		goto fail;
	if (db_event_last(s->db, &s->last_seq, e) < 0)
		goto fail;
	char clk[32] = "";
	if (db_meta_get(s->db, "clock", clk, sizeof(clk), e) < 0)
		goto fail;
	s->manual_now = clk[0] ? strtoll(clk, NULL, 10) : (int64_t)time(NULL);
	if (cfg->manual_clock && !clk[0]) {
		snprintf(clk, sizeof(clk), "%" PRId64, s->manual_now);
		if (db_meta_set(s->db, "clock", clk, e) < 0)
			goto fail;
	}
	if (load_policy(s) < 0 || load_journal(s, e) < 0)
		goto fail;
	if (runner_open(cfg->state_dir, cfg->exe, &s->runner, e) < 0)
		goto fail;
	struct gq_err re = GQ_ERR_INIT;
	if (recover(s, false, &re) < 0)
		journal_failed(s, &re); /* it starts full, and recovers when space returns */
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
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
	enforce_free(s->enf);
	runner_close(s->runner);
	db_close(s->db);
	policy_repo_free(s->prepo);
	auth_free(s->auth);
	snapshot_release(&s->snap);
	free(s->stops);
	free(s->sigs);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
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
	struct http_server *http = NULL;
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
	log_info(
	    "gq serve ready: %d GPUs (%s, model '%s'), state in '%s', %s clock, %zu jobs known",
	    s->snap.nodes[0].ngpus, how, s->snap.nodes[0].gpu_model, cfg->state_dir,
	    cfg->manual_clock ? "manual" : "real", s->snap.njobs);
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
		http_stop(http);
		wake_scheduler(s);
		pthread_join(committer, NULL);
		pthread_join(scheduler, NULL);
		/* What the reclamation watches saw since their last write. */
		struct gq_err fe = GQ_ERR_INIT;
		pthread_mutex_lock(&s->mu);
		struct enforce_ctx ec = enforce_ctx_of(s);
		if (db_begin(s->db, &fe) < 0 || enforce_flush(s->enf, &ec, &fe) < 0 ||
		    db_commit(s->db, &fe) < 0) {
			db_rollback(s->db);
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
