/*
 * config.c - the client's configuration (see config.h). libgit2 parses the
 * file; this file is the only place of the client that touches libgit2.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/policy.h"

/* The user's home: $HOME when it is an absolute path, else the passwd
 * entry's (a job, cron or "env -i" may leave HOME empty; "." would put the
 * state of gq wherever the command happens to run). */
static int home_dir(char *out, size_t size, struct gq_err *e)
{
	const char *home = getenv("HOME");
	if (home && home[0] == '/') {
		snprintf(out, size, "%s", home);
		return 0;
	}
	struct passwd pw, *res = NULL;
	char tmp[4096];
	if (getpwuid_r(getuid(), &pw, tmp, sizeof(tmp), &res) == 0 && res && res->pw_dir &&
	    res->pw_dir[0] == '/') {
		snprintf(out, size, "%s", res->pw_dir);
		return 0;
	}
	return err_set(e, GQ_EINVAL,
		       "no home directory: HOME is %s and uid %u has no home in the passwd "
		       "database; set HOME to an absolute path",
		       home && *home ? "not an absolute path" : "not set", (unsigned)getuid());
}

static int home_based(char *out, size_t size, const char *xdg_var, const char *home_rel,
		      const char *leaf, struct gq_err *e)
{
	const char *x = getenv(xdg_var);
	if (x && x[0] == '/') {
		snprintf(out, size, "%s/%s", x, leaf);
		return 0;
	}
	char home[GQ_PATH_MAX];
	if (home_dir(home, sizeof(home), e) < 0)
		return -1;
	snprintf(out, size, "%s/%s/%s", home, home_rel, leaf);
	return 0;
}

int config_path(char *out, size_t size, struct gq_err *e)
{
	return home_based(out, size, "XDG_CONFIG_HOME", ".config", "gq/config", e);
}

/* mkdir -p with mode 0700 for the directories it makes. */
static int mkdirs(const char *path, struct gq_err *e)
{
	char tmp[GQ_PATH_MAX];
	if (!str_copy(tmp, sizeof(tmp), path))
		return err_set(e, GQ_EINVAL, "path '%s' is too long", path);
	for (char *p = tmp + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			return err_set(e, GQ_EIO, "cannot create directory '%s': %s", tmp,
				       strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

int state_dir(char *out, size_t size, bool create, struct gq_err *e)
{
	if (home_based(out, size, "XDG_STATE_HOME", ".local/state", "gq", e) < 0)
		return -1;
	return create ? mkdirs(out, e) : 0;
}

char *config_policy_repo(struct gq_err *e)
{
	const char *env = getenv("GQ_POLICY_REPO");
	if (env && *env)
		return xstrdup(env);
	char dir[GQ_PATH_MAX];
	if (state_dir(dir, sizeof(dir), false, e) < 0)
		return NULL;
	return xasprintf("%s/policy", dir);
}

int default_socket(char *out, size_t size, bool create, struct gq_err *e)
{
	char dir[GQ_PATH_MAX];
	const char *rt = getenv("XDG_RUNTIME_DIR");
	if (rt && rt[0] == '/')
		snprintf(dir, sizeof(dir), "%s/gq", rt);
	else
		snprintf(dir, sizeof(dir), "/tmp/gq-%u", (unsigned)getuid());
	if (create && mkdirs(dir, e) < 0)
		return -1;
	/* Whoever owns the directory owns the socket in it: one another user
	 * made (before us, in /tmp) would hear everything we send. */
	struct stat st;
	if (lstat(dir, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))) {
		char owner[64], tmp[4096];
		struct passwd pw, *res = NULL;
		if (getpwuid_r(st.st_uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
			snprintf(owner, sizeof(owner), "%s", pw.pw_name);
		else
			snprintf(owner, sizeof(owner), "uid %u", (unsigned)st.st_uid);
		return err_set(e, GQ_EPERM,
			       "refusing runtime directory '%s': %s owned by %s with mode %04o, "
			       "not yours alone (0700); remove it or set XDG_RUNTIME_DIR",
			       dir, S_ISDIR(st.st_mode) ? "a directory" : "not a directory", owner,
			       (unsigned)(st.st_mode & 07777));
	}
	if ((size_t)snprintf(out, size, "%s/sock", dir) >= size)
		return err_set(e, GQ_EINVAL, "socket path under '%s' is too long", dir);
	return 0;
}

int token_read(const char *path, char *out, size_t size, struct gq_err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(e, GQ_EIO,
			       "cannot read token file '%s': %s; set GQ_TOKEN_FILE or gq.tokenFile "
			       "to a readable file",
			       path, strerror(errno));
	struct stat st;
	int rc = -1;
	char line[1024];
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
		err_set(e, GQ_EPERM, "token file '%s' is readable by others; run 'chmod 600 %s'",
			path, path);
		goto out;
	}
	if (!fgets(line, sizeof(line), f)) {
		err_set(e, GQ_EINVAL, "token file '%s' is empty; put the token on its first line",
			path);
		goto out;
	}
	char *s = line;
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	if (!n) {
		err_set(e, GQ_EINVAL, "token file '%s' is empty; put the token on its first line",
			path);
		goto out;
	}
	if (!str_copy(out, size, s)) {
		err_set(e, GQ_EINVAL, "token in '%s' is too long (over %zu bytes)", path, size - 1);
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

/* "~/x" → "$HOME/x"; anything else unchanged. */
static void expand_home(char *out, size_t size, const char *v)
{
	const char *home = getenv("HOME");
	if (v[0] == '~' && v[1] == '/' && home)
		snprintf(out, size, "%s%s", home, v + 1);
	else
		snprintf(out, size, "%s", v);
}

static int check_server(const char *v, const char *origin, struct gq_err *e)
{
	if (!strncmp(v, "unix:", 5) && v[5] == '/')
		return 0;
	if (!strncmp(v, "http://", 7) && v[7])
		return 0;
	if (!strncmp(v, "https://", 8) && v[8])
		return 0;
	return err_set(e, GQ_EINVAL,
		       "%s: bad server address '%s'; use 'unix:/PATH', 'http://HOST:PORT' or "
		       "'https://HOST:PORT'",
		       origin, v);
}

static int check_backend(const char *v, const char *origin, struct gq_err *e)
{
	if (name_valid(v) && strlen(v) < sizeof(((struct gq_config *)0)->backend))
		return 0;
	return err_set(e, GQ_EINVAL, "%s: bad backend name '%s'; use 'native' or 'slurm'", origin,
		       v);
}

static int check_tier(const char *v, const char *origin, struct gq_err *e)
{
	enum tier t;
	if (tier_parse(v, &t, NULL) == 0)
		return 0;
	return err_set(e, GQ_EINVAL, "%s: bad tier '%s'; use P0, P1 or P2", origin, v);
}

static int check_queue(const char *v, const char *origin, struct gq_err *e)
{
	if (name_valid(v) && strlen(v) < sizeof(((struct gq_config *)0)->queue))
		return 0;
	return err_set(e, GQ_EINVAL,
		       "%s: bad queue name '%s'; use letters, digits, '.', '_' or '-'", origin, v);
}

/* Sets one setting after checking it; origin names where it came from. */
static int config_set(struct gq_config *c, const char *key, const char *v, const char *origin,
		      struct gq_err *e)
{
	if (!strcmp(key, "server")) {
		if (check_server(v, origin, e) < 0)
			return -1;
		STR_COPY(c->server, v);
	} else if (!strcmp(key, "backend")) {
		if (check_backend(v, origin, e) < 0)
			return -1;
		STR_COPY(c->backend, v);
	} else if (!strcmp(key, "tokenfile")) {
		if (!*v)
			return err_set(e, GQ_EINVAL,
				       "%s: empty token file name; name a file holding the token",
				       origin);
		expand_home(c->token_file, sizeof(c->token_file), v);
	} else if (!strcmp(key, "tier")) {
		if (check_tier(v, origin, e) < 0)
			return -1;
		enum tier t;
		tier_parse(v, &t, NULL);
		STR_COPY(c->tier, tier_name(t));
	} else if (!strcmp(key, "queue")) {
		if (check_queue(v, origin, e) < 0)
			return -1;
		STR_COPY(c->queue, v);
	} else if (!strcmp(key, "qosmap")) {
		STR_COPY(c->qos_map, v);
	} else if (!strcmp(key, "cafile")) {
		expand_home(c->ca_file, sizeof(c->ca_file), v);
	} else {
		return err_set(e, GQ_EINVAL,
			       "%s: unknown key 'gq.%s'; known keys are server, backend, "
			       "tokenFile, tier, queue, qosMap and caFile",
			       origin, key);
	}
	return 0;
}

/* The [notify] section: where gq submit --notify's notifications go. */
static int notify_set(struct gq_config *c, const char *key, const char *v, const char *origin,
		      struct gq_err *e)
{
	if (!strcmp(key, "webhook")) {
		if (*v && strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
			return err_set(e, GQ_EINVAL,
				       "%s: notify.webhook '%s' is not an http:// or https:// URL",
				       origin, v);
		if (!STR_COPY(c->notify_webhook, v))
			return err_set(e, GQ_EINVAL, "%s: notify.webhook is too long (at most %zu)",
				       origin, sizeof(c->notify_webhook) - 1);
	} else if (!strcmp(key, "command")) {
		if (!STR_COPY(c->notify_command, v))
			return err_set(e, GQ_EINVAL, "%s: notify.command is too long (at most %zu)",
				       origin, sizeof(c->notify_command) - 1);
	} else {
		return err_set(e, GQ_EINVAL,
			       "%s: unknown key 'notify.%s'; known keys are webhook and command",
			       origin, key);
	}
	return 0;
}

/* libgit2 reads a line up to a NUL and a file of NULs as empty: a binary
 * file (or one that a NUL cuts short) would pass for a text one. Refuses
 * a NUL or a control character other than tab, CR and LF. */
static int check_text(const char *path, struct gq_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, GQ_EINVAL, "config file '%s': %s", path, strerror(errno));
	unsigned char chunk[4096];
	size_t n, at = 0;
	int rc = 0;
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		for (size_t i = 0; i < n; i++) {
			unsigned char b = chunk[i];
			if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
				rc = err_set(
				    e, GQ_EINVAL,
				    "config file '%s': not a text file (byte %zu is 0x%02x); "
				    "fix or remove it",
				    path, at + i + 1, b);
				break;
			}
		}
		at += n;
	}
	if (rc == 0 && ferror(f))
		rc = err_set(e, GQ_EINVAL, "config file '%s': cannot be read", path);
	fclose(f);
	return rc;
}

static int load_file(struct gq_config *c, const char *path, struct gq_err *e)
{
	if (check_text(path, e) < 0)
		return -1;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *ent;
	int rc = -1;
	git_libgit2_init();
	if (git_config_open_ondisk(&cfg, path) < 0) {
		const git_error *ge = git_error_last();
		err_set(e, GQ_EINVAL, "config file '%s': %s; fix the line or remove the file", path,
			ge && ge->message ? ge->message : "cannot be parsed");
		goto out;
	}
	if (git_config_iterator_new(&it, cfg) < 0) {
		err_set(e, GQ_EIO, "config file '%s': cannot be read", path);
		goto out;
	}
	int r;
	while ((r = git_config_next(&ent, it)) == 0) {
		char origin[GQ_PATH_MAX + 64];
		snprintf(origin, sizeof(origin), "config file '%s'", path);
		if (!strncmp(ent->name, "notify.", 7)) {
			if (notify_set(c, ent->name + 7, ent->value ? ent->value : "", origin, e) <
			    0)
				goto out;
			continue;
		}
		/* Other sections belong to other tools (or later versions). */
		if (strncmp(ent->name, "gq.", 3) != 0)
			continue;
		if (config_set(c, ent->name + 3, ent->value ? ent->value : "", origin, e) < 0)
			goto out;
	}
	if (r != GIT_ITEROVER) {
		const git_error *ge = git_error_last();
		err_set(e, GQ_EINVAL, "config file '%s': %s", path,
			ge && ge->message ? ge->message : "cannot be read");
		goto out;
	}
	STR_COPY(c->file, path);
	rc = 0;
out:
	git_config_iterator_free(it);
	git_config_free(cfg);
	git_libgit2_shutdown();
	return rc;
}

int config_load(struct gq_config *c, struct gq_err *e)
{
	memset(c, 0, sizeof(*c));
	STR_COPY(c->backend, "native");
	char path[GQ_PATH_MAX];
	if (config_path(path, sizeof(path), e) < 0 ||
	    (access(path, F_OK) == 0 && load_file(c, path, e) < 0))
		return -1;
	static const struct {
		const char *var, *key;
	} env[] = {
	    {"GQ_SERVER", "server"},  {"GQ_BACKEND", "backend"}, {"GQ_TOKEN_FILE", "tokenfile"},
	    {"GQ_TIER", "tier"},      {"GQ_QUEUE", "queue"},	 {"GQ_SLURM_QOS", "qosmap"},
	    {"GQ_CA_FILE", "cafile"},
	};
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *v = getenv(env[i].var);
		if (!v || !*v)
			continue;
		char origin[64];
		snprintf(origin, sizeof(origin), "environment variable %s", env[i].var);
		if (config_set(c, env[i].key, v, origin, e) < 0)
			return -1;
	}
	return 0;
}
