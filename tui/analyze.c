/*
 * analyze.c - the queue rows of a model from the core's predictions and
 * wait reasons (see analyze.h). Only glue: model_build runs the core once
 * (m->x, explain/explain.h), exactly as `gq ls` and `gq why` get theirs.
 */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

void analyze_queue(struct model *m)
{
	const struct explain_set *x = &m->x;
	free(m->queue);
	m->queue = xcalloc(x->n + 1, sizeof(*m->queue));
	m->nqueue = 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct why *w = x->items[i].why;
		const struct prediction *p = w->pred;
		struct qrow *q = &m->queue[m->nqueue++];
		q->job = w->idx;
		q->pos = w->position;
		q->weight = w->weight;
		q->never = w->never;
		STR_COPY(q->reason, reason_name(w->primary));
		if (p && !p->never) {
			q->eta = p->start;
			q->eta_lo = p->low;
			q->eta_hi = p->high;
		}
	}
	size_t n = m->nqueue;
	const struct job **rows = xmalloc((n ? n : 1) * sizeof(*rows));
	bool *drop = xmalloc((n ? n : 1) * sizeof(*drop));
	char(*label)[ARRAY_LABEL_MAX] = xmalloc((n ? n : 1) * sizeof(*label));
	for (size_t i = 0; i < n; i++)
		rows[i] = &m->snap.jobs[m->queue[i].job];
	array_fold(rows, n, drop, label);
	for (size_t i = 0; i < n; i++) {
		m->queue[i].folded = drop[i];
		STR_COPY(m->queue[i].label, label[i]);
	}
	free(rows);
	free(drop);
	free(label);
}
