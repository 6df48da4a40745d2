/*
 * front_act.h - who asks gq serve --slurm, and acting for them: the
 * front's callers' identities and Slurm tokens, the actions they ask
 * (submit, cancel, hold, release, prio, update) done as them, and the
 * front's own token, kept fresh. front.c keeps the poller and the reads;
 * nothing here polls.
 *
 * Identity. On a unix socket the caller is the peer's uid
 * (SO_PEERCRED) and its local account's name; the front acts with a token
 * for that name from 'scontrol token username=U lifespan=FRONT_TOKEN_LIFE'
 * (which slurmctld issues for another user only to root and SlurmUser),
 * kept per user until FRONT_TOKEN_MARGIN seconds before it expires. Over
 * TCP the caller sends its own Slurm token in the FRONT_TOKEN_HEADER
 * header: the user is the token's "sun" claim, and the token is believed
 * once slurmrestd has answered a ping with it (remembered, by its SHA-256,
 * for FRONT_VERIFY_TTL seconds or until it expires); actions go to Slurm
 * with exactly that token. The front's own token never acts for a caller.
 *
 * Reads follow Slurm's PrivateData ('scontrol show config', read at
 * start): when it includes jobs, or cannot be read, a caller other than
 * root and the front's own user sees only their own jobs.
 */
#ifndef GQ_SERVER_FRONT_ACT_H
#define GQ_SERVER_FRONT_ACT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "backend/backend.h"
#include "core/job.h"
#include "server/http.h"

#define FRONT_TOKEN_HEADER "Gq-Slurm-Token"
#define FRONT_TOKEN_LIFE 3600  /* seconds: the tokens the front asks scontrol for */
#define FRONT_TOKEN_MARGIN 600 /* renewed this long before they expire */
#define FRONT_VERIFY_TTL 300   /* a forwarded token believed this long after a ping */
#define FRONT_USERS_MAX 256    /* tokens (and verified tokens) kept at most */

struct front_act;

/* Where the front's own token comes from. */
enum front_own_src { OWN_ENV, OWN_FILE, OWN_SCONTROL };

/* The front's own token, for reading (the poller's alone). */
struct front_own {
	enum front_own_src src;
	const char *url;
	const char *token_file;
	char user[64];
	int64_t exp; /* 0 unknown */
	bool warned;
	struct timespec file_mtime; /* OWN_FILE: the file read last */
	ino_t file_ino;
	off_t file_size;
};

/* The front's own Slurm backend: SLURM_JWT, else token_file, else a token
 * from scontrol for the front's own user. -1 with e (GQ_EPERM) when none
 * works. */
int front_own_open(struct front_own *o, const char *url, const char *token_file,
		   struct backend **out, struct gq_err *e);
/* Before each poll: a token from scontrol is asked for again
 * FRONT_TOKEN_MARGIN seconds before it expires, a token file read again
 * when it changed (*b is then replaced); SLURM_JWT cannot be renewed and
 * is warned about in the log, once, when less than FRONT_TOKEN_MARGIN
 * seconds are left. Failures are logged; *b stays. */
void front_own_renew(struct front_own *o, struct backend **b);

/* url: slurmrestd's; own_user: the front's own account. Reads PrivateData. */
struct front_act *front_act_new(const char *url, const char *own_user);
/* Reads Slurm's PrivateData again ('scontrol show config'; the poller does
 * every FRONT_PRIVATE_EVERY seconds), logging a change: a slurm.conf
 * changed since the start is followed without a restart. Not read: each
 * user sees only their own jobs. */
#define FRONT_PRIVATE_EVERY 60
void front_act_private_read(struct front_act *a);
void front_act_free(struct front_act *a);

/* A caller of the front. */
struct front_caller {
	char user[64]; /* "" when it is not known */
	bool all_jobs; /* may see every job (PrivateData permitting) */
	char *token;   /* TCP: the forwarded token (owned), else NULL */
};
void front_caller_release(struct front_caller *c);

/* Who asks req. On a unix socket always (user "" for a uid without an
 * account); over TCP a request without a token that Slurm accepts is
 * answered here (401) and false is returned. */
bool front_act_caller(struct front_act *a, const struct http_req *req, struct http_resp *resp,
		      struct front_caller *out);

/* Does c see only some jobs (Slurm's PrivateData hides the others)? */
bool front_act_private(const struct front_act *a, const struct front_caller *c);

/* Does c see job j? */
bool front_act_sees(const struct front_act *a, const struct front_caller *c, const struct job *j);

/* When c may not see every job of s: true with *view, a shallow copy of s
 * with only the jobs c sees, valid while s is; free(view->jobs) only (never
 * snapshot_release). false when c sees s whole. */
bool front_act_view(const struct front_act *a, const struct front_caller *c,
		    const struct snapshot *s, struct snapshot *view);

/* GET /v1/jobs (gq history): finished jobs from slurmdbd, asked as c, so
 * that c sees what sacct shows c; the query is gq serve's (state, user,
 * since, until), active states refused. */
void front_act_history(struct front_act *a, const struct front_caller *c,
		       const struct http_req *req, struct http_resp *resp);

/* GET /v1/jobs/ID/files: in which directory job id runs, where it writes
 * (output and error, the paths Slurm gives, expanded) and its command
 * when Slurm says it, from slurmctld asked as c (so that c sees what
 * scontrol shows c): the client reads its log there, as the user. */
void front_act_files(struct front_act *a, const struct front_caller *c, int64_t id,
		     struct http_resp *resp);

/* Answers a non-GET request (an action) of caller c, done in Slurm as c. */
void front_act_handle(struct front_act *a, const struct front_caller *c, const struct http_req *req,
		      struct http_resp *resp);

#endif
