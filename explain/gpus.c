/*
 * gpus.c - busy GPUs of a node (see gpus.h).
 */
#include "gpus.h"

uint64_t gpus_busy(const struct snapshot *s, size_t n,
		   void (*each)(size_t job, uint64_t mask, void *arg), void *arg)
{
	uint64_t busy = 0;
	for (size_t k = 0; k < s->njobs; k++) {
		const struct job *j = &s->jobs[k];
		if (!job_state_holds_gpus(j->state))
			continue;
		uint64_t mine = 0;
		bool on = false;
		for (int x = 0; x < j->nalloc; x++)
			if (j->alloc[x].node >= 0 && (size_t)j->alloc[x].node == n) {
				mine |= j->alloc[x].mask;
				on = true;
			}
		busy |= mine;
		if (on && each)
			each(k, mine, arg);
	}
	return busy;
}
