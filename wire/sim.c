/*
 * sim.c - gq sim's --json (sim.h).
 */
#include "wire/sim.h"

#include <jansson.h>
#include <stdio.h>

static json_t *acc_json(const struct replay_acc *a, bool range)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:f,s:f,s:f,s:f}", "jobs", (json_int_t)a->n,
			      "median_abs_error", (json_int_t)a->median, "p90_abs_error",
			      (json_int_t)a->p90, "mean_abs_error", a->mean, "within_1m",
			      a->within_1m, "within_10m", a->within_10m, "within_x2", a->within_x2);
	if (range) {
		json_object_set_new(o, "in_range", json_real(a->in_range));
		json_object_set_new(o, "before_range", json_real(a->below));
		json_object_set_new(o, "after_range", json_real(a->above));
	}
	return o;
}

static json_t *run_json(const struct sim_run *run)
{
	const struct replay_result *r = run->r;
	json_t *groups = json_array();
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct replay_group *g = &r->groups[i];
		json_array_append_new(
		    groups,
		    json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "name", g->name, "jobs",
			      (json_int_t)g->jobs, "p50_wait", (json_int_t)g->p50, "p95_wait",
			      (json_int_t)g->p95, "max_wait", (json_int_t)g->max, "over_limit",
			      (json_int_t)g->over_limit, "overtakes", (json_int_t)g->overtakes,
			      "preemptions", (json_int_t)g->preemptions, "work_lost",
			      (json_int_t)g->lost, "utilisation", g->utilisation));
	}
	json_t *hist = json_object();
	for (int b = 0; b < REPLAY_HIST_BINS; b++)
		json_object_set_new(hist, replay_hist_label(b),
				    json_integer((json_int_t)r->hist[b]));
	static const char *const refs[REF_COUNT] = {"replay", "trace"};
	static const char *const classes[CLASS_COUNT] = {"all", "at_once", "waited"};
	json_t *acc = json_object();
	for (int p = 0; p < PRED_COUNT; p++) {
		json_t *po = json_object();
		for (int ref = 0; ref < REF_COUNT; ref++) {
			json_t *ro = json_object();
			for (int c = 0; c < CLASS_COUNT; c++)
				json_object_set_new(
				    ro, classes[c],
				    acc_json(&r->acc[p][ref][c], p == PRED_HISTORY));
			json_object_set_new(po, refs[ref], ro);
		}
		json_object_set_new(acc, replay_predictor_name((enum replay_predictor)p), po);
	}
	return json_pack("{s:s,s:I,s:I,s:f,s:o,s:o,s:o}", "policy", run->policy, "replayed",
			 (json_int_t)r->njobs, "never_started", (json_int_t)r->never_started,
			 "utilisation", r->utilisation, "groups", groups, "histogram", hist,
			 "accuracy", acc);
}

void jout_sim(const char *trace, size_t trace_jobs, const struct sim_run *runs, int nruns)
{
	const struct replay_result *r = runs[0].r;
	json_t *a = json_array();
	for (int i = 0; i < nruns; i++)
		json_array_append_new(a, run_json(&runs[i]));
	json_t *o = json_pack(
	    "{s:s,s:I,s:I,s:I,s:I,s:{s:i,s:i,s:i},s:I,s:f,s:o}", "trace", trace, "jobs",
	    (json_int_t)trace_jobs, "skipped_never_started", (json_int_t)r->skipped_never,
	    "skipped_too_wide", (json_int_t)r->skipped_too_wide, "capped_at_limit",
	    (json_int_t)r->capped_at_limit, "machine", "nodes", r->nodes, "units_per_node",
	    r->gpus_per_node, "units", r->nodes * r->gpus_per_node, "span", (json_int_t)r->span,
	    "trace_utilisation", r->trace_utilisation, "runs", a);
	json_dumpf(o, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(o);
}
