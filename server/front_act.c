/*
 * front_act.c - gq serve --slurm's callers and their actions (front_act.h):
 * SO_PEERCRED or a forwarded token says who asks, scontrol issues tokens
 * for unix-socket callers, and each action is one Slurm backend opened
 * for that caller alone, with that caller's token. It runs scontrol (its
 * environment cleared, so that it authenticates with munge as the front's
 * own account, never with a SLURM_JWT) and keeps tokens in memory only,
 * never in a log or an answer.
 */
#define _GNU_SOURCE /* struct ucred, pipe2 */
#include "front_act.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/config.h"
#include "server/api.h"
#include "server/log.h"
#include "server/sha256.h"
#include "wire/slurmauth.h"
#include "wire/wire.h"

struct user_token {
	char user[64];
	char *token; /* owned; wiped when freed */
	int64_t exp;
};

struct verified {
	char hash[65]; /* SHA-256 of the token, hex */
	char user[64];
	int64_t until;
};

struct front_act {
	const char *url;
	char own_user[64];
	atomic_bool private_jobs; /* PrivateData has jobs, or could not be read */
	bool private_known;	  /* read once: later reads log only a change */
	pthread_mutex_t lock;	  /* tokens; held while scontrol runs */
	struct user_token tokens[FRONT_USERS_MAX];
	int ntokens;
	pthread_mutex_t seen_lock; /* seen: never waits for scontrol */
	struct verified seen[FRONT_USERS_MAX];
	int nseen;
};

static void wipe_free(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

/* ---- scontrol ---- */

/*
 * Runs scontrol with args (argv[1...]) and an environment of PATH and
 * SLURM_CONF only: its output (stdout and stderr) into out[size]. 0 when
 * it exited 0. With a clean environment it authenticates with munge as
 * the front's own account.
 */
static int scontrol(char *const argv[], char *out, size_t size)
{
	char conf[4096 + 16];
	const char *c = getenv("SLURM_CONF");
	char *envp[3] = {(char *)(uintptr_t) "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
			 NULL, NULL};
	if (c && *c && strlen(c) < 4096) {
		snprintf(conf, sizeof(conf), "SLURM_CONF=%s", c);
		envp[1] = conf;
	}
	int p[2];
	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(out, size, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* Not the front's blocked signals (SIGTERM, SIGINT, SIGPIPE). */
	posix_spawnattr_t at;
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	/* scontrol from the front's PATH (a test may put its own first). */
	int rc = posix_spawnp(&pid, "scontrol", &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		snprintf(out, size, "cannot run scontrol: %s", strerror(rc));
		return -1;
	}
	size_t n = 0;
	for (;;) {
		char tmp[4096];
		ssize_t r = read(p[0], tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t k = (size_t)r < size - 1 - n ? (size_t)r : size - 1 - n;
		memcpy(out + n, tmp, k);
		n += k;
	}
	out[n] = '\0';
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The first line of scontrol's complaint, its "scontrol: error: " left
 * out, into why[size]. */
static void first_line(const char *text, char *why, size_t size)
{
	while (*text == '\n')
		text++;
	if (!strncmp(text, "scontrol: error: ", 17))
		text += 17;
	size_t n = strcspn(text, "\n");
	snprintf(why, size, "%.*s", (int)n, n ? text : "no answer");
}

/* A token for user from scontrol into *tok (caller frees), *exp when it
 * expires. */
static int scontrol_token(const char *user, char **tok, int64_t *exp, struct gq_err *e)
{
	char un[96], life[48];
	snprintf(un, sizeof(un), "username=%s", user);
	snprintf(life, sizeof(life), "lifespan=%d", FRONT_TOKEN_LIFE);
	char *argv[] = {(char *)(uintptr_t) "scontrol", (char *)(uintptr_t) "token", un, life,
			NULL};
	char *out = xmalloc(JWT_MAX + 4096);
	int64_t t0 = time(NULL);
	int rc = scontrol(argv, out, JWT_MAX + 4096);
	char t[JWT_MAX];
	struct gq_err pe = GQ_ERR_INIT;
	if (rc == 0 && slurm_token_answer_parse(out, t, sizeof(t), &pe) == 0) {
		struct jwt_claims cl;
		*exp =
		    jwt_claims_parse(t, &cl, &pe) == 0 && cl.exp ? cl.exp : t0 + FRONT_TOKEN_LIFE;
		*tok = xstrdup(t);
		memset(t, 0, sizeof(t));
		memset(out, 0, JWT_MAX + 4096);
		free(out);
		return 0;
	}
	char why[256];
	if (rc == 0)
		snprintf(why, sizeof(why), "%s", pe.msg);
	else
		first_line(out, why, sizeof(why));
	memset(out, 0, JWT_MAX + 4096);
	free(out);
	return err_set(e, GQ_EUNAVAIL, "'scontrol token username=%s' failed: %s", user, why);
}

/* ---- the front's own token ---- */

static int own_backend(struct front_own *o, const char *token, struct backend **out,
		       struct gq_err *e)
{
	struct jwt_claims cl;
	struct gq_err ce = GQ_ERR_INIT;
	o->exp = jwt_claims_parse(token, &cl, &ce) == 0 ? cl.exp : 0;
	o->warned = false;
	/* slurmrestd wants the user the token names. */
	const char *user = ce.code == GQ_OK && cl.user[0] ? cl.user : o->user;
	/* the poller's: the history of every user's jobs */
	struct backend_target t = {
	    .server = o->url, .qos_map = "", .user = user, .token = token, .all_users = true};
	struct backend *b = backend_slurm.open(&t, e);
	if (!b)
		return -1;
	*out = b;
	return 0;
}

static int own_file_read(struct front_own *o, char *tok, size_t size, struct gq_err *e)
{
	struct stat st;
	if (stat(o->token_file, &st) < 0)
		return err_set(e, GQ_EPERM, "cannot read the token file '%s': %s", o->token_file,
			       strerror(errno));
	if (token_read(o->token_file, tok, size, e) < 0)
		return -1;
	o->file_mtime = st.st_mtim;
	o->file_ino = st.st_ino;
	o->file_size = st.st_size;
	return 0;
}

int front_own_open(struct front_own *o, const char *url, const char *token_file,
		   struct backend **out, struct gq_err *e)
{
	memset(o, 0, sizeof(*o));
	o->url = url;
	o->token_file = token_file;
	struct passwd pw, *pp = NULL;
	char pb[1024];
	if (getpwuid_r(getuid(), &pw, pb, sizeof(pb), &pp) != 0 || !pp)
		return err_set(e, GQ_EPERM, "gq serve --slurm: uid %u has no account name",
			       (unsigned)getuid());
	snprintf(o->user, sizeof(o->user), "%s", pp->pw_name);
	const char *jwt = getenv("SLURM_JWT");
	int rc;
	if (jwt && *jwt) {
		o->src = OWN_ENV;
		rc = own_backend(o, jwt, out, e);
	} else if (token_file) {
		char tok[JWT_MAX];
		o->src = OWN_FILE;
		rc = own_file_read(o, tok, sizeof(tok), e) < 0 ? -1 : own_backend(o, tok, out, e);
		memset(tok, 0, sizeof(tok));
	} else {
		char *tok = NULL;
		int64_t exp = 0;
		struct gq_err se = GQ_ERR_INIT;
		o->src = OWN_SCONTROL;
		if (scontrol_token(o->user, &tok, &exp, &se) < 0)
			return err_set(
			    e, GQ_EPERM,
			    "gq serve --slurm: no Slurm token for the front (%s): set "
			    "SLURM_JWT (from 'scontrol token') or give --slurm-token-file "
			    "FILE",
			    se.msg);
		rc = own_backend(o, tok, out, e);
		o->exp = exp;
		wipe_free(tok);
	}
	if (rc < 0)
		err_prefix(e, "gq serve --slurm");
	return rc;
}

static void when_text(int64_t t, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, size, "%" PRId64, t);
}

void front_own_renew(struct front_own *o, struct backend **b)
{
	int64_t now = time(NULL);
	struct gq_err e = GQ_ERR_INIT;
	struct backend *nb = NULL;
	char when[32];
	if (o->src == OWN_SCONTROL && o->exp && now >= o->exp - FRONT_TOKEN_MARGIN) {
		char *tok = NULL;
		int64_t exp = 0;
		if (scontrol_token(o->user, &tok, &exp, &e) == 0 &&
		    own_backend(o, tok, &nb, &e) == 0) {
			o->exp = exp;
			when_text(exp, when, sizeof(when));
			log_info("renewed the front's own token (scontrol), valid until %s", when);
		} else {
			log_warn("cannot renew the front's own token: %s", e.msg);
		}
		wipe_free(tok);
	} else if (o->src == OWN_FILE) {
		struct stat st;
		if (stat(o->token_file, &st) == 0 &&
		    (st.st_mtim.tv_sec != o->file_mtime.tv_sec ||
		     st.st_mtim.tv_nsec != o->file_mtime.tv_nsec || st.st_ino != o->file_ino ||
		     st.st_size != o->file_size)) {
			char tok[JWT_MAX];
			if (own_file_read(o, tok, sizeof(tok), &e) == 0 &&
			    own_backend(o, tok, &nb, &e) == 0)
				log_info("read the token file '%s' again (it changed)",
					 o->token_file);
			else
				log_warn("the token file '%s' changed but cannot be used: %s",
					 o->token_file, e.msg);
			memset(tok, 0, sizeof(tok));
		}
	}
	if (nb) {
		backend_close(*b);
		*b = nb;
	}
	if (o->src != OWN_SCONTROL && o->exp && !o->warned && now >= o->exp - FRONT_TOKEN_MARGIN) {
		o->warned = true;
		when_text(o->exp, when, sizeof(when));
		log_warn("the front's own token (%s) expires at %s: give it a new one%s",
			 o->src == OWN_ENV ? "SLURM_JWT" : "the token file", when,
			 o->src == OWN_ENV
			     ? " (restart it with a new SLURM_JWT, or use "
			       "--slurm-token-file, which it reads again when it "
			       "changes)"
			     : " (write it to the file: it is read again when it changes)");
	}
}

/* ---- callers ---- */

struct front_act *front_act_new(const char *url, const char *own_user)
{
	struct front_act *a = xcalloc(1, sizeof(*a));
	a->url = url;
	snprintf(a->own_user, sizeof(a->own_user), "%s", own_user);
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->seen_lock, NULL);
	front_act_private_read(a);
	return a;
}

void front_act_private_read(struct front_act *a)
{
	char *argv[] = {(char *)(uintptr_t) "scontrol", (char *)(uintptr_t) "show",
			(char *)(uintptr_t) "config", NULL};
	char *out = xmalloc(1 << 16);
	unsigned pd = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (scontrol(argv, out, 1 << 16) < 0) {
		char why[256];
		first_line(out, why, sizeof(why));
		err_set(&e, GQ_EUNAVAIL, "'scontrol show config' failed: %s", why);
	}
	/* Not read: each user sees only their own jobs, the safe side. */
	bool hide = e.code != GQ_OK || slurm_private_data_parse(out, &pd, &e) < 0 ||
		    (pd & SLURM_PRIVATE_JOBS);
	bool was = atomic_exchange(&a->private_jobs, hide);
	if (!a->private_known || was != hide) {
		if (e.code != GQ_OK)
			log_warn("cannot read Slurm's PrivateData (%s): each user sees only their "
				 "own jobs through the front",
				 e.msg);
		else
			log_info("Slurm's PrivateData %s jobs: %s",
				 hide ? "hides" : "does not hide",
				 hide ? "each user sees only their own jobs through the front"
				      : "every user sees every job, as in squeue");
	}
	a->private_known = true;
	free(out);
}

void front_act_free(struct front_act *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->ntokens; i++)
		wipe_free(a->tokens[i].token);
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->seen_lock);
	free(a);
}

void front_caller_release(struct front_caller *c)
{
	wipe_free(c->token);
	c->token = NULL;
}

static void reply_err(struct http_resp *resp, const struct gq_err *e)
{
	resp->status = err_http_status(e->code);
	resp->body = wire_error_text(e);
	resp->len = strlen(resp->body);
}

/* Is the forwarded token one Slurm accepts, and whose? Under
 * a->seen_lock for the cache only; the ping runs outside it. */
static int verify(struct front_act *a, const char *token, char *user, size_t size, struct gq_err *e)
{
	struct jwt_claims cl;
	if (jwt_claims_parse(token, &cl, e) < 0) {
		err_prefix(e, "%s", FRONT_TOKEN_HEADER);
		e->code = GQ_EPERM;
		return -1;
	}
	if (!cl.user[0])
		return err_set(e, GQ_EPERM,
			       "%s: the token names no user (no \"sun\" claim); use one from "
			       "'scontrol token'",
			       FRONT_TOKEN_HEADER);
	int64_t now = time(NULL);
	if (cl.exp && cl.exp <= now) {
		char when[32];
		when_text(cl.exp, when, sizeof(when));
		return err_set(e, GQ_EPERM,
			       "your Slurm token (SLURM_JWT) expired at %s; get a new one with "
			       "'scontrol token'",
			       when);
	}
	char hash[65];
	sha256_hex(token, strlen(token), hash);
	pthread_mutex_lock(&a->seen_lock);
	for (int i = 0; i < a->nseen; i++)
		if (!strcmp(a->seen[i].hash, hash) && a->seen[i].until > now) {
			snprintf(user, size, "%s", a->seen[i].user);
			pthread_mutex_unlock(&a->seen_lock);
			return 0;
		}
	pthread_mutex_unlock(&a->seen_lock);
	struct backend_target t = {
	    .server = a->url, .qos_map = "", .user = cl.user, .token = token};
	struct backend *b = backend_slurm.open(&t, e);
	if (!b)
		return -1;
	int rc = b->ops->ping(b, e);
	backend_close(b);
	if (rc < 0) {
		/* The Slurm backend's own line says what to do about it. */
		if (e->code != GQ_EUNAVAIL)
			e->code = GQ_EPERM;
		return -1;
	}
	pthread_mutex_lock(&a->seen_lock);
	int k = 0;
	for (int i = 0; i < a->nseen; i++) /* the oldest one makes room */
		if (a->seen[i].until <= now || a->seen[i].until < a->seen[k].until)
			k = i;
	if (a->nseen < FRONT_USERS_MAX)
		k = a->nseen++;
	struct verified *v = &a->seen[k];
	snprintf(v->hash, sizeof(v->hash), "%s", hash);
	snprintf(v->user, sizeof(v->user), "%s", cl.user);
	v->until = cl.exp && cl.exp < now + FRONT_VERIFY_TTL ? cl.exp : now + FRONT_VERIFY_TTL;
	pthread_mutex_unlock(&a->seen_lock);
	snprintf(user, size, "%s", cl.user);
	return 0;
}

bool front_act_caller(struct front_act *a, const struct http_req *req, struct http_resp *resp,
		      struct front_caller *out)
{
	memset(out, 0, sizeof(*out));
	struct gq_err e = GQ_ERR_INIT;
	if (req->unix_socket) {
		struct ucred cr = {.uid = (uid_t)-1};
		socklen_t cl = sizeof(cr);
		if (getsockopt(req->fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) {
			struct passwd pw, *pp = NULL;
			char pb[1024];
			if (getpwuid_r(cr.uid, &pw, pb, sizeof(pb), &pp) == 0 && pp)
				snprintf(out->user, sizeof(out->user), "%s", pp->pw_name);
		}
		out->all_jobs = cr.uid == 0 || (out->user[0] && !strcmp(out->user, a->own_user));
		return true;
	}
	const char *tok = http_header(req, FRONT_TOKEN_HEADER);
	if (!tok || !*tok) {
		err_set(&e, GQ_EPERM,
			"gq serve --slurm over TCP answers only with your own Slurm token: set "
			"SLURM_JWT (from 'scontrol token')");
		resp->status = 401;
		resp->body = wire_error_text(&e);
		resp->len = strlen(resp->body);
		return false;
	}
	if (verify(a, tok, out->user, sizeof(out->user), &e) < 0) {
		reply_err(resp, &e);
		if (e.code == GQ_EPERM)
			resp->status = 401;
		return false;
	}
	out->token = xstrdup(tok);
	out->all_jobs = !strcmp(out->user, "root") || !strcmp(out->user, a->own_user);
	return true;
}

bool front_act_sees(const struct front_act *a, const struct front_caller *c, const struct job *j)
{
	return !atomic_load(&a->private_jobs) || c->all_jobs ||
	       (c->user[0] && !strcmp(j->user, c->user));
}

bool front_act_private(const struct front_act *a, const struct front_caller *c)
{
	return atomic_load(&a->private_jobs) && !c->all_jobs;
}

bool front_act_view(const struct front_act *a, const struct front_caller *c,
		    const struct snapshot *s, struct snapshot *view)
{
	if (!front_act_private(a, c))
		return false;
	*view = *s;
	view->jobs = xcalloc(s->njobs ? s->njobs : 1, sizeof(*view->jobs));
	view->njobs = 0;
	for (size_t i = 0; i < s->njobs; i++)
		if (front_act_sees(a, c, &s->jobs[i]))
			view->jobs[view->njobs++] = s->jobs[i];
	return true;
}

/* ---- acting ---- */

/* A token for user: from the cache, else from scontrol. *tok is the
 * caller's to free. */
static int user_token(struct front_act *a, const char *user, char **tok, struct gq_err *e)
{
	int64_t now = time(NULL);
	pthread_mutex_lock(&a->lock);
	int k = -1;
	for (int i = 0; i < a->ntokens; i++)
		if (!strcmp(a->tokens[i].user, user))
			k = i;
	if (k >= 0 && now < a->tokens[k].exp - FRONT_TOKEN_MARGIN) {
		*tok = xstrdup(a->tokens[k].token);
		pthread_mutex_unlock(&a->lock);
		return 0;
	}
	/* One scontrol at a time: a user's first actions at once ask once. */
	char *t = NULL;
	int64_t exp = 0;
	if (scontrol_token(user, &t, &exp, e) < 0) {
		pthread_mutex_unlock(&a->lock);
		return -1;
	}
	if (k < 0) {
		if (a->ntokens < FRONT_USERS_MAX) {
			k = a->ntokens++;
		} else { /* the one closest to expiry makes room */
			k = 0;
			for (int i = 1; i < a->ntokens; i++)
				if (a->tokens[i].exp < a->tokens[k].exp)
					k = i;
		}
	}
	wipe_free(a->tokens[k].token);
	snprintf(a->tokens[k].user, sizeof(a->tokens[k].user), "%s", user);
	a->tokens[k].token = t;
	a->tokens[k].exp = exp;
	*tok = xstrdup(t);
	pthread_mutex_unlock(&a->lock);
	log_debug("a token for '%s' from scontrol", user);
	return 0;
}

/* The Slurm backend acting as c. */
static struct backend *caller_backend(struct front_act *a, const struct front_caller *c,
				      struct gq_err *e)
{
	if (!c->user[0]) {
		err_set(e, GQ_EPERM,
			"your uid has no account name on the front's host: gq serve --slurm acts "
			"in Slurm only as a named user");
		return NULL;
	}
	char *tok = NULL;
	if (c->token) {
		tok = xstrdup(c->token);
	} else if (user_token(a, c->user, &tok, e) < 0) {
		char why[200];
		snprintf(why, sizeof(why), "%s", e->msg);
		err_set(e, GQ_EUNAVAIL,
			"gq serve --slurm cannot act as '%s': %s (slurmctld issues other users' "
			"tokens only to root and SlurmUser); run the command with "
			"GQ_BACKEND=slurm and your own SLURM_JWT meanwhile",
			c->user, why);
		return NULL;
	}
	struct backend_target t = {.server = a->url, .qos_map = "", .user = c->user, .token = tok};
	struct backend *b = backend_slurm.open(&t, e);
	wipe_free(tok);
	return b;
}

/* The action verbs of POST /v1/jobs/ID/VERB. */
enum verb {
	V_CANCEL,
	V_HOLD,
	V_RELEASE,
	V_REQUEUE,
	V_OVERRIDE,
	V_CONFIRM,
	V_CHECKPOINT,
	V_UPDATE,
	V_PRIORITY,
};
static const char *const verbs[] = {"cancel",  "hold",	     "release", "requeue", "override",
				    "confirm", "checkpoint", "update",	"priority"};

static int do_submit(struct backend *b, const struct http_req *req, int64_t *id, struct gq_err *e)
{
	struct submission sub;
	if (wire_submit_parse(req->body, req->body_len, &sub, e) < 0)
		return -1;
	int64_t given = 0;
	const char *g = http_header(req, "Gq-Submit-Given");
	if (g && parse_int64(g, 0, 0xffff, &given, e) < 0) {
		submission_release(&sub);
		err_prefix(e, "header Gq-Submit-Given");
		e->code = GQ_EINVAL;
		return -1;
	}
	char *nul[] = {NULL};
	struct submit_req r = {
	    .job = sub.job,
	    .given = (unsigned)given,
	    .argv = sub.argv ? sub.argv : nul,
	    .cwd = sub.cwd,
	    .env = sub.env,
	    .script = sub.script,
	    .idempotency_key = http_header(req, "Idempotency-Key"),
	    .array = sub.array,
	    .output = sub.output,
	    .error = sub.error,
	    .notify_webhook = sub.notify_webhook,
	    .notify_command = sub.notify_command,
	};
	struct window_stop win;
	bool has_win = false;
	int rc = b->ops->submit(b, &r, id, &win, &has_win, e);
	submission_release(&sub);
	return rc;
}

static int do_verb(struct backend *b, enum verb v, int64_t id, const struct http_req *req,
		   struct gq_err *e)
{
	char *reason = NULL;
	enum tier tier = TIER_COUNT;
	bool clear = false;
	int rc = -1;
	switch (v) {
	case V_UPDATE: {
		struct job_update u;
		if (wire_update_parse(req->body, req->body_len, &u, e) == 0)
			rc = b->ops->update(b, id, &u, e);
		break;
	}
	case V_PRIORITY: {
		int64_t prio;
		if (wire_priority_parse(req->body, req->body_len, &prio, e) == 0)
			rc = b->ops->priority(b, id, prio, e);
		break;
	}
	case V_HOLD:
		if (wire_hold_parse(req->body, req->body_len, &reason, e) == 0)
			rc = b->ops->hold(b, id, reason, e);
		break;
	case V_OVERRIDE:
		if (wire_override_parse(req->body, req->body_len, &tier, &clear, &reason, e) == 0)
			rc = b->ops->override(b, id, tier, clear, reason, e);
		break;
	default:
		if (wire_empty_parse(req->body, req->body_len, verbs[v], e) < 0)
			break;
		rc = v == V_CANCEL    ? b->ops->cancel(b, id, e)
		     : v == V_RELEASE ? b->ops->release(b, id, e)
		     : v == V_REQUEUE ? b->ops->requeue(b, id, e)
		     : v == V_CONFIRM ? b->ops->confirm(b, id, e)
				      : b->ops->checkpoint(b, id, e);
	}
	free(reason);
	return rc;
}

void front_act_history(struct front_act *a, const struct front_caller *c,
		       const struct http_req *req, struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	struct history_query q = {0};
	const unsigned active =
	    (1u << JOB_PENDING) | (1u << JOB_STARTING) | (1u << JOB_RUNNING) | (1u << JOB_STOPPING);
	bool lean;
	if (api_query_states(req, &q.states, &e) < 0 || api_query_lean(req, &lean, &e) < 0 ||
	    http_query_int(req, "since", 0, GQ_TIME_MAX, 0, &q.since, &e) < 0 ||
	    http_query_int(req, "until", 0, GQ_TIME_MAX, 0, &q.until, &e) < 0) {
		reply_err(resp, &e);
		return;
	}
	if (!q.states || (q.states & active)) {
		err_set(&e, GQ_EINVAL,
			"through gq serve --slurm, GET /v1/jobs lists finished jobs (state= "
			"completed, failed, cancelled or timeout); the queue is GET /v1/snapshot");
		reply_err(resp, &e);
		return;
	}
	const char *user = http_query(req, "user");
	q.user = user && user[0] ? user : NULL;
	struct backend *b = caller_backend(a, c, &e);
	struct job *jobs = NULL;
	size_t n = 0;
	if (!b || b->ops->history(b, &q, &jobs, &n, &e) < 0) {
		log_info("GET /v1/jobs for '%s' refused: %s", c->user[0] ? c->user : "?", e.msg);
		backend_close(b);
		reply_err(resp, &e);
		return;
	}
	backend_close(b);
	resp->body = codec_jobs_text(jobs, n, lean, &resp->len);
	resp->status = 200;
	jobs_free(jobs, n);
}

void front_act_files(struct front_act *a, const struct front_caller *c, int64_t id,
		     struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	struct backend *b = caller_backend(a, c, &e);
	struct job_info ji;
	if (!b || b->ops->job(b, id, &ji, &e) < 0) {
		backend_close(b);
		reply_err(resp, &e);
		return;
	}
	backend_close(b);
	const char *v[4] = {ji.cwd, ji.stdout_path, ji.stderr_path, ji.argv ? ji.argv[0] : NULL};
	resp->body = wire_job_files_text(v);
	resp->len = strlen(resp->body);
	resp->status = 200;
	job_info_release(&ji);
}

void front_act_handle(struct front_act *a, const struct front_caller *c, const struct http_req *req,
		      struct http_resp *resp)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *p = req->path;
	int64_t id = 0;
	int v = -1;
	bool submit = !strcmp(p, "/v1/jobs");
	if (!submit && !strncmp(p, "/v1/jobs/", 9)) {
		char *end;
		long long n = strtoll(p + 9, &end, 10);
		if (n > 0 && *end == '/')
			for (int i = 0; i < (int)(sizeof(verbs) / sizeof(verbs[0])); i++)
				if (!strcmp(end + 1, verbs[i]))
					v = i, id = n;
	}
	if (!strcmp(req->method, "POST") &&
	    (!strcmp(p, "/v1/clock") || !strcmp(p, "/v1/policy/apply"))) {
		/* What Slurm has no counterpart for is refused in the Slurm
		 * backend's own words (it asks slurmrestd nothing for them). */
		struct backend_target t = {
		    .server = a->url, .qos_map = "", .user = "-", .token = "-"};
		struct backend *b = backend_slurm.open(&t, &e);
		int64_t now;
		char *applied = NULL;
		if (b && (p[4] == 'c' ? b->ops->clock(b, 1, &now, &e)
				      : b->ops->policy_apply(b, "", &applied, &e)) == 0)
			err_set(&e, GQ_EINTERNAL, "the Slurm backend did not refuse '%s'", p);
		free(applied);
		backend_close(b);
		reply_err(resp, &e);
		return;
	}
	if (strcmp(req->method, "POST") || (!submit && v < 0)) {
		err_set(&e, GQ_ENOENT,
			"gq serve --slurm does not answer %s '%s' (it passes jobs' actions to "
			"Slurm: submit, cancel, hold, release, prio, update)",
			req->method, p);
		reply_err(resp, &e);
		return;
	}
	if (req->too_big) {
		err_set(&e, GQ_ETOOBIG, "the request is over the front's limit of %u bytes",
			CODEC_MAX_BODY);
		reply_err(resp, &e);
		return;
	}
	struct backend *b = caller_backend(a, c, &e);
	if (!b) {
		log_info("%s %s for '%s' refused: %s", req->method, p, c->user[0] ? c->user : "?",
			 e.msg);
		reply_err(resp, &e);
		return;
	}
	int rc = submit ? do_submit(b, req, &id, &e) : do_verb(b, (enum verb)v, id, req, &e);
	backend_close(b);
	if (rc < 0) {
		log_info("%s %s as '%s': %s", req->method, p, c->user, e.msg);
		reply_err(resp, &e);
		return;
	}
	log_info("%s %s as '%s'%s: done", req->method, p, c->user, c->token ? " (its token)" : "");
	resp->status = submit ? 201 : 200;
	/* A submission Slurm created with an error beside its id: done, and
	 * Slurm's words go to the client as a warning. */
	resp->body = wire_submitted_text(id, submit ? e.msg : NULL);
	resp->len = strlen(resp->body);
}
