/*
 * reports.c - the metrics, preemption records and reclamation report as
 * JSON (wire.h's shapes), through codec.c's field tables.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/codec.h"
#include "wire/fields.h"

static const struct field stats_fields[] = {
    FLD(stats, from, F_I64),	    FLD(stats, to, F_I64),	    FLD(stats, gpus, F_INT),
    FLD(stats, gpu_seconds, F_DBL), FLD(stats, utilisation, F_DBL),
};

static const struct field stats_group_fields[] = {
    FLD(stats_group, queue, F_STR),	    FLD(stats_group, tier, F_TIER),
    FLD(stats_group, starts, F_INT),	    FLD(stats_group, p50_wait, F_I64),
    FLD(stats_group, p95_wait, F_I64),	    FLD(stats_group, longest_wait, F_I64),
    FLD(stats_group, longest_job, F_I64),   FLD(stats_group, over_limit, F_INT),
    FLD(stats_group, overtaken, F_INT),	    FLD(stats_group, preemptions, F_INT),
    FLD(stats_group, would_preempt, F_INT), FLD(stats_group, work_lost, F_DBL),
    FLD(stats_group, cancelled, F_INT),
};

static const struct field stats_dept_fields[] = {
    FLD(stats_dept, dept, F_STR),
    FLD(stats_dept, gpu_hours, F_DBL),
    FLD(stats_dept, charged, F_DBL),
};

json_t *codec_stats_encode(const struct stats *st, const int *counts, int64_t now)
{
	json_t *o = wire_encode_table(stats_fields, NF(stats_fields), st);
	json_t *jobs = json_object(), *groups = json_array(), *depts = json_array();
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		json_object_set_new(jobs, job_state_name((enum job_state)i),
				    json_integer(counts ? counts[i] : 0));
	for (size_t i = 0; i < st->ngroups; i++)
		json_array_append_new(
		    groups,
		    wire_encode_table(stats_group_fields, NF(stats_group_fields), &st->groups[i]));
	for (size_t i = 0; i < st->ndepts; i++)
		json_array_append_new(
		    depts,
		    wire_encode_table(stats_dept_fields, NF(stats_dept_fields), &st->depts[i]));
	json_object_set_new(o, "now", json_integer(now));
	json_object_set_new(o, "jobs", jobs);
	json_object_set_new(o, "groups", groups);
	json_object_set_new(o, "depts", depts);
	return o;
}

/* Decodes array v of objects through table t into *items (n of them, each
 * elem bytes, zeroed first); caller frees. */
/* The jobs per state: {STATE: N}; absent states are 0. */
static int decode_counts(const json_t *v, int *counts, struct gq_err *e)
{
	if (!json_is_object(v))
		return wire_type_error(e, "stats.jobs", "an object", v);
	const char *key;
	json_t *val;
	json_object_foreach(wire_mut(v), key, val)
	{
		enum job_state st;
		if (job_state_parse(key, &st) < 0)
			return err_set(e, GQ_EINVAL, "stats.jobs: unknown job state '%s'", key);
		if (!json_is_integer(val) || json_integer_value(val) < 0 ||
		    json_integer_value(val) > INT_MAX)
			return err_set(e, GQ_EINVAL, "stats.jobs.%s: expected a count", key);
		counts[st] = (int)json_integer_value(val);
	}
	return 0;
}

int codec_stats_decode(const json_t *v, struct stats_report *out, struct gq_err *e)
{
	static const char *const extra[] = {"now", "jobs", "groups", "depts", "server_start", NULL};
	struct stats_report r;
	memset(&r, 0, sizeof(r));
	void *groups = NULL, *depts = NULL;
	const json_t *jn = json_object_get(v, "now");
	if (wire_decode_table(v, stats_fields, NF(stats_fields), &r.st, "stats", extra, e) < 0)
		return -1;
	if (!json_is_integer(jn))
		return wire_type_error(e, "stats.now", "an integer", jn);
	const json_t *jobs = json_object_get(v, "jobs");
	if (jobs && decode_counts(jobs, r.counts, e) < 0)
		return -1;
	if (wire_decode_array(json_object_get(v, "groups"), stats_group_fields,
			      NF(stats_group_fields), sizeof(struct stats_group), "stats.groups",
			      &groups, &r.st.ngroups, e) < 0)
		return -1;
	if (wire_decode_array(json_object_get(v, "depts"), stats_dept_fields, NF(stats_dept_fields),
			      sizeof(struct stats_dept), "stats.depts", &depts, &r.st.ndepts,
			      e) < 0) {
		free(groups);
		return -1;
	}
	r.st.groups = groups;
	r.st.depts = depts;
	r.now = json_integer_value(jn);
	const json_t *js = json_object_get(v, "server_start");
	if (json_is_integer(js))
		r.started = json_integer_value(js);
	*out = r;
	return 0;
}

static const struct field preempt_fields[] = {
    FLD(preempt_record, id, F_I64),
    FLD(preempt_record, victim, F_I64),
    FLD(preempt_record, trigger, F_I64),
    FLD(preempt_record, reason, F_STR),
    FLD(preempt_record, queue, F_STR),
    FLD(preempt_record, dept, F_STR),
    FLD(preempt_record, trigger_dept, F_STR),
    FLD(preempt_record, cross_dept, F_BOOL),
    FLD(preempt_record, gpus, F_INT),
    FLD(preempt_record, ran, F_I64),
    FLD(preempt_record, last_checkpoint, F_I64),
    FLD(preempt_record, signalled, F_I64),
    FLD(preempt_record, saved, F_I64),
    FLD(preempt_record, released, F_I64),
    FLD(preempt_record, restarted, F_I64),
    FLD(preempt_record, work_lost, F_DBL),
    FLD(preempt_record, resumed, F_BOOL),
};

json_t *codec_preemptions_encode(const struct preempt_list *l)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(
		    arr, wire_encode_table(preempt_fields, NF(preempt_fields), &l->items[i]));
	return json_pack("{s:I,s:o}", "now", (json_int_t)l->now, "preemptions", arr);
}

/* An integer member of object v that must be there. */
static int need_int(const json_t *v, const char *what, const char *name, int64_t *out,
		    struct gq_err *e)
{
	const json_t *x = json_object_get(v, name);
	if (!json_is_integer(x)) {
		char path[96];
		snprintf(path, sizeof(path), "%s.%s", what, name);
		return wire_type_error(e, path, "an integer", x);
	}
	*out = json_integer_value(x);
	return 0;
}

/* Checks that object v has only the named members. */
static int only_members(const json_t *v, const char *what, const char *const *names,
			struct gq_err *e)
{
	const char *key;
	json_t *val;
	json_object_foreach(wire_mut(v), key, val)
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

int codec_preemptions_decode(const json_t *v, struct preempt_list *out, struct gq_err *e)
{
	static const char *const names[] = {"now", "preemptions", NULL};
	struct preempt_list l;
	memset(&l, 0, sizeof(l));
	void *items = NULL;
	if (!json_is_object(v))
		return wire_type_error(e, "preemptions", "an object", v);
	if (only_members(v, "preemptions", names, e) < 0 ||
	    need_int(v, "preemptions", "now", &l.now, e) < 0 ||
	    wire_decode_array(json_object_get(v, "preemptions"), preempt_fields, NF(preempt_fields),
			      sizeof(struct preempt_record), "preemptions.preemptions", &items,
			      &l.n, e) < 0)
		return -1;
	l.items = items;
	*out = l;
	return 0;
}

static const char *const reclaim_kinds[] = {"idle", "failed", "unreleased"};

const char *reclaim_kind_name(enum reclaim_kind k)
{
	if ((unsigned)k >= NF(reclaim_kinds))
		BUG("reclaim kind %d", (int)k);
	return reclaim_kinds[k];
}

json_t *codec_reclaim_encode(const struct reclaim_report *r)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct reclaim_entry *x = &r->items[i];
		json_t *gl = json_string(x->gpu_list);
		json_array_append_new(
		    arr, json_pack("{s:I,s:s,s:i,s:o,s:I,s:I,s:b}", "job", (json_int_t)x->job,
				   "kind", reclaim_kind_name(x->kind), "gpus", x->gpus, "gpu_list",
				   gl ? gl : json_string("?"), "since", (json_int_t)x->since, "for",
				   (json_int_t)(r->now - x->since), "acts", x->acts));
	}
	json_t *tq = json_string(r->trial_queues);
	return json_pack("{s:I,s:s,s:o,s:I,s:i,s:o}", "now", (json_int_t)r->now, "mode",
			 rollout_name(r->mode), "trial_queues", tq ? tq : json_string("?"),
			 "idle_after", (json_int_t)r->idle_after, "gpus", r->gpus, "jobs", arr);
}

/* A string member into out[size]; absent keeps out. */
static int get_str(const json_t *v, const char *what, const char *name, char *out, size_t size,
		   struct gq_err *e)
{
	const json_t *x = json_object_get(v, name);
	if (!x)
		return 0;
	char path[96];
	snprintf(path, sizeof(path), "%s.%s", what, name);
	struct field f = {path, F_STR, 0, size, false};
	return wire_decode_field(x, &f, out, path, e);
}

static int decode_reclaim_entry(const json_t *v, const char *what, int64_t now,
				struct reclaim_entry *out, struct gq_err *e)
{
	static const char *const names[] = {"job",   "kind", "gpus", "gpu_list",
					    "since", "for",  "acts", NULL};
	if (!json_is_object(v))
		return wire_type_error(e, what, "an object", v);
	if (only_members(v, what, names, e) < 0)
		return -1;
	char kind[16] = "";
	int64_t gpus = 0, f = 0;
	if (need_int(v, what, "job", &out->job, e) < 0 || need_int(v, what, "gpus", &gpus, e) < 0 ||
	    need_int(v, what, "since", &out->since, e) < 0 || need_int(v, what, "for", &f, e) < 0 ||
	    get_str(v, what, "kind", kind, sizeof(kind), e) < 0 ||
	    get_str(v, what, "gpu_list", out->gpu_list, sizeof(out->gpu_list), e) < 0)
		return -1;
	if (gpus < 0 || gpus > INT_MAX)
		return err_set(e, GQ_EINVAL, "%s.gpus: %lld is out of range", what,
			       (long long)gpus);
	out->gpus = (int)gpus;
	if (f != now - out->since)
		return err_set(e, GQ_EINVAL, "%s.for: %lld is not now - since", what, (long long)f);
	size_t k = 0;
	while (k < NF(reclaim_kinds) && strcmp(reclaim_kinds[k], kind))
		k++;
	if (k == NF(reclaim_kinds))
		return err_set(e, GQ_EINVAL, "%s.kind: unknown kind '%s'", what, kind);
	out->kind = (enum reclaim_kind)k;
	const json_t *acts = json_object_get(v, "acts");
	if (!json_is_boolean(acts)) {
		char path[96];
		snprintf(path, sizeof(path), "%s.acts", what);
		return wire_type_error(e, path, "true or false", acts);
	}
	out->acts = json_is_true(acts);
	return 0;
}

int codec_reclaim_decode(const json_t *v, struct reclaim_report *out, struct gq_err *e)
{
	static const char *const names[] = {"now",  "mode", "trial_queues", "idle_after", "gpus",
					    "jobs", NULL};
	struct reclaim_report r;
	memset(&r, 0, sizeof(r));
	if (!json_is_object(v))
		return wire_type_error(e, "reclaim", "an object", v);
	char mode[16] = "";
	int64_t gpus = 0;
	if (only_members(v, "reclaim", names, e) < 0 ||
	    need_int(v, "reclaim", "now", &r.now, e) < 0 ||
	    need_int(v, "reclaim", "idle_after", &r.idle_after, e) < 0 ||
	    need_int(v, "reclaim", "gpus", &gpus, e) < 0 ||
	    get_str(v, "reclaim", "mode", mode, sizeof(mode), e) < 0 ||
	    get_str(v, "reclaim", "trial_queues", r.trial_queues, sizeof(r.trial_queues), e) < 0)
		return -1;
	int m = 0;
	while (m <= ROLLOUT_ENFORCE && strcmp(rollout_name((enum rollout)m), mode))
		m++;
	if (m > ROLLOUT_ENFORCE)
		return err_set(e, GQ_EINVAL, "reclaim.mode: unknown mode '%s'", mode);
	r.mode = (enum rollout)m;
	const json_t *jobs = json_object_get(v, "jobs");
	if (!json_is_array(jobs))
		return wire_type_error(e, "reclaim.jobs", "an array", jobs);
	r.n = json_array_size(jobs);
	r.items = xcalloc(r.n ? r.n : 1, sizeof(*r.items));
	int sum = 0;
	for (size_t i = 0; i < r.n; i++) {
		char what[48];
		snprintf(what, sizeof(what), "reclaim.jobs[%zu]", i);
		if (decode_reclaim_entry(json_array_get(jobs, i), what, r.now, &r.items[i], e) <
		    0) {
			free(r.items);
			return -1;
		}
		sum += r.items[i].gpus;
	}
	if (gpus != sum) {
		free(r.items);
		return err_set(e, GQ_EINVAL, "reclaim.gpus: %lld is not the sum of the jobs' (%d)",
			       (long long)gpus, sum);
	}
	r.gpus = sum;
	*out = r;
	return 0;
}
