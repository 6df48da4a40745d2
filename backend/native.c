/*
 * native.c - the native backend: gq serve's HTTP API (man/gq-api.7) over a
 * unix socket or TCP, with libcurl. This is the one file of gq that touches
 * libcurl; its adapter (http()) turns curl's and the server's errors into a
 * struct gq_err. JSON shapes are the codec's (backend/codec.h); this file
 * only picks the few envelope fields ({"id"}, {"now"}, {"next"}) around them.
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "codec.h"
#include "config.h"

/* The largest answer we accept: a snapshot of ~100k jobs. */
#define MAX_ANSWER ((size_t)512 << 20)

struct native {
	struct backend b;
	CURL *curl;
	char *unix_path; /* NULL for TCP */
	char *base;	 /* "http://gq" or "http://HOST:PORT" */
	char *auth;	 /* "Authorization: Bearer ..." or NULL */
	char *describe;
	/* Headers of the last answer that we care about. */
	int64_t next_offset;
	bool have_next_offset;
};

static struct native *N(struct backend *b)
{
	return b->impl;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct buf *out = arg;
	return buf_add(out, p, size * n) < 0 ? 0 : size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct native *nt = arg;
	size_t len = size * n;
	static const char name[] = "gq-next-offset:";
	if (len > sizeof(name) && !strncasecmp(p, name, sizeof(name) - 1)) {
		char tmp[32];
		size_t vl = len - (sizeof(name) - 1);
		if (vl >= sizeof(tmp))
			vl = sizeof(tmp) - 1;
		memcpy(tmp, p + sizeof(name) - 1, vl);
		tmp[vl] = '\0';
		char *end;
		long long v = strtoll(tmp, &end, 10);
		if (end != tmp && v >= 0) {
			nt->next_offset = v;
			nt->have_next_offset = true;
		}
	}
	return len;
}

/*
 * One request. body (JSON text) may be NULL. On a 2xx answer *out holds
 * the body and 0 is returned; otherwise the server's {"error"} or curl's
 * failure becomes e. timeout_ms 0 means the default (30 s).
 */
static int http(struct native *nt, const char *method, const char *path, const char *body,
		const char *idem, long timeout_ms, struct buf *out, struct gq_err *e)
{
	CURL *c = nt->curl;
	char url[8192];
	if ((size_t)snprintf(url, sizeof(url), "%s%s", nt->base, path) >= sizeof(url))
		return err_set(e, GQ_EINVAL, "request path too long");
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (nt->unix_path)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, nt->unix_path);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms ? timeout_ms : 30000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, nt);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	struct curl_slist *hdr = NULL;
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (nt->auth)
		hdr = curl_slist_append(hdr, nt->auth);
	char idem_hdr[256];
	if (idem) {
		snprintf(idem_hdr, sizeof(idem_hdr), "Idempotency-Key: %s", idem);
		hdr = curl_slist_append(hdr, idem_hdr);
	}
	if (body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	nt->have_next_offset = false;
	buf_reset(out);
	CURLcode cc = curl_easy_perform(c);
	curl_slist_free_all(hdr);
	if (cc != CURLE_OK) {
		if (cc == CURLE_WRITE_ERROR)
			return err_set(e, GQ_ETOOBIG, "answer from %s is over %zu MiB",
				       nt->describe, MAX_ANSWER >> 20);
		if (cc == CURLE_OPERATION_TIMEDOUT)
			return err_set(e, GQ_EUNAVAIL,
				       "%s did not answer in time; check that it runs ('gq "
				       "version' and its log)",
				       nt->describe);
		return err_set(e, GQ_EUNAVAIL,
			       "cannot reach %s: %s; start it with 'gq serve' or set GQ_SERVER",
			       nt->describe, curl_easy_strerror(cc));
	}
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300)
		return 0;
	json_t *v = NULL;
	struct gq_err pe = GQ_ERR_INIT;
	if (codec_parse(out->data ? out->data : "", out->len, &v, &pe) < 0 ||
	    codec_error_decode(v, e) < 0)
		err_set(e,
			status == 401 || status == 403 ? GQ_EPERM
			: status == 404		       ? GQ_ENOENT
			: status == 507		       ? GQ_ENOSPACE
						       : GQ_EINTERNAL,
			"unexpected answer from %s (HTTP %ld)", nt->describe, status);
	json_decref(v);
	return -1;
}

/* A request whose answer is JSON: *v (new reference) on success. */
static int http_json(struct native *nt, const char *method, const char *path, const json_t *body,
		     const char *idem, long timeout_ms, json_t **v, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	char *text = body ? codec_dump(body) : NULL;
	int rc = http(nt, method, path, text, idem, timeout_ms, &out, e);
	free(text);
	if (rc == 0 && codec_parse(out.data ? out.data : "", out.len, v, e) < 0) {
		err_prefix(e, "answer from %s", nt->describe);
		e->code = GQ_EINTERNAL;
		rc = -1;
	}
	buf_release(&out);
	return rc;
}

/* POST /v1/jobs/ID/ACTION with an optional body; the answer (the job) is
 * not needed by callers. */
static int job_action(struct backend *b, int64_t id, const char *action, const json_t *body,
		      struct gq_err *e)
{
	char path[96];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/%s", id, action);
	json_t *v = NULL;
	json_t *empty = body ? NULL : json_object();
	int rc = http_json(N(b), "POST", path, body ? body : empty, NULL, 0, &v, e);
	json_decref(empty);
	json_decref(v);
	return rc;
}

static int n_ping(struct backend *b, struct gq_err *e)
{
	json_t *v = NULL;
	int rc = http_json(N(b), "GET", "/v1/ping", NULL, NULL, 5000, &v, e);
	json_decref(v);
	return rc;
}

static int n_snapshot(struct backend *b, struct snapshot *out, struct gq_err *e)
{
	struct buf text;
	buf_init(&text, MAX_ANSWER);
	if (http(N(b), "GET", "/v1/snapshot?form=rows", NULL, NULL, 0, &text, e) < 0) {
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
	return 0;
}

static char **strv_decode(const json_t *a)
{
	if (!json_is_array(a))
		return NULL;
	size_t n = json_array_size(a);
	char **v = xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s)
			v[k++] = xstrdup(s);
	}
	return v;
}

static int n_job(struct backend *b, int64_t id, struct job_info *out, struct gq_err *e)
{
	char path[96];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64, id);
	json_t *v = NULL, *cmd = NULL;
	struct job_info ji;
	memset(&ji, 0, sizeof(ji));
	if (http_json(N(b), "GET", path, NULL, NULL, 0, &v, e) < 0)
		return -1;
	int rc = codec_job_decode(v, &ji.job, e);
	json_decref(v);
	if (rc < 0) {
		err_prefix(e, "job %" PRId64 " from %s", id, N(b)->describe);
		e->code = GQ_EINTERNAL;
		return -1;
	}
	/* What it runs is the owner's or an admin's to see; without it the
	 * rest of the job is still worth showing. */
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/command", id);
	struct gq_err ce = GQ_ERR_INIT;
	if (http_json(N(b), "GET", path, NULL, NULL, 0, &cmd, &ce) == 0) {
		const json_t *script = json_object_get(cmd, "script");
		if (json_is_string(script)) {
			ji.argv = xcalloc(4, sizeof(char *));
			ji.argv[0] = xstrdup("/bin/sh");
			ji.argv[1] = xstrdup("-c");
			ji.argv[2] = xstrdup(json_string_value(script));
		} else {
			ji.argv = strv_decode(json_object_get(cmd, "argv"));
		}
		const char *cwd = json_string_value(json_object_get(cmd, "cwd"));
		if (cwd)
			ji.cwd = xstrdup(cwd);
		json_decref(cmd);
	} else if (ce.code != GQ_EPERM && ce.code != GQ_ENOENT) {
		*e = ce;
		job_info_release(&ji);
		return -1;
	}
	*out = ji;
	return 0;
}

static int n_submit(struct backend *b, const struct submit_req *r, int64_t *id, struct gq_err *e)
{
	json_t *body = codec_submit_encode(r);
	json_t *v = NULL;
	int rc = http_json(N(b), "POST", "/v1/jobs", body, r->idempotency_key, 0, &v, e);
	json_decref(body);
	if (rc < 0)
		return -1;
	json_t *jid = json_object_get(v, "id");
	if (!json_is_integer(jid) || json_integer_value(jid) <= 0) {
		json_decref(v);
		return err_set(e, GQ_EINTERNAL, "answer from %s to a submission has no job id",
			       N(b)->describe);
	}
	*id = json_integer_value(jid);
	json_decref(v);
	return 0;
}

static int n_cancel(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "cancel", NULL, e);
}

static int n_hold(struct backend *b, int64_t id, struct gq_err *e)
{
	return job_action(b, id, "hold", NULL, e);
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
	json_t *body = json_object();
	if (clear)
		json_object_set_new(body, "clear", json_true());
	else
		json_object_set_new(body, "tier", json_string(tier_name(tier)));
	json_t *rs = json_string(reason ? reason : "");
	if (!rs) {
		json_decref(body);
		return err_set(e, GQ_EINVAL, "the reason is not valid UTF-8; write it in UTF-8");
	}
	json_object_set_new(body, "reason", rs);
	int rc = job_action(b, id, "override", body, e);
	json_decref(body);
	return rc;
}

static int n_logs(struct backend *b, int64_t id, const char *stream, int64_t offset,
		  struct buf *out, int64_t *next, struct gq_err *e)
{
	struct native *nt = N(b);
	char path[160];
	snprintf(path, sizeof(path), "/v1/jobs/%" PRId64 "/logs?stream=%s&offset=%" PRId64, id,
		 stream, offset);
	struct buf tmp;
	buf_init(&tmp, MAX_ANSWER);
	int rc = http(nt, "GET", path, NULL, NULL, 0, &tmp, e);
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

static int n_events(struct backend *b, int64_t after, int wait_ms, struct event_list *out,
		    struct gq_err *e)
{
	char path[160];
	int n = snprintf(path, sizeof(path), "/v1/events?after=%" PRId64, after);
	if (wait_ms > 0)
		snprintf(path + n, sizeof(path) - (size_t)n, "&wait=%d", wait_ms);
	json_t *v = NULL;
	if (http_json(N(b), "GET", path, NULL, NULL, wait_ms + 30000L, &v, e) < 0)
		return -1;
	struct event *items = NULL;
	size_t cnt = 0;
	int rc = codec_events_decode(json_object_get(v, "events"), &items, &cnt, e);
	json_decref(v);
	if (rc < 0) {
		err_prefix(e, "events from %s", N(b)->describe);
		e->code = GQ_EINTERNAL;
		return -1;
	}
	if (cnt) { /* an empty page may come as no array at all */
		GROW(out->items, out->cap, out->n + cnt);
		memcpy(out->items + out->n, items, cnt * sizeof(*items));
		out->n += cnt;
	}
	free(items);
	return 0;
}

static int n_get_text(struct backend *b, const char *path, char **json, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = http(N(b), "GET", path, NULL, NULL, 0, &out, e);
	if (rc == 0)
		*json = buf_detach(&out);
	buf_release(&out);
	return rc;
}

/* PATH?QUERY, without the '?' when the query is empty. */
static int n_get_query(struct backend *b, const char *path, const char *query, char **json,
		       struct gq_err *e)
{
	char full[512];
	snprintf(full, sizeof(full), "%s%s%s", path, query && *query ? "?" : "",
		 query ? query : "");
	return n_get_text(b, full, json, e);
}

static int n_stats(struct backend *b, const char *query, char **json, struct gq_err *e)
{
	return n_get_query(b, "/v1/stats", query, json, e);
}

static int n_preemptions(struct backend *b, const char *query, char **json, struct gq_err *e)
{
	return n_get_query(b, "/v1/preemptions", query, json, e);
}

static int n_reclaim(struct backend *b, char **json, struct gq_err *e)
{
	return n_get_text(b, "/v1/reclaim", json, e);
}

static int n_clock(struct backend *b, int64_t delta, int64_t *now, struct gq_err *e)
{
	json_t *v = NULL;
	int rc;
	if (delta) {
		json_t *body = json_pack("{s:I}", "advance", (json_int_t)delta);
		rc = http_json(N(b), "POST", "/v1/clock", body, NULL, 0, &v, e);
		json_decref(body);
	} else {
		rc = http_json(N(b), "GET", "/v1/ping", NULL, NULL, 0, &v, e);
	}
	if (rc < 0)
		return -1;
	json_t *t = json_object_get(v, "now");
	if (!json_is_integer(t)) {
		json_decref(v);
		return err_set(e, GQ_EINTERNAL, "answer from %s has no time", N(b)->describe);
	}
	*now = json_integer_value(t);
	json_decref(v);
	return 0;
}

static int n_policy_apply(struct backend *b, const char *rev, char **applied, struct gq_err *e)
{
	json_t *body = json_pack("{s:s}", "revision", rev ? rev : "");
	if (!body)
		return err_set(e, GQ_EINVAL, "revision '%s' is not valid UTF-8", rev);
	json_t *v = NULL;
	int rc = http_json(N(b), "POST", "/v1/policy/apply", body, NULL, 0, &v, e);
	json_decref(body);
	if (rc < 0)
		return -1;
	const char *r = json_string_value(json_object_get(v, "revision"));
	*applied = xstrdup(r ? r : "");
	json_decref(v);
	return 0;
}

static const char *n_describe(struct backend *b)
{
	return N(b)->describe;
}

static void n_close(struct backend *b)
{
	struct native *nt = N(b);
	curl_easy_cleanup(nt->curl);
	free(nt->unix_path);
	free(nt->base);
	free(nt->auth);
	free(nt->describe);
	free(nt);
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
    .logs = n_logs,
    .events = n_events,
    .stats = n_stats,
    .preemptions = n_preemptions,
    .reclaim = n_reclaim,
    .clock = n_clock,
    .policy_apply = n_policy_apply,
    .describe = n_describe,
    .close = n_close,
};

static struct backend *native_open(const struct backend_target *t, struct gq_err *e)
{
	static bool curl_ready;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			err_set(e, GQ_EINTERNAL, "libcurl failed to initialise");
			return NULL;
		}
		curl_ready = true;
	}
	struct native *nt = xcalloc(1, sizeof(*nt));
	nt->b.ops = &native_ops;
	nt->b.impl = nt;
	nt->describe = xasprintf("gq serve at '%s'", t->server);
	if (!strncmp(t->server, "unix:", 5)) {
		nt->unix_path = xstrdup(t->server + 5);
		nt->base = xstrdup("http://gq");
	} else if (!strncmp(t->server, "http://", 7)) {
		nt->base = xstrdup(t->server);
		size_t n = strlen(nt->base);
		while (n > 7 && nt->base[n - 1] == '/')
			nt->base[--n] = '\0';
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
	nt->curl = curl_easy_init();
	if (!nt->curl) {
		err_set(e, GQ_EINTERNAL, "libcurl failed to create a handle");
		goto fail;
	}
	return &nt->b;
fail:
	free(nt->unix_path);
	free(nt->base);
	free(nt->auth);
	free(nt->describe);
	free(nt);
	return NULL;
}

const struct backend_impl backend_native = {
    .name = "native",
    .open = native_open,
};
