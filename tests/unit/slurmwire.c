/*
 * slurmwire.c - wire/slurm.c against every fixture of
 * tests/unit/fixtures-slurm/: the captured v0.0.38 answers and the written
 * v0.0.39..42 ones decode to the same gq jobs and nodes, and every error
 * fixture maps to its exit class.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/depend.h"
#include "core/job.h"
#include "core/order.h"
#include "core/stats.h"
#include "explain/explain.h"
#include "harness.h"
#include "wire/slurm.h"
#include "wire/wire.h"

static char *slurp(const char *name, size_t *len)
{
	const char *dir = getenv("GQ_SLURM_FIXTURES");
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/unit/fixtures-slurm", name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		*len = 0;
		return NULL;
	}
	char *b = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			b = realloc(b, cap);
		}
		size_t k = fread(b + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	b[n] = '\0';
	*len = n;
	return b;
}

static struct slurm_map map(void)
{
	struct slurm_map m;
	struct gq_err e = GQ_ERR_INIT;
	slurm_map_parse(NULL, &m, &e);
	return m;
}

/* Nodes then jobs of one version's files into s. */
static int load(struct snapshot *s, const char *nodes, const char *jobs, struct slurm_job_extra **x,
		size_t *nx)
{
	struct gq_err e = GQ_ERR_INIT;
	size_t len;
	char *t = slurp(nodes, &len);
	int rc = t ? slurm_nodes_decode(t, len, s, NULL, &e) : -1;
	free(t);
	if (rc < 0)
		return -1;
	t = slurp(jobs, &len);
	struct slurm_map m = map();
	rc = t ? slurm_jobs_decode(t, len, s, &m, x, nx, &e) : -1;
	free(t);
	if (rc < 0)
		printf("# %s: %s\n", jobs, e.msg);
	snapshot_sort(s);
	return rc;
}

/* The same queue, whatever the version: jobs_final of the kit. */
static void check_final(const char *nodes, const char *jobs)
{
	struct snapshot s;
	snapshot_init(&s);
	struct slurm_job_extra *x = NULL;
	size_t nx = 0;
	if (!CHECK(load(&s, nodes, jobs, &x, &nx) == 0))
		goto out;
	CHECK_INT(s.njobs, 17);
	CHECK_INT(s.nnodes, 3);
	const struct node *cpu1 = NULL, *gpu1 = NULL;
	for (size_t i = 0; i < s.nnodes; i++) {
		if (!strcmp(s.nodes[i].name, "cpu1"))
			cpu1 = &s.nodes[i];
		if (!strcmp(s.nodes[i].name, "gpu1"))
			gpu1 = &s.nodes[i];
	}
	if (CHECK(cpu1 && gpu1)) {
		CHECK(!cpu1->up); /* idle + DRAIN */
		CHECK_INT(cpu1->ngpus, 0);
		CHECK(gpu1->up);
		CHECK_INT(gpu1->ngpus, 4);
		CHECK_STR(gpu1->gpu_model, "a100");
		CHECK_INT(gpu1->cpus, 16);
		CHECK_INT(gpu1->mem_mb, 64000);
	}
	const struct job *j;
	if (CHECK((j = snapshot_find(&s, 1)) != NULL)) {
		CHECK_INT(j->state, JOB_COMPLETED);
		CHECK_INT(j->exit_status, 0);
		CHECK_STR(j->dept, "proj_b");
		CHECK_STR(j->queue, "debug");
	}
	if (CHECK((j = snapshot_find(&s, 2)) != NULL)) {
		CHECK_INT(j->state, JOB_FAILED);
		CHECK_INT(j->exit_status, 3);
	}
	if (CHECK((j = snapshot_find(&s, 3)) != NULL)) {
		CHECK_INT(j->state, JOB_TIMEOUT);
		CHECK_INT(j->exit_status, 128 + 15);
		CHECK_INT(j->time_limit, 60);
	}
	if (CHECK((j = snapshot_find(&s, 4)) != NULL)) {
		CHECK_INT(j->state, JOB_RUNNING);
		CHECK_INT(j->req.gpus, 2);
		CHECK_STR(j->req.gpu_type, "a100");
		CHECK_INT(j->tier, TIER_P1);
		CHECK_INT(j->nalloc, 1);
		CHECK(gpu1 && j->alloc[0].node == (int)(gpu1 - s.nodes));
		CHECK_INT(j->alloc[0].mask, 0x3);
		CHECK_INT(j->time_limit, 600 * 60);
		CHECK_INT(j->req.cpus, 4);
		CHECK_INT(j->req.mem_mb, 8000);
	}
	if (CHECK((j = snapshot_find(&s, 7)) != NULL))
		CHECK_INT(j->alloc[0].mask, 0x8);	 /* IDX:3 */
	if (CHECK((j = snapshot_find(&s, 6)) != NULL)) { /* requeued by preemption */
		CHECK_INT(j->state, JOB_PENDING);
		CHECK_INT(j->restarts, 1);
		CHECK_STR(j->ext_reason, "BeginTime");
		CHECK_STR(j->ext_class, "cooldown");
		CHECK_INT(j->tier, TIER_P2);
		CHECK_INT(j->ext_start, 1795947760);
		CHECK_INT(j->start_time, 0);
	}
	if (CHECK((j = snapshot_find(&s, 9)) != NULL)) {
		CHECK(j->held);
		CHECK_STR(j->ext_class, "held");
		CHECK_STR(j->held_by, "admin");
	}
	if (CHECK((j = snapshot_find(&s, 10)) != NULL)) {
		CHECK_INT(j->tier, TIER_P0);
		CHECK_INT(j->ext_prio, 12533);
		CHECK_INT(j->req.gpus, 4);
		CHECK_STR(j->ext_class, "priority");
	}
	if (CHECK((j = snapshot_find(&s, 13)) != NULL)) {
		CHECK_INT(j->ndeps, 1);
		CHECK_INT(j->deps[0], 4);
		CHECK_INT(j->dep_kind[0], DEP_AFTEROK); /* "afterok:4(unfulfilled)" */
		CHECK_STR(j->ext_class, "dependency");
		CHECK_INT(j->ext_start, 0);
	}
	if (CHECK((j = snapshot_find(&s, 14)) != NULL)) {
		CHECK_STR(j->ext_class, "begin"); /* the user's --begin, not a cooldown */
		CHECK_INT(j->begin_time, 1795954830);
		CHECK_INT(j->not_before, 0);
	}
	if (CHECK((j = snapshot_find(&s, 15)) != NULL))
		CHECK_STR(j->ext_array, "0-3%2");
	if (CHECK((j = snapshot_find(&s, 12)) != NULL))
		CHECK_INT(j->state, JOB_CANCELLED);
	if (CHECK((j = snapshot_find(&s, 17)) != NULL)) {
		CHECK_INT(j->state, JOB_FAILED);
		CHECK_INT(j->req.gpus, 9);
	}
	CHECK_INT(nx, 17);
out:
	free(x);
	snapshot_release(&s);
}

static void final_v38(void)
{
	check_final("v0.0.38/nodes_final.json", "v0.0.38/jobs_final.json");
}

static void final_written(void)
{
	static const char *const v[] = {"v0.0.39", "v0.0.40", "v0.0.41", "v0.0.42"};
	for (size_t i = 0; i < 4; i++) {
		char n[96], j[96];
		snprintf(n, sizeof(n), "written/%s_nodes.json", v[i]);
		snprintf(j, sizeof(j), "written/%s_jobs.json", v[i]);
		printf("# %s\n", v[i]);
		check_final(n, j);
	}
}

/* Every other captured job and node answer decodes. */
/* slurmdbd's records: every user's completed runs, with whose and which
 * name; the failed, preempted, running ones do not count. */
static void history_v38(void)
{
	size_t len;
	char *t = slurp("v0.0.38/db_jobs.json", &len);
	if (!CHECK(t != NULL))
		return;
	struct gq_err e = GQ_ERR_INIT;
	size_t n = 0;
	struct slurm_run *r = NULL;
	CHECK_INT(slurm_runs_decode("{", 1, &r, &n, &e), -1);
	CHECK_INT(slurm_runs_decode(t, len, &r, &n, &e), 0);
	if (CHECK_INT(n, 1)) {
		CHECK_STR(r[0].user, "bob");
		CHECK_STR(r[0].name, "prep-data");
		CHECK_INT(r[0].elapsed, 1);
		CHECK(r[0].id > 0);
	}
	free(r);
	free(t);
}

static void every_v38(void)
{
	static const char *const jobs[] = {
	    "jobs.json",	  "jobs_after_preemption.json", "job_array.json",
	    "job_preempted.json", "job_after_signal.json",	"job_timeout.json",
	    "job_running.json",	  "jobs_reasons.json",
	};
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct snapshot s;
		snapshot_init(&s);
		char p[96];
		snprintf(p, sizeof(p), "v0.0.38/%s", jobs[i]);
		CHECK(load(&s, "v0.0.38/nodes.json", p, NULL, NULL) == 0);
		CHECK(s.njobs > 0);
		snapshot_release(&s);
	}
	struct snapshot s;
	snapshot_init(&s);
	CHECK(load(&s, "v0.0.38/nodes.json", "v0.0.38/jobs.json", NULL, NULL) == 0);
	const struct job *j = snapshot_find(&s, 4);
	if (CHECK(j != NULL))
		CHECK_INT(j->alloc[0].mask, 0x3);
	snapshot_release(&s);
	snapshot_init(&s);
	CHECK(load(&s, "v0.0.38/nodes_idle.json", "v0.0.38/job_after_signal.json", NULL, NULL) ==
	      0);
	if (CHECK((j = snapshot_find(&s, 8)) != NULL))
		CHECK_INT(j->exit_status, 128 + 10); /* SIGUSR1 */
	snapshot_release(&s);
}

/* An array with two tasks split off to run and two pending behind its
 * throttle (written from MAPPING.md's array row): the running ones are
 * tasks A_T, the pending record stands for the rest with Slurm's reason
 * as gq's throttle. */
static void array_split(void)
{
	struct snapshot s;
	snapshot_init(&s);
	CHECK(load(&s, "v0.0.38/nodes.json", "written/v0.0.38_job_array_split.json", NULL, NULL) ==
	      0);
	const struct job *j;
	if (CHECK((j = snapshot_find(&s, 15)) != NULL)) {
		CHECK_STR(j->ext_array, "2-3%2");
		CHECK_STR(j->ext_class, "throttle");
		CHECK_INT(j->array_id, 0);
	}
	if (CHECK((j = snapshot_find(&s, 17)) != NULL)) {
		CHECK_INT(j->state, JOB_RUNNING);
		CHECK_INT(j->array_id, 15);
		CHECK_INT(j->array_task, 1);
		CHECK_STR(j->ext_array, "");
	}
	snapshot_release(&s);
}

/* A job Slurm holds back by a per-user limit is gq's user_limit, one held
 * by a group's limit quota, with Slurm's word kept beside: the kit's
 * captured QOSMaxGRESPerUser job, and the hand-written copies of it. */
static void user_limits(void)
{
	static const struct {
		int64_t id;
		const char *reason, *cls;
	} want[] = {{9, "QOSMaxGRESPerUser", "user_limit"},
		    {10, "QOSMaxJobsPerUserLimit", "user_limit"},
		    {11, "AssocGrpGRES", "quota"},
		    {12, "QOSMaxSubmitJobPerUserLimit", "user_limit"}};
	struct snapshot s;
	snapshot_init(&s);
	CHECK(load(&s, "v0.0.38/nodes.json", "v0.0.38/job_pending_qosmaxgres.json", NULL, NULL) ==
	      0);
	const struct job *j;
	if (CHECK((j = snapshot_find(&s, 9)) != NULL)) {
		CHECK_INT(j->state, JOB_PENDING);
		CHECK_STR(j->user, "alice");
		CHECK_STR(j->ext_reason, "QOSMaxGRESPerUser");
		CHECK_STR(j->ext_class, "user_limit");
	}
	snapshot_release(&s);
	snapshot_init(&s);
	CHECK(load(&s, "v0.0.38/nodes.json", "written/v0.0.38_job_user_limits.json", NULL, NULL) ==
	      0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!CHECK((j = snapshot_find(&s, want[i].id)) != NULL))
			continue;
		CHECK_STR(j->ext_reason, want[i].reason);
		CHECK_STR(j->ext_class, want[i].cls);
	}
	snapshot_release(&s);
}

/* Reasons captured on the kit (jobs_reasons.json, gpu2 drained): a
 * dependency Slurm says can never be met is never, not a wait for its job,
 * even once that job is gone; required nodes all drained are unsatisfiable
 * for now, named; priority 0 is held; a partition's time limit is
 * unsatisfiable. */
static void reasons_captured(void)
{
	struct snapshot s;
	snapshot_init(&s);
	if (!CHECK(load(&s, "v0.0.38/nodes_gpu2_drained.json", "v0.0.38/jobs_reasons.json", NULL,
			NULL) == 0))
		return;
	s.now = 1796519800;
	/* As sinfo says them: gpu2 idle with DRAIN is drained, not down. */
	for (size_t i = 0; i < s.nnodes; i++)
		CHECK_STR(s.nodes[i].state, strcmp(s.nodes[i].name, "gpu2") ? "" : "drained");
	const struct job *j;
	if (CHECK((j = snapshot_find(&s, 49)) != NULL)) { /* afterok:48(failed) */
		CHECK_STR(j->ext_reason, "DependencyNeverSatisfied");
		CHECK_STR(j->ext_class, "dependency");
		CHECK_STR(j->ext_detail, "can never be met");
		CHECK_INT(j->dep_dead, 1);
		struct dep_never d;
		CHECK(dep_never(&s, j, &d) && d.job == 48 && !d.gone);
	}
	if (CHECK((j = snapshot_find(&s, 50)) != NULL)) { /* -w gpu2, drained */
		CHECK_STR(j->ext_reason, "ReqNodeNotAvail");
		CHECK_STR(j->ext_class, "unsatisfiable");
		CHECK_STR(j->ext_detail, "gpu2 down or drained");
	}
	if (CHECK((j = snapshot_find(&s, 51)) != NULL)) { /* -t 2-0 on gpu (1 day) */
		CHECK_STR(j->ext_reason, "PartitionTimeLimit");
		CHECK_STR(j->ext_class, "unsatisfiable");
	}
	if (CHECK((j = snapshot_find(&s, 52)) != NULL)) { /* scontrol hold: priority 0 */
		CHECK(j->held);
		CHECK_STR(j->held_by, "admin");
		CHECK_STR(j->ext_class, "held");
	}
	/* gq's own explanation of 49: never, and says why. */
	struct explain_set x;
	explain_compute(&s, NULL, &x);
	const struct explain *ex = explain_find(&x, 49);
	if (CHECK(ex != NULL && ex->why)) {
		struct buf b;
		buf_init(&b, 0);
		explain_text(&x, ex, &b);
		CHECK(strstr(b.data, "Can never start: #48 ended failed, so its afterok can never "
				     "be met.") != NULL);
		CHECK(strstr(b.data, "Waits for #48") == NULL);
		buf_release(&b);
	}
	explain_release(&x);
	/* The failed job forgotten (MinJobAge): still never, as Slurm says. */
	struct job *f = (struct job *)snapshot_find(&s, 48);
	if (CHECK(f != NULL)) {
		f->id = 47; /* gone from 49's point of view; the order by id holds */
		struct dep_never d;
		j = snapshot_find(&s, 49);
		CHECK(j && dep_never(&s, j, &d) && d.job == 48 && d.gone);
		explain_compute(&s, NULL, &x);
		ex = explain_find(&x, 49);
		if (CHECK(ex != NULL && ex->why)) {
			struct buf b;
			buf_init(&b, 0);
			explain_text(&x, ex, &b);
			CHECK(strstr(b.data,
				     "Can never start: #48 is gone, so its afterok can never "
				     "be met.") != NULL);
			buf_release(&b);
		}
		explain_release(&x);
	}
	snapshot_release(&s);
}

static void partitions(void)
{
	size_t len;
	char *t = slurp("v0.0.38/partitions.json", &len);
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	CHECK(t && slurm_partitions_decode(t, len, &s.policy, &e) == 0);
	CHECK(policy_queue_index(&s.policy, "gpu") >= 0);
	CHECK(policy_queue_index(&s.policy, "debug") >= 0);
	CHECK_STR(s.policy.default_queue, "gpu");
	/* MaxTime (minutes) is the queue's maxTime: 1 day and 2 hours. */
	CHECK_INT(s.policy.queues[policy_queue_index(&s.policy, "gpu")].max_time, 86400);
	CHECK_INT(s.policy.queues[policy_queue_index(&s.policy, "debug")].max_time, 7200);
	free(t);
}

static void ping_meta(void)
{
	static const char *const f[] = {"v0.0.38/ping.json", "written/v0.0.39_ping.json",
					"written/v0.0.40_ping.json", "written/v0.0.41_ping.json",
					"written/v0.0.42_ping.json"};
	for (size_t i = 0; i < 5; i++) {
		size_t len;
		char *t = slurp(f[i], &len);
		struct gq_err e = GQ_ERR_INIT;
		CHECK(t && slurm_ping_decode(t, len, &e) == 0);
		struct slurm_meta m;
		CHECK(t && slurm_meta_decode(t, len, &m, &e) == 0);
		CHECK(m.major >= 22);
		CHECK(m.minor > 0);
		CHECK(m.release[0]);
		free(t);
	}
	size_t len;
	char *t = slurp("v0.0.38/ping.json", &len);
	struct slurm_meta m;
	struct gq_err e = GQ_ERR_INIT;
	slurm_meta_decode(t, len, &m, &e);
	CHECK_INT(m.major, 22);
	CHECK_INT(m.minor, 5);
	CHECK_INT(m.micro, 8);
	CHECK_STR(m.plugin, "openapi/v0.0.38");
	free(t);
	t = slurp("v0.0.38/diag_busy.json", &len);
	CHECK(t && slurm_diag_job_queries(t, len) > 0);
	/* slurmctld's clock, for update_time (the kit's statistics.req_time) */
	CHECK(t && slurm_diag_time(t, len) == 1795947638);
	CHECK_INT(slurm_diag_time("{\"statistics\": {\"req_time\": {\"set\": true, "
				  "\"infinite\": false, \"number\": 1795947638}}}",
				  strlen("{\"statistics\": {\"req_time\": {\"set\": true, "
					 "\"infinite\": false, \"number\": 1795947638}}}")),
		  1795947638);
	CHECK_INT(slurm_diag_time("{}", 2), 0);
	free(t);
}

static void submit_answers(void)
{
	static const char *const f[] = {
	    "v0.0.38/job_submit_response.json",		"written/v0.0.39_job_submit_response.json",
	    "written/v0.0.40_job_submit_response.json", "written/v0.0.41_job_submit_response.json",
	    "written/v0.0.42_job_submit_response.json",
	};
	for (size_t i = 0; i < 5; i++) {
		size_t len;
		char *t = slurp(f[i], &len);
		struct gq_err e = GQ_ERR_INIT;
		int64_t id = 0;
		CHECK(t && slurm_errors(t, len, 200, &e) == 0);
		CHECK(t && slurm_submit_decode(t, len, &id, &e) == 0);
		CHECK_INT(id, 4);
		free(t);
	}
}

/* Every error fixture with the HTTP status it came with (the kit's
 * INDEX.md) and the class gq gives it. */
static void errors(void)
{
	static const struct {
		const char *file;
		long status;
		enum gq_errcode code;
		const char *words;
	} tab[] = {
	    {"v0.0.38/error_job_not_found.json", 500, GQ_ENOENT, "Unable to find JobId=999999"},
	    {"v0.0.38/error_bad_token.json", 500, GQ_EPERM, "token"},
	    {"v0.0.38/error_submit_bad_partition.json", 500, GQ_EINVAL, "Invalid partition"},
	    {"v0.0.38/error_submit_too_many_gpus.json", 500, GQ_EINVAL,
	     "Requested node configuration is not available"},
	    {"v0.0.38/error_submit_bad_begin_time.json", 400, GQ_EINVAL, "Unable to parse time"},
	    {"v0.0.38/job_update_priority_denied.json", 500, GQ_EPERM, "permission denied"},
	    {"v0.0.38/job_update_foreign_job_denied.json", 500, GQ_EPERM, "Invalid user id"},
	    {"v0.0.38/error_no_auth.txt", 401, GQ_EPERM, "token"},
	    {"v0.0.38/error_unknown_path.txt", 404, GQ_ENOENT, "API version"},
	    {"v0.0.38/error_unsupported_version.txt", 404, GQ_ENOENT, "API version"},
	    {"v0.0.38/error_submit_malformed_json.txt", 400, GQ_EINVAL, "Unable to parse"},
	    {"written/v0.0.39_error_job_not_found.json", 500, GQ_ENOENT, "JobId=999999"},
	    {"written/v0.0.40_error_job_not_found.json", 500, GQ_ENOENT, "JobId=999999"},
	    {"written/v0.0.41_error_job_not_found.json", 500, GQ_ENOENT, "JobId=999999"},
	    {"written/v0.0.42_error_job_not_found.json", 500, GQ_ENOENT, "JobId=999999"},
	    {"written/v0.0.39_error_permission.json", 500, GQ_EPERM, "Invalid user id"},
	    {"written/v0.0.40_error_permission.json", 500, GQ_EPERM, "Invalid user id"},
	    {"written/v0.0.41_error_permission.json", 500, GQ_EPERM, "Invalid user id"},
	    {"written/v0.0.42_error_permission.json", 500, GQ_EPERM, "Invalid user id"},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		size_t len;
		char *t = slurp(tab[i].file, &len);
		struct gq_err e = GQ_ERR_INIT;
		int rc = slurm_errors(t, len, tab[i].status, &e);
		if (rc == 0)
			rc = slurm_http_error(tab[i].status, t, len, "slurmrestd", &e);
		printf("# %s -> %s\n", tab[i].file, e.msg);
		CHECK(rc < 0);
		CHECK_INT(e.code, tab[i].code);
		CHECK(strstr(e.msg, tab[i].words) != NULL);
		free(t);
	}
	/* HTTP 500 whose JSON carries no error (slurmdbd's jobs, now and
	 * then): unavailable, one line, without the meta block. */
	{
		static const char t5[] =
		    "{\n  \"meta\": {\"plugin\": {\"type\": \"openapi/dbv0.0.38\"}},\n"
		    "  \"errors\": [],\n  \"jobs\": []\n}";
		struct gq_err e5 = GQ_ERR_INIT;
		CHECK(slurm_errors(t5, strlen(t5), 500, &e5) == 0);
		CHECK(slurm_http_error(500, t5, strlen(t5), "slurmrestd", &e5) < 0);
		CHECK_INT(e5.code, GQ_EUNAVAIL);
		CHECK_STR(
		    e5.msg,
		    "slurmrestd failed (HTTP 500) and gave no reason; try again, or see its log");
	}
	/* v0.0.38's /nodes and /partitions number an error "errno" (a bad
	 * token there): Slurm's words and number, not "Slurm:  (error 0)". */
	{
		static const char tn[] = "{\"errors\": [{\"error\": \"Unspecified error\", "
					 "\"errno\": -1}], \"nodes\": []}";
		struct gq_err en = GQ_ERR_INIT;
		CHECK(slurm_errors(tn, strlen(tn), 500, &en) < 0);
		CHECK_STR(en.msg, "Slurm: Unspecified error (error -1)");
	}
	/* Applied though it says "failed": v0.0.38's array update, HTTP 200,
	 * an errors[] entry without a number. */
	size_t len;
	char *t = slurp("v0.0.38/job_update_array_priority_response.json", &len);
	struct gq_err e = GQ_ERR_INIT;
	CHECK(t && slurm_errors(t, len, 200, &e) == 0);
	free(t);
	t = slurp("v0.0.38/job_hold_response.json", &len);
	CHECK(t && slurm_errors(t, len, 200, &e) == 0);
	free(t);
	/* A submit with hold answers 200, error 2042 and the job id. */
	t = slurp("v0.0.38/job_submit_held_response.json", &len);
	int64_t id = 0;
	CHECK(t && slurm_errors(t, len, 200, &e) == 0);
	CHECK(t && slurm_submit_decode(t, len, &id, &e) == 0 && id > 0);
	free(t);
}

static void pieces(void)
{
	char names[8][64];
	CHECK_INT(slurm_hostlist_expand("cpu1,gpu[1-2]", names, 8), 3);
	CHECK_STR(names[2], "gpu2");
	CHECK_INT(slurm_hostlist_expand("n[01-03,07]", names, 8), 4);
	CHECK_STR(names[0], "n01");
	CHECK_STR(names[3], "n07");
	CHECK_INT(slurm_hostlist_expand("n[1-9]", names, 8), -1);
	CHECK_INT(slurm_hostlist_expand("", names, 8), 0);
	CHECK_INT(slurm_wait_status(768), 3);
	CHECK_INT(slurm_wait_status(15), 128 + 15);
	CHECK_INT(slurm_wait_status(0), 0);
	CHECK_STR(slurm_reason_class("QOSMaxGRESPerUser", 0), "user_limit");
	CHECK_STR(slurm_reason_class("QOSMaxJobsPerUserLimit", 0), "user_limit");
	CHECK_STR(slurm_reason_class("AssocMaxJobsLimit", 0), "user_limit");
	CHECK_STR(slurm_reason_class("QOSGrpGRES", 0), "quota");
	CHECK_STR(slurm_reason_class("QOSMaxWallDurationPerJobLimit", 0), "unsatisfiable");
	CHECK_STR(slurm_reason_class("BeginTime", 1), "cooldown");
	CHECK_STR(slurm_reason_class("None", 0), "not yet evaluated");
	struct slurm_map m;
	struct gq_err e = GQ_ERR_INIT;
	CHECK(slurm_map_parse("normal=P2, urgent=P0", &m, &e) == 0);
	CHECK_INT(slurm_map_tier(&m, "urgent"), TIER_P0);
	CHECK_INT(slurm_map_tier(&m, "other"), TIER_P1);
	CHECK_STR(slurm_map_qos(&m, TIER_P2), "normal");
	CHECK(slurm_map_parse("p0", &m, &e) < 0);
	CHECK(slurm_map_parse("p0=P9", &m, &e) < 0);
}

static void submit_bodies(void)
{
	char e1[] = "PATH=/bin", e2[] = "LANG=C";
	char *env[] = {e1, e2, NULL};
	struct slurm_submit r = {.name = "t",
				 .partition = "gpu",
				 .qos = "p2",
				 .gpus = 2,
				 .gpus_per_node = true,
				 .gpu_type = "a100",
				 .time_limit = 3600,
				 .cwd = "/tmp",
				 .env = env,
				 .script = "#!/bin/sh\ntrue\n"};
	char *b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"gres\":\"gpu:a100:2\"") != NULL);
	CHECK(strstr(b, "\"time_limit\":60") != NULL);
	CHECK(strstr(b, "\"environment\":{\"PATH\":\"/bin\",\"LANG\":\"C\"}") != NULL);
	CHECK(strstr(b, "\"qos\":\"p2\"") != NULL);
	CHECK(strstr(b, "begin_time") == NULL);
	CHECK(strstr(b, "reservation") == NULL);
	free(b);
	r.reservation = "maint";
	b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"reservation\":\"maint\"") != NULL);
	free(b);
	r.reservation = NULL;
	r.begin = "now+7200";
	b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"begin_time\":\"now+7200\"") != NULL);
	r.begin = NULL;
	free(b);
	b = slurm_submit_encode(&r, 42);
	CHECK(strstr(b, "\"tres_per_node\":\"gres/gpu:a100:2\"") != NULL);
	CHECK(strstr(b, "\"environment\":[\"PATH=/bin\",\"LANG=C\"]") != NULL);
	CHECK(strstr(b, "\"number\":60") != NULL);
	free(b);
	r.gpus_per_node = false;
	r.gpus = 16;
	b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"gpus\":\"a100:16\"") != NULL);
	CHECK(strstr(b, "\"array\"") == NULL);
	free(b);
	/* sbatch's --array goes as Slurm's own string, throttle and all. */
	r.array = "0-99%8";
	b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"array\":\"0-99%8\"") != NULL);
	free(b);
}

/* A script's #SBATCH requests in the submit body: v0.0.38's nodes as
 * sbatch's "MIN-MAX" text (the array its OpenAPI names is ignored by
 * slurmctld, seen on the kit), exclusive as "exclusive" (its "true" is
 * refused); v0.0.40 on as numbers and lists. */
static void submit_sbatch_fields(void)
{
	char e1[] = "PATH=/bin";
	char *env[] = {e1, NULL};
	struct slurm_submit r = {.name = "s",
				 .gpus = 1,
				 .gpus_per_node = true,
				 .cwd = "/tmp",
				 .env = env,
				 .nodes_min = 1,
				 .nodes_max = 2,
				 .tasks = 2,
				 .tasks_per_node = 1,
				 .constraint = "a100",
				 .exclusive = "exclusive",
				 .mail_type = "END,FAIL",
				 .mail_user = "a@b"};
	char *b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"nodes\":\"1-2\"") != NULL);
	CHECK(strstr(b, "minimum_nodes") == NULL);
	CHECK(strstr(b, "\"tasks\":2,\"tasks_per_node\":1") != NULL);
	CHECK(strstr(b, "\"constraints\":\"a100\"") != NULL);
	CHECK(strstr(b, "\"exclusive\":\"exclusive\"") != NULL);
	CHECK(strstr(b, "\"mail_type\":\"END,FAIL\"") != NULL);
	CHECK(strstr(b, "\"mail_user\":\"a@b\"") != NULL);
	free(b);
	r.nodes_max = 0;
	b = slurm_submit_encode(&r, 38);
	CHECK(strstr(b, "\"nodes\":\"1\"") != NULL);
	free(b);
	b = slurm_submit_encode(&r, 41);
	CHECK(strstr(b, "\"minimum_nodes\":1,\"maximum_nodes\":1") != NULL);
	CHECK(strstr(b, "\"mail_type\":[\"END\",\"FAIL\"]") != NULL);
	CHECK(strstr(b, "\"exclusive\":[\"true\"]") != NULL);
	free(b);
}

/* gq stats on Slurm: slurmdbd's records of the kit (db_jobs.json, 12 jobs
 * over 21 s) through stats_acct_events into stats_compute, figures worked
 * by hand from the fixture's times (t0 = 1795947624). */
static const struct stats_group *group(const struct stats *st, const char *q, enum tier t)
{
	for (size_t i = 0; i < st->ngroups; i++)
		if (!strcmp(st->groups[i].queue, q) && st->groups[i].tier == t)
			return &st->groups[i];
	return NULL;
}

/* gq history on Slurm: the final records of db_jobs.json (1 completed, 2
 * failed, 6 preempted, 8 signalled; the rest are active). */
static void history_from_accounting(void)
{
	size_t len, n = 0;
	char *t = slurp("v0.0.38/db_jobs.json", &len);
	struct slurm_map m;
	struct gq_err e = GQ_ERR_INIT;
	struct job *v = NULL;
	slurm_map_parse(NULL, &m, &e);
	CHECK_INT(slurm_hist_decode(t, len, &m, &v, &n, &e), 0);
	free(t);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_INT(v[0].id, 1);
		CHECK_STR(v[0].name, "prep-data");
		CHECK_STR(v[0].user, "bob");
		CHECK_STR(v[0].queue, "debug");
		CHECK_STR(v[0].dept, "proj_b");
		CHECK_INT(v[0].state, JOB_COMPLETED);
		CHECK_INT(v[0].exit_status, 0);
		CHECK_INT(v[0].submit_time, 1795947624);
		CHECK_INT(v[0].start_time, 1795947624);
		CHECK_INT(v[0].end_time, 1795947625);
		/* slurmdbd's REST says SUCCESS 0 for a failed job: not said */
		CHECK_INT(v[1].state, JOB_FAILED);
		CHECK_INT(v[1].exit_status, -1);
		CHECK_INT(v[2].id, 6);
		CHECK_INT(v[2].state, JOB_FAILED); /* PREEMPTED, as GET /jobs maps it */
		CHECK_INT(v[2].req.gpus, 1);
		CHECK_INT(v[2].tier, TIER_P2);
		CHECK_STR(v[2].ext_qos, "p2");
		CHECK_INT(v[3].id, 8);
		CHECK_INT(v[3].exit_status, 128 + 10); /* SIGUSR1, "signal_id" */
	}
	jobs_free(v, n);
	/* Nothing but active records: none, no error. */
	v = NULL;
	n = 0;
	const char *active = "{\"jobs\":[{\"job_id\":3,\"state\":{\"current\":\"RUNNING\"}}]}";
	CHECK_INT(slurm_hist_decode(active, strlen(active), &m, &v, &n, &e), 0);
	CHECK_INT(n, 0);
	free(v);
	/* Cancelled while held: Slurm's start is its end, on no node. */
	const char *held = "{\"jobs\":[{\"job_id\":32,\"state\":{\"current\":\"CANCELLED\"},"
			   "\"nodes\":\"None assigned\",\"time\":{\"submission\":100,"
			   "\"start\":100,\"end\":100}}]}";
	v = NULL;
	n = 0;
	CHECK_INT(slurm_hist_decode(held, strlen(held), &m, &v, &n, &e), 0);
	CHECK(n == 1 && v[0].start_time == 0 && v[0].end_time == 100 &&
	      v[0].state == JOB_CANCELLED && v[0].exit_status == -1);
	jobs_free(v, n);
}

static void stats_from_accounting(void)
{
	size_t len, n = 0, nev = 0;
	char *t = slurp("v0.0.38/db_jobs.json", &len);
	struct slurm_map m;
	struct gq_err e = GQ_ERR_INIT;
	struct stats_acct *acc = NULL;
	slurm_map_parse(NULL, &m, &e);
	CHECK_INT(slurm_acct_decode(t, len, &m, &acc, &n, &e), 0);
	free(t);
	CHECK_INT(n, 12);
	/* job 4: 2 a100 allocated, running (slurmdbd's end is its "now") */
	CHECK_INT(acc[3].gpus, 2);
	CHECK_INT(acc[3].end, 0);
	CHECK_INT(acc[5].preempted, 1);
	CHECK_INT(acc[8].start, 0); /* job 10 pending: its "start" is not one */
	CHECK_INT(acc[8].gpus, 4);  /* requested */
	CHECK_INT(acc[8].tier, TIER_P0);
	struct snapshot s;
	snapshot_init(&s);
	for (int i = 0; i < 2; i++) {
		struct node *nd = snapshot_add_node(&s);
		nd->ngpus = 4;
		nd->up = true;
	}
	struct event *ev = NULL;
	stats_acct_events(acc, n, &s, &ev, &nev);
	CHECK_INT(s.njobs, 12);
	for (size_t i = 1; i < nev; i++)
		CHECK(ev[i].seq == ev[i - 1].seq + 1 && ev[i].time >= ev[i - 1].time);
	const int64_t t0 = 1795947624;
	struct stats st;
	CHECK_INT(stats_compute(&s, ev, nev, t0, t0 + 21, &st, &e), 0);
	const struct stats_group *g = group(&st, "debug", TIER_P1);
	CHECK(g != NULL);
	if (g) { /* jobs 1, 2, 3, 8 waited 0, 1, 1, 3 s */
		CHECK_INT(g->starts, 4);
		CHECK_INT(g->p50_wait, 1);
		CHECK_INT(g->p95_wait, 3);
		CHECK_INT(g->longest_wait, 3);
		CHECK_INT(g->longest_job, 8);
	}
	g = group(&st, "gpu", TIER_P1);
	CHECK(g != NULL);
	if (g) { /* 4 and 5 waited 3 s; 11 and 15 still wait, 15 s at the end */
		CHECK_INT(g->starts, 2);
		CHECK_INT(g->p50_wait, 3);
		CHECK_INT(g->longest_wait, 15);
	}
	g = group(&st, "gpu", TIER_P2);
	CHECK(g != NULL);
	if (g) /* job 6 ended PREEMPTED */
		CHECK_INT(g->preemptions, 1);
	g = group(&st, "gpu", TIER_P0);
	CHECK(g != NULL);
	if (g) { /* 16 waited 1 s; 10 still waits */
		CHECK_INT(g->starts, 1);
		CHECK_INT(g->longest_wait, 15);
		CHECK_INT(g->longest_job, 10);
	}
	/* 2x16 + 4x16 + 1x10 + 1x16 + 1x6 GPU-seconds of 8 GPUs x 21 s */
	CHECK_INT(st.gpus, 8);
	CHECK_DBL(st.gpu_seconds, 128, 1e-9);
	CHECK_DBL(st.utilisation, 128.0 / 168.0, 1e-9);
	stats_release(&st);
	free(ev);
	free(acc);
	snapshot_release(&s);
}

/* A preempted and requeued job has a record per run in slurmdbd (sacct
 * -D shows them): one job, two waits, one preemption. */
static void stats_requeued_runs(void)
{
	struct stats_acct r[2] = {
	    {.id = 50,
	     .queue = "gpu",
	     .tier = TIER_P1,
	     .gpus = 1,
	     .submit = 150,
	     .start = 170,
	     .end = 200,
	     .state = JOB_COMPLETED},
	    {.id = 50,
	     .queue = "gpu",
	     .tier = TIER_P1,
	     .gpus = 1,
	     .submit = 100,
	     .start = 110,
	     .end = 150,
	     .state = JOB_FAILED,
	     .preempted = true},
	};
	struct snapshot s;
	snapshot_init(&s);
	struct node *nd = snapshot_add_node(&s);
	nd->ngpus = 1;
	nd->up = true;
	struct event *ev = NULL;
	size_t nev = 0;
	stats_acct_events(r, 2, &s, &ev, &nev);
	CHECK_INT(s.njobs, 1);
	CHECK_INT(s.jobs[0].state, JOB_COMPLETED);
	struct stats st;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(stats_compute(&s, ev, nev, 100, 300, &st, &e), 0);
	const struct stats_group *g = group(&st, "gpu", TIER_P1);
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(g->starts, 2);
		CHECK_INT(g->longest_wait, 20);
		CHECK_INT(g->preemptions, 1);
	}
	CHECK_DBL(st.gpu_seconds, 40 + 30, 1e-9);
	stats_release(&st);
	free(ev);
	snapshot_release(&s);
}

/* gq update's body for POST job/ID: only the fields given, in Slurm's
 * names and units. */
static void update_bodies(void)
{
	struct job j;
	job_init(&j);
	STR_COPY(j.name, "n2");
	STR_COPY(j.queue, "debug");
	j.time_limit = 3601;
	j.ndeps = 2;
	j.deps[0] = 4;
	j.deps[1] = 5;
	j.dep_kind[1] = DEP_AFTERANY;
	char *b = slurm_update_fields(
	    &j, UPD_NAME | UPD_QUEUE | UPD_TIME_LIMIT | UPD_DEPS | UPD_TIER, "p2", NULL, 38);
	CHECK_STR(b, "{\"name\":\"n2\",\"partition\":\"debug\",\"qos\":\"p2\",\"time_limit\":61,"
		     "\"dependency\":\"afterok:4,afterany:5\"}");
	free(b);
	b = slurm_update_fields(&j, UPD_BEGIN | UPD_TIME_LIMIT, "p2", "now+60", 42);
	CHECK_STR(b, "{\"time_limit\":{\"set\":true,\"infinite\":false,\"number\":61},"
		     "\"begin_time\":\"now+60\"}");
	free(b);
}

/* On a Slurm snapshot the order is Slurm's priority, across tiers. */
static void order_backend(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct job *a = snapshot_add_job(&s);
	a->id = 1;
	a->tier = TIER_P0;
	a->ext_prio = 100;
	struct job *b = snapshot_add_job(&s);
	b->id = 2;
	b->tier = TIER_P2;
	b->ext_prio = 20000;
	struct job *c = snapshot_add_job(&s);
	c->id = 3;
	c->tier = TIER_P2;
	c->ext_prio = 50;
	snapshot_sort(&s);
	size_t idx[3];
	s.order = ORDER_BACKEND;
	CHECK_INT(order_pending(&s, idx), 3);
	CHECK_INT(s.jobs[idx[0]].id, 2);
	CHECK_INT(s.jobs[idx[1]].id, 1);
	CHECK_INT(s.jobs[idx[2]].id, 3);
	s.order = ORDER_GQ;
	order_pending(&s, idx);
	CHECK_INT(s.jobs[idx[0]].id, 1);
	snapshot_release(&s);
}

/* A cluster of `n` nodes n0001.. of 8 H100 each, as GET /nodes gives it. */
static char *nodes_text(int n)
{
	struct buf b;
	buf_init(&b, 0);
	buf_addstr(&b, "{\"nodes\":[");
	for (int i = 1; i <= n; i++)
		buf_printf(
		    &b,
		    "%s{\"name\":\"n%04d\",\"gres\":\"gpu:h100:8\",\"gres_used\":\"gpu:h100:0\","
		    "\"state\":\"idle\",\"cpus\":96,\"real_memory\":1000000}",
		    i > 1 ? "," : "", i);
	buf_addstr(&b, "]}");
	return buf_detach(&b);
}

/* One running job on nodes n0001..n`nodes` with all 8 GPUs of each. */
static char *wide_job_text(int nodes)
{
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b,
		   "{\"jobs\":[{\"job_id\":77,\"name\":\"train\",\"user_name\":\"alice\","
		   "\"partition\":\"gpu\",\"account\":\"proj_a\",\"qos\":\"p1\","
		   "\"job_state\":\"RUNNING\",\"node_count\":%d,\"tres_req_str\":"
		   "\"cpu=%d,node=%d,billing=%d,gres/gpu=%d\",\"nodes\":\"n[0001-%04d]\","
		   "\"gres_detail\":[",
		   nodes, nodes, nodes, nodes, 8 * nodes, nodes);
	for (int i = 0; i < nodes; i++)
		buf_printf(&b, "%s\"gpu:h100:8(IDX:0-7)\"", i ? "," : "");
	buf_addstr(&b, "],\"start_time\":1700000000,\"submit_time\":1699999000}]}");
	return buf_detach(&b);
}

/* A training job on 128 nodes x 8 GPUs is one allocation entry per node;
 * one on more nodes than gq holds (GQ_MAX_SPAN) is an error naming it. */
static void wide_allocations(void)
{
	struct gq_err e = GQ_ERR_INIT;
	struct slurm_map m = map();
	char *nt = nodes_text(200), *jt = wide_job_text(128);
	struct snapshot s;
	snapshot_init(&s);
	CHECK_INT(slurm_nodes_decode(nt, strlen(nt), &s, NULL, &e), 0);
	if (CHECK_INT(slurm_jobs_decode(jt, strlen(jt), &s, &m, NULL, NULL, &e), 0) &&
	    CHECK_INT(s.njobs, 1)) {
		const struct job *j = &s.jobs[0];
		CHECK_INT(j->req.gpus, 1024);
		CHECK_INT(job_gpus_held(j), 1024);
		if (CHECK_INT(j->nalloc, 128)) {
			CHECK_INT(j->alloc[127].node, 127);
			CHECK_INT(j->alloc[127].mask, 0xff);
		}
	} else {
		printf("# %s\n", e.msg);
	}
	snapshot_release(&s);
	free(nt);
	free(jt);

	snapshot_init(&s);
	nt = nodes_text(1);
	jt = wide_job_text(GQ_MAX_SPAN + 1);
	CHECK_INT(slurm_nodes_decode(nt, strlen(nt), &s, NULL, &e), 0);
	struct slurm_job_extra *x = NULL;
	size_t nx = 0;
	CHECK_INT(slurm_jobs_decode(jt, strlen(jt), &s, &m, &x, &nx, &e), -1);
	CHECK_INT(e.code, GQ_ETOOBIG);
	CHECK_STR(e.msg, "job '77' spans 4097 nodes, more than the 4096 gq holds per job");
	CHECK(x == NULL);
	snapshot_release(&s);
	free(nt);
	free(jt);
}

/* A CPU-only job that names no partition goes to one whose nodes have no
 * GPUs: the default one when it is, else the first; the v0.0.40+ form of
 * the node list too; none is an error that says how to name one. */
static void cpu_partition(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	size_t len;
	char *t = slurp("v0.0.38/nodes.json", &len);
	CHECK(t && slurm_nodes_decode(t, len, &s, NULL, &e) == 0);
	free(t);
	char part[64] = "";
	t = slurp("written/partitions_cpu.json", &len);
	CHECK(t && slurm_cpu_partition(t, len, &s, part, sizeof(part), &e) == 0);
	CHECK_STR(part, "cpu");
	free(t);
	static const char *const two =
	    "{\"partitions\":[{\"name\":\"a\",\"nodes\":\"cpu1\",\"flags\":[]},"
	    "{\"name\":\"b\",\"nodes\":{\"configured\":\"cpu1\",\"total\":1},"
	    "\"flags\":[\"DEFAULT\"]}]}";
	CHECK_INT(slurm_cpu_partition(two, strlen(two), &s, part, sizeof(part), &e), 0);
	CHECK_STR(part, "b");
	t = slurp("v0.0.38/partitions.json", &len);
	strcpy(part, "unchanged");
	CHECK(t && slurm_cpu_partition(t, len, &s, part, sizeof(part), &e) == -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK_STR(e.msg, "no partition of this cluster has only nodes without GPUs: name one with "
			 "--queue to run a CPU-only job there");
	CHECK_STR(part, "unchanged");
	free(t);
	snapshot_release(&s);
}

/* GET /openapi/v3: the newest version gq speaks among the paths (the
 * kit's slurmrestd serves v0.0.36 to v0.0.38); none it speaks is -1. */
static void openapi_versions(void)
{
	struct gq_err e = GQ_ERR_INIT;
	size_t len;
	char *t = slurp("v0.0.38/openapi_v3.json", &len);
	CHECK(t && slurm_openapi_newest(t, len, &e) == 38);
	free(t);
	static const char *const newer =
	    "{\"paths\":{\"/slurm/v0.0.38/ping\":{},\"/slurm/v0.0.41/jobs\":{},"
	    "\"/slurm/v0.0.43/jobs\":{},\"/slurmdb/v0.0.42/jobs\":{}}}";
	CHECK_INT(slurm_openapi_newest(newer, strlen(newer), &e), 41);
	static const char *const old = "{\"paths\":{\"/slurm/v0.0.37/ping\":{}}}";
	CHECK_INT(slurm_openapi_newest(old, strlen(old), &e), -1);
	CHECK_INT(e.code, GQ_EUNAVAIL);
	CHECK_INT(slurm_openapi_newest("<html>", 6, &e), -1);
}

/* slurmdbd's "Nothing found" (9003, HTTP 500) is an empty window; any
 * other error, or none, is not. */
static void nothing_found(void)
{
	size_t len;
	char *t = slurp("v0.0.38/db_jobs_nothing_found.json", &len);
	CHECK(t && slurm_nothing_found(t, len));
	free(t);
	t = slurp("v0.0.38/db_jobs.json", &len);
	CHECK(t && !slurm_nothing_found(t, len));
	free(t);
	t = slurp("v0.0.38/error_job_not_found.json", &len);
	CHECK(t && !slurm_nothing_found(t, len));
	free(t);
	static const char *const two = "{\"errors\":[{\"error_number\":9003},"
				       "{\"error_number\":1}]}";
	CHECK(!slurm_nothing_found(two, strlen(two)));
}

/* GET /reservations: the kit's (a future maintenance of cpu1, one node
 * of three) and one of every node; an ended one is left out; by start. */
/* A node's state words, as sinfo shows them: a drain with jobs on the
 * node is draining, idle drained; down and not responding win. */
static void node_states(void)
{
	static const char *const text =
	    "{\"nodes\":[{\"name\":\"a\",\"state\":\"mixed\",\"state_flags\":[\"DRAIN\"]},"
	    "{\"name\":\"b\",\"state\":\"idle\",\"state_flags\":[\"DRAIN\"]},"
	    "{\"name\":\"c\",\"state\":\"down\",\"state_flags\":[\"DRAIN\"]},"
	    "{\"name\":\"d\",\"state\":\"idle\",\"state_flags\":[\"NOT_RESPONDING\"]},"
	    "{\"name\":\"e\",\"state\":[\"ALLOCATED\",\"DRAIN\"]},"
	    "{\"name\":\"f\",\"state\":\"idle\",\"state_flags\":[]}]}";
	static const char *const want[] = {"draining",	     "drained",	 "down",
					   "not responding", "draining", ""};
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(slurm_nodes_decode(text, strlen(text), &s, NULL, &e), 0);
	if (CHECK_INT(s.nnodes, 6))
		for (size_t i = 0; i < 6; i++) {
			CHECK_STR(s.nodes[i].state, want[i]);
			CHECK(s.nodes[i].up == (i == 5));
		}
	snapshot_release(&s);
}

static void reservations(void)
{
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	size_t len;
	char *t = slurp("v0.0.38/nodes.json", &len);
	CHECK(t && slurm_nodes_decode(t, len, &s, NULL, &e) == 0);
	free(t);
	s.now = 1796030000;
	t = slurp("v0.0.38/reservations.json", &len);
	CHECK(t && slurm_reservations_decode(t, len, &s, &e) == 0);
	free(t);
	if (CHECK_INT(s.nresv, 1)) {
		CHECK_STR(s.resv[0].name, "maint");
		CHECK_STR(s.resv[0].nodes, "cpu1");
		CHECK(s.resv[0].start_time == 1796034023 && s.resv[0].end_time == 1796041223);
		CHECK(s.resv[0].maint);
		CHECK(!s.resv[0].all_nodes);
	}
	static const char *const more =
	    "{\"reservations\":[{\"name\":\"late\",\"node_list\":\"cpu1,gpu[1-2]\","
	    "\"start_time\":1796050000,\"end_time\":1796060000,\"flags\":[]},"
	    "{\"name\":\"all\",\"node_list\":\"gpu[1-2],cpu1\",\"start_time\":1796040000,"
	    "\"end_time\":1796045000,\"flags\":[\"MAINT\"]},"
	    "{\"name\":\"gone\",\"node_list\":\"cpu1,gpu[1-2]\",\"start_time\":1796000000,"
	    "\"end_time\":1796020000,\"flags\":[]}]}";
	snapshot_release(&s);
	s.nresv = 0;
	t = slurp("v0.0.38/nodes.json", &len);
	CHECK(t && slurm_nodes_decode(t, len, &s, NULL, &e) == 0);
	free(t);
	CHECK_INT(slurm_reservations_decode(more, strlen(more), &s, &e), 0);
	if (CHECK_INT(s.nresv, 2)) {
		CHECK_STR(s.resv[0].name, "all");
		CHECK(s.resv[0].all_nodes && s.resv[0].maint);
		CHECK_STR(s.resv[1].name, "late");
		CHECK(s.resv[1].all_nodes && !s.resv[1].maint);
	}
	snapshot_release(&s);
}

void suite_slurmwire(void)
{
	RUN(reservations);
	RUN(node_states);
	RUN(order_backend);
	RUN(final_v38);
	RUN(final_written);
	RUN(every_v38);
	RUN(array_split);
	RUN(user_limits);
	RUN(reasons_captured);
	RUN(history_v38);
	RUN(partitions);
	RUN(ping_meta);
	RUN(submit_answers);
	RUN(errors);
	RUN(pieces);
	RUN(submit_bodies);
	RUN(submit_sbatch_fields);
	RUN(stats_from_accounting);
	RUN(history_from_accounting);
	RUN(stats_requeued_runs);
	RUN(update_bodies);
	RUN(wide_allocations);
	RUN(cpu_partition);
	RUN(openapi_versions);
	RUN(nothing_found);
}
