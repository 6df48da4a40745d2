/*
 * front.h - gq serve in front of a Slurm cluster (gq serve --slurm URL):
 * instead of scheduling, one poller thread keeps the cluster's snapshot
 * through the Slurm backend's own requests and decoding (backend/slurm.c),
 * and every client reading through the front is answered from it, so that
 * the number of requests to slurmctld does not grow with the clients.
 *
 * It answers the read API (ping, the snapshot, one job), from the
 * journal of each poll's changes in its state directory
 * (front_events.h) GET /v1/events and /v1/stats, and passes actions to
 * Slurm as the user who asks (front_act.h): never with its own token,
 * which only reads. It keeps no logs.
 *
 * Polling: at FRONT_POLL_MIN seconds after a poll that saw a change, the
 * interval doubling up to FRONT_POLL_MAX while nothing changes; GET /jobs
 * carries update_time, so an unchanged cluster answers 304. When
 * slurmrestd does not answer, the interval doubles the same way, every
 * answer carries "Gq-Upstream: since=T data=D" (down since T, the data of
 * time D, 0 when there is none) and the snapshot answer is refused with
 * 503 until a first poll has succeeded.
 */
#ifndef GQ_SERVER_FRONT_H
#define GQ_SERVER_FRONT_H

#include "core/util.h"

#define FRONT_POLL_MIN 2
#define FRONT_POLL_MAX 30

struct front_config {
	char **listen; /* "unix:PATH" / "HOST:PORT" */
	int nlisten;
	const char *url;	/* slurmrestd: "http://HOST:PORT" */
	const char *token_file; /* when SLURM_JWT is not set; NULL none */
	const char *state_dir;	/* the journal (front_events.h) */
};

/* Runs the front in the foreground until SIGTERM or SIGINT. -1 with e
 * when it cannot start (no token, cannot listen). */
int front_run(const struct front_config *cfg, struct gq_err *e);

#endif
