/*
 * refpredict.h - a slow reference for predict_all() / predict_until().
 *
 * The same rules as core/predict.h, followed literally: a plain event loop
 * over arrays, every ready job sorted again at every walk, every GPU's
 * release looked up again at every start, every permit holder looked at at
 * every event. Quadratic and obvious; none of the heaps, fronts, cursors,
 * permit groups or radix sorts of core/sim*.c. tests/unit/predictdiff.c
 * compares the two on random snapshots.
 */
#ifndef GQ_TEST_REFPREDICT_H
#define GQ_TEST_REFPREDICT_H

#include "core/predict.h"

/* As predict_until(s, until, out); s must be sorted. */
void ref_predict_until(const struct snapshot *s, int64_t until, struct prediction_set *out);

#endif
