/*
 * sim.h - `gq sim --json`: the replay's figures (replay/replay.h) as one
 * JSON object on stdout. The shape is documented in gq-sim(1).
 */
#ifndef GQ_WIRE_SIM_H
#define GQ_WIRE_SIM_H

#include <stddef.h>

#include "replay/replay.h"

struct sim_run {	    /* one replay and what it ran under */
	const char *policy; /* "built-in", a file, or a revision */
	const struct replay_result *r;
};

/* {"trace", "jobs", "machine": {...}, "runs": [{"policy", "groups": [...],
 * "histogram", "accuracy"}]} */
void jout_sim(const char *trace, size_t trace_jobs, const struct sim_run *runs, int nruns);

#endif
