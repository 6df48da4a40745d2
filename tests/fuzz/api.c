/*
 * api.c - fuzz target: gq serve's request layer (api_handle, server/api.c)
 * as a hostile client meets it: the route, the query, the headers and the
 * body of every endpoint, the submission and every job action, clock and
 * policy apply included.
 *
 * The input is a small HTTP request: "METHOD PATH[?QUERY]\n", then
 * "Name: value\n" header lines up to an empty line, then the body. The
 * operations of server.c are stubs here that check what the request layer
 * hands them and answer with something plausible; the HTTP front (http.c)
 * and the token check (auth.c) are stubs too, the caller being a local
 * admin. Invariants (api.h, codec.h): every request gets a status of the
 * API (gq-api(7)) and a body; a JSON body parses, and an error body is
 * {"error": {"code", "message"}} with the code its status says.
 */
#include "fuzz.h"

#include <stdarg.h>
#include <strings.h>

#include "backend/codec.h"
#include "server/api.h"
#include "server/auth.h"
#include "server/enforce.h"
#include "server/server.h"

#define MAX_PARAMS 16

struct fake_req {
	struct http_req req;
	char *names[MAX_PARAMS], *values[MAX_PARAMS];
	int nq;
	char *hnames[MAX_PARAMS], *hvalues[MAX_PARAMS];
	int nh;
};

/* ---- http.h ---- */

const char *http_query(const struct http_req *req, const char *name)
{
	const struct fake_req *f = (const struct fake_req *)req;
	for (int i = 0; i < f->nq; i++)
		if (!strcmp(f->names[i], name))
			return f->values[i];
	return NULL;
}

const char *http_header(const struct http_req *req, const char *name)
{
	const struct fake_req *f = (const struct fake_req *)req;
	for (int i = 0; i < f->nh; i++)
		if (!strcasecmp(f->hnames[i], name))
			return f->hvalues[i];
	return NULL;
}

void http_resp_header(struct http_resp *r, const char *name, const char *fmt, ...)
{
	if (r->nheaders >= HTTP_MAX_HEADERS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->hvalue[r->nheaders], sizeof(r->hvalue[0]), fmt, ap);
	va_end(ap);
	r->hname[r->nheaders++] = name;
}

/* ---- auth.h ---- */

int auth_peer(const struct auth *a, int fd, struct identity *out, struct gq_err *e)
{
	memset(out, 0, sizeof(*out));
	STR_COPY(out->user, "alice");
	out->uid = out->gid = 1000;
	out->role = ROLE_ADMIN;
	out->local = true;
	return 0;
}

int auth_bearer(const struct auth *a, const char *header, struct identity *out, struct gq_err *e)
{
	return err_set(e, GQ_EPERM, "no token");
}

/* ---- server.h: what the request layer hands over ---- */

static struct job a_job(int64_t id)
{
	struct job j;
	job_init(&j);
	j.id = id;
	STR_COPY(j.user, "alice");
	STR_COPY(j.queue, "default");
	return j;
}

const struct auth *server_auth(struct server *s)
{
	return NULL;
}

void server_info(struct server *s, struct server_info *out)
{
	memset(out, 0, sizeof(*out));
	out->now = 1700000000;
	out->manual_clock = true;
}

void server_snapshot(struct server *s, struct snapshot *out, int64_t *last_seq)
{
	out->now = 1700000000;
	*snapshot_add_job(out) = a_job(1);
	*last_seq = 1;
}

void server_jobs(struct server *s, const struct job_filter *f, struct job **out, size_t *n)
{
	FUZZ_CHECK(f->limit <= 1000000000, "limit %zu", f->limit);
	*out = xmalloc(sizeof(**out));
	**out = a_job(1);
	*n = 1;
}

static int job_id_ok(int64_t id, struct gq_err *e)
{
	FUZZ_CHECK(id >= 1 && id <= (INT64_C(1) << 53), "job id %lld", (long long)id);
	if (id != 1)
		return err_set(e, GQ_ENOENT, "no job %lld", (long long)id);
	return 0;
}

int server_job(struct server *s, int64_t id, struct job *out, struct gq_err *e)
{
	if (job_id_ok(id, e) < 0)
		return -1;
	*out = a_job(id);
	return 0;
}

int server_submit(struct server *s, const struct identity *who, struct submission *sub,
		  const char *idem, struct job *out, bool *replay, struct gq_err *e)
{
	FUZZ_CHECK(!sub->argv != !sub->script, "argv and script");
	FUZZ_CHECK(sub->env != NULL, "env is NULL");
	FUZZ_FINITE(sub->job.hist_ratio, "job.hist_ratio");
	/* What the server journals. */
	char *cmd = codec_command_text(sub->argv, sub->script, sub->cwd, sub->env);
	struct submission back;
	FUZZ_CHECK(codec_command_from_text(cmd, &back, e) == 0, "command text: %s", e->msg);
	submission_release(&back);
	free(cmd);
	*out = sub->job;
	out->id = 1;
	STR_COPY(out->user, who->user);
	*replay = idem != NULL;
	submission_release(sub);
	return 0;
}

int server_act(struct server *s, const struct identity *who, int64_t id, enum job_action a,
	       const struct act_args *args, struct job *out, struct gq_err *e)
{
	if (job_id_ok(id, e) < 0)
		return -1;
	FUZZ_CHECK(a >= ACT_CANCEL && a <= ACT_CHECKPOINT, "action %d", (int)a);
	if (a == ACT_OVERRIDE && !args->clear)
		FUZZ_CHECK(args->tier >= TIER_P0 && args->tier <= TIER_P2, "tier %d",
			   (int)args->tier);
	*out = a_job(id);
	if (a == ACT_OVERRIDE && !args->clear) {
		out->ovr.set = true;
		out->ovr.tier = args->tier;
		STR_COPY(out->ovr.actor, who->user);
		if (args->reason && !STR_COPY(out->ovr.reason, args->reason))
			return err_set(e, GQ_EINVAL, "override.reason: too long");
	}
	return 0;
}

int server_command(struct server *s, const struct identity *who, int64_t id, char **json,
		   struct gq_err *e)
{
	if (job_id_ok(id, e) < 0)
		return -1;
	char prog[] = "true", var[] = "A=1";
	char *argv[] = {prog, NULL}, *env[] = {var, NULL};
	*json = codec_command_text(argv, NULL, "/", env);
	return 0;
}

int server_log_path(struct server *s, const struct identity *who, int64_t id, const char *stream,
		    char **path, struct gq_err *e)
{
	if (job_id_ok(id, e) < 0)
		return -1;
	if (strcmp(stream, "stdout") && strcmp(stream, "stderr"))
		return err_set(e, GQ_EINVAL, "unknown stream '%s'", stream);
	*path = xstrdup("/dev/null");
	return 0;
}

int server_events(struct server *s, int64_t after, int wait_ms, int max, struct event **out,
		  size_t *n, int64_t *next, struct gq_err *e)
{
	FUZZ_CHECK(after >= 0 && wait_ms >= 0 && wait_ms <= 60000 && max >= 1 && max <= 10000,
		   "after %lld wait %d max %d", (long long)after, wait_ms, max);
	*out = xcalloc(1, sizeof(**out));
	(*out)[0].seq = after < INT64_MAX ? after + 1 : after;
	STR_COPY((*out)[0].kind, "submit");
	*n = 1;
	*next = (*out)[0].seq;
	return 0;
}

int server_stats(struct server *s, int64_t from, int64_t to, struct stats *out, int *counts,
		 int64_t *now, struct gq_err *e)
{
	FUZZ_CHECK(from >= 0 && to >= 0, "from %lld to %lld", (long long)from, (long long)to);
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		counts[i] = 0;
	*now = 1700000000;
	return 0;
}

void server_preemptions(struct server *s, int64_t job, size_t limit, struct preempt_record **out,
			size_t *n, int64_t *now)
{
	*out = NULL;
	*n = 0;
	*now = 1700000000;
}

void server_reclaim(struct server *s, struct reclaim_entry **out, size_t *n, int64_t *now,
		    struct policy *p)
{
	*out = NULL;
	*n = 0;
	*now = 1700000000;
	policy_defaults(p);
}

int server_clock(struct server *s, const struct identity *who, int64_t delta, int64_t set,
		 int64_t *now, struct gq_err *e)
{
	if (set)
		FUZZ_CHECK(set > 0, "clock set to %lld", (long long)set);
	*now = 1700000000;
	return 0;
}

void server_policy(struct server *s, struct policy *out)
{
	policy_defaults(out);
}

int server_policy_apply(struct server *s, const struct identity *who, const char *rev,
			struct policy *out, struct gq_err *e)
{
	if (rev[0])
		return err_set(e, GQ_ENOENT, "no revision '%s'", rev);
	policy_defaults(out);
	return 0;
}

/* enforce.h: the stubs report nothing to reclaim, so no kind is named. */
const char *reclaim_kind_name(enum reclaim_kind k)
{
	return "idle";
}

/* ---- the request ---- */

/* Splits "a=1&b=2" in place into f's parameters (no %-decoding: http.c's
 * libmicrohttpd does that before the handler sees them). */
static void parse_query(struct fake_req *f, char *q)
{
	for (char *save = NULL, *t = strtok_r(q, "&", &save); t && f->nq < MAX_PARAMS;
	     t = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(t, '=');
		if (eq)
			*eq++ = '\0';
		f->names[f->nq] = t;
		f->values[f->nq++] = eq ? eq : t + strlen(t);
	}
}

/* The next line of *p (up to '\n', which is cut) or NULL at the end. */
static char *next_line(char **p, char *end)
{
	if (*p >= end)
		return NULL;
	char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = end;
	}
	return s;
}

static bool status_known(int st)
{
	static const int known[] = {200, 201, 400, 401, 403, 404, 405, 409, 413, 500, 503};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (st == known[i])
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_str(data, size), *p = in, *end = in + size;
	struct fake_req f;
	memset(&f, 0, sizeof(f));
	char *line = next_line(&p, end);
	char *sp = line ? strchr(line, ' ') : NULL;
	if (!sp) {
		free(in);
		return 0;
	}
	*sp = '\0';
	f.req.method = line;
	char *path = sp + 1, *q = strchr(path, '?');
	if (q) {
		*q++ = '\0';
		parse_query(&f, q);
	}
	f.req.path = path;
	while ((line = next_line(&p, end)) && line[0] && f.nh < MAX_PARAMS) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon++ = '\0';
		while (*colon == ' ')
			colon++;
		f.hnames[f.nh] = line;
		f.hvalues[f.nh++] = colon;
	}
	f.req.body = p;
	f.req.body_len = (size_t)(end - p);
	f.req.unix_socket = true;
	f.req.fd = -1;

	struct http_resp resp;
	memset(&resp, 0, sizeof(resp));
	api_handle(NULL, &f.req, &resp);
	FUZZ_CHECK(status_known(resp.status), "status %d", resp.status);
	FUZZ_CHECK(resp.body != NULL || resp.len == 0, "no body");
	if (!resp.content_type) {
		json_t *v = NULL;
		struct gq_err e = GQ_ERR_INIT;
		FUZZ_CHECK(codec_parse(resp.body, resp.len, &v, &e) == 0,
			   "the answer is not JSON: %s\n%.300s", e.msg, resp.body);
		if (resp.status >= 400) {
			struct gq_err ae = GQ_ERR_INIT;
			FUZZ_CHECK(codec_error_decode(v, &ae) == 0, "not an error body: %.300s",
				   resp.body);
			FUZZ_CHECK(resp.status == 405 || resp.status == 401 || resp.status == 403 ||
				       err_http_status(ae.code) == resp.status,
				   "status %d for code %s", resp.status, err_code_name(ae.code));
		}
		json_decref(v);
	}
	free(resp.body);
	free(in);
	return 0;
}
