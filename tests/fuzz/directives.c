/*
 * directives.c - fuzz target: the #GQ lines of a batch script as
 * `gq submit SCRIPT` reads them (submit_directives, cmd/submit.h).
 *
 * Invariants: what the lines set is what the flags allow (the same checks
 * as the command line): names that are valid names or labels, durations,
 * counts and sizes that are not negative, dependencies that are job ids.
 * Refusals are printed to stderr, as gq submit does.
 */
#include "fuzz.h"

#include "cmd/submit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct job j;
	job_init(&j);
	if (submit_directives("fuzz.sh", text, &j) == 0) {
		FUZZ_CHECK(j.req.gpus >= 0 && j.req.cpus >= 0 && j.req.mem_mb >= 0 &&
			       j.req.gpu_mem_mb >= 0,
			   "gpus %d cpus %d mem %lld gpu_mem %lld", j.req.gpus, j.req.cpus,
			   (long long)j.req.mem_mb, (long long)j.req.gpu_mem_mb);
		FUZZ_CHECK(j.estimate >= 0 && j.time_limit >= 0, "estimate %lld time_limit %lld",
			   (long long)j.estimate, (long long)j.time_limit);
		FUZZ_CHECK(!j.queue[0] || name_valid(j.queue), "queue '%s'", j.queue);
		FUZZ_CHECK(!j.req.gpu_type[0] || name_valid(j.req.gpu_type), "gpu type '%s'",
			   j.req.gpu_type);
		FUZZ_CHECK(!j.name[0] || job_name_check(j.name, NULL) == 0, "name '%s'", j.name);
		FUZZ_CHECK(j.ndeps >= 0 && j.ndeps <= GQ_MAX_DEPS, "%d deps", j.ndeps);
		for (int i = 0; i < j.ndeps; i++)
			FUZZ_CHECK(j.deps[i] > 0, "dependency %lld", (long long)j.deps[i]);
	}
	free(text);
	return 0;
}
