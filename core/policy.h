/*
 * policy.h - the scheduling policy of DESIGN §3 as one struct, with every
 * key's default, its parser and validation.
 *
 * Keys use git-config names, "section.key" or "section.subsection.key":
 * tier.P1.base, aging.cap, queue.exp.window, department.research.gpuHours.
 * Sections and key names match case-insensitively (libgit2 lowercases
 * them), subsections (tier, queue and department names) exactly.
 * All keys are described by one table (policy_keys()), from which defaults,
 * parsing, printing and the documentation of `gq policy init` are derived,
 * so they cannot drift apart.
 *
 * Reading files is not done here: policy/ walks a git-config file with
 * libgit2 and calls policy_set() for every entry, then policy_validate().
 */
#ifndef GQ_POLICY_H
#define GQ_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum tier { TIER_P0, TIER_P1, TIER_P2 };
#define TIER_COUNT 3

/* "P0", "P1", "P2" */
const char *tier_name(enum tier t);
/* Accepts P0/P1/P2 in either case, or 0/1/2. */
int tier_parse(const char *s, enum tier *out, struct gq_err *e);

/* Rollout stage of a mechanism (preemption, downgrade, reclamation). */
enum rollout { ROLLOUT_OBSERVE, ROLLOUT_TRIAL, ROLLOUT_ENFORCE };
const char *rollout_name(enum rollout r);

/* What the start of a queue's window does to a running job of it that did
 * not declare it can checkpoint (queue.NAME.windowAction): stop and requeue
 * it, losing its work (the default, as for every job), or let it finish
 * (nothing new starts in the window either way). Checkpointable jobs are
 * always checkpoint-preempted and resume after the window. */
enum window_action { WINDOW_REQUEUE, WINDOW_FINISH };
static inline const char *window_action_name(enum window_action a)
{
	return a == WINDOW_FINISH ? "finish" : "requeue";
}

/* What a department's work does once its monthly GPU-hours are spent
 * (department.NAME.gpuHoursAction): run on as preemptible work of the
 * lowest tier, after every job within its quota and only on GPUs none of
 * them can use (the default, DESIGN §3), or start no more of it until the
 * month ends. Either way what it runs is charged. */
enum quota_action { QUOTA_PREEMPTIBLE, QUOTA_STOP };
static inline const char *quota_action_name(enum quota_action a)
{
	return a == QUOTA_STOP ? "stop" : "preemptible";
}

#define GQ_MAX_QUEUES 32
#define GQ_MAX_DEPTS 32
#define GQ_NAME_MAX 32

struct tier_policy {
	double base;	    /* base weight */
	int64_t wait_limit; /* past this pending time: over the limit, starvation permit */
	double price;	    /* price factor for usage reports */
	char allow[256];    /* who may use it: "*" or user names and @groups, space separated */
};

/* A daily window in local minutes [start, end); end < start wraps midnight. */
struct window {
	bool set;
	int start_min, end_min;
};

struct queue_policy {
	char name[GQ_NAME_MAX];
	char dept[GQ_NAME_MAX];
	int quota;	      /* nominal GPUs; -1 = no quota (the whole cluster) */
	int borrow;	      /* GPUs it may borrow beyond quota from idle capacity; -1 unlimited */
	double share;	      /* fair-share weight */
	struct window paused; /* paused in this window */
	enum window_action window_action; /* for running jobs that cannot checkpoint */
	int max_preempt_hour; /* preemption budget: victims per hour from this queue; -1 = the
				 default */
	int64_t default_time; /* time limit of a job submitted without one, 0 none */
	int64_t max_time;     /* the longest time limit a job of it may have, 0 none */
	int user_max_gpus; /* GPUs one user's jobs of this queue may hold at once; -1 unlimited */
	int user_max_jobs; /* one user's jobs pending or running in this queue; -1 unlimited */
};

struct dept_policy {
	char name[GQ_NAME_MAX];
	double gpu_hours_month;	       /* monthly GPU-hour quota; -1 unlimited */
	enum quota_action over_action; /* once gpu_hours_month is spent */
	int preempt_quota;	       /* cross-department preemptions per month; -1 unlimited */
};

struct policy {
	struct tier_policy tier[TIER_COUNT];
	double aging_step;	 /* c grows by this ... */
	int64_t aging_interval;	 /* ... per full interval waited ... */
	double aging_cap;	 /* ... up to this */
	int64_t permit_wait_for; /* a P0 ending within this is waited for, not preempted */
	int64_t remind_after;	 /* P0 pending this long: reminder */
	int64_t confirm_within;	 /* no confirmation this long after the reminder: downgrade */
	enum rollout downgrade_mode;
	char downgrade_trial[256];
	char downgrade_webhook[256];
	char notify_webhook[256]; /* notify.webhook: where --notify POSTs, "" none */
	double headroom;	  /* share of capacity held back from P1/P2 for P0 */
	int64_t protect;	  /* jobs that ran this long are not preempted */
	int64_t grace;		  /* signal → SIGKILL */
	int64_t cooldown;	  /* after preemption, before it may start again */
	int preempt_signal;
	int max_preempt_hour; /* default per-queue preemption budget */
	enum rollout preempt_mode;
	char preempt_trial[256];
	enum rollout reclaim_mode;
	char reclaim_trial[256];
	int64_t reclaim_idle; /* no heartbeat or progress this long: idle */
	int64_t share_half_life;
	int64_t default_runtime; /* prediction when no estimate, history or limit */
	char default_queue[GQ_NAME_MAX];
	/* Per-user limits over every queue (Slurm's MaxTRESPerUser=gres/gpu
	 * and MaxSubmitJobsPerUser); -1 unlimited. ulimit.h applies them. */
	int user_max_gpus;
	int user_max_jobs;
	/* One submission's bytes as journalled (argv or script, environment):
	 * a bigger one is refused; -1 unlimited. */
	int max_submit_bytes;

	int nqueues;
	struct queue_policy queues[GQ_MAX_QUEUES];
	int ndepts;
	struct dept_policy depts[GQ_MAX_DEPTS];

	char revision[64]; /* the commit it came from, "" for built-in defaults */
};

/* Sets every key to its default: tiers, aging, ..., one queue "default"
 * owned by department "default", both without quotas. */
void policy_defaults(struct policy *p);

/* Sets one key from its string form. Queue and department subsections are
 * created on first use (with their defaults). Fails with GQ_EINVAL naming
 * the key and the value ("aging.cap: not a number: 'abc'") or GQ_ENOENT
 * for an unknown key. */
int policy_set(struct policy *p, const char *key, const char *value, struct gq_err *e);

/* Cross-key checks after all keys are set: every queue's department exists,
 * the default queue exists, tier bases are ordered P0 > P1 > P2, and so on.
 * The message names the key. */
int policy_validate(const struct policy *p, struct gq_err *e);

/* Lookups; -1 / NULL when absent. */
int policy_queue_index(const struct policy *p, const char *name);
int policy_dept_index(const struct policy *p, const char *name);
const struct queue_policy *policy_queue(const struct policy *p, const char *name);

/* Is queue `queue` acted on by a mechanism in rollout `mode` with trial list
 * `trial`? enforce: yes; trial: only queues named in the list; observe: no. */
bool policy_acts(enum rollout mode, const char *trial, const char *queue);

/* The effective preemption budget of queue index qi. */
int policy_queue_budget(const struct policy *p, int qi);

/* May `user` (member of the space-separated `groups`) use tier t? */
bool policy_tier_allows(const struct policy *p, enum tier t, const char *user, const char *groups);

/* Is local minute-of-day m inside window w? */
bool window_contains(const struct window *w, int minute);
/* "20:00-08:00" */
int window_parse(const char *s, struct window *w, struct gq_err *e);
char *window_format(const struct window *w, char *out, size_t size);

/*
 * Enumerating every key with its value, for `gq policy show`, `policy
 * diff` and `policy init`. Calls fn once per concrete key (tiers expanded,
 * every queue and department), in table order, with the value formatted as
 * it would be written in a policy file, and whether it equals the default.
 */
struct policy_key_info {
	const char *key; /* concrete, e.g. "queue.exp.quota" (valid during the call) */
	const char *value;
	const char *default_value;
	bool is_default;
	const char *doc; /* one sentence */
};
void policy_foreach(const struct policy *p, void (*fn)(const struct policy_key_info *ki, void *arg),
		    void *arg);

/* Formats one concrete key's value into out; -1 (GQ_ENOENT) if unknown. */
int policy_get(const struct policy *p, const char *key, char *out, size_t size, struct gq_err *e);

/* The key table itself, for documentation: patterns with '*' for the
 * subsection ("tier.*.base"); default_value is P0's for tier keys. */
struct policy_key_doc {
	char pattern[64];
	const char *default_value; /* static */
	const char *doc;	   /* static */
};
size_t policy_key_count(void);
void policy_key_doc(size_t i, struct policy_key_doc *out);

#endif
