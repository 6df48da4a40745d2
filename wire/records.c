/*
 * records.c - releasing records.h's records.
 */
#include "wire/records.h"

#include <stdlib.h>
#include <string.h>

void event_list_release(struct event_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

const char *const stats_not_recorded_names[STATS_NR_COUNT] = {
    "over_limit", "overtaken", "would_preempt", "work_lost", "charged"};

void stats_report_release(struct stats_report *r)
{
	stats_release(&r->st);
	memset(r, 0, sizeof(*r));
}

void preempt_list_release(struct preempt_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

void reclaim_report_release(struct reclaim_report *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}
