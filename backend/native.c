/*
 * native.c - the native backend: gq serve's HTTP API (man/gq-api.7) over a
 * unix socket or TCP, through http.h (libcurl). Its request function
 * (request()) turns the server's error bodies into a struct gq_err and
 * checks every answer's API versions against ours (wire_api_check). It
 * knows URLs, sockets and headers; every body is read and written by wire/
 * (wire/wire.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "backend.h"
#include "config.h"
#include "http.h"
#include "wire/history.h"
#include "wire/wire.h"

/* The largest answer we accept: a snapshot of ~100k jobs. */
#define MAX_ANSWER ((size_t)512 << 20)

struct native {
	struct backend b;
	struct http_conn *conn;
	char *auth; /* "Authorization: Bearer ..." or NULL */
	char *describe;
	/* Headers of the last answer that we care about. */
	int64_t next_offset;
	bool have_next_offset;
	char api_version[16], api_oldest[16]; /* "" when absent */
	char upstream[64];		      /* Gq-Upstream (gq serve --slurm), "" none */
	bool front;			      /* an answer said Gq-Scheduler: Slurm */
	bool tcp;			      /* not a unix socket */
	const char *given;		      /* n_submit: Gq-Submit-Given's value, or NULL */
	struct gq_err cmd_err;		      /* n_job: why the front said not what the job runs */
	/* The front's last GET /v1/jobs/ID/files, of job files_job (0 none):
	 * a job's paths do not change, and gq logs -f asks four times a
	 * second, which the front would pass on to slurmctld. */
	int64_t files_job;
	char *files[4];
	/* Ours, and the headers that say so. */
	struct wire_api api;
	char api_hdr[2][48];
};

static struct native *N(struct backend *b)
{
	return b->impl;
}

/* value[vlen] into out[size], cut to fit. */
static void header_copy(const char *value, size_t vlen, char *out, size_t size)
{
	if (vlen >= size)
		vlen = size - 1;
	memcpy(out, value, vlen);
	out[vlen] = '\0';
}

static bool header_is(const char *name, size_t nlen, const char *want)
{
	return nlen == strlen(want) && !strncasecmp(name, want, nlen);
}

static void on_header(void *arg, const char *name, size_t nlen, const char *value, size_t vlen)
{
	struct native *nt = arg;
	char tmp[32];
	if (header_is(name, nlen, "gq-next-offset")) {
		header_copy(value, vlen, tmp, sizeof(tmp));
		char *end;
		long long v = strtoll(tmp, &end, 10);
		if (end != tmp && v >= 0) {
			nt->next_offset = v;
			nt->have_next_offset = true;
		}
	} else if (header_is(name, nlen, "gq-api-version")) {
		header_copy(value, vlen, nt->api_version, sizeof(nt->api_version));
	} else if (header_is(name, nlen, "gq-api-oldest")) {
		header_copy(value, vlen, nt->api_oldest, sizeof(nt->api_oldest));
	} else if (header_is(name, nlen, "gq-upstream")) {
		header_copy(value, vlen, nt->upstream, sizeof(nt->upstream));
	} else if (header_is(name, nlen, "gq-scheduler")) {
		nt->front = true;
	}
}

/* gq serve --slurm's: native_ops but for the scheduler, set by the first
 * answer that names one (Gq-Scheduler), so that commands treat it as the
 * Slurm backend they read through it (backend_records, show). */
static struct backend_ops front_ops;

/* Do the server's versions (headers of the last answer) meet ours? A
 * server older than versioning sends none and speaks version 1. */
static int api_check(struct native *nt, struct gq_err *e)
{
	struct wire_api peer;
	struct gq_err pe = GQ_ERR_INIT;
	if (wire_api_parse(nt->api_version[0] ? nt->api_version : NULL,
			   nt->api_oldest[0] ? nt->api_oldest : NULL, &peer, &pe) < 0)
		return err_set(e, GQ_EINTERNAL, "answer from %s: %s", nt->describe, pe.msg);
	return wire_api_check(&nt->api, &peer, true, nt->describe, e);
}

/*
 * One request. body (JSON text) may be NULL. On a 2xx answer *out holds
 * the body and 0 is returned; otherwise the server's {"error"} or the
 * transport's failure becomes e. timeout_ms 0 means the default (30 s).
 */
static int request(struct native *nt, const char *method, const char *path, const char *body,
		   const char *idem, long timeout_ms, struct buf *out, struct gq_err *e)
{
	char idem_hdr[256], given_hdr[64], *tok_hdr = NULL;
	const char *hdr[8] = {nt->api_hdr[0], nt->api_hdr[1]}; /* NULL-terminated */
	int nh = 2;
	if (nt->auth)
		hdr[nh++] = nt->auth;
	if (idem) {
		snprintf(idem_hdr, sizeof(idem_hdr), "Idempotency-Key: %s", idem);
		hdr[nh++] = idem_hdr;
	}
	if (nt->given && nt->front) {
		snprintf(given_hdr, sizeof(given_hdr), "Gq-Submit-Given: %s", nt->given);
		hdr[nh++] = given_hdr;
	}
	/* The user's own Slurm token goes only to a server that said it is
	 * in front of Slurm, over TCP (on a unix socket the front knows the
	 * user from the socket): gq serve --slurm acts with it. */
	const char *jwt = getenv("SLURM_JWT");
	bool can_forward = nt->tcp && jwt && *jwt && !strchr(jwt, '\n') && !strchr(jwt, '\r');
	if (can_forward && nt->front) {
		tok_hdr = xasprintf("Gq-Slurm-Token: %s", jwt);
		hdr[nh++] = tok_hdr;
	}
	struct http_req r = {
	    .method = method,
	    .path = path,
	    .body = body,
	    .headers = hdr,
	    .timeout_ms = timeout_ms,
	    .on_header = on_header,
	    .header_arg = nt,
	};
	nt->have_next_offset = false;
	nt->api_version[0] = nt->api_oldest[0] = nt->upstream[0] = '\0';
	long status = 0;
	int rc = http_do(nt->conn, &r, out, &status, e);
	if (rc == 0 && status == 401 && nt->front && !tok_hdr && can_forward) {
		/* The first answer of a front over TCP: again, with the token. */
		tok_hdr = xasprintf("Gq-Slurm-Token: %s", jwt);
		hdr[nh++] = tok_hdr;
		buf_reset(out);
		nt->have_next_offset = false;
		nt->api_version[0] = nt->api_oldest[0] = nt->upstream[0] = '\0';
		rc = http_do(nt->conn, &r, out, &status, e);
	}
	if (tok_hdr) {
		memset(tok_hdr, 0, strlen(tok_hdr));
		free(tok_hdr);
	}
	if (rc < 0)
		return -1;
	if (nt->front)
		nt->b.ops = &front_ops;
	if (api_check(nt, e) < 0)
		return -1;
	if (status >= 200 && status < 300)
		return 0;
	if (wire_error_parse(out->data ? out->data : "", out->len, e) < 0)
		err_set(e,
			status == 401 || status == 403 ? GQ_EPERM
			: status == 404		       ? GQ_ENOENT
			: status == 507		       ? GQ_ENOSPACE
			: status == 429		       ? GQ_ELIMIT
						       : GQ_EINTERNAL,
			"unexpected answer from %s (HTTP %ld)", nt->describe, status);
	return -1;
}

/* The answer's text, for a decoder. */
static const char *text_of(const struct buf *b)
{
	return b->data ? b->data : "";
}

/* An answer that did not decode: the decoder's message, said to be the
 * server's. */
static int bad_answer(struct native *nt, const char *what, struct gq_err *e)
{
	err_prefix(e, "%s from %s", what, nt->describe);
	e->code = GQ_EINTERNAL;
	return -1;
}

/* A request with body (JSON text or NULL) whose answer is JSON: out holds
 * it (buf_init'ed by the caller, released by it) on success. */
static int http_json(struct native *nt, const char *method, const char *path, const char *body,
		     const char *idem, long timeout_ms, struct buf *out, struct gq_err *e)
{
	if (request(nt, method, path, body, idem, timeout_ms, out, e) < 0)
		return -1;
	if (wire_check(text_of(out), out->len, e) < 0)
		return bad_answer(nt, "answer", e);
	return 0;
}

/* POST /v1/jobs/ID/ACTION with a body ("{}" when NULL); the answer (the
 * job) is not needed by callers. */
static int job_action(struct backend *b, int64_t id, const char *action, const char *body,
		      struct gq_err *e)
{
	char path[96];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/%s", id, action);
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = http_json(N(b), "POST", path, body ? body : "{}", NULL, 0, &out, e);
	buf_release(&out);
	return rc;
}

static int n_update(struct backend *b, int64_t id, const struct job_update *u, struct gq_err *e)
{
	char *body = wire_update_text(u);
	int rc = job_action(b, id, "update", body, e);
	free(body);
	return rc;
}

static int n_ping(struct backend *b, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = http_json(N(b), "GET", "/v1/ping", NULL, NULL, 5000, &out, e);
	buf_release(&out);
	return rc;
}

/* gq serve --slurm cannot reach slurmrestd: the snapshot it answers is
 * old (Gq-Upstream: since=T data=D), which the snapshot then says. */
static void upstream_mark(const struct native *nt, struct snapshot *s)
{
	long long since = 0, data = 0;
	if (!nt->upstream[0] || sscanf(nt->upstream, "since=%lld data=%lld", &since, &data) < 1 ||
	    since <= 0)
		return;
	s->stale_since = since;
	s->data_time = data > 0 ? data : 0;
}

static int n_snapshot(struct backend *b, struct snapshot *out, struct gq_err *e)
{
	struct buf text;
	buf_init(&text, MAX_ANSWER);
	if (request(N(b), "GET", "/v1/snapshot?form=rows", NULL, NULL, 0, &text, e) < 0) {
		buf_release(&text);
		return -1;
	}
	struct snapshot s;
	snapshot_init(&s);
	int rc = codec_snapshot_parse(text.data ? text.data : "", text.len, &s, e);
	buf_release(&text);
	if (rc < 0) {
		err_prefix(e, "snapshot from %s", N(b)->describe);
		e->code = GQ_EINTERNAL;
		return -1;
	}
	snapshot_release(out);
	*out = s;
	upstream_mark(N(b), out);
	return 0;
}

/* gq serve --slurm: where job id runs and writes (GET /v1/jobs/ID/files,
 * asked once per job and process), into ji. The front asks Slurm as the
 * caller, which can fail where reading the snapshot did not: gq show goes
 * on without it, and gq logs says why (cmd_err). */
static void front_files(struct backend *b, int64_t id, struct job_info *ji, struct buf *text)
{
	struct native *nt = N(b);
	if (nt->files_job != id) {
		char path[96], *v[4];
		snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/files", id);
		struct gq_err fe = GQ_ERR_INIT;
		if (request(nt, "GET", path, NULL, NULL, 0, text, &fe) < 0 ||
		    wire_job_files_parse(text_of(text), text->len, v, &fe) < 0) {
			nt->cmd_err = fe;
			return;
		}
		for (int i = 0; i < 4; i++) {
			free(nt->files[i]);
			nt->files[i] = v[i];
		}
		nt->files_job = id;
	}
	char *const *v = nt->files;
	ji->cwd = v[0] ? xstrdup(v[0]) : NULL;
	ji->stdout_path = v[1] ? xstrdup(v[1]) : NULL;
	ji->stderr_path = v[2] ? xstrdup(v[2]) : NULL;
	if (v[3]) {
		ji->argv = xcalloc(2, sizeof(char *));
		ji->argv[0] = xstrdup(v[3]);
	}
}

static int n_job(struct backend *b, int64_t id, struct job_info *out, struct gq_err *e)
{
	char path[96];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64, id);
	struct job_info ji;
	memset(&ji, 0, sizeof(ji));
	struct buf text;
	buf_init(&text, MAX_ANSWER);
	if (request(N(b), "GET", path, NULL, NULL, 0, &text, e) < 0) {
		buf_release(&text);
		return -1;
	}
	int rc = wire_job_parse(text_of(&text), text.len, &ji.job, e);
	if (rc < 0) {
		buf_release(&text);
		err_prefix(e, "job %" PRId64 " from %s", id, N(b)->describe);
		e->code = GQ_EINTERNAL;
		return -1;
	}
	if (N(b)->front) {
		front_files(b, id, &ji, &text);
		buf_release(&text);
		*out = ji;
		return 0;
	}
	/* What it runs is the owner's or an admin's to see; without it the
	 * rest of the job is still worth showing. */
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/command", id);
	struct gq_err ce = GQ_ERR_INIT;
	if (request(N(b), "GET", path, NULL, NULL, 0, &text, &ce) == 0) {
		struct submission cmd;
		if (codec_command_from_text(text_of(&text), &cmd, &ce) < 0) {
			buf_release(&text);
			*e = ce;
			return bad_answer(N(b), "command", e);
		}
		ji.script = cmd.script;
		cmd.script = NULL;
		ji.argv = cmd.argv;
		cmd.argv = NULL;
		ji.cwd = cmd.cwd;
		cmd.cwd = NULL;
		submission_release(&cmd);
	} else if (ce.code != GQ_EPERM && ce.code != GQ_ENOENT) {
		buf_release(&text);
		*e = ce;
		job_info_release(&ji);
		return -1;
	}
	buf_release(&text);
	*out = ji;
	return 0;
}

static int n_submit(struct backend *b, const struct submit_req *r, int64_t *id,
		    struct window_stop *win, bool *has_win, struct gq_err *e)
{
	char *body = wire_submit_text(r), given[16];
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	/* gq serve --slurm's Slurm backend reads the script's #SBATCH lines
	 * and lets what the user gave win over them. */
	snprintf(given, sizeof(given), "%u", r->given);
	N(b)->given = given;
	int rc = request(N(b), "POST", "/v1/jobs", body, r->idempotency_key, 0, &out, e);
	N(b)->given = NULL;
	free(body);
	if (rc == 0 && wire_submitted_parse(text_of(&out), out.len, id, win, has_win, e) < 0)
		rc = bad_answer(N(b), "answer to a submission", e);
	buf_release(&out);
	return rc;
}

static int n_cancel(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "cancel", NULL, e);
}

static int n_hold(struct backend *b, int64_t id, const char *reason, struct gq_err *e)
{
	char *body = NULL;
	if (reason && *reason && wire_hold_text(reason, &body, e) < 0)
		return -1;
	int rc = job_action(b, id, "hold", body, e);
	free(body);
	return rc;
}

static int n_release(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "release", NULL, e);
}

static int n_requeue(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "requeue", NULL, e);
}

static int n_confirm(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "confirm", NULL, e);
}

static int n_checkpoint(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "checkpoint", NULL, e);
}

static int n_override(struct backend *b, int64_t id, enum tier tier, bool clear, const char *reason,
		      struct gq_err *e)
{
	char *body = NULL;
	if (wire_override_text(tier, clear, reason, &body, e) < 0)
		return -1;
	int rc = job_action(b, id, "override", body, e);
	free(body);
	return rc;
}

static int f_logs(struct backend *b, int64_t id, const char *stream, int64_t offset,
		  struct buf *out, int64_t *next, struct gq_err *e);

static int n_logs(struct backend *b, int64_t id, const char *stream, int64_t offset,
		  struct buf *out, int64_t *next, struct gq_err *e)
{
	struct native *nt = N(b);
	if (nt->front)
		return f_logs(b, id, stream, offset, out, next, e);
	char path[160];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/logs?stream=%s&offset=%" PRId64, id,
		 stream, offset);
	struct buf tmp;
	buf_init(&tmp, MAX_ANSWER);
	int rc = request(nt, "GET", path, NULL, NULL, 0, &tmp, e);
	if (rc < 0 && nt->front) { /* the first answer: gq serve --slurm */
		buf_release(&tmp);
		*e = (struct gq_err)GQ_ERR_INIT;
		return f_logs(b, id, stream, offset, out, next, e);
	}
	if (rc == 0) {
		if (buf_add(out, tmp.data ? tmp.data : "", tmp.len) < 0)
			rc =
			    err_set(e, GQ_ETOOBIG, "log of job %" PRId64 " is too big to hold", id);
		else
			*next = nt->have_next_offset ? nt->next_offset : offset + (int64_t)tmp.len;
	}
	buf_release(&tmp);
	return rc;
}

/* Through gq serve --slurm the job's own files are read, as on Slurm. */
static bool n_logs_are_files(struct backend *b)
{
	return N(b)->front;
}

static int n_events(struct backend *b, int64_t after, int wait_ms, struct event_list *out,
		    struct gq_err *e)
{
	char path[160];
	int n = snprintf(path, sizeof(path), "/v1/events?after=%" PRId64, after);
	if (wait_ms > 0)
		snprintf(path + n, sizeof(path) - (size_t)n, "&wait=%d", wait_ms);
	struct buf text;
	buf_init(&text, MAX_ANSWER);
	int rc = request(N(b), "GET", path, NULL, NULL, wait_ms + 30000L, &text, e);
	if (rc == 0 && wire_events_parse(text_of(&text), text.len, out, e) < 0)
		rc = bad_answer(N(b), "events", e);
	buf_release(&text);
	return rc;
}

/* GET path; the answer decoded by parse into out. */
static int get_report(struct backend *b, const char *path, const char *what,
		      int (*parse)(const char *, size_t, void *, struct gq_err *), void *out,
		      struct gq_err *e)
{
	struct buf text;
	buf_init(&text, MAX_ANSWER);
	int rc = request(N(b), "GET", path, NULL, NULL, 0, &text, e);
	if (rc == 0 && parse(text_of(&text), text.len, out, e) < 0)
		rc = bad_answer(N(b), what, e);
	buf_release(&text);
	return rc;
}

static int parse_stats(const char *t, size_t n, void *out, struct gq_err *e)
{
	return wire_stats_parse(t, n, out, e);
}

static int parse_preemptions(const char *t, size_t n, void *out, struct gq_err *e)
{
	return wire_preemptions_parse(t, n, out, e);
}

static int parse_reclaim(const char *t, size_t n, void *out, struct gq_err *e)
{
	return wire_reclaim_parse(t, n, out, e);
}

static int n_stats(struct backend *b, int64_t from, int64_t to, struct stats_report *out,
		   struct gq_err *e)
{
	char path[128] = "/v1/stats";
	if (from || to)
		snprintf(path, sizeof(path), "/v1/stats?from=%" PRId64 "&to=%" PRId64, from, to);
	int rc = get_report(b, path, "the metrics", parse_stats, out, e);
	/* gq serve --slurm computes them from its journal of Slurm's
	 * changes: gq's wait limits, observe mode, checkpoints and tier
	 * prices are not Slurm's. */
	if (rc == 0 && N(b)->front) {
		out->not_recorded = STATS_NR_OVER_LIMIT | STATS_NR_WOULD_PREEMPT |
				    STATS_NR_WORK_LOST | STATS_NR_CHARGED;
		out->scheduler = "Slurm";
	}
	return rc;
}

static int n_preemptions(struct backend *b, int64_t job, struct preempt_list *out, struct gq_err *e)
{
	char path[128] = "/v1/preemptions";
	if (job)
		snprintf(path, sizeof(path), "/v1/preemptions?job=%" PRId64, job);
	return get_report(b, path, "preemption records", parse_preemptions, out, e);
}

static int parse_history(const char *t, size_t n, void *out, struct gq_err *e)
{
	struct job_list *l = out;
	return wire_jobs_parse(t, n, &l->jobs, &l->n, e);
}

#define HISTORY_PAGE 5000

static int n_history(struct backend *b, const struct history_query *q, struct job **out, size_t *n,
		     struct gq_err *e)
{
	struct buf path;
	buf_init(&path, 0);
	buf_addstr(&path, "/v1/jobs?state=");
	unsigned states = q->states ? q->states
				    : (1u << JOB_COMPLETED) | (1u << JOB_FAILED) |
					  (1u << JOB_CANCELLED) | (1u << JOB_TIMEOUT);
	bool first = true;
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		if (states & (1u << s)) {
			buf_printf(&path, "%s%s", first ? "" : ",",
				   job_state_name((enum job_state)s));
			first = false;
		}
	if (q->since || q->until)
		buf_printf(&path, "&since=%" PRId64 "&until=%" PRId64, q->since, q->until);
	if (q->user) {
		char *u = http_escape(N(b)->conn, q->user);
		buf_printf(&path, "&user=%s", u);
		free(u);
	}
	/* In pages: no answer of the server's holds more than HISTORY_PAGE
	 * jobs, however long the history. A server that does not page (an
	 * older one, gq serve --slurm) sends no Gq-Next-Offset: one answer. */
	size_t base = path.len, cap = 0;
	int64_t after = 0;
	*out = NULL;
	*n = 0;
	int rc;
	for (;;) {
		path.len = base;
		buf_printf(&path, "&form=lean&page=%d&after=%" PRId64, HISTORY_PAGE, after);
		struct job_list l = {NULL, 0};
		rc = get_report(b, path.data, "the job history", parse_history, &l, e);
		if (rc < 0)
			break;
		GROW(*out, cap, *n + l.n + 1);
		for (size_t i = 0; i < l.n; i++)
			(*out)[(*n)++] = l.jobs[i]; /* moved */
		free(l.jobs);
		if (!N(b)->have_next_offset || N(b)->next_offset <= after)
			break;
		after = N(b)->next_offset;
	}
	buf_release(&path);
	if (rc < 0) {
		jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int n_reclaim(struct backend *b, struct reclaim_report *out, struct gq_err *e)
{
	return get_report(b, "/v1/reclaim", "the reclamation report", parse_reclaim, out, e);
}

static int n_clock(struct backend *b, int64_t delta, int64_t *now, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc;
	if (delta) {
		char *body = wire_clock_text(delta);
		rc = request(N(b), "POST", "/v1/clock", body, NULL, 0, &out, e);
		free(body);
	} else {
		rc = request(N(b), "GET", "/v1/ping", NULL, NULL, 0, &out, e);
	}
	if (rc == 0 && wire_now_parse(text_of(&out), out.len, now, e) < 0)
		rc = bad_answer(N(b), "the time", e);
	buf_release(&out);
	return rc;
}

static int n_policy_apply(struct backend *b, const char *rev, char **applied, struct gq_err *e)
{
	char *body = NULL;
	if (wire_policy_apply_text(rev, &body, e) < 0)
		return -1;
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = request(N(b), "POST", "/v1/policy/apply", body, NULL, 0, &out, e);
	free(body);
	if (rc == 0 && wire_revision_parse(text_of(&out), out.len, applied, e) < 0)
		rc = bad_answer(N(b), "answer", e);
	buf_release(&out);
	return rc;
}

static const char *n_describe(struct backend *b)
{
	return N(b)->describe;
}

static void n_close(struct backend *b)
{
	struct native *nt = N(b);
	http_close(nt->conn);
	for (int i = 0; i < 4; i++)
		free(nt->files[i]);
	free(nt->auth);
	free(nt->describe);
	free(nt);
}

static const struct backend_ops native_ops;

/* A job's log through gq serve --slurm: read from the output file Slurm
 * writes (the front says where), here, as the user, as the Slurm backend
 * reads it. */
static int f_logs(struct backend *b, int64_t id, const char *stream, int64_t offset,
		  struct buf *out, int64_t *next, struct gq_err *e)
{
	struct job_info ji;
	N(b)->cmd_err = (struct gq_err)GQ_ERR_INIT;
	if (n_job(b, id, &ji, e) < 0)
		return -1;
	int rc;
	if (!ji.stdout_path && N(b)->cmd_err.code != GQ_OK) {
		*e = N(b)->cmd_err;
		err_prefix(e, "where job %" PRId64 " writes", id);
		rc = -1;
	} else {
		rc = job_info_file_logs(&ji, stream, offset, out, next, e);
	}
	job_info_release(&ji);
	return rc;
}

/* Slurm's operator priority, which the front passes on (the user's
 * token decides). */
static int f_priority(struct backend *b, int64_t id, int64_t prio, struct gq_err *e)
{
	char *body = wire_priority_text(prio);
	int rc = job_action(b, id, "priority", body, e);
	free(body);
	return rc;
}

static pthread_once_t front_once = PTHREAD_ONCE_INIT;
static void front_ops_init(void)
{
	front_ops = native_ops;
	front_ops.scheduler = "Slurm";
	front_ops.reads_sbatch = true;
	front_ops.priority = f_priority;
}

static const struct backend_ops native_ops = {
    .name = "native",
    .ping = n_ping,
    .snapshot = n_snapshot,
    .job = n_job,
    .submit = n_submit,
    .cancel = n_cancel,
    .hold = n_hold,
    .release = n_release,
    .requeue = n_requeue,
    .override = n_override,
    .confirm = n_confirm,
    .checkpoint = n_checkpoint,
    .logs_are_files = n_logs_are_files,
    .logs = n_logs,
    .events = n_events,
    .stats = n_stats,
    .preemptions = n_preemptions,
    .history = n_history,
    .reclaim = n_reclaim,
    .clock = n_clock,
    .policy_apply = n_policy_apply,
    .describe = n_describe,
    .close = n_close,
    .update = n_update,
};

static struct backend *native_open(const struct backend_target *t, struct gq_err *e)
{
	struct native *nt = xcalloc(1, sizeof(*nt));
	nt->b.ops = &native_ops;
	pthread_once(&front_once, front_ops_init);
	nt->b.impl = nt;
	nt->describe = xasprintf("gq serve at '%s'", t->server);
	wire_api_self(&nt->api);
	snprintf(nt->api_hdr[0], sizeof(nt->api_hdr[0]), "Gq-Api-Version: %d", nt->api.current);
	snprintf(nt->api_hdr[1], sizeof(nt->api_hdr[1]), "Gq-Api-Oldest: %d", nt->api.oldest);
	struct http_opts o = {
	    .describe = nt->describe,
	    .unreachable_hint = "start it with 'gq serve' or set GQ_SERVER",
	    .timeout_hint = "check that it runs ('gq version' and its log)",
	};
	char *base = NULL;
	if (!strncmp(t->server, "unix:", 5)) {
		o.unix_path = t->server + 5;
		base = xstrdup("http://gq");
	} else if (!strncmp(t->server, "http://", 7)) {
		nt->tcp = true;
		base = xstrdup(t->server);
		size_t n = strlen(base);
		while (n > 7 && base[n - 1] == '/')
			base[--n] = '\0';
		if (t->token_file) {
			char tok[1024];
			if (token_read(t->token_file, tok, sizeof(tok), e) < 0)
				goto fail;
			nt->auth = xasprintf("Authorization: Bearer %s", tok);
		}
	} else {
		err_set(e, GQ_EINVAL,
			"bad server address '%s'; use 'unix:/PATH' or 'http://HOST:PORT'",
			t->server);
		goto fail;
	}
	o.base = base;
	nt->conn = http_open(&o, e);
	if (!nt->conn)
		goto fail;
	free(base);
	return &nt->b;
fail:
	free(base);
	free(nt->auth);
	free(nt->describe);
	free(nt);
	return NULL;
}

const struct backend_impl backend_native = {
    .name = "native",
    .open = native_open,
};
