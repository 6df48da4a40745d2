/*
 * policy.c - `gq policy`: the change workflow of the policy repository for
 * admins: show, check, edit, diff, log, blame, apply, rollback, review,
 * export, init. The repository work is policy/'s and the scheduling is
 * core's; this file parses arguments and decides what to print.
 */
#include "cmd.h"

#include <errno.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/file.h"
#include "policy/repo.h"
#include "policy/semdiff.h"
#include "policy/slurm.h"

struct popts {
	const char *repo; /* --repo, else $GQ_POLICY_REPO, else the default */
	bool json;
	const char *message, *expected, *observe, *rollback_if; /* edit, rollback */
	bool no_apply;                                          /* rollback */
	bool roff;                                              /* keys */
	int max;                                                /* log -n */
	const char *window;                                     /* review --window */
};

static char *repo_path(const struct popts *o)
{
	if (o->repo)
		return xstrdup(o->repo);
	const char *env = getenv("GQ_POLICY_REPO");
	if (env && *env)
		return xstrdup(env);
	const char *state = getenv("XDG_STATE_HOME");
	if (state && *state)
		return xasprintf("%s/gq/policy", state);
	const char *home = getenv("HOME");
	return xasprintf("%s/.local/state/gq/policy", home && *home ? home : ".");
}

static struct policy_repo *open_repo(const struct popts *o, int *rc)
{
	struct gq_err e = GQ_ERR_INIT;
	char *path = repo_path(o);
	struct policy_repo *r = policy_repo_open(path, &e);
	free(path);
	if (!r)
		*rc = cmd_fail(&e);
	return r;
}

static char *short_oid(const char *oid, char out[8])
{
	snprintf(out, 8, "%.7s", oid);
	return out;
}

static char *fmt_time(int64_t t, int offset_minutes, char *out, size_t size)
{
	time_t tt = (time_t)(t + offset_minutes * 60);
	struct tm tm;
	gmtime_r(&tt, &tm);
	char z[16];
	snprintf(z, sizeof(z), "%c%02d%02d", offset_minutes < 0 ? '-' : '+',
		 abs(offset_minutes) / 60, abs(offset_minutes) % 60);
	snprintf(out, size, "%04d-%02d-%02d %02d:%02d %s", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, z);
	return out;
}

/* ---- printing a semantic diff ---- */

static void print_changes(const struct policy_diff *d)
{
	if (!d->n) {
		printf("no policy change\n");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct policy_change *c = &d->items[i];
		switch (c->kind) {
		case CHANGE_SET:
			printf("  %s: %s -> %s\n", c->key, c->old_value[0] ? c->old_value : "\"\"",
			       c->new_value[0] ? c->new_value : "\"\"");
			break;
		case CHANGE_ADDED:
			printf("  %s: added (%s)\n", c->key, c->new_value[0] ? c->new_value : "\"\"");
			break;
		case CHANGE_REMOVED:
			printf("  %s: removed (was %s)\n", c->key,
			       c->old_value[0] ? c->old_value : "\"\"");
			break;
		}
	}
}

/* Warns on stderr when d changes more than one policy variable. */
static void warn_variables(const struct policy_diff *d)
{
	int n = policy_diff_variables(d);
	if (n > 1)
		fprintf(stderr,
			"gq: warning: this change touches %d policy variables; one variable per "
			"commit keeps review and rollback exact\n",
			n);
}

/* ---- init ---- */

static int sub_init(const struct popts *o, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error(&cmd_policy, "init takes no operand; use --repo PATH");
	struct gq_err e = GQ_ERR_INIT;
	char *path = repo_path(o);
	int rc = policy_repo_init(path, NULL, NULL, &e);
	if (rc == 0)
		printf("created the policy repository %s with gq's default policy\n", path);
	free(path);
	return rc < 0 ? cmd_fail(&e) : EXIT_OK;
}

/* ---- show ---- */

static void show_key(const struct policy_key_info *ki, void *arg)
{
	(void)arg;
	const char *v = ki->value[0] ? ki->value : "\"\"";
	if (ki->is_default)
		printf("%-34s %-14s (default)\n", ki->key, v);
	else
		printf("%-34s %s\n", ki->key, v);
}

static int sub_show(const struct popts *o, int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error(&cmd_policy, "show takes at most one revision");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct policy *p = xmalloc(sizeof(*p));
	if (policy_repo_load(r, argc > 1 ? argv[1] : "HEAD", p, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	char sh[8];
	printf("# policy %s of %s\n", short_oid(p->revision, sh), policy_repo_path(r));
	policy_foreach(p, show_key, NULL);
out:
	free(p);
	policy_repo_free(r);
	return rc;
}

/* ---- check ---- */

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int sub_check(const struct popts *o, int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error(&cmd_policy, "check takes at most one revision or file");
	const char *what = argc > 1 ? argv[1] : "HEAD";
	struct gq_err e = GQ_ERR_INIT;
	struct policy *cand = xmalloc(sizeof(*cand)), *base = xmalloc(sizeof(*base));
	struct policy_repo *r = NULL;
	struct policy_diff d;
	policy_diff_init(&d);
	int rc = EXIT_OK;
	bool have_base = false;
	char sh[8];
	if (argc > 1 && is_file(what)) {
		if (policy_load_file(what, cand, &e) < 0) {
			fprintf(stderr, "gq: %s\n", e.msg);
			rc = EXIT_FAIL;
			goto out;
		}
		/* Compared with HEAD of the repository, when there is one. */
		char *path = repo_path(o);
		struct gq_err re = GQ_ERR_INIT;
		r = policy_repo_open(path, &re);
		free(path);
		have_base = r && policy_repo_read(r, "HEAD", base, &re) == 0;
		printf("%s: valid\n", what);
		if (have_base)
			printf("changes from HEAD (%s):\n", short_oid(base->revision, sh));
	} else {
		if (!(r = open_repo(o, &rc)))
			goto out;
		if (policy_repo_load(r, what, cand, &e) < 0) {
			if (e.code != GQ_EINVAL) {
				rc = cmd_fail(&e);
				goto out;
			}
			fprintf(stderr, "gq: %s\n", e.msg);
			rc = EXIT_FAIL;
			goto out;
		}
		printf("%s (%s): valid\n", what, short_oid(cand->revision, sh));
		struct policy_commit pc;
		if (policy_repo_commit_info(r, cand->revision, &pc, &e) < 0) {
			rc = cmd_fail(&e);
			goto out;
		}
		if (pc.parent[0]) {
			struct gq_err pe = GQ_ERR_INIT;
			have_base = policy_repo_read(r, pc.parent, base, &pe) == 0;
			if (have_base)
				printf("changes from its parent (%s):\n", short_oid(pc.parent, sh));
		}
		policy_commit_release(&pc);
	}
	if (have_base) {
		policy_diff_compute(base, cand, &d);
		print_changes(&d);
		warn_variables(&d);
	}
out:
	policy_diff_release(&d);
	policy_repo_free(r);
	free(cand);
	free(base);
	return rc;
}

/* ---- diff ---- */

static int sub_diff(const struct popts *o, int argc, char **argv)
{
	if (argc > 3)
		return cmd_usage_error(&cmd_policy, "diff takes at most two revisions");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	const char *a = argc > 1 ? argv[1] : "HEAD~1", *b = argc > 2 ? argv[2] : "HEAD";
	struct gq_err e = GQ_ERR_INIT;
	struct policy *pa = xmalloc(sizeof(*pa)), *pb = xmalloc(sizeof(*pb));
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	char oa[POLICY_OID_HEX], ob[POLICY_OID_HEX], sa[8], sb[8];
	struct policy_diff d;
	policy_diff_init(&d);
	struct buf text;
	buf_init(&text, 0);
	if (!(ta = policy_repo_text(r, a, &la, oa, &e)) || !(tb = policy_repo_text(r, b, &lb, ob, &e)) ||
	    policy_repo_read(r, oa, pa, &e) < 0 || policy_repo_read(r, ob, pb, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	short_oid(oa, sa);
	short_oid(ob, sb);
	policy_diff_compute(pa, pb, &d);
	printf("policy %s -> %s:\n", sa, sb);
	print_changes(&d);
	char la_[32], lb_[32];
	snprintf(la_, sizeof(la_), "%s:%s", sa, POLICY_FILE);
	snprintf(lb_, sizeof(lb_), "%s:%s", sb, POLICY_FILE);
	if (policy_text_diff(ta, la, la_, tb, lb, lb_, &text, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (text.len)
		printf("\n%s", text.data);
	struct gq_err ve = GQ_ERR_INIT;
	if (policy_validate(pb, &ve) < 0)
		fprintf(stderr, "gq: warning: %s does not validate: %s\n", sb, ve.msg);
out:
	buf_release(&text);
	policy_diff_release(&d);
	free(ta);
	free(tb);
	free(pa);
	free(pb);
	policy_repo_free(r);
	return rc;
}

/* ---- log ---- */

struct log_ctx {
	bool first;
};

static int log_one(const struct policy_commit *c, void *arg)
{
	struct log_ctx *lc = arg;
	char when[64];
	if (!lc->first)
		printf("\n");
	lc->first = false;
	printf("commit %s\n", c->oid);
	printf("Author: %s <%s>\n", c->author_name, c->author_email);
	printf("Date:   %s\n\n", fmt_time(c->time, c->offset_minutes, when, sizeof(when)));
	const char *m = c->message;
	while (*m) {
		size_t n = strcspn(m, "\n");
		printf("    %.*s\n", (int)n, m);
		m += n + (m[n] == '\n');
	}
	return 0;
}

static int sub_log(const struct popts *o, int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error(&cmd_policy, "log takes at most one revision");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct log_ctx lc = {true};
	if (policy_repo_walk(r, argc > 1 ? argv[1] : "HEAD", o->max, log_one, &lc, &e) < 0)
		rc = cmd_fail(&e);
	policy_repo_free(r);
	return rc;
}

/* ---- blame ---- */

struct blame_ctx {
	struct policy_repo *r;
	const char *key;
	char value[300];       /* the key's value at the start revision */
	struct policy_commit found;
	bool have_found;
	char before[300];      /* the value before the commit found */
	bool before_absent;
	struct gq_err *e;
};

/* The value of key at rev; *absent when the key does not exist there (its
 * queue or department is not defined) or the revision cannot be read. */
static void value_at(struct policy_repo *r, const char *rev, const char *key, char *out,
		     size_t size, bool *absent)
{
	struct policy *p = xmalloc(sizeof(*p));
	struct gq_err e = GQ_ERR_INIT;
	*absent = policy_repo_read(r, rev, p, &e) < 0 || policy_get(p, key, out, size, &e) < 0;
	if (*absent)
		out[0] = '\0';
	free(p);
}

static int blame_one(const struct policy_commit *c, void *arg)
{
	struct blame_ctx *bc = arg;
	char here[300], before[300];
	bool here_absent, before_absent = true;
	value_at(bc->r, c->oid, bc->key, here, sizeof(here), &here_absent);
	if (here_absent || strcmp(here, bc->value))
		return 1; /* older than the last change: stop */
	if (c->parent[0])
		value_at(bc->r, c->parent, bc->key, before, sizeof(before), &before_absent);
	if (!before_absent && !strcmp(before, here))
		return 0; /* unchanged by this commit: look further back */
	if (bc->have_found)
		policy_commit_release(&bc->found);
	bc->found = *c;
	bc->found.message = xstrdup(c->message);
	bc->have_found = true;
	STR_COPY(bc->before, before);
	bc->before_absent = before_absent;
	return 1;
}

static int sub_blame(const struct popts *o, int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		return cmd_usage_error(&cmd_policy, "blame takes a KEY and at most one revision");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	const char *rev = argc > 2 ? argv[2] : "HEAD";
	struct blame_ctx bc = {.r = r, .key = argv[1], .e = &e};
	struct policy *p = xmalloc(sizeof(*p));
	if (policy_repo_read(r, rev, p, &e) < 0 ||
	    policy_get(p, argv[1], bc.value, sizeof(bc.value), &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (policy_repo_walk(r, rev, 0, blame_one, &bc, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (!bc.have_found)
		BUG("blame found no commit for '%s'", argv[1]);
	char sh[8], when[64];
	const struct policy_commit *c = &bc.found;
	printf("%s = %s\n", argv[1], bc.value[0] ? bc.value : "\"\"");
	printf("set by %s %s <%s> %s\n", short_oid(c->oid, sh), c->author_name, c->author_email,
	       fmt_time(c->time, c->offset_minutes, when, sizeof(when)));
	printf("    %s\n", c->summary);
	if (bc.before_absent)
		printf("    before: not defined\n");
	else
		printf("    before: %s\n", bc.before[0] ? bc.before : "\"\"");
	for (int i = 0; i < c->ntrailers; i++)
		printf("    %s: %s\n", c->trailers[i].key, c->trailers[i].value);
	policy_commit_release(&bc.found);
out:
	free(p);
	policy_repo_free(r);
	return rc;
}

/* ---- edit ---- */

/* A line from the user: readline on a terminal, a plain line otherwise.
 * NULL at end of input. Caller frees. */
static char *ask(const char *prompt)
{
	if (isatty(STDIN_FILENO))
		return readline(prompt);
	char line[1024];
	if (!fgets(line, sizeof(line), stdin))
		return NULL;
	line[strcspn(line, "\n")] = '\0';
	return xstrdup(line);
}

static int run_editor(const char *path, struct gq_err *e)
{
	const char *ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	/* Like git: the editor setting is a shell command, the file its argument. */
	char *cmd = xasprintf("%s \"$1\"", ed);
	char *file = xstrdup(path), sh[] = "sh", dash_c[] = "-c";
	char *const args[] = {sh, dash_c, cmd, sh, file, NULL};
	int rc = 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		rc = err_set(e, GQ_EIO, "cannot start the editor: %s", strerror(errno));
	} else if (pid == 0) {
		execv("/bin/sh", args);
		_exit(127);
	} else {
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = err_set(e, GQ_EIO,
				     "the editor '%s' failed (status %d); set EDITOR to one that works",
				     ed, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	free(cmd);
	free(file);
	return rc;
}

/* The suggested summary of a change. */
static void default_summary(const struct policy_diff *d, char *out, size_t size)
{
	if (d->n == 1 && d->items[0].kind == CHANGE_SET)
		snprintf(out, size, "Set %s to %s (was %s)", d->items[0].key, d->items[0].new_value,
			 d->items[0].old_value);
	else
		snprintf(out, size, "Change %d policy variables", policy_diff_variables(d));
}

/* Builds the commit message from the options, asking for what is missing
 * when asking is allowed. NULL when the summary stays empty. */
static char *commit_message(const struct popts *o, const char *suggested, bool prompt)
{
	char *summary = o->message ? xstrdup(o->message) : NULL;
	char *tr[3] = {o->expected ? xstrdup(o->expected) : NULL,
		       o->observe ? xstrdup(o->observe) : NULL,
		       o->rollback_if ? xstrdup(o->rollback_if) : NULL};
	static const char *const keys[3] = {"Expected", "Observe", "Rollback-if"};
	static const char *const hints[3] = {
		"what should change, measurably (e.g. 'P2 P95 wait under 6h')",
		"how long to watch before judging (e.g. '7d')",
		"the condition that undoes it (e.g. 'P1 P95 wait over 8h')"};
	if (prompt && !summary) {
		char *p = xasprintf("Summary [%s]: ", suggested);
		summary = ask(p);
		free(p);
		if (summary && !*summary) {
			free(summary);
			summary = xstrdup(suggested);
		}
	}
	for (int i = 0; i < 3 && prompt && !o->message; i++) {
		if (tr[i])
			continue;
		printf("%s: %s (empty to skip)\n", keys[i], hints[i]);
		char *p = xasprintf("%s: ", keys[i]);
		tr[i] = ask(p);
		free(p);
	}
	char *msg = NULL;
	if (summary && *summary) {
		struct buf b;
		buf_init(&b, 0);
		buf_printf(&b, "%s\n", summary);
		bool any = false;
		for (int i = 0; i < 3; i++) {
			if (tr[i] && *tr[i]) {
				buf_printf(&b, "%s%s: %s\n", any ? "" : "\n", keys[i], tr[i]);
				any = true;
			}
		}
		msg = buf_detach(&b);
	}
	free(summary);
	for (int i = 0; i < 3; i++)
		free(tr[i]);
	return msg;
}

static int write_file(const char *path, const char *text, size_t len, struct gq_err *e)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return err_set(e, GQ_EIO, "cannot write '%s': %s", path, strerror(errno));
	size_t n = fwrite(text, 1, len, f);
	if (fclose(f) != 0 || n != len)
		return err_set(e, GQ_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

static int sub_edit(const struct popts *o, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error(&cmd_policy, "edit takes no operand");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	char *draft = policy_repo_draft_path(r);
	char *head_text = NULL, *text = NULL, *msg = NULL;
	size_t head_len = 0, len = 0;
	char head_oid[POLICY_OID_HEX], oid[POLICY_OID_HEX], sh[8];
	struct policy *old = xmalloc(sizeof(*old)), *cand = xmalloc(sizeof(*cand));
	struct policy_diff d;
	policy_diff_init(&d);
	if (!(head_text = policy_repo_text(r, "HEAD", &head_len, head_oid, &e)) ||
	    policy_repo_read(r, head_oid, old, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (is_file(draft)) {
		fprintf(stderr, "gq: resuming the edit kept from last time (%s)\n", draft);
	} else if (write_file(draft, head_text, head_len, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (run_editor(draft, &e) < 0 || !(text = policy_read_file(draft, &len, &e))) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (len == head_len && !memcmp(text, head_text, len)) {
		printf("no change; nothing committed\n");
		unlink(draft);
		goto out;
	}
	policy_defaults(cand);
	if (policy_parse_text(cand, text, len, POLICY_FILE, &e) < 0 ||
	    policy_validate_text(cand, text, POLICY_FILE, &e) < 0) {
		fprintf(stderr, "gq: %s\n", e.msg);
		fprintf(stderr,
			"gq: nothing committed; your edit is kept in %s and 'gq policy edit' "
			"resumes it\n",
			draft);
		rc = EXIT_FAIL;
		goto out;
	}
	policy_diff_compute(old, cand, &d);
	printf("changes from HEAD (%s):\n", short_oid(head_oid, sh));
	print_changes(&d);
	warn_variables(&d);
	char suggested[400];
	default_summary(&d, suggested, sizeof(suggested));
	if (!(msg = commit_message(o, suggested, true))) {
		fprintf(stderr,
			"gq: no summary, nothing committed; your edit is kept in %s and 'gq policy "
			"edit' resumes it\n",
			draft);
		rc = EXIT_FAIL;
		goto out;
	}
	if (policy_repo_commit(r, text, len, msg, oid, &e) < 0) {
		rc = cmd_fail(&e);
		fprintf(stderr, "gq: your edit is kept in %s\n", draft);
		goto out;
	}
	unlink(draft);
	printf("committed %s: %.*s\n", short_oid(oid, sh), (int)strcspn(msg, "\n"), msg);
	printf("check its impact with 'gq policy check', put it in force with 'gq policy apply'\n");
out:
	policy_diff_release(&d);
	free(old);
	free(cand);
	free(msg);
	free(text);
	free(head_text);
	free(draft);
	policy_repo_free(r);
	return rc;
}

/* ---- rollback ---- */

struct reverts_ctx {
	const char *target;
	struct buf *b;
	int n;
};

static int collect_reverts(const struct policy_commit *c, void *arg)
{
	struct reverts_ctx *rc = arg;
	if (!strcmp(c->oid, rc->target))
		return 1;
	if (rc->n++ < 20)
		buf_printf(rc->b, "Reverts: %.12s %s\n", c->oid, c->summary);
	return 0;
}

static int sub_rollback(const struct popts *o, int argc, char **argv)
{
	if (argc != 2)
		return cmd_usage_error(&cmd_policy, "rollback takes one revision");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	char *text = NULL, *head = NULL, *msg = NULL;
	size_t len = 0, hlen = 0;
	char oid[POLICY_OID_HEX], hoid[POLICY_OID_HEX], noid[POLICY_OID_HEX], sh[8];
	struct policy_commit target = {0};
	struct policy *p = xmalloc(sizeof(*p));
	struct buf b;
	buf_init(&b, 0);
	if (!(text = policy_repo_text(r, argv[1], &len, oid, &e)) ||
	    !(head = policy_repo_text(r, "HEAD", &hlen, hoid, &e)) ||
	    policy_repo_commit_info(r, oid, &target, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (policy_repo_load(r, oid, p, &e) < 0) {
		fprintf(stderr, "gq: %s\n", e.msg);
		fprintf(stderr, "gq: '%s' does not validate; roll back to a valid revision\n",
			argv[1]);
		rc = EXIT_FAIL;
		goto out;
	}
	if (len == hlen && !memcmp(text, head, len)) {
		err_set(&e, GQ_ECONFLICT, "HEAD already has the policy of '%s'; nothing to roll back",
			argv[1]);
		rc = cmd_fail(&e);
		goto out;
	}
	short_oid(oid, sh);
	if (o->message)
		buf_printf(&b, "%s\n\nRestore the policy of %s.\n", o->message, oid);
	else
		buf_printf(&b, "Roll back to %s: %s\n\nRestore the policy of %s.\n", sh,
			   target.summary, oid);
	struct reverts_ctx rctx = {oid, &b, 0};
	buf_printf(&b, "\n");
	if (policy_repo_walk(r, "HEAD", 0, collect_reverts, &rctx, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	buf_printf(&b, "Rollback-to: %s\n", oid);
	if (o->expected)
		buf_printf(&b, "Expected: %s\n", o->expected);
	if (o->observe)
		buf_printf(&b, "Observe: %s\n", o->observe);
	if (o->rollback_if)
		buf_printf(&b, "Rollback-if: %s\n", o->rollback_if);
	if (policy_repo_commit(r, text, len, b.data, noid, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	char nsh[8];
	printf("committed %s: roll back to %s (%d commit%s reverted)\n", short_oid(noid, nsh), sh,
	       rctx.n, rctx.n == 1 ? "" : "s");
	printf("put it in force with 'gq policy apply %s'\n", nsh);
out:
	buf_release(&b);
	policy_commit_release(&target);
	free(p);
	free(msg);
	free(text);
	free(head);
	policy_repo_free(r);
	return rc;
}

/* ---- export ---- */

static int sub_export(const struct popts *o, int argc, char **argv)
{
	if (argc < 2 || argc > 3 || strcmp(argv[1], "slurm"))
		return cmd_usage_error(&cmd_policy, "export takes a format ('slurm') and at most one revision");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct policy *p = xmalloc(sizeof(*p));
	if (policy_repo_load(r, argc > 2 ? argv[2] : "HEAD", p, &e) < 0) {
		rc = cmd_fail(&e);
	} else {
		struct buf b;
		buf_init(&b, 0);
		policy_export_slurm(p, &b);
		fputs(b.data, stdout);
		buf_release(&b);
	}
	free(p);
	policy_repo_free(r);
	return rc;
}

/* ---- keys ---- */

/* Escapes text for a roff line: backslashes and leading dots or quotes. */
static void roff_text(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-')
			fputs("\\-", stdout);
		else
			putchar(*s);
	}
}

/* The default of a key pattern as gq prints values: per tier for tier
 * keys, that of queue / department "default" for theirs. */
static void key_default(const struct policy *def, const struct policy_key_doc *kd, char *out,
			size_t size)
{
	const char *star = strstr(kd->pattern, ".*.");
	char key[96], v[300];
	if (!star || strncmp(kd->pattern, "tier.", 5)) {
		if (star)
			snprintf(key, sizeof(key), "%.*s.default.%s", (int)(star - kd->pattern),
				 kd->pattern, star + 3);
		else
			snprintf(key, sizeof(key), "%s", kd->pattern);
		if (policy_get(def, key, v, sizeof(v), NULL) < 0)
			BUG("no key '%s'", key);
		snprintf(out, size, "%s", v[0] ? v : "\"\"");
		return;
	}
	size_t n = 0;
	out[0] = '\0';
	for (int t = 0; t < TIER_COUNT; t++) {
		snprintf(key, sizeof(key), "tier.%s.%s", tier_name((enum tier)t), star + 3);
		if (policy_get(def, key, v, sizeof(v), NULL) < 0)
			BUG("no key '%s'", key);
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s %s", t ? ", " : "",
				      tier_name((enum tier)t), v);
	}
}

static int sub_keys(const struct popts *o, int argc, char **argv)
{
	(void)argv;
	bool roff = o->roff;
	if (argc > 1)
		return cmd_usage_error(&cmd_policy, "keys takes no operand");
	struct policy *def = xmalloc(sizeof(*def));
	policy_defaults(def);
	for (size_t i = 0; i < policy_key_count(); i++) {
		struct policy_key_doc kd;
		char dv[400];
		policy_key_doc(i, &kd);
		key_default(def, &kd, dv, sizeof(dv));
		if (roff) {
			printf(".TP\n.B ");
			roff_text(kd.pattern);
			printf("\n");
			roff_text(kd.doc);
			printf(".\nDefault: ");
			roff_text(dv);
			printf(".\n");
		} else {
			printf("%-30s %-24s %s\n", kd.pattern, dv, kd.doc);
		}
	}
	free(def);
	return EXIT_OK;
}

/* ---- the command ---- */

struct sub {
	const char *name;
	const char *usage; /* after "gq policy NAME" */
	int (*fn)(const struct popts *o, int argc, char **argv);
};

static const struct sub subs[] = {
	{"show", "[REV]", sub_show},
	{"check", "[REV|FILE]", sub_check},
	{"edit", "[-m SUMMARY] [--expected TEXT] [--observe TEXT] [--rollback-if TEXT]", sub_edit},
	{"diff", "[A [B]]", sub_diff},
	{"log", "[-n N] [REV]", sub_log},
	{"blame", "KEY [REV]", sub_blame},
	{"rollback", "[-m SUMMARY] REV", sub_rollback},
	{"export", "slurm [REV]", sub_export},
	{"keys", "[--roff]", sub_keys},
	{"init", "", sub_init},
};

static int policy_exec(int argc, char **argv)
{
	struct popts o = {0};
	const struct sub *sub = NULL;
	/* Options may come before or after the subcommand; operands are kept. */
	char **ops = xcalloc((size_t)argc + 1, sizeof(char *));
	int nops = 0, rc = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **val = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			rc = cmd_print_usage(&cmd_policy);
			goto out;
		} else if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "--roff")) {
			o.roff = true;
		} else if (!strcmp(a, "--no-apply")) {
			o.no_apply = true;
		} else if (!strcmp(a, "--repo")) {
			val = &o.repo;
		} else if (!strcmp(a, "-m") || !strcmp(a, "--message")) {
			val = &o.message;
		} else if (!strcmp(a, "--expected")) {
			val = &o.expected;
		} else if (!strcmp(a, "--observe")) {
			val = &o.observe;
		} else if (!strcmp(a, "--rollback-if")) {
			val = &o.rollback_if;
		} else if (!strcmp(a, "--window")) {
			val = &o.window;
		} else if (!strcmp(a, "-n")) {
			if (i + 1 >= argc) {
				rc = cmd_usage_error(&cmd_policy, "-n needs a number");
				goto out;
			}
			int64_t n;
			struct gq_err e = GQ_ERR_INIT;
			if (parse_int64(argv[++i], 1, 1000000, &n, &e) < 0) {
				rc = cmd_usage_error(&cmd_policy, "-n: %s", e.msg);
				goto out;
			}
			o.max = (int)n;
		} else if (a[0] == '-' && a[1] && strcmp(a, "--") && !(a[1] >= '0' && a[1] <= '9')) {
			rc = cmd_usage_error(&cmd_policy, "unknown option '%s'", a);
			goto out;
		} else {
			ops[nops++] = argv[i];
		}
		if (val) {
			if (i + 1 >= argc) {
				rc = cmd_usage_error(&cmd_policy, "%s needs a value", a);
				goto out;
			}
			*val = argv[++i];
		}
	}
	if (!nops) {
		rc = cmd_usage_error(&cmd_policy, "a subcommand is required");
		goto out;
	}
	for (size_t s = 0; s < sizeof(subs) / sizeof(subs[0]) && !sub; s++)
		if (!strcmp(ops[0], subs[s].name))
			sub = &subs[s];
	if (!sub) {
		rc = cmd_usage_error(&cmd_policy, "unknown subcommand '%s'", ops[0]);
		goto out;
	}
	rc = sub->fn(&o, nops, ops);
out:
	free(ops);
	return rc;
}

const struct cmd_entry cmd_policy = {
	.name = "policy",
	.usage = "[--repo PATH] [--json] SUBCOMMAND [ARGS]",
	.summary = "review, change, apply and audit the scheduling policy",
	.flags = 0,
	.exec = policy_exec,
};
