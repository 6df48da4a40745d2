/*
 * submit.h - the #GQ directive parser of `gq submit`, outside cmd/submit.c
 * for one user: the fuzz target of tests/fuzz/. Commands use cmd_submit.
 */
#ifndef GQ_CMD_SUBMIT_H
#define GQ_CMD_SUBMIT_H

#include "core/job.h"

/*
 * Applies the #GQ lines at the top of script text (named path in
 * messages) to *job, as `gq submit SCRIPT` does before its command line.
 * Returns EXIT_OK, or EXIT_USAGE after printing the reason to stderr;
 * *job is written only on success.
 */
int submit_directives(const char *path, const char *text, struct job *job);

#endif
