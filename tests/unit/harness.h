/*
 * harness.h - a tiny TAP-like unit test harness.
 *
 * A suite is a function that calls RUN(test) for each of its tests; a test is
 * a function of no arguments that uses the CHECK macros. Each test prints
 * "ok N - suite.test" or "not ok N - suite.test" with "# file:line: ..."
 * diagnostics for every failed check. Suites are listed once in suites.h.
 */
#ifndef GQ_TEST_HARNESS_H
#define GQ_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

void t_run(const char *name, void (*fn)(void));
bool t_check(bool ok, const char *expr, const char *file, int line);
bool t_check_int(int64_t got, int64_t want, const char *expr, const char *file, int line);
bool t_check_dbl(double got, double want, double eps, const char *expr, const char *file, int line);
bool t_check_str(const char *got, const char *want, const char *expr, const char *file, int line);

#define RUN(fn) t_run(#fn, fn)
#define CHECK(c) t_check((c), #c, __FILE__, __LINE__)
#define CHECK_INT(got, want) t_check_int((int64_t)(got), (int64_t)(want), #got, __FILE__, __LINE__)
#define CHECK_DBL(got, want, eps) t_check_dbl((got), (want), (eps), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) t_check_str((got), (want), #got, __FILE__, __LINE__)

#define SUITE(name) void suite_##name(void);
#include "suites.h"
#undef SUITE

#endif
