/*
 * gpus.h - which GPUs of a node are busy, and by which jobs: the one rule
 * behind `gq nodes`, its --json and the dashboard's Nodes view and pools.
 * A GPU is busy when a job in a state that holds GPUs (running,
 * starting, ...: job_state_holds_gpus) has it in its allocation.
 */
#ifndef GQ_EXPLAIN_GPUS_H
#define GQ_EXPLAIN_GPUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"

/*
 * The mask of busy GPUs of node index n of s. When each is not NULL it is
 * called once for every job holding GPUs there, in snapshot order, with
 * the job's index into s->jobs and its GPUs on that node.
 */
uint64_t gpus_busy(const struct snapshot *s, size_t n,
		   void (*each)(size_t job, uint64_t mask, void *arg), void *arg);

#endif
