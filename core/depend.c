/*
 * depend.c - dependency kinds: whether each is met, their parsing and
 * Slurm's form (depend.h). Pure: the server decides with dep_never, the
 * prediction and the reasons with dep_status.
 */
#include "depend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define X(e, t, v) t,
    DEP_KIND_LIST(X)
#undef X
};

static const char *const kind_verbs[] = {
#define X(e, t, v) v,
    DEP_KIND_LIST(X)
#undef X
};

const char *dep_kind_name(enum dep_kind k)
{
	return (unsigned)k < DEP_KIND_COUNT ? kind_names[k] : "?";
}

const char *dep_kind_verb(enum dep_kind k)
{
	return (unsigned)k < DEP_KIND_COUNT ? kind_verbs[k] : "?";
}

int dep_kind_parse(const char *s, size_t n, enum dep_kind *out)
{
	for (int k = 0; k < DEP_KIND_COUNT; k++)
		if (strlen(kind_names[k]) == n && !strncmp(s, kind_names[k], n)) {
			*out = (enum dep_kind)k;
			return 0;
		}
	return -1;
}

enum dep_status dep_status_at(const struct snapshot *s, const struct job *j, int i,
			      const struct job **dj)
{
	const struct job *d = snapshot_find(s, j->deps[i]);
	if (dj)
		*dj = d;
	if (i < 8 && (j->dep_dead >> i) & 1)
		return DEP_NEVER;
	return dep_status(dep_kind_of(j, i), d);
}

int64_t dep_met_at(const struct snapshot *s, const struct job *j)
{
	int64_t at = 0;
	for (int i = 0; i < j->ndeps && i < GQ_MAX_DEPS; i++) {
		const struct job *d;
		if (dep_status_at(s, j, i, &d) != DEP_MET)
			return -1;
		if (d && d->end_time > at)
			at = d->end_time;
	}
	return at;
}

enum dep_status dep_status(enum dep_kind k, const struct job *dj)
{
	if (!dj)
		return DEP_MET;
	if (job_state_active(dj->state))
		return DEP_WAIT;
	bool ok = dj->state == JOB_COMPLETED;
	switch (k) {
	case DEP_AFTERANY:
		return DEP_MET;
	case DEP_AFTERNOTOK:
		return ok ? DEP_NEVER : DEP_MET;
	case DEP_AFTEROK:
	default:
		return ok ? DEP_MET : DEP_NEVER;
	}
}

enum dep_kind dep_kind_of(const struct job *j, int i)
{
	return i >= 0 && i < GQ_MAX_DEPS && j->dep_kind[i] < DEP_KIND_COUNT
		   ? (enum dep_kind)j->dep_kind[i]
		   : DEP_AFTEROK;
}

/* One id of a list: "12" or "#12". */
static int one_id(const char *s, size_t n, int64_t *out)
{
	char tmp[24];
	if (n && s[0] == '#') {
		s++;
		n--;
	}
	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return parse_int64(tmp, 1, INT64_MAX / 2, out, NULL);
}

static int add(struct job *j, int64_t id, enum dep_kind k, struct gq_err *e)
{
	if (j->ndeps >= GQ_MAX_DEPS)
		return err_set(e, GQ_EINVAL, "at most %d jobs", GQ_MAX_DEPS);
	j->dep_kind[j->ndeps] = (uint8_t)k;
	j->deps[j->ndeps++] = id;
	return 0;
}

int dep_parse(const char *s, struct job *j, struct gq_err *e)
{
	struct job t = *j;
	const char *p = s;
	if (strchr(s, '?'))
		return err_set(e, GQ_EINVAL,
			       "'%s': '?' (any of) is Slurm's and not one gq knows; separate "
			       "dependencies with ',' (all of)",
			       s);
	for (;;) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		if (n == 0)
			return err_set(e, GQ_EINVAL, "'%s': an empty dependency; give job ids", s);
		if (!colon) {
			int64_t id;
			if (one_id(p, n, &id) < 0)
				return err_set(e, GQ_EINVAL,
					       "'%.*s' is not a job id (a positive number like "
					       "42) or a kind with ids (afterok:42)",
					       (int)n, p);
			if (add(&t, id, DEP_AFTEROK, e) < 0)
				return -1;
		} else {
			enum dep_kind k;
			if (dep_kind_parse(p, (size_t)(colon - p), &k) < 0)
				return err_set(e, GQ_EINVAL,
					       "'%.*s': kind '%.*s' is not one gq knows; use "
					       "afterok, afterany or afternotok",
					       (int)n, p, (int)(colon - p), p);
			const char *q = colon + 1, *end = p + n;
			while (q <= end) {
				const char *c = memchr(q, ':', (size_t)(end - q));
				size_t m = (size_t)((c ? c : end) - q);
				int64_t id;
				if (one_id(q, m, &id) < 0)
					return err_set(e, GQ_EINVAL,
						       "'%.*s': '%.*s' is not a job id (a "
						       "positive number like 42)",
						       (int)n, p, (int)m, q);
				if (add(&t, id, k, e) < 0)
					return -1;
				q += m + 1;
			}
		}
		p += n;
		if (!*p)
			break;
		p++;
	}
	*j = t;
	return 0;
}

void dep_format(const struct job *j, char *out, size_t size)
{
	size_t k = 0;
	if (size == 0)
		return;
	out[0] = '\0';
	for (int i = 0; i < j->ndeps && i < GQ_MAX_DEPS && k < size; i++) {
		enum dep_kind kd = dep_kind_of(j, i);
		int n;
		if (i && dep_kind_of(j, i - 1) == kd)
			n = snprintf(out + k, size - k, ":%lld", (long long)j->deps[i]);
		else
			n = snprintf(out + k, size - k, "%s%s:%lld", i ? "," : "",
				     dep_kind_name(kd), (long long)j->deps[i]);
		if (n < 0)
			break;
		k += (size_t)n;
	}
	if (k >= size)
		out[size - 1] = '\0';
}

bool dep_never(const struct snapshot *s, const struct job *j, struct dep_never *out)
{
	if (j->state != JOB_PENDING)
		return false;
	for (int i = 0; i < j->ndeps && i < GQ_MAX_DEPS; i++) {
		const struct job *dj;
		if (dep_status_at(s, j, i, &dj) != DEP_NEVER || dj == j)
			continue;
		out->job = j->deps[i];
		out->kind = dep_kind_of(j, i);
		out->gone = !dj;
		out->state = dj ? dj->state : JOB_FAILED;
		out->exit_status = dj ? dj->exit_status : -1;
		return true;
	}
	return false;
}

/* The dependencies of job x as they would be: j's own for j. */
static const struct job *as_changed(const struct job *j, const struct job *x)
{
	return x->id == j->id ? j : x;
}

bool dep_cycle(const struct snapshot *s, const struct job *j, int64_t *path, size_t size,
	       size_t *len)
{
	/* A depth-first walk with an explicit stack (a chain may be as long
	 * as the queue): each level is a job and the next of its
	 * dependencies to follow; a job seen once is never walked again, so
	 * the walk is linear in the jobs and their dependencies. */
	struct level {
		const struct job *job;
		int next;
	};
	bool *seen = xcalloc(s->njobs + 1, sizeof(*seen));
	struct level *stack = xcalloc(s->njobs + 1, sizeof(*stack));
	size_t depth = 0;
	bool found = false;
	stack[depth++] = (struct level){j, 0};
	while (depth && !found) {
		struct level *top = &stack[depth - 1];
		const struct job *x = as_changed(j, top->job);
		if (top->next >= x->ndeps || top->next >= GQ_MAX_DEPS) {
			depth--;
			continue;
		}
		int64_t id = x->deps[top->next++];
		if (id == j->id) {
			found = true;
			break;
		}
		const struct job *d = snapshot_find(s, id);
		if (!d || d->state != JOB_PENDING || seen[d - s->jobs])
			continue;
		seen[d - s->jobs] = true;
		stack[depth++] = (struct level){d, 0};
	}
	if (found) {
		/* stack[0] is j; the others are the cycle, in order. */
		for (size_t i = 1; i < depth && i - 1 < size; i++)
			path[i - 1] = stack[i].job->id;
		if (depth == 1 && size) /* j waits for itself */
			path[0] = j->id;
		*len = depth > 1 ? depth - 1 : 1;
	}
	free(stack);
	free(seen);
	return found;
}
