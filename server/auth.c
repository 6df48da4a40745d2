/*
 * auth.c - peer credentials, the tokens file, and account lookups.
 *
 * The tokens file is re-read when it changes on disk, so that an admin
 * revokes or adds a token without restarting the server. It is not a
 * policy: what an identity may do is decided in ops.c.
 */
#define _GNU_SOURCE
#include "auth.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sha256.h"

struct token {
	char hash[65];
	char user[32];
	enum role role;
	uint32_t uid, gid;
};

/* What identifies one version of the tokens file on disk. */
struct file_sig {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	bool present;
};

/* The tokens in force and the version of the file they came from. The
 * HTTP threads share it, hence the lock; it sits behind a pointer so that
 * a const struct auth can still refresh it. */
struct tokens {
	pthread_mutex_t mu;
	char *path;
	struct token *v;
	size_t n;
	struct file_sig sig;	/* the version last looked at */
	struct file_sig warned; /* the last bad version warned about */
	/* The version was looked at within a timestamp tick of its last
	 * change: a rewrite in the same tick would leave sig equal, so read
	 * it again next time (git's "racy" index entries). */
	bool racy;
};

struct auth {
	uid_t self;
	struct tokens *tok; /* NULL without a tokens file */
	gid_t admin_gids[32];
	int nadmin;
};

static bool lookup_uid(uint32_t uid, char *user, size_t size, uint32_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	if (user)
		str_copy(user, size, pw.pw_name);
	if (gid)
		*gid = pw.pw_gid;
	return true;
}

static bool lookup_name(const char *name, uint32_t *uid, uint32_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*uid = pw.pw_uid;
	*gid = pw.pw_gid;
	return true;
}

void auth_home(uint32_t uid, char *out, size_t size)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && pw.pw_dir &&
	    pw.pw_dir[0] == '/')
		str_copy(out, size, pw.pw_dir);
	else
		str_copy(out, size, "/");
}

/* Reads path into a new array (*out, *n); nothing is written on failure. */
static int parse_tokens(uid_t self, const char *path, struct token **out, size_t *nout,
			struct gq_err *e)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return err_set(e, errno == ENOENT ? GQ_ENOENT : GQ_EIO,
			       "cannot read tokens file '%s': %s", path, strerror(errno));
	char line[512];
	int lineno = 0, rc = 0;
	struct token *v = NULL;
	size_t n = 0, cap = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char hash[80], user[64], role[16];
		unsigned long uid = 0;
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		int k = sscanf(p, "%79s %63s %15s %lu", hash, user, role, &uid);
		struct token t;
		memset(&t, 0, sizeof(t));
		if (k < 3 || strlen(hash) != 64 || strspn(hash, "0123456789abcdef") != 64) {
			rc = err_set(
			    e, GQ_EINVAL,
			    "tokens file '%s' line %d: expected 'SHA256HEX USER ROLE [UID]'", path,
			    lineno);
			break;
		}
		if (!name_valid(user) || strlen(user) >= sizeof(t.user)) {
			rc = err_set(e, GQ_EINVAL, "tokens file '%s' line %d: bad user name '%s'",
				     path, lineno, user);
			break;
		}
		if (!strcmp(role, "admin"))
			t.role = ROLE_ADMIN;
		else if (!strcmp(role, "user"))
			t.role = ROLE_USER;
		else {
			rc = err_set(
			    e, GQ_EINVAL,
			    "tokens file '%s' line %d: role '%s' is neither 'user' nor 'admin'",
			    path, lineno, role);
			break;
		}
		STR_COPY(t.hash, hash);
		STR_COPY(t.user, user);
		if (k == 4) {
			t.uid = (uint32_t)uid;
			if (!lookup_uid(t.uid, NULL, 0, &t.gid))
				t.gid = t.uid;
		} else if (!lookup_name(user, &t.uid, &t.gid)) {
			/* The server's own uid: on a root server that would
			 * run a mere user's jobs as root. */
			if (self == 0 && t.role == ROLE_USER) {
				rc = err_set(
				    e, GQ_EINVAL,
				    "tokens file '%s' line %d: user '%s' has no local account, so "
				    "its jobs would run as root; add the UID they run as",
				    path, lineno, user);
				break;
			}
			t.uid = self;
			t.gid = getgid();
		}
		GROW(v, cap, n + 1);
		v[n++] = t;
	}
	fclose(f);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = n;
	return 0;
}

static void sig_of(const struct stat *st, struct file_sig *out)
{
	memset(out, 0, sizeof(*out));
	out->dev = st->st_dev;
	out->ino = st->st_ino;
	out->size = st->st_size;
	out->mtime = st->st_mtim;
	out->ctime = st->st_ctim;
	out->present = true;
}

static bool sig_equal(const struct file_sig *a, const struct file_sig *b)
{
	return a->present == b->present && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static bool tokens_equal(const struct token *a, size_t na, const struct token *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i].hash, b[i].hash) || strcmp(a[i].user, b[i].user) ||
		    a[i].role != b[i].role || a[i].uid != b[i].uid || a[i].gid != b[i].gid)
			return false;
	return true;
}

/* Re-reads the file when its version changed (or always when force); a
 * file that does not parse or is gone keeps the tokens in force, with one
 * warning per bad version. Lock held. */
static void tokens_refresh_locked(struct tokens *t, uid_t self, bool force)
{
	struct stat st;
	struct file_sig now;
	memset(&now, 0, sizeof(now));
	if (stat(t->path, &st) == 0)
		sig_of(&st, &now);
	if (!force && !t->racy && sig_equal(&now, &t->sig))
		return;
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	/* Timestamps move in ticks of a few milliseconds; within 2 s of the
	 * last change, trust nothing but the content. */
	t->racy = now.present &&
		  (now.mtime.tv_sec >= wall.tv_sec - 2 || now.ctime.tv_sec >= wall.tv_sec - 2);
	t->sig = now;
	struct gq_err e = GQ_ERR_INIT;
	struct token *v = NULL;
	size_t n = 0;
	if (parse_tokens(self, t->path, &v, &n, &e) < 0) {
		if (force || !sig_equal(&now, &t->warned))
			log_warn("%s; the %zu tokens read before stay in force", e.msg, t->n);
		t->warned = now;
		return;
	}
	if (!tokens_equal(v, n, t->v, t->n))
		log_info("tokens file '%s' read again: %zu tokens", t->path, n);
	else if (force)
		log_info("tokens file '%s' read again: unchanged, %zu tokens", t->path, n);
	free(t->v);
	t->v = v;
	t->n = n;
}

void auth_reload(struct auth *a)
{
	if (!a->tok)
		return;
	pthread_mutex_lock(&a->tok->mu);
	tokens_refresh_locked(a->tok, a->self, true);
	pthread_mutex_unlock(&a->tok->mu);
}

int auth_open(const char *tokens_file, uid_t self_uid, const char *admin_groups, struct auth **out,
	      struct gq_err *e)
{
	struct auth *a = xcalloc(1, sizeof(*a));
	a->self = self_uid;
	if (tokens_file) {
		struct tokens *t = xcalloc(1, sizeof(*t));
		pthread_mutex_init(&t->mu, NULL);
		t->path = xstrdup(tokens_file);
		a->tok = t;
		/* The version is taken before the read: a change during the
		 * read is then seen at the next request. */
		struct stat st;
		if (stat(tokens_file, &st) == 0)
			sig_of(&st, &t->sig);
		struct timespec wall;
		clock_gettime(CLOCK_REALTIME, &wall);
		t->racy = t->sig.mtime.tv_sec >= wall.tv_sec - 2 ||
			  t->sig.ctime.tv_sec >= wall.tv_sec - 2;
		if (parse_tokens(self_uid, tokens_file, &t->v, &t->n, e) < 0) {
			auth_free(a);
			return -1;
		}
	}
	if (admin_groups) {
		char *list = xstrdup(admin_groups), *save = NULL;
		for (char *g = strtok_r(list, " ,", &save); g; g = strtok_r(NULL, " ,", &save)) {
			struct group gr, *res = NULL;
			char buf[8192];
			if (getgrnam_r(g, &gr, buf, sizeof(buf), &res) != 0 || !res) {
				err_set(e, GQ_EINVAL, "unknown group '%s' in --admin-group", g);
				free(list);
				auth_free(a);
				return -1;
			}
			if (a->nadmin < 32)
				a->admin_gids[a->nadmin++] = gr.gr_gid;
		}
		free(list);
	}
	*out = a;
	return 0;
}

void auth_free(struct auth *a)
{
	if (!a)
		return;
	if (a->tok) {
		pthread_mutex_destroy(&a->tok->mu);
		free(a->tok->path);
		free(a->tok->v);
		free(a->tok);
	}
	free(a);
}

int auth_groups(const char *user, uint32_t gid, gid_t *out, int max)
{
	int n = max;
	if (getgrouplist(user, gid, out, &n) < 0) {
		out[0] = gid;
		return 1;
	}
	return n;
}

void auth_group_names(uint32_t uid, const char *user, uint32_t gid, char *out, size_t size)
{
	(void)uid;
	gid_t g[64];
	int n = auth_groups(user, gid, g, 64);
	struct buf b;
	buf_init(&b, size ? size - 1 : 1);
	for (int i = 0; i < n; i++) {
		struct group gr, *res = NULL;
		char tmp[8192];
		if (getgrgid_r(g[i], &gr, tmp, sizeof(tmp), &res) == 0 && res)
			buf_printf(&b, "%s%s", b.len ? " " : "", gr.gr_name);
	}
	str_copy(out, size, b.data ? b.data : "");
	buf_release(&b);
}

int auth_peer(const struct auth *a, int fd, struct identity *out, struct gq_err *e)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return err_set(e, GQ_EPERM, "cannot tell who is asking: %s", strerror(errno));
	if (a->self != 0 && cr.uid != a->self) {
		char me[32] = "";
		if (!lookup_uid(a->self, me, sizeof(me), NULL))
			snprintf(me, sizeof(me), "%u", (unsigned)a->self);
		return err_set(e, GQ_EPERM,
			       "this gq serve belongs to '%s' and serves only that user; use your "
			       "own server or ask an admin for a shared one",
			       me);
	}
	struct identity id;
	memset(&id, 0, sizeof(id));
	id.uid = cr.uid;
	id.gid = cr.gid;
	id.local = true;
	if (!lookup_uid(cr.uid, id.user, sizeof(id.user), NULL))
		snprintf(id.user, sizeof(id.user), "%u", (unsigned)cr.uid);
	id.role = (cr.uid == 0 || cr.uid == a->self) ? ROLE_ADMIN : ROLE_USER;
	if (id.role == ROLE_USER && a->nadmin > 0) {
		gid_t g[64];
		int n = auth_groups(id.user, id.gid, g, 64);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < a->nadmin; k++)
				if (g[i] == a->admin_gids[k])
					id.role = ROLE_ADMIN;
	}
	*out = id;
	return 0;
}

int auth_bearer(const struct auth *a, const char *header, struct identity *out, struct gq_err *e)
{
	if (!header)
		return err_set(
		    e, GQ_EPERM,
		    "no bearer token: send 'Authorization: Bearer TOKEN' (GQ_TOKEN_FILE)");
	if (strncasecmp(header, "Bearer ", 7) != 0)
		return err_set(e, GQ_EPERM, "the Authorization header is not 'Bearer TOKEN'");
	const char *tok = header + 7;
	while (*tok == ' ')
		tok++;
	char hex[65];
	sha256_hex(tok, strlen(tok), hex);
	struct tokens *t = a->tok;
	if (!t)
		return err_set(e, GQ_EPERM, "unknown bearer token; ask an admin for one");
	pthread_mutex_lock(&t->mu);
	tokens_refresh_locked(t, a->self, false);
	int rc = -1;
	for (size_t i = 0; i < t->n; i++) {
		/* Compare every byte so the time taken does not tell how much
		 * of a guess was right. */
		unsigned diff = 0;
		for (int k = 0; k < 64; k++)
			diff |= (unsigned)(hex[k] ^ t->v[i].hash[k]);
		if (diff == 0 && rc < 0) {
			struct identity id;
			memset(&id, 0, sizeof(id));
			STR_COPY(id.user, t->v[i].user);
			id.uid = t->v[i].uid;
			id.gid = t->v[i].gid;
			id.role = t->v[i].role;
			*out = id;
			rc = 0;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (rc < 0)
		return err_set(e, GQ_EPERM, "unknown bearer token; ask an admin for one");
	return 0;
}
