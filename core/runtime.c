/*
 * runtime.c - expected runtimes and the history behind them (runtime.h).
 */
#include "runtime.h"

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
	if (e <= now && j->time_limit > 0 && st + cap_rt(j->time_limit) > now)
		e = st + cap_rt(j->time_limit);
	if (j->state == JOB_STOPPING && j->stop_deadline > 0 && j->stop_deadline < e)
		e = j->stop_deadline;
	return e < now + 1 ? now + 1 : e;
}

int64_t predict_end(const struct policy *p, const struct job *j, int64_t now)
{
	return predict_end_rt(j, predict_runtime(p, j), now);
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

/* History: finished runs grouped by user and name. */

struct hrun {
	const char *user, *name; /* borrowed from the snapshot */
	int64_t runtime, limit;
};

static int cmp_hrun_name(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int c = strcmp(x->user, y->user);
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = (x->runtime > y->runtime) - (x->runtime < y->runtime);
	return c;
}

static int cmp_ratio(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int c = strcmp(x->user, y->user);
	if (c)
		return c;
	/* runtime / limit compared without division */
	double l = (double)x->runtime * (double)y->limit, r = (double)y->runtime * (double)x->limit;
	return (l > r) - (l < r);
}

/* The first run of [lo, hi) matching user (and name when byname), by
 * binary search; *n gets how many match. */
static size_t group(const struct hrun *v, size_t count, const char *user, const char *name,
		    bool byname, size_t *n)
{
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].user, user);
		if (!c && byname)
			c = strcmp(v[mid].name, name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < count && !strcmp(v[end].user, user) && (!byname || !strcmp(v[end].name, name)))
		end++;
	*n = end - lo;
	return lo;
}

void predict_fill_history(struct snapshot *s)
{
	size_t n = 0, nl = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state == JOB_COMPLETED && j->start_time > 0 && j->end_time > j->start_time)
			n++;
	}
	struct hrun *byname = xmalloc((n ? n : 1) * sizeof(*byname));
	struct hrun *bylimit = xmalloc((n ? n : 1) * sizeof(*bylimit));
	n = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_COMPLETED || j->start_time <= 0 || j->end_time <= j->start_time)
			continue;
		struct hrun h = {j->user, j->name, j->end_time - j->start_time, j->time_limit};
		byname[n++] = h;
		if (j->time_limit > 0)
			bylimit[nl++] = h;
	}
	qsort(byname, n, sizeof(*byname), cmp_hrun_name);
	qsort(bylimit, nl, sizeof(*bylimit), cmp_ratio);
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (!job_state_active(j->state))
			continue;
		size_t m, at = group(byname, n, j->user, j->name, true, &m);
		j->hist_runtime = m ? byname[at + (m + 1) / 2 - 1].runtime : 0;
		at = group(bylimit, nl, j->user, NULL, false, &m);
		if (m) {
			const struct hrun *h = &bylimit[at + (m + 1) / 2 - 1];
			double r = (double)h->runtime / (double)h->limit;
			j->hist_ratio = r > 1 ? 1 : r;
		} else {
			j->hist_ratio = 0;
		}
	}
	free(byname);
	free(bylimit);
}
