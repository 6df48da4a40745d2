/*
 * policy.c - the policy keys, their defaults, parsing, printing and
 * validation, all driven by one table (keys[] below).
 */
#include "policy.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum scope { SC_GLOBAL, SC_TIER, SC_QUEUE, SC_DEPT };
enum kind {
	K_DOUBLE,   /* double */
	K_DUR,	    /* int64_t seconds */
	K_DURNONE,  /* int64_t seconds, 0 = "none" */
	K_INT,	    /* int, >= min */
	K_LIMIT,    /* int, -1 = "unlimited" */
	K_DLIMIT,   /* double, -1 = "unlimited" */
	K_STR,	    /* char[256] free text */
	K_NAME,	    /* char[GQ_NAME_MAX], a name */
	K_ROLLOUT,  /* enum rollout */
	K_WINDOW,   /* struct window */
	K_SIGNAL,   /* int signal number */
	K_WINACT,   /* enum window_action */
	K_QUOTAACT, /* enum quota_action */
};

struct keydef {
	const char *section;
	const char *name; /* as documented (camelCase); matched case-insensitively */
	enum scope scope;
	enum kind kind;
	size_t off;  /* in struct policy, tier_policy, queue_policy or dept_policy */
	size_t size; /* for strings */
	double min, max;
	const char *def[TIER_COUNT]; /* def[0] for non-tier keys */
	const char *doc;
};

#define G(f) offsetof(struct policy, f), sizeof(((struct policy *)0)->f)
#define T(f) offsetof(struct tier_policy, f), sizeof(((struct tier_policy *)0)->f)
#define Q(f) offsetof(struct queue_policy, f), sizeof(((struct queue_policy *)0)->f)
#define D(f) offsetof(struct dept_policy, f), sizeof(((struct dept_policy *)0)->f)
#define YEAR (366.0 * 86400)
/* A whole number of GPUs, jobs or preemptions, or "unlimited": LIMIT's
 * default; LIMITD's range and default are its own (field last: G() is two). */
#define LIMITD(sec, name, scope, min, max, def, doc, ...)                                          \
	{                                                                                          \
		sec, name, scope, K_LIMIT, __VA_ARGS__, min, max, {def}, doc                       \
	}
#define LIMIT(sec, name, scope, field, doc)                                                        \
	LIMITD(sec, name, scope, 0, 1e6, "unlimited", doc, field)

static const struct keydef keys[] = {
    {"tier",
     "base",
     SC_TIER,
     K_DOUBLE,
     T(base),
     0.001,
     1e6,
     {"100", "30", "5"},
     "base weight of the tier; weight = base x (1 + c)"},
    {"tier",
     "waitLimit",
     SC_TIER,
     K_DUR,
     T(wait_limit),
     60,
     YEAR,
     {"2h", "8h", "12h"},
     "eligible longer than this (pending, not held, --begin reached, dependencies met) is over the "
     "tier's limit and earns a starvation permit"},
    {"tier",
     "price",
     SC_TIER,
     K_DOUBLE,
     T(price),
     0,
     1000,
     {"1.5", "1.0", "0.3"},
     "price factor applied to GPU-hours in usage reports"},
    {"tier",
     "allow",
     SC_TIER,
     K_STR,
     T(allow),
     0,
     0,
     {"*", "*", "*"},
     "who may submit to the tier: '*' or user names and @groups"},
    {"aging",
     "step",
     SC_GLOBAL,
     K_DOUBLE,
     G(aging_step),
     0,
     10,
     {"0.1"},
     "c grows by this for every full aging interval waited while eligible"},
    {"aging",
     "interval",
     SC_GLOBAL,
     K_DUR,
     G(aging_interval),
     60,
     YEAR,
     {"30m"},
     "the aging interval"},
    {"aging", "cap", SC_GLOBAL, K_DOUBLE, G(aging_cap), 0, 100, {"0.5"}, "c never exceeds this"},
    {"permit",
     "waitFor",
     SC_GLOBAL,
     K_DUR,
     G(permit_wait_for),
     0,
     YEAR,
     {"10m"},
     "a permit waits for a P0 expected to end within this instead of preempting it"},
    {"downgrade",
     "remindAfter",
     SC_GLOBAL,
     K_DUR,
     G(remind_after),
     60,
     YEAR,
     {"2h"},
     "a P0 job eligible this long (not held, --begin reached, dependencies met) reminds its owner "
     "and the admins"},
    {"downgrade",
     "confirmWithin",
     SC_GLOBAL,
     K_DUR,
     G(confirm_within),
     60,
     YEAR,
     {"30m"},
     "without confirmation this long after the reminder the job becomes P1"},
    {"downgrade",
     "mode",
     SC_GLOBAL,
     K_ROLLOUT,
     G(downgrade_mode),
     0,
     0,
     {"enforce"},
     "observe, trial or enforce"},
    {"downgrade",
     "trialQueues",
     SC_GLOBAL,
     K_STR,
     G(downgrade_trial),
     0,
     0,
     {""},
     "queues acted on in trial mode"},
    {"downgrade",
     "webhook",
     SC_GLOBAL,
     K_STR,
     G(downgrade_webhook),
     0,
     0,
     {""},
     "URL that reminders and downgrades are POSTed to as JSON"},
    {"headroom",
     "share",
     SC_GLOBAL,
     K_DOUBLE,
     G(headroom),
     0,
     0.9,
     {"0.15"},
     "share of capacity held back from P1 and P2 so that P0 lands without preempting; "
     "a request larger than the rest may use it"},
    {"notify",
     "webhook",
     SC_GLOBAL,
     K_STR,
     G(notify_webhook),
     0,
     0,
     {""},
     "URL that jobs' --notify notifications are POSTed to as JSON, besides the submitter's own"},
    {"preempt",
     "protect",
     SC_GLOBAL,
     K_DUR,
     G(protect),
     0,
     YEAR,
     {"30m"},
     "jobs that have run this long are never preempted"},
    {"preempt",
     "grace",
     SC_GLOBAL,
     K_DUR,
     G(grace),
     0,
     86400,
     {"5m"},
     "time between the signal and SIGKILL"},
    {"preempt",
     "cooldown",
     SC_GLOBAL,
     K_DUR,
     G(cooldown),
     0,
     YEAR,
     {"10m"},
     "a preempted job waits this long before it may start again"},
    {"preempt",
     "signal",
     SC_GLOBAL,
     K_SIGNAL,
     G(preempt_signal),
     0,
     0,
     {"TERM"},
     "signal sent to a victim"},
    {"preempt",
     "maxPerQueueHour",
     SC_GLOBAL,
     K_INT,
     G(max_preempt_hour),
     0,
     1e6,
     {"4"},
     "default preemption budget: victims taken from one queue per hour"},
    {"preempt",
     "mode",
     SC_GLOBAL,
     K_ROLLOUT,
     G(preempt_mode),
     0,
     0,
     {"enforce"},
     "observe, trial or enforce"},
    {"preempt",
     "trialQueues",
     SC_GLOBAL,
     K_STR,
     G(preempt_trial),
     0,
     0,
     {""},
     "queues acted on in trial mode"},
    {"reclaim",
     "mode",
     SC_GLOBAL,
     K_ROLLOUT,
     G(reclaim_mode),
     0,
     0,
     {"observe"},
     "observe, trial or enforce: the queues whose entries gq reclaim marks to act on"},
    {"reclaim",
     "trialQueues",
     SC_GLOBAL,
     K_STR,
     G(reclaim_trial),
     0,
     0,
     {""},
     "queues acted on in trial mode"},
    {"reclaim",
     "idleAfter",
     SC_GLOBAL,
     K_DUR,
     G(reclaim_idle),
     60,
     YEAR,
     {"1h"},
     "a running job with no output and no checkpoint report this long counts as idle"},
    {"share",
     "halfLife",
     SC_GLOBAL,
     K_DUR,
     G(share_half_life),
     60,
     YEAR,
     {"7d"},
     "half-life of the usage that fair share compares"},
    {"predict",
     "defaultRuntime",
     SC_GLOBAL,
     K_DUR,
     G(default_runtime),
     1,
     YEAR,
     {"1h"},
     "runtime assumed for a job with no estimate, history or time limit"},
    {"default",
     "queue",
     SC_GLOBAL,
     K_NAME,
     G(default_queue),
     0,
     0,
     {"default"},
     "queue for jobs submitted without one"},
    LIMIT("user", "maxGpus", SC_GLOBAL, G(user_max_gpus),
	  "GPUs one user's running jobs may hold at once, over every queue; a job that would pass "
	  "it waits"),
    LIMITD("user", "maxJobs", SC_GLOBAL, 0, 1e6, "10000",
	   "jobs one user may have pending or running at once, over every queue; a submission past "
	   "it is refused",
	   G(user_max_jobs)),
    LIMITD("user", "maxSubmitBytes", SC_GLOBAL, 1024, 4194304, "1048576",
	   "bytes of one submission as the server keeps it (command or script, environment); a "
	   "bigger one is refused",
	   G(max_submit_bytes)),
    {"queue",
     "department",
     SC_QUEUE,
     K_NAME,
     Q(dept),
     0,
     0,
     {"default"},
     "the department that owns the queue and is charged for it"},
    LIMIT("queue", "quota", SC_QUEUE, Q(quota),
	  "nominal GPUs of the queue, a guarantee: a job within it takes back, whatever "
	  "their tier, GPUs other queues borrowed (checkpoint preemption, gq-preempt(7))"),
    LIMIT("queue", "borrow", SC_QUEUE, Q(borrow),
	  "GPUs it may borrow beyond its quota while others leave them idle"),
    {"queue", "share", SC_QUEUE, K_DOUBLE, Q(share), 0.001, 1e6, {"1"}, "fair-share weight"},
    {"queue",
     "window",
     SC_QUEUE,
     K_WINDOW,
     Q(paused),
     0,
     0,
     {""},
     "daily window HH:MM-HH:MM in which the queue is paused"},
    {"queue",
     "windowAction",
     SC_QUEUE,
     K_WINACT,
     Q(window_action),
     0,
     0,
     {"requeue"},
     "requeue (its work lost) or finish a running job that cannot checkpoint at the window"},
    LIMIT("queue", "maxPreemptPerHour", SC_QUEUE, Q(max_preempt_hour),
	  "preemption budget of the queue; unlimited means preempt.maxPerQueueHour"),
    {"queue",
     "defaultTime",
     SC_QUEUE,
     K_DURNONE,
     Q(default_time),
     60,
     YEAR,
     {"none"},
     "time limit given to a job submitted without one; with none, a job with neither an estimate "
     "nor a time limit is never backfilled"},
    {"queue",
     "maxTime",
     SC_QUEUE,
     K_DURNONE,
     Q(max_time),
     60,
     YEAR,
     {"none"},
     "the longest time limit a job of the queue may have, as Slurm's MaxTime: a longer one is "
     "refused at submit, and a job submitted without one gets it when the queue has no "
     "defaultTime"},
    LIMIT("queue", "userMaxGpus", SC_QUEUE, Q(user_max_gpus),
	  "GPUs one user's running jobs of the queue may hold at once; a job that would pass it "
	  "waits"),
    LIMIT("queue", "userMaxJobs", SC_QUEUE, Q(user_max_jobs),
	  "jobs one user may have pending or running in the queue at once; a submission past it is "
	  "refused"),
    {"department",
     "gpuHours",
     SC_DEPT,
     K_DLIMIT,
     D(gpu_hours_month),
     0,
     1e12,
     {"unlimited"},
     "monthly GPU-hour quota"},
    {"department",
     "gpuHoursAction",
     SC_DEPT,
     K_QUOTAACT,
     D(over_action),
     0,
     0,
     {"preemptible"},
     "once gpuHours are spent: preemptible runs the department's jobs on as the lowest tier, "
     "after every job within its quota, on GPUs none of those can use, preemptible by any of "
     "them and charged; stop starts none of them until the month ends"},
    LIMIT("department", "preemptQuota", SC_DEPT, D(preempt_quota),
	  "preemptions of other departments' jobs allowed per month"),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const tier_names[TIER_COUNT] = {"P0", "P1", "P2"};
static const char *const rollout_names[] = {"observe", "trial", "enforce"};
static const struct {
	const char *name;
	int num;
} signals[] = {
    {"TERM", SIGTERM}, {"INT", SIGINT},	  {"HUP", SIGHUP},
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"QUIT", SIGQUIT},
};

const char *tier_name(enum tier t)
{
	return (unsigned)t < TIER_COUNT ? tier_names[t] : "P?";
}

int tier_parse(const char *s, enum tier *out, struct gq_err *e)
{
	for (int i = 0; i < TIER_COUNT; i++) {
		if (!strcasecmp(s, tier_names[i]) || (s[0] == '0' + i && !s[1])) {
			*out = (enum tier)i;
			return 0;
		}
	}
	return err_set(e, GQ_EINVAL, "unknown tier '%s'; use P0, P1 or P2", s);
}

const char *rollout_name(enum rollout r)
{
	return (unsigned)r < 3 ? rollout_names[r] : "?";
}

/* Splits "a.b.c" into section, subsection (may be empty) and name. */
static int split_key(const char *key, char *sec, size_t secsz, char *sub, size_t subsz, char *name,
		     size_t namesz)
{
	const char *d1 = strchr(key, '.');
	const char *d2 = strrchr(key, '.');
	if (!d1 || d1 == key || !d2[1])
		return -1;
	if ((size_t)(d1 - key) >= secsz || strlen(d2 + 1) >= namesz)
		return -1;
	memcpy(sec, key, (size_t)(d1 - key));
	sec[d1 - key] = '\0';
	strcpy(name, d2 + 1);
	if (d1 == d2) {
		sub[0] = '\0';
	} else {
		size_t n = (size_t)(d2 - d1 - 1);
		if (!n || n >= subsz)
			return -1;
		memcpy(sub, d1 + 1, n);
		sub[n] = '\0';
	}
	return 0;
}

static const struct keydef *find_keydef(const char *sec, bool has_sub, const char *name)
{
	for (size_t i = 0; i < NKEYS; i++) {
		bool wants_sub = keys[i].scope != SC_GLOBAL;
		if (wants_sub == has_sub && !strcasecmp(keys[i].section, sec) &&
		    !strcasecmp(keys[i].name, name))
			return &keys[i];
	}
	return NULL;
}

static void queue_defaults(struct policy *p, struct queue_policy *q, const char *name);
static void dept_defaults(struct policy *p, struct dept_policy *d, const char *name);

/* Where the struct that a key's field offset applies to starts within
 * struct policy: 0 for global keys, else that tier's, queue's or department's
 * offset. -1 with e filled when the subsection does not exist. */
static long key_base(const struct policy *p, const struct keydef *k, const char *sub,
		     struct gq_err *e)
{
	int i;
	enum tier t;
	switch (k->scope) {
	case SC_GLOBAL:
		return 0;
	case SC_TIER:
		if (tier_parse(sub, &t, e) < 0)
			return -1;
		return (long)((const char *)&p->tier[t] - (const char *)p);
	case SC_QUEUE:
		if ((i = policy_queue_index(p, sub)) < 0)
			return err_set(e, GQ_ENOENT, "no queue '%s'", sub);
		return (long)((const char *)&p->queues[i] - (const char *)p);
	case SC_DEPT:
		if ((i = policy_dept_index(p, sub)) < 0)
			return err_set(e, GQ_ENOENT, "no department '%s'", sub);
		return (long)((const char *)&p->depts[i] - (const char *)p);
	}
	BUG("bad scope %d", (int)k->scope);
}

/* Creates queue or department `sub` with its defaults if the key needs it. */
static int key_create(struct policy *p, const struct keydef *k, const char *sub, struct gq_err *e)
{
	if (k->scope == SC_QUEUE && policy_queue_index(p, sub) < 0) {
		if (!name_valid(sub) || strlen(sub) >= GQ_NAME_MAX)
			return err_set(e, GQ_EINVAL,
				       "bad queue name '%s'; use letters, digits, '.', '_', '-'",
				       sub);
		if (p->nqueues >= GQ_MAX_QUEUES)
			return err_set(e, GQ_EINVAL, "too many queues (at most %d)", GQ_MAX_QUEUES);
		queue_defaults(p, &p->queues[p->nqueues++], sub);
	} else if (k->scope == SC_DEPT && policy_dept_index(p, sub) < 0) {
		if (!name_valid(sub) || strlen(sub) >= GQ_NAME_MAX)
			return err_set(
			    e, GQ_EINVAL,
			    "bad department name '%s'; use letters, digits, '.', '_', '-'", sub);
		if (p->ndepts >= GQ_MAX_DEPTS)
			return err_set(e, GQ_EINVAL, "too many departments (at most %d)",
				       GQ_MAX_DEPTS);
		dept_defaults(p, &p->depts[p->ndepts++], sub);
	}
	return 0;
}

static int parse_value(const struct keydef *k, const char *v, char *field, struct gq_err *e)
{
	switch (k->kind) {
	case K_DOUBLE:
		return parse_double(v, k->min, k->max, (double *)(void *)field, e);
	case K_DURNONE:
	case K_DUR: {
		int64_t d;
		if (k->kind == K_DURNONE && !strcasecmp(v, "none")) {
			d = 0;
			memcpy(field, &d, sizeof(d));
			return 0;
		}
		if (dur_parse(v, &d, e) < 0) {
			if (k->kind == K_DURNONE)
				err_prefix(e, "expected a duration or 'none'");
			return -1;
		}
		if ((double)d < k->min || (double)d > k->max) {
			char lo[32], hi[32];
			return err_set(e, GQ_EINVAL, "'%s' is out of range (%s..%s)", v,
				       dur_format((int64_t)k->min, lo, sizeof(lo)),
				       dur_format((int64_t)k->max, hi, sizeof(hi)));
		}
		memcpy(field, &d, sizeof(d));
		return 0;
	}
	case K_INT:
	case K_LIMIT: {
		int64_t n;
		if (k->kind == K_LIMIT && (!strcasecmp(v, "unlimited") || !strcmp(v, "-1"))) {
			n = -1;
		} else if (parse_int64(v, (int64_t)k->min, (int64_t)k->max, &n, e) < 0) {
			if (k->kind == K_LIMIT)
				err_prefix(e, "expected a whole number or 'unlimited'");
			return -1;
		}
		int iv = (int)n;
		memcpy(field, &iv, sizeof(iv));
		return 0;
	}
	case K_DLIMIT: {
		double d;
		if (!strcasecmp(v, "unlimited") || !strcmp(v, "-1")) {
			d = -1;
		} else if (parse_double(v, k->min, k->max, &d, e) < 0) {
			err_prefix(e, "expected a number or 'unlimited'");
			return -1;
		}
		memcpy(field, &d, sizeof(d));
		return 0;
	}
	case K_STR:
		/* The policy goes over the wire as JSON, which carries only UTF-8. */
		if (!utf8_valid(v))
			return err_set(e, GQ_EINVAL, "value is not UTF-8 text");
		if (!str_copy(field, k->size, v))
			return err_set(e, GQ_EINVAL, "value too long (at most %zu characters)",
				       k->size - 1);
		for (const char *c = v; *c; c++)
			if ((unsigned char)*c < ' ')
				return err_set(e, GQ_EINVAL, "control character in value");
		return 0;
	case K_NAME:
		if (!name_valid(v) || strlen(v) >= k->size)
			return err_set(e, GQ_EINVAL,
				       "bad name '%s'; use letters, digits, '.', '_', '-'", v);
		str_copy(field, k->size, v);
		return 0;
	case K_ROLLOUT:
		for (int i = 0; i < 3; i++) {
			if (!strcasecmp(v, rollout_names[i])) {
				enum rollout r = (enum rollout)i;
				memcpy(field, &r, sizeof(r));
				return 0;
			}
		}
		return err_set(e, GQ_EINVAL, "unknown mode '%s'; use observe, trial or enforce", v);
	case K_WINDOW:
		return window_parse(v, (struct window *)(void *)field, e);
	case K_WINACT: {
		enum window_action a = strcasecmp(v, "finish") ? WINDOW_REQUEUE : WINDOW_FINISH;
		memcpy(field, &a, sizeof(a));
		return a == WINDOW_FINISH || !strcasecmp(v, "requeue")
			   ? 0
			   : err_set(e, GQ_EINVAL, "unknown action '%s'; use requeue or finish", v);
	}
	case K_QUOTAACT: {
		enum quota_action a = strcasecmp(v, "stop") ? QUOTA_PREEMPTIBLE : QUOTA_STOP;
		memcpy(field, &a, sizeof(a));
		return a == QUOTA_STOP || !strcasecmp(v, "preemptible")
			   ? 0
			   : err_set(e, GQ_EINVAL, "unknown action '%s'; use preemptible or stop",
				     v);
	}
	case K_SIGNAL: {
		const char *name = strncasecmp(v, "SIG", 3) ? v : v + 3;
		for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
			if (!strcasecmp(name, signals[i].name)) {
				memcpy(field, &signals[i].num, sizeof(int));
				return 0;
			}
		}
		return err_set(e, GQ_EINVAL,
			       "unsupported signal '%s'; use TERM, INT, HUP, USR1, USR2 or QUIT",
			       v);
	}
	}
	BUG("bad kind %d", (int)k->kind);
}

static void format_value(const struct keydef *k, const char *field, char *out, size_t size)
{
	switch (k->kind) {
	case K_DOUBLE: {
		double d;
		memcpy(&d, field, sizeof(d));
		snprintf(out, size, "%g", d);
		return;
	}
	case K_DURNONE:
	case K_DUR: {
		int64_t d;
		memcpy(&d, field, sizeof(d));
		if (k->kind == K_DURNONE && d == 0) {
			snprintf(out, size, "none");
			return;
		}
		dur_format(d, out, size);
		/* dur_format rounds to two units; print exact seconds when it lost some. */
		int64_t back;
		if (dur_parse(out, &back, NULL) < 0 || back != d)
			snprintf(out, size, "%llds", (long long)d);
		return;
	}
	case K_INT:
	case K_LIMIT: {
		int n;
		memcpy(&n, field, sizeof(n));
		if (k->kind == K_LIMIT && n < 0)
			snprintf(out, size, "unlimited");
		else
			snprintf(out, size, "%d", n);
		return;
	}
	case K_DLIMIT: {
		double d;
		memcpy(&d, field, sizeof(d));
		if (d < 0)
			snprintf(out, size, "unlimited");
		else
			snprintf(out, size, "%g", d);
		return;
	}
	case K_STR:
	case K_NAME:
		snprintf(out, size, "%s", field);
		return;
	case K_ROLLOUT: {
		enum rollout r;
		memcpy(&r, field, sizeof(r));
		snprintf(out, size, "%s", rollout_name(r));
		return;
	}
	case K_WINDOW:
		window_format((const struct window *)(const void *)field, out, size);
		return;
	case K_WINACT:
		snprintf(out, size, "%s", window_action_name(*(const enum window_action *)field));
		return;
	case K_QUOTAACT:
		snprintf(out, size, "%s", quota_action_name(*(const enum quota_action *)field));
		return;
	case K_SIGNAL: {
		int sig;
		memcpy(&sig, field, sizeof(sig));
		for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
			if (signals[i].num == sig) {
				snprintf(out, size, "%s", signals[i].name);
				return;
			}
		snprintf(out, size, "%d", sig);
		return;
	}
	}
	BUG("bad kind %d", (int)k->kind);
}

static void apply_default(const struct keydef *k, char *base, int tier)
{
	struct gq_err e = GQ_ERR_INIT;
	if (parse_value(k, k->def[tier], base + k->off, &e) < 0)
		BUG("default of %s.%s does not parse: %s", k->section, k->name, e.msg);
}

static void queue_defaults(struct policy *p, struct queue_policy *q, const char *name)
{
	(void)p;
	memset(q, 0, sizeof(*q));
	str_copy(q->name, sizeof(q->name), name);
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].scope == SC_QUEUE)
			apply_default(&keys[i], (char *)q, 0);
}

static void dept_defaults(struct policy *p, struct dept_policy *d, const char *name)
{
	(void)p;
	memset(d, 0, sizeof(*d));
	str_copy(d->name, sizeof(d->name), name);
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].scope == SC_DEPT)
			apply_default(&keys[i], (char *)d, 0);
}

void policy_defaults(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < NKEYS; i++) {
		const struct keydef *k = &keys[i];
		if (k->scope == SC_GLOBAL)
			apply_default(k, (char *)p, 0);
		else if (k->scope == SC_TIER)
			for (int t = 0; t < TIER_COUNT; t++)
				apply_default(k, (char *)&p->tier[t], t);
	}
	queue_defaults(p, &p->queues[p->nqueues++], "default");
	dept_defaults(p, &p->depts[p->ndepts++], "default");
}

int policy_set(struct policy *p, const char *key, const char *value, struct gq_err *e)
{
	char sec[32], sub[GQ_NAME_MAX + 8], name[48];
	if (!key || split_key(key, sec, sizeof(sec), sub, sizeof(sub), name, sizeof(name)) < 0)
		return err_set(e, GQ_ENOENT, "unknown policy key '%s'", key ? key : "");
	const struct keydef *k = find_keydef(sec, sub[0] != '\0', name);
	if (!k)
		return err_set(e, GQ_ENOENT, "unknown policy key '%s'", key);
	if (!value)
		return err_set(e, GQ_EINVAL, "%s: a value is required", key);
	long off = -1;
	if (key_create(p, k, sub, e) < 0 || (off = key_base(p, k, sub, e)) < 0) {
		err_prefix(e, "%s", key);
		return -1;
	}
	char *base = (char *)p + off;
	/* Parse into a scratch copy so a bad value leaves the field untouched. */
	char scratch[512];
	if (k->size > sizeof(scratch))
		BUG("field of %s too large", key);
	memcpy(scratch, base + k->off, k->size);
	if (parse_value(k, value, scratch, e) < 0) {
		err_prefix(e, "%s", key);
		return -1;
	}
	memcpy(base + k->off, scratch, k->size);
	return 0;
}

int policy_queue_index(const struct policy *p, const char *name)
{
	for (int i = 0; i < p->nqueues; i++)
		if (!strcmp(p->queues[i].name, name))
			return i;
	return -1;
}

int policy_dept_index(const struct policy *p, const char *name)
{
	for (int i = 0; i < p->ndepts; i++)
		if (!strcmp(p->depts[i].name, name))
			return i;
	return -1;
}

const struct queue_policy *policy_queue(const struct policy *p, const char *name)
{
	int i = policy_queue_index(p, name);
	return i < 0 ? NULL : &p->queues[i];
}

int policy_validate(const struct policy *p, struct gq_err *e)
{
	if (!(p->tier[TIER_P0].base > p->tier[TIER_P1].base &&
	      p->tier[TIER_P1].base > p->tier[TIER_P2].base))
		return err_set(e, GQ_EINVAL,
			       "tier.*.base: tiers must be ordered P0 > P1 > P2 (now %g, %g, %g)",
			       p->tier[0].base, p->tier[1].base, p->tier[2].base);
	/* Aging never crosses tiers: the most aged weight of a tier stays below
	 * the fresh weight of the tier above. */
	for (int t = 1; t < TIER_COUNT; t++)
		if (p->tier[t].base * (1 + p->aging_cap) >= p->tier[t - 1].base)
			return err_set(
			    e, GQ_EINVAL,
			    "aging.cap: %g lets %s (base %g) age past a fresh %s (base %g); "
			    "lower aging.cap or widen the bases",
			    p->aging_cap, tier_name((enum tier)t), p->tier[t].base,
			    tier_name((enum tier)(t - 1)), p->tier[t - 1].base);
	if (p->nqueues == 0)
		return err_set(e, GQ_EINVAL, "queue: at least one queue is required");
	if (policy_queue_index(p, p->default_queue) < 0)
		return err_set(e, GQ_EINVAL, "default.queue: no queue '%s' is defined",
			       p->default_queue);
	for (int i = 0; i < p->nqueues; i++) {
		const struct queue_policy *q = &p->queues[i];
		if (policy_dept_index(p, q->dept) < 0)
			return err_set(e, GQ_EINVAL,
				       "queue.%s.department: no department '%s' is defined",
				       q->name, q->dept);
	}
	const char *lists[] = {p->preempt_trial, p->downgrade_trial, p->reclaim_trial};
	const char *names[] = {"preempt.trialQueues", "downgrade.trialQueues",
			       "reclaim.trialQueues"};
	for (int l = 0; l < 3; l++) {
		const char *s = lists[l];
		while (*s) {
			while (*s == ' ' || *s == ',')
				s++;
			size_t n = strcspn(s, " ,");
			if (!n)
				break;
			char q[GQ_NAME_MAX];
			if (n >= sizeof(q) ||
			    (memcpy(q, s, n), q[n] = '\0', policy_queue_index(p, q) < 0))
				return err_set(e, GQ_EINVAL, "%s: no queue '%.*s' is defined",
					       names[l], (int)n, s);
			s += n;
		}
	}
	if (p->notify_webhook[0] && strncmp(p->notify_webhook, "http://", 7) &&
	    strncmp(p->notify_webhook, "https://", 8))
		return err_set(e, GQ_EINVAL, "notify.webhook: '%s' is not an http(s) URL",
			       p->notify_webhook);
	if (p->downgrade_webhook[0] && strncmp(p->downgrade_webhook, "http://", 7) &&
	    strncmp(p->downgrade_webhook, "https://", 8))
		return err_set(e, GQ_EINVAL, "downgrade.webhook: '%s' is not an http(s) URL",
			       p->downgrade_webhook);
	return 0;
}

int policy_queue_budget(const struct policy *p, int qi)
{
	if (qi < 0 || qi >= p->nqueues || p->queues[qi].max_preempt_hour < 0)
		return p->max_preempt_hour;
	return p->queues[qi].max_preempt_hour;
}

struct foreach_ctx {
	void (*fn)(const struct policy_key_info *, void *);
	void *arg;
};

static void emit(const struct keydef *k, const char *sub, const char *base, int tier,
		 const struct foreach_ctx *c)
{
	char key[128], val[300], def[300];
	if (sub)
		snprintf(key, sizeof(key), "%s.%s.%s", k->section, sub, k->name);
	else
		snprintf(key, sizeof(key), "%s.%s", k->section, k->name);
	format_value(k, base + k->off, val, sizeof(val));
	/* Format the default through the same path so "1" and "1.0" compare equal. */
	char scratch[512];
	struct gq_err e = GQ_ERR_INIT;
	memset(scratch, 0, sizeof(scratch));
	if (parse_value(k, k->def[tier], scratch, &e) < 0)
		BUG("default of %s does not parse: %s", key, e.msg);
	format_value(k, scratch, def, sizeof(def));
	struct policy_key_info ki = {key, val, def, !strcmp(val, def), k->doc};
	c->fn(&ki, c->arg);
}

void policy_foreach(const struct policy *p, void (*fn)(const struct policy_key_info *, void *),
		    void *arg)
{
	struct foreach_ctx c = {fn, arg};
	for (size_t i = 0; i < NKEYS; i++) {
		const struct keydef *k = &keys[i];
		switch (k->scope) {
		case SC_GLOBAL:
			emit(k, NULL, (const char *)p, 0, &c);
			break;
		case SC_TIER:
			for (int t = 0; t < TIER_COUNT; t++)
				emit(k, tier_names[t], (const char *)&p->tier[t], t, &c);
			break;
		case SC_QUEUE:
		case SC_DEPT:
			break;
		}
	}
	for (int q = 0; q < p->nqueues; q++)
		for (size_t i = 0; i < NKEYS; i++)
			if (keys[i].scope == SC_QUEUE)
				emit(&keys[i], p->queues[q].name, (const char *)&p->queues[q], 0,
				     &c);
	for (int d = 0; d < p->ndepts; d++)
		for (size_t i = 0; i < NKEYS; i++)
			if (keys[i].scope == SC_DEPT)
				emit(&keys[i], p->depts[d].name, (const char *)&p->depts[d], 0, &c);
}

int policy_get(const struct policy *p, const char *key, char *out, size_t size, struct gq_err *e)
{
	char sec[32], sub[GQ_NAME_MAX + 8], name[48];
	if (!key || split_key(key, sec, sizeof(sec), sub, sizeof(sub), name, sizeof(name)) < 0)
		return err_set(e, GQ_ENOENT, "unknown policy key '%s'", key ? key : "");
	const struct keydef *k = find_keydef(sec, sub[0] != '\0', name);
	if (!k)
		return err_set(e, GQ_ENOENT, "unknown policy key '%s'", key);
	long off = key_base(p, k, sub, e);
	if (off < 0)
		return -1;
	format_value(k, (const char *)p + off + k->off, out, size);
	return 0;
}

size_t policy_key_count(void)
{
	return NKEYS;
}

void policy_key_doc(size_t i, struct policy_key_doc *out)
{
	if (i >= NKEYS)
		BUG("policy key %zu of %zu", i, (size_t)NKEYS);
	if (keys[i].scope == SC_GLOBAL)
		snprintf(out->pattern, sizeof(out->pattern), "%s.%s", keys[i].section,
			 keys[i].name);
	else
		snprintf(out->pattern, sizeof(out->pattern), "%s.*.%s", keys[i].section,
			 keys[i].name);
	out->default_value = keys[i].def[0];
	out->doc = keys[i].doc;
}
