/*
 * job.h - the scheduling model: jobs, nodes, and the snapshot that holds
 * them with the policy and "now".
 *
 * These are plain structs with fixed-size strings, so that a snapshot of
 * 100k jobs is one allocation per array, except for a job's allocation:
 * it is an owned array of any size up to GQ_MAX_SPAN nodes (a training job
 * on 128 nodes is one entry per node, and most jobs hold none), so a job is
 * copied with job_copy and released with job_release, never a memcpy.
 * Both gq serve (to decide) and the client (to explain and predict) fill a
 * struct snapshot and hand it to the core functions; the same snapshot in
 * always gives the same answer out.
 *
 * Times are unix seconds (int64_t); 0 means "not set". Durations are
 * seconds; 0 means "none given".
 */
#ifndef GQ_JOB_H
#define GQ_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define GQ_MAX_DEPS 8	      /* after-job dependencies per job */
#define GQ_END_REASON_MAX 128 /* end_reason, with its NUL */
/* Nodes one job may span: an allocation has at most this many entries
 * (the API, the journal and the Slurm decoder refuse more). */
#define GQ_MAX_SPAN 4096
#define GQ_MAX_NODE_GPUS 64 /* GPUs per node (a uint64_t mask) */
/* The most a request may ask for, on every path (the CLI, the API, the
 * decoders): what GQ_MAX_SPAN nodes can hold, and sizes no machine has. */
#define GQ_MAX_REQ_GPUS (GQ_MAX_SPAN * GQ_MAX_NODE_GPUS)
#define GQ_MAX_REQ_CPUS 1000000
#define GQ_MAX_REQ_MEM_MB (INT64_C(1) << 40) /* 1 EiB */

enum job_state {
	JOB_PENDING,   /* waiting; see reason.h for why */
	JOB_STARTING,  /* chosen, GPUs being assigned, process not yet confirmed */
	JOB_RUNNING,   /* running on its allocation */
	JOB_STOPPING,  /* preemption signalled, within its grace period */
	JOB_COMPLETED, /* exited 0 */
	JOB_FAILED,    /* exited non-zero, or killed by a signal it did not ask for */
	JOB_CANCELLED, /* cancelled by its owner or an admin */
	JOB_TIMEOUT,   /* killed at its time limit */
	JOB_STATE_COUNT
};

/* Lower-case names: "pending", "running", ... */
const char *job_state_name(enum job_state s);
int job_state_parse(const char *s, enum job_state *out);
/* Pending, starting, running or stopping: the job still holds or wants GPUs. */
bool job_state_active(enum job_state s);
/* Holds GPUs now: starting, running or stopping. */
bool job_state_holds_gpus(enum job_state s);

/* What a job asks for. gpu_type "" means any model; gpu_mem_mb 0 means any
 * memory; same_node asks for all GPUs on one node. */
struct job_res {
	int gpus;
	char gpu_type[32];
	int64_t gpu_mem_mb;
	bool same_node;
	int cpus;
	int64_t mem_mb;
};

/* The GPUs a job holds on one node: bit i of mask is GPU i of nodes[node].
 * Arrays of them are allocated zeroed (xcalloc), so that their padding
 * is too and equal allocations compare equal byte for byte. */
struct job_alloc {
	int node;
	uint64_t mask;
};

/* An admin's priority override: the job is treated as tier `tier`. */
struct job_override {
	bool set;
	enum tier tier;
	char actor[32];
	char reason[128];
	int64_t at;
};

struct job {
	int64_t id;
	char name[64];
	char user[32];
	uint32_t uid, gid;
	char queue[32];
	char dept[32];	/* the department charged: the queue's owner at submit */
	enum tier tier; /* the tier as submitted or after an auto-downgrade */
	struct job_override ovr;
	enum job_state state;
	int exit_status; /* for finished jobs: exit code, or 128+signal; -1 unknown */
	/* Why the scheduler ended it, when it did without a process exiting
	 * ("dependency #12 failed (exit 1): afterok can never be met"); "" none. */
	char end_reason[GQ_END_REASON_MAX];

	struct job_res req;
	/* The allocation, while it holds GPUs: nalloc entries (0..GQ_MAX_SPAN)
	 * at alloc, owned by the job (NULL when nalloc is 0); set it with
	 * job_set_alloc. */
	int nalloc;
	struct job_alloc *alloc;
	bool borrowed; /* started on capacity borrowed beyond its queue's quota */

	int64_t submit_time;
	int64_t queued_time; /* entered pending last: submit, or requeue after preemption */
	int64_t start_time;  /* this run's start */
	int64_t end_time;
	int64_t estimate;   /* runtime the user expects */
	int64_t time_limit; /* runtime after which it is killed */
	/* The runtime this user's past jobs (of this name first) suggest, or
	 * 0 (runtime.h: predict_fill_history); filled by whoever builds the
	 * snapshot from its history. */
	int64_t hist_runtime;
	/* This user's typical runtime / time limit ratio from past jobs, or 0. */
	double hist_ratio;

	bool checkpointable;
	int64_t last_checkpoint; /* last "checkpoint saved" report, 0 none */
	int64_t not_before;	 /* post-preemption cooldown: may not start earlier */
	int64_t stop_deadline;	 /* STOPPING: when the rest is SIGKILLed */
	int restarts;
	/* Its runs that ended (a preemption, a requeue, its end), added as
	 * each ends (job_run_end): the seconds they held their allocation and
	 * the GPU-seconds. runs_kept says they are counted (gq serve does,
	 * from the submission); false where a backend keeps one run only,
	 * start_time to end_time (Slurm's accounting). The run under way is
	 * in neither: job_run_time adds it. */
	bool runs_kept;
	int64_t ran_time;
	int64_t ran_gpu_time;

	int ndeps;
	int64_t deps[GQ_MAX_DEPS];     /* waits for these jobs (depend.h) */
	uint8_t dep_kind[GQ_MAX_DEPS]; /* each one's enum dep_kind; 0 afterok */
	uint8_t dep_dead;	       /* bit i: dependency i can never be met, as the backend says
					  (Slurm's "afterok:4(failed)"), even with its job gone */

	bool held;
	char held_by[32];
	int64_t held_at;
	/* When an event the job's other fields do not show last made it
	 * eligible: its release from a hold, or its last dependency met (gq
	 * serve sets it); 0 none. Its wait that ages starts at the latest of
	 * this, queued_time and begin_time (job_aging_base). */
	int64_t eligible_time;
	char held_reason[128]; /* the text given with the hold (gq hold --reason), "" none */
	char reservation[64];  /* the backend's reservation it runs in (Slurm's --reservation) */

	int64_t reminded_at;  /* P0 pending: last reminder sent, 0 none */
	int64_t confirmed_at; /* P0 pending: last confirmation by the owner */

	/* What the backend's own scheduler says (Slurm); empty and 0 on gq
	 * serve. Shown beside gq's reasons and predictions, never used for
	 * them, except ext_prio as the order when the snapshot says so. */
	char ext_reason[40]; /* its reason word: "QOSMaxGRESPerUser" */
	char ext_class[20];  /* the gq reason that word maps to: "quota" */
	int64_t ext_start;   /* its estimated start of a pending job, 0 none */
	int64_t ext_prio;    /* its priority; higher goes first */
	char ext_array[32];  /* a pending array's task range "0-3%2", "" none */
	char ext_qos[32];    /* its QOS ("p1"), which tier says in gq's words */
	char ext_detail[64]; /* what gq adds to its reason: "gpu2 down or drained" */

	/* Where hist_runtime comes from (runtime.h), for the reader: a
	 * HIST_* source, the runs in its group, and that group's latest two
	 * runtimes (hist_last the latest, hist_prev the one before; 0 where
	 * there is none). */
	int hist_src;
	int hist_n;
	int64_t hist_last, hist_prev;
	/* The start gq serve predicted for the job when it first planned
	 * with it pending, at its submit: 0 not yet, -1 none (never placed,
	 * or first seen long after its submit). The ranges' calibration
	 * (predict_fill_calib) compares it with the start the job got. */
	int64_t pred_start0;
	/* A task of a job array (array.h): the array's id (0: not a task),
	 * its index, and the array's throttle (at most so many at once; 0
	 * none). */
	int64_t array_id;
	int array_task;
	int array_max;
	/* The user's deferred start (--begin, begin.h): may not start earlier;
	 * 0 none. Unlike not_before it is the user's choice, not a cooldown. */
	int64_t begin_time;
	/* --signal (jobsig.h): signal sig (0: none) sig_before seconds before
	 * start_time + time_limit, once a run; sig_sent once it went this run. */
	int sig;
	int64_t sig_before;
	bool sig_sent;
	/* --notify (notify.h): the events notified, canonical ("start,end"),
	 * "" none. */
	char notify[40];
	/* Work past its department's monthly GPU-hours that runs on as the
	 * lowest tier (gpuHoursAction preemptible): set, and cleared, by
	 * snapshot_mark_over_quota from the snapshot's department usage, by
	 * whoever builds a snapshot (gq serve before each pass, the client
	 * once it has one); never journalled nor sent. job_tier is then P2 and
	 * job_order_tier below P2. */
	bool over_quota;
	/* When running work was last preempted to make room for it (gq
	 * serve sets it as it signals the victims, and clears it when the job
	 * starts or is held); 0 none. While it waits with a claim it goes
	 * first in the order (job_order_rank): the GPUs freed are its, not
	 * those of a job that could not have preempted for them. */
	int64_t claim_time;
};

enum hist_src {
	HIST_NONE,
	HIST_NAME_LAST2, /* the mean of the last two runs of this user and name */
	HIST_NAME_P50,	 /* the median run of this user and name */
	HIST_USER_LAST2, /* the mean of the user's last two runs of any name */
	HIST_SRC_COUNT
};

/* The tier the scheduler uses: the override's when one is set, else P2
 * (the lowest) for work over its department's quota (over_quota), else
 * its own. */
enum tier job_tier(const struct job *j);
/* Where j ranks in the order of pending jobs and against preemption:
 * job_tier, except TIER_COUNT (below P2) for over_quota work, which goes
 * after every job within its quota and is preemptible by any of them.
 * ORDER_TIERS such ranks. */
#define ORDER_TIERS (TIER_COUNT + 1)
int job_order_tier(const struct job *j);
/* The first key of the order of pending jobs (order.h): 0 for a job
 * holding a claim (claim_time, GPUs freed for it by a preemption), else
 * 1 + job_order_tier. ORDER_RANKS such ranks. */
#define ORDER_RANKS (ORDER_TIERS + 1)
int job_order_rank(const struct job *j);
/* Since when j has been pending, the one rule of "waited" as shown (gq
 * ls, show, top, the stats; held and deferred time included; aging,
 * permits and reminders count from job_aging_base): queued_time, its
 * last entry into pending (submit, or a requeue after preemption), or
 * submit_time when a backend leaves queued_time unset; 0 when both are. */
int64_t job_waiting_since(const struct job *j);
/* Where the wait that ages, earns a starvation permit and brings a P0
 * reminder starts (Slurm's age factor counts only eligible time): the
 * latest of job_waiting_since (entered pending), begin_time (its --begin)
 * and eligible_time (released from a hold, dependencies met); 0 when all
 * are unset. It may lie ahead of now (a --begin not yet reached). */
int64_t job_aging_base(const struct job *j);
/* Since when j has been eligible to start at now, job_aging_base; 0 when
 * it is not: held, or its --begin later than now. Dependencies are the
 * snapshot's to tell (dep_met_at in depend.h). */
int64_t job_eligible_since(const struct job *j, int64_t now);
/* How long j waited in its last pending stretch (gq ls' {waited} and the
 * JSON's "waited"): until now while pending, else until it started from
 * it, else until it ended (cancelled while pending); 0 when unknown. */
int64_t job_waited(const struct job *j, int64_t now);
/* The one rule of "how long it ran" (gq history's RUNTIME and
 * GPU-hours, gq show's "ran", gq ls' runtime, gq stats --by): the time
 * j held an allocation up to now, over all its runs, into *seconds, and
 * those seconds x its GPUs into *gpu_seconds. Only runs count: a job
 * preempted or requeued, then cancelled while pending, is charged its
 * runs, not the time since its first start. With runs_kept, ran_time and
 * ran_gpu_time plus the run under way (now - start_time while it holds
 * GPUs, x req.gpus); without, its one run, start_time to end_time (to now
 * while it holds GPUs). 0 for a job that never started. */
void job_run_time(const struct job *j, int64_t now, int64_t *seconds, int64_t *gpu_seconds);
/* Ends j's run under way at t (for who takes its allocation away: a
 * preemption, a requeue, its end): adds t - start_time (none when t is
 * not after it) to ran_time, that x req.gpus to ran_gpu_time, and sets
 * runs_kept. Call it once a run, while j still holds GPUs. */
void job_run_end(struct job *j, int64_t t);
/* GPUs the job holds right now (0 unless job_state_holds_gpus). */
int job_gpus_held(const struct job *j);
/* The GPU indices of j's allocation, "0,1,5" (every node's in turn, as
 * CUDA_VISIBLE_DEVICES takes them); "" when none. Cut to fit size. */
void job_gpu_list(const struct job *j, char *out, size_t size);

struct node {
	char name[64];
	char gpu_model[32];
	int64_t gpu_mem_mb;
	int ngpus; /* 0..GQ_MAX_NODE_GPUS */
	int cpus;
	int64_t mem_mb;
	bool up; /* a node that is down or drained takes no new work */
	/* Why it is not up, in sinfo's words: "down", "drained", "draining"
	 * (drained once its jobs end), "fail", "not responding"; "" when up
	 * or the backend does not say. */
	char state[16];
};

/*
 * A backend's reservation (Slurm's scontrol create reservation): nodes
 * set aside from start_time to end_time for the jobs that name it. Only
 * one that holds every node of the snapshot (all_nodes: a maintenance of
 * the whole cluster, say) changes predictions (core/resv.h); one of some
 * nodes is shown, not simulated.
 */
struct reservation {
	char name[64];
	int64_t start_time, end_time;
	char nodes[256]; /* as the backend lists them: "gpu[1-2],cpu1" */
	bool all_nodes;
	bool maint; /* Slurm's MAINT flag */
};

/* Accumulated per-queue state, kept by the server across snapshots. */
struct queue_state {
	double usage;	   /* fair-share usage: decayed GPU-seconds, as of snapshot.now */
	int preempts_hour; /* preemptions charged to the queue in the last hour */
};

/* Accumulated per-department state. */
struct dept_state {
	double gpu_hours_month; /* GPU-hours used this calendar month */
	int preempts_month;	/* peak preemptions spent this month */
};

/*
 * A snapshot owns its arrays. qstate[i] belongs to policy.queues[i] and
 * dstate[i] to policy.depts[i]. jobs must be sorted by id (snapshot_sort)
 * before snapshot_find or any core function is used on it.
 */
/* Who orders the pending jobs: gq's weight formula (order.h), or the
 * backend's scheduler through each job's ext_prio (Slurm's priority, as
 * sprio gives it; weights that are not exported do not age in a
 * prediction). */
enum order_source { ORDER_GQ, ORDER_BACKEND };

/* How far starts have come from the predictions made at submit, over the
 * latest jobs that started (predict_fill_calib): the lo-th and hi-th
 * quantiles of actual wait / predicted wait, from n jobs. n == 0: none
 * (too few to say), and ranges are the simulation's alone. */
struct predict_calib {
	double lo, hi;
	int n;
};

struct snapshot {
	int64_t now;
	enum order_source order;
	int32_t tz_offset; /* seconds east of UTC; windows are in this local time */
	struct policy policy;
	struct job *jobs;
	size_t njobs, jobs_cap;
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct reservation *resv; /* the backend's, by start; none on gq serve */
	size_t nresv, resv_cap;
	struct queue_state qstate[GQ_MAX_QUEUES];
	struct dept_state dstate[GQ_MAX_DEPTS];
	struct predict_calib calib;
	/* A snapshot kept by gq serve in front of a scheduler it cannot reach
	 * now (gq serve --slurm): unreachable since stale_since, its data of
	 * data_time (0 unknown); stale_since 0 while the data is current. */
	int64_t stale_since, data_time;
};

/* True when department di (an index of s->policy.depts, -1 none) has
 * spent its monthly GPU-hours: a quota is set and its use this month
 * (dstate) has reached it. */
bool snapshot_dept_spent(const struct snapshot *s, int di);
/* Sets each job's over_quota from s's policy and department usage: true
 * for an active job that asks for GPUs, carries no admin override (an
 * override is an admin's explicit tier), and belongs to a department that
 * has spent its GPU-hours with gpuHoursAction preemptible; false for every
 * other job. Deterministic; callers run it whenever usage or the policy
 * may have changed, before deciding or predicting. */
void snapshot_mark_over_quota(struct snapshot *s);

/* Empty snapshot with the default policy; allocates nothing. */
void snapshot_init(struct snapshot *s);
/* Releases every job and frees the arrays; s is then as after
 * snapshot_init (policy kept). */
void snapshot_release(struct snapshot *s);
/* Appends a zeroed job / node and returns it; valid until the next add. */
struct job *snapshot_add_job(struct snapshot *s);
struct node *snapshot_add_node(struct snapshot *s);
struct reservation *snapshot_add_resv(struct snapshot *s);
/* Sorts jobs by id. */
void snapshot_sort(struct snapshot *s);
/* The job with that id, NULL when absent: one look where evenly spread ids
 * would put it, then a binary search. Borrowed, valid until s changes. */
struct job *snapshot_find(const struct snapshot *s, int64_t id);
/* Total GPUs on nodes that are up. */
int snapshot_gpus_total(const struct snapshot *s);
/* 0 when j's request and times are within the bounds every path applies:
 * GPUs 0..GQ_MAX_REQ_GPUS (0: a CPU-only job), CPUs 0..GQ_MAX_REQ_CPUS,
 * memory and GPU memory 0..GQ_MAX_REQ_MEM_MB, estimate and time limit
 * 0..GQ_DUR_MAX (0: none), an estimate no longer than the time limit.
 * Else -1 with GQ_EINVAL and a line naming the field as the API does
 * ("req.cpus: ..."). Whether a node could ever hold it is place's
 * question (place_satisfiable). */
int job_req_check(const struct job *j, struct gq_err *e);

/* 0 when s may be a job's name: 1..63 bytes (struct job's name) of UTF-8
 * as RFC 3629 has it, without a control character (C0, DEL, or C1:
 * U+0080..U+009F); spaces and any script are fine. Else -1 with GQ_EINVAL
 * and one line that says what is wrong, the name in quotes with its
 * controls and the bytes that are not UTF-8 escaped (\n, \xff), never
 * printed raw. */
int job_name_check(const char *s, struct gq_err *e);
/* The default name of a job run from path (a script's name as given, or
 * a command's first word): its last component, whole, extension and all
 * ("./训练 job.sh" is "训练 job.sh"), cut at a character to fit the 63
 * bytes; fallback when that is no valid name (job_name_check). */
void job_name_default(struct job *j, const char *path, const char *fallback);

/* 0 when every number of s (policy, queue and department state, jobs) is
 * finite; else -1 with GQ_EINTERNAL in e naming the first that is not. No
 * code path should make one: encoders call this so that a bug is an error,
 * never a crash or a JSON text no decoder reads. */
int snapshot_check_finite(const struct snapshot *s, struct gq_err *e);

/* A zeroed job with the fields that have a non-zero "unset" set; allocates
 * nothing. */
void job_init(struct job *j);
/* Frees what j owns (its allocation); j is then as after job_init. */
void job_release(struct job *j);
/* Makes *dst an independent copy of *src (allocates). dst's own contents
 * are not freed: release it first when it holds any. A struct assignment
 * would share the allocation: copy with this. */
void job_copy(struct job *dst, const struct job *src);
/* Replaces j's allocation with a copy of the n entries at a (n 0..
 * GQ_MAX_SPAN; 0 frees it). */
void job_set_alloc(struct job *j, int n, const struct job_alloc *a);
/* Releases the n jobs of v and frees v; v may be NULL. */
void jobs_free(struct job *v, size_t n);

#endif
