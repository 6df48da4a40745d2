/*
 * auth.c - peer credentials, the tokens file, and account lookups.
 */
#define _GNU_SOURCE
#include "auth.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sha256.h"

struct token {
	char hash[65];
	char user[32];
	enum role role;
	uint32_t uid, gid;
};

struct auth {
	uid_t self;
	struct token *tokens;
	size_t ntokens;
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

static int parse_tokens(struct auth *a, const char *path, struct gq_err *e)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return err_set(e, errno == ENOENT ? GQ_ENOENT : GQ_EIO,
			       "cannot read tokens file '%s': %s", path, strerror(errno));
	char line[512];
	int lineno = 0, rc = 0;
	size_t cap = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char hash[80], user[64], role[16];
		unsigned long uid = 0;
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		int n = sscanf(p, "%79s %63s %15s %lu", hash, user, role, &uid);
		struct token t;
		memset(&t, 0, sizeof(t));
		if (n < 3 || strlen(hash) != 64 || strspn(hash, "0123456789abcdef") != 64) {
			rc = err_set(e, GQ_EINVAL,
				     "tokens file '%s' line %d: expected 'SHA256HEX USER ROLE [UID]'",
				     path, lineno);
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
			rc = err_set(e, GQ_EINVAL,
				     "tokens file '%s' line %d: role '%s' is neither 'user' nor 'admin'",
				     path, lineno, role);
			break;
		}
		STR_COPY(t.hash, hash);
		STR_COPY(t.user, user);
		if (n == 4) {
			t.uid = (uint32_t)uid;
			if (!lookup_uid(t.uid, NULL, 0, &t.gid))
				t.gid = t.uid;
		} else if (!lookup_name(user, &t.uid, &t.gid)) {
			t.uid = a->self;
			t.gid = getgid();
		}
		GROW(a->tokens, cap, a->ntokens + 1);
		a->tokens[a->ntokens++] = t;
	}
	fclose(f);
	return rc;
}

int auth_open(const char *tokens_file, uid_t self_uid, const char *admin_groups,
	      struct auth **out, struct gq_err *e)
{
	struct auth *a = xcalloc(1, sizeof(*a));
	a->self = self_uid;
	if (tokens_file && parse_tokens(a, tokens_file, e) < 0) {
		auth_free(a);
		return -1;
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
	free(a->tokens);
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

int auth_bearer(const struct auth *a, const char *header, struct identity *out,
		struct gq_err *e)
{
	if (!header)
		return err_set(e, GQ_EPERM,
			       "no bearer token: send 'Authorization: Bearer TOKEN' (GQ_TOKEN_FILE)");
	if (strncasecmp(header, "Bearer ", 7) != 0)
		return err_set(e, GQ_EPERM, "the Authorization header is not 'Bearer TOKEN'");
	const char *tok = header + 7;
	while (*tok == ' ')
		tok++;
	char hex[65];
	sha256_hex(tok, strlen(tok), hex);
	for (size_t i = 0; i < a->ntokens; i++) {
		/* Compare every byte so the time taken does not tell how much
		 * of a guess was right. */
		unsigned diff = 0;
		for (int k = 0; k < 64; k++)
			diff |= (unsigned)(hex[k] ^ a->tokens[i].hash[k]);
		if (diff == 0) {
			struct identity id;
			memset(&id, 0, sizeof(id));
			STR_COPY(id.user, a->tokens[i].user);
			id.uid = a->tokens[i].uid;
			id.gid = a->tokens[i].gid;
			id.role = a->tokens[i].role;
			*out = id;
			return 0;
		}
	}
	return err_set(e, GQ_EPERM, "unknown bearer token; ask an admin for one");
}
