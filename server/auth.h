/*
 * auth.h - who is asking: the caller's identity from the kernel on a unix
 * socket (SO_PEERCRED) or from a bearer token on TCP, and its role.
 *
 * Tokens file: one token per line, "SHA256HEX USER ROLE [UID]", where
 * SHA256HEX is the SHA-256 of the token (sha256sum of the token without a
 * newline), ROLE is "user" or "admin" and UID the local account the user's
 * jobs run as (default: USER's account, else the server's own uid). Blank
 * lines and lines starting with '#' are ignored. The file holds no secret.
 * On a root server a "user" token needs a local account or a UID: its jobs
 * would otherwise run as root.
 *
 * The file is looked at again (one stat) at every bearer request and read
 * again when it changed (inode, size, times), and on auth_reload: a token
 * removed is refused from the next request on. A rewritten file that does
 * not parse, or a removed one, leaves the tokens read before in force and
 * logs one warning.
 *
 * This file does not decide what a role may do (ops.c does).
 */
#ifndef GQ_SERVER_AUTH_H
#define GQ_SERVER_AUTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util.h"

enum role { ROLE_USER, ROLE_ADMIN };

struct identity {
	char user[32];
	uint32_t uid, gid;
	enum role role;
	bool local; /* from SO_PEERCRED (a local account), not a token */
};

struct auth;

/* Reads the tokens file (NULL: no TCP identities). self_uid is the server's
 * uid; admin_groups a space-separated list of group names whose members
 * are admins on the unix socket (NULL none). GQ_EINVAL names the bad line. */
int auth_open(const char *tokens_file, uid_t self_uid, const char *admin_groups, struct auth **out,
	      struct gq_err *e);
void auth_free(struct auth *a);

/* Reads the tokens file again now, whatever its version (SIGHUP); logs
 * the outcome. Thread-safe, like auth_bearer. */
void auth_reload(struct auth *a);

/* The identity of the peer of unix socket fd. GQ_EPERM when a non-root
 * server is asked by another uid. */
int auth_peer(const struct auth *a, int fd, struct identity *out, struct gq_err *e);

/* The identity of an "Authorization" header value ("Bearer TOKEN"), from
 * the tokens file as it is now (see above). GQ_EPERM (the caller answers
 * 401) when absent, malformed or unknown. Thread-safe. */
int auth_bearer(const struct auth *a, const char *header, struct identity *out, struct gq_err *e);

/* The names of uid's groups, space-separated, for policy_tier_allows
 * ("" when unknown). Writes at most size bytes. */
void auth_group_names(uint32_t uid, const char *user, uint32_t gid, char *out, size_t size);

/* Supplementary groups of a local account, for starting its jobs: up to
 * max gids into out; returns the count (at least gid itself). */
int auth_groups(const char *user, uint32_t gid, gid_t *out, int max);

/* The home directory of uid into out ("/" when unknown). */
void auth_home(uint32_t uid, char *out, size_t size);

#endif
