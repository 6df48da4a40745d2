/*
 * webhook.h - delivers notifications: POSTs JSON to a URL (P0 reminders
 * and downgrades to the policy's downgrade.webhook; jobs' --notify to
 * notify.webhook and the submitter's own), or hands it to a command runner
 * (--notify's notify.command, server/notify.c). This file is the server's
 * only libcurl user.
 *
 * Sending never blocks the scheduler: notes are queued and one thread
 * sends them, each POST with a 5 s timeout. A failed note is tried again
 * after 1, 2, 4, 8 and 16 s (six tries in all), other notes going out
 * meanwhile; then it is given up with a warning in the log. A durable note
 * (webhook_deliver) also reports its outcome to the done hook, so that its
 * record in the journal can be deleted or its failure recorded; the
 * journal is the record, the queue only memory.
 */
#ifndef GQ_SERVER_WEBHOOK_H
#define GQ_SERVER_WEBHOOK_H

#include <stdint.h>

#include "wire/wire.h"

struct webhook;

#define WEBHOOK_TRIES 6

/* struct webhook_note, what one POST says, is wire.h's (its JSON shape is
 * there); webhook_send copies its strings. */

/* Starts the sender thread; never fails (out of memory is fatal). */
struct webhook *webhook_start(void);
/* Queues a POST of n to url. At most 256 notes wait; beyond, the note is
 * dropped with a warning in the log. */
void webhook_send(struct webhook *w, const char *url, const struct webhook_note *n);

/* A durable note: its journal id, and either a URL to POST body to or a
 * command for the run hook. Copied by webhook_deliver. */
struct webhook_delivery {
	int64_t id, job;
	const char *url;     /* or NULL, and then */
	const char *command; /* is run by the run hook */
	const char *body;
	const char *env; /* "K=V" lines for the command */
	uint32_t uid, gid;
};
/* Runs d's command (on the sender thread); 0, or -1 with e filled. */
typedef int (*webhook_run_fn)(const struct webhook_delivery *d, struct gq_err *e);
/* Called on the sender thread once d is delivered (failure NULL) or given
 * up after WEBHOOK_TRIES tries (failure the last error). */
typedef void (*webhook_done_fn)(void *arg, const struct webhook_delivery *d, const char *failure);
/* Sets the hooks; before the first webhook_deliver. */
void webhook_hooks(struct webhook *w, webhook_run_fn run, webhook_done_fn done, void *arg);
/* Queues d. Beyond 256 waiting it is left to the journal (a warning says
 * so) and goes at the next start. */
void webhook_deliver(struct webhook *w, const struct webhook_delivery *d);

/* Stops the thread once the note being sent (if any) is done, at most its
 * timeout; notes still queued are dropped with a warning (durable ones stay
 * in the journal). Frees. Accepts NULL. */
void webhook_stop(struct webhook *w);

#endif
