/*
 * json.c - the --json output of gq's commands (see json.h).
 */
#include "json.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/codec.h"
#include "cmd.h"

static void emit(json_t *v, bool compact)
{
	json_dumpf(v, stdout, (compact ? JSON_COMPACT : JSON_INDENT(2)) | JSON_ENCODE_ANY);
	fputc('\n', stdout);
	json_decref(v);
}

static json_t *strv(char *const *v)
{
	if (!v)
		return json_null();
	json_t *a = json_array();
	for (; *v; v++) {
		json_t *s = json_string(*v);
		json_array_append_new(a, s ? s : json_string("(not UTF-8)"));
	}
	return a;
}

void jout_job(const struct job_info *ji)
{
	json_t *o = codec_job_encode(&ji->job);
	json_object_set_new(o, "gpus", json_integer(ji->job.req.gpus));
	json_object_set_new(o, "argv", strv(ji->argv));
	json_t *cwd = ji->cwd ? json_string(ji->cwd) : NULL;
	json_object_set_new(o, "cwd", cwd ? cwd : json_null());
	emit(o, false);
}

void jout_id(int64_t id)
{
	emit(json_pack("{s:I}", "id", (json_int_t)id), true);
}

void jout_now(int64_t now)
{
	emit(json_pack("{s:I}", "now", (json_int_t)now), true);
}

void jout_events(const struct event *ev, size_t n, bool lines)
{
	if (lines) {
		for (size_t i = 0; i < n; i++)
			emit(codec_event_encode(&ev[i]), true);
		fflush(stdout);
		return;
	}
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, codec_event_encode(&ev[i]));
	emit(a, false);
}

void jout_nodes(const struct snapshot *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *nd = &s->nodes[i];
		uint64_t busy = 0;
		json_t *jobs = json_array();
		for (size_t k = 0; k < s->njobs; k++) {
			const struct job *j = &s->jobs[k];
			if (!job_state_holds_gpus(j->state))
				continue;
			bool on = false;
			for (int x = 0; x < j->nalloc; x++)
				if (j->alloc[x].node == (int)i) {
					busy |= j->alloc[x].mask;
					on = true;
				}
			if (on)
				json_array_append_new(jobs, json_integer(j->id));
		}
		int nbusy = __builtin_popcountll(busy);
		json_array_append_new(
			a, json_pack("{s:s,s:s,s:I,s:i,s:i,s:i,s:b,s:o}", "name", nd->name, "gpu_model",
				     nd->gpu_model, "gpu_mem_mb", (json_int_t)nd->gpu_mem_mb, "gpus",
				     nd->ngpus, "busy", nbusy, "free", nd->up ? nd->ngpus - nbusy : 0,
				     "up", nd->up, "jobs", jobs));
	}
	emit(a, false);
}

static const char *str_or(const json_t *v, const char *dflt)
{
	const char *s = json_string_value(v);
	return s ? s : dflt;
}

int jout_stats_text(const char *text, struct gq_err *e)
{
	json_t *v = NULL;
	if (codec_parse(text, strlen(text), &v, e) < 0)
		return -1;
	json_t *jobs = json_object_get(v, "jobs"), *gpus = json_object_get(v, "gpus"),
	       *wait = json_object_get(v, "wait");
	if (!json_is_object(jobs) || !json_is_object(gpus) || !json_is_array(wait)) {
		json_decref(v);
		return err_set(e, GQ_EINTERNAL, "unexpected statistics from the server (no jobs, gpus or wait)");
	}
	json_int_t total = json_integer_value(json_object_get(gpus, "total"));
	json_int_t busy = json_integer_value(json_object_get(gpus, "busy"));
	printf("GPUs: %lld busy of %lld (%lld%%)\n", (long long)busy, (long long)total,
	       total ? (long long)(busy * 100 / total) : 0LL);
	printf("jobs:");
	const char *key;
	json_t *val;
	/* In state order, not the server's key order. */
	for (int st = 0; st < JOB_STATE_COUNT; st++) {
		const char *name = job_state_name((enum job_state)st);
		json_t *n = json_object_get(jobs, name);
		if (json_is_integer(n))
			printf(" %lld %s%s", (long long)json_integer_value(n), name,
			       st + 1 < JOB_STATE_COUNT ? "," : "");
	}
	json_object_foreach(jobs, key, val) {
		enum job_state st;
		if (job_state_parse(key, &st) < 0 && json_is_integer(val))
			printf(" %lld %s", (long long)json_integer_value(val), key);
	}
	printf("\n");
	if (json_array_size(wait)) {
		printf("\nwait before start (jobs that started):\n");
		printf("%-12s %-4s %6s %8s %8s %8s\n", "QUEUE", "TIER", "JOBS", "P50", "P95", "MAX");
		size_t i;
		json_array_foreach(wait, i, val) {
			char p50[16], p95[16], mx[16];
			dur_format(json_integer_value(json_object_get(val, "p50")), p50, sizeof(p50));
			dur_format(json_integer_value(json_object_get(val, "p95")), p95, sizeof(p95));
			dur_format(json_integer_value(json_object_get(val, "max")), mx, sizeof(mx));
			printf("%-12s %-4s %6lld %8s %8s %8s\n", str_or(json_object_get(val, "queue"), "-"),
			       str_or(json_object_get(val, "tier"), "-"),
			       (long long)json_integer_value(json_object_get(val, "count")), p50, p95, mx);
		}
	}
	json_decref(v);
	return 0;
}
