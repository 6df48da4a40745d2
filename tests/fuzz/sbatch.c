/*
 * sbatch.c - fuzz target: a batch script's #SBATCH lines as gq submit reads
 * them for Slurm (sbatch_parse, core/sbatch.h).
 *
 * Invariants (sbatch.h): counts are not negative, GPUs are -1 (none) or
 * more, a node range's maximum is 0 or at least its minimum, a time limit
 * and a memory size are not negative, and every option skipped is counted.
 */
#include "fuzz.h"

#include "core/sbatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct sbatch *sb = malloc(sizeof(*sb));
	if (!sb)
		abort();
	sbatch_parse(text, sb);
	FUZZ_CHECK(sb->gpus >= -1 && sb->nodes_min >= 0 && sb->ntasks >= 0 &&
		       sb->ntasks_per_node >= 0 && sb->cpus_per_task >= 0,
		   "gpus %d nodes %d tasks %d per node %d cpus %d", sb->gpus, sb->nodes_min,
		   sb->ntasks, sb->ntasks_per_node, sb->cpus_per_task);
	FUZZ_CHECK(sb->nodes_max == 0 || sb->nodes_max >= sb->nodes_min, "nodes %d-%d",
		   sb->nodes_min, sb->nodes_max);
	FUZZ_CHECK(sb->time_limit >= 0 && sb->mem_mb >= 0, "time %lld mem %lld",
		   (long long)sb->time_limit, (long long)sb->mem_mb);
	FUZZ_CHECK(sb->nskipped >= 0 && sb->nlines >= 0, "skipped %d lines %d", sb->nskipped,
		   sb->nlines);
	int64_t t = sbatch_time(text);
	FUZZ_CHECK(t >= -1, "time '%s' -> %lld", text, (long long)t);
	free(sb);
	free(text);
	return 0;
}
