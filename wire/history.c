/*
 * history.c - history.h's readers and writers, on codec.c's job decoder.
 */
#include "history.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/codec.h"

/* The tree lives in an arena dropped whole (codec_snapshot_parse's): a
 * day's history is thousands of jobs of ~30 blocks each, and malloc's
 * frees of them were most of gq history's time. */
int wire_jobs_parse(const char *text, size_t len, struct job **jobs, size_t *n, struct gq_err *e)
{
	struct codec_arena arena;
	codec_arena_begin(&arena);
	json_t *v = NULL;
	struct job *out = NULL;
	size_t cnt = 0;
	int rc = codec_parse(text, len, &v, e);
	json_t *a = rc == 0 && json_is_object(v) ? json_object_get(v, "jobs") : NULL;
	if (rc == 0 && !json_is_array(a))
		rc = err_set(e, GQ_EINVAL, "jobs: expected {\"jobs\": [...]}");
	if (rc == 0) {
		cnt = json_array_size(a);
		out = xcalloc(cnt ? cnt : 1, sizeof(*out));
		for (size_t i = 0; i < cnt; i++)
			if (codec_job_decode(json_array_get(a, i), &out[i], e) < 0) {
				err_prefix(e, "jobs[%zu]", i);
				jobs_free(out, i);
				rc = -1;
				break;
			}
	}
	codec_arena_end(&arena); /* the tree with it: no json_decref */
	if (rc < 0)
		return -1;
	*jobs = out;
	*n = cnt;
	return 0;
}

char *wire_history_json(const struct history_row *rows, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct job *j = rows[i].job;
		json_t *o = json_object();
		json_object_set_new(o, "id", json_integer(j->id));
		json_object_set_new(o, "name", json_string(j->name));
		json_object_set_new(o, "user", json_string(j->user));
		json_object_set_new(o, "queue", json_string(j->queue));
		json_object_set_new(o, "dept", json_string(j->dept));
		json_object_set_new(o, "tier", json_string(tier_name(job_tier(j))));
		json_object_set_new(o, "state", json_string(job_state_name(j->state)));
		json_object_set_new(
		    o, "exit", j->exit_status >= 0 ? json_integer(j->exit_status) : json_null());
		json_object_set_new(o, "submit_time", json_integer(j->submit_time));
		json_object_set_new(o, "start_time",
				    rows[i].runtime > 0 || j->start_time > 0
					? json_integer(j->start_time)
					: json_null());
		json_object_set_new(o, "end_time", json_integer(j->end_time));
		json_object_set_new(o, "wait", json_integer(rows[i].wait));
		json_object_set_new(o, "runtime", json_integer(rows[i].runtime));
		json_object_set_new(o, "gpus", json_integer(j->req.gpus));
		json_object_set_new(o, "gpu_hours", json_real(rows[i].gpu_hours));
		json_object_set_new(o, "charged",
				    isnan(rows[i].charged) ? json_null()
							   : json_real(rows[i].charged));
		json_array_append_new(a, o);
	}
	char *s = codec_dump(a);
	json_decref(a);
	return s;
}

static void csv_field(struct buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		buf_addstr(b, s);
		return;
	}
	buf_addstr(b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			buf_addstr(b, "\"");
		buf_add(b, s, 1);
	}
	buf_addstr(b, "\"");
}

char *wire_history_csv(const struct history_row *rows, size_t n)
{
	struct buf b;
	buf_init(&b, 0);
	buf_addstr(&b, "id,name,user,queue,dept,tier,state,exit,submit_time,start_time,end_time,"
		       "wait,runtime,gpus,gpu_hours,charged\n");
	for (size_t i = 0; i < n; i++) {
		const struct job *j = rows[i].job;
		buf_printf(&b, "%lld,", (long long)j->id);
		csv_field(&b, j->name);
		buf_addstr(&b, ",");
		csv_field(&b, j->user);
		buf_addstr(&b, ",");
		csv_field(&b, j->queue);
		buf_addstr(&b, ",");
		csv_field(&b, j->dept);
		buf_printf(&b, ",%s,%s,", tier_name(job_tier(j)), job_state_name(j->state));
		if (j->exit_status >= 0)
			buf_printf(&b, "%d", j->exit_status);
		buf_printf(&b, ",%lld,", (long long)j->submit_time);
		if (rows[i].runtime > 0 || j->start_time > 0)
			buf_printf(&b, "%lld", (long long)j->start_time);
		/* %.4f in the C locale: gq keeps LC_NUMERIC "C" (STYLE.md). */
		buf_printf(&b, ",%lld,%lld,%lld,%d,%.4f,", (long long)j->end_time,
			   (long long)rows[i].wait, (long long)rows[i].runtime, j->req.gpus,
			   rows[i].gpu_hours);
		if (!isnan(rows[i].charged))
			buf_printf(&b, "%.4f", rows[i].charged);
		buf_addstr(&b, "\n");
	}
	return buf_detach(&b);
}

char *wire_usage_json(const char *by, const struct usage_row *rows, size_t n)
{
	json_t *o = json_object(), *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_object();
		json_object_set_new(r, "name", json_string(rows[i].name));
		json_object_set_new(r, "jobs", json_integer(rows[i].jobs));
		json_object_set_new(r, "gpu_hours", json_real(rows[i].gpu_hours));
		json_object_set_new(r, "charged", json_real(rows[i].charged));
		json_array_append_new(a, r);
	}
	json_object_set_new(o, "by", json_string(by));
	json_object_set_new(o, "rows", a);
	char *s = codec_dump(o);
	json_decref(o);
	return s;
}
