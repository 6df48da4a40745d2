/*
 * share.c - exact exponential decay of fair-share usage. See share.h.
 */
#include "share.h"

#include <math.h>
#include <string.h>

#define MIN_SHARE 1e-9

double share_decay(double usage, int64_t dt, int64_t half_life)
{
	if (!isfinite(usage) || usage < 0)
		return 0;
	if (dt <= 0)
		return usage;
	if (half_life <= 0)
		return 0;
	return usage * exp2(-(double)dt / (double)half_life);
}

double share_interval(double gpus, int64_t from, int64_t to, int64_t now, int64_t half_life)
{
	/* GPUs held after `now` cannot count yet: unclamped, a `to` far past
	 * `now` (a stale now, times recorded out of order) makes the decay
	 * factor overflow to infinity, and usage non-finite for good. */
	if (to > now)
		to = now;
	if (to <= from || !(gpus > 0) || !isfinite(gpus))
		return 0;
	if (half_life <= 0)
		return 0;
	/* integral of g 2^(-(now-t)/h) dt = g h / ln2 (2^(-(now-to)/h) - 2^(-(now-from)/h));
	 * written with expm1 so that short intervals keep their precision. */
	double h = (double)half_life;
	double k = M_LN2 / h;
	double at_to = exp2(-(double)(now - to) / h);
	return gpus * at_to * -expm1(-k * (double)(to - from)) / k;
}

void share_charge(struct snapshot *s, const char *queue, double gpus, int64_t from, int64_t to)
{
	int qi = policy_queue_index(&s->policy, queue);
	if (qi < 0)
		return;
	s->qstate[qi].usage += share_interval(gpus, from, to, s->now, s->policy.share_half_life);
}

void share_advance(struct snapshot *s, int64_t prev)
{
	if (prev >= s->now)
		return;
	for (int i = 0; i < s->policy.nqueues; i++)
		s->qstate[i].usage =
		    share_decay(s->qstate[i].usage, s->now - prev, s->policy.share_half_life);
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		int g = job_gpus_held(j);
		if (!g || !j->start_time)
			continue;
		int64_t from = j->start_time > prev ? j->start_time : prev;
		share_charge(s, j->queue, g, from, s->now);
	}
}

static double share_of(const struct policy *p, int qi)
{
	return p->queues[qi].share > MIN_SHARE ? p->queues[qi].share : MIN_SHARE;
}

double share_queue_ratio(const struct snapshot *s, int qi)
{
	if (qi < 0 || qi >= s->policy.nqueues)
		return 0;
	return s->qstate[qi].usage / share_of(&s->policy, qi);
}

double share_dept_usage(const struct snapshot *s, int di)
{
	if (di < 0 || di >= s->policy.ndepts)
		return 0;
	double u = 0;
	for (int i = 0; i < s->policy.nqueues; i++)
		if (!strcmp(s->policy.queues[i].dept, s->policy.depts[di].name))
			u += s->qstate[i].usage;
	return u;
}

double share_dept_ratio(const struct snapshot *s, int di)
{
	if (di < 0 || di >= s->policy.ndepts)
		return 0;
	double u = 0, sh = 0;
	for (int i = 0; i < s->policy.nqueues; i++) {
		if (strcmp(s->policy.queues[i].dept, s->policy.depts[di].name))
			continue;
		u += s->qstate[i].usage;
		sh += share_of(&s->policy, i);
	}
	return sh > 0 ? u / sh : 0;
}
