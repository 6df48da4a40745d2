/*
 * calib.c - the calibration of predicted starts (calib.h).
 */
#include "calib.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define RATIO_MAX 1e4

void calib_init(struct calib_window *w)
{
	memset(w, 0, sizeof(*w));
}

static size_t lower(const double *v, int n, double x)
{
	size_t lo = 0, hi = (size_t)n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void add(struct calib_window *w, double r)
{
	if (w->n == CALIB_WINDOW) {
		/* The oldest leaves the sorted copy, and its slot in the ring. */
		size_t at = lower(w->sorted, w->n, w->ring[w->head]);
		memmove(w->sorted + at, w->sorted + at + 1,
			((size_t)w->n - 1 - at) * sizeof(*w->sorted));
		w->n--;
		w->ring[w->head] = r;
		w->head = (w->head + 1) % CALIB_WINDOW;
	} else {
		w->ring[(w->head + w->n) % CALIB_WINDOW] = r;
	}
	size_t at = lower(w->sorted, w->n, r);
	memmove(w->sorted + at + 1, w->sorted + at, ((size_t)w->n - at) * sizeof(*w->sorted));
	w->sorted[at] = r;
	w->n++;
}

/* The ratio j contributes, or -1 when it does not count. */
static double ratio(const struct job *j)
{
	if (j->start_time <= 0 || j->restarts != 0 || j->pred_start0 <= 0 || j->submit_time <= 0)
		return -1;
	int64_t pw = j->pred_start0 - j->submit_time, w = j->start_time - j->submit_time;
	if (pw < CALIB_MIN_WAIT || w < 0)
		return -1;
	double r = (double)w / (double)pw;
	return r > RATIO_MAX ? RATIO_MAX : r;
}

void calib_add_job(struct calib_window *w, const struct job *j)
{
	double r = ratio(j);
	if (r >= 0)
		add(w, r);
}

void calib_get(const struct calib_window *w, struct predict_calib *out)
{
	if (w->n < CALIB_MIN) {
		*out = (struct predict_calib){0};
		return;
	}
	out->n = w->n;
	out->lo = w->sorted[(size_t)(CALIB_LO * (double)(w->n - 1))];
	out->hi = w->sorted[(size_t)(CALIB_HI * (double)(w->n - 1))];
}

static int cmp_start(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	if (x->start_time != y->start_time)
		return (x->start_time > y->start_time) - (x->start_time < y->start_time);
	return (x->id > y->id) - (x->id < y->id);
}

void predict_fill_calib(struct snapshot *s)
{
	const struct job **v = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < s->njobs; i++)
		if (ratio(&s->jobs[i]) >= 0)
			v[n++] = &s->jobs[i];
	qsort(v, n, sizeof(*v), cmp_start);
	struct calib_window *w = xmalloc(sizeof(*w));
	calib_init(w);
	for (size_t i = n > CALIB_WINDOW ? n - CALIB_WINDOW : 0; i < n; i++)
		calib_add_job(w, v[i]);
	calib_get(w, &s->calib);
	free(w);
	free(v);
}

static int64_t at(int64_t now, int64_t wait, double f)
{
	double t = (double)now + (double)wait * f;
	return t >= (double)GQ_TIME_MAX ? GQ_TIME_MAX : t <= (double)now ? now : (int64_t)t;
}

void calib_widen(const struct predict_calib *c, int64_t now, int64_t start, int64_t *low,
		 int64_t *high)
{
	int64_t wait = start - now;
	if (c->n <= 0 || wait < CALIB_MIN_WAIT || !(c->lo >= 0) || !(c->hi >= c->lo))
		return;
	int64_t l = at(now, wait, c->lo), h = at(now, wait, c->hi);
	if (l < *low)
		*low = l;
	if (h > *high)
		*high = h;
}
