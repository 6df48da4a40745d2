/* codec.c - the API's JSON shapes: round trips and strict rejection. */
#include "harness.h"

#include "wire/codec.h"

#include "core/depend.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

static void sample_job(struct job *j)
{
	job_init(j);
	j->id = 42;
	STR_COPY(j->name, "train");
	STR_COPY(j->user, "alice");
	j->uid = 1000;
	j->gid = 100;
	STR_COPY(j->queue, "default");
	STR_COPY(j->dept, "default");
	j->tier = TIER_P2;
	j->ovr.set = true;
	j->ovr.tier = TIER_P0;
	STR_COPY(j->ovr.actor, "admin:root");
	STR_COPY(j->ovr.reason, "incident 7");
	j->ovr.at = 1700000100;
	j->state = JOB_RUNNING;
	j->req.gpus = 3;
	STR_COPY(j->req.gpu_type, "a100");
	j->req.gpu_mem_mb = 81920;
	j->req.same_node = true;
	j->nalloc = 2;
	j->alloc = xcalloc(2, sizeof(*j->alloc));
	j->alloc[0].node = 0;
	j->alloc[0].mask = 0x5;
	j->alloc[1].node = 1;
	j->alloc[1].mask = UINT64_C(1) << 63;
	j->submit_time = 1700000000;
	j->start_time = 1700000200;
	j->hist_ratio = 0.25;
	j->checkpointable = true;
	j->restarts = 2;
	j->ndeps = 2;
	j->deps[0] = 7;
	j->deps[1] = 9;
	j->dep_kind[1] = DEP_AFTERNOTOK;
	STR_COPY(j->end_reason, "dependency #7 failed (exit 1): afterok can never be met");
}

/* The same job: every field, and the allocations' entries rather than
 * where they are. */
static bool same_job(const struct job *a, const struct job *b)
{
	struct job x = *a, y = *b;
	x.alloc = y.alloc = NULL;
	return a->nalloc == b->nalloc &&
	       (!a->nalloc || !memcmp(a->alloc, b->alloc, (size_t)a->nalloc * sizeof(*a->alloc))) &&
	       !memcmp(&x, &y, sizeof(x));
}

static json_t *parse(const char *text)
{
	json_t *v = NULL;
	struct gq_err e = GQ_ERR_INIT;
	if (codec_parse(text, strlen(text), &v, &e) < 0)
		printf("# parse failed: %s\n", e.msg);
	return v;
}

static void test_job_round_trip(void)
{
	struct job j, k;
	sample_job(&j);
	json_t *v = codec_job_encode(&j);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_job_decode(v, &k, &e), 0);
	CHECK(same_job(&j, &k));
	CHECK_STR(json_string_value(json_object_get(v, "state")), "running");
	CHECK_STR(json_string_value(json_object_get(v, "tier")), "P2");
	json_decref(v);
	job_release(&j);
	job_release(&k);
}

static void test_job_without_override_encodes_null(void)
{
	struct job j, k;
	job_init(&j);
	json_t *v = codec_job_encode(&j);
	CHECK(json_is_null(json_object_get(v, "override")));
	CHECK_INT(json_array_size(json_object_get(v, "alloc")), 0);
	CHECK_INT(codec_job_decode(v, &k, NULL), 0);
	CHECK(!k.ovr.set);
	CHECK_INT(k.exit_status, -1);
	json_decref(v);
}

static void test_job_rejects_bad_fields(void)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"colour\":1}", "job: unknown field 'colour'"},
	    {"{\"id\":\"7\"}", "job.id: expected an integer, got a string"},
	    {"{\"req\":{\"gpus\":true}}", "job.req.gpus: expected an integer, got a boolean"},
	    {"{\"req\":{\"gpus\":1,\"tpus\":2}}", "job.req: unknown field 'tpus'"},
	    {"{\"tier\":\"P7\"}", "job.tier: unknown tier 'P7'; use P0, P1 or P2"},
	    {"{\"state\":\"sleeping\"}", "job.state: unknown job state 'sleeping'"},
	    {"{\"uid\":-1}", "job.uid: -1 is out of range"},
	    {"{\"deps\":[{\"id\":1,\"kind\":\"after\"}]}",
	     "job.deps[0]: expected {\"id\": JOB, \"kind\": \"afterok\", \"afterany\" or "
	     "\"afternotok\"}"},
	    {"{\"deps\":[{\"id\":0,\"kind\":\"afterany\"}]}",
	     "job.deps[0]: expected a job id (a positive integer)"},
	    {"{\"restarts\":9999999999}", "job.restarts: 9999999999 is out of range"},
	    {"{\"user\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}",
	     "job.user: longer than 31 characters"},
	    {"{\"alloc\":[{\"node\":0,\"gpus\":[64]}]}", "job.alloc[0].gpus[0]: expected 0..63"},
	    {"{\"deps\":[0]}", "job.deps[0]: expected a job id (a positive integer)"},
	    {"[1]", "job: expected an object, got an array"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = parse(cases[i].json);
		struct job j;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(codec_job_decode(v, &j, &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
		CHECK_STR(e.msg, cases[i].msg);
		json_decref(v);
	}
}

static void test_parse_reports_position(void)
{
	json_t *v = NULL;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_parse("{\"a\": }", 7, &v, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK(!strncmp(e.msg, "malformed JSON at line 1, column 7: ", 36));
	CHECK_INT(codec_parse("", 0, &v, &e), -1);
	CHECK_STR(e.msg, "malformed JSON: the body is empty");
	CHECK_INT(codec_parse("{\"a\":1,\"a\":2}", 13, &v, &e), -1);
	CHECK(strstr(e.msg, "duplicate") != NULL);
}

static void test_node_and_event_round_trip(void)
{
	struct node n = {.ngpus = 8, .gpu_mem_mb = 81920, .cpus = 64, .up = true}, m;
	STR_COPY(n.name, "local");
	STR_COPY(n.gpu_model, "a100");
	json_t *v = codec_node_encode(&n);
	CHECK_INT(codec_node_decode(v, &m, NULL), 0);
	CHECK(!memcmp(&n, &m, sizeof(n)));
	json_decref(v);

	struct event ev, f;
	memset(&ev, 0, sizeof(ev));
	ev.seq = 5;
	ev.time = 1700000000;
	ev.job = 42;
	STR_COPY(ev.kind, "state");
	ev.from = JOB_PENDING;
	ev.to = JOB_RUNNING;
	STR_COPY(ev.reason, "started");
	STR_COPY(ev.actor, "scheduler");
	v = codec_event_encode(&ev);
	CHECK_INT(codec_event_decode(v, &f, NULL), 0);
	CHECK(!memcmp(&ev, &f, sizeof(ev)));
	json_t *arr = json_array();
	json_array_append(arr, v);
	json_array_append(arr, v);
	struct event *items = NULL;
	size_t cnt = 0;
	CHECK_INT(codec_events_decode(arr, &items, &cnt, NULL), 0);
	CHECK_INT(cnt, 2);
	CHECK_INT(items[1].seq, 5);
	free(items);
	json_decref(arr);
	json_decref(v);
}

static void test_snapshot_round_trip(void)
{
	struct snapshot s, t;
	snapshot_init(&s);
	snapshot_init(&t);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s.policy, "queue.exp.quota", "4", &e), 0);
	CHECK_INT(policy_set(&s.policy, "queue.exp.department", "research", &e), 0);
	CHECK_INT(policy_set(&s.policy, "department.research.gpuHours", "1000", &e), 0);
	STR_COPY(s.policy.revision, "abc123");
	s.now = 1700000500;
	s.tz_offset = 3600;
	sample_job(snapshot_add_job(&s));
	struct job *j2 = snapshot_add_job(&s);
	job_init(j2);
	j2->id = 3;
	struct node *n = snapshot_add_node(&s);
	STR_COPY(n->name, "local");
	n->ngpus = 8;
	n->up = true;
	s.qstate[1].usage = 12.5;
	s.qstate[1].preempts_hour = 2;
	s.dstate[1].preempts_month = 4;
	json_t *v = codec_snapshot_encode(&s);
	CHECK_INT(codec_snapshot_decode(v, &t, &e), 0);
	CHECK_INT(t.now, 1700000500);
	CHECK_INT(t.tz_offset, 3600);
	CHECK_INT(t.njobs, 2);
	CHECK_INT(t.jobs[0].id, 3); /* sorted */
	CHECK_INT(t.jobs[1].id, 42);
	CHECK_INT(t.nnodes, 1);
	CHECK_STR(t.policy.revision, "abc123");
	CHECK_INT(t.policy.nqueues, 2);
	CHECK_STR(t.policy.queues[1].name, "exp");
	CHECK_INT(t.policy.queues[1].quota, 4);
	CHECK_DBL(t.qstate[1].usage, 12.5, 1e-9);
	CHECK_INT(t.qstate[1].preempts_hour, 2);
	CHECK_INT(t.dstate[1].preempts_month, 4);
	/* The policy survives whole: encoding it again gives the same text. */
	json_t *p1 = codec_policy_encode(&s.policy), *p2 = codec_policy_encode(&t.policy);
	char *a = codec_dump(p1), *b = codec_dump(p2);
	CHECK_STR(a, b);
	free(a);
	free(b);
	json_decref(p1);
	json_decref(p2);
	json_decref(v);
	snapshot_release(&s);
	snapshot_release(&t);
}

static void test_snapshot_rejects_unknown_queue_and_field(void)
{
	struct snapshot t;
	snapshot_init(&t);
	struct gq_err e = GQ_ERR_INIT;
	json_t *v = parse("{\"now\":1,\"queues\":[{\"name\":\"nope\",\"usage\":1}]}");
	CHECK_INT(codec_snapshot_decode(v, &t, &e), -1);
	CHECK_STR(e.msg, "snapshot.queues[0]: 'nope' is not in the policy");
	json_decref(v);
	v = parse("{\"now\":1,\"extra\":true}");
	CHECK_INT(codec_snapshot_decode(v, &t, &e), -1);
	CHECK_STR(e.msg, "snapshot: unknown field 'extra'");
	json_decref(v);
	v = parse("{\"policy\":{\"keys\":{\"aging.cap\":\"abc\"}}}");
	CHECK_INT(codec_snapshot_decode(v, &t, &e), -1);
	CHECK(!strncmp(e.msg, "policy: aging.cap: ", 19));
	json_decref(v);
	snapshot_release(&t);
}

static void test_submission_round_trip(void)
{
	struct submit_req r;
	memset(&r, 0, sizeof(r));
	job_init(&r.job);
	STR_COPY(r.job.name, "train");
	r.job.tier = TIER_P0;
	r.job.req.gpus = 4;
	r.job.estimate = 3600;
	r.job.ndeps = 1;
	r.job.deps[0] = 12;
	char a0[] = "python", a1[] = "train.py", e0[] = "A=1", e1[] = "B=x=y";
	char *argv[] = {a0, a1, NULL};
	char *env[] = {e0, e1, NULL};
	r.argv = argv;
	r.env = env;
	r.cwd = "/tmp";
	json_t *v = codec_submit_encode(&r);
	struct submission s;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_submit_decode(v, &s, &e), 0);
	CHECK_STR(s.job.name, "train");
	CHECK_INT(s.job.tier, TIER_P0);
	CHECK_INT(s.job.req.gpus, 4);
	CHECK_INT(s.job.estimate, 3600);
	CHECK_INT(s.job.ndeps, 1);
	CHECK_INT(s.job.deps[0], 12);
	CHECK_STR(s.argv[0], "python");
	CHECK_STR(s.argv[1], "train.py");
	CHECK(s.argv[2] == NULL);
	CHECK_STR(s.env[1], "B=x=y");
	CHECK_STR(s.cwd, "/tmp");
	CHECK(s.script == NULL);
	submission_release(&s);
	json_decref(v);
}

static void test_submission_rejects(void)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"argv\":[\"x\"],\"id\":5}", "submission: unknown field 'id'"},
	    {"{\"argv\":[\"x\"],\"state\":\"running\"}", "submission: unknown field 'state'"},
	    {"{}", "submission: nothing to run; give 'argv' or 'script'"},
	    {"{\"argv\":[]}", "submission.argv: empty; give the command to run"},
	    {"{\"argv\":[\"x\"],\"script\":\"y\"}",
	     "submission: give either 'argv' or 'script', not both"},
	    {"{\"argv\":[1]}", "submission.argv[0]: expected a string without NUL"},
	    {"{\"argv\":[\"x\"],\"env\":[\"NOVALUE\"]}",
	     "submission.env[0]: 'NOVALUE' is not of the form NAME=VALUE"},
	    {"{\"argv\":[\"x\"],\"req\":{\"gpus\":\"2\"}}",
	     "submission.req.gpus: expected an integer, got a string"},
	    {"{\"argv\":\"x\"}", "submission.argv: expected an array of strings, got a string"},
	    {"[]", "submission: expected an object, got an array"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = parse(cases[i].json);
		struct submission s;
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(codec_submit_decode(v, &s, &e), -1);
		CHECK_STR(e.msg, cases[i].msg);
		json_decref(v);
	}
}

static void test_error_round_trip(void)
{
	struct gq_err e = GQ_ERR_INIT, f = GQ_ERR_INIT;
	err_set(&e, GQ_ENOENT, "no job '7'");
	json_t *v = codec_error_encode(&e);
	char *s = codec_dump(v);
	CHECK_STR(s, "{\"error\":{\"code\":\"not_found\",\"message\":\"no job '7'\"}}");
	free(s);
	CHECK_INT(codec_error_decode(v, &f), 0);
	CHECK_INT(f.code, GQ_ENOENT);
	CHECK_STR(f.msg, "no job '7'");
	json_decref(v);
	v = parse("{\"hello\":1}");
	CHECK_INT(codec_error_decode(v, &f), -1);
	CHECK_INT(f.code, GQ_EINTERNAL);
	json_decref(v);
	/* an error answer saying "ok" would make a failed request exit 0 */
	v = parse("{\"error\":{\"code\":\"ok\",\"message\":\"fine\"}}");
	CHECK_INT(codec_error_decode(v, &f), -1);
	CHECK_INT(f.code, GQ_EINTERNAL);
	CHECK_STR(f.msg, "unexpected answer from the server");
	json_decref(v);
}

static void test_fast_job_text_matches_jansson(void)
{
	struct job j;
	sample_job(&j);
	STR_COPY(j.ovr.reason, "say \"hi\" \\ \n\t\x01 caf\xc3\xa9 /");
	j.hist_ratio = 0.1;
	j.exit_status = -3;
	for (int round = 0; round < 3; round++) {
		if (round == 1) {
			job_release(&j);
			job_init(&j);
			j.id = 7;
		}
		if (round == 2)
			j.hist_ratio = 12345.0;
		json_t *v = codec_job_encode(&j);
		char *want = codec_dump(v);
		struct buf b;
		buf_init(&b, 0);
		codec_job_write(&b, &j);
		CHECK_STR(b.data, want);
		buf_release(&b);
		free(want);
		json_decref(v);
	}
}

static void test_fast_text_replaces_bad_utf8(void)
{
	struct job j;
	job_init(&j);
	STR_COPY(j.name, "a\xff\xc3"
			 "b");
	struct buf b;
	buf_init(&b, 0);
	codec_job_write(&b, &j);
	CHECK(strstr(b.data, "\"name\":\"a??b\"") != NULL);
	json_t *v = NULL;
	CHECK_INT(codec_parse(b.data, b.len, &v, NULL), 0);
	json_decref(v);
	buf_release(&b);
}

/* The full text of a job, to compare two jobs whole. */
static char *job_dump(const struct job *j)
{
	json_t *v = codec_job_encode(j);
	char *t = codec_dump(v);
	json_decref(v);
	return t;
}

/* A job whose every field differs from job_init()'s, the edge values
 * included (exit_status 0, req.gpus 0, state pending but tier P2). */
static void busy_job(struct job *j)
{
	sample_job(j);
	j->id = 60;
	j->state = JOB_PENDING;
	j->exit_status = 0;
	j->req.gpus = 0;
	j->req.cpus = 4;
	j->req.mem_mb = 1024;
	j->borrowed = true;
	j->queued_time = 1;
	j->end_time = 2;
	j->estimate = 3;
	j->time_limit = 4;
	j->hist_runtime = 5;
	j->last_checkpoint = 6;
	j->not_before = 7;
	j->stop_deadline = 8;
	j->held = true;
	STR_COPY(j->held_by, "bob");
	j->held_at = 9;
	j->eligible_time = 12;
	j->reminded_at = 10;
	j->confirmed_at = 11;
}

static void test_lean_job_text(void)
{
	struct buf b;
	buf_init(&b, 0);
	struct job j;
	job_init(&j);
	j.id = 50;
	codec_job_write_lean(&b, &j);
	CHECK_STR(b.data, "{\"id\":50}");
	buf_reset(&b);
	sample_job(&j);
	codec_job_write_lean(&b, &j);
	CHECK_STR(
	    b.data,
	    "{\"id\":42,\"name\":\"train\",\"user\":\"alice\",\"uid\":1000,\"gid\":100,"
	    "\"queue\":\"default\",\"dept\":\"default\",\"tier\":\"P2\",\"state\":\"running\","
	    "\"end_reason\":\"dependency #7 failed (exit 1): afterok can never be met\","
	    "\"submit_time\":1700000000,\"start_time\":1700000200,\"hist_ratio\":0.25,"
	    "\"checkpointable\":true,\"restarts\":2,"
	    "\"req\":{\"gpus\":3,\"gpu_type\":\"a100\",\"gpu_mem_mb\":81920,\"same_node\":true},"
	    "\"override\":{\"tier\":\"P0\",\"actor\":\"admin:root\",\"reason\":\"incident 7\","
	    "\"at\":1700000100},\"alloc\":[{\"node\":0,\"gpus\":[0,2]},{\"node\":1,\"gpus\":[63]}],"
	    "\"deps\":[7,{\"id\":9,\"kind\":\"afternotok\"}]}");
	buf_reset(&b);
	job_release(&j);
	job_init(&j);
	j.id = 51;
	j.req.cpus = 2;
	codec_job_write_lean(&b, &j);
	CHECK_STR(b.data, "{\"id\":51,\"req\":{\"cpus\":2}}");
	buf_release(&b);
}

/* A missing field decodes as its default, and every lean text decodes back
 * to the job it was written from. */
static void test_lean_job_round_trip(void)
{
	struct gq_err e = GQ_ERR_INIT;
	struct job d, got;
	job_init(&d);
	d.id = 7;
	json_t *v = parse("{\"id\":7}");
	CHECK_INT(codec_job_decode(v, &got, &e), 0);
	json_decref(v);
	char *want = job_dump(&d), *have = job_dump(&got);
	CHECK_STR(have, want);
	free(want);
	free(have);
	for (int k = 0; k < 3; k++) {
		struct job j;
		if (k == 0)
			sample_job(&j);
		else if (k == 1)
			busy_job(&j);
		else {
			job_init(&j);
			j.id = 8;
		}
		struct buf b;
		buf_init(&b, 0);
		codec_job_write_lean(&b, &j);
		v = parse(b.data);
		CHECK_INT(codec_job_decode(v, &got, &e), 0);
		json_decref(v);
		want = job_dump(&j);
		have = job_dump(&got);
		CHECK_STR(have, want);
		free(want);
		free(have);
		buf_release(&b);
		job_release(&j);
		job_release(&got);
	}
}

/* The snapshot's text is codec_snapshot_encode's with lean jobs, and
 * codec_snapshot_parse reads it back whole. */
static void test_snapshot_text_is_lean(void)
{
	struct snapshot s, t;
	snapshot_init(&s);
	snapshot_init(&t);
	s.now = 1700000000;
	sample_job(snapshot_add_job(&s));
	busy_job(snapshot_add_job(&s));
	struct job *j = snapshot_add_job(&s);
	job_init(j);
	j->id = 70;
	struct node *n = snapshot_add_node(&s);
	STR_COPY(n->name, "local");
	n->ngpus = 8;
	struct snapshot head = s;
	head.njobs = 0;
	json_t *v = codec_snapshot_encode(&head);
	char *want = codec_dump(v);
	json_decref(v);
	struct buf b;
	buf_init(&b, 0);
	const char *mark = strstr(want, "\"jobs\":[]");
	CHECK(mark != NULL);
	buf_add(&b, want, (size_t)(mark - want) + 8);
	for (size_t i = 0; i < s.njobs; i++) {
		if (i)
			buf_add(&b, ",", 1);
		codec_job_write_lean(&b, &s.jobs[i]);
	}
	buf_add(&b, mark + 8, strlen(mark + 8));
	size_t len = 0;
	char *got = codec_snapshot_text(&s, CODEC_OBJECTS, &len, NULL);
	CHECK_STR(got, b.data);
	CHECK_INT(len, b.len);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_snapshot_parse(got, len, &t, &e), 0);
	CHECK_INT(t.now, 1700000000);
	CHECK_INT(t.njobs, 3);
	CHECK_INT(t.nnodes, 1);
	CHECK_STR(t.nodes[0].name, "local");
	for (size_t i = 0; i < 3 && i < t.njobs; i++) {
		char *x = job_dump(&s.jobs[i]), *y = job_dump(&t.jobs[i]);
		CHECK_STR(y, x);
		free(x);
		free(y);
	}
	/* Errors come out as from codec_parse / codec_snapshot_decode. */
	CHECK_INT(codec_snapshot_parse("{\"jobs\":[{\"id\":1,\"x\":2}]}", 25, &t, &e), -1);
	CHECK_STR(e.msg, "snapshot.jobs[0]: job: unknown field 'x'");
	CHECK_INT(codec_snapshot_parse("{\"jobs\":", 8, &t, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	free(got);
	free(want);
	buf_release(&b);
	snapshot_release(&s);
	snapshot_release(&t);
}

/* The rows form: only the columns some job needs, null for defaults, and
 * read back to the same jobs. */
/* A number JSON cannot say is an error of the encoder, never a crash: once
 * it was "fatal: out of memory" in the server, for every gq ls. */
static void test_snapshot_text_refuses_non_finite(void)
{
	struct snapshot s;
	snapshot_init(&s);
	s.now = 1700000000;
	s.qstate[0].usage = NAN;
	struct job *j = snapshot_add_job(&s);
	j->id = 1;
	struct gq_err e = GQ_ERR_INIT;
	size_t len = 0;
	CHECK(codec_snapshot_text(&s, CODEC_ROWS, &len, &e) == NULL);
	CHECK_INT(e.code, GQ_EINTERNAL);
	CHECK_STR(e.msg, "the fair-share usage of queue 'default' is not a finite number (nan)");
	s.qstate[0].usage = 1;
	j->hist_ratio = INFINITY;
	CHECK(codec_snapshot_text(&s, CODEC_OBJECTS, &len, &e) == NULL);
	CHECK_STR(e.msg, "the runtime ratio of job '1' is not a finite number (inf)");
	/* the encoders underneath write null, which no decoder takes for a number */
	json_t *v = codec_job_encode(j);
	CHECK(json_is_null(json_object_get(v, "hist_ratio")));
	struct job back;
	CHECK_INT(codec_job_decode(v, &back, &e), -1);
	json_decref(v);
	snapshot_release(&s);
}

/* Times the server keeps are 0..GQ_TIME_MAX; a decoder takes nothing else,
 * so a journalled time can never be one a later read refuses. */
static void test_times_out_of_range_are_refused(void)
{
	struct gq_err e = GQ_ERR_INIT;
	struct job j;
	json_t *v = json_pack("{s:I,s:I}", "id", (json_int_t)1, "queued_time", (json_int_t)-5);
	CHECK_INT(codec_job_decode(v, &j, &e), -1);
	CHECK_STR(e.msg, "job.queued_time: -5 is not a time gq keeps (0..303859900799)");
	json_decref(v);
	v = json_pack("{s:I,s:I}", "id", (json_int_t)1, "end_time", (json_int_t)GQ_TIME_MAX);
	CHECK_INT(codec_job_decode(v, &j, &e), 0);
	json_decref(v);
}

/* gq serve --slurm hands on the Slurm backend's snapshot: Slurm's view of
 * each job (ext_*) and who orders the queue must survive the rows form,
 * or why and eta through the front would explain another queue. */
static void test_snapshot_rows_carry_slurm_fields(void)
{
	struct snapshot s, t;
	snapshot_init(&s);
	snapshot_init(&t);
	s.now = 1700000000;
	s.order = ORDER_BACKEND;
	struct job *j = snapshot_add_job(&s);
	j->id = 12;
	STR_COPY(j->ext_reason, "QOSMaxGRESPerUser");
	STR_COPY(j->ext_class, "quota");
	j->ext_start = 1700000600;
	j->ext_prio = 11059;
	STR_COPY(j->ext_array, "0-3%2");
	STR_COPY(j->ext_qos, "p2");
	STR_COPY(j->ext_detail, "gpu2 down or drained");
	j = snapshot_add_job(&s);
	j->id = 13;
	size_t len = 0;
	struct gq_err e = GQ_ERR_INIT;
	char *got = codec_snapshot_text(&s, CODEC_ROWS, &len, &e);
	CHECK(got != NULL);
	CHECK_INT(codec_snapshot_parse(got ? got : "", len, &t, &e), 0);
	CHECK_INT(t.order, ORDER_BACKEND);
	CHECK_INT(t.njobs, 2);
	if (t.njobs == 2) {
		CHECK_STR(t.jobs[0].ext_reason, "QOSMaxGRESPerUser");
		CHECK_STR(t.jobs[0].ext_class, "quota");
		CHECK_INT(t.jobs[0].ext_start, 1700000600);
		CHECK_INT(t.jobs[0].ext_prio, 11059);
		CHECK_STR(t.jobs[0].ext_array, "0-3%2");
		CHECK_STR(t.jobs[0].ext_qos, "p2");
		CHECK_STR(t.jobs[0].ext_detail, "gpu2 down or drained");
		CHECK_STR(t.jobs[1].ext_reason, "");
	}
	free(got);
	/* gq serve's own snapshot says nothing of them: its text is as before */
	snapshot_release(&s);
	snapshot_init(&s);
	s.now = 1700000000;
	snapshot_add_job(&s)->id = 1;
	got = codec_snapshot_text(&s, CODEC_ROWS, &len, &e);
	CHECK(got && !strstr(got, "\"order\"") && !strstr(got, "ext_"));
	free(got);
	snapshot_release(&s);
	snapshot_release(&t);
}

static void test_snapshot_rows(void)
{
	struct snapshot s, t;
	snapshot_init(&s);
	snapshot_init(&t);
	s.now = 1700000000;
	struct job *j = snapshot_add_job(&s);
	j->id = 3;
	STR_COPY(j->name, "a");
	j->req.gpus = 2;
	j->submit_time = 1700000000 - 60;
	j = snapshot_add_job(&s);
	j->id = 4;
	j->tier = TIER_P0;
	size_t len = 0;
	char *got = codec_snapshot_text(&s, CODEC_ROWS, &len, NULL);
	const char *at = strstr(got, "\"job_columns\"");
	/* columns by how many jobs fill them; strings by index; trailing
	 * nulls left out */
	const char *want =
	    "\"job_columns\":[\"id\",\"name\",\"tier\",\"submit_time\",\"req.gpus\"],"
	    "\"job_strings\":[\"a\",\"P0\"],\"job_time_base\":1700000000,"
	    "\"jobs\":[[3,0,null,-60,2],[4,null,1]],\"nodes\"";
	char head[256] = "";
	CHECK(at != NULL);
	if (at)
		snprintf(head, sizeof(head), "%.*s", (int)strlen(want), at);
	CHECK_STR(head, want);
	free(got);
	/* every field of every kind survives the trip */
	snapshot_release(&s);
	snapshot_init(&s);
	s.now = 1700000123; /* times travel relative to it */
	sample_job(snapshot_add_job(&s));
	busy_job(snapshot_add_job(&s));
	j = snapshot_add_job(&s);
	j->id = 70;
	got = codec_snapshot_text(&s, CODEC_ROWS, &len, NULL);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(codec_snapshot_parse(got, len, &t, &e), 0);
	CHECK_INT(t.njobs, 3);
	for (size_t i = 0; i < 3 && i < t.njobs; i++) {
		char *x = job_dump(&s.jobs[i]), *y = job_dump(&t.jobs[i]);
		CHECK_STR(y, x);
		free(x);
		free(y);
	}
	free(got);
	/* bad shapes name what is wrong */
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"{\"job_columns\":[\"id\",\"colour\"],\"jobs\":[]}",
	     "snapshot.job_columns[1]: unknown column 'colour'"},
	    {"{\"job_columns\":[\"id\",\"id\"],\"jobs\":[]}",
	     "snapshot.job_columns[1]: column 'id' given twice"},
	    {"{\"job_columns\":[\"name\"],\"jobs\":[]}", "snapshot.job_columns: no \"id\" column"},
	    {"{\"job_columns\":[\"name\",\"id\"],\"jobs\":[]}",
	     "snapshot.job_columns: \"id\" must be the first column"},
	    {"{\"job_columns\":\"id\",\"jobs\":[]}",
	     "snapshot.job_columns: expected an array of column names, got a string"},
	    {"{\"job_columns\":[\"id\",\"name\"],\"jobs\":[[1,\"a\",2]]}",
	     "snapshot.jobs[0]: expected 1 to 2 cells, got 3"},
	    {"{\"job_columns\":[\"id\"],\"jobs\":[[]]}",
	     "snapshot.jobs[0]: expected 1 to 1 cells, got 0"},
	    {"{\"job_columns\":[\"id\"],\"jobs\":[{\"id\":1}]}",
	     "snapshot.jobs[0]: expected an array of cells, got an object"},
	    {"{\"job_columns\":[\"id\",\"name\"],\"job_strings\":[\"x\"],\"jobs\":[[1,0],[2,5]]}",
	     "snapshot.jobs[1].name: string 5 is not in job_strings"},
	    {"{\"job_columns\":[\"id\",\"tier\"],\"job_strings\":[\"P7\"],\"jobs\":[[1,0]]}",
	     "snapshot.jobs[0].tier: unknown tier 'P7'; use P0, P1 or P2"},
	    {"{\"job_columns\":[\"id\"],\"job_strings\":[1],\"jobs\":[]}",
	     "snapshot.job_strings[0]: expected a string, got an integer"},
	    {"{\"job_strings\":[],\"jobs\":[]}", "snapshot.job_strings: only with job_columns"},
	    {"{\"job_columns\":[\"id\"],\"job_time_base\":\"now\",\"jobs\":[]}",
	     "snapshot.job_time_base: expected an integer, got a string"},
	    {"{\"job_columns\":[\"id\",\"start_time\"],\"job_time_base\":9223372036854775807,"
	     "\"jobs\":[[1,1]]}",
	     "snapshot.jobs[0].start_time: 1 from the time base is out of range"},
	    {"{\"job_columns\":[\"id\",\"req.gpus\"],\"jobs\":[[1,2],[2,\"x\"]]}",
	     "snapshot.jobs[1].req.gpus: expected an integer, got a string"},
	    {"{\"job_columns\":[\"id\",\"deps\"],\"jobs\":[[1,[0]]]}",
	     "snapshot.jobs[0]: job.deps[0]: expected a job id (a positive integer)"},
	    {"{\"job_columns\":[\"id\"],\"jobs\":[[null]]}",
	     "snapshot.jobs[0].id: expected an integer, got null"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(codec_snapshot_parse(bad[i].text, strlen(bad[i].text), &t, &e), -1);
		CHECK_STR(e.msg, bad[i].msg);
	}
	snapshot_release(&s);
	snapshot_release(&t);
}

/* An allocation of any size up to GQ_MAX_SPAN nodes: 200 nodes go through
 * both encoders and back; one entry more than the bound is refused. */
static void test_job_alloc_any_size(void)
{
	struct job j, k;
	sample_job(&j);
	struct job_alloc *a = xcalloc(200, sizeof(*a));
	for (int i = 0; i < 200; i++)
		a[i] = (struct job_alloc){i, 0xff};
	job_set_alloc(&j, 200, a);
	free(a);
	struct gq_err e = GQ_ERR_INIT;
	json_t *v = codec_job_encode(&j);
	CHECK_INT(codec_job_decode(v, &k, &e), 0);
	CHECK(same_job(&j, &k));
	json_decref(v);
	job_release(&k);
	struct buf b;
	buf_init(&b, 0);
	codec_job_write_lean(&b, &j);
	v = parse(b.data);
	CHECK_INT(codec_job_decode(v, &k, &e), 0);
	CHECK(same_job(&j, &k));
	json_decref(v);
	job_release(&k);
	buf_release(&b);
	job_release(&j);

	json_t *wide = json_array();
	for (int i = 0; i <= GQ_MAX_SPAN; i++)
		json_array_append_new(wide, json_pack("{s:i,s:[i]}", "node", i, "gpus", 0));
	v = json_pack("{s:o}", "alloc", wide);
	CHECK_INT(codec_job_decode(v, &k, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK_STR(e.msg, "job.alloc: at most 4096 nodes, got 4097");
	json_decref(v);
}

/* Fields added after clients that refuse members they do not know (gq
 * 0.1's) are written only when set: a job's reservation, a node's state;
 * set, they come back. Both writers, the text one and jansson's. */
static void test_new_fields_only_when_set(void)
{
	struct job j;
	job_init(&j);
	j.id = 7;
	struct buf b;
	buf_init(&b, 0);
	codec_job_write(&b, &j);
	CHECK(strstr(b.data, "reservation") == NULL);
	json_t *jo = codec_job_encode(&j);
	char *t = codec_dump(jo);
	CHECK(strstr(t, "reservation") == NULL);
	free(t);
	json_decref(jo);
	STR_COPY(j.reservation, "maint");
	buf_reset(&b);
	codec_job_write(&b, &j);
	CHECK(strstr(b.data, "\"reservation\":\"maint\"") != NULL);
	json_t *v = NULL;
	struct gq_err e = GQ_ERR_INIT;
	struct job back;
	if (CHECK_INT(codec_parse(b.data, b.len, &v, &e), 0)) {
		CHECK_INT(codec_job_decode(v, &back, &e), 0);
		CHECK_STR(back.reservation, "maint");
		job_release(&back);
		json_decref(v);
	}
	buf_release(&b);
	job_release(&j);
	struct node n = {.name = "gpu1", .up = true};
	json_t *o = codec_node_encode(&n);
	CHECK(json_object_get(o, "state") == NULL);
	json_decref(o);
	n.up = false;
	STR_COPY(n.state, "drained");
	o = codec_node_encode(&n);
	struct node nb;
	CHECK_INT(codec_node_decode(o, &nb, &e), 0);
	CHECK_STR(nb.state, "drained");
	CHECK(!nb.up);
	json_decref(o);
}

void suite_codec(void)
{
	RUN(test_new_fields_only_when_set);
	RUN(test_job_alloc_any_size);
	RUN(test_fast_job_text_matches_jansson);
	RUN(test_fast_text_replaces_bad_utf8);
	RUN(test_lean_job_text);
	RUN(test_lean_job_round_trip);
	RUN(test_snapshot_text_is_lean);
	RUN(test_snapshot_text_refuses_non_finite);
	RUN(test_times_out_of_range_are_refused);
	RUN(test_snapshot_rows);
	RUN(test_snapshot_rows_carry_slurm_fields);
	RUN(test_job_round_trip);
	RUN(test_job_without_override_encodes_null);
	RUN(test_job_rejects_bad_fields);
	RUN(test_parse_reports_position);
	RUN(test_node_and_event_round_trip);
	RUN(test_snapshot_round_trip);
	RUN(test_snapshot_rejects_unknown_queue_and_field);
	RUN(test_submission_round_trip);
	RUN(test_submission_rejects);
	RUN(test_error_round_trip);
}
