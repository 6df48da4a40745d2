/*
 * permit.h - when a job earns its starvation permit (preempt.h tells what
 * a permit does). Apart from preempt.h so that the prediction, which
 * starts permit holders on free GPUs, needs nothing of victim choice.
 */
#ifndef GQ_PERMIT_H
#define GQ_PERMIT_H

#include <stdint.h>

#include "job.h"

/* When job j earns its starvation permit: job_aging_base (the latest of
 * entering pending, its --begin, its release or dependencies met) + its
 * tier's waitLimit, INT64_MAX when that does not fit or when j is work
 * over its department's quota (job.h: over_quota), which never earns one. */
int64_t permit_earned_at(const struct policy *p, const struct job *j);

#endif
