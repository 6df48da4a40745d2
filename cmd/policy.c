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

#include "backend/backend.h"
#include "backend/config.h"
#include "core/stats.h"
#include "wire/cli.h"
#include "wire/slurm.h"
#include "policy/file.h"
#include "policy/impact.h"
#include "policy/kueue.h"
#include "policy/repo.h"
#include "policy/semdiff.h"
#include "policy/slurm.h"

struct popts {
	const char *repo; /* --repo, else $GQ_POLICY_REPO, else the default */
	bool json;
	const char *message, *expected, *observe, *rollback_if; /* edit, rollback */
	bool no_apply;						/* rollback */
	bool discard;						/* edit */
	bool roff;						/* keys */
	int max;						/* log -n */
	const char *window;					/* review --window */
	const char *applied; /* review --applied: when it took effect on Slurm */
	const char *ns;	     /* export kueue --namespace */
};

/* NULL with e when there is no --repo and no home to find one in. */
static char *opts_repo_path(const struct popts *o, struct gq_err *e)
{
	if (o->repo)
		return xstrdup(o->repo);
	return config_policy_repo(e);
}

static struct policy_repo *open_repo(const struct popts *o, int *rc)
{
	struct gq_err e = GQ_ERR_INIT;
	char *path = opts_repo_path(o, &e);
	struct policy_repo *r = path ? repo_open(path, &e) : NULL;
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
			printf("  %s: added (%s)\n", c->key,
			       c->new_value[0] ? c->new_value : "\"\"");
			break;
		case CHANGE_REMOVED:
			printf("  %s: removed (was %s)\n", c->key,
			       c->old_value[0] ? c->old_value : "\"\"");
			break;
		}
	}
}

/* A unified diff, in colour on a terminal (NO_COLOR is obeyed). */
static void print_patch(const char *patch)
{
	bool on = cmd_color(stdout);
	printf("\n");
	for (const char *l = patch; *l;) {
		size_t n = strcspn(l, "\n");
		const char *sgr = "";
		if (!strncmp(l, "+++ ", 4) || !strncmp(l, "--- ", 4) || !strncmp(l, "diff ", 5))
			sgr = SGR_BOLD;
		else if (*l == '+')
			sgr = SGR_GREEN;
		else if (*l == '-')
			sgr = SGR_RED;
		else if (!strncmp(l, "@@", 2))
			sgr = SGR_BLUE;
		printf("%s%.*s%s\n", cmd_sgr(on && *sgr, sgr), (int)n, l,
		       cmd_sgr(on && *sgr, SGR_RESET));
		l += n + (l[n] == '\n');
	}
}

/* Warns on stderr when d changes more than one policy variable. */
static void warn_variables(const struct policy_diff *d)
{
	int n = semdiff_variables(d);
	if (n > 1)
		fprintf(stderr,
			"gq: warning: this change touches %d policy variables; one variable per "
			"commit keeps review and rollback exact\n",
			n);
}

/* Warns on stderr of every key text sets more than once (pfile_duplicates):
 * it loads with the last value, as git-config reads it, but the other line
 * is likely a mistake. */
static void warn_duplicates(const char *text, size_t len, const char *shown)
{
	char *w = pfile_duplicates(text, len, shown);
	for (char *line = w, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		fprintf(stderr, "gq: warning: %.*s\n", (int)(nl ? nl - line : (long)strlen(line)),
			line);
		if (!nl)
			break;
	}
	free(w);
}

/* The same for a file on disk or a revision's policy.conf; silent when it
 * cannot be read (the load says why). */
static void warn_duplicates_of(struct policy_repo *r, const char *file, const char *oid)
{
	struct gq_err e = GQ_ERR_INIT;
	size_t len = 0;
	char got[POLICY_OID_HEX], shown[64];
	char *text = file ? pfile_read_file(file, &len, &e) : repo_text(r, oid, &len, got, &e);
	if (!text)
		return;
	if (!file)
		snprintf(shown, sizeof(shown), "%.7s:%s", got, POLICY_FILE);
	warn_duplicates(text, len, file ? file : shown);
	free(text);
}

/* ---- the server ---- */

/* The configured server without starting one (previews and the audit trail
 * are extras: no server, no preview). NULL when none answers. */
static struct backend *server_if_any(void)
{
	struct gq_err e = GQ_ERR_INIT;
	return backend_open(false, &e);
}

/* Every event the server has, in order. */
static int all_events(struct backend *b, struct event_list *out, struct gq_err *e)
{
	int64_t after = 0;
	for (int pages = 0; pages < 100000; pages++) {
		size_t before = out->n;
		if (b->ops->events(b, after, 0, out, e) < 0)
			return -1;
		if (out->n == before)
			return 0;
		after = out->items[out->n - 1].seq;
	}
	return 0;
}

static void print_time_utc(int64_t t)
{
	char when[64];
	fputs(fmt_time(t, 0, when, sizeof(when)), stdout);
}

/* ---- the impact preview ---- */

static void print_impact(const struct snapshot *s, const struct impact *im)
{
	char sh[8], a[32], b[32], d[32];
	printf("\nimpact on the live queue (%zu pending, %zu running; policy in force %s):\n",
	       im->npending, im->nrunning,
	       s->policy.revision[0] ? short_oid(s->policy.revision, sh) : "built-in defaults");
	if (!im->nmoves)
		printf("  no pending job changes position\n");
	for (size_t i = 0; i < im->nmoves; i++) {
		const struct impact_move *m = &im->moves[i];
		printf("  #%lld %s moves %d -> %d (weight %.4g -> %.4g)\n", (long long)m->job,
		       tier_name(m->tier), m->old_pos, m->new_pos, m->old_weight, m->new_weight);
	}
	if (!im->netas)
		printf("  no predicted start moves\n");
	for (size_t i = 0; i < im->netas; i++) {
		const struct impact_eta *t = &im->etas[i];
		if (!t->old_start || !t->new_start) {
			printf("  #%lld starts %s -> %s\n", (long long)t->job,
			       t->old_start ? dur_format(t->old_start - s->now, a, sizeof(a))
					    : "never",
			       t->new_start ? dur_format(t->new_start - s->now, b, sizeof(b))
					    : "never");
			continue;
		}
		printf("  #%lld starts in %s -> in %s (%s%s)\n", (long long)t->job,
		       dur_format(t->old_start - s->now, a, sizeof(a)),
		       dur_format(t->new_start - s->now, b, sizeof(b)),
		       t->new_start > t->old_start ? "+" : "",
		       dur_format(t->new_start - t->old_start, d, sizeof(d)));
	}
	int became = 0, stopped = 0;
	for (size_t i = 0; i < im->npreempts; i++)
		im->preempts[i].preemptible ? became++ : stopped++;
	if (!im->npreempts)
		printf("  no running job changes preemptibility\n");
	for (int pass = 0; pass < 2; pass++) {
		if (!(pass ? stopped : became))
			continue;
		printf("  running jobs that %s preemptible:", pass ? "stop being" : "become");
		for (size_t i = 0; i < im->npreempts; i++)
			if (im->preempts[i].preemptible == !pass)
				printf(" #%lld", (long long)im->preempts[i].job);
		printf("\n");
	}
}

/* The impact of cand on the live queue, when a server answers: true with
 * *s and *im filled (the caller releases both). */
static bool live_impact(const struct policy *cand, struct snapshot *s, struct impact *im,
			struct gq_err *e)
{
	struct backend *b = server_if_any();
	snapshot_init(s);
	if (!b) {
		err_set(e, GQ_EUNAVAIL, "no server answers");
		return false;
	}
	bool ok = b->ops->snapshot(b, s, e) == 0;
	if (ok)
		impact_compute(s, cand, im);
	backend_close(b);
	return ok;
}

/* Prints the impact preview of cand, or why there is none. */
static void preview(const struct policy *cand)
{
	struct gq_err e = GQ_ERR_INIT;
	struct snapshot s;
	struct impact im;
	if (live_impact(cand, &s, &im, &e)) {
		print_impact(&s, &im);
		impact_release(&im);
	} else {
		printf("\nno impact preview: %s\n", e.msg);
	}
	snapshot_release(&s);
}

/* ---- apply ---- */

/* Asks the server to put rev in force. The local repository, when there is
 * one, turns rev into the commit id the server loads. */
static int apply_rev(const struct popts *o, struct policy_repo *r, const char *rev)
{
	char oid[POLICY_OID_HEX], sh[8];
	struct gq_err e = GQ_ERR_INIT;
	const char *send = rev;
	if (r && repo_resolve(r, rev, oid, &e) == 0)
		send = oid;
	else if (r)
		return cmd_fail(&e);
	(void)o;
	int rc = EXIT_OK;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	char *applied = NULL;
	if (b->ops->policy_apply(b, send, &applied, &e) < 0) {
		if (e.code == GQ_EINVAL) {
			fprintf(stderr, "gq: the server refused %s: %s\n",
				send == oid ? short_oid(oid, sh) : send, e.msg);
			rc = EXIT_FAIL;
		} else {
			rc = cmd_fail(&e);
		}
	} else {
		printf("applied %s: the server's policy in force is %s\n",
		       send == oid ? short_oid(oid, sh) : send, applied);
	}
	free(applied);
	backend_close(b);
	return rc;
}

static int sub_apply(const struct popts *o, int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error(&cmd_policy, "apply takes at most one revision");
	struct gq_err e = GQ_ERR_INIT;
	char *path = opts_repo_path(o, &e);
	struct policy_repo *r = path ? repo_open(path, &e) : NULL;
	free(path);
	/* Without a local repository the server resolves the revision itself. */
	/* HEAD of the local repository: what was just committed here (the
	 * server itself follows its upstream when it has one). */
	int rc = apply_rev(o, r, argc > 1 ? argv[1] : r ? "HEAD" : "");
	repo_free(r);
	return rc;
}

/* ---- init ---- */

static int sub_init(const struct popts *o, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error(&cmd_policy, "init takes no operand; use --repo PATH");
	struct gq_err e = GQ_ERR_INIT;
	char *path = opts_repo_path(o, &e);
	if (!path)
		return cmd_fail(&e);
	int rc = repo_init(path, NULL, NULL, &e);
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
	if (repo_load(r, argc > 1 ? argv[1] : "HEAD", p, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	char sh[8];
	if (o->json) {
		jout_policy_show(p);
		goto out;
	}
	printf("# policy %s of %s\n", short_oid(p->revision, sh), repo_path(r));
	policy_foreach(p, show_key, NULL);
out:
	free(p);
	repo_free(r);
	return rc;
}

/* ---- check ---- */

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The end of check and diff: the report as JSON, or the impact preview
 * after what was printed already. */
static void finish_report(const struct popts *o, struct jout_policy_report *rep,
			  const struct policy *cand)
{
	if (!o->json) {
		if (cand)
			preview(cand);
		return;
	}
	struct snapshot s;
	struct impact im;
	struct gq_err e = GQ_ERR_INIT;
	bool have = cand && live_impact(cand, &s, &im, &e);
	if (!cand)
		snapshot_init(&s);
	rep->live = have ? &s : NULL;
	rep->impact = have ? &im : NULL;
	jout_policy_report(rep);
	if (have)
		impact_release(&im);
	snapshot_release(&s);
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
	semdiff_init(&d);
	int rc = EXIT_OK;
	bool have_base = false, valid = false;
	char sh[8], to[POLICY_OID_HEX + 8] = "", from[POLICY_OID_HEX] = "";
	struct jout_policy_report rep = {0};
	if (argc > 1 && is_file(what)) {
		STR_COPY(to, what);
		warn_duplicates_of(NULL, what, NULL);
		valid = pfile_load_file(what, cand, &e) == 0;
		/* Compared with HEAD of the repository, when there is one. */
		struct gq_err re = GQ_ERR_INIT;
		char *path = opts_repo_path(o, &re);
		r = path ? repo_open(path, &re) : NULL;
		free(path);
		have_base = r && repo_read(r, "HEAD", base, &re) == 0;
		if (have_base)
			STR_COPY(from, base->revision);
	} else {
		if (!(r = open_repo(o, &rc)))
			goto out;
		struct policy_commit pc;
		if (repo_commit_info(r, what, &pc, &e) < 0) {
			rc = cmd_fail(&e);
			goto out;
		}
		STR_COPY(to, pc.oid);
		warn_duplicates_of(r, NULL, pc.oid);
		valid = repo_load(r, pc.oid, cand, &e) == 0;
		if (!valid && e.code != GQ_EINVAL) {
			repo_commit_release(&pc);
			rc = cmd_fail(&e);
			goto out;
		}
		if (pc.parent[0]) {
			struct gq_err pe = GQ_ERR_INIT;
			have_base = repo_read(r, pc.parent, base, &pe) == 0;
			if (have_base)
				STR_COPY(from, pc.parent);
		}
		repo_commit_release(&pc);
	}
	if (valid && have_base)
		semdiff_compute(base, cand, &d);
	if (!valid)
		rc = EXIT_FAIL;
	if (o->json) {
		rep.from = from[0] ? from : NULL;
		rep.to = to;
		rep.error = valid ? NULL : e.msg;
		rep.changes = valid && have_base ? &d : NULL;
		finish_report(o, &rep, valid ? cand : NULL);
		goto out;
	}
	if (!valid) {
		fprintf(stderr, "gq: %s\n", e.msg);
		goto out;
	}
	if (is_file(what) && argc > 1)
		printf("%s: valid\n", what);
	else
		printf("%s (%s): valid\n", what, short_oid(to, sh));
	if (have_base) {
		printf("changes from %s (%s):\n", is_file(what) && argc > 1 ? "HEAD" : "its parent",
		       short_oid(from, sh));
		print_changes(&d);
		warn_variables(&d);
	}
	finish_report(o, &rep, cand);
out:
	semdiff_release(&d);
	repo_free(r);
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
	semdiff_init(&d);
	struct buf text;
	buf_init(&text, 0);
	if (!(ta = repo_text(r, a, &la, oa, &e)) || !(tb = repo_text(r, b, &lb, ob, &e)) ||
	    repo_read(r, oa, pa, &e) < 0 || repo_read(r, ob, pb, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	short_oid(oa, sa);
	short_oid(ob, sb);
	semdiff_compute(pa, pb, &d);
	char la_[32], lb_[32];
	snprintf(la_, sizeof(la_), "%s:%s", sa, POLICY_FILE);
	snprintf(lb_, sizeof(lb_), "%s:%s", sb, POLICY_FILE);
	if (repo_text_diff(ta, la, la_, tb, lb, lb_, &text, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	struct gq_err ve = GQ_ERR_INIT;
	bool valid = policy_validate(pb, &ve) == 0;
	if (o->json) {
		struct jout_policy_report rep = {.from = oa,
						 .to = ob,
						 .error = valid ? NULL : ve.msg,
						 .changes = &d,
						 .text = text.data ? text.data : ""};
		finish_report(o, &rep, valid ? pb : NULL);
		goto out;
	}
	printf("policy %s -> %s:\n", sa, sb);
	print_changes(&d);
	if (text.len)
		print_patch(text.data);
	if (!valid)
		fprintf(stderr, "gq: warning: %s does not validate: %s\n", sb, ve.msg);
	else
		finish_report(o, NULL, pb);
out:
	buf_release(&text);
	semdiff_release(&d);
	free(ta);
	free(tb);
	free(pa);
	free(pb);
	repo_free(r);
	return rc;
}

/* ---- log ---- */

struct log_ctx {
	bool first;
	bool json;
	const struct event_list *ev; /* the server's events, or NULL */
};

/* Does the id in a policy event (possibly abbreviated) name commit oid? */
static bool same_commit(const char *oid, const char *ev_oid)
{
	size_t n = strlen(ev_oid);
	return n >= 4 && !strncmp(oid, ev_oid, n);
}

/* The server's applied / refused lines for commit c, oldest first. */
static void print_applied(const struct log_ctx *lc, const struct policy_commit *c)
{
	for (size_t i = 0; lc->ev && i < lc->ev->n; i++) {
		const struct event *ev = &lc->ev->items[i];
		bool applied;
		char oid[POLICY_OID_HEX];
		const char *why = "";
		if (strcmp(ev->kind, "policy") ||
		    repo_event_parse(ev->reason, &applied, oid, &why) < 0 ||
		    !same_commit(c->oid, oid))
			continue;
		printf("    %s ", applied ? "Applied:" : "Refused:");
		print_time_utc(ev->time);
		printf(" by %s%s%s\n", ev->actor, applied ? "" : ": ", applied ? "" : why);
	}
}

static int log_one(const struct policy_commit *c, void *arg)
{
	struct log_ctx *lc = arg;
	char when[64];
	if (lc->json) {
		printf("%s", lc->first ? "[\n" : ",\n");
		lc->first = false;
		jout_policy_commit(c, lc->ev);
		return 0;
	}
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
	print_applied(lc, c);
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
	struct event_list ev = {0};
	struct log_ctx lc = {true, o->json, NULL};
	struct backend *b = server_if_any();
	if (b && all_events(b, &ev, &e) == 0)
		lc.ev = &ev;
	else
		fprintf(stderr, "gq: note: %s; when each commit was applied is not shown\n",
			b ? e.msg : "no server answers");
	if (repo_walk(r, argc > 1 ? argv[1] : "HEAD", o->max, log_one, &lc, &e) < 0)
		rc = cmd_fail(&e);
	else if (o->json)
		printf("%s]\n", lc.first ? "[" : "\n");
	event_list_release(&ev);
	backend_close(b);
	repo_free(r);
	return rc;
}

/* ---- blame ---- */

struct blame_ctx {
	struct policy_repo *r;
	const char *key;
	char value[300]; /* the key's value at the start revision */
	struct policy_commit found;
	bool have_found;
	char before[300]; /* the value before the commit found */
	bool before_absent;
	struct gq_err *e;
};

/* The value of key at rev: 0, 1 when the key does not exist there (its
 * queue or department is not defined), -1 when the revision cannot be read
 * (a commit check refuses, which never was the policy). */
static int value_at(struct policy_repo *r, const char *rev, const char *key, char *out, size_t size)
{
	struct policy *p = xmalloc(sizeof(*p));
	struct gq_err e = GQ_ERR_INIT;
	int rc = repo_read(r, rev, p, &e) < 0 ? -1 : policy_get(p, key, out, size, &e) < 0;
	if (rc)
		out[0] = '\0';
	free(p);
	return rc;
}

/* Newest first: the oldest commit of the latest run of readable commits
 * with the key's value took the blame; the readable one before that run
 * says what it was before. Commits that cannot be read are stepped over,
 * so that a refused commit neither takes the blame nor hides the value
 * before it. */
static int blame_one(const struct policy_commit *c, void *arg)
{
	struct blame_ctx *bc = arg;
	char here[300];
	int st = value_at(bc->r, c->oid, bc->key, here, sizeof(here));
	if (st < 0)
		return 0;
	if (st == 0 && !strcmp(here, bc->value)) {
		if (bc->have_found)
			repo_commit_release(&bc->found);
		bc->found = *c;
		bc->found.message = xstrdup(c->message);
		bc->have_found = true;
		return 0; /* the same value: look further back */
	}
	STR_COPY(bc->before, here);
	bc->before_absent = st != 0;
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
	struct blame_ctx bc = {.r = r, .key = argv[1], .e = &e, .before_absent = true};
	struct policy *p = xmalloc(sizeof(*p));
	if (repo_read(r, rev, p, &e) < 0 ||
	    policy_get(p, argv[1], bc.value, sizeof(bc.value), &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (repo_walk(r, rev, 0, blame_one, &bc, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (!bc.have_found)
		BUG("blame found no commit for '%s'", argv[1]);
	char sh[8], when[64];
	const struct policy_commit *c = &bc.found;
	if (o->json) {
		jout_policy_blame(argv[1], bc.value, bc.before_absent ? NULL : bc.before, c);
		repo_commit_release(&bc.found);
		goto out;
	}
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
	repo_commit_release(&bc.found);
out:
	free(p);
	repo_free(r);
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
			rc = err_set(
			    e, GQ_EIO,
			    "the editor '%s' failed (status %d); set EDITOR to one that works", ed,
			    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
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
		snprintf(out, size, "Change %d policy variables", semdiff_variables(d));
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

/* gq policy edit --discard: the kept draft (and its base) removed. */
static int discard_draft(struct policy_repo *r)
{
	char *draft = repo_draft_path(r), *base_path = xasprintf("%s.base", draft);
	int rc = EXIT_OK;
	if (!is_file(draft)) {
		struct gq_err e = GQ_ERR_INIT;
		err_set(&e, GQ_ECONFLICT, "no kept edit to discard (none at '%s')", draft);
		rc = cmd_fail(&e);
	} else if (unlink(draft) < 0) {
		struct gq_err e = GQ_ERR_INIT;
		err_set(&e, GQ_EIO, "cannot remove '%s': %s", draft, strerror(errno));
		rc = cmd_fail(&e);
	} else {
		unlink(base_path);
		printf("discarded the kept edit; the next 'gq policy edit' starts from HEAD\n");
	}
	free(base_path);
	free(draft);
	return rc;
}

static int sub_edit(const struct popts *o, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cmd_usage_error(&cmd_policy, "edit takes no operand");
	if (o->discard && (o->message || o->expected || o->observe || o->rollback_if))
		return cmd_usage_error(
		    &cmd_policy, "--discard takes no summary or trailers; it commits nothing");
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	if (o->discard) {
		rc = discard_draft(r);
		repo_free(r);
		return rc;
	}
	struct gq_err e = GQ_ERR_INIT;
	char *draft = repo_draft_path(r), *base_path = NULL;
	char *head_text = NULL, *text = NULL, *msg = NULL;
	size_t head_len = 0, len = 0;
	char head_oid[POLICY_OID_HEX], oid[POLICY_OID_HEX], sh[8];
	struct policy *old = xmalloc(sizeof(*old)), *cand = xmalloc(sizeof(*cand));
	struct policy_diff d;
	semdiff_init(&d);
	if (!(head_text = repo_text(r, "HEAD", &head_len, head_oid, &e)) ||
	    repo_read(r, head_oid, old, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	/* The draft's base commit sits beside it: when HEAD moved meanwhile, the
	 * changes below are against the new HEAD and may undo someone's work. */
	base_path = xasprintf("%s.base", draft);
	if (is_file(draft)) {
		fprintf(stderr, "gq: resuming the edit kept from last time (%s)\n", draft);
		size_t blen = 0;
		struct gq_err be = GQ_ERR_INIT;
		char *base = pfile_read_file(base_path, &blen, &be);
		if (base && strncmp(base, head_oid, strlen(head_oid)))
			fprintf(
			    stderr,
			    "gq: warning: HEAD moved since that edit began (from %.7s to %.7s); "
			    "check that the changes below undo nothing of theirs\n",
			    base, head_oid);
		free(base);
	} else if (write_file(draft, head_text, head_len, &e) < 0 ||
		   write_file(base_path, head_oid, strlen(head_oid), &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (run_editor(draft, &e) < 0 || !(text = pfile_read_file(draft, &len, &e))) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (len == head_len && !memcmp(text, head_text, len)) {
		printf("no change; nothing committed\n");
		unlink(draft);
		unlink(base_path);
		goto out;
	}
	policy_defaults(cand);
	warn_duplicates(text, len, POLICY_FILE);
	if (pfile_parse_text(cand, text, len, POLICY_FILE, &e) < 0 ||
	    pfile_validate_text(cand, text, POLICY_FILE, &e) < 0) {
		fprintf(stderr, "gq: %s\n", e.msg);
		fprintf(stderr,
			"gq: nothing committed; your edit is kept in %s and 'gq policy edit' "
			"resumes it\n",
			draft);
		rc = EXIT_FAIL;
		goto out;
	}
	semdiff_compute(old, cand, &d);
	if (d.n == 0) {
		/* Whitespace, comments, key order, a default spelled out: the
		 * same policy, so no commit to review, blame or roll back. */
		printf("no change to the policy; nothing committed\n");
		unlink(draft);
		unlink(base_path);
		goto out;
	}
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
	if (repo_commit(r, text, len, msg, oid, &e) < 0) {
		rc = cmd_fail(&e);
		fprintf(stderr, "gq: your edit is kept in %s\n", draft);
		goto out;
	}
	unlink(draft);
	unlink(base_path);
	printf("committed %s: %.*s\n", short_oid(oid, sh), (int)strcspn(msg, "\n"), msg);
	printf("check its impact with 'gq policy check', put it in force with 'gq policy apply'\n");
out:
	semdiff_release(&d);
	free(old);
	free(cand);
	free(msg);
	free(text);
	free(head_text);
	free(base_path);
	free(draft);
	repo_free(r);
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
	if (!(text = repo_text(r, argv[1], &len, oid, &e)) ||
	    !(head = repo_text(r, "HEAD", &hlen, hoid, &e)) ||
	    repo_commit_info(r, oid, &target, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	if (repo_load(r, oid, p, &e) < 0) {
		fprintf(stderr, "gq: %s\n", e.msg);
		fprintf(stderr, "gq: '%s' does not validate; roll back to a valid revision\n",
			argv[1]);
		rc = EXIT_FAIL;
		goto out;
	}
	if (len == hlen && !memcmp(text, head, len)) {
		err_set(&e, GQ_ECONFLICT,
			"HEAD already has the policy of '%s'; nothing to roll back", argv[1]);
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
	if (repo_walk(r, "HEAD", 0, collect_reverts, &rctx, &e) < 0) {
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
	if (repo_commit(r, text, len, b.data, noid, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	char nsh[8];
	printf("committed %s: roll back to %s (%d commit%s reverted)\n", short_oid(noid, nsh), sh,
	       rctx.n, rctx.n == 1 ? "" : "s");
	if (o->no_apply)
		printf("put it in force with 'gq policy apply %s'\n", nsh);
	else
		rc = apply_rev(o, r, noid);
out:
	buf_release(&b);
	repo_commit_release(&target);
	free(p);
	free(msg);
	free(text);
	free(head);
	repo_free(r);
	return rc;
}

/* ---- review ---- */

static const char *trailer(const struct policy_commit *c, const char *key)
{
	for (int i = 0; i < c->ntrailers; i++)
		if (!strcasecmp(c->trailers[i].key, key))
			return c->trailers[i].value;
	return NULL;
}

static const struct stats_group *find_group(const struct stats *st, const char *queue, enum tier t)
{
	for (size_t i = 0; i < st->ngroups; i++)
		if (!strcmp(st->groups[i].queue, queue) && st->groups[i].tier == t)
			return &st->groups[i];
	return NULL;
}

static void print_dur_pair(const char *name, int64_t a, int64_t b)
{
	char x[32], y[32];
	printf("  %-20s %10s %10s\n", name, dur_format(a, x, sizeof(x)),
	       dur_format(b, y, sizeof(y)));
}

static void print_int_pair(const char *name, long long a, long long b)
{
	printf("  %-20s %10lld %10lld\n", name, a, b);
}

/* A count the scheduler may not record (stats_report.not_recorded): "-". */
static void print_nr_pair(const char *name, long long a, long long b, bool unknown)
{
	if (unknown)
		printf("  %-20s %10s %10s\n", name, "-", "-");
	else
		print_int_pair(name, a, b);
}

/* One (queue, tier) group of both windows. */
static void print_group(const char *queue, enum tier t, const struct stats_group *a,
			const struct stats_group *b, unsigned nr)
{
	static const struct stats_group zero;
	if (!a)
		a = &zero;
	if (!b)
		b = &zero;
	/* A group with nothing to say on either side is left out. */
	if (!a->starts && !b->starts && !a->longest_wait && !b->longest_wait && !a->preemptions &&
	    !b->preemptions && !a->cancelled && !b->cancelled && !a->would_preempt &&
	    !b->would_preempt)
		return;
	char label[64];
	snprintf(label, sizeof(label), "queue %s, %s", strcmp(queue, "*") ? queue : "(all)",
		 tier_name(t));
	printf("\n%-22s %10s %10s\n", label, "before", "after");
	print_int_pair("starts", a->starts, b->starts);
	print_dur_pair("P50 wait", a->p50_wait, b->p50_wait);
	print_dur_pair("P95 wait", a->p95_wait, b->p95_wait);
	print_dur_pair("longest wait", a->longest_wait, b->longest_wait);
	print_nr_pair("over limit", a->over_limit, b->over_limit, nr & STATS_NR_OVER_LIMIT);
	print_nr_pair("overtaken", a->overtaken, b->overtaken, nr & STATS_NR_OVERTAKEN);
	print_int_pair("preemptions", a->preemptions, b->preemptions);
	if (nr & STATS_NR_WORK_LOST)
		printf("  %-20s %10s %10s\n", "work lost (GPU-h)", "-", "-");
	else
		printf("  %-20s %10.1f %10.1f\n", "work lost (GPU-h)", a->work_lost / 3600,
		       b->work_lost / 3600);
	print_int_pair("cancelled", a->cancelled, b->cancelled);
}

/* The server's metrics of [from, to) (GET /v1/stats?from=&to=): computed
 * where every job and event is known. *started gets the server's start
 * (0: not said), to which it clips a window that begins before. */
static int window_stats(struct backend *b, int64_t from, int64_t to, struct stats *out,
			unsigned *nr, int64_t *started, struct gq_err *e)
{
	struct stats_report r;
	if (!b->ops->stats)
		return err_set(e, GQ_EUNAVAIL, "this backend computes no metrics");
	if (b->ops->stats(b, from, to, &r, e) < 0)
		return -1;
	*started = r.started;
	/* A window clipped to the server's start is what it knows of it. */
	bool clipped = r.started > from && r.st.from == r.started;
	if ((r.st.from != from && !clipped) || r.st.to != to) {
		stats_report_release(&r);
		return err_set(
		    e, GQ_EINTERNAL,
		    "the server answered metrics of another window; is it older than this "
		    "gq?");
	}
	*out = r.st;
	*nr |= r.not_recorded;
	return 0;
}

static int sub_review(const struct popts *o, int argc, char **argv)
{
	if (argc != 2)
		return cmd_usage_error(&cmd_policy, "review takes one revision");
	int64_t window = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (o->window && (dur_parse(o->window, &window, &e) < 0 || window <= 0))
		return cmd_usage_error(&cmd_policy, "--window: %s",
				       window <= 0 && !e.msg[0] ? "must be positive" : e.msg);
	int rc = EXIT_OK;
	struct policy_repo *r = open_repo(o, &rc);
	if (!r)
		return rc;
	struct policy_commit c = {0};
	struct backend *b = NULL;
	struct event_list ev = {0};
	struct snapshot s;
	struct stats before = {0}, after = {0};
	snapshot_init(&s);
	char sh[8];
	if (repo_commit_info(r, argv[1], &c, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	short_oid(c.oid, sh);
	const char *observe = trailer(&c, "Observe");
	if (!window && observe) {
		struct gq_err oe = GQ_ERR_INIT;
		if (dur_parse(observe, &window, &oe) < 0 || window <= 0) {
			fprintf(stderr, "gq: note: Observe: '%s' is not a duration; reviewing 1d\n",
				observe);
			window = 0;
		}
	}
	if (!window)
		window = 86400;
	if (!(b = cmd_backend(true, &rc)))
		goto out;
	if (b->ops->snapshot(b, &s, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	/* When it took effect: the first time the server applied it; on
	 * Slurm (known once a first answer came), when the admin says. */
	int64_t at = 0;
	const char *actor = "";
	if (b->ops->scheduler && !o->applied) {
		rc = cmd_usage_error(
		    &cmd_policy,
		    "review on %s needs --applied TIME: gq cannot see when slurm.conf or "
		    "sacctmgr took the revision ('gq policy export slurm' writes it for them)",
		    b->ops->scheduler);
		goto out;
	}
	if (!b->ops->scheduler && o->applied) {
		rc = cmd_usage_error(&cmd_policy,
				     "--applied is for Slurm: gq serve knows when it applied a "
				     "revision");
		goto out;
	}
	if (o->applied) {
		if ((rc = cmd_parse_when(&cmd_policy, "--applied", o->applied, s.now, &at)) !=
		    EXIT_OK)
			goto out;
		if (at > s.now) {
			rc = cmd_usage_error(&cmd_policy, "--applied '%s' is in the future",
					     o->applied);
			goto out;
		}
		actor = "--applied";
	} else if (all_events(b, &ev, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	for (size_t i = 0; i < ev.n && !at; i++) {
		bool applied;
		char oid[POLICY_OID_HEX];
		if (!strcmp(ev.items[i].kind, "policy") &&
		    repo_event_parse(ev.items[i].reason, &applied, oid, NULL) == 0 && applied &&
		    same_commit(c.oid, oid)) {
			at = ev.items[i].time;
			actor = ev.items[i].actor;
		}
	}
	if (!at) {
		err_set(
		    &e, GQ_ECONFLICT,
		    "'%s' (%s) was never applied by the server; put it in force with 'gq policy "
		    "apply %s' first",
		    argv[1], sh, sh);
		rc = cmd_fail(&e);
		goto out;
	}
	int64_t len = window;
	if (at + len > s.now)
		len = s.now - at;
	if (len <= 0) {
		err_set(&e, GQ_ECONFLICT,
			"'%s' was applied just now; there is nothing to review yet", argv[1]);
		rc = cmd_fail(&e);
		goto out;
	}
	unsigned nr = 0;
	int64_t started = 0;
	if (window_stats(b, at, at + len, &after, &nr, &started, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	/* The server knows nothing before its start (gq serve --slurm: its
	 * journal's): both windows are cut to what lies after it, so that
	 * they stay of one length. */
	bool cut = started > 0 && at - len < started;
	if (cut) {
		if (at <= started) {
			char t[32];
			zone_stamp(cmd_zone(s.now), started, false, t, sizeof(t));
			err_set(&e, GQ_ECONFLICT,
				"'%s' took effect before the server's records begin (%s): there is "
				"no window before it to compare",
				argv[1], t);
			rc = cmd_fail(&e);
			goto out;
		}
		len = at - started;
		stats_release(&after);
		memset(&after, 0, sizeof(after));
		if (window_stats(b, at, at + len, &after, &nr, &started, &e) < 0) {
			rc = cmd_fail(&e);
			goto out;
		}
	}
	if (window_stats(b, at - len, at, &before, &nr, &started, &e) < 0) {
		rc = cmd_fail(&e);
		goto out;
	}
	char d1[32], d2[32];
	printf("review of %s: %s\n", sh, c.summary);
	printf("applied ");
	print_time_utc(at);
	if (o->applied)
		printf(" (as --applied says; %s applies its own policy)\n", b->ops->scheduler);
	else
		printf(" by %s\n", actor);
	for (int i = 0; i < c.ntrailers; i++)
		if (!strcasecmp(c.trailers[i].key, "Expected") ||
		    !strcasecmp(c.trailers[i].key, "Rollback-if") ||
		    !strcasecmp(c.trailers[i].key, "Observe"))
			printf("%s: %s\n", c.trailers[i].key, c.trailers[i].value);
	printf("windows of %s: before ", dur_format(len, d1, sizeof(d1)));
	print_time_utc(at - len);
	printf(" .. ");
	print_time_utc(at);
	printf(", after .. ");
	print_time_utc(at + len);
	printf("%s\n", cut	      ? " (cut to the server's start)"
		       : len < window ? (snprintf(d2, sizeof(d2), " (shortened to now)"), d2)
				      : "");
	/* Every group of either window, in the order stats gives them. */
	for (int pass = 0; pass < 2; pass++) {
		const struct stats *st = pass ? &before : &after;
		for (size_t i = 0; i < st->ngroups; i++) {
			const struct stats_group *g = &st->groups[i];
			if (pass && find_group(&after, g->queue, g->tier))
				continue;
			print_group(g->queue, g->tier, find_group(&before, g->queue, g->tier),
				    find_group(&after, g->queue, g->tier), nr);
		}
	}
	/* Departments: GPU-hours held and charged (x the tier's price). */
	for (int pass = 0; pass < 2; pass++) {
		const struct stats *st = pass ? &before : &after;
		for (size_t i = 0; i < st->ndepts; i++) {
			const char *dn = st->depts[i].dept;
			const struct stats_dept *x = NULL, *y = NULL;
			for (size_t k = 0; k < before.ndepts; k++)
				if (!strcmp(before.depts[k].dept, dn))
					x = &before.depts[k];
			for (size_t k = 0; k < after.ndepts; k++)
				if (!strcmp(after.depts[k].dept, dn))
					y = &after.depts[k];
			if (pass && y)
				continue;
			char label[64];
			snprintf(label, sizeof(label), "department %s", dn);
			printf("\n%-22s %10s %10s\n", label, "before", "after");
			printf("  %-20s %10.1f %10.1f\n", "GPU-hours", x ? x->gpu_hours : 0,
			       y ? y->gpu_hours : 0);
			if (nr & STATS_NR_CHARGED)
				printf("  %-20s %10s %10s\n", "charged", "-", "-");
			else
				printf("  %-20s %10.1f %10.1f\n", "charged", x ? x->charged : 0,
				       y ? y->charged : 0);
		}
	}
	printf("\n%-22s %9.0f%% %9.0f%%\n", "utilisation", before.utilisation * 100,
	       after.utilisation * 100);
	if (nr) { /* what the scheduler's records cannot tell ("-" above) */
		printf("not recorded on %s:", b->ops->scheduler ? b->ops->scheduler : "it");
		for (int k = 0, first = 1; k < STATS_NR_COUNT; k++)
			if (nr & (1u << k)) {
				printf("%s ", first ? "" : ",");
				for (const char *n = stats_not_recorded_names[k]; *n; n++)
					putchar(*n == '_' ? ' ' : *n);
				first = 0;
			}
		printf("\n");
	}
	if (c.parent[0]) {
		char psh[8];
		printf("\nwhen %s, undo it with 'gq policy rollback %s'\n",
		       trailer(&c, "Rollback-if") ? "Rollback-if holds" : "it disappoints",
		       short_oid(c.parent, psh));
	}
out:
	stats_release(&before);
	stats_release(&after);
	snapshot_release(&s);
	event_list_release(&ev);
	backend_close(b);
	repo_commit_release(&c);
	repo_free(r);
	return rc;
}

/* ---- export ---- */

/* The policy of revision rev of the repository, for an export (the
 * caller frees it); NULL with *rc set and the error said. */
static struct policy *export_load(const struct popts *o, const char *rev, int *rc)
{
	struct policy_repo *r = open_repo(o, rc);
	if (!r)
		return NULL;
	struct gq_err e = GQ_ERR_INIT;
	struct policy *p = xmalloc(sizeof(*p));
	if (repo_load(r, rev, p, &e) < 0) {
		*rc = cmd_fail(&e);
		free(p);
		p = NULL;
	}
	repo_free(r);
	return p;
}

/* The Kueue objects of a revision. The GPU models and their counts come
 * from the server if one answers (none is started for it). */
static int export_kueue(const struct popts *o, const char *rev)
{
	char ns[64];
	if (o->ns && kueue_name(o->ns, ns))
		return cmd_usage_error(&cmd_policy,
				       "--namespace '%s': use 1-63 of [a-z0-9-], starting and "
				       "ending with a letter or digit",
				       o->ns);
	int rc = EXIT_OK;
	struct policy *p = export_load(o, rev, &rc);
	if (!p)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct snapshot s;
	snapshot_init(&s);
	struct backend *b = server_if_any();
	bool nodes = b && b->ops->snapshot(b, &s, &e) == 0;
	if (!nodes)
		fprintf(stderr, "gq: note: no gq server answered; the GPU models and "
				"counts are unknown (see '# gq:' in the output)\n");
	backend_close(b);
	struct buf out;
	buf_init(&out, 0);
	kueue_export_policy(p, nodes ? s.nodes : NULL, nodes ? s.nnodes : 0, o->ns, &out);
	fputs(out.data, stdout);
	buf_release(&out);
	snapshot_release(&s);
	free(p);
	return rc;
}

static int sub_export(const struct popts *o, int argc, char **argv)
{
	if (argc >= 2 && argc <= 3 && !strcmp(argv[1], "kueue"))
		return export_kueue(o, argc > 2 ? argv[2] : "HEAD");
	if (o->ns)
		return cmd_usage_error(&cmd_policy, "--namespace is for export kueue");
	if (argc < 2 || argc > 3 || strcmp(argv[1], "slurm"))
		return cmd_usage_error(
		    &cmd_policy,
		    "export takes a format ('slurm' or 'kueue') and at most one revision");
	/* Tiers become the QOS that the Slurm backend maps back to them. */
	struct gq_err e = GQ_ERR_INIT;
	struct gq_config cfg;
	struct slurm_map map;
	const char *qos[TIER_COUNT];
	if (config_load(&cfg, &e) < 0)
		return cmd_fail(&e);
	if (slurm_map_parse(cfg.qos_map, &map, &e) < 0) {
		err_prefix(&e, "gq.qosMap");
		return cmd_fail(&e);
	}
	int rc = EXIT_OK;
	struct policy *p = export_load(o, argc > 2 ? argv[2] : "HEAD", &rc);
	if (!p)
		return rc;
	for (int t = 0; t < TIER_COUNT; t++)
		qos[t] = slurm_map_qos(&map, (enum tier)t);
	struct buf b;
	buf_init(&b, 0);
	slurm_export_policy(p, qos, &b);
	fputs(b.data, stdout);
	buf_release(&b);
	free(p);
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
    {"edit", "[-m SUMMARY] [--expected TEXT] [--observe TEXT] [--rollback-if TEXT] | --discard",
     sub_edit},
    {"diff", "[A [B]]", sub_diff},
    {"log", "[-n N] [REV]", sub_log},
    {"blame", "KEY [REV]", sub_blame},
    {"apply", "[REV]", sub_apply},
    {"rollback", "[-m SUMMARY] [--no-apply] REV", sub_rollback},
    {"review", "[--window DURATION] [--applied TIME] REV", sub_review},
    {"export", "slurm [REV] | kueue [--namespace NS] [REV]", sub_export},
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
		} else if (!strcmp(a, "--discard")) {
			o.discard = true;
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
		} else if (!strcmp(a, "--applied")) {
			val = &o.applied;
		} else if (!strcmp(a, "--namespace")) {
			val = &o.ns;
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
		} else if (a[0] == '-' && a[1] && strcmp(a, "--") &&
			   !(a[1] >= '0' && a[1] <= '9')) {
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
