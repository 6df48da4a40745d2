/*
 * file.h - reading policy files: git-config syntax, parsed by libgit2's
 * config parser, each entry handed to policy_set().
 *
 * Errors name the file (as the caller wants it shown, e.g.
 * "a1b2c3d:policy.conf" for a file of a commit) and the line: syntax errors
 * with the line libgit2 reports, bad keys and values with the line that set
 * them, cross-key errors of policy_validate() with the line of the key they
 * name when one sets it. This file does not know about repositories; see
 * repo.h for revisions.
 */
#ifndef GQ_POLICY_FILE_H
#define GQ_POLICY_FILE_H

#include <stddef.h>

#include "core/policy.h"
#include "core/util.h"

/* The largest policy file we read (a policy is a few kilobytes). */
#define POLICY_FILE_MAX (1024 * 1024)

/*
 * Applies the entries of the policy text on top of *p (which the caller set
 * up, usually with policy_defaults()), in file order: a key set twice keeps
 * the last value. Does not validate across keys. `shown` names the file in
 * messages. Returns 0, or -1 with e filled ("shown:LINE: key: why", code
 * GQ_EINVAL; GQ_ENOENT for an unknown key); *p may then be partly updated.
 */
int pfile_parse_text(struct policy *p, const char *text, size_t len, const char *shown,
		     struct gq_err *e);

/* policy_validate() with the error located: "shown:LINE: key: why" when a
 * line of text sets the key the message names, else "shown: key: why". */
int pfile_validate_text(const struct policy *p, const char *text, const char *shown,
			struct gq_err *e);

/* Reads a file whole (at most POLICY_FILE_MAX bytes) into a NUL-terminated
 * string the caller frees. GQ_ENOENT when it does not exist, GQ_ETOOBIG,
 * GQ_EIO. */
char *pfile_read_file(const char *path, size_t *len, struct gq_err *e);

/* policy_defaults + pfile_parse_text + pfile_validate_text of one file on
 * disk, named in messages by its path. *out is written only on success. */
int pfile_load_file(const char *path, struct policy *out, struct gq_err *e);

/* The line (1-based) of the last line of text that sets `key` (a concrete
 * "section.sub.name" key; section and name case-insensitive), or 0. Only for
 * locating messages: the values themselves always come from libgit2. */
int pfile_key_line(const char *text, const char *key);

/* One warning line per key that text sets more than once ("shown:3 and 9:
 * 'aging.cap' is set twice; the last value (line 9) is the one used"), in
 * file order; the parse still takes the last value, as git-config does.
 * Caller frees; NULL when there is none, or when the text does not parse
 * (pfile_parse_text says why). */
char *pfile_duplicates(const char *text, size_t len, const char *shown);

/*
 * The default policy as a commented policy file: every key of the key table
 * with its doc and default, commented out so that the file sets nothing yet
 * documents everything. Caller frees.
 */
char *pfile_default_text(void);

#endif
