/*
 * place.h - placement: does a job's request fit on the free GPUs now, and
 * if not, which constraints block it, with their numbers.
 *
 * A struct place_map is the free-GPU map of one snapshot: every GPU of a node
 * that is up, minus those held by jobs in a state that holds GPUs
 * (job_state_holds_gpus), plus the GPUs each queue holds. place_check()
 * evaluates one job against it and against the policy's limits:
 *
 *   unsatisfiable  no set of nodes could ever fit the request, even empty
 *                  (place_satisfiable() says why in words)
 *   window         the job's queue is paused now (queue.NAME.window, in the
 *                  snapshot's local time: now + tz_offset)
 *   quota          the queue would exceed quota + borrowing limit, or the
 *                  department has used its monthly GPU-hours and its
 *                  gpuHoursAction is stop (preemptible: its work runs on
 *                  as the lowest tier, job.h's over_quota)
 *   mismatch       enough GPUs are free, but not of the right type / memory /
 *                  on one node (or not within GQ_MAX_SPAN nodes)
 *   headroom       enough GPUs are free, but taking them would leave fewer than
 *                  the headroom reserve, which only P0 may use
 *   resources      fewer GPUs are free than the job needs
 *
 * Allocation is deterministic best fit: a single node when one can hold the
 * whole request (the matching up node with the fewest free GPUs that still
 * suffice, lowest index on ties, lowest GPU numbers on the node); otherwise,
 * unless same_node was asked, a spread over the matching nodes with the most
 * free GPUs first (lowest index on ties), at most GQ_MAX_SPAN nodes.
 *
 * The headroom reserve is floor(headroom.share × GPUs on up nodes); a P1 or
 * P2 job may start only if at least that many GPUs stay free afterwards.
 * A request larger than what lies outside the reserve shrinks the reserve
 * to what the request leaves (place_reserve): an 8-GPU P1 job on an 8-GPU
 * machine may start when all 8 are free, rather than never. Headroom keeps
 * small jobs from filling the machine; it never makes a request impossible.
 *
 * Not here: which job goes first (order.h), wait reasons (reason.h), time
 * (predict.h). The map is not shared between threads.
 */
#ifndef GQ_PLACE_H
#define GQ_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

/* The constraints, in the order place_check() reports them. */
enum place_block {
	PLACE_UNSATISFIABLE,
	PLACE_WINDOW,
	PLACE_QUOTA,
	PLACE_MISMATCH,
	PLACE_HEADROOM,
	PLACE_RESOURCES,
	PLACE_BLOCK_COUNT
};
#define PLACE_BIT(b) (1u << (b))

/* Stable token of a constraint: "unsatisfiable", "window", ... */
const char *place_block_name(enum place_block b);

struct place_map {
	size_t nnodes;
	uint64_t *free; /* owned; per node, bit i set = GPU i free; 0 on nodes that are down */
	int total;	/* GPUs on nodes that are up */
	int nfree;	/* free GPUs on nodes that are up */
	int reserve;	/* headroom: floor(headroom × total), only P0 may take these */
	int queue_used[GQ_MAX_QUEUES]; /* GPUs held by each policy queue's jobs */

	/* The best-fit index, private to place.c: nodes grouped by GPU class
	 * (model and memory) and by their number of free GPUs, so that a fit
	 * costs a few word scans instead of a pass over every node. */
	uint64_t *upmask; /* per node: GPUs that exist on an up node */
	int nclasses;
	int *node_class;   /* per node */
	int *class_rep;	   /* per class: a node of that class */
	int *class_count;  /* [class][0..64]: up nodes of the class with that many free */
	int *class_free;   /* per class: free GPUs */
	size_t words;	   /* uint64_t words per node bitset */
	uint64_t *by_free; /* [0..64][words]: up nodes with exactly that many free */
	/* What could ever fit, for place_satisfiable_map: GPUs on all nodes
	 * (up or not), per class, and each class's nodes by their GPUs (the
	 * GQ_MAX_SPAN largest hold what one job could span). */
	int all_gpus;
	int any_most, any_span; /* for requests of any model and memory */
	int *class_all;
	int *class_hist; /* [class][0..64]: nodes of the class with that many GPUs */
	/* Where place_check writes the allocation it finds (place_result's
	 * alloc): scratch_cap entries, min(nnodes, GQ_MAX_SPAN). */
	struct job_alloc *scratch;
	size_t scratch_cap;
	/* CPUs and memory (MiB) not taken, per node: a request's cpus and
	 * mem_mb are what it needs on each node it uses. A node that does not
	 * say how many it has (0) is never short of them. */
	int64_t *cpus_free;
	int64_t *mem_free;
	bool sized; /* some node says how many CPUs or how much memory it has */
};

/* Builds the map of s: allocates (freed by place_map_release); nnodes may
 * be 0. Allocations on unknown nodes, on down nodes or of GPUs beyond a
 * node's ngpus are ignored. */
void place_map_init(struct place_map *m, const struct snapshot *s);
/* Frees what init allocated; m must be re-initialised before use. */
void place_map_release(struct place_map *m);
/* Makes *dst an independent copy of *src (allocates; release both). A
 * struct assignment would share the arrays: always copy with this. */
void place_map_copy(struct place_map *dst, const struct place_map *src);

struct place_result {
	unsigned blocks;  /* PLACE_BIT() of every blocking constraint; 0 = fits now */
	int need;	  /* GPUs asked for */
	int free;	  /* free GPUs on up nodes */
	int usable;	  /* free GPUs of the right type and memory (same_node: most on one node) */
	int match_free;	  /* free GPUs of the right type and memory, on all nodes */
	int reserve;	  /* headroom GPUs held back from this job (0 for P0) */
	int queue;	  /* policy queue index, -1 if the queue is unknown */
	int queue_used;	  /* GPUs the queue holds now */
	int queue_quota;  /* nominal quota, -1 none */
	int queue_limit;  /* quota + borrowing limit, -1 unlimited */
	bool quota_queue; /* the queue limit blocks */
	int dept;	  /* policy department index, -1 if unknown */
	double dept_used; /* GPU-hours this month */
	double dept_limit;	   /* monthly GPU-hour quota, -1 unlimited */
	bool quota_dept;	   /* the department quota blocks (gpuHoursAction stop) */
	int64_t window_end;	   /* window blocks: when the pause ends (unix time) */
	bool cpu_short, mem_short; /* resources blocks: no usable node has the CPUs / memory free */
	/* When blocks == 0: the allocation, and whether it borrows beyond quota.
	 * alloc is the map's scratch, borrowed: valid until the next check on
	 * the same map (or its release); copy what must outlive that. */
	bool borrowed;
	int nalloc;
	struct job_alloc *alloc;
};

/*
 * Evaluates job j of snapshot s at time `now` against map m. Always fills
 * *out (every constraint is evaluated, not only the first). Returns true
 * when the job can start now (out->blocks == 0, allocation in out->alloc).
 * A job asking for 0 GPUs (a CPU-only job) gets one node, with no GPUs of
 * it, that has its CPUs and memory free (best fit: the fewest free CPUs
 * that suffice, lowest index on ties); with CPUs or memory asked for, a GPU
 * job uses only nodes that have them free. Short of CPUs or memory is
 * PLACE_RESOURCES with cpu_short / mem_short set.
 */
bool place_check(const struct place_map *m, const struct snapshot *s, const struct job *j,
		 int64_t now, struct place_result *out);

/*
 * place_check for callers that already know the job is satisfiable
 * (place_satisfiable() depends on the snapshot only) and its policy queue
 * and department indices (-1 unknown): the prediction's inner loop. Never
 * reports PLACE_UNSATISFIABLE; otherwise identical.
 */
bool place_check_fit(const struct place_map *m, const struct snapshot *s, const struct job *j,
		     int qi, int di, int64_t now, struct place_result *out);

/* place_check_fit on a request and tier rather than a job. */
bool place_check_req(const struct place_map *m, const struct snapshot *s, const struct job_res *req,
		     enum tier tier, int qi, int di, int64_t now, struct place_result *out);

/* Free GPUs of m matching req's type and memory, on all up nodes. */
int place_match_free(const struct place_map *m, const struct snapshot *s,
		     const struct job_res *req);

/* The GPU classes (model and memory) of m whose nodes match req's type and
 * memory, as bits in *mask; false when m has more than 64 classes (then
 * nothing is told). Classes do not change during a map's life. */
bool place_class_mask(const struct place_map *m, const struct snapshot *s,
		      const struct job_res *req, uint64_t *mask);

/* Per GPU class c of m (the bits of place_class_mask): free GPUs on up
 * nodes in free[c], the most free on one up node in most[c]; both arrays
 * hold 64. Returns the number of classes, 0 when m has more than 64. With
 * them, a request of n GPUs of the classes in a mask can fit only if the
 * free of those classes add up to n (with same_node: one most reaches
 * n): a necessary condition of place_check_req's fit. O(classes × 64). */
int place_class_free(const struct place_map *m, int *free, int *most);

/* Marks an allocation taken / given back by a job of policy queue index qi
 * (-1 for none) whose request is req (its CPUs and memory on each node of
 * the allocation; NULL: none). place_take BUG()s when a GPU is not free;
 * place_give ignores GPUs of down nodes and GPUs already free. */
void place_take(struct place_map *m, int qi, const struct job_res *req, int nalloc,
		const struct job_alloc *alloc);
void place_give(struct place_map *m, int qi, const struct job_res *req, int nalloc,
		const struct job_alloc *alloc);

/*
 * Could j ever fit: on all of s's nodes (up or not) entirely free, under its
 * queue's quota + borrowing limit and the per-user GPU limits (ulimit.h), and, for P1/P2, outside
 * the headroom reserve? Returns 0 when it could; -1 with GQ_EINVAL and a one-line explanation
 * otherwise, e.g. "needs 16 GPUs on one node, the largest matching node has 8: ask for fewer GPUs
 * or drop same-node". The server rejects such submits with this text.
 */
int place_satisfiable(const struct snapshot *s, const struct job *j, struct gq_err *e);

/* place_satisfiable from the capacity summary of a map built from s, with
 * j's policy queue index qi (-1 unknown) already looked up: the same answer
 * and text, in O(GPU classes) instead of O(nodes). */
int place_satisfiable_map(const struct place_map *m, const struct snapshot *s, const struct job *j,
			  int qi, struct gq_err *e);

/* Which static limit makes j unsatisfiable, as a stable token
 * (place_unsat_name: "gpus", "same_node", "span", "queue_limit",
 * "user_limit", "cpus", "mem"), and in *have the most GPUs that limit allows; UNSAT_NONE
 * (*have = need) when j is satisfiable. */
enum place_unsat {
	UNSAT_NONE,
	UNSAT_GPUS,	   /* fewer GPUs of that type / memory in the cluster */
	UNSAT_SAME_NODE,   /* no node that large */
	UNSAT_SPAN,	   /* more than GQ_MAX_SPAN nodes' worth */
	UNSAT_QUEUE_LIMIT, /* beyond the queue's quota + borrowing limit */
	UNSAT_USER_LIMIT,  /* beyond what one user may hold (ulimit.h) */
	UNSAT_CPUS,	   /* no node has that many CPUs (*have: the most one has) */
	UNSAT_MEM,	   /* no node has that much memory (*have: the most one has, MiB) */
	UNSAT_TIME,	   /* its time limit is over its queue's maxTime (*have: that, s) */
	UNSAT_COUNT
};
const char *place_unsat_name(enum place_unsat u);
enum place_unsat place_unsat_why(const struct place_map *m, const struct snapshot *s,
				 const struct job *j, int *have);

/* The headroom GPUs that must stay free after a job of `tier` takes `need`
 * GPUs on map m: 0 for P0, else m->reserve, shrunk so that it never exceeds
 * m->total - need (see above). */
int place_reserve(const struct place_map *m, enum tier tier, int need);

/* Is policy queue index qi paused at `now` (local time now + tz)? */
bool place_window_paused(const struct snapshot *s, int qi, int64_t now);
/* The next time > now at which queue qi's window starts or ends (pause
 * state may change); 0 when the queue has no window. */
int64_t place_window_next_edge(const struct snapshot *s, int qi, int64_t now);

/* Does node n have the type and memory req asks for (ignoring counts)? */
bool place_node_matches(const struct node *n, const struct job_res *req);

#endif
