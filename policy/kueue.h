/*
 * kueue.h - the policy rendered as Kueue objects, for clusters that run
 * Kubernetes with Kueue (`gq policy export kueue`).
 *
 * The output is a YAML stream of kueue.x-k8s.io/v1beta1 objects, one
 * document each, separated by "---": a ResourceFlavor per GPU model, a
 * WorkloadPriorityClass per tier, the Cohort every queue belongs to, a
 * ClusterQueue per queue (its quota as nominalQuota of nvidia.com/gpu, its
 * borrowing limit, preemption policies that match gq's) and a LocalQueue
 * per queue. Every rule that Kueue cannot express is said in a "# gq:"
 * comment beside its nearest rendering, as slurm.h does for Slurm. Pure:
 * text in a buffer, no I/O.
 */
#ifndef GQ_POLICY_KUEUE_H
#define GQ_POLICY_KUEUE_H

#include <stddef.h>

#include "core/job.h"
#include "core/policy.h"
#include "core/util.h"

/* The extended resource a flavor's quota counts. */
#define KUEUE_GPU "nvidia.com/gpu"
/* The namespace of the LocalQueues when none is given. */
#define KUEUE_NAMESPACE "default"
/* The flavor of GPUs whose model gq does not know. */
#define KUEUE_DEFAULT_FLAVOR "default-flavor"
/* The cohort of every ClusterQueue. */
#define KUEUE_COHORT "gq"

/* The WorkloadPriorityClass value of tier t: its base weight scaled so that
 * the highest base is 1000 (as Slurm's QOS priority), rounded, and kept
 * strictly above the next tier's value so that rounding never merges two
 * tiers. */
int kueue_tier_value(const struct policy *p, enum tier t);

/* A Kubernetes object name (RFC 1123 label: 1-63 of [a-z0-9-], starting
 * and ending with a letter or digit) for a gq name: lower case, any other
 * character a '-', cut to 63. out has room for 64 bytes. Returns whether
 * the name had to change. */
bool kueue_name(const char *name, char out[64]);

/* Appends the objects for p to out. nodes (borrowed for the call; NULL
 * when no server answered) give the GPU models and how many GPUs of each
 * there are; a model gq cannot name ("" or gq serve's "slot") is the
 * default flavor. ns names the LocalQueues' namespace (NULL: the default);
 * the caller checks that it is a valid name. */
void kueue_export_policy(const struct policy *p, const struct node *nodes, size_t nnodes,
			 const char *ns, struct buf *out);

#endif
