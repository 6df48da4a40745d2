/*
 * git.h - the one adapter between libgit2 and gq: library set-up and the
 * translation of libgit2's errors into struct gq_err.
 *
 * Every file of policy/ that calls libgit2 goes through gitx_err() for its
 * failures, so messages have one shape ("<context>: <libgit2's reason>") and
 * error classes one mapping. It does not include git2.h: callers pass the
 * return code they got.
 */
#ifndef GQ_POLICY_GIT_H
#define GQ_POLICY_GIT_H

#include "core/util.h"

/* Initialises libgit2 once per process; safe to call any number of times,
 * from one thread. Every policy/ entry point calls it. */
void gitx_init(void);

/*
 * Fills e from libgit2's last error for return code rc, prefixed with the
 * printf-style context, and returns -1. GIT_ENOTFOUND (and an ambiguous or
 * malformed revision) become GQ_ENOENT, GIT_EEXISTS GQ_ECONFLICT, network
 * failures GQ_EUNAVAIL, a config parse error GQ_EINVAL, the rest GQ_EIO.
 */
int gitx_err(struct gq_err *e, int rc, const char *fmt, ...) GQ_PRINTF(3, 4);

/*
 * The config parser's last error for the file at path, as
 * "shown:LINE: why; fix the syntax ..." (GQ_EINVAL): libgit2 names the file
 * it parsed ("(in PATH:LINE)"), which may be a temporary copy; shown is
 * what the user knows it as. Returns -1.
 */
int gitx_parse_err(struct gq_err *e, const char *path, const char *shown);

#endif
