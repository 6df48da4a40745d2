/*
 * analyze.h - the core's verdict on a model's snapshot, for `gq top`:
 * scheduling order, weight, wait reason and predicted start of every
 * pending job. One function, so that the dashboard shows exactly what
 * `gq ls` and `gq why` compute; the computing itself is core's.
 */
#ifndef GQ_TUI_ANALYZE_H
#define GQ_TUI_ANALYZE_H

#include "model.h"

/* Fills m->queue / m->nqueue from m->x, the core's verdict on m->snap:
 * pending jobs in scheduling order with position, weight, primary reason
 * and ETA. Replaces any previous queue. */
void analyze_queue(struct model *m);

#endif
