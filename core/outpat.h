/*
 * outpat.h - output file patterns: sbatch's -o/-e filename patterns
 * ("train-%A_%a.out") checked and expanded for one job.
 *
 * Pure: the caller puts a relative result under the job's working
 * directory and opens it; this file only turns text into text.
 */
#ifndef GQ_OUTPAT_H
#define GQ_OUTPAT_H

#include <stddef.h>

#include "job.h"
#include "util.h"

/* The longest pattern, and file name, gq takes: PATH_MAX. */
#define OUTPAT_MAX 4096

/*
 * 0 when pattern is a valid pattern: text with %j (the job's id), %A (its
 * array's id; the job's id when it is not a task), %a (its task index; 0
 * when it is not a task), %x (its name), %u (its user) and %% (a '%'),
 * each % optionally followed by one digit, a zero-padded width ("%3a":
 * 007). Else -1 with GQ_EINVAL naming the unknown pattern. An empty
 * pattern is invalid; so is one over OUTPAT_MAX - 1 bytes.
 */
int outpat_check(const char *pattern, struct gq_err *e);

/* The pattern expanded for j into out (size bytes); -1 with GQ_EINVAL as
 * outpat_check says, or when the result does not fit. */
int outpat_expand(const char *pattern, const struct job *j, char *out, size_t size,
		  struct gq_err *e);

#endif
