/*
 * main.c - runs every unit test suite (optionally only those whose name
 * contains argv[1]) and exits non-zero if any check failed.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int t_count, t_failed_total;
static bool t_failed_now;
static const char *t_suite;

void t_run(const char *name, void (*fn)(void))
{
	t_failed_now = false;
	fn();
	t_count++;
	if (t_failed_now)
		t_failed_total++;
	printf("%sok %d - %s.%s\n", t_failed_now ? "not " : "", t_count, t_suite, name);
	fflush(stdout);
}

bool t_check(bool ok, const char *expr, const char *file, int line)
{
	if (!ok) {
		printf("# %s:%d: check failed: %s\n", file, line, expr);
		t_failed_now = true;
	}
	return ok;
}

bool t_check_int(int64_t got, int64_t want, const char *expr, const char *file, int line)
{
	if (got != want) {
		printf("# %s:%d: %s is %" PRId64 ", want %" PRId64 "\n", file, line, expr, got,
		       want);
		t_failed_now = true;
	}
	return got == want;
}

bool t_check_dbl(double got, double want, double eps, const char *expr, const char *file, int line)
{
	double d = got - want;
	bool ok = d <= eps && d >= -eps;
	if (!ok) {
		printf("# %s:%d: %s is %.9g, want %.9g (within %g)\n", file, line, expr, got, want,
		       eps);
		t_failed_now = true;
	}
	return ok;
}

bool t_check_str(const char *got, const char *want, const char *expr, const char *file, int line)
{
	bool ok = got && want ? !strcmp(got, want) : got == want;
	if (!ok) {
		printf("# %s:%d: %s is '%s', want '%s'\n", file, line, expr, got ? got : "(null)",
		       want ? want : "(null)");
		t_failed_now = true;
	}
	return ok;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
#define SUITE(name)                                                                                \
	if (!only || strstr(#name, only)) {                                                        \
		t_suite = #name;                                                                   \
		suite_##name();                                                                    \
	}
#include "suites.h"
#undef SUITE
	printf("# unit: %d tests, %d failed\n", t_count, t_failed_total);
	return t_failed_total ? 1 : 0;
}
