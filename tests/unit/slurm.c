/* slurm.c - the Slurm rendering of a policy: numbers and the comments for
 * what Slurm cannot express. */
#include "harness.h"

#include "policy/slurm.h"

#include <stdlib.h>
#include <string.h>

static char *render_qos(const struct policy *p, const char *const *qos)
{
	struct buf b;
	buf_init(&b, 0);
	slurm_export_policy(p, qos, &b);
	return buf_detach(&b);
}

static char *render(const struct policy *p)
{
	return render_qos(p, NULL);
}

/* The value of "KEY=..." up to the next space or newline, or "". */
static void value_of(const char *text, const char *key, char *out, size_t size)
{
	out[0] = '\0';
	size_t kl = strlen(key);
	for (const char *s = text; (s = strstr(s, key)); s += kl) {
		if ((s == text || s[-1] == '\n' || s[-1] == ' ') && s[kl] == '=') {
			size_t n = strcspn(s + kl + 1, " \n");
			if (n >= size)
				n = size - 1;
			memcpy(out, s + kl + 1, n);
			out[n] = '\0';
			return;
		}
	}
}

static void test_defaults_render_weights_and_aging(void)
{
	struct policy p;
	policy_defaults(&p);
	char *t = render(&p);
	char v[64];
	value_of(t, "PriorityWeightQOS", v, sizeof(v));
	CHECK_STR(v, "100000");
	/* P2 fully aged gains 5 x 0.5 = 2.5 weight, x 1000 per weight unit */
	value_of(t, "PriorityWeightAge", v, sizeof(v));
	CHECK_STR(v, "2500");
	/* 0.5 / 0.1 = 5 intervals of 30 min */
	value_of(t, "PriorityMaxAge", v, sizeof(v));
	CHECK_STR(v, "02:30:00");
	value_of(t, "PriorityDecayHalfLife", v, sizeof(v));
	CHECK_STR(v, "7-00:00:00");
	CHECK(strstr(t, "modify qos p0 set Priority=1000 UsageFactor=1.5 GraceTime=300 "
			"Preempt=p1,p2 PreemptMode=REQUEUE") != NULL);
	/* The lowest tier preempts nobody: no Preempt at all (an empty one
	 * makes 22.05's slurmdbd refuse later preemption of that QOS). */
	CHECK(strstr(t, "modify qos p2 set Priority=50 UsageFactor=0.3 GraceTime=300 "
			"PreemptMode=REQUEUE\n") != NULL);
	CHECK(strstr(t, "Preempt=''") == NULL);
	/* gq's weight has no job size: nor has the export's priority. */
	value_of(t, "PriorityWeightTRES", v, sizeof(v));
	CHECK_STR(v, "CPU=0");
	CHECK(strstr(t, "# gq: Slurm cannot express: only checkpointable jobs") != NULL);
	free(t);
}

static void test_queue_quota_and_window_comment(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "department.research.gpuHours", "5000", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.department", "research", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.quota", "16", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.borrow", "8", &e), 0);
	CHECK_INT(policy_set(&p, "queue.exp.window", "20:00-08:00", &e), 0);
	CHECK_INT(policy_set(&p, "preempt.signal", "USR1", &e), 0);
	char *t = render(&p);
	CHECK(strstr(t, "PartitionName=exp Nodes=ALL Default=NO AllowQos=p0,p1,p2 QOS=q_exp\n") !=
	      NULL);
	CHECK(strstr(t, "sacctmgr -i modify qos q_exp set GrpTRES=gres/gpu=24\n") != NULL);
	CHECK(strstr(t, "Slurm's GrpTRESMins stops them instead, as gpuHoursAction stop does.\n") !=
	      NULL);
	CHECK(strstr(t, "sacctmgr -i modify account research set GrpTRESMins=gres/gpu=300000\n") !=
	      NULL);
	CHECK(strstr(t, "# gq: queue exp pauses daily 20:00-08:00") != NULL);
	CHECK(strstr(t, "add --signal=USR1@300") != NULL);
	free(t);
}

/* Per-user limits: a queue's as its QOS's per-user limits, the overall
 * ones on every department's associations, with what that changes. */
static void test_user_limits(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "queue.train.userMaxGpus", "4", &e), 0);
	CHECK_INT(policy_set(&p, "queue.train.userMaxJobs", "3", &e), 0);
	CHECK_INT(policy_set(&p, "user.maxGpus", "6", &e), 0);
	char *t = render(&p);
	CHECK(strstr(t, "sacctmgr -i modify qos q_train set MaxTRESPerUser=gres/gpu=4 "
			"MaxSubmitJobsPerUser=3\n") != NULL);
	CHECK(strstr(t, "sacctmgr -i modify user where account=default set GrpTRES=gres/gpu=6 "
			"MaxSubmitJobs=10000\n") != NULL);
	CHECK(strstr(t, "so a user of two accounts has the limits in each") != NULL);
	CHECK(strstr(t, "q_default set MaxTRESPerUser") == NULL);
	free(t);
}

/* Slurm reads PartitionName=default as the DEFAULT template: the default
 * queue must become a partition of another name, and still the default. */
static void test_default_queue_is_a_real_partition(void)
{
	struct policy p;
	policy_defaults(&p);
	char *t = render(&p);
	CHECK(strstr(t, "PartitionName=default ") == NULL);
	CHECK(strstr(t, "PartitionName=gq_default Nodes=ALL Default=YES ") != NULL);
	CHECK(strstr(t, "# gq: queue default is partition gq_default") != NULL);
	free(t);
}

/* Applied in order: every QOS is added before a QOS preempts it or a
 * partition names it (slurmctld refuses a partition whose QOS does not
 * exist, sacctmgr a Preempt naming a QOS not yet added). */
static void test_qos_come_first(void)
{
	struct policy p;
	struct gq_err e = GQ_ERR_INIT;
	policy_defaults(&p);
	CHECK_INT(policy_set(&p, "queue.exp.quota", "16", &e), 0);
	char *t = render(&p);
	const char *add_p2 = strstr(t, "sacctmgr -i add qos p2\n");
	const char *pre_p2 = strstr(t, "Preempt=p1,p2");
	const char *add_q = strstr(t, "sacctmgr -i add qos q_exp\n");
	const char *conf = strstr(t, "## slurm.conf");
	const char *part = strstr(t, "PartitionName=exp ");
	CHECK(add_p2 && pre_p2 && add_p2 < pre_p2);
	CHECK(add_q && conf && part && add_q < conf && conf < part);
	free(t);
}

/* The tiers' QOS are those gq.qosMap maps to them. */
static void test_qos_names_from_the_map(void)
{
	struct policy p;
	policy_defaults(&p);
	const char *qos[TIER_COUNT] = {"gold", "silver", NULL};
	char *t = render_qos(&p, qos);
	CHECK(strstr(t, "sacctmgr -i add qos gold\n") != NULL);
	CHECK(strstr(t, "modify qos gold set Priority=1000 UsageFactor=1.5 GraceTime=300 "
			"Preempt=silver,p2 ") != NULL);
	CHECK(strstr(t, "AllowQos=gold,silver,p2 ") != NULL);
	CHECK(strstr(t, "# gq: tier P1 is QOS silver:") != NULL);
	CHECK(strstr(t, "qos P0") == NULL);
	free(t);
}

void suite_slurm(void)
{
	RUN(test_qos_come_first);
	RUN(test_qos_names_from_the_map);
	RUN(test_default_queue_is_a_real_partition);
	RUN(test_defaults_render_weights_and_aging);
	RUN(test_queue_quota_and_window_comment);
	RUN(test_user_limits);
}
