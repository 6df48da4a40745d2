/*
 * notify.h - which of a job's changes are notified (`--notify
 * start,end,fail,requeue`): the list a user types, kept on the job as its
 * canonical text, and the one rule that says which transition fires which
 * event.
 *
 * It is not the delivery (server/notify.c queues, journals and retries;
 * the webhook and the command get the same JSON, wire.h's
 * wire_notify_text).
 */
#ifndef GQ_NOTIFY_H
#define GQ_NOTIFY_H

#include <stddef.h>

#include "job.h"
#include "util.h"

enum notify_event {
	NOTIFY_START = 1,   /* started running */
	NOTIFY_END = 2,	    /* ended, however: completed, failed, timeout, cancelled */
	NOTIFY_FAIL = 4,    /* ended failed (non-zero exit, a signal) or at its time limit */
	NOTIFY_REQUEUE = 8, /* back to pending from a run: requeued or preempted */
};
#define NOTIFY_ALL 15u

/* Reads "start,end,fail,requeue" (any order, any subset, "all", "none"
 * for none). Returns 0 with *mask, or -1 with GQ_EINVAL naming the unknown
 * word. */
int notify_parse(const char *s, unsigned *mask, struct gq_err *e);
/* The canonical list of mask ("start,end,fail"; "" for none), cut to fit
 * size. */
void notify_format(unsigned mask, char *out, size_t size);
/* "start", "end", "fail", "requeue" for one event bit; NULL otherwise. */
const char *notify_event_name(unsigned ev);

/*
 * The event that a job asking for mask gets when it goes from -> to, or 0
 * when none. One transition gives at most one notification: a job that
 * fails while asking for both fail and end gets "fail" (its state says
 * the rest). from == to never fires.
 */
unsigned notify_event_of(unsigned mask, enum job_state from, enum job_state to);

#endif
