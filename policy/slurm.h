/*
 * slurm.h - the policy rendered as Slurm configuration, for clusters that
 * run Slurm (`gq policy export slurm`).
 *
 * The output is two parts, in the order they are applied: sacctmgr
 * commands (one QOS per tier with its priority, preemption and usage
 * factor; one QOS per queue for its GPU quota; one account per department
 * with its GPU-hour quota), then slurm.conf lines (priority/multifactor
 * weights, PriorityMaxAge for aging, preemption, partitions for queues,
 * which name the QOS created before). Every rule that Slurm cannot
 * express exactly is said in a "# gq:" comment beside its nearest
 * rendering. Pure: text in a buffer, no I/O.
 */
#ifndef GQ_POLICY_SLURM_H
#define GQ_POLICY_SLURM_H

#include "core/policy.h"
#include "core/util.h"

/* The scale of PriorityWeightQOS: a tier's QOS priority is its base weight,
 * and its share of the job priority is base / max base x this. */
#define SLURM_QOS_WEIGHT 100000

/* Appends the configuration for p to out. qos[t] (borrowed for the call)
 * names tier t's QOS: the QOS that gq's Slurm backend maps back to t
 * (gq.qosMap). qos NULL, or an empty or NULL entry, names it after the
 * tier in lower case ("p0"). */
void slurm_export_policy(const struct policy *p, const char *const *qos, struct buf *out);

#endif
