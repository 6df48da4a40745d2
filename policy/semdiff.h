/*
 * semdiff.h - the semantic difference of two policies: which keys change
 * value (key: old -> new), which appear (a queue or department added) and
 * which disappear, compared on effective values, so that reformatting a
 * file or spelling a default out changes nothing.
 *
 * Pure: no I/O, no libgit2; the textual diff is repo.h's.
 */
#ifndef GQ_POLICY_SEMDIFF_H
#define GQ_POLICY_SEMDIFF_H

#include <stddef.h>

#include "core/policy.h"

enum change_kind { CHANGE_SET, CHANGE_ADDED, CHANGE_REMOVED };

struct policy_change {
	enum change_kind kind;
	char key[128];
	char old_value[300]; /* "" for CHANGE_ADDED */
	char new_value[300]; /* "" for CHANGE_REMOVED */
};

/* Owns its items. Changed and added keys in b's key order, then removed
 * keys in a's. */
struct policy_diff {
	struct policy_change *items;
	size_t n, cap;
};

void semdiff_init(struct policy_diff *d);
void semdiff_release(struct policy_diff *d);

/* Fills d (which must be empty) with the changes from a to b. */
void semdiff_compute(const struct policy *a, const struct policy *b, struct policy_diff *d);

/* How many policy variables d changes: one per changed key, one per queue
 * or department added or removed (whatever keys it spells out). */
int semdiff_variables(const struct policy_diff *d);

/* "added", "removed", "set" */
const char *change_kind_name(enum change_kind k);

#endif
