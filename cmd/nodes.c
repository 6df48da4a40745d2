/*
 * nodes.c - `gq nodes`: the machines and their GPUs — model, memory, how
 * many are busy and by which jobs — from the snapshot.
 */
#include "cmd.h"

#include "backend/backend.h"
#include "explain/gpus.h"
#include "wire/cli.h"

struct node_jobs {
	const struct snapshot *s;
	struct buf *out;
};

static void add_job(size_t job, uint64_t mask, void *arg)
{
	struct node_jobs *nj = arg;
	buf_printf(nj->out, "%s#%lld", nj->out->len ? " " : "", (long long)nj->s->jobs[job].id);
}

static void nodes_text(const struct snapshot *s)
{
	printf("%-16s %-10s %8s %5s %5s %5s  %s\n", "NODE", "MODEL", "MEM", "GPUS", "BUSY", "FREE",
	       "JOBS");
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *nd = &s->nodes[i];
		struct buf jobs;
		buf_init(&jobs, 0);
		struct node_jobs nj = {s, &jobs};
		int nbusy = __builtin_popcountll(gpus_busy(s, i, add_job, &nj));
		char mem[24];
		if (nd->gpu_mem_mb)
			snprintf(mem, sizeof(mem), "%lldG", (long long)(nd->gpu_mem_mb / 1024));
		else
			snprintf(mem, sizeof(mem), "-");
		char st[32] = "";
		if (!nd->up)
			snprintf(st, sizeof(st), "(%s) ", nd->state[0] ? nd->state : "down");
		printf("%-16s %-10s %8s %5d %5d %5d  %s%s\n", nd->name,
		       nd->gpu_model[0] ? nd->gpu_model : "-", mem, nd->ngpus, nbusy,
		       nd->up ? nd->ngpus - nbusy : 0, st, jobs.len ? jobs.data : "-");
		buf_release(&jobs);
	}
}

static int nodes_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_nodes;
	bool json = false;
	int rc = cmd_json_only(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	rc = EXIT_OK;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b)
		return rc;
	if (json)
		jout_nodes(&s);
	else
		nodes_text(&s);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_nodes = {
    .name = "nodes",
    .usage = "[--json]",
    .summary = "list nodes and their GPUs: model, memory, busy, free",
    .flags = CMD_NEEDS_BACKEND,
    .exec = nodes_exec,
};
