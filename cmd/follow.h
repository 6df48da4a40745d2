/*
 * follow.h - reading a job's output as it grows, for the commands that
 * show it (gq logs, gq run): each stream from the offset last read, through
 * the backend's logs call, written to its own FILE as it comes.
 */
#ifndef GQ_CMD_FOLLOW_H
#define GQ_CMD_FOLLOW_H

#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"

#define FOLLOW_MS 250 /* how often to ask for more while the job runs */

struct follow {
	const char *stream; /* "stdout" or "stderr" */
	FILE *to;
	int64_t off; /* read up to here */
};

/* Writes what each of the n streams of job id has past its offset, until
 * none has more: 0, or -1 with e filled (what was written stays). */
int follow_drain(struct backend *b, int64_t id, struct follow *f, int n, struct gq_err *e);

/* Sleeps ms milliseconds; a signal ends it early. */
void follow_pause(long ms);

#endif
