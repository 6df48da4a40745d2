/*
 * fuzz.h - what every libFuzzer target of tests/fuzz/ shares: the input as
 * a C string, and an invariant check that aborts with a message (libFuzzer
 * then saves the input as a crash).
 *
 * A target checks invariants that the headers document (a round trip that
 * gives the same value, no non-finite number leaving a decoder), not only
 * "no crash"; it asserts nothing the API does not promise.
 */
#ifndef GQ_FUZZ_H
#define GQ_FUZZ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (a NUL inside stays, so strlen may
 * be shorter than size); free() it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The compact text of v, which it consumes (json_decref); free() it. */
static inline char *fuzz_text(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(v);
	if (!s)
		oom(0);
	return s;
}

/* A private directory for a target's files, made once at start under
 * $TMPDIR (run.sh gives one in its scratch directory, since a crash skips
 * the atexit clean-up). Exits when it cannot. */
static inline void fuzz_tmpdir(char *out, size_t size, const char *name)
{
	const char *base = getenv("TMPDIR");
	snprintf(out, size, "%s/gq-fuzz-%s.XXXXXX", base && *base ? base : "/tmp", name);
	if (!mkdtemp(out)) {
		perror("mkdtemp");
		exit(1);
	}
}

#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz: %s:%d: invariant '%s' broken: ", __FILE__,          \
				__LINE__, #cond);                                                  \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Two texts that must be equal; says where they differ. */
#define FUZZ_SAME_TEXT(a, b, what)                                                                 \
	do {                                                                                       \
		const char *fa_ = (a), *fb_ = (b);                                                 \
		if (strcmp(fa_, fb_) != 0) {                                                       \
			size_t i_ = 0;                                                             \
			while (fa_[i_] && fa_[i_] == fb_[i_])                                      \
				i_++;                                                              \
			fprintf(stderr,                                                            \
				"fuzz: %s:%d: %s differ at byte %zu:\n  %.200s\n  %.200s\n",       \
				__FILE__, __LINE__, (what), i_, fa_ + (i_ > 40 ? i_ - 40 : 0),     \
				fb_ + (i_ > 40 ? i_ - 40 : 0));                                    \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define FUZZ_FINITE(x, what) FUZZ_CHECK(isfinite(x), "%s is %g", (what), (x))

#endif
