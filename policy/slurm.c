/*
 * slurm.c - the policy as Slurm configuration (see slurm.h).
 *
 * gq's weight is multiplicative, base x (1 + c); Slurm's multifactor
 * priority is a sum of weighted factors. Tiers map to QOS priorities scaled
 * so that P0's base is PriorityWeightQOS; aging maps to PriorityWeightAge
 * chosen so that a fully aged job gains what the lowest tier gains in gq,
 * which keeps aging from crossing tiers as gq guarantees.
 */
#include "slurm.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Slurm time: "D-HH:MM:SS", or "HH:MM:SS" under a day. */
static char *slurm_time(int64_t s, char *out, size_t size)
{
	int64_t d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, sec = s % 60;
	if (d)
		snprintf(out, size, "%lld-%02lld:%02lld:%02lld", (long long)d, (long long)h,
			 (long long)m, (long long)sec);
	else
		snprintf(out, size, "%02lld:%02lld:%02lld", (long long)h, (long long)m,
			 (long long)sec);
	return out;
}

/* "TERM", as the policy file spells it. */
static const char *signal_name(const struct policy *p, char *out, size_t size)
{
	if (policy_get(p, "preempt.signal", out, size, NULL) < 0)
		snprintf(out, size, "%d", p->preempt_signal);
	return out;
}

/* The partition a queue becomes. Slurm reads PartitionName=DEFAULT (in any
 * case) as the template of every partition, not as a partition, so gq's
 * queue "default" is exported under another name. */
#define SLURM_DEFAULT_QUEUE "gq_default"
static const char *partition_name(const char *queue)
{
	return strcasecmp(queue, "default") ? queue : SLURM_DEFAULT_QUEUE;
}

/* The QOS of tier t: the name gq's Slurm backend maps back to t. */
static const char *tier_qos(const char *const *qos, enum tier t, char *out, size_t size)
{
	if (qos && qos[t] && qos[t][0])
		return qos[t];
	snprintf(out, size, "%s", tier_name(t));
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return out;
}

static double max_base(const struct policy *p)
{
	double m = 0;
	for (int t = 0; t < TIER_COUNT; t++)
		if (p->tier[t].base > m)
			m = p->tier[t].base;
	return m;
}

static void slurm_conf(const struct policy *p, const char *const *qos, struct buf *o)
{
	char t1[32], t2[32], sig[32], qn[32];
	double scale = SLURM_QOS_WEIGHT / max_base(p);
	/* Aging: c reaches the cap after cap/step intervals. */
	int64_t steps = p->aging_step > 0 ? (int64_t)ceil(p->aging_cap / p->aging_step) : 0;
	int64_t max_age = steps * p->aging_interval;
	double lowest_gain = p->tier[TIER_COUNT - 1].base * p->aging_cap * scale;
	buf_printf(o, "## slurm.conf\n");
	buf_printf(o, "PriorityType=priority/multifactor\n");
	buf_printf(o, "PriorityWeightQOS=%d\n", SLURM_QOS_WEIGHT);
	buf_printf(o, "PriorityWeightAge=%.0f\n", round(lowest_gain));
	if (max_age > 0)
		buf_printf(o, "PriorityMaxAge=%s\n", slurm_time(max_age, t1, sizeof(t1)));
	else
		buf_printf(o, "PriorityMaxAge=00:00:00\n");
	buf_printf(
	    o,
	    "# gq: aging is multiplicative in gq (c = %g per full %s, at most %g, so a tier "
	    "gains up to base x %g)\n"
	    "# gq: and additive in Slurm: PriorityWeightAge gives every job what %s gains "
	    "(%.0f), so aging never crosses\n"
	    "# gq: tiers, but higher tiers age less than in gq, and Slurm ages linearly, not "
	    "in steps.\n",
	    p->aging_step, dur_format(p->aging_interval, t2, sizeof(t2)), p->aging_cap,
	    p->aging_cap, tier_name((enum tier)(TIER_COUNT - 1)), round(lowest_gain));
	buf_printf(o, "PriorityWeightFairshare=1\n");
	buf_printf(o, "PriorityDecayHalfLife=%s\n", slurm_time(p->share_half_life, t1, sizeof(t1)));
	buf_printf(o, "# gq: fair share only breaks ties between equal weights in gq; weight 1 "
		      "keeps it nearly so.\n");
	buf_printf(o, "PriorityWeightJobSize=0\nPriorityWeightPartition=0\n");
	/* Only CPU is a TRES on every cluster (an unknown one in this list
	 * stops slurmctld); the TRES not listed weigh 0. */
	buf_printf(o, "PriorityWeightTRES=CPU=0\n");
	buf_printf(o, "# gq: a job's size does not count in gq's weight: no job size, partition "
		      "or TRES factor.\n");
	buf_printf(o, "PriorityUsageResetPeriod=MONTHLY\n");
	buf_printf(o, "PreemptType=preempt/qos\n");
	buf_printf(o, "PreemptMode=REQUEUE\n");
	buf_printf(o,
		   "# gq: a victim gets SIG%s, %s of grace (QOS GraceTime), then SIGKILL, and is "
		   "requeued;\n",
		   signal_name(p, sig, sizeof(sig)), dur_format(p->grace, t1, sizeof(t1)));
	if (strcmp(signal_name(p, sig, sizeof(sig)), "TERM"))
		buf_printf(o,
			   "# gq: Slurm sends SIGTERM, not SIG%s: add --signal=%s@%lld to "
			   "job submissions.\n",
			   signal_name(p, sig, sizeof(sig)), signal_name(p, sig, sizeof(sig)),
			   (long long)p->grace);
	buf_printf(
	    o,
	    "# gq: Slurm cannot express: only checkpointable jobs as victims, jobs that ran "
	    "over %s protected\n"
	    "# gq: (PreemptExemptTime protects the young, the opposite), a %s cooldown after "
	    "preemption,\n"
	    "# gq: %d preemptions per queue per hour, the rollout mode (preempt.mode = %s), "
	    "the\n"
	    "# gq: starvation permit, the P0 reminder and downgrade (downgrade.mode = %s), "
	    "headroom of %g%% for P0\n"
	    "# gq: (a reservation comes closest), and reclamation (reclaim.mode = %s).\n",
	    dur_format(p->protect, t1, sizeof(t1)), dur_format(p->cooldown, t2, sizeof(t2)),
	    p->max_preempt_hour, rollout_name(p->preempt_mode), rollout_name(p->downgrade_mode),
	    p->headroom * 100, rollout_name(p->reclaim_mode));
	buf_printf(o,
		   "# gq: predict.defaultRuntime (%s) is only gq's prediction of a job without "
		   "an estimate; Slurm's\n"
		   "# gq: start estimates come from time limits (a partition's DefaultTime).\n",
		   dur_format(p->default_runtime, t1, sizeof(t1)));

	for (int i = 0; i < p->nqueues; i++) {
		const struct queue_policy *q = &p->queues[i];
		if (partition_name(q->name) != q->name)
			buf_printf(o,
				   "# gq: queue %s is partition %s: Slurm takes a partition "
				   "named %s as the template of every partition.\n",
				   q->name, partition_name(q->name), q->name);
		buf_printf(
		    o, "PartitionName=%s Nodes=ALL Default=%s AllowQos=", partition_name(q->name),
		    strcmp(q->name, p->default_queue) ? "NO" : "YES");
		for (int t = 0; t < TIER_COUNT; t++)
			buf_printf(o, "%s%s", t ? "," : "",
				   tier_qos(qos, (enum tier)t, qn, sizeof(qn)));
		buf_printf(o, " QOS=q_%s", q->name);
		/* Slurm reads a bare number as minutes: rounded up, so that
		 * what gq accepts Slurm accepts too. */
		if (q->default_time > 0)
			buf_printf(o, " DefaultTime=%lld",
				   (long long)((q->default_time + 59) / 60));
		if (q->max_time > 0)
			buf_printf(o, " MaxTime=%lld", (long long)((q->max_time + 59) / 60));
		buf_addstr(o, "\n");
		if (q->paused.set)
			buf_printf(
			    o,
			    "# gq: queue %s pauses daily %s; Slurm has no daily window: use a "
			    "recurring reservation (scontrol create reservation flags=DAILY).\n",
			    q->name, window_format(&q->paused, t1, sizeof(t1)));
		if (q->max_preempt_hour >= 0)
			buf_printf(o,
				   "# gq: queue %s allows %d preemptions per hour; Slurm cannot "
				   "limit preemptions.\n",
				   q->name, q->max_preempt_hour);
	}
}

static void sacctmgr(const struct policy *p, const char *const *qos, struct buf *o)
{
	char t1[32], qn[32], qu[32];
	double mb = max_base(p);
	buf_printf(o, "## sacctmgr (first: the partitions of slurm.conf below name these QOS, "
		      "and slurmctld refuses a partition whose QOS does not exist)\n");
	/* Every tier's QOS exists before one names another as preemptable. */
	for (int t = 0; t < TIER_COUNT; t++)
		buf_printf(o, "sacctmgr -i add qos %s\n",
			   tier_qos(qos, (enum tier)t, qn, sizeof(qn)));
	for (int t = 0; t < TIER_COUNT; t++) {
		const struct tier_policy *tp = &p->tier[t];
		const char *name = tier_qos(qos, (enum tier)t, qn, sizeof(qn));
		buf_printf(
		    o, "sacctmgr -i modify qos %s set Priority=%.0f UsageFactor=%g GraceTime=%lld",
		    name, round(tp->base / mb * 1000), tp->price, (long long)p->grace);
		/* The lowest tier preempts nobody: a new QOS has no Preempt. */
		for (int u = t + 1; u < TIER_COUNT; u++)
			buf_printf(o, "%s%s", u == t + 1 ? " Preempt=" : ",",
				   tier_qos(qos, (enum tier)u, qu, sizeof(qu)));
		buf_printf(o, " PreemptMode=REQUEUE\n");
		buf_printf(o,
			   "# gq: tier %s is QOS %s: base weight %g (QOS priority is base / %g x "
			   "1000); waits over %s earn a starvation permit, which Slurm cannot "
			   "express.\n",
			   tier_name((enum tier)t), name, tp->base, mb,
			   slurm_time(tp->wait_limit, t1, sizeof(t1)));
		if (strcmp(tp->allow, "*"))
			buf_printf(o,
				   "# gq: tier %s is for '%s' only: grant QOS %s to those users' "
				   "associations (sacctmgr modify user NAME set qos+=%s).\n",
				   tier_name((enum tier)t), tp->allow, name, name);
	}
	for (int i = 0; i < p->ndepts; i++) {
		const struct dept_policy *d = &p->depts[i];
		buf_printf(o, "sacctmgr -i add account %s\n", d->name);
		if (d->gpu_hours_month >= 0) {
			buf_printf(o,
				   "sacctmgr -i modify account %s set GrpTRESMins=gres/gpu=%.0f\n",
				   d->name, round(d->gpu_hours_month * 60));
			if (d->over_action == QUOTA_PREEMPTIBLE)
				buf_printf(
				    o,
				    "# gq: once spent, department %s's jobs run on as the lowest "
				    "tier, preemptible, on GPUs nobody else needs "
				    "(gpuHoursAction preemptible); Slurm's GrpTRESMins stops them "
				    "instead, as gpuHoursAction stop does.\n",
				    d->name);
		}
		if (d->preempt_quota >= 0)
			buf_printf(o,
				   "# gq: department %s may preempt other departments %d times a "
				   "month; Slurm cannot count preemptions.\n",
				   d->name, d->preempt_quota);
		if (p->user_max_gpus >= 0 || p->user_max_jobs >= 0) {
			buf_printf(o, "sacctmgr -i modify user where account=%s set", d->name);
			if (p->user_max_gpus >= 0)
				buf_printf(o, " GrpTRES=gres/gpu=%d", p->user_max_gpus);
			if (p->user_max_jobs >= 0)
				buf_printf(o, " MaxSubmitJobs=%d", p->user_max_jobs);
			buf_printf(o,
				   "\n# gq: user.maxGpus and user.maxJobs bound a user over every "
				   "queue; Slurm bounds each association (user and account), so a "
				   "user of two accounts has the limits in each.\n");
		}
	}
	for (int i = 0; i < p->nqueues; i++) {
		const struct queue_policy *q = &p->queues[i];
		buf_printf(o, "sacctmgr -i add qos q_%s\n", q->name);
		if (q->quota >= 0) {
			int cap = q->borrow < 0 ? -1 : q->quota + q->borrow;
			if (cap >= 0)
				buf_printf(o,
					   "sacctmgr -i modify qos q_%s set GrpTRES=gres/gpu=%d\n",
					   q->name, cap);
			else
				buf_printf(o,
					   "sacctmgr -i modify qos q_%s set GrpTRES=gres/gpu=-1\n",
					   q->name);
			buf_printf(o,
				   "# gq: queue %s has a quota of %d GPU%s and may borrow %s more; "
				   "Slurm caps quota + borrowing and cannot reclaim borrowed GPUs "
				   "first.\n",
				   q->name, q->quota, q->quota == 1 ? "" : "s",
				   q->borrow < 0 ? "without limit"
						 : (snprintf(t1, sizeof(t1), "%d", q->borrow), t1));
		}
		if (q->user_max_gpus >= 0 || q->user_max_jobs >= 0) {
			buf_printf(o, "sacctmgr -i modify qos q_%s set", q->name);
			if (q->user_max_gpus >= 0)
				buf_printf(o, " MaxTRESPerUser=gres/gpu=%d", q->user_max_gpus);
			if (q->user_max_jobs >= 0)
				buf_printf(o, " MaxSubmitJobsPerUser=%d", q->user_max_jobs);
			buf_printf(o, "\n");
		}
		buf_printf(o,
			   "# gq: queue %s is charged to department %s (submit with "
			   "--account=%s) with fair-share weight %g; Slurm's Fairshare is per "
			   "account.\n",
			   q->name, q->dept, q->dept, q->share);
	}
}

void slurm_export_policy(const struct policy *p, const char *const *qos, struct buf *out)
{
	buf_printf(out,
		   "# Slurm configuration rendered by 'gq policy export slurm' from policy %s.\n",
		   p->revision[0] ? p->revision : "(built-in defaults)");
	buf_printf(out, "# Lines starting '# gq:' say what Slurm cannot express exactly.\n");
	sacctmgr(p, qos, out);
	buf_printf(out, "\n");
	slurm_conf(p, qos, out);
}
