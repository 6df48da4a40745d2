/*
 * api.c - wire.h's text forms of the API's messages: the envelopes around
 * codec.c's shapes ({"id"}, {"now"}, {"events", "next"}), the request
 * bodies of the actions, errors, ping and the version handshake.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wire/codec.h"
#include "wire/wire.h"

/* ---- versions ---- */

void wire_api_self(struct wire_api *out)
{
	out->oldest = GQ_API_OLDEST;
	out->current = GQ_API_VERSION;
	const char *claim = getenv("GQ_TEST_API_VERSION");
	int64_t v;
	struct gq_err e = GQ_ERR_INIT;
	if (claim && *claim && parse_int64(claim, 1, 1000000, &v, &e) == 0)
		out->oldest = out->current = (int)v;
}

static int version_value(const char *s, int dflt, int *out, struct gq_err *e)
{
	int64_t v;
	if (!s) {
		*out = dflt;
		return 0;
	}
	if (parse_int64(s, 1, 1000000, &v, e) < 0)
		return err_set(e, GQ_EINVAL, "bad API version '%s': expected a positive integer",
			       s);
	*out = (int)v;
	return 0;
}

int wire_api_parse(const char *current, const char *oldest, struct wire_api *out, struct gq_err *e)
{
	struct wire_api a;
	if (version_value(current, 1, &a.current, e) < 0 ||
	    version_value(oldest, a.current, &a.oldest, e) < 0)
		return -1;
	if (a.oldest > a.current)
		return err_set(e, GQ_EINVAL, "bad API versions: oldest %d is above current %d",
			       a.oldest, a.current);
	*out = a;
	return 0;
}

static void range_text(const struct wire_api *a, char *out, size_t size)
{
	if (a->oldest == a->current)
		snprintf(out, size, "API version %d", a->current);
	else
		snprintf(out, size, "API versions %d to %d", a->oldest, a->current);
}

int wire_api_check(const struct wire_api *self, const struct wire_api *peer, bool peer_is_server,
		   const char *describe, struct gq_err *e)
{
	if (peer->oldest <= self->current && self->oldest <= peer->current)
		return 0;
	const struct wire_api *client = peer_is_server ? self : peer;
	const struct wire_api *server = peer_is_server ? peer : self;
	const char *who = peer_is_server ? "this gq" : "the client";
	char c[48], s[48];
	range_text(client, c, sizeof(c));
	range_text(server, s, sizeof(s));
	if (client->current < server->oldest)
		return err_set(e, GQ_EUNAVAIL, "%s (%s) is older than %s (%s): upgrade %s", who, c,
			       describe, s, who);
	return err_set(e, GQ_EUNAVAIL, "%s (%s) is older than %s (%s): upgrade gq serve", describe,
		       s, who, c);
}

const char *wire_json_library_version(void)
{
	return jansson_version_str();
}

/* ---- helpers ---- */

static char *dump(json_t *v)
{
	char *s = codec_dump(v);
	json_decref(v);
	return s;
}

/* The text as a JSON object; an empty text is {} when optional. */
static int parse_object(const char *text, size_t len, bool optional, json_t **out, struct gq_err *e)
{
	if (len == 0 && optional) {
		*out = json_object();
		return 0;
	}
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	if (!json_is_object(v)) {
		json_decref(v);
		return err_set(e, GQ_EINVAL, "the body must be a JSON object");
	}
	*out = v;
	return 0;
}

/* Checks that obj has only the named members. */
static int only_fields(const json_t *obj, const char *what, const char *const *names,
		       struct gq_err *e)
{
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)(uintptr_t)obj, key, val)
	{
		bool ok = false;
		for (size_t i = 0; names[i]; i++)
			if (!strcmp(key, names[i]))
				ok = true;
		if (!ok)
			return err_set(e, GQ_EINVAL, "%s: unknown field '%s'", what, key);
	}
	return 0;
}

int wire_check(const char *text, size_t len, struct gq_err *e)
{
	json_t *v = NULL;
	int rc = codec_parse(text, len, &v, e);
	json_decref(v);
	return rc;
}

/* ---- jobs and submissions ---- */

int wire_job_parse(const char *text, size_t len, struct job *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	int rc = codec_job_decode(v, out, e);
	json_decref(v);
	return rc;
}

char *wire_submit_text(const struct submit_req *r)
{
	return dump(codec_submit_encode(r));
}

int wire_submit_parse(const char *text, size_t len, struct submission *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (parse_object(text, len, false, &v, e) < 0)
		return -1;
	int rc = codec_submit_decode(v, out, e);
	json_decref(v);
	return rc;
}

int wire_submitted_parse(const char *text, size_t len, int64_t *id, struct window_stop *win,
			 bool *has_win, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	json_t *jid = json_object_get(v, "id"), *jw = json_object_get(v, "window");
	int rc = 0;
	if (!json_is_integer(jid) || json_integer_value(jid) <= 0)
		rc = err_set(e, GQ_EINVAL, "the answer to a submission has no job id");
	else if (win && jw && codec_window_stop_decode(jw, win, e) < 0)
		rc = -1;
	if (rc == 0) {
		*id = json_integer_value(jid);
		if (win)
			*has_win = jw != NULL;
		const char *w = json_string_value(json_object_get(v, "warning"));
		if (w && w[0])
			err_set(e, GQ_OK, "%s", w);
	}
	json_decref(v);
	return rc;
}

char *wire_submitted_text(int64_t id, const char *warning)
{
	json_t *o = json_pack("{s:I}", "id", (json_int_t)id);
	if (warning && warning[0])
		json_object_set_new(o, "warning", json_string(warning));
	return dump(o);
}

void wire_window_stop_write(struct buf *b, const struct window_stop *w)
{
	char *t = dump(codec_window_stop_encode(w));
	buf_printf(b, ",\"window\":%s", t);
	free(t);
}

/* ---- events ---- */

char *wire_events_text(const struct event *evs, size_t n, int64_t next)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, codec_event_encode(&evs[i]));
	return dump(json_pack("{s:o,s:I}", "events", arr, "next", (json_int_t)next));
}

char *wire_event_text(const struct event *ev)
{
	return dump(codec_event_encode(ev));
}

int wire_events_parse(const char *text, size_t len, struct event_list *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	struct event *items = NULL;
	size_t cnt = 0;
	int rc = codec_events_decode(json_object_get(v, "events"), &items, &cnt, e);
	json_decref(v);
	if (rc < 0)
		return -1;
	if (cnt) { /* an empty page may come as no array at all */
		GROW(out->items, out->cap, out->n + cnt);
		memcpy(out->items + out->n, items, cnt * sizeof(*items));
		out->n += cnt;
	}
	free(items);
	return 0;
}

/* ---- reports ---- */

char *wire_stats_text(const struct stats_report *r)
{
	json_t *o = codec_stats_encode(&r->st, r->counts, r->now);
	if (r->started)
		json_object_set_new(o, "server_start", json_integer(r->started));
	if (r->not_recorded) {
		json_t *nr = json_array(), *groups = json_object_get(o, "groups"),
		       *depts = json_object_get(o, "depts");
		for (int b = 0; b < STATS_NR_COUNT; b++) {
			if (!(r->not_recorded & (1u << b)))
				continue;
			json_array_append_new(nr, json_string(stats_not_recorded_names[b]));
			size_t i;
			json_t *g;
			json_array_foreach(1u << b == STATS_NR_CHARGED ? depts : groups, i, g)
			    json_object_set_new(g, stats_not_recorded_names[b], json_null());
		}
		json_object_set_new(o, "not_recorded", nr);
	}
	return dump(o);
}

int wire_stats_parse(const char *text, size_t len, struct stats_report *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	int rc = codec_stats_decode(v, out, e);
	json_decref(v);
	return rc;
}

char *wire_preemptions_text(const struct preempt_list *l)
{
	return dump(codec_preemptions_encode(l));
}

int wire_preemptions_parse(const char *text, size_t len, struct preempt_list *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	int rc = codec_preemptions_decode(v, out, e);
	json_decref(v);
	return rc;
}

char *wire_reclaim_text(const struct reclaim_report *r)
{
	return dump(codec_reclaim_encode(r));
}

int wire_reclaim_parse(const char *text, size_t len, struct reclaim_report *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	int rc = codec_reclaim_decode(v, out, e);
	json_decref(v);
	return rc;
}

/* ---- policy, ping, clock ---- */

char *wire_policy_text(const struct policy *p)
{
	return dump(codec_policy_encode(p));
}

int wire_revision_parse(const char *text, size_t len, char **rev, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	const char *r = json_string_value(json_object_get(v, "revision"));
	*rev = xstrdup(r ? r : "");
	json_decref(v);
	return 0;
}

char *wire_ping_text(const struct wire_ping *p)
{
	return dump(json_pack("{s:b,s:s,s:s,s:I,s:s,s:I,s:b,s:i,s:i}", "ok", 1, "version",
			      GQ_VERSION, "user", p->user, "uid", (json_int_t)p->uid, "role",
			      p->admin ? "admin" : "user", "now", (json_int_t)p->now,
			      "manual_clock", p->manual_clock, "api_version", p->api.current,
			      "api_oldest", p->api.oldest));
}

char *wire_now_text(int64_t now)
{
	return dump(json_pack("{s:I}", "now", (json_int_t)now));
}

int wire_now_parse(const char *text, size_t len, int64_t *now, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	json_t *t = json_object_get(v, "now");
	int rc = 0;
	if (!json_is_integer(t))
		rc = err_set(e, GQ_EINVAL, "no time in the answer");
	else
		*now = json_integer_value(t);
	json_decref(v);
	return rc;
}

/* ---- request bodies ---- */

int wire_empty_parse(const char *text, size_t len, const char *what, struct gq_err *e)
{
	static const char *const none[] = {NULL};
	json_t *v = NULL;
	int rc = parse_object(text, len, true, &v, e);
	if (rc == 0)
		rc = only_fields(v, what, none, e);
	json_decref(v);
	return rc;
}

int wire_hold_parse(const char *text, size_t len, char **reason, struct gq_err *e)
{
	static const char *const names[] = {"reason", NULL};
	json_t *v = NULL;
	int rc = -1;
	if (parse_object(text, len, true, &v, e) < 0 || only_fields(v, "hold", names, e) < 0)
		goto out;
	json_t *r = json_object_get(v, "reason");
	if (r && !json_is_string(r)) {
		err_set(e, GQ_EINVAL, "hold.reason: expected a string");
		goto out;
	}
	*reason = r ? xstrdup(json_string_value(r)) : NULL;
	rc = 0;
out:
	json_decref(v);
	return rc;
}

static const char *const job_files[] = {"cwd", "output", "error", "command", NULL};

char *wire_job_files_text(const char *const v[4])
{
	json_t *o = json_object();
	for (int i = 0; i < 4; i++) {
		json_t *x = v[i] ? json_string(v[i]) : NULL;
		json_object_set_new(o, job_files[i], x ? x : json_null());
	}
	return dump(o);
}

int wire_job_files_parse(const char *text, size_t len, char *out[4], struct gq_err *e)
{
	json_t *v = NULL;
	for (int i = 0; i < 4; i++)
		out[i] = NULL;
	if (parse_object(text, len, false, &v, e) < 0 || only_fields(v, "files", job_files, e) < 0)
		goto fail;
	for (int i = 0; i < 4; i++) {
		json_t *x = json_object_get(v, job_files[i]);
		if (x && !json_is_null(x) && !json_is_string(x)) {
			err_set(e, GQ_EINVAL, "files.%s: expected a string or null", job_files[i]);
			goto fail;
		}
		out[i] = json_is_string(x) ? xstrdup(json_string_value(x)) : NULL;
	}
	json_decref(v);
	return 0;
fail:
	for (int i = 0; i < 4; i++) {
		free(out[i]);
		out[i] = NULL;
	}
	json_decref(v);
	return -1;
}

int wire_hold_text(const char *reason, char **out, struct gq_err *e)
{
	json_t *rs = json_string(reason);
	if (!rs)
		return err_set(e, GQ_EINVAL, "the reason is not valid UTF-8; write it in UTF-8");
	*out = dump(json_pack("{s:o}", "reason", rs));
	return 0;
}

int wire_priority_parse(const char *text, size_t len, int64_t *prio, struct gq_err *e)
{
	static const char *const names[] = {"priority", NULL};
	json_t *v = NULL;
	int rc = -1;
	if (parse_object(text, len, false, &v, e) < 0 || only_fields(v, "priority", names, e) < 0)
		goto out;
	json_t *p = json_object_get(v, "priority");
	if (!json_is_integer(p) || json_integer_value(p) < 1 ||
	    json_integer_value(p) > INT64_C(4294967293)) {
		err_set(e, GQ_EINVAL,
			"priority.priority: expected an integer from 1 to 4294967293");
		goto out;
	}
	*prio = json_integer_value(p);
	rc = 0;
out:
	json_decref(v);
	return rc;
}

char *wire_priority_text(int64_t prio)
{
	return dump(json_pack("{s:I}", "priority", (json_int_t)prio));
}

int wire_override_parse(const char *text, size_t len, enum tier *tier, bool *clear, char **reason,
			struct gq_err *e)
{
	static const char *const names[] = {"tier", "clear", "reason", NULL};
	json_t *v = NULL;
	int rc = -1;
	if (parse_object(text, len, false, &v, e) < 0 || only_fields(v, "override", names, e) < 0)
		goto out;
	json_t *t = json_object_get(v, "tier"), *cl = json_object_get(v, "clear"),
	       *r = json_object_get(v, "reason");
	if (cl && !json_is_boolean(cl)) {
		err_set(e, GQ_EINVAL, "override.clear: expected true or false");
		goto out;
	}
	*clear = cl && json_is_true(cl);
	if (!*clear) {
		if (!json_is_string(t) || tier_parse(json_string_value(t), tier, NULL) < 0) {
			err_set(e, GQ_EINVAL, "override.tier: expected P0, P1 or P2");
			goto out;
		}
	} else if (t) {
		err_set(e, GQ_EINVAL, "override: give either 'tier' or 'clear', not both");
		goto out;
	}
	if (r && !json_is_string(r)) {
		err_set(e, GQ_EINVAL, "override.reason: expected a string");
		goto out;
	}
	*reason = r ? xstrdup(json_string_value(r)) : NULL;
	rc = 0;
out:
	json_decref(v);
	return rc;
}

int wire_override_text(enum tier tier, bool clear, const char *reason, char **out, struct gq_err *e)
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
	*out = dump(body);
	return 0;
}

int wire_clock_parse(const char *text, size_t len, int64_t *advance, int64_t *set, struct gq_err *e)
{
	static const char *const names[] = {"advance", "set", NULL};
	json_t *v = NULL;
	int rc = -1;
	if (parse_object(text, len, false, &v, e) < 0 || only_fields(v, "clock", names, e) < 0)
		goto out;
	json_t *adv = json_object_get(v, "advance"), *st = json_object_get(v, "set");
	if ((adv && st) || (!adv && !st)) {
		err_set(e, GQ_EINVAL,
			"clock: give either 'advance' (seconds) or 'set' (unix time)");
		goto out;
	}
	if ((adv && !json_is_integer(adv)) || (st && !json_is_integer(st))) {
		err_set(e, GQ_EINVAL, "clock: '%s' must be an integer number of seconds",
			adv ? "advance" : "set");
		goto out;
	}
	if (st && json_integer_value(st) <= 0) {
		err_set(e, GQ_EINVAL, "clock.set: expected a unix time");
		goto out;
	}
	*advance = adv ? json_integer_value(adv) : 0;
	*set = st ? json_integer_value(st) : 0;
	rc = 0;
out:
	json_decref(v);
	return rc;
}

char *wire_clock_text(int64_t advance)
{
	return dump(json_pack("{s:I}", "advance", (json_int_t)advance));
}

int wire_policy_apply_parse(const char *text, size_t len, char **rev, struct gq_err *e)
{
	static const char *const names[] = {"revision", NULL};
	json_t *v = NULL;
	int rc = -1;
	if (parse_object(text, len, true, &v, e) < 0 ||
	    only_fields(v, "policy apply", names, e) < 0)
		goto out;
	json_t *r = json_object_get(v, "revision");
	if (r && !json_is_string(r)) {
		err_set(e, GQ_EINVAL, "policy apply.revision: expected a string");
		goto out;
	}
	*rev = xstrdup(r ? json_string_value(r) : "");
	rc = 0;
out:
	json_decref(v);
	return rc;
}

int wire_policy_apply_text(const char *rev, char **out, struct gq_err *e)
{
	json_t *body = json_pack("{s:s}", "revision", rev ? rev : "");
	if (!body)
		return err_set(e, GQ_EINVAL, "revision '%s' is not valid UTF-8", rev);
	*out = dump(body);
	return 0;
}

/* ---- errors and webhooks ---- */

char *wire_error_text(const struct gq_err *e)
{
	return dump(codec_error_encode(e));
}

int wire_error_parse(const char *text, size_t len, struct gq_err *out)
{
	json_t *v = NULL;
	struct gq_err pe = GQ_ERR_INIT;
	if (codec_parse(text, len, &v, &pe) < 0)
		return -1;
	int rc = codec_error_decode(v, out);
	json_decref(v);
	return rc;
}

/* A POST's body: v compact with sorted keys; consumes v. */
static char *note_dump(json_t *v, const char *what)
{
	if (!v)
		BUG("%s does not pack", what);
	char *body = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(v);
	if (!body)
		BUG("%s does not dump", what);
	return body;
}

char *wire_notify_text(const struct notify_note *n)
{
	json_t *v =
	    json_pack("{s:s,s:I,s:I,s:s,s:s,s:s,s:o,s:I,s:s,s:s,s:s}", "event", n->event, "time",
		      (json_int_t)n->time, "job", (json_int_t)n->job, "name", n->name, "user",
		      n->user, "state", n->state, "exit_code",
		      n->exit_code < 0 ? json_null() : json_integer(n->exit_code), "runtime",
		      (json_int_t)n->runtime, "queue", n->queue, "tier", n->tier, "text", n->text);
	return note_dump(v, "notification");
}

char *wire_webhook_text(const struct webhook_note *n)
{
	json_t *v = json_pack("{s:s,s:I,s:I,s:s,s:s,s:s,s:s,s:I,s:s}", "event", n->event, "time",
			      (json_int_t)n->time, "job", (json_int_t)n->job, "name", n->name,
			      "user", n->user, "queue", n->queue, "tier", n->tier, "pending",
			      (json_int_t)n->pending, "text", n->text);
	if (v && n->deadline)
		json_object_set_new(v, "confirm_before", json_integer((json_int_t)n->deadline));
	return note_dump(v, "webhook note");
}
