/*
 * resv.h - a backend's reservations in the prediction (Slurm's scontrol
 * create reservation), as Slurm's scheduler applies them: a job that names
 * a reservation starts within it, not before it begins; a job that does
 * not is never started where it would run into a reservation of every
 * node: started at t with its time limit (none: for ever), it must end by
 * the reservation's start, or it waits for the reservation's end.
 * Reservations of some nodes are not simulated (gq has no per-job node
 * sets): gq why shows them.
 */
#ifndef GQ_RESV_H
#define GQ_RESV_H

#include <stdint.h>

#include "job.h"

/* The earliest time at or after t at which j may start, as s's
 * reservations allow; *by (may be NULL) the reservation that set it, NULL
 * when none moved it. */
int64_t resv_earliest(const struct snapshot *s, const struct job *j, int64_t t,
		      const struct reservation **by);

/* The reservation by that name, NULL none. */
const struct reservation *resv_find(const struct snapshot *s, const char *name);

#endif
