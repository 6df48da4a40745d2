/*
 * repo.c - the policy repository through libgit2 (see repo.h): opening and
 * creating it, resolving and loading revisions, committing, history.
 *
 * Not here: what the keys mean (core/policy.c), reading git-config text
 * (file.c), how libgit2 errors become ours (git.c).
 */
#include "repo.h"

#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file.h"
#include "git.h"

struct policy_repo {
	git_repository *repo;
	char *path;
};

static void oid_hex(const git_oid *oid, char out[POLICY_OID_HEX])
{
	git_oid_tostr(out, POLICY_OID_HEX, oid);
}

/* The author and committer: git configuration, else the fallback given. */
static int signature(git_repository *repo, const char *name, const char *email, git_signature **out,
		     struct gq_err *e)
{
	if (git_signature_default(out, repo) == 0)
		return 0;
	if (name && email) {
		int rc = git_signature_now(out, name, email);
		return rc < 0 ? gitx_err(e, rc, "author '%s <%s>'", name, email) : 0;
	}
	return err_set(e, GQ_EINVAL,
		       "no author: git configuration has no user.name and user.email; set them "
		       "with 'git config --global user.name NAME' and 'git config --global "
		       "user.email EMAIL'");
}

/* Brings the working tree's policy.conf (and the index) from the tree
 * `baseline` (the old HEAD's; NULL for none) to HEAD's. */
static int checkout_head(git_repository *repo, git_tree *baseline, struct gq_err *e)
{
	if (git_repository_is_bare(repo))
		return 0;
	git_checkout_options co;
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	co.baseline = baseline;
	char file[] = POLICY_FILE;
	char *paths[] = {file};
	co.paths.strings = paths;
	co.paths.count = 1;
	int rc = git_checkout_head(repo, &co);
	return rc < 0 ? gitx_err(e, rc, "updating the working tree of '%s'",
				 git_repository_workdir(repo))
		      : 0;
}

/* Writes a commit of text as policy.conf on top of parent (NULL: a root
 * commit) and moves HEAD to it. */
static int write_commit(git_repository *repo, git_commit *parent, const char *text, size_t len,
			const char *message, const git_signature *sig, git_oid *out,
			struct gq_err *e)
{
	int rc = -1, grc;
	git_oid blob, tree_id;
	git_tree *base = NULL, *tree = NULL;
	git_treebuilder *tb = NULL;
	git_buf msg = GIT_BUF_INIT;
	if ((grc = git_blob_create_from_buffer(&blob, repo, text, len)) < 0) {
		gitx_err(e, grc, "storing %s", POLICY_FILE);
		goto out;
	}
	if (parent && (grc = git_commit_tree(&base, parent)) < 0) {
		gitx_err(e, grc, "reading the tree of HEAD");
		goto out;
	}
	if ((grc = git_treebuilder_new(&tb, repo, base)) < 0 ||
	    (grc = git_treebuilder_insert(NULL, tb, POLICY_FILE, &blob, GIT_FILEMODE_BLOB)) < 0 ||
	    (grc = git_treebuilder_write(&tree_id, tb)) < 0 ||
	    (grc = git_tree_lookup(&tree, repo, &tree_id)) < 0) {
		gitx_err(e, grc, "writing the tree");
		goto out;
	}
	if ((grc = git_message_prettify(&msg, message, 1, '#')) < 0) {
		gitx_err(e, grc, "formatting the commit message");
		goto out;
	}
	if (!msg.size) {
		err_set(e, GQ_EINVAL, "empty commit message; say why the policy changes");
		goto out;
	}
	const git_commit *parents[1] = {parent};
	if ((grc = git_commit_create(out, repo, "HEAD", sig, sig, NULL, msg.ptr, tree,
				     parent ? 1 : 0, parents)) < 0) {
		if (grc == GIT_EMODIFIED)
			err_set(
			    e, GQ_ECONFLICT,
			    "HEAD moved while committing; run the command again on the new HEAD");
		else
			gitx_err(e, grc, "committing");
		goto out;
	}
	rc = 0;
out:
	git_buf_dispose(&msg);
	git_tree_free(tree);
	git_tree_free(base);
	git_treebuilder_free(tb);
	return rc;
}

int repo_init(const char *path, const char *name, const char *email, struct gq_err *e)
{
	gitx_init();
	int rc = -1, grc;
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	char *text = NULL;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
		if (!git_repository_head_unborn(repo)) {
			err_set(e, GQ_ECONFLICT,
				"'%s' is already a git repository with commits; use it as it is or "
				"choose another path",
				path);
			goto out;
		}
	} else {
		git_repository_init_options o;
		git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
		o.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
		o.initial_head = "main";
		if ((grc = git_repository_init_ext(&repo, path, &o)) < 0) {
			gitx_err(e, grc, "creating a repository at '%s'", path);
			goto out;
		}
	}
	if (signature(repo, name, email, &sig, e) < 0)
		goto out;
	text = pfile_default_text();
	git_oid oid;
	if (write_commit(repo, NULL, text, strlen(text),
			 "Start the policy from gq's defaults\n\n"
			 "Every key is set to its default and documented; see gq-policy(5).\n",
			 sig, &oid, e) < 0 ||
	    checkout_head(repo, NULL, e) < 0)
		goto out;
	rc = 0;
out:
	free(text);
	git_signature_free(sig);
	git_repository_free(repo);
	return rc;
}

struct policy_repo *repo_open(const char *path, struct gq_err *e)
{
	gitx_init();
	git_repository *repo = NULL;
	int grc = git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (grc < 0) {
		/* A path to fix, not a missing job or revision: exit 2. */
		if (grc == GIT_ENOTFOUND)
			err_set(e, GQ_EINVAL,
				"no policy repository at '%s'; create one with 'gq policy init' or "
				"name another with --repo",
				path);
		else
			gitx_err(e, grc, "opening the policy repository '%s'", path);
		return NULL;
	}
	struct policy_repo *r = xcalloc(1, sizeof(*r));
	r->repo = repo;
	const char *wd = git_repository_workdir(repo);
	r->path = xstrdup(wd ? wd : git_repository_path(repo));
	size_t n = strlen(r->path);
	if (n > 1 && r->path[n - 1] == '/')
		r->path[n - 1] = '\0';
	return r;
}

static bool is_remote_spec(const char *spec)
{
	if (strstr(spec, "://"))
		return true;
	/* scp-like "user@host:path", as git accepts it */
	const char *colon = strchr(spec, ':'), *slash = strchr(spec, '/');
	return colon && strchr(spec, '@') && (!slash || colon < slash);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

struct policy_repo *repo_open_server(const char *state_dir, const char *spec, struct gq_err *e)
{
	gitx_init();
	if (spec && *spec && !is_remote_spec(spec))
		return repo_open(spec, e);
	struct policy_repo *r = NULL;
	char *path = xasprintf("%s/%s", state_dir, spec && *spec ? "policy-remote" : "policy");
	if (!spec || !*spec) {
		char *git = xasprintf("%s/.git", path);
		bool have = exists(git);
		free(git);
		if (!have && repo_init(path, "gq serve", "gq@localhost", e) < 0)
			goto out;
	} else if (!exists(path)) {
		git_repository *repo = NULL;
		git_clone_options co;
		git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
		co.bare = 1;
		int grc = git_clone(&repo, spec, path, &co);
		if (grc < 0) {
			gitx_err(e, grc, "cloning the policy repository '%s'", spec);
			goto out;
		}
		git_repository_free(repo);
	}
	r = repo_open(path, e);
out:
	free(path);
	return r;
}

void repo_free(struct policy_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
}

const char *repo_path(const struct policy_repo *r)
{
	return r->path;
}

int repo_fetch(struct policy_repo *r, struct gq_err *e)
{
	git_remote *remote = NULL;
	int grc = git_remote_lookup(&remote, r->repo, "origin");
	if (grc == GIT_ENOTFOUND)
		return 0;
	if (grc < 0)
		return gitx_err(e, grc, "policy repository '%s': remote 'origin'", r->path);
	git_fetch_options fo;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	grc = git_remote_fetch(remote, NULL, &fo, "gq: fetch policy");
	int rc = 0;
	if (grc < 0) {
		rc = gitx_err(e, grc, "fetching the policy from '%s'", git_remote_url(remote));
		if (e->code == GQ_EIO)
			e->code = GQ_EUNAVAIL;
	}
	git_remote_free(remote);
	return rc;
}

/* The upstream of HEAD's branch, when it has one. */
static int head_upstream(git_repository *repo, git_oid *out)
{
	git_reference *head = NULL, *up = NULL, *resolved = NULL;
	int rc = -1;
	if (git_repository_head(&head, repo) < 0 || !git_reference_is_branch(head))
		goto out;
	if (git_branch_upstream(&up, head) < 0 || git_reference_resolve(&resolved, up) < 0)
		goto out;
	git_oid_cpy(out, git_reference_target(resolved));
	rc = 0;
out:
	git_reference_free(resolved);
	git_reference_free(up);
	git_reference_free(head);
	return rc;
}

static int lookup_commit(struct policy_repo *r, const char *rev, bool follow_upstream,
			 git_commit **out, struct gq_err *e)
{
	git_object *obj = NULL;
	git_oid up;
	int grc;
	if ((!rev || !*rev) && follow_upstream && head_upstream(r->repo, &up) == 0) {
		grc = git_commit_lookup(out, r->repo, &up);
		return grc < 0 ? gitx_err(e, grc, "policy repository '%s': upstream", r->path) : 0;
	}
	const char *spec = rev && *rev ? rev : "HEAD";
	grc = git_revparse_single(&obj, r->repo, spec);
	if (grc < 0) {
		if (!strcmp(spec, "HEAD") && git_repository_head_unborn(r->repo) == 1)
			return err_set(e, GQ_ENOENT,
				       "policy repository '%s' has no commits yet; commit a %s",
				       r->path, POLICY_FILE);
		return err_set(e, GQ_ENOENT, "unknown revision '%s' in the policy repository '%s'",
			       spec, r->path);
	}
	git_object *peeled = NULL;
	grc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (grc < 0)
		return err_set(e, GQ_ENOENT, "revision '%s' is not a commit", spec);
	*out = (git_commit *)peeled;
	return 0;
}

int repo_resolve(struct policy_repo *r, const char *rev, char out[POLICY_OID_HEX], struct gq_err *e)
{
	git_commit *c = NULL;
	if (lookup_commit(r, rev, true, &c, e) < 0)
		return -1;
	oid_hex(git_commit_id(c), out);
	git_commit_free(c);
	return 0;
}

/* policy.conf of commit c (caller frees). */
static char *commit_text(git_commit *c, size_t *len, struct gq_err *e)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	char *text = NULL;
	char shorthex[8];
	git_oid_tostr(shorthex, sizeof(shorthex), git_commit_id(c));
	int grc = git_commit_tree(&tree, c);
	if (grc < 0) {
		gitx_err(e, grc, "commit '%s'", shorthex);
		goto out;
	}
	grc = git_tree_entry_bypath(&te, tree, POLICY_FILE);
	if (grc < 0 || git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		err_set(e, GQ_ENOENT,
			"commit '%s' has no %s; a policy repository keeps the policy in %s",
			shorthex, POLICY_FILE, POLICY_FILE);
		goto out;
	}
	if ((grc = git_blob_lookup(&blob, git_commit_owner(c), git_tree_entry_id(te))) < 0) {
		gitx_err(e, grc, "commit '%s': %s", shorthex, POLICY_FILE);
		goto out;
	}
	git_object_size_t size = git_blob_rawsize(blob);
	if (size > POLICY_FILE_MAX) {
		err_set(e, GQ_ETOOBIG, "%s:%s is over %d bytes", shorthex, POLICY_FILE,
			POLICY_FILE_MAX);
		goto out;
	}
	text = xmalloc((size_t)size + 1);
	memcpy(text, git_blob_rawcontent(blob), (size_t)size);
	text[size] = '\0';
	*len = (size_t)size;
out:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	return text;
}

char *repo_text(struct policy_repo *r, const char *rev, size_t *len, char oid[POLICY_OID_HEX],
		struct gq_err *e)
{
	git_commit *c = NULL;
	if (lookup_commit(r, rev, false, &c, e) < 0)
		return NULL;
	char *text = commit_text(c, len, e);
	if (text && oid)
		oid_hex(git_commit_id(c), oid);
	git_commit_free(c);
	return text;
}

static int load(struct policy_repo *r, const char *rev, bool validate, struct policy *out,
		struct gq_err *e)
{
	git_commit *c = NULL;
	if (lookup_commit(r, rev, true, &c, e) < 0)
		return -1;
	char hex[POLICY_OID_HEX], shown[64];
	oid_hex(git_commit_id(c), hex);
	snprintf(shown, sizeof(shown), "%.7s:%s", hex, POLICY_FILE);
	size_t len = 0;
	char *text = commit_text(c, &len, e);
	git_commit_free(c);
	if (!text)
		return -1;
	struct policy *p = xmalloc(sizeof(*p));
	policy_defaults(p);
	int rc = -1;
	if (pfile_parse_text(p, text, len, shown, e) < 0 ||
	    (validate && pfile_validate_text(p, text, shown, e) < 0))
		goto out;
	STR_COPY(p->revision, hex);
	*out = *p;
	rc = 0;
out:
	free(p);
	free(text);
	return rc;
}

int repo_load(struct policy_repo *r, const char *rev, struct policy *out, struct gq_err *e)
{
	return load(r, rev, true, out, e);
}

int repo_read(struct policy_repo *r, const char *rev, struct policy *out, struct gq_err *e)
{
	return load(r, rev, false, out, e);
}

void repo_event_reason(char *out, size_t size, bool applied, const char *oid, const char *why)
{
	if (applied)
		snprintf(out, size, "applied %s", oid);
	else
		snprintf(out, size, "refused %s: %s", oid, why && *why ? why : "invalid");
}

int repo_event_parse(const char *reason, bool *applied, char oid[POLICY_OID_HEX], const char **why)
{
	bool ok;
	if (!strncmp(reason, "applied ", 8))
		ok = true;
	else if (!strncmp(reason, "refused ", 8))
		ok = false;
	else
		return -1;
	const char *h = reason + 8;
	size_t n = strspn(h, "0123456789abcdef");
	if (n < 4 || n >= POLICY_OID_HEX || (h[n] && h[n] != ':'))
		return -1;
	memcpy(oid, h, n);
	oid[n] = '\0';
	*applied = ok;
	if (why)
		*why = h[n] == ':' ? h + n + (h[n + 1] == ' ' ? 2 : 1) : "";
	return 0;
}

void repo_commit_release(struct policy_commit *c)
{
	free(c->message);
	c->message = NULL;
}

static void fill_commit(git_commit *c, struct policy_commit *out)
{
	memset(out, 0, sizeof(*out));
	oid_hex(git_commit_id(c), out->oid);
	if (git_commit_parentcount(c) > 0)
		oid_hex(git_commit_parent_id(c, 0), out->parent);
	const git_signature *a = git_commit_author(c);
	STR_COPY(out->author_name, a->name ? a->name : "");
	STR_COPY(out->author_email, a->email ? a->email : "");
	out->time = (int64_t)a->when.time;
	out->offset_minutes = a->when.offset;
	const char *msg = git_commit_message(c);
	out->message = xstrdup(msg ? msg : "");
	size_t n = strcspn(out->message, "\n");
	if (n >= sizeof(out->summary))
		n = sizeof(out->summary) - 1;
	memcpy(out->summary, out->message, n);
	out->summary[n] = '\0';
	git_message_trailer_array arr = {0};
	if (git_message_trailers(&arr, out->message) == 0) {
		for (size_t i = 0; i < arr.count && out->ntrailers < POLICY_MAX_TRAILERS; i++) {
			struct policy_trailer *t = &out->trailers[out->ntrailers++];
			STR_COPY(t->key, arr.trailers[i].key);
			STR_COPY(t->value, arr.trailers[i].value);
		}
		git_message_trailer_array_free(&arr);
	}
}

int repo_commit_info(struct policy_repo *r, const char *rev, struct policy_commit *out,
		     struct gq_err *e)
{
	git_commit *c = NULL;
	if (lookup_commit(r, rev, false, &c, e) < 0)
		return -1;
	fill_commit(c, out);
	git_commit_free(c);
	return 0;
}

int repo_walk(struct policy_repo *r, const char *rev, int max,
	      int (*fn)(const struct policy_commit *c, void *arg), void *arg, struct gq_err *e)
{
	git_commit *start = NULL;
	git_revwalk *w = NULL;
	int rc = -1, grc;
	if (lookup_commit(r, rev, false, &start, e) < 0)
		return -1;
	if ((grc = git_revwalk_new(&w, r->repo)) < 0 ||
	    (grc = git_revwalk_push(w, git_commit_id(start))) < 0) {
		gitx_err(e, grc, "walking the history of '%s'", r->path);
		goto out;
	}
	git_revwalk_simplify_first_parent(w);
	git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL);
	git_oid id;
	int count = 0;
	while ((max <= 0 || count < max) && (grc = git_revwalk_next(&id, w)) == 0) {
		git_commit *c = NULL;
		if ((grc = git_commit_lookup(&c, r->repo, &id)) < 0) {
			gitx_err(e, grc, "reading a commit");
			goto out;
		}
		struct policy_commit pc;
		fill_commit(c, &pc);
		git_commit_free(c);
		int frc = fn(&pc, arg);
		repo_commit_release(&pc);
		if (frc < 0)
			goto out;
		if (frc > 0)
			break;
		count++;
	}
	if (grc < 0 && grc != GIT_ITEROVER) {
		gitx_err(e, grc, "walking the history of '%s'", r->path);
		goto out;
	}
	rc = 0;
out:
	git_revwalk_free(w);
	git_commit_free(start);
	return rc;
}

/* Does the working tree's policy.conf differ from HEAD's? */
static int workdir_dirty(struct policy_repo *r, const char *head_text, size_t head_len, bool *dirty,
			 struct gq_err *e)
{
	*dirty = false;
	const char *wd = git_repository_workdir(r->repo);
	if (!wd)
		return 0;
	char *path = xasprintf("%s%s", wd, POLICY_FILE);
	size_t len = 0;
	struct gq_err fe = GQ_ERR_INIT;
	char *text = pfile_read_file(path, &len, &fe);
	int rc = 0;
	if (!text && fe.code != GQ_ENOENT) {
		*e = fe;
		rc = -1;
	} else if (text) {
		*dirty = len != head_len || memcmp(text, head_text, len);
	}
	free(text);
	free(path);
	return rc;
}

int repo_commit(struct policy_repo *r, const char *text, size_t len, const char *message,
		char oid[POLICY_OID_HEX], struct gq_err *e)
{
	git_commit *head = NULL;
	git_tree *base = NULL;
	git_signature *sig = NULL;
	char *head_text = NULL;
	int rc = -1, grc;
	if (!git_repository_head_unborn(r->repo)) {
		if (lookup_commit(r, "HEAD", false, &head, e) < 0)
			goto out;
		size_t hlen = 0;
		struct gq_err te = GQ_ERR_INIT;
		head_text = commit_text(head, &hlen, &te);
		bool dirty = false;
		if (head_text && workdir_dirty(r, head_text, hlen, &dirty, e) < 0)
			goto out;
		if (dirty) {
			err_set(
			    e, GQ_ECONFLICT,
			    "'%s/%s' has changes that are not committed; commit or discard them "
			    "first",
			    r->path, POLICY_FILE);
			goto out;
		}
	}
	if (signature(r->repo, NULL, NULL, &sig, e) < 0)
		goto out;
	git_oid id;
	if (head && (grc = git_commit_tree(&base, head)) < 0) {
		gitx_err(e, grc, "reading the tree of HEAD");
		goto out;
	}
	if (write_commit(r->repo, head, text, len, message, sig, &id, e) < 0 ||
	    checkout_head(r->repo, base, e) < 0)
		goto out;
	oid_hex(&id, oid);
	rc = 0;
out:
	free(head_text);
	git_tree_free(base);
	git_signature_free(sig);
	git_commit_free(head);
	return rc;
}

static int diff_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
		     void *arg)
{
	struct buf *out = arg;
	(void)d;
	(void)h;
	if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_ADDITION ||
	    l->origin == GIT_DIFF_LINE_DELETION)
		buf_add(out, &l->origin, 1);
	buf_add(out, l->content, l->content_len);
	return 0;
}

int repo_text_diff(const char *a, size_t alen, const char *a_label, const char *b, size_t blen,
		   const char *b_label, struct buf *out, struct gq_err *e)
{
	gitx_init();
	git_diff_options o;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 3;
	git_patch *patch = NULL;
	int rc = 0;
	int grc = git_patch_from_buffers(&patch, a, alen, a_label, b, blen, b_label, &o);
	if (grc < 0)
		rc = gitx_err(e, grc, "comparing %s and %s", a_label, b_label);
	else if (git_patch_num_hunks(patch) > 0 &&
		 (grc = git_patch_print(patch, diff_line, out)) < 0)
		rc = gitx_err(e, grc, "printing the diff");
	git_patch_free(patch);
	return rc;
}

char *repo_draft_path(struct policy_repo *r)
{
	return xasprintf("%sgq-policy-draft.conf", git_repository_path(r->repo));
}
