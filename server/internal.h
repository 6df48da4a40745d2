/*
 * internal.h - what the files of gq serve share (server.c, state.c, loop.c,
 * ops.c): struct server and the functions one of them calls in another.
 * Not for anything outside server/.
 */
#ifndef GQ_SERVER_INTERNAL_H
#define GQ_SERVER_INTERNAL_H

#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/place.h"
#include "core/predict.h"
#include "core/sched.h"
#include "core/share.h"
#include "policy/repo.h"
#include "server/api.h"
#include "server/db.h"
#include "server/enforce.h"
#include "server/gpus.h"
#include "server/http.h"
#include "server/runner.h"
#define RECENT_WINDOW 86400 /* finished jobs a snapshot still shows */
#define MAX_WAIT_MS 60000
#define FULL_PROBE_MS 1000    /* how often a full server tries its journal again */
#define FULL_ROOM (64 * 1024) /* free bytes the state directory needs to leave it */

struct pending_submit {
	struct job job; /* validated, without an id */
	char *command;
	const char *idem;
	bool done, replay;
	bool idem_taken; /* the key names another user's job of the same uid */
	int rc;
	struct gq_err err;
	struct job result;
	struct pending_submit *next;
};

struct stop_rec {
	int64_t id;
	enum stop_intent intent;
	bool killed;
};

/* A signal a stop sends once the stop is committed (journal_commit). */
struct pending_sig {
	int64_t id;
	int sig;
};

struct server {
	const struct server_config *cfg;
	pthread_mutex_t mu;
	pthread_cond_t ev_cv, commit_cv, done_cv;
	struct snapshot snap;
	struct db *db;
	struct runner *runner;
	struct auth *auth;
	struct policy_repo *prepo;
	struct enforce *enf;
	int64_t next_id, last_seq;
	int64_t manual_now;
	int64_t share_prev;
	struct stop_rec *stops;
	size_t nstops, stops_cap;
	struct pending_submit *q_head, *q_tail;
	bool stopping;
	int wake[2];
	bool root;
	/* The journal cannot commit (journal_failed): writes are refused and
	 * the scheduler only tries the journal again (journal_probe). */
	bool full;
	struct gq_err full_err; /* what failed first */
	struct pending_sig *sigs;
	size_t nsigs, sigs_cap;
	int lockfd;		  /* held for the server's life: one server per state directory */
	const char *gpus_how;	  /* "nvidia-smi" or "slots" */
	pthread_t bare_committer; /* server_open_bare's */
};

extern const char *const intent_names[5];

/* state.c */
int64_t now_locked(const struct server *s);
struct enforce_ctx enforce_ctx_of(struct server *s);
void wake_scheduler(struct server *s);
struct stop_rec *stop_find(struct server *s, int64_t id);
void stop_set(struct server *s, int64_t id, enum stop_intent in);
void stop_clear(struct server *s, int64_t id);
int persist(struct server *s, const struct job *j, struct gq_err *e);
int emit(struct server *s, int64_t job, const char *kind, enum job_state from, enum job_state to,
	 const char *reason, const char *actor, struct gq_err *e);
GQ_NORETURN void journal_fatal(const struct gq_err *e);
void full_enter(struct server *s, const struct gq_err *e);
void journal_failed(struct server *s, const struct gq_err *e);
int full_refusal(struct server *s, const char *what, struct gq_err *e);
int journal_commit(struct server *s, struct gq_err *e);
bool journal_probe(struct server *s);
int finish_locked(struct server *s, struct job *j, int status, int64_t ended, const char *why,
		  struct gq_err *e);

/* loop.c */
void copy_locked(struct server *s, struct snapshot *out, int64_t now);
void account(struct server *s, int64_t now);
void load_usage(struct server *s);
int lose_locked(struct server *s, struct job *j, struct gq_err *e);
void *scheduler_main(void *arg);

/* ops.c */
void *committer_main(void *arg);
int policy_put(struct server *s, const struct policy *p, const char *actor, struct gq_err *e);
void policy_refused(struct server *s, const char *oid, const char *why, const char *actor);

/* server.c */
int load_journal(struct server *s, struct gq_err *e);
int recover(struct server *s, bool after_full, struct gq_err *out);

#endif
