/*
 * policy_who.c - whom and where the policy's rules act on: the queues of a
 * trial rollout and a tier's allow list (users and @groups). Split from
 * policy.c, whose key table is the rest.
 */
#include "policy.h"

#include <stdbool.h>
#include <string.h>

/* Is `name` a word of the space/comma separated list? */
static bool list_has(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *s = list;
	while (*s) {
		while (*s == ' ' || *s == ',')
			s++;
		size_t n = strcspn(s, " ,");
		if (n == len && !strncmp(s, name, n))
			return true;
		s += n;
	}
	return false;
}

bool policy_acts(enum rollout mode, const char *trial, const char *queue)
{
	switch (mode) {
	case ROLLOUT_ENFORCE:
		return true;
	case ROLLOUT_TRIAL:
		return list_has(trial, queue);
	case ROLLOUT_OBSERVE:
		return false;
	}
	return false;
}

bool policy_tier_allows(const struct policy *p, enum tier t, const char *user, const char *groups)
{
	const char *allow = p->tier[t].allow;
	if (list_has(allow, "*") || list_has(allow, user))
		return true;
	const char *s = groups ? groups : "";
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (n && n < 64) {
			char g[66] = "@";
			memcpy(g + 1, s, n);
			g[n + 1] = '\0';
			if (list_has(allow, g))
				return true;
		}
		s += n;
	}
	return false;
}
