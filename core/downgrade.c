/*
 * downgrade.c - the reminder / downgrade cycle of pending P0 jobs. See
 * downgrade.h for the rules.
 */
#include "downgrade.h"

#include <stdlib.h>

#include "depend.h"
#include "plan.h"

const char *downgrade_kind_name(enum downgrade_kind k)
{
	return k == DOWNGRADE_REMIND ? "reminder" : "downgrade";
}

/* A job that is not eligible (held, deferred, a dependency unmet) is not
 * waiting for GPUs: no cycle runs for it until it is. */
static bool concerned(const struct snapshot *s, const struct job *j)
{
	return j->state == JOB_PENDING && j->tier == TIER_P0 && !j->ovr.set && !j->held &&
	       (!j->ndeps || dep_met_at(s, j) >= 0);
}

int64_t downgrade_cycle_base(const struct job *j)
{
	int64_t q = job_aging_base(j);
	return j->confirmed_at > q ? j->confirmed_at : q;
}

int64_t downgrade_next(const struct snapshot *s, const struct job *j)
{
	if (!concerned(s, j))
		return 0;
	int64_t base = downgrade_cycle_base(j);
	if (j->reminded_at > base)
		return j->reminded_at + s->policy.confirm_within;
	return base + s->policy.remind_after;
}

bool downgrade_reminded(const struct snapshot *s, const struct job *j, int64_t *reminded,
			int64_t *deadline)
{
	if (!concerned(s, j) || j->reminded_at <= downgrade_cycle_base(j))
		return false;
	*reminded = j->reminded_at;
	*deadline = j->reminded_at + s->policy.confirm_within;
	return true;
}

bool downgrade_happened(const struct snapshot *s, const struct job *j, int64_t *at)
{
	if (j->tier != TIER_P1 || j->ovr.set || j->reminded_at <= 0 ||
	    j->confirmed_at >= j->reminded_at)
		return false;
	*at = j->reminded_at + s->policy.confirm_within;
	return true;
}

bool downgrade_check(const struct snapshot *s, const struct job *j, struct downgrade_action *out)
{
	int64_t due = downgrade_next(s, j);
	if (!due || due > s->now)
		return false;
	struct downgrade_action a = {
	    .job = j->id, .due = due, .pending = s->now - downgrade_cycle_base(j)};
	if (j->reminded_at > downgrade_cycle_base(j)) {
		a.kind = DOWNGRADE_TO_P1;
		a.observe =
		    !policy_acts(s->policy.downgrade_mode, s->policy.downgrade_trial, j->queue);
	} else {
		a.kind = DOWNGRADE_REMIND;
	}
	*out = a;
	return true;
}

size_t downgrade_plan(const struct snapshot *s, struct downgrade_action **out)
{
	struct downgrade_action *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		struct downgrade_action a;
		if (!downgrade_check(s, &s->jobs[i], &a))
			continue;
		GROW(v, cap, n + 1);
		v[n++] = a;
	}
	*out = v;
	return n;
}

void downgrade_add_to_plan(const struct snapshot *s, struct plan *out)
{
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		struct downgrade_action a;
		if (downgrade_check(s, j, &a)) {
			struct plan_action *pa = plan_add(
			    out, a.kind == DOWNGRADE_REMIND ? PLAN_REMIND : PLAN_DOWNGRADE, j->id);
			pa->observe = a.observe;
			continue;
		}
		int64_t next = downgrade_next(s, j);
		if (next > s->now && (!out->wake || next < out->wake))
			out->wake = next;
	}
}
