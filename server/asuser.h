/*
 * asuser.h - file operations on a user's behalf, with that user's rights.
 *
 * A root gq serve never opens a path a user names, or one in a directory a
 * user controls, with its own rights: the calling thread takes the user's
 * file-system identity (fsuid, fsgid and supplementary groups, which Linux
 * keeps per thread) for the one open(), then its own back. The other
 * threads of the server are not affected. On a server that is not root
 * every job is its own user's, and the open is a plain one.
 */
#ifndef GQ_SERVER_ASUSER_H
#define GQ_SERVER_ASUSER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct as_user {
	bool on; /* switch (the server is root and the user is not) */
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
};

/* The identity of local account user (uid, gid): its supplementary groups
 * are looked up. root: is the server root. */
void as_user_init(struct as_user *u, bool root, uint32_t uid, uint32_t gid, const char *user);

/* open(path, flags | O_CLOEXEC, mode) as u; -1 with errno on failure. */
int as_user_open(const struct as_user *u, const char *path, int flags, mode_t mode);

/* Removes everything in directory dir as u, following no link and going
 * at most 32 directories deep: 0 when dir is empty after it (or gone),
 * -1 with errno otherwise. dir itself stays (its parent may not be u's). */
int as_user_empty_dir(const struct as_user *u, const char *dir);

#endif
