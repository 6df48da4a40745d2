/* kueue.c - the Kueue rendering of a policy: names Kubernetes takes,
 * priority values, quotas split over flavors, the preemption policies.
 * (tests/e2e/t47 checks the whole stream against Kueue's CRDs.) */
#include "harness.h"

#include "policy/kueue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *render(const struct policy *p, const struct node *n, size_t nn, const char *ns)
{
	struct buf b;
	buf_init(&b, 0);
	kueue_export_policy(p, n, nn, ns, &b);
	return buf_detach(&b);
}

static int count(const char *text, const char *s)
{
	int n = 0;
	for (const char *t = text; (t = strstr(t, s)); t += strlen(s))
		n++;
	return n;
}

static void set(struct policy *p, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK(policy_set(p, k, v, &e) == 0);
}

static struct node node(const char *model, int gpus)
{
	struct node n;
	memset(&n, 0, sizeof(n));
	snprintf(n.gpu_model, sizeof(n.gpu_model), "%s", model);
	n.ngpus = gpus;
	n.up = true;
	return n;
}

static void test_names_are_rfc1123_labels(void)
{
	char out[64];
	CHECK(!kueue_name("exp", out));
	CHECK_STR(out, "exp");
	CHECK(kueue_name("Big_Q", out));
	CHECK_STR(out, "big-q");
	CHECK(kueue_name("_a.b-", out));
	CHECK_STR(out, "a-b");
	CHECK(kueue_name("__", out));
	CHECK_STR(out, "x");
	char longname[100];
	memset(longname, 'a', 80);
	longname[80] = '\0';
	CHECK(kueue_name(longname, out));
	CHECK_INT(strlen(out), 63);
}

static void test_tier_values_from_base_weights(void)
{
	struct policy p;
	policy_defaults(&p);
	CHECK_INT(kueue_tier_value(&p, TIER_P0), 1000);
	CHECK_INT(kueue_tier_value(&p, TIER_P1), 300);
	CHECK_INT(kueue_tier_value(&p, TIER_P2), 50);
	/* Rounding would merge P1 and P2 (0.4 and 0.1 of 1000ths): kept apart. */
	set(&p, "tier.P1.base", "0.04");
	set(&p, "tier.P2.base", "0.01");
	CHECK_INT(kueue_tier_value(&p, TIER_P2), 0);
	CHECK_INT(kueue_tier_value(&p, TIER_P1), 1);
	CHECK_INT(kueue_tier_value(&p, TIER_P0), 1000);
}

/* Flavors in order of model, the unknown one last; a quota fills them in
 * that order; the Cohort holds what no quota guarantees. */
static void test_quota_split_over_flavors(void)
{
	struct policy p;
	policy_defaults(&p);
	set(&p, "queue.train.quota", "10");
	set(&p, "queue.train.borrow", "2");
	set(&p, "queue.exp.quota", "3");
	struct node n[] = {node("h100", 4), node("a100", 4), node("slot", 3), node("a100", 4)};
	char *t = render(&p, n, 4, NULL);
	const char *a = strstr(t, "name: \"a100\""), *h = strstr(t, "name: \"h100\""),
		   *d = strstr(t, "name: \"default-flavor\"");
	CHECK(a && h && d && a < h && h < d);
	const char *train = strstr(t, "kind: \"ClusterQueue\"\nmetadata:\n  name: \"train\"");
	const char *exp = strstr(t, "kind: \"ClusterQueue\"\nmetadata:\n  name: \"exp\"");
	CHECK(train && exp);
	if (train && exp) {
		/* train: 8 of a100, 2 of h100, none of the rest. */
		CHECK(strstr(train, "name: \"a100\"\n      resources:\n      - name: "
				    "\"nvidia.com/gpu\"\n        nominalQuota: 8\n        "
				    "borrowingLimit: 2\n") != NULL);
		CHECK(strstr(train, "name: \"h100\"\n      resources:\n      - name: "
				    "\"nvidia.com/gpu\"\n        nominalQuota: 2\n") != NULL);
		/* exp: the 2 h100 left, then 1 of the unknown model. */
		CHECK(strstr(exp, "name: \"h100\"\n      resources:\n      - name: "
				  "\"nvidia.com/gpu\"\n        nominalQuota: 2\n") != NULL);
		CHECK(strstr(exp, "name: \"default-flavor\"\n      resources:\n      - name: "
				  "\"nvidia.com/gpu\"\n        nominalQuota: 1\n") != NULL);
	}
	/* 15 GPUs, 13 guaranteed: 2 of the unknown model in the Cohort. */
	const char *c = strstr(t, "kind: \"Cohort\"");
	CHECK(c && strstr(c, "name: \"default-flavor\"\n      resources:\n      - name: "
			     "\"nvidia.com/gpu\"\n        nominalQuota: 2\n"));
	CHECK(strstr(t, "the quota\n# gq: is split over the flavors in order") != NULL);
	free(t);
}

static void test_colliding_names_stay_apart(void)
{
	struct policy p;
	policy_defaults(&p);
	set(&p, "queue.Exp.quota", "1");
	set(&p, "queue.exp.quota", "1");
	char *t = render(&p, NULL, 0, "team-a");
	CHECK_INT(count(t, "kind: \"ClusterQueue\"\nmetadata:\n  name: \"exp\"\n"), 1);
	CHECK_INT(count(t, "kind: \"ClusterQueue\"\nmetadata:\n  name: \"exp-2\"\n"), 1);
	CHECK_INT(count(t, "clusterQueue: \"exp-2\"\n"), 1);
	CHECK_INT(count(t, "namespace: \"team-a\"\n"), 3);
	CHECK(strstr(t, "# gq: queue exp is ClusterQueue exp-2 (a Kubernetes name).") != NULL);
	free(t);
}

static void test_preemption_matches_gq(void)
{
	struct policy p;
	policy_defaults(&p);
	char *t = render(&p, NULL, 0, NULL);
	CHECK(strstr(t,
		     "  preemption:\n    withinClusterQueue: \"LowerPriority\"\n"
		     "    reclaimWithinCohort: \"Any\"\n    borrowWithinCohort:\n"
		     "      policy: \"LowerPriority\"\n      maxPriorityThreshold: 300\n") != NULL);
	free(t);
	/* gq only records in observe mode: Kueue must not preempt at all. */
	set(&p, "preempt.mode", "observe");
	t = render(&p, NULL, 0, NULL);
	CHECK(strstr(t, "  preemption:\n    withinClusterQueue: \"Never\"\n"
			"    reclaimWithinCohort: \"Never\"\n    borrowWithinCohort:\n"
			"      policy: \"Never\"\n---") != NULL);
	CHECK(strstr(t, "maxPriorityThreshold") == NULL);
	free(t);
}

void suite_kueue(void)
{
	RUN(test_names_are_rfc1123_labels);
	RUN(test_tier_values_from_base_weights);
	RUN(test_quota_split_over_flavors);
	RUN(test_colliding_names_stay_apart);
	RUN(test_preemption_matches_gq);
}
