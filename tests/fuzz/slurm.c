/*
 * slurm.c - fuzz target: what gq makes of any answer of slurmrestd
 * (wire/slurm.h): the error list, meta, ping and OpenAPI version, then the
 * snapshot as backend/slurm.c builds it (GET /nodes, /partitions, /jobs
 * from the same text), slurmdbd's accounting records in each of their
 * three uses (stats, history, runtime history) and a submit's answer.
 *
 * Invariants: an error always has its message; a snapshot decoded from
 * any text holds only finite numbers, and the rows text that gq serve
 * --slurm serves of it decodes in every client, to the same jobs; a
 * history job is a finished one with an id; a runtime is positive.
 */
#include "fuzz.h"

#include "wire/codec.h"
#include "wire/slurm.h"

static void check_err(int rc, const struct gq_err *e, const char *what)
{
	if (rc < 0)
		FUZZ_CHECK(e->code != GQ_OK && e->msg[0], "%s: an error without its message", what);
}

static void snapshot_part(const char *text, size_t len, const struct slurm_map *m)
{
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	int rc = slurm_nodes_decode(text, len, &s, NULL, &e);
	check_err(rc, &e, "nodes");
	rc = slurm_partitions_decode(text, len, &s.policy, &e);
	check_err(rc, &e, "partitions");
	rc = slurm_reservations_decode(text, len, &s, &e);
	check_err(rc, &e, "reservations");
	for (size_t i = 0; rc == 0 && i < s.nresv; i++)
		FUZZ_CHECK(s.resv[i].end_time > s.resv[i].start_time && s.resv[i].end_time > s.now,
			   "reservation %zu kept: %lld..%lld at %lld", i,
			   (long long)s.resv[i].start_time, (long long)s.resv[i].end_time,
			   (long long)s.now);
	struct slurm_job_extra *x = NULL;
	size_t nx = 0;
	rc = slurm_jobs_decode(text, len, &s, m, &x, &nx, &e);
	check_err(rc, &e, "jobs");
	free(x);
	if (rc < 0) {
		snapshot_release(&s);
		return;
	}
	FUZZ_CHECK(snapshot_check_finite(&s, &e) == 0, "a decoded snapshot: %s", e.msg);
	snapshot_sort(&s);
	size_t n;
	char *rows = codec_snapshot_text(&s, CODEC_ROWS, &n, &e);
	FUZZ_CHECK(rows != NULL, "the rows text of a decoded snapshot: %s", e.msg);
	struct snapshot back;
	snapshot_init(&back);
	FUZZ_CHECK(codec_snapshot_parse(rows, n, &back, &e) == 0,
		   "the rows text does not decode: %s\n%.300s", e.msg, rows);
	FUZZ_CHECK(back.njobs == s.njobs, "%zu jobs back of %zu", back.njobs, s.njobs);
	FUZZ_CHECK(back.nresv == s.nresv, "%zu reservations back of %zu", back.nresv, s.nresv);
	for (size_t i = 0; i < s.njobs && i < back.njobs; i++)
		FUZZ_CHECK(back.jobs[i].id == s.jobs[i].id && back.jobs[i].state == s.jobs[i].state,
			   "job %zu: %lld %d back as %lld %d", i, (long long)s.jobs[i].id,
			   s.jobs[i].state, (long long)back.jobs[i].id, back.jobs[i].state);
	snapshot_release(&back);
	free(rows);
	snapshot_release(&s);
}

static void accounting_part(const char *text, size_t len, const struct slurm_map *m)
{
	struct gq_err e = GQ_ERR_INIT;
	struct stats_acct *acc = NULL;
	size_t n = 0;
	check_err(slurm_acct_decode(text, len, m, &acc, &n, &e), &e, "accounting");
	free(acc);
	struct job *jobs = NULL;
	n = 0;
	int rc = slurm_hist_decode(text, len, m, &jobs, &n, &e);
	check_err(rc, &e, "history");
	for (size_t i = 0; rc == 0 && i < n; i++)
		FUZZ_CHECK(jobs[i].id > 0 && !job_state_active(jobs[i].state),
			   "history job %lld in state %d", (long long)jobs[i].id, jobs[i].state);
	jobs_free(jobs, n);
	struct slurm_run *runs = NULL;
	n = 0;
	rc = slurm_runs_decode(text, len, &runs, &n, &e);
	check_err(rc, &e, "runs");
	for (size_t i = 0; rc == 0 && i < n; i++)
		FUZZ_CHECK(runs[i].elapsed > 0, "a run of %lld s", (long long)runs[i].elapsed);
	free(runs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct gq_err e = GQ_ERR_INIT;
	struct slurm_map m;
	FUZZ_CHECK(slurm_map_parse(NULL, &m, &e) == 0, "the default QOS map: %s", e.msg);
	check_err(slurm_errors(text, size, 200, &e), &e, "errors");
	e = (struct gq_err)GQ_ERR_INIT;
	check_err(slurm_http_error(500, text, size, "slurmrestd", &e), &e, "an HTTP error");
	(void)slurm_nothing_found(text, size);
	struct slurm_meta meta;
	memset(&meta, 0, sizeof(meta));
	check_err(slurm_meta_decode(text, size, &meta, &e), &e, "meta");
	check_err(slurm_ping_decode(text, size, &e), &e, "ping");
	(void)slurm_openapi_newest(text, size, &e);
	int64_t id = 0;
	check_err(slurm_submit_decode(text, size, &id, &e), &e, "submit");
	snapshot_part(text, size, &m);
	accounting_part(text, size, &m);
	return 0;
}
