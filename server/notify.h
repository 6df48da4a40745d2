/*
 * notify.h - jobs' --notify notifications in gq serve: which change fires
 * one (core/notify.h's rule, on every event state_emit records), where it
 * goes (the policy's notify.webhook, the submitter's own notify.webhook
 * and notify.command from the submission), and its journal, so that
 * nothing the journal committed is lost: a note is written in the
 * transaction of the change it tells of, handed to the sender
 * (webhook.c's thread, with its retries) once that commits, deleted when
 * delivered, and sent again by the next start when the server stopped
 * first (at least once, then). A note given up after its tries becomes an
 * event, kind "notify", on its job.
 *
 * The sender thread never takes the server's lock: it reports outcomes to
 * a list of its own that the scheduler's pass journals (notify_reap).
 * Everything else here is called with the server's lock held.
 */
#ifndef GQ_SERVER_NOTIFY_H
#define GQ_SERVER_NOTIFY_H

#include "core/event.h"
#include "core/util.h"

struct state;
struct notifier;

/* Starts the sender (its own thread, not enforce's: it outlives
 * state_load). Never fails. */
struct notifier *notifier_start(struct state *s);
/* Stops the sender; notes not delivered stay in the journal. Call
 * without the server's lock. Accepts NULL. */
void notifier_stop(struct notifier *n);

/* Journals the notes event ev fires, inside the caller's transaction. */
int notify_emit(struct state *s, const struct event *ev, struct gq_err *e);
/* The transaction committed: hands its notes to the sender. */
void notify_committed(struct state *s);
/* The transaction rolled back: forgets its notes. */
void notify_rolled_back(struct state *s);
/* Inside the caller's transaction: deletes the delivered notes and
 * records the given-up ones as events. */
int notify_reap(struct state *s, struct gq_err *e);
/* At start-up: hands every note the journal still holds to the sender. */
int notify_resume(struct state *s, struct gq_err *e);

#endif
