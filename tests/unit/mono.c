/* mono.c - the monotonic clock helpers (os/mono.h). */
#include "harness.h"

#include <errno.h>
#include <pthread.h>

#include "os/mono.h"

static void test_mono_deadline_is_normalised(void)
{
	for (int ms = 0; ms < 3000; ms += 137) {
		int64_t before = mono_ms();
		struct timespec d = mono_deadline(ms);
		int64_t after = mono_ms();
		CHECK(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
		int64_t at = (int64_t)d.tv_sec * 1000 + d.tv_nsec / 1000000;
		CHECK(at >= before + ms && at <= after + ms);
	}
	double s = mono_s();
	int64_t m = mono_ms();
	CHECK(m - (int64_t)(s * 1000) >= 0 && m - (int64_t)(s * 1000) < 1000);
}

/* A wait made by mono_cond_init() and mono_deadline() lasts its time: on
 * the real-time clock the (small) monotonic deadline would be long past. */
static void test_mono_cond_waits_on_the_monotonic_clock(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	mono_cond_init(&cv);
	pthread_mutex_lock(&mu);
	int64_t t0 = mono_ms();
	struct timespec d = mono_deadline(50);
	int rc = 0;
	while (rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&cv, &mu, &d);
	int64_t waited = mono_ms() - t0;
	pthread_mutex_unlock(&mu);
	pthread_cond_destroy(&cv);
	CHECK(waited >= 49);
	CHECK(waited < 5000);
}

void suite_mono(void)
{
	RUN(test_mono_deadline_is_normalised);
	RUN(test_mono_cond_waits_on_the_monotonic_clock);
}
