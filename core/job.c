/*
 * job.c - the model's small functions: state names, the snapshot's
 * containers and lookups.
 */
#include "job.h"

#include "jobsig.h"
#include "notify.h"
#include "width.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[JOB_STATE_COUNT] = {
    [JOB_PENDING] = "pending",	   [JOB_STARTING] = "starting",	  [JOB_RUNNING] = "running",
    [JOB_STOPPING] = "stopping",   [JOB_COMPLETED] = "completed", [JOB_FAILED] = "failed",
    [JOB_CANCELLED] = "cancelled", [JOB_TIMEOUT] = "timeout",
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? state_names[s] : "unknown";
}

int job_state_parse(const char *s, enum job_state *out)
{
	for (int i = 0; i < JOB_STATE_COUNT; i++) {
		if (!strcmp(s, state_names[i])) {
			*out = (enum job_state)i;
			return 0;
		}
	}
	return -1;
}

bool job_state_active(enum job_state s)
{
	return s == JOB_PENDING || job_state_holds_gpus(s);
}

bool job_state_holds_gpus(enum job_state s)
{
	return s == JOB_STARTING || s == JOB_RUNNING || s == JOB_STOPPING;
}

enum tier job_tier(const struct job *j)
{
	return j->ovr.set ? j->ovr.tier : j->over_quota ? TIER_P2 : j->tier;
}

int job_order_tier(const struct job *j)
{
	return j->over_quota && !j->ovr.set ? TIER_COUNT : (int)job_tier(j);
}

int job_order_rank(const struct job *j)
{
	return j->claim_time ? 0 : 1 + job_order_tier(j);
}

bool snapshot_dept_spent(const struct snapshot *s, int di)
{
	if (di < 0 || di >= s->policy.ndepts)
		return false;
	double limit = s->policy.depts[di].gpu_hours_month;
	return limit >= 0 && s->dstate[di].gpu_hours_month >= limit;
}

void snapshot_mark_over_quota(struct snapshot *s)
{
	/* Departments first: a snapshot has few, and many jobs. */
	bool over[GQ_MAX_DEPTS];
	bool any = false;
	for (int d = 0; d < s->policy.ndepts && d < GQ_MAX_DEPTS; d++) {
		over[d] = snapshot_dept_spent(s, d) &&
			  s->policy.depts[d].over_action == QUOTA_PREEMPTIBLE;
		any |= over[d];
	}
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		j->over_quota = false;
		if (!any || !job_state_active(j->state) || j->req.gpus <= 0 || j->ovr.set)
			continue;
		int di = policy_dept_index(&s->policy, j->dept);
		j->over_quota = di >= 0 && over[di];
	}
}

int64_t job_waiting_since(const struct job *j)
{
	return j->queued_time ? j->queued_time : j->submit_time;
}

int64_t job_aging_base(const struct job *j)
{
	int64_t q = job_waiting_since(j);
	if (j->begin_time > q)
		q = j->begin_time;
	if (j->eligible_time > q)
		q = j->eligible_time;
	return q;
}

int64_t job_eligible_since(const struct job *j, int64_t now)
{
	if (j->held || j->begin_time > now)
		return 0;
	return job_aging_base(j);
}

int64_t job_waited(const struct job *j, int64_t now)
{
	int64_t since = job_waiting_since(j);
	int64_t until = j->state == JOB_PENDING			  ? now
			: j->start_time && j->start_time >= since ? j->start_time
			: j->end_time				  ? j->end_time
								  : 0;
	return since && until > since ? until - since : 0;
}

void job_run_time(const struct job *j, int64_t now, int64_t *seconds, int64_t *gpu_seconds)
{
	bool holds = job_state_holds_gpus(j->state);
	int64_t s = 0, gs = 0;
	if (j->runs_kept) {
		s = j->ran_time, gs = j->ran_gpu_time;
		if (holds && j->start_time > 0 && now > j->start_time) {
			s += now - j->start_time;
			gs += (int64_t)j->req.gpus * (now - j->start_time);
		}
	} else if (j->start_time > 0) {
		int64_t until = holds ? now : j->end_time;
		if (until > j->start_time) {
			s = until - j->start_time;
			gs = (int64_t)j->req.gpus * s;
		}
	}
	*seconds = s;
	*gpu_seconds = gs;
}

void job_run_end(struct job *j, int64_t t)
{
	if (j->start_time > 0 && t > j->start_time) {
		j->ran_time += t - j->start_time;
		j->ran_gpu_time += (int64_t)j->req.gpus * (t - j->start_time);
	}
	j->runs_kept = true;
}

int job_gpus_held(const struct job *j)
{
	if (!job_state_holds_gpus(j->state))
		return 0;
	int n = 0;
	for (int i = 0; i < j->nalloc; i++)
		n += __builtin_popcountll(j->alloc[i].mask);
	return n;
}

void job_gpu_list(const struct job *j, char *out, size_t size)
{
	size_t n = 0;
	if (size)
		out[0] = '\0';
	for (int a = 0; a < j->nalloc; a++)
		for (int g = 0; g < GQ_MAX_NODE_GPUS; g++)
			if (j->alloc[a].mask & (UINT64_C(1) << g))
				n += (size_t)snprintf(out + (n < size ? n : size),
						      n < size ? size - n : 0, "%s%d", n ? "," : "",
						      g);
}

void job_init(struct job *j)
{
	memset(j, 0, sizeof(*j));
	j->tier = TIER_P1;
	j->exit_status = -1;
	j->req.gpus = 1;
}

void job_release(struct job *j)
{
	free(j->alloc);
	j->alloc = NULL;
	j->nalloc = 0;
}

void job_set_alloc(struct job *j, int n, const struct job_alloc *a)
{
	if (n < 0 || n > GQ_MAX_SPAN)
		BUG("job_set_alloc: %d entries", n);
	struct job_alloc *v = n ? xmalloc((size_t)n * sizeof(*v)) : NULL;
	if (n)
		memcpy(v, a, (size_t)n * sizeof(*v));
	free(j->alloc);
	j->alloc = v;
	j->nalloc = n;
}

void job_copy(struct job *dst, const struct job *src)
{
	*dst = *src;
	dst->alloc = NULL;
	dst->nalloc = 0;
	job_set_alloc(dst, src->nalloc, src->alloc);
}

void jobs_free(struct job *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		job_release(&v[i]);
	free(v);
}

void snapshot_init(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	policy_defaults(&s->policy);
}

void snapshot_release(struct snapshot *s)
{
	for (size_t i = 0; i < s->njobs; i++)
		job_release(&s->jobs[i]);
	free(s->jobs);
	free(s->nodes);
	free(s->resv);
	s->jobs = NULL;
	s->nodes = NULL;
	s->resv = NULL;
	s->njobs = s->jobs_cap = s->nnodes = s->nodes_cap = s->nresv = s->resv_cap = 0;
}

struct job *snapshot_add_job(struct snapshot *s)
{
	GROW(s->jobs, s->jobs_cap, s->njobs + 1);
	struct job *j = &s->jobs[s->njobs++];
	job_init(j);
	return j;
}

struct node *snapshot_add_node(struct snapshot *s)
{
	GROW(s->nodes, s->nodes_cap, s->nnodes + 1);
	struct node *n = &s->nodes[s->nnodes++];
	memset(n, 0, sizeof(*n));
	n->up = true;
	return n;
}

struct reservation *snapshot_add_resv(struct snapshot *s)
{
	GROW(s->resv, s->resv_cap, s->nresv + 1);
	struct reservation *r = &s->resv[s->nresv++];
	memset(r, 0, sizeof(*r));
	return r;
}

static int cmp_job_id(const void *a, const void *b)
{
	int64_t x = ((const struct job *)a)->id, y = ((const struct job *)b)->id;
	return (x > y) - (x < y);
}

void snapshot_sort(struct snapshot *s)
{
	/* Snapshots mostly arrive sorted: a look costs less than a sort that
	 * moves 10,000 jobs of ~1 KB. */
	size_t i = 1;
	while (i < s->njobs && s->jobs[i - 1].id < s->jobs[i].id)
		i++;
	if (i < s->njobs)
		qsort(s->jobs, s->njobs, sizeof(*s->jobs), cmp_job_id);
}

struct job *snapshot_find(const struct snapshot *s, int64_t id)
{
	size_t n = s->njobs;
	/* Ids are mostly dense: look first where an even spread would put
	 * id, which saves a dozen cache misses on records of ~1 KB. A match
	 * there that is the only job with that id is the search's answer. */
	if (n && id >= s->jobs[0].id && id <= s->jobs[n - 1].id) {
		uint64_t span = (uint64_t)s->jobs[n - 1].id - (uint64_t)s->jobs[0].id;
		uint64_t off = (uint64_t)id - (uint64_t)s->jobs[0].id;
		size_t g = span ? (size_t)((double)off / (double)span * (double)(n - 1)) : 0;
		if (g < n && s->jobs[g].id == id && (g == 0 || s->jobs[g - 1].id != id) &&
		    (g + 1 == n || s->jobs[g + 1].id != id))
			return &s->jobs[g];
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->jobs[mid].id < id)
			lo = mid + 1;
		else if (s->jobs[mid].id > id)
			hi = mid;
		else
			return &s->jobs[mid];
	}
	return NULL;
}

int snapshot_gpus_total(const struct snapshot *s)
{
	int n = 0;
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].up)
			n += s->nodes[i].ngpus;
	return n;
}

static int not_finite(struct gq_err *e, const char *what, const char *name, double v)
{
	return err_set(e, GQ_EINTERNAL, "%s%s%s%s is not a finite number (%g)", what,
		       name ? " '" : "", name ? name : "", name ? "'" : "", v);
}

int snapshot_check_finite(const struct snapshot *s, struct gq_err *e)
{
	const struct policy *p = &s->policy;
	for (int t = 0; t < TIER_COUNT; t++)
		if (!isfinite(p->tier[t].base) || !isfinite(p->tier[t].price))
			return not_finite(
			    e, "policy: a weight or price of tier", tier_name((enum tier)t),
			    isfinite(p->tier[t].base) ? p->tier[t].price : p->tier[t].base);
	if (!isfinite(p->aging_step) || !isfinite(p->aging_cap) || !isfinite(p->headroom))
		return not_finite(e, "policy: aging or headroom", NULL,
				  p->aging_step + p->aging_cap + p->headroom);
	for (int q = 0; q < p->nqueues; q++) {
		if (!isfinite(p->queues[q].share))
			return not_finite(e, "policy: the share of queue", p->queues[q].name,
					  p->queues[q].share);
		if (!isfinite(s->qstate[q].usage))
			return not_finite(e, "the fair-share usage of queue", p->queues[q].name,
					  s->qstate[q].usage);
	}
	for (int d = 0; d < p->ndepts; d++) {
		if (!isfinite(p->depts[d].gpu_hours_month))
			return not_finite(e, "policy: the GPU-hour quota of department",
					  p->depts[d].name, p->depts[d].gpu_hours_month);
		if (!isfinite(s->dstate[d].gpu_hours_month))
			return not_finite(e, "the GPU-hours of department", p->depts[d].name,
					  s->dstate[d].gpu_hours_month);
	}
	if (!isfinite(s->calib.lo) || !isfinite(s->calib.hi))
		return not_finite(e, "the range calibration", NULL,
				  isfinite(s->calib.lo) ? s->calib.hi : s->calib.lo);
	for (size_t i = 0; i < s->njobs; i++)
		if (!isfinite(s->jobs[i].hist_ratio)) {
			char id[32];
			snprintf(id, sizeof(id), "%lld", (long long)s->jobs[i].id);
			return not_finite(e, "the runtime ratio of job", id, s->jobs[i].hist_ratio);
		}
	return 0;
}

/* s for a one-line message: controls as \n, \t, \r, \xHH or \u0085, the
 * bytes that are not UTF-8 as \xHH; cut with "..." to fit out[size]. */
static void name_escape(const char *s, char *out, size_t size)
{
	size_t n = 0;
	while (*s && n + 12 < size) {
		uint32_t cp;
		int len = utf8_decode(s, &cp);
		if (len < 0)
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", (unsigned char)*s);
		else if (cp == '\n' || cp == '\t' || cp == '\r')
			n += (size_t)snprintf(out + n, size - n, "\\%c",
					      cp == '\n'   ? 'n'
					      : cp == '\t' ? 't'
							   : 'r');
		else if (uc_width(cp) < 0)
			n += (size_t)snprintf(out + n, size - n, cp < 0x80 ? "\\x%02x" : "\\u%04x",
					      (unsigned)cp);
		else
			n += (size_t)snprintf(out + n, size - n, "%.*s", len, s);
		s += len < 0 ? 1 : len;
	}
	if (*s)
		snprintf(out + n, size - n, "...");
}

int job_name_check(const char *s, struct gq_err *e)
{
	char shown[96];
	size_t max = sizeof(((struct job *)0)->name) - 1, n = strlen(s);
	if (!n)
		return err_set(e, GQ_EINVAL, "the job name is empty; give 1 to %zu bytes of text",
			       max);
	name_escape(s, shown, sizeof(shown));
	if (n > max)
		return err_set(e, GQ_EINVAL,
			       "job name '%s' is %zu bytes long; give at most %zu (most CJK "
			       "characters take 3 bytes, most emoji 4)",
			       shown, n, max);
	for (const char *p = s; *p;) {
		uint32_t cp;
		int len = utf8_decode(p, &cp);
		if (len < 0)
			return err_set(e, GQ_EINVAL,
				       "job name '%s' is not valid UTF-8 (byte %zu); give it as "
				       "UTF-8 text",
				       shown, (size_t)(p - s) + 1);
		if (uc_width(cp) < 0)
			return err_set(
			    e, GQ_EINVAL,
			    "job name '%s' has a control character; give a name without one",
			    shown);
		p += len;
	}
	return 0;
}

void job_name_default(struct job *j, const char *path, const char *fallback)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash && slash[1] ? slash + 1 : path;
	size_t n = strlen(base);
	if (n >= sizeof(j->name)) {
		n = sizeof(j->name) - 1;
		while (n && ((unsigned char)base[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(j->name, base, n);
	j->name[n] = '\0';
	if (job_name_check(j->name, NULL) < 0)
		STR_COPY(j->name, fallback);
}

int job_req_check(const struct job *j, struct gq_err *e)
{
	const struct job_res *r = &j->req;
	if (r->gpus < 0 || r->gpus > GQ_MAX_REQ_GPUS)
		return err_set(e, GQ_EINVAL, "req.gpus: %d is out of range (0..%d)", r->gpus,
			       GQ_MAX_REQ_GPUS);
	if (r->cpus < 0 || r->cpus > GQ_MAX_REQ_CPUS)
		return err_set(e, GQ_EINVAL, "req.cpus: %d is out of range (0..%d)", r->cpus,
			       GQ_MAX_REQ_CPUS);
	if (r->mem_mb < 0 || r->mem_mb > GQ_MAX_REQ_MEM_MB)
		return err_set(e, GQ_EINVAL, "req.mem_mb: %lld is out of range (0..%lld)",
			       (long long)r->mem_mb, (long long)GQ_MAX_REQ_MEM_MB);
	if (r->gpu_mem_mb < 0 || r->gpu_mem_mb > GQ_MAX_REQ_MEM_MB)
		return err_set(e, GQ_EINVAL, "req.gpu_mem_mb: %lld is out of range (0..%lld)",
			       (long long)r->gpu_mem_mb, (long long)GQ_MAX_REQ_MEM_MB);
	if (j->time_limit < 0 || j->time_limit > GQ_DUR_MAX)
		return err_set(e, GQ_EINVAL,
			       "time_limit: %lld s is out of range (0..%lld, 100 years)",
			       (long long)j->time_limit, (long long)GQ_DUR_MAX);
	if (j->estimate < 0 || j->estimate > GQ_DUR_MAX)
		return err_set(e, GQ_EINVAL,
			       "estimate: %lld s is out of range (0..%lld, 100 years)",
			       (long long)j->estimate, (long long)GQ_DUR_MAX);
	if (j->estimate && j->time_limit && j->estimate > j->time_limit)
		return err_set(e, GQ_EINVAL,
			       "estimate is longer than time_limit; the job would be killed first");
	if (jobsig_check(j->sig, j->sig_before, j->time_limit, e) < 0)
		return -1;
	unsigned m;
	if (j->notify[0] && notify_parse(j->notify, &m, e) < 0)
		return -1;
	return 0;
}
