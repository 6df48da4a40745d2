/*
 * mono.c - the monotonic clock (mono.h).
 */
#include "mono.h"

static struct timespec now_ts(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

int64_t mono_ms(void)
{
	struct timespec ts = now_ts();
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double mono_s(void)
{
	struct timespec ts = now_ts();
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec mono_deadline(int ms)
{
	struct timespec ts = now_ts();
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

void mono_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}
