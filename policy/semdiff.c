/*
 * semdiff.c - semantic policy diff (see semdiff.h). Both policies are
 * enumerated with policy_foreach() and matched by concrete key.
 */
#include "semdiff.h"

#include <stdlib.h>
#include <string.h>

struct kv {
	char key[128];
	char value[300];
};

struct kv_list {
	struct kv *items;
	size_t n, cap;
};

static void collect(const struct policy_key_info *ki, void *arg)
{
	struct kv_list *l = arg;
	GROW(l->items, l->cap, l->n + 1);
	STR_COPY(l->items[l->n].key, ki->key);
	STR_COPY(l->items[l->n].value, ki->value);
	l->n++;
}

static const struct kv *find(const struct kv_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].key, key))
			return &l->items[i];
	return NULL;
}

static void add(struct policy_diff *d, enum change_kind kind, const char *key, const char *old,
		const char *new)
{
	GROW(d->items, d->cap, d->n + 1);
	struct policy_change *c = &d->items[d->n++];
	c->kind = kind;
	STR_COPY(c->key, key);
	STR_COPY(c->old_value, old);
	STR_COPY(c->new_value, new);
}

void semdiff_init(struct policy_diff *d)
{
	memset(d, 0, sizeof(*d));
}

void semdiff_release(struct policy_diff *d)
{
	free(d->items);
	semdiff_init(d);
}

void semdiff_compute(const struct policy *a, const struct policy *b, struct policy_diff *d)
{
	struct kv_list la = {0}, lb = {0};
	policy_foreach(a, collect, &la);
	policy_foreach(b, collect, &lb);
	for (size_t i = 0; i < lb.n; i++) {
		const struct kv *old = find(&la, lb.items[i].key);
		if (!old)
			add(d, CHANGE_ADDED, lb.items[i].key, "", lb.items[i].value);
		else if (strcmp(old->value, lb.items[i].value))
			add(d, CHANGE_SET, lb.items[i].key, old->value, lb.items[i].value);
	}
	for (size_t i = 0; i < la.n; i++)
		if (!find(&lb, la.items[i].key))
			add(d, CHANGE_REMOVED, la.items[i].key, la.items[i].value, "");
	free(la.items);
	free(lb.items);
}

/* "queue.exp" of "queue.exp.quota" */
static size_t subsection_len(const char *key)
{
	const char *last = strrchr(key, '.');
	return last ? (size_t)(last - key) : strlen(key);
}

int semdiff_variables(const struct policy_diff *d)
{
	int n = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct policy_change *c = &d->items[i];
		if (c->kind == CHANGE_SET) {
			n++;
			continue;
		}
		/* Count an added or removed subsection once. */
		size_t len = subsection_len(c->key);
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = d->items[j].kind == c->kind &&
			       subsection_len(d->items[j].key) == len &&
			       !strncmp(d->items[j].key, c->key, len);
		n += !seen;
	}
	return n;
}

const char *change_kind_name(enum change_kind k)
{
	switch (k) {
	case CHANGE_SET:
		return "set";
	case CHANGE_ADDED:
		return "added";
	case CHANGE_REMOVED:
		return "removed";
	}
	return "?";
}
