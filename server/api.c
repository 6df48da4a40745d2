/*
 * api.c - the /v1 routes: one table of method, path pattern and handler;
 * every answer is JSON (the log endpoint aside), in wire/'s shapes, and
 * every error {"error": {"code", "message"}} with its status.
 */
#include "api.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/log.h"
#include "server/metrics.h"
#include "server/server.h"
#include "wire/wire.h"

#define MAX_ID (INT64_C(1) << 53)
#define LOG_CHUNK (1 << 20)

struct ctx {
	struct server *s;
	const struct http_req *req;
	struct http_resp *resp;
	struct identity who;
	int64_t id;	  /* the {id} of the path, when it has one */
	const char *verb; /* the last path segment for job actions */
};

int err_http_status(enum gq_errcode code)
{
	switch (code) {
	case GQ_OK:
		return 200;
	case GQ_EINVAL:
		return 400;
	case GQ_ENOENT:
		return 404;
	case GQ_EPERM:
		return 403;
	case GQ_ECONFLICT:
		return 409;
	case GQ_EUNAVAIL:
		return 503;
	case GQ_ENOSPACE:
		return 507; /* Insufficient Storage (RFC 4918) */
	case GQ_ETOOBIG:
		return 413;
	case GQ_ELIMIT:
		return 429; /* Too Many Requests (RFC 6585): a quota, as for gRPC's
			       RESOURCE_EXHAUSTED */
	case GQ_EIO:
	case GQ_EINTERNAL:
		return 500;
	}
	return 500;
}

/* Answers text (JSON, owned). */
static void reply(struct ctx *c, int status, char *text)
{
	c->resp->status = status;
	c->resp->body = text;
	c->resp->len = strlen(text);
}

static void reply_status_err(struct ctx *c, int status, const struct gq_err *e)
{
	reply(c, status, wire_error_text(e));
}

static void reply_err(struct ctx *c, const struct gq_err *e)
{
	reply_status_err(c, err_http_status(e->code), e);
}

static void reply_job(struct ctx *c, int status, const struct job *j)
{
	struct buf b;
	buf_init(&b, 0);
	codec_job_write(&b, j);
	c->resp->status = status;
	c->resp->len = b.len;
	c->resp->body = buf_detach(&b);
}

/* ---- handlers ---- */

static void h_ping(struct ctx *c)
{
	struct server_info si;
	server_info(c->s, &si);
	struct wire_ping p = {
	    .user = c->who.user,
	    .uid = c->who.uid,
	    .admin = c->who.role == ROLE_ADMIN,
	    .now = si.now,
	    .manual_clock = si.manual_clock,
	};
	wire_api_self(&p.api);
	reply(c, 200, wire_ping_text(&p));
}

static void h_snapshot(struct ctx *c)
{
	const char *form = http_query(c->req, "form");
	if (form && strcmp(form, "objects") && strcmp(form, "rows")) {
		struct gq_err e = GQ_ERR_INIT;
		err_set(&e, GQ_EINVAL,
			"query parameter 'form': unknown form '%s'; use objects or rows", form);
		reply_err(c, &e);
		return;
	}
	int64_t seq = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (server_snapshot_text(c->s, form && !strcmp(form, "rows"), &c->resp->body, &c->resp->len,
				 &seq, &e) < 0) {
		log_warn("snapshot: %s", e.msg);
		reply_err(c, &e);
		return;
	}
	c->resp->status = 200;
	http_resp_header(c->resp, "Gq-Event-Seq", "%" PRId64, seq);
}

/* GET /v1/jobs without page= or limit=: every match, however many, the
 * same answer as one page of all of them, made a page at a time as it
 * is sent, so that the server never holds it whole (86,000 jobs were a
 * 79 MB answer held, and copied, per reader). */
#define STREAM_PAGE 1000

struct jobs_stream {
	struct server *s;
	struct job_filter f; /* its user is user */
	char *user;
	struct buf out; /* encoded, not sent yet from pos */
	size_t pos;
	bool lean, first, done;
};

static size_t jobs_stream_next(void *cls, char *buf, size_t max)
{
	struct jobs_stream *js = cls;
	while (js->pos == js->out.len && !js->done) {
		js->out.len = js->pos = 0;
		struct job *jobs;
		size_t n;
		bool more = false;
		server_jobs(js->s, &js->f, &jobs, &n, &more);
		for (size_t i = 0; i < n; i++) {
			if (!js->first)
				buf_addstr(&js->out, ",");
			js->first = false;
			(js->lean ? codec_job_write_lean : codec_job_write)(&js->out, &jobs[i]);
		}
		if (n)
			js->f.after = jobs[n - 1].id;
		jobs_free(jobs, n);
		if (!more || !n) {
			buf_addstr(&js->out, "]}");
			js->done = true;
		}
	}
	size_t k = js->out.len - js->pos;
	if (k > max)
		k = max;
	memcpy(buf, js->out.data + js->pos, k);
	js->pos += k;
	return k;
}

static void jobs_stream_free(void *cls)
{
	struct jobs_stream *js = cls;
	buf_release(&js->out);
	free(js->user);
	free(js);
}

static void jobs_stream(struct ctx *c, const struct job_filter *f, bool lean)
{
	struct jobs_stream *js = xcalloc(1, sizeof(*js));
	js->lean = lean;
	js->s = c->s;
	js->f = *f;
	js->f.page = STREAM_PAGE;
	js->f.after = 0;
	js->user = f->user ? xstrdup(f->user) : NULL;
	js->f.user = js->user;
	js->first = true;
	buf_init(&js->out, 0);
	buf_addstr(&js->out, "{\"jobs\":[");
	c->resp->status = 200;
	c->resp->stream = jobs_stream_next;
	c->resp->stream_free = jobs_stream_free;
	c->resp->stream_cls = js;
}

static void h_jobs_list(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	struct job_filter f;
	memset(&f, 0, sizeof(f));
	const char *all = http_query(c->req, "all");
	f.all = all && (!strcmp(all, "1") || !strcmp(all, "true"));
	bool lean;
	if (api_query_states(c->req, &f.states, &e) < 0 || api_query_lean(c->req, &lean, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	f.user = http_query(c->req, "user");
	int64_t limit;
	if (http_query_int(c->req, "limit", 0, 1000000000, 0, &limit, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	f.limit = (size_t)limit;
	int64_t page;
	if (http_query_int(c->req, "since", 0, GQ_TIME_MAX, 0, &f.since, &e) < 0 ||
	    http_query_int(c->req, "until", 0, GQ_TIME_MAX, 0, &f.until, &e) < 0 ||
	    http_query_int(c->req, "page", 0, 100000, 0, &page, &e) < 0 ||
	    http_query_int(c->req, "after", 0, INT64_MAX, 0, &f.after, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	f.page = (size_t)page;
	if (!f.page && !f.limit) {
		jobs_stream(c, &f, lean);
		return;
	}
	struct job *jobs;
	size_t n;
	bool more = false;
	server_jobs(c->s, &f, &jobs, &n, &more);
	c->resp->body = codec_jobs_text(jobs, n, lean, &c->resp->len);
	c->resp->status = 200;
	/* A full page: ask again from here (after=). */
	if (more && n)
		http_resp_header(c->resp, "Gq-Next-Offset", "%" PRId64, jobs[n - 1].id);
	jobs_free(jobs, n);
}

int api_query_lean(const struct http_req *req, bool *lean, struct gq_err *e)
{
	const char *form = http_query(req, "form");
	*lean = form && !strcmp(form, "lean");
	if (form && !*lean)
		return err_set(e, GQ_EINVAL,
			       "unknown form '%s' in 'form'; use lean (or leave it out for every "
			       "field)",
			       form);
	return 0;
}

int api_query_states(const struct http_req *req, unsigned *out, struct gq_err *e)
{
	*out = 0;
	const char *states = http_query(req, "state");
	if (!states || !states[0])
		return 0;
	char *list = xstrdup(states), *save = NULL;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum job_state st;
		if (job_state_parse(t, &st) < 0) {
			err_set(
			    e, GQ_EINVAL,
			    "unknown job state '%s' in 'state'; use pending, starting, running, "
			    "stopping, completed, failed, cancelled or timeout",
			    t);
			free(list);
			return -1;
		}
		*out |= 1u << st;
	}
	free(list);
	return 0;
}

static bool idem_valid(const char *k)
{
	size_t n = strlen(k);
	if (n < 1 || n > 128)
		return false;
	for (; *k; k++)
		if (*k < 0x21 || *k > 0x7e)
			return false;
	return true;
}

static void h_submit(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *idem = http_header(c->req, "Idempotency-Key");
	if (idem && !idem_valid(idem)) {
		err_set(&e, GQ_EINVAL,
			"Idempotency-Key must be 1-128 printable characters without spaces");
		reply_err(c, &e);
		return;
	}
	struct submission sub;
	if (wire_submit_parse(c->req->body, c->req->body_len, &sub, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct job j;
	bool replay = false;
	if (server_submit(c->s, &c->who, &sub, idem, &j, &replay, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct buf b;
	buf_init(&b, 0);
	/* An array's answer is the array's id and its first task. */
	buf_printf(&b, "{\"id\":%" PRId64 ",\"job\":", j.array_id ? j.array_id : j.id);
	codec_job_write(&b, &j);
	/* A job its queue's window would stop, its work lost, is told so
	 * now (the words are the client's: explain_window_stop). */
	struct window_stop ws;
	if (!replay && server_window_stop(c->s, j.id, &ws))
		wire_window_stop_write(&b, &ws);
	job_release(&j);
	buf_addstr(&b, "}");
	c->resp->status = replay ? 200 : 201;
	c->resp->len = b.len;
	c->resp->body = buf_detach(&b);
}

static void h_job_get(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	struct job j;
	if (server_job(c->s, c->id, &j, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	reply_job(c, 200, &j);
	job_release(&j);
}

static void h_job_command(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	char *text = NULL;
	if (server_command(c->s, &c->who, c->id, &text, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	c->resp->status = 200;
	c->resp->body = text;
	c->resp->len = strlen(text);
}

static void h_job_logs(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	const char *stream = http_query(c->req, "stream");
	int64_t off;
	int fd = -1;
	if (http_query_int(c->req, "offset", 0, INT64_MAX, 0, &off, &e) < 0 ||
	    server_log_open(c->s, &c->who, c->id, stream ? stream : "stdout", &fd, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct stat st;
	int64_t size = 0;
	char *data = NULL;
	size_t n = 0;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		size = st.st_size;
		if (off < size) {
			size_t want =
			    (size_t)(size - off) < LOG_CHUNK ? (size_t)(size - off) : LOG_CHUNK;
			data = xmalloc(want);
			ssize_t r = pread(fd, data, want, off);
			n = r > 0 ? (size_t)r : 0;
		}
	}
	if (fd >= 0)
		close(fd);
	c->resp->status = 200;
	c->resp->content_type = "application/octet-stream";
	c->resp->body = data;
	c->resp->len = n;
	http_resp_header(c->resp, "Gq-Next-Offset", "%" PRId64,
			 (off < size ? off : size) + (int64_t)n);
	http_resp_header(c->resp, "Gq-Log-Size", "%" PRId64, size);
}

static void h_job_update(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	struct job_update u;
	struct job j;
	if (wire_update_parse(c->req->body, c->req->body_len, &u, &e) < 0 ||
	    server_update(c->s, &c->who, c->id, &u, &j, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	reply_job(c, 200, &j);
	job_release(&j);
}

static void h_job_action(struct ctx *c)
{
	static const struct {
		const char *name;
		enum job_action a;
	} acts[] = {
	    {"cancel", ACT_CANCEL},	    {"hold", ACT_HOLD},		{"release", ACT_RELEASE},
	    {"requeue", ACT_REQUEUE},	    {"override", ACT_OVERRIDE}, {"confirm", ACT_CONFIRM},
	    {"checkpoint", ACT_CHECKPOINT},
	};
	struct gq_err e = GQ_ERR_INIT;
	enum job_action a = ACT_CANCEL;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(c->verb, acts[i].name))
			a = acts[i].a;
	struct act_args args;
	memset(&args, 0, sizeof(args));
	char *reason = NULL;
	if (a == ACT_OVERRIDE) {
		if (wire_override_parse(c->req->body, c->req->body_len, &args.tier, &args.clear,
					&reason, &e) < 0)
			goto fail;
		args.reason = reason;
	} else if (a == ACT_HOLD) {
		if (wire_hold_parse(c->req->body, c->req->body_len, &reason, &e) < 0)
			goto fail;
		args.reason = reason;
	} else if (wire_empty_parse(c->req->body, c->req->body_len, c->verb, &e) < 0) {
		goto fail;
	}
	struct job j;
	if (server_act(c->s, &c->who, c->id, a, &args, &j, &e) < 0)
		goto fail;
	free(reason);
	reply_job(c, 200, &j);
	job_release(&j);
	return;
fail:
	free(reason);
	reply_err(c, &e);
}

static void h_events(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t after, wait, limit;
	if (http_query_int(c->req, "after", 0, INT64_MAX, 0, &after, &e) < 0 ||
	    http_query_int(c->req, "wait", 0, 60000, 0, &wait, &e) < 0 ||
	    http_query_int(c->req, "limit", 1, 10000, 1000, &limit, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct event *evs = NULL;
	size_t n = 0;
	int64_t next = after;
	if (server_events(c->s, after, (int)wait, (int)limit, &evs, &n, &next, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	char *text = wire_events_text(evs, n, next);
	free(evs);
	reply(c, 200, text);
}

static void h_stats(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t from, to;
	if (http_query_int(c->req, "from", 0, GQ_TIME_MAX, 0, &from, &e) < 0 ||
	    http_query_int(c->req, "to", 0, GQ_TIME_MAX, 0, &to, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct stats_report r;
	memset(&r, 0, sizeof(r));
	if (server_stats(c->s, from, to, &r.st, r.counts, &r.now, &r.started, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	char *text = wire_stats_text(&r);
	stats_release(&r.st);
	reply(c, 200, text);
}

static void h_preemptions(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t job, limit;
	if (http_query_int(c->req, "job", 1, MAX_ID, 0, &job, &e) < 0 ||
	    http_query_int(c->req, "limit", 1, 100000, 0, &limit, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	struct preempt_list l;
	memset(&l, 0, sizeof(l));
	server_preemptions(c->s, job, (size_t)limit, &l.items, &l.n, &l.now);
	char *text = wire_preemptions_text(&l);
	free(l.items);
	reply(c, 200, text);
}

static void h_reclaim(struct ctx *c)
{
	struct reclaim_report r;
	memset(&r, 0, sizeof(r));
	struct policy *p = xmalloc(sizeof(*p));
	server_reclaim(c->s, &r.items, &r.n, &r.now, p);
	r.mode = p->reclaim_mode;
	snprintf(r.trial_queues, sizeof(r.trial_queues), "%s", p->reclaim_trial);
	r.idle_after = p->reclaim_idle;
	for (size_t i = 0; i < r.n; i++)
		r.gpus += r.items[i].gpus;
	free(p);
	char *text = wire_reclaim_text(&r);
	free(r.items);
	reply(c, 200, text);
}

static void h_clock(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t adv, set, now;
	if (wire_clock_parse(c->req->body, c->req->body_len, &adv, &set, &e) < 0 ||
	    server_clock(c->s, &c->who, adv, set, &now, &e) < 0) {
		reply_err(c, &e);
		return;
	}
	reply(c, 200, wire_now_text(now));
}

static void h_policy(struct ctx *c)
{
	struct policy *p = xmalloc(sizeof(*p));
	server_policy(c->s, p);
	reply(c, 200, wire_policy_text(p));
	free(p);
}

static void h_policy_apply(struct ctx *c)
{
	struct gq_err e = GQ_ERR_INIT;
	struct policy *p = xmalloc(sizeof(*p));
	char *rev = NULL;
	if (wire_policy_apply_parse(c->req->body, c->req->body_len, &rev, &e) < 0 ||
	    server_policy_apply(c->s, &c->who, rev, p, &e) < 0) {
		free(rev);
		free(p);
		reply_err(c, &e);
		return;
	}
	free(rev);
	reply(c, 200, wire_policy_text(p));
	free(p);
}

/* ---- routing ---- */

struct route {
	const char *method;
	const char *pattern; /* segments after /v1/; "#" matches a job id, "*" an action */
	void (*fn)(struct ctx *c);
};

static const struct route routes[] = {
    {"GET", "ping", h_ping},
    {"GET", "snapshot", h_snapshot},
    {"GET", "jobs", h_jobs_list},
    {"POST", "jobs", h_submit},
    {"GET", "jobs/#", h_job_get},
    {"GET", "jobs/#/command", h_job_command},
    {"GET", "jobs/#/logs", h_job_logs},
    {"POST", "jobs/#/update", h_job_update},
    {"POST", "jobs/#/*", h_job_action},
    {"GET", "events", h_events},
    {"GET", "stats", h_stats},
    {"GET", "preemptions", h_preemptions},
    {"GET", "reclaim", h_reclaim},
    {"POST", "clock", h_clock},
    {"GET", "policy", h_policy},
    {"POST", "policy/apply", h_policy_apply},
};

static const char *const job_actions[] = {"cancel",   "hold",	 "release",    "requeue",
					  "override", "confirm", "checkpoint", NULL};

/* Does path (after /v1/) match pattern? Fills c->id / c->verb; a bad id
 * in a place where an id belongs is reported through *bad_id. */
static bool match(const char *pattern, const char *path, struct ctx *c, bool *bad_id,
		  struct gq_err *e)
{
	const char *p = pattern, *s = path;
	while (*p && *s) {
		size_t pl = strcspn(p, "/"), sl = strcspn(s, "/");
		if (pl == 1 && *p == '#') {
			char seg[64];
			if (sl >= sizeof(seg))
				sl = sizeof(seg) - 1;
			memcpy(seg, s, sl);
			seg[sl] = '\0';
			int64_t id = 0;
			struct gq_err ie = GQ_ERR_INIT;
			if (parse_int64(seg, 1, MAX_ID, &id, &ie) < 0) {
				*bad_id = true;
				err_set(e, GQ_EINVAL,
					"bad job id '%s': expected a positive integer", seg);
			}
			c->id = id;
		} else if (pl == 1 && *p == '*') {
			bool ok = false;
			for (size_t i = 0; job_actions[i]; i++)
				if (strlen(job_actions[i]) == sl && !strncmp(job_actions[i], s, sl))
					ok = true, c->verb = job_actions[i];
			if (!ok)
				return false;
		} else if (pl != sl || strncmp(p, s, pl) != 0) {
			return false;
		}
		p += pl;
		s += sl;
		if (*p == '/' && *s == '/') {
			p++;
			s++;
		} else {
			break;
		}
	}
	return !*p && !*s;
}

static int identify(struct ctx *c, struct gq_err *e)
{
	const struct auth *a = server_auth(c->s);
	if (c->req->unix_socket)
		return auth_peer(a, c->req->fd, &c->who, e);
	return auth_bearer(a, http_header(c->req, "Authorization"), &c->who, e);
}

void api_handle(void *arg, const struct http_req *req, struct http_resp *resp)
{
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.s = arg;
	c.req = req;
	c.resp = resp;
	struct gq_err e = GQ_ERR_INIT;
	/* Every answer says which API versions this server speaks; a client
	 * that shares none with it is refused before anything is done. */
	struct wire_api self, peer;
	wire_api_self(&self);
	http_resp_header(resp, "Gq-Api-Version", "%d", self.current);
	http_resp_header(resp, "Gq-Api-Oldest", "%d", self.oldest);
	if (wire_api_parse(http_header(req, "Gq-Api-Version"), http_header(req, "Gq-Api-Oldest"),
			   &peer, &e) < 0) {
		reply_err(&c, &e);
		return;
	}
	if (wire_api_check(&self, &peer, false, "gq serve", &e) < 0) {
		reply_status_err(&c, 400, &e);
		return;
	}
	if (req->too_big) {
		err_set(&e, GQ_ETOOBIG, "the request body is over the limit of %u bytes",
			CODEC_MAX_BODY);
		reply_err(&c, &e);
		return;
	}
	if (identify(&c, &e) < 0) {
		reply_status_err(&c, req->unix_socket ? 403 : 401, &e);
		return;
	}
	const char *path = req->path;
	if (!strcmp(path, "/metrics")) { /* Prometheus' path, outside the versioned API */
		if (strcmp(req->method, "GET") != 0) {
			err_set(&e, GQ_EINVAL, "method %s is not allowed on '/metrics'; use GET",
				req->method);
			reply_status_err(&c, 405, &e);
			http_resp_header(resp, "Allow", "GET");
			return;
		}
		metrics_reply(c.s, resp);
		return;
	}
	if (strncmp(path, "/v1/", 4) != 0) {
		err_set(&e, GQ_ENOENT, "no endpoint '%s'; the API lives under /v1/ (see gq-api(7))",
			path);
		reply_err(&c, &e);
		return;
	}
	path += 4;
	char allow[64] = "";
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		bool bad_id = false;
		struct gq_err me = GQ_ERR_INIT;
		if (!match(routes[i].pattern, path, &c, &bad_id, &me))
			continue;
		if (strcmp(routes[i].method, req->method) != 0) {
			if (!strstr(allow, routes[i].method))
				snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow),
					 "%s%s", allow[0] ? ", " : "", routes[i].method);
			continue;
		}
		if (bad_id) {
			reply_err(&c, &me);
			return;
		}
		routes[i].fn(&c);
		return;
	}
	if (allow[0]) {
		err_set(&e, GQ_EINVAL, "method %s is not allowed on '%s'; use %s", req->method,
			req->path, allow);
		reply_status_err(&c, 405, &e);
		http_resp_header(resp, "Allow", "%s", allow);
		return;
	}
	err_set(&e, GQ_ENOENT, "no endpoint '%s %s'; see gq-api(7)", req->method, req->path);
	reply_err(&c, &e);
}
