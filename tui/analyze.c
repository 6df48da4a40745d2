/*
 * analyze.c - runs the core's start-time prediction and wait reasons on
 * the model's snapshot (see analyze.h). Only glue: every number comes from
 * core/ (predict.h, reason.h), exactly as `gq ls` and `gq why` get theirs.
 */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#include "core/predict.h"
#include "core/reason.h"

void analyze_queue(struct model *m)
{
	const struct snapshot *s = &m->snap;
	struct prediction_set ps;
	struct why_set ws;
	prediction_set_init(&ps);
	why_set_init(&ws);
	predict_all(s, &ps);
	reason_all(s, &ps, &ws);
	free(m->queue);
	m->queue = xcalloc(ws.n + 1, sizeof(*m->queue));
	m->nqueue = 0;
	for (size_t i = 0; i < ws.n; i++) {
		const struct why *w = &ws.items[i];
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
	why_set_release(&ws);
	prediction_set_release(&ps);
}
