/*
 * calib.h - ranges that hold what they promise: the calibration of
 * predicted starts against the starts jobs got (DESIGN §5).
 *
 * The simulation's range (predict.h: every job as short as its shortest
 * guess, or as long as its limit) holds the start of about 55 % of the jobs
 * that wait, on both traces of bench/README.md: runtimes vary more than the
 * guesses, and jobs submitted later take GPUs. So gq serve keeps, for every
 * job, the start it predicted when the job was submitted (job.pred_start0),
 * and compares it with the start the job got: over the latest
 * CALIB_WINDOW jobs that waited at least CALIB_MIN_WAIT by that prediction,
 * the CALIB_LO and CALIB_HI quantiles of actual wait / predicted wait. A
 * prediction of a wait w at now then has the range widened to at least
 * [now + lo x w, now + hi x w] (calib_widen), which holds about
 * CALIB_HI - CALIB_LO of starts by construction, as long as the workload
 * stays like its recent past: split conformal prediction, learnt online.
 * With fewer than CALIB_MIN such jobs the range is the simulation's alone.
 * Pure: what a snapshot holds decides.
 */
#ifndef GQ_CALIB_H
#define GQ_CALIB_H

#include <stdint.h>

#include "job.h"

#define CALIB_WINDOW 1000
#define CALIB_MIN 50
#define CALIB_MIN_WAIT 60
#define CALIB_LO 0.10
#define CALIB_HI 0.90

/* The latest CALIB_WINDOW ratios, in the order added and sorted. */
struct calib_window {
	double ring[CALIB_WINDOW];
	double sorted[CALIB_WINDOW];
	int n, head;
};

void calib_init(struct calib_window *w);
/* Adds j when it counts: it started (start_time > 0) in its first run
 * (restarts 0), and pred_start0 predicted it to wait at least
 * CALIB_MIN_WAIT after its submit; the ratio is capped at 10^4. */
void calib_add_job(struct calib_window *w, const struct job *j);
/* The quantiles of what was added (nearest rank); n 0 below CALIB_MIN. */
void calib_get(const struct calib_window *w, struct predict_calib *out);

/* Sets s->calib from the jobs s holds, as calib_add_job of each job that
 * counts in the order of their starts (then ids), then calib_get. O(n log
 * n). */
void predict_fill_calib(struct snapshot *s);

/* Widens [*low, *high] of a start predicted at now by c, as above; leaves
 * it when c->n is 0 or the wait is under CALIB_MIN_WAIT. The result stays
 * within now .. GQ_TIME_MAX. */
void calib_widen(const struct predict_calib *c, int64_t now, int64_t start, int64_t *low,
		 int64_t *high);

#endif
