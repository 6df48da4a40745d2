/*
 * webhook.h - POSTs notifications (P0 reminders and downgrades) as JSON to
 * the URL of policy key downgrade.webhook, so that a team can route them
 * to its chat. This file is the server's only libcurl user.
 *
 * Sending never blocks the scheduler: notes are queued and one thread
 * sends them, each with a 5 s timeout; a failure is logged and the note
 * dropped (the event in the journal is the record; the webhook is a
 * courtesy).
 */
#ifndef GQ_SERVER_WEBHOOK_H
#define GQ_SERVER_WEBHOOK_H

#include <stdint.h>

#include "wire/wire.h"

struct webhook;

/* struct webhook_note, what one POST says, is wire.h's (its JSON shape is
 * there); webhook_send copies its strings. */

/* Starts the sender thread; never fails (out of memory is fatal). */
struct webhook *webhook_start(void);
/* Queues a POST of n to url. At most 256 notes wait; beyond, the note is
 * dropped with a warning in the log. */
void webhook_send(struct webhook *w, const char *url, const struct webhook_note *n);
/* Stops the thread once the note being sent (if any) is done, at most its
 * timeout; notes still queued are dropped with a warning. Frees. Accepts
 * NULL. */
void webhook_stop(struct webhook *w);

#endif
