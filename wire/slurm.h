/*
 * slurm.h - slurmrestd's JSON, v0.0.38 (Slurm 22.05) to v0.0.42 (24.11),
 * into gq's structs and back. wire/slurm.c is the only file that sees these
 * shapes; this header speaks gq's structs and plain C only.
 *
 * Parsing is tolerant in the ways MAPPING.md lists: a state is a string or
 * an array of flags (element 0 the base state), a number is an integer,
 * null, a numeric string or {"set","infinite","number"}; the version is
 * read from meta.Slurm or meta.slurm (integers or strings); a non-empty
 * errors[] is a failure whatever the HTTP status; GRES strings come as
 * "gpu:a100:2", "gres:gpu:a100:2" or "gres/gpu:a100=2".
 *
 * Jobs carry Slurm's own view beside gq's model (struct job's ext_*
 * fields): its state_reason, the gq reason that reason maps to, its
 * backfill estimate and its priority. The account is the job's dept, the
 * partition its queue, the QOS its tier through a map (struct slurm_map).
 */
#ifndef GQ_WIRE_SLURM_H
#define GQ_WIRE_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/stats.h"
#include "core/util.h"

/* The newest and oldest openapi/v0.0.N gq understands. */
#define SLURM_API_NEWEST 42
#define SLURM_API_OLDEST 38

/* What an answer's meta says about the server. */
struct slurm_meta {
	int major, minor, micro; /* Slurm's version, 0 when absent */
	char release[32];	 /* "22.05.8" */
	char plugin[48];	 /* "openapi/v0.0.38" */
	char cluster[64];	 /* v0.0.40+, "" before */
};

/* QOS → tier: "p0=P0,p1=P1,p2=P2,*=P1" (the default when spec is NULL or
 * ""). "*" names the tier of every QOS not listed. */
#define SLURM_QOS_MAP_MAX 16
struct slurm_map {
	int n;
	char qos[SLURM_QOS_MAP_MAX][32];
	enum tier tier[SLURM_QOS_MAP_MAX];
	enum tier fallback;
};
int slurm_map_parse(const char *spec, struct slurm_map *m, struct gq_err *e);
enum tier slurm_map_tier(const struct slurm_map *m, const char *qos);
/* The first QOS the map sends to tier t, or NULL. */
const char *slurm_map_qos(const struct slurm_map *m, enum tier t);

/*
 * errors[] of any answer: 0 when there is none (or text is not JSON: the
 * caller knows the HTTP status), else -1 with e set: code from Slurm's
 * error number (2017 → GQ_ENOENT; 2002, 2010 → GQ_EPERM; a refused token
 * → GQ_EPERM saying so; a request no node fits, 2014, and other refused
 * input → GQ_EINVAL) and Slurm's own words. An answer with HTTP 200 whose
 * only errors carry no number (v0.0.38 reports an applied array update
 * so) or are 2042 (a submit with hold: "Job is in held state") counts as
 * success. Plain-text bodies (401, 404, 400) are the
 * caller's: slurm_http_error().
 */
int slurm_errors(const char *text, size_t len, long http_status, struct gq_err *e);
/* A non-2xx answer without a JSON errors[]: 401 → token, 404 → path or
 * version not offered, 400 → malformed request, else unavailable. */
int slurm_http_error(long http_status, const char *text, size_t len, const char *what,
		     struct gq_err *e);

/* slurmdbd's answer to a query that matched no record: only error 9003
 * ("Nothing found with query", HTTP 500 in v0.0.38), an empty result. */
bool slurm_nothing_found(const char *text, size_t len);

/* meta of any answer; -1 when text is not a JSON object. */
int slurm_meta_decode(const char *text, size_t len, struct slurm_meta *m, struct gq_err *e);

/* GET /ping: 0 when some controller answers "UP". */
int slurm_ping_decode(const char *text, size_t len, struct gq_err *e);

/* GET /openapi/v3: the newest openapi/v0.0.N (38..42) its paths offer,
 * or -1. */
int slurm_openapi_newest(const char *text, size_t len, struct gq_err *e);

/* GET /nodes: appends one node per Slurm node to s, GPUs from gres (model
 * and count), up unless down, drained, draining, failing or not
 * responding. When busy is not NULL, busy[i] (sized by the caller for the
 * nodes appended, in order) gets the GPU mask of gres_used. */
int slurm_nodes_decode(const char *text, size_t len, struct snapshot *s, uint64_t **busy,
		       struct gq_err *e);

/* GET /reservations, after the nodes of s (GET /nodes): those not ended
 * at s->now, by start, each with all_nodes when its node_list names every
 * node of s. */
int slurm_reservations_decode(const char *text, size_t len, struct snapshot *s, struct gq_err *e);

/* GET /partitions: a queue per partition (dept "default", no quota), the
 * default partition as policy.default_queue. */
int slurm_partitions_decode(const char *text, size_t len, struct policy *p, struct gq_err *e);

/* GET /partitions and the nodes of s (GET /nodes): the partition for a
 * CPU-only job that names none, one whose every node is in s and has no
 * GPUs (the default partition when it is one, else the first in Slurm's
 * order), into out. -1 with GQ_EINVAL and a line saying how to name one
 * when no partition is GPU-less, or with the decoder's error. The
 * partition's nodes are its hostlist ("nodes", v0.0.38) or
 * nodes.configured (v0.0.40+). */
int slurm_cpu_partition(const char *text, size_t len, const struct snapshot *s, char *out,
			size_t size, struct gq_err *e);

/* A job beyond struct job: what gq show prints. */
struct slurm_job_extra {
	char cwd[256];
	char stdout_path[256]; /* as Slurm gives it (v0.0.38: %j unexpanded) */
	char stderr_path[256];
	char command[256];
	char nodes[256]; /* the hostlist, "gpu[1-2]" */
	char qos[32];
	char partition[64];
	char dependency[128];
	int64_t array_job_id;  /* 0 when not an array */
	int64_t array_task_id; /* -1 for the pending record of an array */
	char array_tasks[64];  /* "0-3%2" */
};

/*
 * GET /jobs or /job/ID: appends the jobs to s (nodes must be there: the
 * allocation's GPU indexes are resolved against s->nodes by name) and, when
 * extra is not NULL, a malloc'd array of *nextra entries, one per job
 * appended, in order. A job naming a node s does not have keeps its GPU
 * count without an allocation. A job on more than GQ_MAX_SPAN nodes is an
 * error (-1, GQ_ETOOBIG naming it; *extra is then not set, s keeps the jobs
 * decoded so far for snapshot_release).
 */
/*
 * GET /slurmdb/v0.0.N/jobs (slurmdbd's accounting records, as sacct reads
 * them), for the runtime history of predict_hist_runtime: a COMPLETED
 * record of slurmdbd's (or a completed job of slurmctld's): whose, of
 * which name, how long it ran. Only completed runs count, as
 * predict_fill_history says.
 */
struct slurm_run {
	int64_t id, elapsed;
	char user[32];
	char name[64];
};
/* The same records for every user: appends each COMPLETED one with a
 * positive elapsed time to *out (xrealloc'd; *n entries). */
int slurm_runs_decode(const char *text, size_t len, struct slurm_run **out, size_t *n,
		      struct gq_err *e);
/*
 * GET /slurmdb/v0.0.N/jobs?start_time=..&end_time=.. as the records gq
 * stats computes from (core/stats.h's stats_acct): partition, account,
 * QOS through the map, GPUs allocated (else requested), submission, start
 * and end (0 while pending / running: slurmdbd writes its "now" there),
 * the state now, and whether a preemption ended it. Appends to *out
 * (xrealloc'd; *n entries).
 */
int slurm_acct_decode(const char *text, size_t len, const struct slurm_map *m,
		      struct stats_acct **out, size_t *n, struct gq_err *e);
/*
 * The same records as gq history's jobs: each in a final state (PREEMPTED,
 * NODE_FAIL, OUT_OF_MEMORY... failed, as in GET /jobs), with its name,
 * user, partition (queue), account (dept), QOS (ext_qos; tier through the
 * map), GPUs allocated (else requested), submission, start (0 if it never
 * started: nodes "None assigned"), end, array job and task, and exit status (a signal 128+N, a
 * return code, 0 completed, else -1: not said). Appended to *out
 * (xrealloc'd; *n entries), in slurmdbd's order.
 */
int slurm_hist_decode(const char *text, size_t len, const struct slurm_map *m, struct job **out,
		      size_t *n, struct gq_err *e);
int slurm_jobs_decode(const char *text, size_t len, struct snapshot *s, const struct slurm_map *m,
		      struct slurm_job_extra **extra, size_t *nextra, struct gq_err *e);

/* The gq reason word Slurm's state_reason maps to (MAPPING.md's table):
 * "held", "dependency", "cooldown", "begin", "quota", "user_limit",
 * "throttle", "unsatisfiable",
 * "resources", "priority", "starting", "not yet evaluated", or "" for a
 * reason with no counterpart. restarts > 0 makes BeginTime a cooldown. */
const char *slurm_reason_class(const char *reason, int restarts);

/* Slurm's raw wait status (v0.0.38 exit_code) → gq's exit status (code, or
 * 128+signal). */
int slurm_wait_status(int64_t ws);

/* Hostlist "gpu[1-2],cpu1" → names appended to out (NUL-separated, each
 * at most 63 characters); returns the count, or -1 on a malformed list or
 * more than max names. */
int slurm_hostlist_expand(const char *list, char (*out)[64], int max);

/* A submission in Slurm's terms: built by the backend from gq's request. */
struct slurm_submit {
	const char *name;
	const char *partition; /* NULL: the cluster's default */
	const char *qos;       /* NULL: the association's default */
	const char *account;   /* NULL: the user's default */
	int gpus;	       /* the job's total */
	bool gpus_per_node;    /* true: one node's gres ("gpu[:TYPE]:N"), else the job total */
	const char *gpu_type;  /* NULL or "" for any */
	int cpus;	       /* 0: Slurm's default */
	int64_t mem_mb;	       /* 0: Slurm's default */
	int64_t time_limit;    /* seconds, 0: the partition's */
	const char *cwd;
	char **env; /* "K=V", NULL-terminated */
	const char *script;
	const char *stdout_path; /* NULL: Slurm's default */
	const char *stderr_path; /* NULL: with stdout */
	const char *begin;	 /* Slurm's form ("now+2hours"), NULL: none */
	const char *reservation; /* sbatch's --reservation, NULL: none */
	const char *signal;	 /* Slurm's --signal form ("10@60"), NULL: none */
	const char *dependency;	 /* #SBATCH's, Slurm's form ("afterok:4"), NULL: none */
	bool hold;
	/* gq's dependencies in Slurm's form (depend.h's dep_format); they
	 * win over dependency. NULL or "": none. */
	const char *after;
	const char *array; /* sbatch's --array ("0-99%8"), NULL: not an array */
	/* From a script's #SBATCH lines; 0 or NULL: not asked. */
	int nodes_min, nodes_max; /* -N MIN[-MAX]; max 0: MIN only */
	int tasks, tasks_per_node;
	const char *constraint; /* -C, Slurm's feature expression */
	const char *exclusive;	/* "exclusive" (whole nodes), "user" or "mcs" */
	const char *mail_type, *mail_user;
};
/* The JSON body of POST job/submit for openapi/v0.0.<minor>; caller frees. */
char *slurm_submit_encode(const struct slurm_submit *r, int minor);
/* The submit answer's job id; -1 when there is none (errors first through
 * slurm_errors). */
int slurm_submit_decode(const char *text, size_t len, int64_t *id, struct gq_err *e);

/* Bodies of POST job/ID (caller frees): {"hold": h}, {"qos": q},
 * {"priority": n}. */
char *slurm_update_hold(bool hold, int minor);
char *slurm_update_qos(const char *qos, int minor);
char *slurm_update_priority(int64_t prio, int minor);
/* The body of POST job/ID for gq update's fields Slurm has: name,
 * partition (queue), qos (the tier's, given), time_limit (minutes),
 * begin_time (begin, Slurm's form "now+N"; NULL none) and dependency
 * (each with its kind: "afterok:4,afterany:5"). Caller frees. */
char *slurm_update_fields(const struct job *j, unsigned set, const char *qos, const char *begin,
			  int minor);

/* GET /diag: slurmctld's clock when it answered (statistics.req_time,
 * an integer or {set, number}), 0 when absent or not JSON. */
int64_t slurm_diag_time(const char *text, size_t len);
/* GET /diag: the count of job queries (REQUEST_JOB_INFO) slurmctld served,
 * for gq top's load check; -1 when absent. */
int64_t slurm_diag_job_queries(const char *text, size_t len);

#endif
