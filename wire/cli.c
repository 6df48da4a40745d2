/*
 * cli.c - the --json output of gq's commands (see cli.h).
 */
#include "wire/cli.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/order.h"
#include "explain/explain.h"
#include "policy/impact.h"
#include "policy/repo.h"
#include "policy/semdiff.h"
#include "wire/codec.h"

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

/* What the backend's scheduler (Slurm) says of j, for scripts: its reason
 * (with gq's word and detail), estimated start, priority, partition, QOS
 * and account. */
static json_t *slurm_fields(const struct job *j)
{
	json_t *o = json_object();
	json_object_set_new(o, "reason",
			    j->ext_reason[0] ? json_string(j->ext_reason) : json_null());
	json_object_set_new(o, "reason_class",
			    j->ext_class[0] ? json_string(j->ext_class) : json_null());
	json_object_set_new(o, "detail",
			    j->ext_detail[0] ? json_string(j->ext_detail) : json_null());
	json_object_set_new(o, "estimate", j->ext_start ? json_integer(j->ext_start) : json_null());
	json_object_set_new(o, "priority", json_integer(j->ext_prio));
	json_object_set_new(o, "partition", json_string(j->queue));
	json_object_set_new(o, "qos", json_string(j->ext_qos));
	json_object_set_new(o, "account", json_string(j->dept));
	json_object_set_new(o, "array", j->ext_array[0] ? json_string(j->ext_array) : json_null());
	return o;
}

void jout_job(const struct job_info *ji, bool ext)
{
	json_t *o = codec_job_encode(&ji->job);
	if (ext)
		json_object_set_new(o, "slurm", slurm_fields(&ji->job));
	json_object_set_new(o, "gpus", json_integer(ji->job.req.gpus));
	/* A script's text and its arguments, or the command's argv. */
	json_object_set_new(o, "argv", ji->script ? json_null() : strv(ji->argv));
	json_t *script = ji->script ? json_string(ji->script) : NULL;
	json_object_set_new(o, "script", script ? script : json_null());
	char *none[] = {NULL};
	json_object_set_new(o, "args", ji->script ? strv(ji->argv ? ji->argv : none) : json_null());
	json_t *cwd = ji->cwd ? json_string(ji->cwd) : NULL;
	json_object_set_new(o, "cwd", cwd ? cwd : json_null());
	emit(o, false);
}

void jout_id(int64_t id)
{
	emit(json_pack("{s:I}", "id", (json_int_t)id), true);
}

void jout_submitted(int64_t id, const struct window_stop *win)
{
	json_t *o = json_pack("{s:I}", "id", (json_int_t)id);
	if (win)
		json_object_set_new(o, "window", codec_window_stop_encode(win));
	emit(o, true);
}

void jout_now(int64_t now)
{
	emit(json_pack("{s:I}", "now", (json_int_t)now), true);
}

void jout_actions(const char *action, const struct jout_action *a, size_t n)
{
	json_t *jobs = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_pack("{s:I, s:b}", "id", (json_int_t)a[i].id, "ok", !a[i].exit);
		if (a[i].exit) {
			json_object_set_new(o, "exit", json_integer(a[i].exit));
			json_t *m = json_string(a[i].error);
			json_object_set_new(o, "error", m ? m : json_string("(not UTF-8)"));
		}
		json_array_append_new(jobs, o);
	}
	emit(json_pack("{s:s, s:o}", "action", action, "jobs", jobs), false);
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
		json_t *idx = json_array(); /* which GPUs: Slurm's gres_used IDX */
		for (int g = 0; g < 64; g++)
			if ((busy >> g) & 1)
				json_array_append_new(idx, json_integer(g));
		json_array_append_new(a, json_pack("{s:s,s:s,s:I,s:i,s:i,s:o,s:i,s:b,s:s,s:o}",
						   "name", nd->name, "gpu_model", nd->gpu_model,
						   "gpu_mem_mb", (json_int_t)nd->gpu_mem_mb, "gpus",
						   nd->ngpus, "busy", nbusy, "busy_gpus", idx,
						   "free", nd->up ? nd->ngpus - nbusy : 0, "up",
						   nd->up, "state",
						   nd->up	  ? "up"
						   : nd->state[0] ? nd->state
								  : "down",
						   "jobs", jobs));
	}
	emit(a, false);
}

/* A report's text as the server sent it, which the typed form gives back
 * byte for byte (the same encoder made it). */
static void put_text(char *text)
{
	printf("%s\n", text);
	free(text);
}

void jout_stats(const struct stats_report *r)
{
	put_text(wire_stats_text(r));
}

void jout_preemptions(const struct preempt_list *l)
{
	put_text(wire_preemptions_text(l));
}

void jout_reclaim(const struct reclaim_report *r)
{
	put_text(wire_reclaim_text(r));
}

static json_t *int_or_null(int64_t v)
{
	return v ? json_integer(v) : json_null();
}

static json_t *ls_row(const struct explain_set *x, const struct job *j)
{
	const struct explain *ex = explain_find(x, j->id);
	int64_t now = x->s->now;
	const struct policy *pol = &x->s->policy;
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(j->id));
	if (j->array_id) { /* a task of an array; other rows keep their fields */
		json_object_set_new(o, "array_id", json_integer(j->array_id));
		json_object_set_new(o, "array_task", json_integer(j->array_task));
	}
	json_object_set_new(o, "name", json_string(j->name));
	json_object_set_new(o, "user", json_string(j->user));
	json_object_set_new(o, "queue", json_string(j->queue));
	json_object_set_new(o, "tier", json_string(tier_name(job_tier(j))));
	json_object_set_new(o, "state", json_string(job_state_name(j->state)));
	json_object_set_new(o, "gpus", json_integer(j->req.gpus));
	/* On Slurm its priority is the weight that orders the queue. */
	json_object_set_new(o, "weight",
			    x->s->order == ORDER_BACKEND
				? json_real((double)j->ext_prio)
				: json_real(ex ? ex->why->weight : pol->tier[job_tier(j)].base));
	json_object_set_new(o, "submit_time", json_integer(j->submit_time));
	json_object_set_new(o, "start_time", int_or_null(j->start_time));
	json_object_set_new(o, "end_time",
			    int_or_null(job_state_active(j->state) ? 0 : j->end_time));
	json_object_set_new(o, "waited", json_integer(job_waited(j, now)));
	bool pending = ex && j->state == JOB_PENDING;
	json_object_set_new(o, "position", pending ? json_integer(ex->why->position) : json_null());
	const struct prediction *p = pending ? ex->pred : NULL;
	bool known = p && p->never == NEVER_NO;
	json_object_set_new(o, "predicted_start", known ? json_integer(p->start) : json_null());
	int64_t end = known ? p->end : 0;
	if (!p && job_state_holds_gpus(j->state)) {
		size_t idx = (size_t)(j - x->s->jobs);
		if (idx < x->ps.njobs && x->ps.ends)
			end = x->ps.ends[idx];
	}
	json_object_set_new(o, "predicted_end", int_or_null(end));
	json_object_set_new(
	    o, "range",
	    known ? json_pack("{s:I,s:I}", "low", (json_int_t)p->low, "high", (json_int_t)p->high)
		  : json_null());
	json_object_set_new(o, "reason",
			    pending ? json_string(reason_name(ex->why->primary)) : json_null());
	if (x->s->order == ORDER_BACKEND)
		json_object_set_new(o, "slurm", slurm_fields(j));
	return o;
}

/* Output in 64 kB writes: json_dumpf writes each token on its own. */
struct out_buf {
	size_t len;
	char data[1 << 16];
};

static int out_piece(const char *text, size_t size, void *arg)
{
	struct out_buf *o = arg;
	if (o->len + size > sizeof(o->data)) {
		fwrite(o->data, 1, o->len, stdout);
		o->len = 0;
	}
	if (size > sizeof(o->data)) {
		fwrite(text, 1, size, stdout);
		return 0;
	}
	memcpy(o->data + o->len, text, size);
	o->len += size;
	return 0;
}

/*
 * The array of row(x, rows[i]): indented up to 100 rows, one compact line
 * beyond (10,000 rows of gq eta are 28 MB indented). A compact array is
 * written row by row, each row made in codec's arena and dropped with it
 * (no value freed one by one, memory of one row at a time), in large
 * writes (json_dumpf writes each token on its own).
 */
static void emit_rows(const struct explain_set *x, const struct job *const *rows, size_t n,
		      json_t *(*row)(const struct explain_set *, const struct job *))
{
	if (n <= 100) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, row(x, rows[i]));
		emit(a, false);
		return;
	}
	static struct out_buf o;
	o.len = 0;
	struct codec_arena arena;
	codec_arena_begin(&arena);
	out_piece("[", 1, &o);
	for (size_t i = 0; i < n; i++) {
		if (i)
			out_piece(",", 1, &o);
		json_dump_callback(row(x, rows[i]), out_piece, &o, JSON_COMPACT | JSON_ENCODE_ANY);
		codec_arena_reset(&arena);
	}
	out_piece("]\n", 2, &o);
	fwrite(o.data, 1, o.len, stdout);
	codec_arena_end(&arena);
}

void jout_ls(const struct explain_set *x, const struct job *const *rows, size_t n)
{
	emit_rows(x, rows, n, ls_row);
}

/* A string (the text of a buf, "" when empty). */
static json_t *buf_json(struct buf *b)
{
	json_t *v = json_string(b->data ? b->data : "");
	return v ? v : json_string("");
}

static json_t *explanation(const struct explain_set *x, const struct explain *ex)
{
	const struct why *w = ex->why;
	const struct prediction *p = ex->pred;
	const struct job *j = ex->job;
	json_t *o = json_object();
	json_object_set_new(o, "reason", json_string(reason_name(w->primary)));
	json_t *items = json_array(), *blocks = json_array();
	for (int i = 0; i < w->nitems; i++) {
		const struct reason_item *it = &w->items[i];
		if (i == 0 ||
		    w->items[i - 1].reason != it->reason) /* a queue's and a dept's quota */
			json_array_append_new(blocks, json_string(reason_name(it->reason)));
		json_array_append_new(
		    items,
		    json_pack("{s:s,s:s,s:o,s:i,s:i,s:i,s:f,s:f,s:i,s:o,s:b}", "reason",
			      reason_name(it->reason), "detail", it->detail, "job",
			      int_or_null(it->job), "need", it->need, "have", it->have, "free",
			      it->free, "used", it->used, "limit", it->limit, "quota", it->quota,
			      "until", int_or_null(it->until), "never", it->never));
	}
	json_object_set_new(o, "blocks", blocks);
	json_object_set_new(o, "items", items);
	struct buf b;
	buf_init(&b, 0);
	explain_text(x, ex, &b);
	json_object_set_new(o, "text", buf_json(&b));
	json_object_set_new(o, "position", json_integer(w->position));
	json_object_set_new(o, "ahead", json_integer(w->ahead));
	json_t *ahead = json_array();
	bool backend = x->s->order == ORDER_BACKEND;
	for (int i = 0; i < w->nahead; i++) {
		const struct why_ahead *a = &w->ahead_first[i];
		json_array_append_new(
		    ahead, json_pack("{s:I,s:s,s:f,s:b}", "id", (json_int_t)a->job, "tier",
				     tier_name(a->tier), "weight",
				     backend ? (double)explain_prio(x, a->job) : a->weight, "claim",
				     a->claim));
	}
	json_object_set_new(o, "ahead_jobs", ahead);
	if (backend) /* Slurm's priority: no base, no aging factor of gq's */
		json_object_set_new(o, "weight",
				    json_pack("{s:f,s:n,s:n,s:n,s:n,s:s}", "value",
					      (double)ex->job->ext_prio, "base", "c", "rises_at",
					      "rises_to", "source", "slurm"));
	else
		json_object_set_new(
		    o, "weight",
		    json_pack("{s:f,s:f,s:f,s:o,s:o}", "value", w->weight, "base", w->base, "c",
			      w->c, "rises_at", w->rises ? json_integer(w->rise_at) : json_null(),
			      "rises_to", w->rises ? json_real(w->rise_weight) : json_null()));
	json_object_set_new(o, "needs",
			    json_pack("{s:i,s:s,s:I,s:b,s:i}", "gpus", j->req.gpus, "gpu_type",
				      j->req.gpu_type, "gpu_mem_mb", (json_int_t)j->req.gpu_mem_mb,
				      "same_node", j->req.same_node, "free", x->nfree));
	json_t *waits = json_array(), *ids = json_array();
	for (int i = 0; i < w->nwaits; i++) {
		json_array_append_new(ids, json_integer(w->waits[i].job));
		json_array_append_new(
		    waits, json_pack("{s:I,s:I,s:b}", "id", (json_int_t)w->waits[i].job, "end",
				     (json_int_t)w->waits[i].end, "running", w->waits[i].running));
	}
	json_object_set_new(o, "waits_for", ids);
	json_object_set_new(o, "waits", waits);
	json_object_set_new(o, "gate", p ? json_string(predict_gate_name(p->gate)) : json_null());
	const struct reservation *rv = explain_resv(x, ex);
	json_object_set_new(o, "reservation",
			    rv ? json_pack("{s:s,s:I,s:I,s:b,s:b}", "name", rv->name, "start",
					   (json_int_t)rv->start_time, "end",
					   (json_int_t)rv->end_time, "all_nodes", rv->all_nodes,
					   "maint", rv->maint)
			       : json_null());
	json_object_set_new(o, "never",
			    p && p->never != NEVER_NO ? json_string(predict_never_name(p->never))
						      : json_null());
	json_object_set_new(o, "backfilled", json_boolean(p && p->backfilled));
	json_object_set_new(o, "permit_start", json_boolean(p && p->permit));
	buf_reset(&b);
	explain_reeval(x, ex, &b);
	json_object_set_new(o, "reeval",
			    json_pack("{s:s,s:o,s:o,s:o}", "kind", reeval_name(w->reeval), "job",
				      int_or_null(w->reeval_job), "at", int_or_null(w->reeval_at),
				      "text", buf_json(&b)));
	buf_release(&b);
	return o;
}

/* The why object of job j: the ls fields plus "explanation". */
static json_t *why_object(const struct explain_set *x, const struct job *j)
{
	json_t *o = ls_row(x, j);
	const struct explain *ex = explain_find(x, j->id);
	json_object_set_new(o, "explanation", ex ? explanation(x, ex) : json_null());
	return o;
}

static json_t *preemption(const struct explain_set *x, const struct explain *ex,
			  const struct preempt_plan *pp)
{
	json_t *excluded = json_object(), *victims = json_array();
	for (int r = 0; r < PREEMPT_RULE_COUNT; r++)
		if (pp->excluded[r])
			json_object_set_new(excluded, preempt_rule_name((enum preempt_rule)r),
					    json_integer(pp->excluded[r]));
	for (size_t i = 0; i < pp->nvictims; i++) {
		const struct preempt_victim *v = &pp->victims[i];
		json_array_append_new(
		    victims, json_pack("{s:I,s:i,s:s,s:b,s:b,s:I,s:f}", "id", (json_int_t)v->job,
				       "gpus", v->gpus, "tier", tier_name(v->tier), "borrowed",
				       v->borrowed, "reclaimed", v->reclaimed, "ran",
				       (json_int_t)v->ran, "work_lost", v->work_lost));
	}
	struct buf b;
	buf_init(&b, 0);
	explain_preempt_text(x, ex, pp, &b);
	json_t *o =
	    json_pack("{s:s,s:s,s:b,s:b,s:i,s:i,s:o,s:o,s:o,s:o}", "outcome",
		      preempt_outcome_name(pp->outcome), "mode", rollout_name(pp->mode), "permit",
		      pp->permit, "stopping", pp->stopping, "candidates", pp->candidates,
		      "eligible", pp->eligible, "excluded", excluded, "victims", victims,
		      "wait_for", int_or_null(pp->wait_for), "text", buf_json(&b));
	json_object_set_new(o, "reclaim",
			    pp->reclaim ? json_pack("{s:i,s:i}", "queue_used", pp->queue_used,
						    "queue_quota", pp->queue_quota)
					: json_null());
	buf_release(&b);
	return o;
}

/* The counterfactual hints (hint.h): each as the change and the start it
 * predicts, and the same in words. For gq why only: each costs a few
 * predictions. */
static void hints(const struct explain_set *x, const struct explain *ex, json_t *o)
{
	struct hint_set hs;
	explain_hints(x, ex, &hs);
	json_t *v = json_array();
	for (int i = 0; i < hs.n; i++) {
		const struct hint_item *h = &hs.items[i];
		json_t *arg = h->arg[0] ? json_string(h->arg) : NULL;
		json_array_append_new(
		    v, json_pack("{s:s,s:I,s:o,s:I,s:o}", "hint", hint_name(h->hint), "value",
				 (json_int_t)h->value, "arg", arg ? arg : json_null(), "start",
				 (json_int_t)h->start, "sooner", int_or_null(h->gain)));
	}
	json_object_set_new(o, "hints", v);
	struct buf b;
	buf_init(&b, 0);
	explain_sooner(x, ex, &hs, &b);
	json_t *sooner = json_array();
	for (char *save = NULL, *line = strtok_r(b.data ? b.data : (char[]){0}, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		json_array_append_new(sooner, json_string(line));
	json_object_set_new(o, "sooner", sooner);
	buf_release(&b);
}

/* gq why --json of job j: its why object with the hints and preemption. */
static json_t *why_full(const struct explain_set *x, const struct job *j,
			const struct preempt_plan *pp)
{
	json_t *o = why_object(x, j);
	const struct explain *ex = explain_find(x, j->id);
	if (ex)
		hints(x, ex, json_object_get(o, "explanation"));
	if (ex && pp) /* on Slurm, Slurm's QOS rules preempt: no plan of gq's */
		json_object_set_new(json_object_get(o, "explanation"), "preemption",
				    x->s->order == ORDER_BACKEND ? json_null()
								 : preemption(x, ex, pp));
	return o;
}

void jout_why(const struct explain_set *x, const struct job *j, const struct preempt_plan *pp)
{
	emit(why_full(x, j, pp), false);
}

void jout_array(int64_t id, const struct array_summary *a, const char *range,
		const struct explain_set *x, const struct job *next, const struct preempt_plan *pp)
{
	json_t *nt = x && next ? why_full(x, next, pp) : json_null();
	emit(json_pack("{s:I,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:o}", "array_id", (json_int_t)id,
		       "tasks", range, "ntasks", a->ntasks, "throttle", a->throttle, "pending",
		       a->pending, "running", a->running, "done", a->done, "failed", a->failed,
		       "cancelled", a->cancelled, "next_task", nt),
	     false);
}

void jout_eta(const struct explain_set *x, const struct job *const *rows, size_t n)
{
	emit_rows(x, rows, n, why_object);
}

/* ---- gq policy ---- */

static json_t *str_or_null(const char *s)
{
	json_t *v = s ? json_string(s) : NULL;
	return v ? v : json_null();
}

static void show_key(const struct policy_key_info *ki, void *arg)
{
	json_array_append_new(arg, json_pack("{s:s,s:s,s:s,s:b}", "key", ki->key, "value",
					     ki->value, "default", ki->default_value, "is_default",
					     ki->is_default));
}

void jout_policy_show(const struct policy *p)
{
	json_t *keys = json_array();
	policy_foreach(p, show_key, keys);
	emit(json_pack("{s:s,s:o}", "revision", p->revision, "keys", keys), false);
}

static json_t *impact_json(const struct snapshot *s, const struct impact *im)
{
	json_t *moves = json_array(), *starts = json_array(), *pre = json_array();
	for (size_t i = 0; i < im->nmoves; i++) {
		const struct impact_move *m = &im->moves[i];
		json_array_append_new(
		    moves, json_pack("{s:I,s:s,s:i,s:i,s:f,s:f}", "job", (json_int_t)m->job, "tier",
				     tier_name(m->tier), "old_position", m->old_pos, "new_position",
				     m->new_pos, "old_weight", m->old_weight, "new_weight",
				     m->new_weight));
	}
	for (size_t i = 0; i < im->netas; i++) {
		const struct impact_eta *t = &im->etas[i];
		json_array_append_new(starts, json_pack("{s:I,s:I,s:I}", "job", (json_int_t)t->job,
							"old", (json_int_t)t->old_start, "new",
							(json_int_t)t->new_start));
	}
	for (size_t i = 0; i < im->npreempts; i++)
		json_array_append_new(pre,
				      json_pack("{s:I,s:b}", "job", (json_int_t)im->preempts[i].job,
						"preemptible", im->preempts[i].preemptible));
	return json_pack("{s:s,s:I,s:I,s:I,s:o,s:o,s:o}", "policy_in_force", s->policy.revision,
			 "now", (json_int_t)s->now, "pending", (json_int_t)im->npending, "running",
			 (json_int_t)im->nrunning, "moves", moves, "starts", starts, "preemptible",
			 pre);
}

void jout_policy_report(const struct jout_policy_report *r)
{
	json_t *changes = json_null();
	int variables = 0;
	if (r->changes) {
		changes = json_array();
		for (size_t i = 0; i < r->changes->n; i++) {
			const struct policy_change *c = &r->changes->items[i];
			json_array_append_new(
			    changes,
			    json_pack(
				"{s:s,s:s,s:o,s:o}", "key", c->key, "kind",
				change_kind_name(c->kind), "old",
				str_or_null(c->kind == CHANGE_ADDED ? NULL : c->old_value), "new",
				str_or_null(c->kind == CHANGE_REMOVED ? NULL : c->new_value)));
		}
		variables = semdiff_variables(r->changes);
	}
	json_t *o = json_pack("{s:o,s:o,s:b,s:o,s:i,s:o}", "from", str_or_null(r->from), "to",
			      str_or_null(r->to), "valid", !r->error, "error",
			      str_or_null(r->error), "variables", variables, "changes", changes);
	if (r->text)
		json_object_set_new(o, "text", str_or_null(r->text));
	json_object_set_new(o, "impact",
			    r->live && r->impact ? impact_json(r->live, r->impact) : json_null());
	emit(o, false);
}

static json_t *commit_json(const struct policy_commit *c)
{
	json_t *tr = json_array();
	for (int i = 0; i < c->ntrailers; i++)
		json_array_append_new(tr,
				      json_pack("{s:o,s:o}", "key", str_or_null(c->trailers[i].key),
						"value", str_or_null(c->trailers[i].value)));
	return json_pack("{s:s,s:o,s:o,s:o,s:I,s:o,s:o,s:o}", "commit", c->oid, "parent",
			 c->parent[0] ? json_string(c->parent) : json_null(), "author",
			 str_or_null(c->author_name), "email", str_or_null(c->author_email), "time",
			 (json_int_t)c->time, "summary", str_or_null(c->summary), "message",
			 str_or_null(c->message), "trailers", tr);
}

void jout_policy_commit(const struct policy_commit *c, const struct event_list *evl)
{
	json_t *o = commit_json(c), *applied = evl ? json_array() : json_null();
	const struct event *ev = evl ? evl->items : NULL;
	for (size_t i = 0; evl && i < evl->n; i++) {
		bool ok;
		char oid[POLICY_OID_HEX];
		const char *why = "";
		size_t n;
		if (strcmp(ev[i].kind, "policy") ||
		    repo_event_parse(ev[i].reason, &ok, oid, &why) < 0 || (n = strlen(oid)) < 4 ||
		    strncmp(c->oid, oid, n))
			continue;
		json_array_append_new(applied,
				      json_pack("{s:I,s:o,s:b,s:o}", "time", (json_int_t)ev[i].time,
						"actor", str_or_null(ev[i].actor), "applied", ok,
						"reason", str_or_null(ok ? NULL : why)));
	}
	json_object_set_new(o, "applied", applied);
	json_dumpf(o, stdout, JSON_COMPACT);
	json_decref(o);
}

void jout_policy_blame(const char *key, const char *value, const char *before,
		       const struct policy_commit *c)
{
	emit(json_pack("{s:s,s:o,s:o,s:o}", "key", key, "value", str_or_null(value), "before",
		       str_or_null(before), "commit", commit_json(c)),
	     false);
}
