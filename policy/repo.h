/*
 * repo.h - the policy repository: a plain git repository whose file
 * policy.conf (git-config syntax, see gq-policy(5)) is the scheduling policy.
 * libgit2 throughout; nothing here runs git.
 *
 * The first half is what gq serve needs: open (or create) its repository,
 * fetch a remote it follows, load and validate a revision into a struct
 * policy with the commit id, or refuse with the reason. The second half is
 * what `gq policy` needs: commit a new text, walk history, read old texts.
 * Other files at the top of the repository (a README, notes) are ignored.
 *
 * A struct policy_repo is not thread-safe: use one per thread, or lock.
 */
#ifndef GQ_POLICY_REPO_H
#define GQ_POLICY_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/policy.h"
#include "core/util.h"

#define POLICY_FILE "policy.conf"
#define POLICY_OID_HEX 41 /* 40 hex digits and the NUL */

struct policy_repo;

/*
 * Creates a repository at path (directories made as needed) holding the
 * default policy (pfile_default_text()) in one commit on branch "main".
 * The author comes from git configuration (user.name, user.email); when
 * none is configured, name/email are used if not NULL, else it fails with
 * GQ_EINVAL saying how to configure one. GQ_ECONFLICT when path already is
 * a git repository with commits.
 */
int repo_init(const char *path, const char *name, const char *email, struct gq_err *e);

/* Opens the repository at path (bare or not; no search upwards). NULL with
 * e filled (GQ_EINVAL: no repository there, with a hint at `gq policy init`).
 * Free with repo_free(). */
struct policy_repo *repo_open(const char *path, struct gq_err *e);

/*
 * For gq serve. spec NULL or "": the repository <state_dir>/policy, created
 * with the default policy (author "gq serve") when missing. A spec with
 * "://" or of the form "user@host:path": a remote, cloned into
 * <state_dir>/policy-remote on first use and fetched by repo_fetch().
 * Anything else: the local repository at that path, which must exist.
 */
struct policy_repo *repo_open_server(const char *state_dir, const char *spec, struct gq_err *e);

void repo_free(struct policy_repo *r);

/* The repository's directory (its working tree, or the git dir when bare);
 * borrowed, valid until repo_free. */
const char *repo_path(const struct policy_repo *r);

/* Fetches remote "origin" when there is one (else does nothing): so that
 * admins may push to a central repository and the server pulls.
 * GQ_EUNAVAIL when it cannot be reached. */
int repo_fetch(struct policy_repo *r, struct gq_err *e);

/*
 * Resolves a revision to a commit's full id (out: 40 hex + NUL). rev NULL
 * or "" means the branch the server follows: the upstream of HEAD's branch
 * when it has one (origin/main after a fetch), else HEAD. Any git revision
 * syntax works ("HEAD~2", "a1b2c3d", "main"). GQ_ENOENT when it names
 * nothing or no commit.
 */
int repo_resolve(struct policy_repo *r, const char *rev, char out[POLICY_OID_HEX],
		 struct gq_err *e);

/*
 * Loads revision rev: defaults, then policy.conf of that commit, then
 * validation. On success *out is the policy with out->revision set to the
 * commit's full id. On failure *out is untouched and e says why with the
 * place: "a1b2c3d:policy.conf:6: aging.cap: not a number: 'abc'" (GQ_EINVAL),
 * or GQ_ENOENT for an unknown revision or a commit without policy.conf.
 */
int repo_load(struct policy_repo *r, const char *rev, struct policy *out, struct gq_err *e);

/* Like repo_load but without the cross-key validation, for showing
 * and comparing revisions that may be invalid. Syntax and value errors still
 * fail. */
int repo_read(struct policy_repo *r, const char *rev, struct policy *out, struct gq_err *e);

/* The text of policy.conf at rev (caller frees; *len its length), and the
 * commit's id when oid is not NULL. GQ_ENOENT when the commit has none. */
char *repo_text(struct policy_repo *r, const char *rev, size_t *len, char oid[POLICY_OID_HEX],
		struct gq_err *e);

/*
 * The events gq serve records when it applies or refuses a revision, kind
 * "policy": reason "applied <oid>" or "refused <oid>: <why>", actor the
 * admin who asked ("scheduler" at start-up). Both sides use these two
 * functions so the format cannot drift. repo_event_parse returns 0 and
 * fills applied / oid for such a reason, -1 for any other text; *why points
 * into reason (or is "").
 */
void repo_event_reason(char *out, size_t size, bool applied, const char *oid, const char *why);
int repo_event_parse(const char *reason, bool *applied, char oid[POLICY_OID_HEX], const char **why);

/* ---- history, for `gq policy` ---- */

#define POLICY_MAX_TRAILERS 16

struct policy_trailer {
	char key[32];
	char value[256];
};

/* One commit. Strings are owned by the struct (repo_commit_release). */
struct policy_commit {
	char oid[POLICY_OID_HEX];
	char parent[POLICY_OID_HEX]; /* first parent, "" for a root commit */
	char author_name[128];
	char author_email[128];
	int64_t time;	    /* author time, unix seconds */
	int offset_minutes; /* the author's UTC offset */
	char summary[256];  /* first line of the message */
	char *message;	    /* the whole message */
	int ntrailers;
	struct policy_trailer trailers[POLICY_MAX_TRAILERS];
};
void repo_commit_release(struct policy_commit *c);

/* Reads one commit. GQ_ENOENT when rev names none. */
int repo_commit_info(struct policy_repo *r, const char *rev, struct policy_commit *out,
		     struct gq_err *e);

/*
 * Calls fn for the commits reachable from rev ("" = HEAD here, not the
 * upstream), newest first, following first parents only, at most max of them
 * (0 = all). fn returns 0 to go on, 1 to stop, -1 to fail (with e filled).
 * The commit passed is valid during the call only.
 */
int repo_walk(struct policy_repo *r, const char *rev, int max,
	      int (*fn)(const struct policy_commit *c, void *arg), void *arg, struct gq_err *e);

/*
 * Commits text as policy.conf on top of HEAD with the author from git
 * configuration (GQ_EINVAL with a hint when none) and the given message;
 * other files are kept. A non-bare repository's working tree is updated;
 * when its policy.conf has changes that are not committed, nothing is done
 * and it fails with GQ_ECONFLICT (commit or discard them first). The new
 * commit's id goes to oid.
 */
int repo_commit(struct policy_repo *r, const char *text, size_t len, const char *message,
		char oid[POLICY_OID_HEX], struct gq_err *e);

/* A unified diff of two texts, labelled a/<a_label> and b/<b_label>,
 * appended to out ("" when they are equal). */
int repo_text_diff(const char *a, size_t alen, const char *a_label, const char *b, size_t blen,
		   const char *b_label, struct buf *out, struct gq_err *e);

/* Where to keep an edit that failed validation, so that the next edit starts
 * from it: a file inside the git directory. Caller frees. */
char *repo_draft_path(struct policy_repo *r);

#endif
