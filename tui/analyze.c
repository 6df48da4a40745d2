/*
 * analyze.c - runs the core's ordering, wait reasons and start-time
 * prediction on the model's snapshot (see analyze.h). Only glue: every
 * number comes from core/.
 */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#include "core/order.h"

void analyze_queue(struct model *m)
{
	const struct snapshot *s = &m->snap;
	size_t *idx = xcalloc(s->njobs + 1, sizeof(*idx));
	size_t n = order_pending(s, idx);
	free(m->queue);
	m->queue = xcalloc(n + 1, sizeof(*m->queue));
	m->nqueue = n;
	for (size_t i = 0; i < n; i++) {
		struct qrow *q = &m->queue[i];
		q->job = idx[i];
		q->pos = (int)i + 1;
		q->weight = order_weight(&s->policy, &s->jobs[idx[i]], s->now);
	}
	free(idx);
}
