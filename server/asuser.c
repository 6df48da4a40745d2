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

int as_user_open(const struct as_user *u, const char *path, int flags, mode_t mode)
{
	if (!u->on)
		return open(path, flags | O_CLOEXEC, mode);
	gid_t saved[256];
	int nsaved = getgroups(256, saved);
	long uid0 = fsuid_now(), gid0 = fsgid_now();
	if (nsaved < 0) {
		errno = EPERM;
		return -1;
	}
	int fd = -1, err = EPERM;
	if (syscall(SYS_setgroups, (size_t)u->ngroups, u->groups) == 0) {
		syscall(SYS_setfsgid, u->gid);
		syscall(SYS_setfsuid, u->uid);
		if (fsuid_now() == (long)u->uid && fsgid_now() == (long)u->gid) {
			fd = open(path, flags | O_CLOEXEC, mode);
			err = errno;
		}
	}
	/* Back to the server's own identity; a thread left as the user would
	 * be wrong for everything it does next. */
	syscall(SYS_setfsuid, (uid_t)uid0);
	syscall(SYS_setfsgid, (gid_t)gid0);
	if (syscall(SYS_setgroups, (size_t)nsaved, saved) < 0 || fsuid_now() != uid0 ||
	    fsgid_now() != gid0)
		BUG("cannot take back the server's identity after acting as uid %u",
		    (unsigned)u->uid);
	if (fd < 0)
		errno = err;
	return fd;
}
