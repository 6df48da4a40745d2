/*
 * git.c - libgit2 set-up and its errors as ours (see git.h). Nothing else
 * here: the repository logic is in repo.c.
 */
#include "git.h"

#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool git_ready;

void gitx_init(void)
{
	if (git_ready)
		return;
	if (git_libgit2_init() < 0)
		BUG("libgit2 failed to initialise");
	git_ready = true;
}

static enum gq_errcode code_for(int rc, const git_error *ge)
{
	switch (rc) {
	case GIT_ENOTFOUND:
	case GIT_EAMBIGUOUS:
	case GIT_EINVALIDSPEC:
	case GIT_EUNBORNBRANCH:
		return GQ_ENOENT;
	case GIT_EEXISTS:
		return GQ_ECONFLICT;
	case GIT_EAUTH:
	case GIT_ECERTIFICATE:
		return GQ_EUNAVAIL;
	default:
		break;
	}
	if (ge && (ge->klass == GIT_ERROR_NET || ge->klass == GIT_ERROR_SSH ||
		   ge->klass == GIT_ERROR_HTTP || ge->klass == GIT_ERROR_SSL))
		return GQ_EUNAVAIL;
	if (ge && ge->klass == GIT_ERROR_CONFIG)
		return GQ_EINVAL;
	return GQ_EIO;
}

int gitx_err(struct gq_err *e, int rc, const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	char ctx[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	const char *why =
	    ge && ge->message && ge->message[0] ? ge->message : "unknown libgit2 error";
	err_set(e, code_for(rc, ge), "%s: %s", ctx, why);
	/* libgit2 messages sometimes end in a newline or full stop; ours do not. */
	if (e) {
		size_t n = strlen(e->msg);
		while (n && (e->msg[n - 1] == '\n' || e->msg[n - 1] == '.'))
			e->msg[--n] = '\0';
	}
	return -1;
}

int gitx_parse_err(struct gq_err *e, const char *path, const char *shown)
{
	const git_error *ge = git_error_last();
	const char *msg = ge && ge->message ? ge->message : "cannot parse the file";
	const char *prefix = "failed to parse config file: ";
	if (!strncmp(msg, prefix, strlen(prefix)))
		msg += strlen(prefix);
	char why[400];
	str_copy(why, sizeof(why), msg);
	int line = 0;
	char *in = strstr(why, " (in ");
	if (in) {
		const char *at = strstr(in, path);
		if (at && at[strlen(path)] == ':')
			line = atoi(at + strlen(path) + 1);
		*in = '\0';
	}
	if (line > 0)
		err_set(e, GQ_EINVAL,
			"%s:%d: %s; fix the syntax (git-config format, see gq-policy(5))", shown,
			line, why);
	else
		err_set(e, GQ_EINVAL,
			"%s: %s; fix the syntax (git-config format, see gq-policy(5))", shown, why);
	return -1;
}
