/*
 * runtime.c - expected runtimes and the history behind them (runtime.h).
 */
#include "runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int64_t cap_rt(int64_t rt)
{
	return rt < 1 ? 1 : rt > PREDICT_MAX_RUNTIME ? PREDICT_MAX_RUNTIME : rt;
}

/* time_limit × hist_ratio, the ratio taken as at most 1. */
static int64_t by_ratio(const struct job *j)
{
	double r = j->hist_ratio > 1 ? 1 : j->hist_ratio;
	return (int64_t)((double)cap_rt(j->time_limit) * r + 0.5);
}

int64_t predict_runtime(const struct policy *p, const struct job *j)
{
	int64_t rt;
	if (j->estimate > 0)
		rt = j->estimate;
	else if (j->hist_runtime > 0)
		rt = j->hist_runtime;
	else if (j->time_limit > 0 && j->hist_ratio > 0)
		rt = by_ratio(j);
	else if (j->time_limit > 0)
		rt = j->time_limit;
	else
		rt = p->default_runtime;
	if (j->time_limit > 0 && rt > j->time_limit)
		rt = j->time_limit;
	return cap_rt(rt);
}

int64_t predict_runtime_low(const struct policy *p, const struct job *j)
{
	int64_t mid = predict_runtime(p, j), low = mid;
	if (j->estimate > 0 && j->estimate < low)
		low = j->estimate;
	if (j->hist_runtime > 0 && j->hist_runtime < low)
		low = j->hist_runtime;
	if (j->time_limit > 0 && j->hist_ratio > 0) {
		int64_t r = by_ratio(j);
		if (r > 0 && r < low)
			low = r;
	}
	return cap_rt(low);
}

int64_t predict_runtime_high(const struct policy *p, const struct job *j)
{
	int64_t mid = predict_runtime(p, j);
	return cap_rt(j->time_limit > mid ? j->time_limit : mid);
}

/* Expected end of a job holding GPUs, from a runtime; see predict_end(). */
int64_t predict_end_rt(const struct job *j, int64_t rt, int64_t now)
{
	int64_t st = j->start_time > 0 && j->start_time < now ? j->start_time : now;
	if (st < now - PREDICT_MAX_RUNTIME)
		st = now - PREDICT_MAX_RUNTIME;
	int64_t e = st + rt;
	if (e <= now) {
		/* Overdue: a fresh expectation. Its limit when that is still
		 * ahead (measured better than the rule below on both traces);
		 * else, runtimes being heavy-tailed, as long again as it has run
		 * (the median total of a Pareto tail of index 1 past a is 2a). */
		if (j->time_limit > 0 && st + cap_rt(j->time_limit) > now)
			e = st + cap_rt(j->time_limit);
		else
			e = st + 2 * (now - st);
	}
	if (j->state == JOB_STOPPING && j->stop_deadline > 0 && j->stop_deadline < e)
		e = j->stop_deadline;
	return e < now + 1 ? now + 1 : e;
}

int64_t predict_end(const struct policy *p, const struct job *j, int64_t now)
{
	return predict_end_rt(j, predict_runtime(p, j), now);
}

int64_t predict_first_end(const struct policy *p, const struct job *j, int64_t now)
{
	int64_t st = j->start_time > 0 && j->start_time < now ? j->start_time : now;
	int64_t e = st + predict_runtime(p, j);
	return e > now + PREDICT_MAX_RUNTIME ? now + PREDICT_MAX_RUNTIME : e;
}

bool predict_overdue(const struct policy *p, const struct job *j, int64_t now)
{
	return job_state_holds_gpus(j->state) && j->state != JOB_STOPPING &&
	       predict_first_end(p, j, now) <= now;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int64_t predict_hist_runtime(const int64_t *runtimes, size_t n)
{
	int64_t *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (runtimes[i] > 0)
			v[m++] = runtimes[i];
	int64_t r = 0;
	if (m) {
		qsort(v, m, sizeof(*v), cmp_i64);
		r = v[(m + 1) / 2 - 1];
	}
	free(v);
	return r;
}

double predict_hist_ratio(const int64_t *runtimes, const int64_t *limits, size_t n)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (runtimes[i] <= 0 || limits[i] <= 0)
			continue;
		double r = (double)runtimes[i] / (double)limits[i];
		v[m++] = r > 1 ? 1 : r;
	}
	double r = 0;
	if (m) {
		qsort(v, m, sizeof(*v), cmp_dbl);
		r = v[(m + 1) / 2 - 1];
	}
	free(v);
	return r;
}

/* History: finished runs grouped by user and name (runtimes) and by user
 * (runtime / limit ratios), each group's values kept sorted. */

struct rt_hist_group {
	char user[32], name[64];
	size_t n, cap;
	int64_t *rt;	 /* byname groups: sorted runtimes */
	double *rat;	 /* byuser groups: sorted runtime / limit */
	int64_t last[2]; /* the two latest runtimes added, last[0] the latest */
	int nlast;
};

void rt_hist_init(struct rt_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static void free_groups(struct rt_hist_group **g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i]->rt);
		free(g[i]->rat);
		free(g[i]);
	}
	free(g);
}

void rt_hist_release(struct rt_hist *h)
{
	free_groups(h->byname, h->nbyname);
	free_groups(h->byuser, h->nbyuser);
	rt_hist_init(h);
}

static int cmp_key(const struct rt_hist_group *g, const char *user, const char *name)
{
	int c = strcmp(g->user, user);
	return c || !name ? c : strcmp(g->name, name);
}

/* The index of the group of (user, name) in g[0..n), or where it would go;
 * *found says which. */
static size_t find_group(struct rt_hist_group *const *g, size_t n, const char *user,
			 const char *name, bool *found)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_key(g[mid], user, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && !cmp_key(g[lo], user, name);
	return lo;
}

static struct rt_hist_group *get_group(struct rt_hist_group ***g, size_t *n, size_t *cap,
				       const struct job *j, bool byname)
{
	bool found;
	size_t at = find_group(*g, *n, j->user, byname ? j->name : NULL, &found);
	if (found)
		return (*g)[at];
	GROW(*g, *cap, *n + 1);
	memmove(*g + at + 1, *g + at, (*n - at) * sizeof(**g));
	struct rt_hist_group *ng = xcalloc(1, sizeof(*ng));
	STR_COPY(ng->user, j->user);
	if (byname)
		STR_COPY(ng->name, j->name);
	(*g)[at] = ng;
	(*n)++;
	return ng;
}

static void push_last(struct rt_hist_group *g, int64_t rt)
{
	g->last[1] = g->last[0];
	g->last[0] = rt;
	if (g->nlast < 2)
		g->nlast++;
}

/* The mean of a group's last two runtimes (Tsafrir, Etsion and Feitelson
 * 2007), or its only one; 0 for none. */
static int64_t last_two(const struct rt_hist_group *g)
{
	if (!g || !g->nlast)
		return 0;
	return g->nlast == 1 ? g->last[0] : (g->last[0] + g->last[1] + 1) / 2;
}

void rt_hist_add(struct rt_hist *h, const struct job *j)
{
	if (j->state != JOB_COMPLETED || j->start_time <= 0 || j->end_time <= j->start_time)
		return;
	int64_t rt = j->end_time - j->start_time;
	struct rt_hist_group *g = get_group(&h->byname, &h->nbyname, &h->capbyname, j, true);
	GROW(g->rt, g->cap, g->n + 1);
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->rt[mid] <= rt)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t at = lo;
	memmove(g->rt + at + 1, g->rt + at, (g->n - at) * sizeof(*g->rt));
	g->rt[at] = rt;
	g->n++;
	push_last(g, rt);
	g = get_group(&h->byuser, &h->nbyuser, &h->capbyuser, j, false);
	push_last(g, rt);
	if (j->time_limit <= 0)
		return;
	double r = (double)rt / (double)j->time_limit;
	GROW(g->rat, g->cap, g->n + 1);
	lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->rat[mid] <= r)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = lo;
	memmove(g->rat + at + 1, g->rat + at, (g->n - at) * sizeof(*g->rat));
	g->rat[at] = r;
	g->n++;
}

void rt_hist_fill(const struct rt_hist *h, struct job *j)
{
	bool found;
	size_t at = find_group(h->byname, h->nbyname, j->user, j->name, &found);
	const struct rt_hist_group *g = found ? h->byname[at] : NULL;
	at = find_group(h->byuser, h->nbyuser, j->user, NULL, &found);
	const struct rt_hist_group *u = found ? h->byuser[at] : NULL;
	/* Measured with gq sim on both traces of bench/README.md: the smaller
	 * of the mean of the last two runs of this name (Tsafrir, Etsion and
	 * Feitelson 2007) and their P50, else the user's last two runs of any
	 * name. */
	const struct rt_hist_group *src = g ? g : u;
	if (g) {
		int64_t two = last_two(g), p50 = g->rt[(g->n + 1) / 2 - 1];
		j->hist_runtime = p50 < two ? p50 : two;
		j->hist_src = p50 < two ? HIST_NAME_P50 : HIST_NAME_LAST2;
	} else {
		j->hist_runtime = last_two(u);
		j->hist_src = u && u->nlast ? HIST_USER_LAST2 : HIST_NONE;
	}
	/* The user group counts its runs in nlast only (n counts ratios). */
	j->hist_n = !src ? 0 : src == g ? (int)(g->n > INT_MAX ? INT_MAX : g->n) : u->nlast;
	j->hist_last = src && src->nlast > 0 ? src->last[0] : 0;
	j->hist_prev = src && src->nlast > 1 ? src->last[1] : 0;
	g = u;
	if (g && g->n) {
		double r = g->rat[(g->n + 1) / 2 - 1];
		j->hist_ratio = r > 1 ? 1 : r;
	} else {
		j->hist_ratio = 0;
	}
}

static int cmp_end(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	if (x->end_time != y->end_time)
		return (x->end_time > y->end_time) - (x->end_time < y->end_time);
	return (x->id > y->id) - (x->id < y->id);
}

void predict_fill_history(struct snapshot *s)
{
	const struct job **done = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*done));
	size_t n = 0;
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].state == JOB_COMPLETED)
			done[n++] = &s->jobs[i];
	qsort(done, n, sizeof(*done), cmp_end);
	struct rt_hist h;
	rt_hist_init(&h);
	for (size_t i = 0; i < n; i++)
		rt_hist_add(&h, done[i]);
	for (size_t i = 0; i < s->njobs; i++)
		if (job_state_active(s->jobs[i].state))
			rt_hist_fill(&h, &s->jobs[i]);
	rt_hist_release(&h);
	free(done);
}
