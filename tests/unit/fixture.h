/*
 * fixture.h - small builders for unit-test snapshots: a cluster of equal
 * nodes, pending and running jobs, with the default policy. Times in the
 * tests are minutes after T0, a fixed unix time.
 */
#ifndef GQ_TEST_FIXTURE_H
#define GQ_TEST_FIXTURE_H

#include "core/job.h"

#define T0 1700000000LL
#define MIN(m) (T0 + (int64_t)(m)*60)

/* Snapshot at now = T0 with nnodes up nodes of gpus GPUs ("a100", 80 GB)
 * and the default policy; release with snapshot_release. */
void fx_init(struct snapshot *s, int nnodes, int gpus);

/* A pending job queued and submitted at `queued` asking for gpus GPUs;
 * pointer valid until the next add. Queue "default". */
struct job *fx_pending(struct snapshot *s, int64_t id, enum tier t, int gpus, int64_t queued);

/* A running job that started at `start` on the lowest free GPUs of node
 * `node` (gpus of them), with estimate `est` seconds. */
struct job *fx_running(struct snapshot *s, int64_t id, enum tier t, int node, int gpus,
		       int64_t start, int64_t est);

#endif
