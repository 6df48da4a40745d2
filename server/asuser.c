/*
 * asuser.c - open() with a user's rights (asuser.h).
 *
 * The raw system calls, not glibc's wrappers: glibc's setgroups() changes
 * every thread of the process (POSIX's rule for setuid and friends), the
 * kernel's changes the calling thread only, which is what is wanted here.
 * Dropping fsuid from 0 also drops the file capabilities (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN...) from the thread's effective
 * set until it is set back to 0 (capabilities(7)).
 */
#define _GNU_SOURCE
#include "asuser.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/auth.h"

void as_user_init(struct as_user *u, bool root, uint32_t uid, uint32_t gid, const char *user)
{
	memset(u, 0, sizeof(*u));
	u->on = root && uid != 0;
	u->uid = uid;
	u->gid = gid;
	if (u->on)
		u->ngroups = auth_groups(user, gid, u->groups, 64);
}

/* The thread's fsuid / fsgid: setfs*id of an invalid id changes nothing
 * and returns the current one. */
static long fsuid_now(void)
{
	return syscall(SYS_setfsuid, (uid_t)-1);
}

static long fsgid_now(void)
{
	return syscall(SYS_setfsgid, (gid_t)-1);
}

/* The calling thread's file-system identity becomes u's (*saved keeps the
 * server's); false when it could not. */
struct fs_ident {
	gid_t groups[256];
	int ngroups;
	long uid, gid;
};

static bool become(const struct as_user *u, struct fs_ident *saved)
{
	saved->ngroups = getgroups(256, saved->groups);
	saved->uid = fsuid_now();
	saved->gid = fsgid_now();
	if (saved->ngroups < 0)
		return false;
	if (syscall(SYS_setgroups, (size_t)u->ngroups, u->groups) < 0)
		return false;
	syscall(SYS_setfsgid, u->gid);
	syscall(SYS_setfsuid, u->uid);
	return fsuid_now() == (long)u->uid && fsgid_now() == (long)u->gid;
}

/* Back to the server's own identity; a thread left as the user would be
 * wrong for everything it does next. */
static void come_back(const struct as_user *u, const struct fs_ident *saved)
{
	syscall(SYS_setfsuid, (uid_t)saved->uid);
	syscall(SYS_setfsgid, (gid_t)saved->gid);
	if (saved->ngroups < 0 ||
	    syscall(SYS_setgroups, (size_t)saved->ngroups, saved->groups) < 0 ||
	    fsuid_now() != saved->uid || fsgid_now() != saved->gid)
		BUG("cannot take back the server's identity after acting as uid %u",
		    (unsigned)u->uid);
}

int as_user_open(const struct as_user *u, const char *path, int flags, mode_t mode)
{
	if (!u->on)
		return open(path, flags | O_CLOEXEC, mode);
	struct fs_ident saved;
	int fd = -1, err = EPERM;
	if (become(u, &saved)) {
		fd = open(path, flags | O_CLOEXEC, mode);
		err = errno;
	}
	come_back(u, &saved);
	if (fd < 0)
		errno = err;
	return fd;
}

/* Empties the directory open at fd (closed here). */
static int empty_at(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		int sub = depth < 32 ? openat(fd, de->d_name,
					      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				     : -1;
		if (sub < 0 || empty_at(sub, depth + 1) < 0 ||
		    unlinkat(fd, de->d_name, AT_REMOVEDIR) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int as_user_empty_dir(const struct as_user *u, const char *dir)
{
	struct fs_ident saved;
	int rc = -1, err = EPERM;
	if (!u->on || become(u, &saved)) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			rc = 0;
		else if (fd >= 0)
			rc = empty_at(fd, 0);
		err = errno;
	}
	if (u->on)
		come_back(u, &saved);
	if (rc < 0)
		errno = err;
	return rc;
}
