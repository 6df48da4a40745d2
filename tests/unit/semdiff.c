/* semdiff.c - the semantic policy diff and its count of policy variables. */
#include "harness.h"

#include "policy/semdiff.h"

#include <string.h>

static void set(struct policy *p, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	if (policy_set(p, k, v, &e) < 0)
		CHECK_STR(e.msg, "");
}

static void test_equal_policies_have_no_change(void)
{
	struct policy a, b;
	policy_defaults(&a);
	policy_defaults(&b);
	set(&b, "tier.P1.base", "30.0"); /* the default spelled otherwise */
	struct policy_diff d;
	semdiff_init(&d);
	semdiff_compute(&a, &b, &d);
	CHECK_INT(d.n, 0);
	CHECK_INT(semdiff_variables(&d), 0);
	semdiff_release(&d);
}

static void test_changed_key_has_old_and_new(void)
{
	struct policy a, b;
	policy_defaults(&a);
	policy_defaults(&b);
	set(&b, "aging.cap", "0.3");
	set(&b, "tier.P2.waitLimit", "10h");
	struct policy_diff d;
	semdiff_init(&d);
	semdiff_compute(&a, &b, &d);
	CHECK_INT(d.n, 2);
	CHECK_STR(d.items[0].key, "tier.P2.waitLimit");
	CHECK_STR(d.items[0].old_value, "12h00m");
	CHECK_STR(d.items[0].new_value, "10h00m");
	CHECK_STR(d.items[1].key, "aging.cap");
	CHECK_STR(d.items[1].old_value, "0.5");
	CHECK_STR(d.items[1].new_value, "0.3");
	CHECK_INT(d.items[1].kind, CHANGE_SET);
	CHECK_INT(semdiff_variables(&d), 2);
	semdiff_release(&d);
}

static void test_added_queue_counts_as_one_variable(void)
{
	struct policy a, b;
	policy_defaults(&a);
	policy_defaults(&b);
	set(&b, "queue.exp.quota", "16");
	struct policy_diff d;
	semdiff_init(&d);
	semdiff_compute(&a, &b, &d);
	CHECK_INT(d.n, 11); /* every key of the new queue */
	CHECK_INT(d.items[0].kind, CHANGE_ADDED);
	CHECK_STR(d.items[0].key, "queue.exp.department");
	CHECK_INT(semdiff_variables(&d), 1);
	semdiff_release(&d);

	/* The other way round: removed, after the changes, still one variable. */
	set(&a, "aging.cap", "0.4");
	semdiff_init(&d);
	semdiff_compute(&b, &a, &d);
	CHECK_INT(d.items[0].kind, CHANGE_SET);
	CHECK_INT(d.items[d.n - 1].kind, CHANGE_REMOVED);
	CHECK_STR(d.items[d.n - 1].key, "queue.exp.userMaxJobs");
	CHECK_STR(d.items[d.n - 1].old_value, "unlimited");
	CHECK_INT(semdiff_variables(&d), 2);
	semdiff_release(&d);
}

void suite_semdiff(void)
{
	RUN(test_equal_policies_have_no_change);
	RUN(test_changed_key_has_old_and_new);
	RUN(test_added_queue_counts_as_one_variable);
}
