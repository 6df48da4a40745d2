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

#include "core/array.h"
#include "core/outpat.h"
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
#include "server/notify.h"
#include "server/runner.h"
#include "server/state.h"
#include "wire/prom.h"
#define RECENT_WINDOW 86400 /* finished jobs a snapshot still shows */
_Static_assert(STATE_MEMORY_WINDOW > RECENT_WINDOW,
	       "memory must hold every finished job a snapshot shows (state.h)");
#define MAX_WAIT_MS 60000
#define FULL_PROBE_MS 1000     /* how often a full server tries its journal again */
#define LIVE_PROBE_MS 2000     /* how often running jobs' supervisors are asked (loop.c) */
#define START_PAUSE_MS 10000   /* no start for so long after one the server failed */
#define SPOOL_KEEP (7 * 86400) /* a finished job's spool (its log) is kept so long (s) */

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
	const struct array_spec *arr; /* an array's tasks (core/array.h), or NULL */
};

/* GET /v1/snapshot's last answer in one form (server_snapshot_text). */
struct snap_cache {
	uint64_t gen; /* db_changes() when it was made */
	int64_t now;  /* the server's clock then */
	int64_t seq;  /* its Gq-Event-Seq */
	char *body;
	size_t len;
	bool busy; /* being made: wait for it */
};

/* gq serve: its journalled state (state.h) and what runs it. Everything
 * is guarded by mu (the snapshot cache by snapc_mu). */
struct server {
	struct state st;
	pthread_mutex_t mu;
	pthread_cond_t ev_cv, commit_cv, done_cv;
	struct auth *auth;
	struct policy_repo *prepo;
	struct pending_submit *q_head, *q_tail; /* for the committer */
	bool stopping;
	bool root;
	int lockfd;		  /* held for the server's life: one server per state directory */
	const char *gpus_how;	  /* "nvidia-smi" or "slots" */
	pthread_t bare_committer; /* server_open_bare's */
	struct prom_hist passes;  /* how long each scheduling pass took, seconds (GET /metrics) */
	double live_probe_at;	  /* mono_s() of the next probe_alive (loop.c) */
	double start_pause_until; /* mono_s(): no start before (a start the server failed) */
	int64_t spool_sweep_at;	  /* server clock: the next sweep_spools (loop.c) */
	int64_t spool_swept_to;	  /* spools of jobs ended before this are gone */
	pthread_mutex_t snapc_mu;
	pthread_cond_t snapc_cv;
	struct snap_cache snapc[2]; /* by enum codec_form */
};

/* loop.c */
void copy_locked(struct server *s, struct snapshot *out, int64_t now);
void *scheduler_main(void *arg);

/* ops.c */
/* The file of a -o / -e pattern for j: absolute, relative ones under cwd;
 * NULL when pattern is NULL or does not expand (checked at submit).
 * Caller frees. */
char *ops_job_file(const char *pattern, const struct job *j, const char *cwd);
void *committer_main(void *arg);
/* Every event with seq <= upto, oldest first, read in pages under the lock
 * a page at a time; *out is the caller's. */
int ops_all_events(struct server *s, int64_t upto, struct event **out, size_t *n, struct gq_err *e);
int ops_policy_put(struct server *s, const struct policy *p, const char *actor, struct gq_err *e);
void ops_policy_refused(struct server *s, const char *oid, const char *why, const char *actor);

/* server.c */
int recover(struct server *s, bool after_full, struct gq_err *out);

#endif
