/*
 * permit.c - the earn time of a starvation permit (permit.h).
 */
#include "permit.h"

int64_t permit_earned_at(const struct policy *p, const struct job *j)
{
	/* Work over its department's quota runs only on GPUs nobody else
	 * can use: no wait earns it a right to take them. */
	if (j->over_quota && !j->ovr.set)
		return INT64_MAX;
	int64_t q = job_aging_base(j);
	int64_t w = p->tier[job_tier(j)].wait_limit;
	if (w > 0 && q > INT64_MAX - w)
		return INT64_MAX;
	if (w < 0 && q < INT64_MIN - w)
		return INT64_MIN;
	return q + w;
}
