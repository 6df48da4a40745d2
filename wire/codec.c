/*
 * codec.c - JSON <-> model structs, driven by field tables so that the
 * encoder and the decoder of a struct read the same list and cannot drift.
 *
 * The field machinery is fields.h's; the reports (stats, preemptions,
 * reclaim) are reports.c's. It checks shapes (types, lengths, ranges, known
 * names) and nothing of policy.
 */
#include "wire/codec.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/depend.h"
#include "wire/fields.h"

static const struct field res_fields[] = {
    FLD(job_res, gpus, F_INT),	     FLD(job_res, gpu_type, F_STR), FLD(job_res, gpu_mem_mb, F_I64),
    FLD(job_res, same_node, F_BOOL), FLD(job_res, cpus, F_INT),	    FLD(job_res, mem_mb, F_I64),
};

static const struct field ovr_fields[] = {
    FLD(job_override, tier, F_TIER),
    FLD(job_override, actor, F_STR),
    FLD(job_override, reason, F_STR),
    FLD(job_override, at, F_I64),
};

/* Scalar job fields; req, override, alloc and deps are handled by name. */
static const struct field job_fields[] = {
    FLD(job, id, F_I64),
    FLD(job, name, F_STR),
    FLD(job, user, F_STR),
    FLD(job, uid, F_U32),
    FLD(job, gid, F_U32),
    FLD(job, queue, F_STR),
    FLD(job, dept, F_STR),
    FLD(job, tier, F_TIER),
    FLD(job, state, F_STATE),
    FLD(job, exit_status, F_INT),
    FLD(job, end_reason, F_STR),
    FLD(job, borrowed, F_BOOL),
    FLD(job, submit_time, F_TIME),
    FLD(job, queued_time, F_TIME),
    FLD(job, start_time, F_TIME),
    FLD(job, end_time, F_TIME),
    FLD(job, estimate, F_I64),
    FLD(job, time_limit, F_I64),
    FLD(job, hist_runtime, F_I64),
    FLD(job, hist_ratio, F_DBL),
    FLD(job, checkpointable, F_BOOL),
    FLD(job, last_checkpoint, F_TIME),
    FLD(job, not_before, F_TIME),
    FLD(job, stop_deadline, F_TIME),
    FLD(job, restarts, F_INT),
    FLD(job, runs_kept, F_BOOL),
    FLD(job, ran_time, F_I64),
    FLD(job, ran_gpu_time, F_I64),
    FLD(job, held, F_BOOL),
    FLD(job, held_by, F_STR),
    FLD(job, held_at, F_TIME),
    FLD(job, held_reason, F_STR),
    FLD_OPT(job, reservation),
    FLD(job, eligible_time, F_TIME),
    FLD(job, reminded_at, F_TIME),
    FLD(job, confirmed_at, F_TIME),
    FLD(job, hist_src, F_INT),
    FLD(job, hist_n, F_INT),
    FLD(job, hist_last, F_I64),
    FLD(job, hist_prev, F_I64),
    FLD(job, pred_start0, F_I64),
    FLD(job, array_id, F_I64),
    FLD(job, array_task, F_INT),
    FLD(job, array_max, F_INT),
    FLD(job, begin_time, F_TIME),
    FLD(job, sig, F_INT),
    FLD(job, sig_before, F_I64),
    FLD(job, sig_sent, F_BOOL),
    FLD(job, notify, F_STR),
    FLD(job, claim_time, F_TIME),
    /* The backend scheduler's view (Slurm), default (and so not sent in
     * the rows form) on gq serve: gq serve --slurm carries them. */
    FLD(job, ext_reason, F_STR),
    FLD(job, ext_class, F_STR),
    FLD(job, ext_start, F_TIME),
    FLD(job, ext_prio, F_I64),
    FLD(job, ext_array, F_STR),
    FLD(job, ext_qos, F_STR),
    FLD(job, ext_detail, F_STR),
};

/* What a submission may set; everything else of a job is the server's. */
static const char *const submit_job_fields[] = {
    "name", "queue",	  "tier", "estimate",	"time_limit", "checkpointable",
    "held", "begin_time", "sig",  "sig_before", "notify",     "reservation",
};

static const struct field node_fields[] = {
    FLD(node, name, F_STR),  FLD(node, gpu_model, F_STR), FLD(node, gpu_mem_mb, F_I64),
    FLD(node, ngpus, F_INT), FLD(node, cpus, F_INT),	  FLD(node, mem_mb, F_I64),
    FLD(node, up, F_BOOL),   FLD_OPT(node, state),
};

static const struct field resv_fields[] = {
    FLD(reservation, name, F_STR),	 FLD(reservation, start_time, F_I64),
    FLD(reservation, end_time, F_I64),	 FLD(reservation, nodes, F_STR),
    FLD(reservation, all_nodes, F_BOOL), FLD(reservation, maint, F_BOOL),
};

static const struct field event_fields[] = {
    FLD(event, seq, F_I64),    FLD(event, time, F_I64),	  FLD(event, job, F_I64),
    FLD(event, kind, F_STR),   FLD(event, from, F_STATE), FLD(event, to, F_STATE),
    FLD(event, reason, F_STR), FLD(event, actor, F_STR),
};

static const struct field qstate_fields[] = {
    FLD(queue_state, usage, F_DBL),
    FLD(queue_state, preempts_hour, F_INT),
};

static const struct field dstate_fields[] = {
    FLD(dept_state, gpu_hours_month, F_DBL),
    FLD(dept_state, preempts_month, F_INT),
};

/*
 * The rows form of a snapshot's jobs: one array per job, its cells in the
 * order of "job_columns". A column is a scalar job field, a field of req
 * as "req.NAME", or "override", "alloc" or "deps"; a cell is null where
 * the job has the default value. Only columns in which some job differs
 * from the default are sent ("id" always).
 */
enum col_kind { COL_JOB, COL_REQ, COL_OVERRIDE, COL_ALLOC, COL_DEPS };

struct column {
	enum col_kind kind;
	const struct field *f; /* COL_JOB, COL_REQ */
};

#define MAX_COLUMNS (NF(job_fields) + NF(res_fields) + 3)

/* Every column, "id" first; returns how many. */
static size_t all_columns(struct column *c)
{
	size_t n = 0;
	for (size_t i = 0; i < NF(job_fields); i++)
		c[n++] = (struct column){COL_JOB, &job_fields[i]};
	for (size_t i = 0; i < NF(res_fields); i++)
		c[n++] = (struct column){COL_REQ, &res_fields[i]};
	c[n++] = (struct column){COL_OVERRIDE, NULL};
	c[n++] = (struct column){COL_ALLOC, NULL};
	c[n++] = (struct column){COL_DEPS, NULL};
	return n;
}

static void column_name(const struct column *c, char *out, size_t size)
{
	static const char *const special[] = {"", "", "override", "alloc", "deps"};
	if (c->kind == COL_REQ)
		snprintf(out, size, "req.%s", c->f->name);
	else
		snprintf(out, size, "%s", c->kind == COL_JOB ? c->f->name : special[c->kind]);
}

/* jansson's iteration macros take a non-const json_t; decoding never
 * changes the value it reads. */
json_t *wire_mut(const json_t *v)
{
	return (json_t *)(uintptr_t)v;
}

/* v may be NULL: a member that is absent (json_object_get's answer). */
static const char *json_kind(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "something else";
}

int wire_type_error(struct gq_err *e, const char *path, const char *want, const json_t *v)
{
	return err_set(e, GQ_EINVAL, "%s: expected %s, got %s", path, want, json_kind(v));
}

/* ---- encoding ---- */

static void encode_field(json_t *o, const struct field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	json_t *v = NULL;
	if (f->opt && !p[0])
		return;
	switch (f->type) {
	case F_I64:
	case F_TIME:
		v = json_integer(*(const int64_t *)p);
		break;
	case F_INT:
		v = json_integer(*(const int *)p);
		break;
	case F_U32:
		v = json_integer(*(const uint32_t *)p);
		break;
	case F_BOOL:
		v = json_boolean(*(const bool *)p);
		break;
	case F_DBL:
		/* json_real refuses what JSON cannot say; a non-finite number is
		 * a bug upstream (see snapshot_check_finite), never a reason to die. */
		v = isfinite(*(const double *)p) ? json_real(*(const double *)p) : json_null();
		break;
	case F_STR:
		/* Model strings are validated on the way in, but never let a
		 * non-UTF-8 byte make the encoder drop a field. */
		v = json_stringn(p, strnlen(p, f->size));
		if (!v)
			v = json_string("?");
		break;
	case F_TIER:
		v = json_string(tier_name(*(const enum tier *)p));
		break;
	case F_STATE:
		v = json_string(job_state_name(*(const enum job_state *)p));
		break;
	}
	if (!v)
		oom(0);
	json_object_set_new(o, f->name, v);
}

json_t *wire_encode_table(const struct field *t, size_t n, const void *base)
{
	json_t *o = json_object();
	if (!o)
		oom(0);
	for (size_t i = 0; i < n; i++)
		encode_field(o, &t[i], base);
	return o;
}

/* A job's dependencies: [12, {"id": 14, "kind": "afterany"}]: a plain id is
 * afterok, what the list meant before it had kinds, so that an old client's
 * list still decodes; write_deps writes the same text. */
static json_t *deps_encode(const struct job *j)
{
	json_t *deps = json_array();
	for (int i = 0; i < j->ndeps && i < GQ_MAX_DEPS; i++) {
		enum dep_kind k = dep_kind_of(j, i);
		if (k == DEP_AFTEROK)
			json_array_append_new(deps, json_integer(j->deps[i]));
		else
			json_array_append_new(deps,
					      json_pack("{s:I,s:s}", "id", (json_int_t)j->deps[i],
							"kind", dep_kind_name(k)));
	}
	return deps;
}

json_t *codec_job_encode(const struct job *j)
{
	json_t *o = wire_encode_table(job_fields, NF(job_fields), j);
	json_object_set_new(o, "req", wire_encode_table(res_fields, NF(res_fields), &j->req));
	json_object_set_new(o, "override",
			    j->ovr.set ? wire_encode_table(ovr_fields, NF(ovr_fields), &j->ovr)
				       : json_null());
	json_t *alloc = json_array();
	for (int i = 0; i < j->nalloc; i++) {
		json_t *gpus = json_array();
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++)
			if (j->alloc[i].mask & (UINT64_C(1) << g))
				json_array_append_new(gpus, json_integer(g));
		json_array_append_new(
		    alloc, json_pack("{s:i,s:o}", "node", j->alloc[i].node, "gpus", gpus));
	}
	json_object_set_new(o, "alloc", alloc);
	json_object_set_new(o, "deps", deps_encode(j));
	return o;
}

json_t *codec_node_encode(const struct node *n)
{
	return wire_encode_table(node_fields, NF(node_fields), n);
}

/* "late" (API version 2) only when set: gq serve's events never are. */
json_t *codec_event_encode(const struct event *ev)
{
	json_t *o = wire_encode_table(event_fields, NF(event_fields), ev);
	if (ev->late)
		json_object_set_new(o, "late", json_true());
	return o;
}

static void policy_key_cb(const struct policy_key_info *ki, void *arg)
{
	json_object_set_new((json_t *)arg, ki->key, json_string(ki->value));
}

json_t *codec_policy_encode(const struct policy *p)
{
	json_t *keys = json_object();
	policy_foreach(p, policy_key_cb, keys);
	return json_pack("{s:s,s:o}", "revision", p->revision, "keys", keys);
}

json_t *codec_snapshot_encode(const struct snapshot *s)
{
	json_t *jobs = json_array(), *nodes = json_array(), *queues = json_array(),
	       *depts = json_array();
	for (size_t i = 0; i < s->njobs; i++)
		json_array_append_new(jobs, codec_job_encode(&s->jobs[i]));
	for (size_t i = 0; i < s->nnodes; i++)
		json_array_append_new(nodes, codec_node_encode(&s->nodes[i]));
	for (int i = 0; i < s->policy.nqueues; i++) {
		json_t *q = wire_encode_table(qstate_fields, NF(qstate_fields), &s->qstate[i]);
		json_object_set_new(q, "name", json_string(s->policy.queues[i].name));
		json_array_append_new(queues, q);
	}
	for (int i = 0; i < s->policy.ndepts; i++) {
		json_t *d = wire_encode_table(dstate_fields, NF(dstate_fields), &s->dstate[i]);
		json_object_set_new(d, "name", json_string(s->policy.depts[i].name));
		json_array_append_new(depts, d);
	}
	json_t *v =
	    json_pack("{s:I,s:i,s:o,s:o,s:o,s:o,s:o}", "now", (json_int_t)s->now, "tz_offset",
		      (int)s->tz_offset, "policy", codec_policy_encode(&s->policy), "jobs", jobs,
		      "nodes", nodes, "queues", queues, "depts", depts);
	if (s->order == ORDER_BACKEND) /* only then: older clients know no "order" */
		json_object_set_new(v, "order", json_string("backend"));
	if (s->nresv) { /* likewise: a backend's only */
		json_t *r = json_array();
		for (size_t i = 0; i < s->nresv; i++)
			json_array_append_new(
			    r, wire_encode_table(resv_fields, NF(resv_fields), &s->resv[i]));
		json_object_set_new(v, "reservations", r);
	}
	if (s->calib.n > 0)
		json_object_set_new(v, "calib",
				    json_pack("{s:f,s:f,s:i}", "lo", s->calib.lo, "hi", s->calib.hi,
					      "n", s->calib.n));
	return v;
}

/* "calib": {"lo": L, "hi": H, "n": N}, 0 <= L <= H, N >= 1 (calib.h). */
static int decode_calib(const json_t *v, struct predict_calib *out, struct gq_err *e)
{
	json_t *lo = json_object_get(v, "lo"), *hi = json_object_get(v, "hi"),
	       *n = json_object_get(v, "n");
	if (!json_is_object(v) || json_object_size(v) != 3 || !json_is_number(lo) ||
	    !json_is_number(hi) || !json_is_integer(n))
		return err_set(e, GQ_EINVAL,
			       "snapshot.calib: expected {\"lo\": number, \"hi\": number, "
			       "\"n\": integer}");
	double l = json_number_value(lo), h = json_number_value(hi);
	json_int_t k = json_integer_value(n);
	if (!(l >= 0) || !(h >= l) || !(h <= 1e4) || k < 1 || k > 1000000)
		return err_set(e, GQ_EINVAL,
			       "snapshot.calib: expected 0 <= lo <= hi <= 10000 and n >= 1");
	*out = (struct predict_calib){l, h, (int)k};
	return 0;
}

static json_t *strv_encode(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++) {
		json_t *s = json_string(v[i]);
		/* Non-UTF-8 arguments cannot travel in JSON; the decoder on the
		 * other side then reports the array's length mismatch. */
		json_array_append_new(a, s ? s : json_null());
	}
	return a;
}

json_t *codec_submit_encode(const struct submit_req *r)
{
	const struct job *j = &r->job;
	json_t *o = json_object();
	for (size_t i = 0; i < NF(job_fields); i++)
		for (size_t k = 0; k < NF(submit_job_fields); k++)
			if (!strcmp(job_fields[i].name, submit_job_fields[k]))
				encode_field(o, &job_fields[i], j);
	json_object_set_new(o, "req", wire_encode_table(res_fields, NF(res_fields), &j->req));
	json_object_set_new(o, "deps", deps_encode(j));
	if (r->script) {
		json_object_set_new(o, "script", json_string(r->script));
		if (r->argv && r->argv[0])
			json_object_set_new(o, "args", strv_encode(r->argv));
	} else
		json_object_set_new(o, "argv", strv_encode(r->argv));
	if (r->cwd)
		json_object_set_new(o, "cwd", json_string(r->cwd));
	json_object_set_new(o, "env", strv_encode(r->env));
	if (r->array)
		json_object_set_new(o, "array", json_string(r->array));
	if (r->output)
		json_object_set_new(o, "output", json_string(r->output));
	if (r->error)
		json_object_set_new(o, "error", json_string(r->error));
	if (r->notify_webhook)
		json_object_set_new(o, "notify_webhook", json_string(r->notify_webhook));
	if (r->notify_command)
		json_object_set_new(o, "notify_command", json_string(r->notify_command));
	return o;
}

static const struct field window_stop_fields[] = {
    FLD(window_stop, queue, F_STR),	FLD(window_stop, tz_offset, F_INT),
    FLD(window_stop, now, F_I64),	FLD(window_stop, start, F_I64),
    FLD(window_stop, stop, F_I64),	FLD(window_stop, end, F_I64),
    FLD(window_stop, limit_end, F_I64), FLD(window_stop, expected, F_BOOL),
};

json_t *codec_window_stop_encode(const struct window_stop *w)
{
	json_t *o = wire_encode_table(window_stop_fields, NF(window_stop_fields), w);
	char win[16];
	json_object_set_new(o, "action", json_string(window_action_name(w->action)));
	json_object_set_new(o, "window", json_string(window_format(&w->window, win, sizeof(win))));
	return o;
}

int codec_window_stop_decode(const json_t *v, struct window_stop *out, struct gq_err *e)
{
	static const char *const extra[] = {"action", "window", NULL};
	struct window_stop w;
	memset(&w, 0, sizeof(w));
	if (wire_decode_table(v, window_stop_fields, NF(window_stop_fields), &w, "window", extra,
			      e) < 0)
		return -1;
	const json_t *a = json_object_get(v, "action"), *win = json_object_get(v, "window");
	if (!json_is_string(a) ||
	    (strcmp(json_string_value(a), "requeue") && strcmp(json_string_value(a), "finish")))
		return wire_type_error(e, "window.action", "\"requeue\" or \"finish\"", a);
	w.action = strcmp(json_string_value(a), "finish") ? WINDOW_REQUEUE : WINDOW_FINISH;
	if (!json_is_string(win))
		return wire_type_error(e, "window.window", "a string", win);
	struct gq_err we = GQ_ERR_INIT;
	if (window_parse(json_string_value(win), &w.window, &we) < 0)
		return err_set(e, GQ_EINVAL, "window.window: %s", we.msg);
	*out = w;
	return 0;
}

json_t *codec_error_encode(const struct gq_err *e)
{
	json_t *msg = json_string(e->msg);
	if (!msg)
		msg = json_string("error message not valid UTF-8");
	return json_pack("{s:{s:s,s:o}}", "error", "code", err_code_name(e->code), "message", msg);
}

char *codec_dump(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!s)
		oom(0);
	return s;
}

/* ---- decoding ---- */

int codec_parse(const char *text, size_t len, json_t **out, struct gq_err *e)
{
	json_error_t je;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (!v) {
		if (len == 0)
			return err_set(e, GQ_EINVAL, "malformed JSON: the body is empty");
		return err_set(e, GQ_EINVAL, "malformed JSON at line %d, column %d: %s", je.line,
			       je.column, je.text);
	}
	*out = v;
	return 0;
}

int wire_decode_field(const json_t *v, const struct field *f, void *base, const char *path,
		      struct gq_err *e)
{
	char *p = (char *)base + f->off;
	switch (f->type) {
	case F_I64:
	case F_TIME:
	case F_INT:
	case F_U32: {
		if (!json_is_integer(v))
			return wire_type_error(e, path, "an integer", v);
		json_int_t x = json_integer_value(v);
		if (f->type == F_TIME && (x < 0 || x > GQ_TIME_MAX)) {
			return err_set(e, GQ_EINVAL, "%s: %lld is not a time gq keeps (0..%lld)",
				       path, x, (long long)GQ_TIME_MAX);
		} else if (f->type == F_I64 || f->type == F_TIME) {
			*(int64_t *)p = x;
		} else if (f->type == F_INT) {
			if (x < INT_MIN || x > INT_MAX)
				return err_set(e, GQ_EINVAL, "%s: %lld is out of range", path, x);
			*(int *)p = (int)x;
		} else {
			if (x < 0 || x > UINT32_MAX)
				return err_set(e, GQ_EINVAL, "%s: %lld is out of range", path, x);
			*(uint32_t *)p = (uint32_t)x;
		}
		return 0;
	}
	case F_BOOL:
		if (!json_is_boolean(v))
			return wire_type_error(e, path, "true or false", v);
		*(bool *)p = json_is_true(v);
		return 0;
	case F_DBL:
		if (!json_is_number(v))
			return wire_type_error(e, path, "a number", v);
		*(double *)p = json_number_value(v);
		return 0;
	case F_STR: {
		if (!json_is_string(v))
			return wire_type_error(e, path, "a string", v);
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		if (n != strlen(s))
			return err_set(e, GQ_EINVAL, "%s: contains a NUL character", path);
		if (n >= f->size)
			return err_set(e, GQ_EINVAL, "%s: longer than %zu characters", path,
				       f->size - 1);
		memcpy(p, s, n + 1);
		return 0;
	}
	case F_TIER: {
		if (!json_is_string(v))
			return wire_type_error(e, path, "a tier name (P0, P1, P2)", v);
		enum tier t;
		if (tier_parse(json_string_value(v), &t, NULL) < 0)
			return err_set(e, GQ_EINVAL, "%s: unknown tier '%s'; use P0, P1 or P2",
				       path, json_string_value(v));
		*(enum tier *)p = t;
		return 0;
	}
	case F_STATE: {
		if (!json_is_string(v))
			return wire_type_error(e, path, "a job state", v);
		enum job_state s;
		if (job_state_parse(json_string_value(v), &s) < 0)
			return err_set(e, GQ_EINVAL, "%s: unknown job state '%s'", path,
				       json_string_value(v));
		*(enum job_state *)p = s;
		return 0;
	}
	}
	BUG("field type %d", (int)f->type);
}

static const struct field *find_field(const struct field *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* Decodes every member of object v through table t into base; members in
 * `extra` (a NULL-terminated list) are skipped for the caller to handle. */
int wire_decode_table(const json_t *v, const struct field *t, size_t n, void *base,
		      const char *what, const char *const *extra, struct gq_err *e)
{
	if (!json_is_object(v))
		return wire_type_error(e, what, "an object", v);
	const char *key;
	json_t *val;
	/* Members mostly come in the table's order (gq writes them so): the
	 * search starts after the last one found, not at the top (a day's
	 * history is thousands of jobs of ~50 members). */
	size_t hint = 0;
	json_object_foreach(wire_mut(v), key, val)
	{
		bool skip = false;
		for (size_t i = 0; extra && extra[i]; i++)
			if (!strcmp(extra[i], key))
				skip = true;
		if (skip)
			continue;
		const struct field *f = NULL;
		for (size_t k = 0; k < n && !f; k++) {
			size_t i = (hint + k) % n;
			if (!strcmp(t[i].name, key)) {
				f = &t[i];
				hint = i + 1;
			}
		}
		if (!f)
			return err_set(e, GQ_EINVAL, "%s: unknown field '%s'", what, key);
		if (wire_decode_field(val, f, base, key, e) < 0) {
			/* Once more for the message with the full path: it
			 * fails the same way (writing nothing), and the path
			 * is not formatted for every field that decodes. */
			char path[160];
			snprintf(path, sizeof(path), "%s.%s", what, key);
			wire_decode_field(val, f, base, path, e);
			return -1;
		}
	}
	return 0;
}

int wire_decode_array(const json_t *v, const struct field *t, size_t nt, size_t elem,
		      const char *what, void **items, size_t *n, struct gq_err *e)
{
	if (!json_is_array(v))
		return wire_type_error(e, what, "an array", v);
	size_t cnt = json_array_size(v);
	char *arr = xcalloc(cnt ? cnt : 1, elem);
	for (size_t i = 0; i < cnt; i++) {
		char path[64];
		snprintf(path, sizeof(path), "%s[%zu]", what, i);
		if (wire_decode_table(json_array_get(v, i), t, nt, arr + i * elem, path, NULL, e) <
		    0) {
			free(arr);
			return -1;
		}
	}
	*items = arr;
	*n = cnt;
	return 0;
}

static int decode_deps(const json_t *v, struct job *j, const char *what, struct gq_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "%s.deps", what);
	if (!json_is_array(v))
		return wire_type_error(e, path, "an array of job ids", v);
	if (json_array_size(v) > GQ_MAX_DEPS)
		return err_set(e, GQ_EINVAL, "%s: at most %d dependencies, got %zu", path,
			       GQ_MAX_DEPS, json_array_size(v));
	size_t i;
	json_t *d;
	json_array_foreach(v, i, d)
	{
		enum dep_kind k = DEP_AFTEROK;
		const json_t *id = d;
		if (json_is_object(d)) {
			const json_t *kv = json_object_get(d, "kind");
			id = json_object_get(d, "id");
			if (json_object_size(d) != 2 || !json_is_string(kv) ||
			    dep_kind_parse(json_string_value(kv), json_string_length(kv), &k) < 0)
				return err_set(e, GQ_EINVAL,
					       "%s[%zu]: expected {\"id\": JOB, \"kind\": "
					       "\"afterok\", \"afterany\" or \"afternotok\"}",
					       path, i);
		}
		if (!json_is_integer(id) || json_integer_value(id) <= 0)
			return err_set(e, GQ_EINVAL,
				       "%s[%zu]: expected a job id (a positive integer)", path, i);
		j->deps[i] = json_integer_value(id);
		j->dep_kind[i] = (uint8_t)k;
	}
	j->ndeps = (int)json_array_size(v);
	return 0;
}

static int decode_alloc_entry(const json_t *a, const char *path, struct job_alloc *out,
			      struct gq_err *e);

static int decode_alloc(const json_t *v, struct job *j, struct gq_err *e)
{
	if (!json_is_array(v))
		return wire_type_error(e, "job.alloc", "an array", v);
	if (json_array_size(v) > GQ_MAX_SPAN)
		return err_set(e, GQ_EINVAL, "job.alloc: at most %d nodes, got %zu", GQ_MAX_SPAN,
			       json_array_size(v));
	size_t n = json_array_size(v), i;
	struct job_alloc *al = xcalloc(n ? n : 1, sizeof(*al));
	json_t *a;
	json_array_foreach(v, i, a)
	{
		char path[64];
		snprintf(path, sizeof(path), "job.alloc[%zu]", i);
		if (decode_alloc_entry(a, path, &al[i], e) < 0) {
			free(al);
			return -1;
		}
	}
	free(j->alloc);
	j->alloc = n ? al : NULL;
	j->nalloc = (int)n;
	if (!n)
		free(al);
	return 0;
}

/* One entry of job.alloc, {"node":N,"gpus":[i,...]}, at path. */
static int decode_alloc_entry(const json_t *a, const char *path, struct job_alloc *out,
			      struct gq_err *e)
{
	if (!json_is_object(a))
		return wire_type_error(e, path, "an object", a);
	json_t *node = NULL, *gpus = NULL;
	const char *key;
	json_t *val;
	json_object_foreach(wire_mut(a), key, val)
	{
		if (!strcmp(key, "node"))
			node = val;
		else if (!strcmp(key, "gpus"))
			gpus = val;
		else
			return err_set(e, GQ_EINVAL, "%s: unknown field '%s'", path, key);
	}
	if (!node || !json_is_integer(node) || json_integer_value(node) < 0 ||
	    json_integer_value(node) > INT_MAX)
		return err_set(e, GQ_EINVAL, "%s.node: expected a node index", path);
	if (!gpus || !json_is_array(gpus))
		return err_set(e, GQ_EINVAL, "%s.gpus: expected an array of GPU indices", path);
	uint64_t mask = 0;
	size_t k;
	json_t *g;
	json_array_foreach(gpus, k, g)
	{
		if (!json_is_integer(g) || json_integer_value(g) < 0 ||
		    json_integer_value(g) >= GQ_MAX_NODE_GPUS)
			return err_set(e, GQ_EINVAL, "%s.gpus[%zu]: expected 0..%d", path, k,
				       GQ_MAX_NODE_GPUS - 1);
		mask |= UINT64_C(1) << json_integer_value(g);
	}
	out->node = (int)json_integer_value(node);
	out->mask = mask;
	return 0;
}

int codec_job_decode(const json_t *v, struct job *out, struct gq_err *e)
{
	static const char *const extra[] = {"req", "override", "alloc", "deps", NULL};
	struct job j;
	job_init(&j);
	if (wire_decode_table(v, job_fields, NF(job_fields), &j, "job", extra, e) < 0)
		return -1;
	json_t *x;
	if ((x = json_object_get(v, "req")) &&
	    wire_decode_table(x, res_fields, NF(res_fields), &j.req, "job.req", NULL, e) < 0)
		return -1;
	if ((x = json_object_get(v, "override")) && !json_is_null(x)) {
		if (wire_decode_table(x, ovr_fields, NF(ovr_fields), &j.ovr, "job.override", NULL,
				      e) < 0)
			return -1;
		j.ovr.set = true;
	}
	if ((x = json_object_get(v, "alloc")) && decode_alloc(x, &j, e) < 0)
		return -1;
	if ((x = json_object_get(v, "deps")) && decode_deps(x, &j, "job", e) < 0) {
		job_release(&j);
		return -1;
	}
	*out = j;
	return 0;
}

int codec_node_decode(const json_t *v, struct node *out, struct gq_err *e)
{
	struct node n;
	memset(&n, 0, sizeof(n));
	n.up = true;
	if (wire_decode_table(v, node_fields, NF(node_fields), &n, "node", NULL, e) < 0)
		return -1;
	if (n.ngpus < 0 || n.ngpus > GQ_MAX_NODE_GPUS)
		return err_set(e, GQ_EINVAL, "node.ngpus: %d is out of range 0..%d", n.ngpus,
			       GQ_MAX_NODE_GPUS);
	*out = n;
	return 0;
}

int codec_event_decode(const json_t *v, struct event *out, struct gq_err *e)
{
	static const char *const extra[] = {"late", NULL};
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	if (wire_decode_table(v, event_fields, NF(event_fields), &ev, "event", extra, e) < 0)
		return -1;
	const json_t *late = json_object_get(v, "late");
	if (late && !json_is_boolean(late))
		return wire_type_error(e, "event.late", "a boolean", late);
	ev.late = json_is_true(late);
	*out = ev;
	return 0;
}

int codec_events_decode(const json_t *arr, struct event **items, size_t *n, struct gq_err *e)
{
	if (!json_is_array(arr))
		return wire_type_error(e, "events", "an array", arr);
	size_t cnt = json_array_size(arr), i;
	struct event *evs = xcalloc(cnt ? cnt : 1, sizeof(*evs));
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		if (codec_event_decode(x, &evs[i], e) < 0) {
			err_prefix(e, "events[%zu]", i);
			free(evs);
			return -1;
		}
	}
	*items = evs;
	*n = cnt;
	return 0;
}

int codec_policy_decode(const json_t *v, struct policy *out, struct gq_err *e)
{
	if (!json_is_object(v))
		return wire_type_error(e, "policy", "an object", v);
	struct policy *p = xmalloc(sizeof(*p));
	policy_defaults(p);
	p->nqueues = 0;
	p->ndepts = 0;
	int rc = -1;
	const char *key;
	json_t *val;
	json_object_foreach(wire_mut(v), key, val)
	{
		if (!strcmp(key, "revision")) {
			if (!json_is_string(val)) {
				wire_type_error(e, "policy.revision", "a string", val);
				goto out;
			}
			if (!STR_COPY(p->revision, json_string_value(val))) {
				err_set(e, GQ_EINVAL, "policy.revision: longer than %zu characters",
					sizeof(p->revision) - 1);
				goto out;
			}
		} else if (!strcmp(key, "keys")) {
			if (!json_is_object(val)) {
				wire_type_error(e, "policy.keys", "an object", val);
				goto out;
			}
			const char *k;
			json_t *kv;
			json_object_foreach(val, k, kv)
			{
				if (!json_is_string(kv)) {
					err_set(e, GQ_EINVAL,
						"policy.keys.%s: expected a string, got %s", k,
						json_kind(kv));
					goto out;
				}
				if (policy_set(p, k, json_string_value(kv), e) < 0) {
					e->code = GQ_EINVAL;
					err_prefix(e, "policy");
					goto out;
				}
			}
		} else {
			err_set(e, GQ_EINVAL, "policy: unknown field '%s'", key);
			goto out;
		}
	}
	if (p->nqueues == 0 || p->ndepts == 0) {
		/* A policy without keys means the defaults. */
		char rev[sizeof(p->revision)];
		memcpy(rev, p->revision, sizeof(rev));
		policy_defaults(p);
		memcpy(p->revision, rev, sizeof(rev));
	}
	if (policy_validate(p, e) < 0) {
		e->code = GQ_EINVAL;
		err_prefix(e, "policy");
		goto out;
	}
	*out = *p;
	rc = 0;
out:
	free(p);
	return rc;
}

static int decode_states(const json_t *arr, const char *what, struct snapshot *s, bool queues,
			 struct gq_err *e)
{
	if (!json_is_array(arr))
		return wire_type_error(e, what, "an array", arr);
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		char path[64];
		snprintf(path, sizeof(path), "%s[%zu]", what, i);
		json_t *name = json_is_object(x) ? json_object_get(x, "name") : NULL;
		if (!name || !json_is_string(name))
			return err_set(e, GQ_EINVAL, "%s.name: expected a string", path);
		const char *nm = json_string_value(name);
		int idx =
		    queues ? policy_queue_index(&s->policy, nm) : policy_dept_index(&s->policy, nm);
		if (idx < 0)
			return err_set(e, GQ_EINVAL, "%s: '%s' is not in the policy", path, nm);
		static const char *const extra[] = {"name", NULL};
		if (queues ? wire_decode_table(x, qstate_fields, NF(qstate_fields), &s->qstate[idx],
					       path, extra, e)
			   : wire_decode_table(x, dstate_fields, NF(dstate_fields), &s->dstate[idx],
					       path, extra, e))
			return -1;
	}
	return 0;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Asks the kernel to back the whole huge pages inside p[0..len) with huge
 * pages (a hint: nothing happens where it is not supported). */
static void advise_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t b = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

/* "job_columns": known names, each once, "id" first. */
static int decode_columns(const json_t *v, struct column *out, size_t *n, struct gq_err *e)
{
	const char *path = "snapshot.job_columns";
	if (!json_is_array(v))
		return wire_type_error(e, path, "an array of column names", v);
	struct column all[MAX_COLUMNS];
	size_t nall = all_columns(all), i;
	bool seen[MAX_COLUMNS] = {false};
	json_t *c;
	if (json_array_size(v) > nall)
		return err_set(e, GQ_EINVAL, "%s: more than %zu columns", path, nall);
	json_array_foreach(wire_mut(v), i, c)
	{
		if (!json_is_string(c))
			return err_set(e, GQ_EINVAL, "%s[%zu]: expected a column name", path, i);
		size_t k = 0;
		char name[48];
		for (; k < nall; k++) {
			column_name(&all[k], name, sizeof(name));
			if (!strcmp(name, json_string_value(c)))
				break;
		}
		if (k == nall)
			return err_set(e, GQ_EINVAL, "%s[%zu]: unknown column '%s'", path, i,
				       json_string_value(c));
		if (seen[k])
			return err_set(e, GQ_EINVAL, "%s[%zu]: column '%s' given twice", path, i,
				       json_string_value(c));
		seen[k] = true;
		out[i] = all[k];
	}
	if (!seen[0])
		return err_set(e, GQ_EINVAL, "%s: no \"id\" column", path);
	if (out[0].f != &job_fields[0])
		return err_set(e, GQ_EINVAL, "%s: \"id\" must be the first column", path);
	*n = json_array_size(v);
	return 0;
}

/* One cell into j; errors name the cell by path (alloc and deps by their
 * own "job.alloc", "job.deps"). A cell of a string column may be an index
 * into strings (the "job_strings" array). */
static int decode_cell(const json_t *v, const struct column *c, const json_t *strings,
		       int64_t time_base, struct job *j, const char *path, struct gq_err *e)
{
	switch (c->kind) {
	case COL_JOB:
		if (c->f->type == F_TIME) {
			int64_t *t = (int64_t *)((char *)j + c->f->off);
			if (!json_is_integer(v))
				return wire_type_error(e, path, "an integer", v);
			if (__builtin_add_overflow((int64_t)json_integer_value(v), time_base, t) ||
			    *t < 0 || *t > GQ_TIME_MAX)
				return err_set(e, GQ_EINVAL,
					       "%s: %lld from the time base is out of range", path,
					       (long long)json_integer_value(v));
			return 0;
		}
		/* fall through */
	case COL_REQ:
		if ((c->f->type == F_STR || c->f->type == F_TIER || c->f->type == F_STATE) &&
		    json_is_integer(v)) {
			json_int_t k = json_integer_value(v);
			const json_t *sv = k >= 0 ? json_array_get(strings, (size_t)k) : NULL;
			if (!sv)
				return err_set(e, GQ_EINVAL,
					       "%s: string %lld is not in job_strings", path,
					       (long long)k);
			v = sv;
		}
		return wire_decode_field(v, c->f, c->kind == COL_JOB ? (void *)j : (void *)&j->req,
					 path, e);
	case COL_OVERRIDE:
		if (wire_decode_table(v, ovr_fields, NF(ovr_fields), &j->ovr, path, NULL, e) < 0)
			return -1;
		j->ovr.set = true;
		return 0;
	case COL_ALLOC:
		return decode_alloc(v, j, e);
	case COL_DEPS:
		return decode_deps(v, j, "job", e);
	}
	BUG("column kind %d", (int)c->kind);
}

/* Job i of the rows form: a cell per column, null for the default, the
 * nulls at the end left out. */
static int decode_row(const json_t *v, const struct column *cols, size_t n, const json_t *strings,
		      int64_t time_base, struct job *j, size_t i, struct gq_err *e)
{
	if (!json_is_array(v))
		return err_set(e, GQ_EINVAL,
			       "snapshot.jobs[%zu]: expected an array of cells, got %s", i,
			       json_kind(v));
	size_t m = json_array_size(v);
	if (m < 1 || m > n)
		return err_set(e, GQ_EINVAL, "snapshot.jobs[%zu]: expected 1 to %zu cells, got %zu",
			       i, n, m);
	if (json_is_null(json_array_get(v, 0)))
		return err_set(e, GQ_EINVAL, "snapshot.jobs[%zu].id: expected an integer, got null",
			       i);
	for (size_t k = 0; k < m; k++) {
		const json_t *x = json_array_get(v, k);
		if (json_is_null(x) || decode_cell(x, &cols[k], strings, time_base, j, "", e) == 0)
			continue;
		/* Once more for the message with the full path, which is
		 * not formatted for every cell that decodes. */
		if (cols[k].kind == COL_ALLOC || cols[k].kind == COL_DEPS) {
			err_prefix(e, "snapshot.jobs[%zu]", i);
		} else {
			char name[48], path[96];
			column_name(&cols[k], name, sizeof(name));
			snprintf(path, sizeof(path), "snapshot.jobs[%zu].%s", i, name);
			decode_cell(x, &cols[k], strings, time_base, j, path, e);
		}
		return -1;
	}
	return 0;
}

int codec_snapshot_decode(const json_t *v, struct snapshot *out, struct gq_err *e)
{
	if (!json_is_object(v))
		return wire_type_error(e, "snapshot", "an object", v);
	snapshot_release(out);
	snapshot_init(out);
	json_t *x;
	/* The policy first: queue and department states refer to it. The
	 * columns before the jobs in the rows form. */
	if ((x = json_object_get(v, "policy")) && codec_policy_decode(x, &out->policy, e) < 0)
		goto fail;
	struct column cols[MAX_COLUMNS];
	size_t ncols = 0;
	if ((x = json_object_get(v, "job_columns")) && decode_columns(x, cols, &ncols, e) < 0)
		goto fail;
	const json_t *strings = json_object_get(v, "job_strings");
	if (strings && !ncols) {
		err_set(e, GQ_EINVAL, "snapshot.job_strings: only with job_columns");
		goto fail;
	}
	if (strings && !json_is_array(strings)) {
		wire_type_error(e, "snapshot.job_strings", "an array of strings", strings);
		goto fail;
	}
	int64_t time_base = 0;
	if ((x = json_object_get(v, "job_time_base"))) {
		if (!ncols) {
			err_set(e, GQ_EINVAL, "snapshot.job_time_base: only with job_columns");
			goto fail;
		}
		if (!json_is_integer(x)) {
			wire_type_error(e, "snapshot.job_time_base", "an integer", x);
			goto fail;
		}
		time_base = json_integer_value(x);
	}
	for (size_t k = 0; strings && k < json_array_size(strings); k++)
		if (!json_is_string(json_array_get(strings, k))) {
			err_set(e, GQ_EINVAL,
				"snapshot.job_strings[%zu]: expected a string, got %s", k,
				json_kind(json_array_get(strings, k)));
			goto fail;
		}
	const char *key;
	json_t *val;
	json_object_foreach(wire_mut(v), key, val)
	{
		if (!strcmp(key, "now")) {
			if (!json_is_integer(val)) {
				wire_type_error(e, "snapshot.now", "an integer", val);
				goto fail;
			}
			out->now = json_integer_value(val);
		} else if (!strcmp(key, "tz_offset")) {
			if (!json_is_integer(val) || json_integer_value(val) < -86400 ||
			    json_integer_value(val) > 86400) {
				err_set(e, GQ_EINVAL,
					"snapshot.tz_offset: expected seconds east of UTC");
				goto fail;
			}
			out->tz_offset = (int32_t)json_integer_value(val);
		} else if (!strcmp(key, "policy")) {
			continue;
		} else if (!strcmp(key, "job_columns") || !strcmp(key, "job_strings") ||
			   !strcmp(key, "job_time_base")) {
			continue;
		} else if (!strcmp(key, "jobs")) {
			if (!json_is_array(val)) {
				wire_type_error(e, "snapshot.jobs", "an array", val);
				goto fail;
			}
			size_t i;
			json_t *jv;
			/* Sized once, and in huge pages where it can be: 10,000
			 * jobs are 9 MB of fresh memory. */
			GROW(out->jobs, out->jobs_cap, out->njobs + json_array_size(val));
			advise_huge(out->jobs, out->jobs_cap * sizeof(*out->jobs));
			json_array_foreach(val, i, jv)
			{
				struct job *j = snapshot_add_job(out);
				if (ncols ? decode_row(jv, cols, ncols, strings, time_base, j, i,
						       e) < 0
					  : codec_job_decode(jv, j, e) < 0) {
					if (!ncols)
						err_prefix(e, "snapshot.jobs[%zu]", i);
					goto fail;
				}
			}
		} else if (!strcmp(key, "nodes")) {
			if (!json_is_array(val)) {
				wire_type_error(e, "snapshot.nodes", "an array", val);
				goto fail;
			}
			size_t i;
			json_t *nv;
			json_array_foreach(val, i, nv)
			{
				if (codec_node_decode(nv, snapshot_add_node(out), e) < 0) {
					err_prefix(e, "snapshot.nodes[%zu]", i);
					goto fail;
				}
			}
		} else if (!strcmp(key, "reservations")) {
			if (!json_is_array(val)) {
				wire_type_error(e, "snapshot.reservations", "an array", val);
				goto fail;
			}
			size_t i;
			json_t *rv;
			json_array_foreach(val, i, rv)
			{
				if (wire_decode_table(rv, resv_fields, NF(resv_fields),
						      snapshot_add_resv(out), "reservation", NULL,
						      e) < 0) {
					err_prefix(e, "snapshot.reservations[%zu]", i);
					goto fail;
				}
			}
		} else if (!strcmp(key, "queues")) {
			if (decode_states(val, "snapshot.queues", out, true, e) < 0)
				goto fail;
		} else if (!strcmp(key, "depts")) {
			if (decode_states(val, "snapshot.depts", out, false, e) < 0)
				goto fail;
		} else if (!strcmp(key, "calib")) {
			if (decode_calib(val, &out->calib, e) < 0)
				goto fail;
		} else if (!strcmp(key, "order")) {
			if (!json_is_string(val) || (strcmp(json_string_value(val), "backend") &&
						     strcmp(json_string_value(val), "gq"))) {
				err_set(e, GQ_EINVAL,
					"snapshot.order: expected \"gq\" or \"backend\"");
				goto fail;
			}
			out->order =
			    strcmp(json_string_value(val), "backend") ? ORDER_GQ : ORDER_BACKEND;
		} else {
			err_set(e, GQ_EINVAL, "snapshot: unknown field '%s'", key);
			goto fail;
		}
	}
	/* The rows form writes a job's times as distances from now: what one
	 * form decodes, the other must be able to carry. */
	for (size_t i = 0; i < out->njobs; i++)
		for (size_t k = 0; k < NF(job_fields); k++) {
			const struct field *f = &job_fields[k];
			if (f->type != F_TIME)
				continue;
			int64_t t = *(const int64_t *)((const char *)&out->jobs[i] + f->off), d;
			if (__builtin_sub_overflow(t, out->now, &d)) {
				err_set(e, GQ_EINVAL,
					"snapshot.jobs[%zu].%s: %lld is out of range of "
					"now (%lld)",
					i, f->name, (long long)t, (long long)out->now);
				goto fail;
			}
		}
	snapshot_sort(out);
	/* Derived, never sent: marked from the usage and policy sent, as gq
	 * serve marks its own copy (sched_prepare). */
	snapshot_mark_over_quota(out);
	return 0;
fail:
	snapshot_release(out);
	return -1;
}

/*
 * A bump arena for jansson's allocations while one thread parses and
 * decodes a large answer (codec_snapshot_parse): the tree of a 10,000-job
 * snapshot is ~300,000 small blocks, and malloc'ing, freeing and then
 * consolidating them cost the client more than its prediction. jansson's
 * allocator is process-wide, so ours serves the thread that has an arena
 * active from it and everyone else (other threads, and this one outside
 * codec_snapshot_parse) from malloc/free; a free of an arena block is a
 * no-op and the arena is dropped whole. Its chunks are mappings of whole
 * huge pages, advised as such: the tree's ~20 MB fault in a few times
 * instead of 5,000 (a fault of a fresh page was ~4 us here, a fifth of
 * gq ls's time).
 */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap, map; /* map: bytes of the mapping the chunk heads */
	max_align_t data[];
};

/* A chunk of at least `need` data bytes, aligned to a huge page; NULL when
 * out of memory. */
static struct arena_chunk *chunk_map(size_t need)
{
	size_t map = (sizeof(struct arena_chunk) + need + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	char *raw =
	    mmap(NULL, map + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t at = ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	char *start = (char *)at;
	if (start > raw)
		munmap(raw, (size_t)(start - raw));
	size_t tail = (size_t)(raw + map + HUGE_PAGE - (start + map));
	if (tail)
		munmap(start + map, tail);
	advise_huge(start, map);
	struct arena_chunk *c = (struct arena_chunk *)start;
	c->next = NULL;
	c->used = 0;
	c->map = map;
	c->cap = map - sizeof(*c);
	return c;
}

#define ARENA_CHUNK (HUGE_PAGE - sizeof(struct arena_chunk))

static __thread struct codec_arena *cur_arena;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static bool arena_owns(const struct codec_arena *a, const void *p)
{
	for (const struct arena_chunk *c = a->head; c; c = c->next) {
		const char *d = (const char *)c->data;
		if ((const char *)p >= d && (const char *)p < d + c->cap)
			return true;
	}
	return false;
}

static void *arena_malloc(size_t n)
{
	struct codec_arena *a = cur_arena;
	if (!a)
		return malloc(n);
	size_t al = sizeof(max_align_t);
	n = (n + al - 1) / al * al;
	struct arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		bool big = n > ARENA_CHUNK / 4;
		struct arena_chunk *nc = chunk_map(big ? n : ARENA_CHUNK);
		if (!nc)
			return NULL;
		if (c && big) {
			/* a big block: behind the current chunk, which stays open */
			nc->next = c->next;
			c->next = nc;
			nc->used = n;
			return nc->data;
		}
		nc->next = c;
		a->head = c = nc;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free(void *p)
{
	if (p && cur_arena && arena_owns(cur_arena, p))
		return;
	free(p);
}

static void arena_install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

void codec_arena_begin(struct codec_arena *a)
{
	pthread_once(&arena_once, arena_install);
	a->head = NULL;
	cur_arena = a;
}

void codec_arena_end(struct codec_arena *a)
{
	cur_arena = NULL;
	while (a->head) {
		struct arena_chunk *c = a->head;
		a->head = c->next;
		munmap(c, c->map);
	}
}

void codec_arena_reset(struct codec_arena *a)
{
	struct arena_chunk *keep = NULL;
	while (a->head) {
		struct arena_chunk *c = a->head;
		a->head = c->next;
		if (!keep && c->cap == ARENA_CHUNK)
			keep = c;
		else
			munmap(c, c->map);
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	a->head = keep;
}

int codec_snapshot_parse(const char *text, size_t len, struct snapshot *out, struct gq_err *e)
{
	struct codec_arena a;
	codec_arena_begin(&a);
	json_t *v = NULL;
	int rc = codec_parse(text, len, &v, e);
	if (rc == 0)
		rc = codec_snapshot_decode(v, out, e);
	/* Every block of the tree is the arena's (errors are text in e): no
	 * json_decref, the tree goes with the arena. */
	(void)v;
	codec_arena_end(&a);
	return rc;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void submission_release(struct submission *s)
{
	strv_free(s->argv);
	strv_free(s->env);
	free(s->cwd);
	free(s->script);
	free(s->array);
	free(s->output);
	free(s->error);
	free(s->notify_webhook);
	free(s->notify_command);
	s->argv = s->env = NULL;
	s->cwd = s->script = s->array = s->output = s->error = NULL;
	s->notify_webhook = s->notify_command = NULL;
}

#define MAX_STRV 4096

static int strv_decode(const json_t *v, const char *path, bool env, char ***out, struct gq_err *e)
{
	if (!json_is_array(v))
		return wire_type_error(e, path, "an array of strings", v);
	size_t n = json_array_size(v), i;
	if (n > MAX_STRV)
		return err_set(e, GQ_ETOOBIG, "%s: more than %d entries", path, MAX_STRV);
	char **a = xcalloc(n + 1, sizeof(*a));
	json_t *x;
	json_array_foreach(v, i, x)
	{
		if (!json_is_string(x) || strlen(json_string_value(x)) != json_string_length(x)) {
			strv_free(a);
			return err_set(e, GQ_EINVAL, "%s[%zu]: expected a string without NUL", path,
				       i);
		}
		const char *s = json_string_value(x);
		if (env && (!strchr(s, '=') || s[0] == '=')) {
			strv_free(a);
			return err_set(e, GQ_EINVAL, "%s[%zu]: '%s' is not of the form NAME=VALUE",
				       path, i, s);
		}
		a[i] = xstrdup(s);
	}
	*out = a;
	return 0;
}

static int str_decode(const json_t *v, const char *path, char **out, struct gq_err *e)
{
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return wire_type_error(e, path, "a string without NUL", v);
	*out = xstrdup(json_string_value(v));
	return 0;
}

int codec_submit_decode(const json_t *v, struct submission *out, struct gq_err *e)
{
	if (!json_is_object(v))
		return wire_type_error(e, "submission", "an object", v);
	struct submission s;
	memset(&s, 0, sizeof(s));
	job_init(&s.job);
	const char *key;
	json_t *val;
	bool has_argv = false, has_args = false;
	json_object_foreach(wire_mut(v), key, val)
	{
		char path[96];
		snprintf(path, sizeof(path), "submission.%s", key);
		const struct field *f = NULL;
		for (size_t k = 0; k < NF(submit_job_fields); k++)
			if (!strcmp(key, submit_job_fields[k]))
				f = find_field(job_fields, NF(job_fields), key);
		int rc;
		if (f)
			rc = wire_decode_field(val, f, &s.job, path, e);
		else if (!strcmp(key, "req"))
			rc = wire_decode_table(val, res_fields, NF(res_fields), &s.job.req, path,
					       NULL, e);
		else if (!strcmp(key, "deps"))
			rc = decode_deps(val, &s.job, "submission", e);
		else if (!strcmp(key, "argv") || !strcmp(key, "args")) {
			/* "args": a script's arguments, kept where argv goes. */
			if (has_argv || has_args) {
				err_set(e, GQ_EINVAL, "submission: give either 'argv' or 'args'");
				goto fail;
			}
			*(key[3] == 's' ? &has_args : &has_argv) = true;
			rc = strv_decode(val, path, false, &s.argv, e);
		} else if (!strcmp(key, "env"))
			rc = strv_decode(val, path, true, &s.env, e);
		else if (!strcmp(key, "cwd"))
			rc = str_decode(val, path, &s.cwd, e);
		else if (!strcmp(key, "script"))
			rc = str_decode(val, path, &s.script, e);
		else if (!strcmp(key, "array"))
			rc = str_decode(val, path, &s.array, e);
		else if (!strcmp(key, "output"))
			rc = str_decode(val, path, &s.output, e);
		else if (!strcmp(key, "error"))
			rc = str_decode(val, path, &s.error, e);
		else if (!strcmp(key, "notify_webhook"))
			rc = str_decode(val, path, &s.notify_webhook, e);
		else if (!strcmp(key, "notify_command"))
			rc = str_decode(val, path, &s.notify_command, e);
		else
			rc = err_set(e, GQ_EINVAL, "submission: unknown field '%s'", key);
		if (rc < 0)
			goto fail;
	}
	if (has_argv && s.script) {
		err_set(e, GQ_EINVAL, "submission: give either 'argv' or 'script', not both");
		goto fail;
	}
	if (has_args && !s.script) {
		err_set(e, GQ_EINVAL, "submission.args: a script's arguments; give 'script' too");
		goto fail;
	}
	if (!s.argv && !s.script) {
		err_set(e, GQ_EINVAL, "submission: nothing to run; give 'argv' or 'script'");
		goto fail;
	}
	if (has_argv && !s.argv[0]) {
		err_set(e, GQ_EINVAL, "submission.argv: empty; give the command to run");
		goto fail;
	}
	if (!s.env)
		s.env = xcalloc(1, sizeof(*s.env));
	*out = s;
	return 0;
fail:
	submission_release(&s);
	return -1;
}

int codec_error_decode(const json_t *v, struct gq_err *out)
{
	json_t *err = json_is_object(v) ? json_object_get(v, "error") : NULL;
	json_t *code = err ? json_object_get(err, "code") : NULL;
	json_t *msg = err ? json_object_get(err, "message") : NULL;
	/* "ok" is no error class: an error answer saying it would make a
	 * failed request exit 0. */
	enum gq_errcode c =
	    json_is_string(code) ? err_code_from_name(json_string_value(code)) : GQ_OK;
	if (c == GQ_OK || !json_is_string(msg))
		return err_set(out, GQ_EINTERNAL, "unexpected answer from the server");
	err_set(out, c, "%s", json_string_value(msg));
	return 0;
}

char *codec_job_text(const struct job *j)
{
	struct buf b;
	buf_init(&b, 0);
	codec_job_write(&b, j);
	return buf_detach(&b);
}

int codec_job_from_text(const char *text, struct job *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, strlen(text), &v, e) < 0)
		return -1;
	int rc = codec_job_decode(v, out, e);
	json_decref(v);
	return rc;
}

/* The command text of argv or script, cwd and env, with the optional
 * fields of sub when it is not NULL. */
static char *command_text(char *const *argv, const char *script, const char *cwd, char *const *env,
			  const struct submission *sub)
{
	json_t *o = json_object();
	static const struct {
		const char *name;
		size_t off;
	} opt[] = {
	    {"output", offsetof(struct submission, output)},
	    {"error", offsetof(struct submission, error)},
	    {"notify_webhook", offsetof(struct submission, notify_webhook)},
	    {"notify_command", offsetof(struct submission, notify_command)},
	};
	for (size_t i = 0; sub && i < NF(opt); i++) {
		const char *v = *(char *const *)((const char *)sub + opt[i].off);
		if (v)
			json_object_set_new(o, opt[i].name, json_string(v));
	}
	if (script) {
		json_object_set_new(o, "script", json_string(script));
		if (argv && argv[0])
			json_object_set_new(o, "args", strv_encode(argv));
	} else
		json_object_set_new(o, "argv", strv_encode(argv));
	if (cwd)
		json_object_set_new(o, "cwd", json_string(cwd));
	json_object_set_new(o, "env", strv_encode(env));
	char *t = codec_dump(o);
	json_decref(o);
	return t;
}

char *codec_command_text(char *const *argv, const char *script, const char *cwd, char *const *env)
{
	return command_text(argv, script, cwd, env, NULL);
}

char *codec_command_text_sub(const struct submission *sub)
{
	return command_text(sub->argv, sub->script, sub->cwd, sub->env, sub);
}

int codec_command_from_text(const char *text, struct submission *out, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, strlen(text), &v, e) < 0)
		return -1;
	int rc = codec_submit_decode(v, out, e);
	json_decref(v);
	return rc;
}

/* ---- fast text ---- */

static void put(struct buf *b, const char *s, size_t n)
{
	if (buf_add(b, s, n) < 0)
		BUG("unbounded buffer refused data");
}

/* A JSON string of s[0..n) as jansson writes it: \" \\ \b \f \n \r \t,
 * other controls as \u00XX, '/' as is; invalid UTF-8 becomes '?'. */
static void put_str(struct buf *b, const char *s, size_t n)
{
	put(b, "\"", 1);
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = 1;
		const char *esc = NULL;
		char tmp[8];
		if (c < 0x80) {
			switch (c) {
			case '"':
				esc = "\\\"";
				break;
			case '\\':
				esc = "\\\\";
				break;
			case '\b':
				esc = "\\b";
				break;
			case '\f':
				esc = "\\f";
				break;
			case '\n':
				esc = "\\n";
				break;
			case '\r':
				esc = "\\r";
				break;
			case '\t':
				esc = "\\t";
				break;
			default:
				if (c < 0x20) {
					snprintf(tmp, sizeof(tmp), "\\u%04X", c);
					esc = tmp;
				}
			}
		} else {
			size_t need = c >= 0xf0 && c < 0xf5   ? 4
				      : c >= 0xe0	      ? 3
				      : c >= 0xc2 && c < 0xe0 ? 2
							      : 0;
			bool ok = need > 0 && i + need <= n;
			for (size_t k = 1; ok && k < need; k++)
				if (((unsigned char)s[i + k] & 0xc0) != 0x80)
					ok = false;
			if (ok)
				len = need;
			else
				esc = "?";
		}
		if (esc) {
			put(b, s + i - run, run);
			run = 0;
			put(b, esc, strlen(esc));
			i += len;
			continue;
		}
		run += len;
		i += len;
	}
	put(b, s + i - run, run);
	put(b, "\"", 1);
}

/* A real as jansson 2.14 writes it: %.17g, with ".0" when it looks like
 * an integer. */
static void put_real(struct buf *b, double v)
{
	if (!isfinite(v)) { /* as encode_field: JSON has no word for it */
		put(b, "null", 4);
		return;
	}
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	if (n > 0 && !strpbrk(tmp, ".eEn")) {
		tmp[n++] = '.';
		tmp[n++] = '0';
		tmp[n] = '\0';
	}
	put(b, tmp, strlen(tmp));
}

static void put_int(struct buf *b, int64_t v)
{
	if (buf_addint(b, v) < 0)
		BUG("unbounded buffer refused data");
}

/* The JSON value of field f of base. */
static void write_value(struct buf *b, const struct field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	switch (f->type) {
	case F_I64:
	case F_TIME:
		put_int(b, *(const int64_t *)p);
		break;
	case F_INT:
		put_int(b, *(const int *)p);
		break;
	case F_U32:
		put_int(b, *(const uint32_t *)p);
		break;
	case F_BOOL:
		if (*(const bool *)p)
			put(b, "true", 4);
		else
			put(b, "false", 5);
		break;
	case F_DBL:
		put_real(b, *(const double *)p);
		break;
	case F_STR:
		put_str(b, p, strnlen(p, f->size));
		break;
	case F_TIER: {
		const char *t = tier_name(*(const enum tier *)p);
		put_str(b, t, strlen(t));
		break;
	}
	case F_STATE: {
		const char *t = job_state_name(*(const enum job_state *)p);
		put_str(b, t, strlen(t));
		break;
	}
	}
}

static void write_field(struct buf *b, const struct field *f, const void *base, bool first)
{
	if (!first)
		put(b, ",", 1);
	put(b, "\"", 1);
	put(b, f->name, strlen(f->name));
	put(b, "\":", 2);
	write_value(b, f, base);
}

static void write_table(struct buf *b, const struct field *t, size_t n, const void *base)
{
	put(b, "{", 1);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (t[i].opt && !((const char *)base + t[i].off)[0])
			continue;
		write_field(b, &t[i], base, first);
		first = false;
	}
	put(b, "}", 1);
}

/* Whether the field f of base holds the same value as in dflt. Typed
 * compares: a call to memcmp per field was a third of a 10,000-job
 * snapshot's time. */
static bool field_is_default(const struct field *f, const void *base, const void *dflt)
{
	const char *p = (const char *)base + f->off, *d = (const char *)dflt + f->off;
	switch (f->type) {
	case F_I64:
	case F_TIME:
		return *(const int64_t *)p == *(const int64_t *)d;
	case F_INT:
		return *(const int *)p == *(const int *)d;
	case F_U32:
		return *(const uint32_t *)p == *(const uint32_t *)d;
	case F_BOOL:
		return *(const bool *)p == *(const bool *)d;
	case F_DBL:
		return memcmp(p, d, sizeof(double)) == 0;
	case F_STR:
		return p[0] == d[0] && (!p[0] || strncmp(p, d, f->size) == 0);
	case F_TIER:
		return *(const enum tier *)p == *(const enum tier *)d;
	case F_STATE:
		return *(const enum job_state *)p == *(const enum job_state *)d;
	}
	BUG("field type %d", (int)f->type);
}

/* The fields of base that differ from dflt, as members of an object (first:
 * none written before them); returns how many it wrote. */
static size_t write_lean(struct buf *b, const struct field *t, size_t n, const void *base,
			 const void *dflt, bool first)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!field_is_default(&t[i], base, dflt)) {
			write_field(b, &t[i], base, first && k == 0);
			k++;
		}
	return k;
}

/* [{"node":N,"gpus":[i,...]},...] */
static void write_alloc(struct buf *b, const struct job *j)
{
	char tmp[48];
	put(b, "[", 1);
	for (int i = 0; i < j->nalloc; i++) {
		snprintf(tmp, sizeof(tmp), "%s{\"node\":%d,\"gpus\":[", i ? "," : "",
			 j->alloc[i].node);
		put(b, tmp, strlen(tmp));
		bool first = true;
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++)
			if (j->alloc[i].mask & (UINT64_C(1) << g)) {
				snprintf(tmp, sizeof(tmp), "%s%d", first ? "" : ",", g);
				put(b, tmp, strlen(tmp));
				first = false;
			}
		put(b, "]}", 2);
	}
	put(b, "]", 1);
}

/* [id,...], deps_encode's text. */
static void write_deps(struct buf *b, const struct job *j)
{
	char tmp[64];
	put(b, "[", 1);
	for (int i = 0; i < j->ndeps && i < GQ_MAX_DEPS; i++) {
		enum dep_kind k = dep_kind_of(j, i);
		if (k == DEP_AFTEROK)
			snprintf(tmp, sizeof(tmp), "%s%lld", i ? "," : "", (long long)j->deps[i]);
		else
			snprintf(tmp, sizeof(tmp), "%s{\"id\":%lld,\"kind\":\"%s\"}", i ? "," : "",
				 (long long)j->deps[i], dep_kind_name(k));
		put(b, tmp, strlen(tmp));
	}
	put(b, "]", 1);
}

void codec_job_write(struct buf *b, const struct job *j)
{
	write_table(b, job_fields, NF(job_fields), j);
	b->len--; /* reopen the object */
	put(b, ",\"req\":", 7);
	write_table(b, res_fields, NF(res_fields), &j->req);
	put(b, ",\"override\":", 12);
	if (j->ovr.set)
		write_table(b, ovr_fields, NF(ovr_fields), &j->ovr);
	else
		put(b, "null", 4);
	put(b, ",\"alloc\":", 9);
	write_alloc(b, j);
	put(b, ",\"deps\":", 8);
	write_deps(b, j);
	put(b, "}", 1);
}

void codec_job_write_lean(struct buf *b, const struct job *j)
{
	struct job d;
	job_init(&d);
	put(b, "{", 1);
	/* The id always, so that no job is ever "{}". */
	write_field(b, &job_fields[0], j, true);
	write_lean(b, job_fields + 1, NF(job_fields) - 1, j, &d, false);
	bool req_default = true;
	for (size_t i = 0; i < NF(res_fields); i++)
		req_default = req_default && field_is_default(&res_fields[i], &j->req, &d.req);
	if (!req_default) {
		put(b, ",\"req\":{", 8);
		write_lean(b, res_fields, NF(res_fields), &j->req, &d.req, true);
		put(b, "}", 1);
	}
	if (j->ovr.set) {
		put(b, ",\"override\":", 12);
		write_table(b, ovr_fields, NF(ovr_fields), &j->ovr);
	}
	if (j->nalloc > 0) {
		put(b, ",\"alloc\":", 9);
		write_alloc(b, j);
	}
	if (j->ndeps > 0) {
		put(b, ",\"deps\":", 8);
		write_deps(b, j);
	}
	put(b, "}", 1);
}

char *codec_jobs_text(const struct job *jobs, size_t n, bool lean, size_t *len)
{
	struct buf b;
	buf_init(&b, 0);
	put(&b, "{\"jobs\":[", 9);
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(&b, ",", 1);
		(lean ? codec_job_write_lean : codec_job_write)(&b, &jobs[i]);
	}
	put(&b, "]}", 2);
	*len = b.len;
	return buf_detach(&b);
}

static bool cell_is_default(const struct column *c, const struct job *j, const struct job *d)
{
	switch (c->kind) {
	case COL_JOB:
		return field_is_default(c->f, j, d);
	case COL_REQ:
		return field_is_default(c->f, &j->req, &d->req);
	case COL_OVERRIDE:
		return !j->ovr.set;
	case COL_ALLOC:
		return j->nalloc <= 0;
	case COL_DEPS:
		return j->ndeps <= 0;
	}
	BUG("column kind %d", (int)c->kind);
}

/* A cell; a time as its distance from time_base. */
static void write_cell(struct buf *b, const struct column *c, const struct job *j,
		       int64_t time_base)
{
	switch (c->kind) {
	case COL_JOB:
		if (c->f->type == F_TIME)
			put_int(b, *(const int64_t *)((const char *)j + c->f->off) - time_base);
		else
			write_value(b, c->f, j);
		break;
	case COL_REQ:
		write_value(b, c->f, &j->req);
		break;
	case COL_OVERRIDE:
		write_table(b, ovr_fields, NF(ovr_fields), &j->ovr);
		break;
	case COL_ALLOC:
		write_alloc(b, j);
		break;
	case COL_DEPS:
		write_deps(b, j);
		break;
	}
}

/* The text of a cell that holds a string (a name, a tier, a state), or
 * NULL for any other cell. */
static const char *cell_string(const struct column *c, const struct job *j)
{
	if (c->kind != COL_JOB && c->kind != COL_REQ)
		return NULL;
	const char *p = (c->kind == COL_JOB ? (const char *)j : (const char *)&j->req) + c->f->off;
	switch (c->f->type) {
	case F_STR:
		return p;
	case F_TIER:
		return tier_name(*(const enum tier *)p);
	case F_STATE:
		return job_state_name(*(const enum job_state *)p);
	default:
		return NULL;
	}
}

/* The distinct strings of the rows, each given its index on first use:
 * a jansson object from string to index, and the last string looked up
 * per column (a column mostly repeats the row above). */
struct strings {
	json_t *index;
	size_t n;
	struct buf text; /* "s0","s1",... */
	const char *last[MAX_COLUMNS];
	size_t last_i[MAX_COLUMNS];
};

static size_t string_index(struct strings *st, size_t col, const char *s)
{
	if (st->last[col] && !strcmp(st->last[col], s))
		return st->last_i[col];
	json_t *v = json_object_get(st->index, s);
	size_t i;
	if (v) {
		i = (size_t)json_integer_value(v);
	} else {
		i = st->n++;
		json_object_set_new_nocheck(st->index, s, json_integer((json_int_t)i));
		if (i)
			put(&st->text, ",", 1);
		put_str(&st->text, s, strlen(s));
	}
	st->last[col] = s;
	st->last_i[col] = i;
	return i;
}

/* "job_columns":[...],"job_strings":[...],"job_time_base":T,
 * "jobs":[[...],...] */
static void write_rows(struct buf *b, const struct job *jobs, size_t n, int64_t time_base)
{
	struct column all[MAX_COLUMNS], use[MAX_COLUMNS];
	size_t nall = all_columns(all), nuse = 0;
	struct job d;
	job_init(&d);
	/* Columns in use, the most filled first (after "id"), so that the
	 * nulls of a row gather at its end, where they are left out. */
	size_t count[MAX_COLUMNS] = {n};
	for (size_t i = 0; i < n; i++)
		for (size_t k = 1; k < nall; k++)
			count[k] += !cell_is_default(&all[k], &jobs[i], &d);
	size_t order[MAX_COLUMNS], norder = 0;
	for (size_t k = 1; k < nall; k++) {
		if (!count[k])
			continue;
		size_t at = norder++;
		while (at > 0 && count[order[at - 1]] < count[k]) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = k;
	}
	use[nuse++] = all[0];
	for (size_t i = 0; i < norder; i++)
		use[nuse++] = all[order[i]];
	struct strings st = {.index = json_object()};
	buf_init(&st.text, 0);
	struct buf rows;
	buf_init(&rows, 0);
	for (size_t i = 0; i < n; i++) {
		put(&rows, i ? ",[" : "[", i ? 2 : 1);
		size_t end = nuse;
		while (end > 1 && cell_is_default(&use[end - 1], &jobs[i], &d))
			end--;
		for (size_t k = 0; k < end; k++) {
			if (k)
				put(&rows, ",", 1);
			const char *str;
			if (k && cell_is_default(&use[k], &jobs[i], &d))
				put(&rows, "null", 4);
			else if ((str = cell_string(&use[k], &jobs[i])) != NULL)
				put_int(&rows, (int64_t)string_index(&st, k, str));
			else
				write_cell(&rows, &use[k], &jobs[i], time_base);
		}
		put(&rows, "]", 1);
	}
	put(b, "\"job_columns\":[", 15);
	for (size_t k = 0; k < nuse; k++) {
		char name[48];
		column_name(&use[k], name, sizeof(name));
		if (k)
			put(b, ",", 1);
		put_str(b, name, strlen(name));
	}
	put(b, "],\"job_strings\":[", 17);
	put(b, st.text.data ? st.text.data : "", st.text.len);
	put(b, "],\"job_time_base\":", 18);
	put_int(b, time_base);
	put(b, ",\"jobs\":[", 9);
	put(b, rows.data ? rows.data : "", rows.len);
	put(b, "]", 1);
	buf_release(&rows);
	buf_release(&st.text);
	json_decref(st.index);
}

char *codec_snapshot_text(const struct snapshot *s, enum codec_form form, size_t *len,
			  struct gq_err *e)
{
	if (snapshot_check_finite(s, e) < 0)
		return NULL;
	/* Everything but the jobs through jansson (small), the jobs spliced
	 * in where the empty array stands. */
	struct snapshot head = *s;
	head.njobs = 0;
	json_t *v = codec_snapshot_encode(&head);
	char *text = codec_dump(v);
	json_decref(v);
	const char *mark = strstr(text, "\"jobs\":[]");
	if (!mark)
		BUG("snapshot text without its jobs array");
	size_t at = (size_t)(mark - text);
	struct buf b;
	buf_init(&b, 0);
	if (form == CODEC_ROWS) {
		put(&b, text, at);
		write_rows(&b, s->jobs, s->njobs, s->now);
	} else {
		put(&b, text, at + 8);
		for (size_t i = 0; i < s->njobs; i++) {
			if (i)
				put(&b, ",", 1);
			codec_job_write_lean(&b, &s->jobs[i]);
		}
		put(&b, "]", 1);
	}
	at += 9;
	put(&b, text + at, strlen(text + at));
	free(text);
	*len = b.len;
	return buf_detach(&b);
}

/* ---- a pending job's update (POST /v1/jobs/ID/update) ---- */

/* The fields an update may change, in its bit order (wire.h's UPD_). */
static const char *const update_fields[] = {
    "name", "queue", "tier", "estimate", "time_limit", "begin_time", "notify",
};

char *wire_update_text(const struct job_update *u)
{
	json_t *o = json_object();
	for (size_t k = 0; k < NF(update_fields); k++)
		if (u->set & (1u << k))
			encode_field(o, find_field(job_fields, NF(job_fields), update_fields[k]),
				     &u->job);
	if (u->set & (UPD_GPUS | UPD_GPU_TYPE)) {
		json_t *req = json_object();
		if (u->set & UPD_GPUS)
			json_object_set_new(req, "gpus", json_integer(u->job.req.gpus));
		if (u->set & UPD_GPU_TYPE)
			json_object_set_new(req, "gpu_type", json_string(u->job.req.gpu_type));
		json_object_set_new(o, "req", req);
	}
	if (u->set & UPD_DEPS) {
		json_object_set_new(o, "deps", deps_encode(&u->job));
	}
	char *t = codec_dump(o);
	json_decref(o);
	return t;
}

int wire_update_parse(const char *text, size_t len, struct job_update *out, struct gq_err *e)
{
	json_t *v;
	if (codec_parse(text, len, &v, e) < 0)
		return -1;
	struct job_update u;
	memset(&u, 0, sizeof(u));
	job_init(&u.job);
	int rc = 0;
	if (!json_is_object(v))
		rc = wire_type_error(e, "update", "an object", v);
	const char *key;
	json_t *val;
	json_object_foreach(v, key, val)
	{
		if (rc < 0)
			break;
		char path[64];
		snprintf(path, sizeof(path), "update.%s", key);
		size_t k = 0;
		while (k < NF(update_fields) && strcmp(key, update_fields[k]))
			k++;
		if (k < NF(update_fields)) {
			rc = wire_decode_field(val, find_field(job_fields, NF(job_fields), key),
					       &u.job, path, e);
			u.set |= 1u << k;
		} else if (!strcmp(key, "deps")) {
			rc = decode_deps(val, &u.job, "update", e);
			u.set |= UPD_DEPS;
		} else if (!strcmp(key, "req") && json_is_object(val)) {
			const char *rk;
			json_t *rv;
			json_object_foreach(val, rk, rv)
			{
				snprintf(path, sizeof(path), "update.req.%s", rk);
				if (strcmp(rk, "gpus") && strcmp(rk, "gpu_type")) {
					rc = err_set(e, GQ_EINVAL,
						     "%s: cannot be changed; only req.gpus and "
						     "req.gpu_type can",
						     path);
					break;
				}
				rc = wire_decode_field(rv,
						       find_field(res_fields, NF(res_fields), rk),
						       &u.job.req, path, e);
				if (rc < 0)
					break;
				u.set |= !strcmp(rk, "gpus") ? UPD_GPUS : UPD_GPU_TYPE;
			}
		} else if (!strcmp(key, "req")) {
			rc = wire_type_error(e, "update.req", "an object", val);
		} else {
			rc = err_set(
			    e, GQ_EINVAL,
			    "update: field '%s' cannot be changed; name, queue, tier, "
			    "estimate, time_limit, begin_time, notify, req.gpus, req.gpu_type "
			    "and "
			    "deps can",
			    key);
		}
	}
	if (rc == 0 && !u.set)
		rc = err_set(e, GQ_EINVAL, "update: nothing to change; give at least one field");
	json_decref(v);
	if (rc == 0)
		*out = u;
	return rc;
}
