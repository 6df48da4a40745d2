/*
 * ulimit.c - per-user limits (ulimit.h): a table of users built once per
 * snapshot, and the comparisons with the policy's keys.
 */
#include "ulimit.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

bool ulimit_gpus_set(const struct policy *p)
{
	if (p->user_max_gpus >= 0)
		return true;
	for (int q = 0; q < p->nqueues; q++)
		if (p->queues[q].user_max_gpus >= 0)
			return true;
	return false;
}

int ulimit_gpus_cap(const struct policy *p, int qi, bool *queue_limit)
{
	int ql = qi >= 0 && qi < p->nqueues ? p->queues[qi].user_max_gpus : -1;
	int all = p->user_max_gpus;
	*queue_limit = ql >= 0 && (all < 0 || ql <= all);
	return *queue_limit ? ql : all;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Counts job j, of policy queue qi, into u. */
static void count(struct ulimit_user *u, const struct job *j, int qi)
{
	if (job_state_active(j->state)) {
		u->jobs++;
		if (qi >= 0)
			u->qjobs[qi]++;
	}
	if (job_state_holds_gpus(j->state) && j->req.gpus > 0)
		ulimit_take(u, qi, j->req.gpus);
}

static ptrdiff_t find(const struct ulimit_table *t, const char *name)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->users[mid].name, name);
		if (!c)
			return (ptrdiff_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void ulimit_table_init(struct ulimit_table *t, const struct snapshot *s)
{
	memset(t, 0, sizeof(*t));
	size_t nj = s->njobs;
	const char **names = xmalloc((nj ? nj : 1) * sizeof(*names));
	for (size_t i = 0; i < nj; i++)
		names[i] = s->jobs[i].user;
	qsort(names, nj, sizeof(*names), cmp_name);
	size_t n = 0;
	for (size_t i = 0; i < nj; i++)
		if (!n || strcmp(names[n - 1], names[i]))
			names[n++] = names[i];
	t->n = n;
	t->users = xcalloc(n ? n : 1, sizeof(*t->users));
	for (size_t i = 0; i < n; i++)
		t->users[i].name = names[i];
	free(names);
	t->njobs = nj;
	t->of_job = xmalloc((nj ? nj : 1) * sizeof(*t->of_job));
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = &s->jobs[i];
		ptrdiff_t ui = find(t, j->user);
		struct ulimit_user *u = &t->users[ui];
		t->of_job[i] = (int32_t)ui;
		count(u, j, policy_queue_index(&s->policy, j->queue));
	}
}

void ulimit_table_release(struct ulimit_table *t)
{
	free(t->users);
	free(t->of_job);
	memset(t, 0, sizeof(*t));
}

const struct ulimit_user *ulimit_find(const struct ulimit_table *t, const char *name)
{
	ptrdiff_t i = find(t, name);
	return i < 0 ? NULL : &t->users[i];
}

/* The queue's limit first, then the overall one. */
static bool over(int qlimit, int qused, int limit, int used, int more, struct ulimit_hit *out)
{
	if (more <= 0)
		return false;
	if (qlimit >= 0 && qused + more > qlimit) {
		*out = (struct ulimit_hit){true, qused, qlimit};
		return true;
	}
	if (limit >= 0 && used + more > limit) {
		*out = (struct ulimit_hit){false, used, limit};
		return true;
	}
	return false;
}

bool ulimit_gpus_over(const struct policy *p, const struct ulimit_user *u, int qi, int more,
		      struct ulimit_hit *out)
{
	bool inq = qi >= 0 && qi < p->nqueues;
	return over(inq ? p->queues[qi].user_max_gpus : -1, u && inq ? u->qgpus[qi] : 0,
		    p->user_max_gpus, u ? u->gpus : 0, more, out);
}

bool ulimit_jobs_over(const struct policy *p, const struct ulimit_user *u, int qi, int more,
		      struct ulimit_hit *out)
{
	bool inq = qi >= 0 && qi < p->nqueues;
	return over(inq ? p->queues[qi].user_max_jobs : -1, u && inq ? u->qjobs[qi] : 0,
		    p->user_max_jobs, u ? u->jobs : 0, more, out);
}

void ulimit_of(const struct snapshot *s, const char *name, struct ulimit_user *out)
{
	memset(out, 0, sizeof(*out));
	out->name = name;
	for (size_t i = 0; i < s->njobs; i++)
		if (!strcmp(s->jobs[i].user, name))
			count(out, &s->jobs[i], policy_queue_index(&s->policy, s->jobs[i].queue));
}

bool ulimit_job_over(const struct snapshot *s, const struct job *j, struct ulimit_hit *out)
{
	const struct policy *p = &s->policy;
	if (j->req.gpus <= 0 || !ulimit_gpus_set(p))
		return false;
	struct ulimit_user u;
	ulimit_of(s, j->user, &u);
	return ulimit_gpus_over(p, &u, policy_queue_index(p, j->queue), j->req.gpus, out);
}

void ulimit_take(struct ulimit_user *u, int qi, int gpus)
{
	u->gpus += gpus;
	if (qi >= 0 && qi < GQ_MAX_QUEUES)
		u->qgpus[qi] += gpus;
}
