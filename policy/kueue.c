/*
 * kueue.c - the policy as Kueue objects (see kueue.h).
 *
 * Kueue admits a workload when its ClusterQueue has quota for it, in the
 * first flavor that fits; it orders workloads by a fixed priority and
 * preempts by that priority. gq's tiers map to WorkloadPriorityClasses, its
 * queues to ClusterQueues in one cohort, a queue's quota to nominalQuota
 * and its borrowing limit to borrowingLimit. The GPUs no quota guarantees
 * belong to the Cohort, from which every queue borrows, as in gq any queue
 * may use idle capacity. What Kueue has no field for (aging, windows,
 * permits, reminders, budgets, protection) becomes a "# gq:" comment. The
 * YAML is written by hand: every string is double-quoted, so that no name
 * is read as a number or a boolean.
 */
#include "kueue.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_FLAVORS 16

struct flavor {
	char model[sizeof(((struct node *)0)->gpu_model)]; /* "" unknown */
	char name[64];
	int gpus;     /* -1 unknown (no server answered) */
	int quota;    /* GPUs of it the queues' quotas guarantee */
	bool renamed; /* name differs from model */
};

bool kueue_name(const char *name, char out[64])
{
	size_t n = 0;
	for (const char *s = name; *s && n < 63; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '-';
		if (c == '-' && n == 0)
			continue; /* a name starts with a letter or digit */
		out[n++] = c;
	}
	while (n > 0 && out[n - 1] == '-')
		n--;
	if (n == 0)
		out[n++] = 'x';
	out[n] = '\0';
	return strcmp(out, name) != 0;
}

/* Makes out differ from the n names before it by a "-2", "-3" suffix. */
static void name_unique(char out[64], const char (*names)[64], size_t n)
{
	char base[64];
	snprintf(base, sizeof(base), "%s", out);
	for (int k = 2;; k++) {
		bool taken = false;
		for (size_t i = 0; i < n && !taken; i++)
			taken = !strcmp(names[i], out);
		if (!taken)
			return;
		char sfx[16];
		int sl = snprintf(sfx, sizeof(sfx), "-%d", k);
		snprintf(out, 64, "%.*s%s", 63 - sl, base, sfx);
	}
}

int kueue_tier_value(const struct policy *p, enum tier t)
{
	double mb = 0;
	for (int u = 0; u < TIER_COUNT; u++)
		if (p->tier[u].base > mb)
			mb = p->tier[u].base;
	int v = 0;
	/* From the lowest tier up, each at least one above the one below. */
	for (int u = TIER_COUNT - 1; u >= (int)t; u--) {
		int x = mb > 0 ? (int)round(p->tier[u].base / mb * 1000) : 0;
		v = (u == TIER_COUNT - 1 || x > v) ? x : v + 1;
	}
	return v;
}

/* A YAML double-quoted scalar. */
static void yq(struct buf *o, const char *s)
{
	buf_addstr(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			buf_printf(o, "\\x%02x", c);
		else
			buf_printf(o, "%c", c);
	}
	buf_addstr(o, "\"");
}

/* Can m be a label value as it is (it is already [A-Za-z0-9._-])? */
static bool label_value(const char *m)
{
	size_t n = strlen(m);
	return n && n <= 63 && isalnum((unsigned char)m[0]) && isalnum((unsigned char)m[n - 1]);
}

static bool model_known(const char *m)
{
	return m[0] && strcmp(m, "slot");
}

static int model_cmp(const char *a, const char *b)
{
	if (!a[0] || !b[0])
		return !a[0] - !b[0];
	return strcmp(a, b);
}

/* The flavors of the nodes, in order of name; one default flavor of unknown
 * size without nodes. */
static size_t flavors_of(const struct node *nodes, size_t nnodes, struct flavor *f)
{
	size_t n = 0;
	for (size_t i = 0; i < nnodes; i++) {
		if (nodes[i].ngpus <= 0)
			continue;
		const char *m = model_known(nodes[i].gpu_model) ? nodes[i].gpu_model : "";
		size_t k = 0;
		while (k < n && strcmp(f[k].model, m))
			k++;
		if (k == n) {
			if (n == MAX_FLAVORS)
				k = n - 1; /* more models than a resource group takes */
			else {
				memset(&f[n], 0, sizeof(f[n]));
				snprintf(f[n].model, sizeof(f[n].model), "%s", m);
				n++;
			}
		}
		f[k].gpus += nodes[i].ngpus;
	}
	if (!nodes || !n) {
		memset(&f[0], 0, sizeof(f[0]));
		f[0].gpus = nodes ? 0 : -1;
		n = 1;
	}
	/* Insertion sort by model, the unknown one last (quotas fill the
	 * flavors in this order): a few entries, and a total order. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && model_cmp(f[j - 1].model, f[j].model) > 0; j--) {
			struct flavor t = f[j];
			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	char names[MAX_FLAVORS][64];
	for (size_t i = 0; i < n; i++) {
		if (f[i].model[0])
			kueue_name(f[i].model, f[i].name);
		else
			snprintf(f[i].name, sizeof(f[i].name), "%s", KUEUE_DEFAULT_FLAVOR);
		name_unique(f[i].name, (const char(*)[64])names, i);
		f[i].renamed = f[i].model[0] && strcmp(f[i].name, f[i].model);
		snprintf(names[i], sizeof(names[i]), "%s", f[i].name);
	}
	return n;
}

/* Queue q's quota in flavor k: the flavors in order, each up to its GPUs,
 * the last (or one of unknown size) taking the rest. */
static int quota_in(const struct queue_policy *q, const struct flavor *f, size_t nf, size_t k,
		    int *used)
{
	if (q->quota < 0)
		return 0;
	int left = q->quota;
	for (size_t i = 0; i < k; i++)
		left -= used[i];
	if (left <= 0)
		return 0;
	if (k + 1 == nf || f[k].gpus < 0)
		return left;
	int room = f[k].gpus - f[k].quota;
	return left < room ? left : (room > 0 ? room : 0);
}

static void header(const struct policy *p, const struct flavor *f, size_t nf, struct buf *o)
{
	char t1[32], t2[32], t3[32], sig[32];
	if (policy_get(p, "preempt.signal", sig, sizeof(sig), NULL) < 0)
		snprintf(sig, sizeof(sig), "%d", p->preempt_signal);
	bool term = !strcmp(sig, "TERM");
	buf_printf(o,
		   "# Kueue objects rendered by 'gq policy export kueue' from policy %s.\n"
		   "# Lines starting '# gq:' say what Kueue cannot express exactly.\n",
		   p->revision[0] ? p->revision : "(built-in defaults)");
	if (f[0].gpus < 0)
		buf_printf(o,
			   "# gq: no gq server answered, so the GPUs of the cluster are unknown: "
			   "one flavor, %s,\n"
			   "# gq: and the Cohort guarantees nothing beyond the queues' quotas; "
			   "give the Cohort the GPUs\n"
			   "# gq: no quota guarantees (spec.resourceGroups), or export with a "
			   "server running.\n",
			   KUEUE_DEFAULT_FLAVOR);
	buf_printf(o,
		   "# gq: a tier's weight ages in gq (c = %g per full %s waited, at most %g, never "
		   "crossing tiers);\n"
		   "# gq: Kueue's priority is fixed: jobs of a tier are taken in submit order "
		   "(BestEffortFIFO).\n",
		   p->aging_step, dur_format(p->aging_interval, t1, sizeof(t1)), p->aging_cap);
	buf_printf(o,
		   "# gq: Kueue cannot express: the starvation permit (a job over its tier's wait "
		   "limit may preempt\n"
		   "# gq: a checkpointable P0 unless it ends within %s), the P0 reminder after %s "
		   "and downgrade\n"
		   "# gq: to P1 without confirmation within %s (downgrade.mode = %s), headroom of "
		   "%g%% held back for P0,\n",
		   dur_format(p->permit_wait_for, t1, sizeof(t1)),
		   dur_format(p->remind_after, t2, sizeof(t2)),
		   dur_format(p->confirm_within, t3, sizeof(t3)), rollout_name(p->downgrade_mode),
		   p->headroom * 100);
	buf_printf(o,
		   "# gq: fair share as a tie-break (half-life %s; Kueue's fairSharing weighs "
		   "queues instead),\n"
		   "# gq: and reclamation of idle GPUs (reclaim.mode = %s).\n",
		   dur_format(p->share_half_life, t1, sizeof(t1)), rollout_name(p->reclaim_mode));
	buf_printf(
	    o,
	    "# gq: preemption in gq takes only checkpointable jobs that ran under %s, not in a "
	    "%s cooldown,\n"
	    "# gq: at most %d a queue per hour; Kueue preempts any lower-priority workload. A "
	    "victim gets\n"
	    "# gq: SIG%s and %s of grace: set terminationGracePeriodSeconds: %lld in pod "
	    "templates%s.\n",
	    dur_format(p->protect, t1, sizeof(t1)), dur_format(p->cooldown, t2, sizeof(t2)),
	    p->max_preempt_hour, sig, dur_format(p->grace, t3, sizeof(t3)), (long long)p->grace,
	    term ? "" : " (Kubernetes sends SIGTERM, not this signal)");
	if (p->preempt_mode != ROLLOUT_ENFORCE)
		buf_printf(o, "# gq: preempt.mode = %s: %s\n", rollout_name(p->preempt_mode),
			   p->preempt_mode == ROLLOUT_OBSERVE
			       ? "gq only records what it would preempt, so no ClusterQueue "
				 "preempts."
			       : "gq preempts only in the queues of preempt.trial; Kueue in "
				 "every ClusterQueue.");
	if (p->user_max_gpus >= 0)
		buf_printf(o,
			   "# gq: a user holds at most %d GPUs (user.maxGpus): no Kueue field.\n",
			   p->user_max_gpus);
	if (p->user_max_jobs >= 0)
		buf_printf(o, "# gq: a user has at most %d jobs (user.maxJobs): no Kueue field.\n",
			   p->user_max_jobs);
	for (int i = 0; i < p->ndepts; i++) {
		const struct dept_policy *d = &p->depts[i];
		if (d->gpu_hours_month >= 0)
			buf_printf(o,
				   "# gq: department %s has %g GPU-hours a month (then %s); Kueue "
				   "has no usage quota.\n",
				   d->name, d->gpu_hours_month, quota_action_name(d->over_action));
		if (d->preempt_quota >= 0)
			buf_printf(o,
				   "# gq: department %s may preempt other departments %d times a "
				   "month; Kueue cannot count preemptions.\n",
				   d->name, d->preempt_quota);
	}
	for (size_t k = 0; k < nf; k++)
		if (f[k].renamed)
			buf_printf(o,
				   "# gq: GPU model %s is ResourceFlavor %s (a Kubernetes name).\n",
				   f[k].model, f[k].name);
}

static void flavor_doc(const struct flavor *f, struct buf *o)
{
	buf_addstr(o, "---\n");
	if (f->model[0])
		buf_printf(o,
			   "# gq: the nodes of GPU model %s (%d GPUs); the label is the one "
			   "NVIDIA's GPU feature discovery\n"
			   "# gq: sets, whose value may spell the model otherwise: match it to "
			   "your nodes.\n",
			   f->model, f->gpus);
	else if (f->gpus >= 0)
		buf_printf(o, "# gq: GPUs of a model gq does not know (%d GPUs): any node.\n",
			   f->gpus);
	buf_addstr(o, "apiVersion: \"kueue.x-k8s.io/v1beta1\"\nkind: \"ResourceFlavor\"\n"
		      "metadata:\n  name: ");
	yq(o, f->name);
	buf_addstr(o, "\n");
	if (f->model[0] && !label_value(f->model))
		buf_printf(o,
			   "# gq: model %s is no label value: give this flavor its nodes' "
			   "labels (spec.nodeLabels).\n",
			   f->model);
	if (f->model[0] && label_value(f->model)) {
		buf_addstr(o, "spec:\n  nodeLabels:\n    \"nvidia.com/gpu.product\": ");
		yq(o, f->model);
		buf_addstr(o, "\n");
	} else {
		buf_addstr(o, "spec: {}\n");
	}
}

static void priority_docs(const struct policy *p, struct buf *o)
{
	double mb = 0;
	for (int t = 0; t < TIER_COUNT; t++)
		if (p->tier[t].base > mb)
			mb = p->tier[t].base;
	for (int t = 0; t < TIER_COUNT; t++) {
		const struct tier_policy *tp = &p->tier[t];
		char n[8], d[160], w[32];
		snprintf(n, sizeof(n), "%s", tier_name((enum tier)t));
		n[0] = (char)(n[0] - 'A' + 'a');
		buf_addstr(o, "---\n");
		buf_printf(o,
			   "# gq: tier %s: base weight %g; value = base / %g x 1000, rounded "
			   "(and above the tier below).\n",
			   tier_name((enum tier)t), tp->base, mb);
		buf_printf(o,
			   "# gq: label a job kueue.x-k8s.io/priority-class: %s. Waits over %s "
			   "earn a starvation permit in gq.\n",
			   n, dur_format(tp->wait_limit, w, sizeof(w)));
		if (strcmp(tp->allow, "*"))
			buf_printf(o,
				   "# gq: tier %s is for '%s' only; Kueue lets any job name a "
				   "priority class (restrict it by admission policy).\n",
				   tier_name((enum tier)t), tp->allow);
		buf_addstr(o, "apiVersion: \"kueue.x-k8s.io/v1beta1\"\n"
			      "kind: \"WorkloadPriorityClass\"\nmetadata:\n  name: ");
		yq(o, n);
		buf_printf(o, "\nvalue: %d\ndescription: ", kueue_tier_value(p, (enum tier)t));
		snprintf(d, sizeof(d), "gq tier %s (base weight %g, price %g)",
			 tier_name((enum tier)t), tp->base, tp->price);
		yq(o, d);
		buf_addstr(o, "\n");
	}
}

/* The GPUs of a flavor as a resources list entry at indent ind. */
static void gpu_resource(struct buf *o, const char *ind, int quota, int borrow)
{
	buf_printf(o, "%s- name: ", ind);
	yq(o, KUEUE_GPU);
	buf_printf(o, "\n%s  nominalQuota: %d\n", ind, quota);
	if (borrow >= 0)
		buf_printf(o, "%s  borrowingLimit: %d\n", ind, borrow);
}

static void cohort_doc(const struct flavor *f, size_t nf, struct buf *o)
{
	bool any = false;
	for (size_t k = 0; k < nf; k++)
		any |= f[k].gpus > f[k].quota;
	buf_addstr(o, "---\n");
	buf_addstr(o, "# gq: the GPUs no queue's quota guarantees, which every queue may "
		      "borrow while they are idle.\n");
	for (size_t k = 0; k < nf; k++)
		if (f[k].gpus >= 0 && f[k].quota > f[k].gpus)
			buf_printf(o,
				   "# gq: the queues' quotas guarantee %d GPUs of %s, which has "
				   "%d: Kueue admits no more than there are.\n",
				   f[k].quota, f[k].name, f[k].gpus);
	buf_addstr(o, "apiVersion: \"kueue.x-k8s.io/v1beta1\"\nkind: \"Cohort\"\n"
		      "metadata:\n  name: ");
	yq(o, KUEUE_COHORT);
	buf_addstr(o, "\n");
	if (!any) {
		buf_addstr(o, "spec: {}\n");
		return;
	}
	buf_addstr(o, "spec:\n  resourceGroups:\n  - coveredResources:\n    - ");
	yq(o, KUEUE_GPU);
	buf_addstr(o, "\n    flavors:\n");
	for (size_t k = 0; k < nf; k++) {
		int free_gpus = f[k].gpus > f[k].quota ? f[k].gpus - f[k].quota : 0;
		buf_addstr(o, "    - name: ");
		yq(o, f[k].name);
		buf_addstr(o, "\n      resources:\n");
		gpu_resource(o, "      ", free_gpus, -1);
	}
}

static const char *preempt_word(const struct policy *p, const char *enforce)
{
	return p->preempt_mode == ROLLOUT_OBSERVE ? "Never" : enforce;
}

static void cluster_queue_doc(const struct policy *p, const struct queue_policy *q,
			      const char *name, const struct flavor *f, size_t nf, const int *quota,
			      struct buf *o)
{
	char t1[32];
	buf_addstr(o, "---\n");
	if (strcmp(name, q->name))
		buf_printf(o, "# gq: queue %s is ClusterQueue %s (a Kubernetes name).\n", q->name,
			   name);
	if (q->quota < 0)
		buf_printf(o,
			   "# gq: queue %s has no quota: it guarantees nothing and borrows "
			   "without limit.\n",
			   q->name);
	else
		buf_printf(o, "# gq: queue %s guarantees %d GPU%s and may borrow %s.\n", q->name,
			   q->quota, q->quota == 1 ? "" : "s",
			   q->borrow < 0 ? "without limit"
					 : (snprintf(t1, sizeof(t1), "%d more", q->borrow), t1));
	if (q->quota >= 0 && nf > 1)
		buf_printf(o, "# gq: gq counts its quota and borrowing over every GPU model; Kueue "
			      "per flavor: the quota\n"
			      "# gq: is split over the flavors in order, the borrowing limit holds "
			      "in each.\n");
	buf_printf(o,
		   "# gq: department %s, fair-share weight %g; a queue under its quota reclaims "
		   "borrowed GPUs whatever\n"
		   "# gq: the tier (reclaimWithinCohort: Any); a job that must borrow preempts "
		   "lower tiers, never P0.\n",
		   q->dept, q->share);
	if (q->paused.set)
		buf_printf(o,
			   "# gq: queue %s pauses daily %s (its jobs %s); Kueue has no window:\n"
			   "# gq: set spec.stopPolicy to %s at the start and None at the end (a "
			   "CronJob can patch it).\n",
			   q->name, window_format(&q->paused, t1, sizeof(t1)),
			   q->window_action == WINDOW_FINISH
			       ? "that cannot checkpoint finish"
			       : "are checkpoint-preempted or requeued",
			   q->window_action == WINDOW_FINISH ? "Hold" : "HoldAndDrain");
	if (q->max_preempt_hour >= 0)
		buf_printf(o,
			   "# gq: queue %s allows %d preemption%s per hour; Kueue cannot limit "
			   "preemptions.\n",
			   q->name, q->max_preempt_hour, q->max_preempt_hour == 1 ? "" : "s");
	if (q->default_time > 0 || q->max_time > 0) {
		char t2[32];
		buf_printf(o,
			   "# gq: queue %s's time limits (default %s, max %s) have no Kueue "
			   "field: use activeDeadlineSeconds.\n",
			   q->name,
			   q->default_time > 0 ? dur_format(q->default_time, t1, 32) : "none",
			   q->max_time > 0 ? dur_format(q->max_time, t2, sizeof(t2)) : "none");
	}
	if (q->user_max_gpus >= 0 || q->user_max_jobs >= 0)
		buf_printf(o, "# gq: queue %s's per-user limits have no Kueue field.\n", q->name);
	buf_addstr(o, "apiVersion: \"kueue.x-k8s.io/v1beta1\"\nkind: \"ClusterQueue\"\n"
		      "metadata:\n  name: ");
	yq(o, name);
	buf_addstr(o, "\nspec:\n  cohort: ");
	yq(o, KUEUE_COHORT);
	buf_addstr(o, "\n  namespaceSelector: {}\n  queueingStrategy: \"BestEffortFIFO\"\n");
	buf_addstr(o, "  resourceGroups:\n  - coveredResources:\n    - ");
	yq(o, KUEUE_GPU);
	buf_addstr(o, "\n    flavors:\n");
	for (size_t k = 0; k < nf; k++) {
		buf_addstr(o, "    - name: ");
		yq(o, f[k].name);
		buf_addstr(o, "\n      resources:\n");
		gpu_resource(o, "      ", quota[k], q->quota < 0 ? -1 : q->borrow);
	}
	buf_printf(o, "  preemption:\n    withinClusterQueue: \"%s\"\n",
		   preempt_word(p, "LowerPriority"));
	buf_printf(o, "    reclaimWithinCohort: \"%s\"\n", preempt_word(p, "Any"));
	buf_printf(o, "    borrowWithinCohort:\n      policy: \"%s\"\n",
		   preempt_word(p, "LowerPriority"));
	if (p->preempt_mode != ROLLOUT_OBSERVE)
		buf_printf(o, "      maxPriorityThreshold: %d\n", kueue_tier_value(p, TIER_P1));
}

static void local_queue_doc(const struct policy *p, const struct queue_policy *q, const char *name,
			    const char *ns, struct buf *o)
{
	buf_addstr(o, "---\n");
	if (!strcmp(q->name, p->default_queue))
		buf_printf(o,
			   "# gq: %s is gq's default queue; Kueue sends a job without "
			   "kueue.x-k8s.io/queue-name to the\n"
			   "# gq: LocalQueue named \"default\" only (LocalQueueDefaulting).\n",
			   q->name);
	buf_addstr(o, "apiVersion: \"kueue.x-k8s.io/v1beta1\"\nkind: \"LocalQueue\"\n"
		      "metadata:\n  name: ");
	yq(o, name);
	buf_addstr(o, "\n  namespace: ");
	yq(o, ns);
	buf_addstr(o, "\nspec:\n  clusterQueue: ");
	yq(o, name);
	buf_addstr(o, "\n");
}

void kueue_export_policy(const struct policy *p, const struct node *nodes, size_t nnodes,
			 const char *ns, struct buf *out)
{
	struct flavor f[MAX_FLAVORS];
	size_t nf = flavors_of(nodes, nnodes, f);
	char names[GQ_MAX_QUEUES][64];
	int quota[GQ_MAX_QUEUES][MAX_FLAVORS];
	if (!ns)
		ns = KUEUE_NAMESPACE;
	for (int i = 0; i < p->nqueues; i++) {
		kueue_name(p->queues[i].name, names[i]);
		name_unique(names[i], (const char(*)[64])names, (size_t)i);
		for (size_t k = 0; k < nf; k++) {
			quota[i][k] = quota_in(&p->queues[i], f, nf, k, quota[i]);
			f[k].quota += quota[i][k];
		}
	}
	header(p, f, nf, out);
	for (size_t k = 0; k < nf; k++)
		flavor_doc(&f[k], out);
	priority_docs(p, out);
	cohort_doc(f, nf, out);
	for (int i = 0; i < p->nqueues; i++)
		cluster_queue_doc(p, &p->queues[i], names[i], f, nf, quota[i], out);
	for (int i = 0; i < p->nqueues; i++)
		local_queue_doc(p, &p->queues[i], names[i], ns, out);
}
