/*
 * mono.h - the monotonic clock, for measuring and waiting: durations that
 * the wall clock's steps (NTP, `date -s`) must not bend. Not the time jobs
 * and events carry: that is the server's clock (unix seconds, or manual).
 *
 * os/ holds the few helpers that touch the operating system and that
 * several layers above core/ share (server/, tui/, bench/): core/ is pure
 * and may not read a clock, and a helper of server/ or tui/ would make the
 * other depend on it.
 */
#ifndef GQ_OS_MONO_H
#define GQ_OS_MONO_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Now on the monotonic clock, from an arbitrary origin. */
int64_t mono_ms(void);
double mono_s(void);

/* The absolute monotonic time ms milliseconds from now, for
 * pthread_cond_timedwait() on a condition made by mono_cond_init(). */
struct timespec mono_deadline(int ms);

/* Initialises cv to time its waits on the monotonic clock. */
void mono_cond_init(pthread_cond_t *cv);

#endif
