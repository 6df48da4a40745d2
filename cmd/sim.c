/*
 * sim.c - `gq sim --trace FILE`: replays a workload trace through the
 * scheduler gq serve runs (replay/replay.h) and prints what came out: waits
 * per tier and queue, a histogram of waits, and how accurate the start
 * predictions gq would have shown at each submit were. Under one policy or
 * two side by side (--against). Reading the file (zlib: .gz or plain) and
 * the policy is here; the replay itself is pure.
 */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "backend/config.h"
#include "policy/file.h"
#include "policy/repo.h"
#include "replay/replay.h"
#include "wire/sim.h"

#define TRACE_FILE_MAX ((size_t)2 << 30) /* 2 GiB of text */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* The whole file, inflated when it is gzip (gzread reads plain files as
 * they are). */
static char *read_trace(const char *path, size_t *len, struct gq_err *e)
{
	gzFile f = gzopen(path, "rb");
	if (!f) {
		err_set(e, GQ_EIO, "cannot open trace '%s': no such file or not readable", path);
		return NULL;
	}
	gzbuffer(f, 1 << 20);
	struct buf b;
	buf_init(&b, TRACE_FILE_MAX);
	char chunk[1 << 16];
	int n;
	while ((n = gzread(f, chunk, sizeof(chunk))) > 0)
		if (buf_add(&b, chunk, (size_t)n) < 0) {
			err_set(e, GQ_ETOOBIG, "trace '%s': over 2 GiB of text", path);
			goto fail;
		}
	if (n < 0) {
		int zerr;
		const char *msg = gzerror(f, &zerr);
		err_set(e, GQ_EIO, "trace '%s': %s", path, msg ? msg : "read error");
		goto fail;
	}
	gzclose(f);
	*len = b.len;
	return b.data ? buf_detach(&b) : xstrdup("");
fail:
	gzclose(f);
	buf_release(&b);
	return NULL;
}

/* A policy file, else a revision of the policy repository. */
static int load_policy(const char *spec, struct policy *out, struct gq_err *e)
{
	struct stat sb;
	if (stat(spec, &sb) == 0 && S_ISREG(sb.st_mode))
		return pfile_load_file(spec, out, e);
	char *path = config_policy_repo(e);
	struct policy_repo *r = path ? repo_open(path, e) : NULL;
	free(path);
	if (!r) {
		err_prefix(e, "'%s' is no policy file, and as a revision", spec);
		return -1;
	}
	int rc = repo_load(r, spec, out, e);
	repo_free(r);
	return rc;
}

static void progress(void *arg, size_t done, size_t total)
{
	(void)arg;
	if (done >= total)
		fprintf(stderr, "\r%40s\r", "");
	else
		fprintf(stderr, "\rgq sim: %zu of %zu jobs submitted", done, total);
}

static char *commas(int64_t v, char *out, size_t size)
{
	char d[32];
	int n = snprintf(d, sizeof(d), "%lld", (long long)(v < 0 ? -v : v)), o = 0;
	if (v < 0 && o + 1 < (int)size)
		out[o++] = '-';
	for (int i = 0; i < n && o + 2 < (int)size; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = d[i];
	}
	out[o] = 0;
	return out;
}

static char *dur(int64_t s, char *out, size_t size)
{
	return dur_format(s, out, size);
}

static void print_groups(const struct replay_result *r)
{
	char a[32], b[32], c[32], d[32];
	printf("%-16s %7s %9s %9s %9s %10s %9s %9s %10s %5s\n", "", "jobs", "P50 wait", "P95 wait",
	       "max wait", "over limit", "overtakes", "preempted", "work lost", "util");
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct replay_group *g = &r->groups[i];
		char n[32], o[32], lost[32];
		printf("%-16s %7s %9s %9s %9s %10zu %9s %9zu %10s %4.0f%%\n", g->name,
		       commas((int64_t)g->jobs, n, sizeof(n)), dur(g->p50, a, sizeof(a)),
		       dur(g->p95, b, sizeof(b)), dur(g->max, c, sizeof(c)), g->over_limit,
		       commas((int64_t)g->overtakes, o, sizeof(o)), g->preemptions,
		       g->lost ? dur(g->lost, lost, sizeof(lost)) : "0", 100 * g->utilisation);
		(void)d;
	}
}

static void print_histogram(const struct replay_result *r)
{
	size_t max = 1, total = 0;
	for (int b = 0; b < REPLAY_HIST_BINS; b++) {
		max = r->hist[b] > max ? r->hist[b] : max;
		total += r->hist[b];
	}
	printf("\nwaits (all jobs)\n");
	for (int b = 0; b < REPLAY_HIST_BINS; b++) {
		int w = (int)((double)r->hist[b] * 40 / (double)max + 0.5);
		char n[32];
		printf("  %-5s %-40.*s %7s %3.0f%%\n", replay_hist_label(b), w,
		       "########################################",
		       commas((int64_t)r->hist[b], n, sizeof(n)),
		       total ? 100.0 * (double)r->hist[b] / (double)total : 0.0);
	}
}

static void print_acc_line(const char *name, const struct replay_acc *x, const struct replay_acc *y)
{
	char a[32], b[32], c[32], d[32];
	printf("  %-8s %7zu %8s %8s %4.0f%% %5.0f%% %4.0f%%  | %8s %8s %4.0f%% %5.0f%% %4.0f%%\n",
	       name, x->n, dur(x->median, a, sizeof(a)),
	       dur((int64_t)(x->mean + 0.5), b, sizeof(b)), 100 * x->within_1m, 100 * x->within_10m,
	       100 * x->within_x2, dur(y->median, c, sizeof(c)),
	       dur((int64_t)(y->mean + 0.5), d, sizeof(d)), 100 * y->within_1m, 100 * y->within_10m,
	       100 * y->within_x2);
}

static void print_accuracy(const struct replay_result *r)
{
	static const char *const cls[CLASS_COUNT] = {
	    "all jobs", "jobs that started at once (< 1 min)", "jobs that waited"};
	printf("\nprediction accuracy at submit: absolute error of the predicted start\n");
	printf("  %-8s %7s %8s %8s %5s %6s %5s  | %-36s\n", "", "", "against", "gq's replay", "",
	       "", "", "against the log's starts");
	printf("  %-8s %7s %8s %8s %5s %6s %5s  | %8s %8s %5s %6s %5s\n", "", "jobs", "median",
	       "mean", "<=1m", "<=10m", "x2", "median", "mean", "<=1m", "<=10m", "x2");
	static const int order[] = {CLASS_WAITED, CLASS_AT_ONCE, CLASS_ALL};
	for (int k = 0; k < 3; k++) {
		int c = order[k];
		printf(" %s\n", cls[c]);
		for (int p = 0; p < PRED_COUNT; p++)
			print_acc_line(replay_predictor_name((enum replay_predictor)p),
				       &r->acc[p][REF_REPLAY][c], &r->acc[p][REF_TRACE][c]);
	}
	const struct replay_acc *h = &r->acc[PRED_HISTORY][REF_REPLAY][CLASS_ALL],
				*ht = &r->acc[PRED_HISTORY][REF_TRACE][CLASS_ALL],
				*hw = &r->acc[PRED_HISTORY][REF_REPLAY][CLASS_WAITED];
	printf("  the start was inside the range gq showed: %.0f%% of jobs (%.0f%% of those that "
	       "waited; the log's start: %.0f%%)\n",
	       100 * h->in_range, 100 * hw->in_range, 100 * ht->in_range);
}

static void print_diff(const struct replay_result *a, const struct replay_result *b, const char *pa,
		       const char *pb)
{
	printf("\ndifferences, %s minus %s\n", pb, pa);
	printf("%-16s %9s %9s %9s %10s %9s %6s\n", "", "P50 wait", "P95 wait", "max wait",
	       "over limit", "overtakes", "util");
	for (size_t i = 0; i < b->ngroups; i++) {
		const struct replay_group *g = &b->groups[i], *h = NULL;
		for (size_t k = 0; k < a->ngroups; k++)
			if (!strcmp(a->groups[k].name, g->name))
				h = &a->groups[k];
		if (!h)
			continue;
		char x[32], y[32], z[32];
		printf("%-16s %9s %9s %9s %+10lld %+9lld %+5.1f%%\n", g->name,
		       dur(g->p50 - h->p50, x, sizeof(x)), dur(g->p95 - h->p95, y, sizeof(y)),
		       dur(g->max - h->max, z, sizeof(z)),
		       (long long)g->over_limit - (long long)h->over_limit,
		       (long long)g->overtakes - (long long)h->overtakes,
		       100 * (g->utilisation - h->utilisation));
	}
	const struct replay_acc *x = &a->acc[PRED_HISTORY][REF_REPLAY][CLASS_WAITED],
				*y = &b->acc[PRED_HISTORY][REF_REPLAY][CLASS_WAITED];
	if (x->n || y->n) {
		char m[32];
		printf("history prediction, jobs that waited: median error %s, in range %+.0f "
		       "points\n",
		       dur(y->median - x->median, m, sizeof(m)), 100 * (y->in_range - x->in_range));
	}
}

static int sim_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_sim;
	enum { O_TRACE = 1, O_POLICY, O_AGAINST, O_NODES, O_GPN, O_TIER, O_NOACC };
	static const struct option lo[] = {{"trace", required_argument, NULL, O_TRACE},
					   {"policy", required_argument, NULL, O_POLICY},
					   {"against", required_argument, NULL, O_AGAINST},
					   {"nodes", required_argument, NULL, O_NODES},
					   {"gpus-per-node", required_argument, NULL, O_GPN},
					   {"tier", required_argument, NULL, O_TIER},
					   {"no-accuracy", no_argument, NULL, O_NOACC},
					   {"json", no_argument, NULL, 'j'},
					   {0, 0, 0, 0}};
	const char *trace = NULL, *pspec[2] = {NULL, NULL};
	int64_t nodes = 0, gpn = 0;
	enum tier tier = TIER_P1;
	bool json = false, accuracy = true;
	struct gq_err e = GQ_ERR_INIT;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		switch (o) {
		case O_TRACE:
			trace = optarg;
			break;
		case O_POLICY:
			pspec[0] = optarg;
			break;
		case O_AGAINST:
			pspec[1] = optarg;
			break;
		case O_NODES:
			if (parse_int64(optarg, 1, 100000, &nodes, &e) < 0)
				return cmd_usage_error(c, "--nodes: %s", e.msg);
			break;
		case O_GPN:
			if (parse_int64(optarg, 1, GQ_MAX_NODE_GPUS, &gpn, &e) < 0)
				return cmd_usage_error(c, "--gpus-per-node: %s", e.msg);
			break;
		case O_TIER:
			if (tier_parse(optarg, &tier, &e) < 0)
				return cmd_usage_error(c, "--tier: %s", e.msg);
			break;
		case O_NOACC:
			accuracy = false;
			break;
		case 'j':
			json = true;
			break;
		default:
			return cmd_opt_exit(o);
		}
	}
	if (optind < argc)
		return cmd_usage_error(c, "unknown argument '%s'", argv[optind]);
	if (!trace)
		return cmd_usage_error(c, "--trace FILE is required");
	if ((nodes > 0) != (gpn > 0))
		return cmd_usage_error(c, "--nodes and --gpus-per-node go together");

	struct replay_opts opts[2];
	for (int k = 0; k < 2; k++) {
		replay_opts_init(&opts[k]);
		opts[k].tier = tier;
		opts[k].accuracy = accuracy;
		if (pspec[k] && load_policy(pspec[k], &opts[k].policy, &e) < 0)
			return cmd_fail(&e);
		/* A trace without tiers has no P0 to hold capacity for. */
		if (!pspec[k])
			opts[k].policy.headroom = 0;
	}
	size_t len;
	char *text = read_trace(trace, &len, &e);
	if (!text)
		return cmd_fail(&e);
	struct trace t;
	trace_init(&t);
	bool swf = ends_with(trace, ".swf") || ends_with(trace, ".swf.gz");
	int rc = swf ? trace_parse_swf(&t, text, len, trace, &e)
		     : trace_parse_csv(&t, text, len, trace, &e);
	free(text);
	if (rc < 0) {
		trace_release(&t);
		return cmd_fail(&e);
	}
	int n = (int)nodes, g = (int)gpn;
	int units = t.machine ? t.machine : t.max_units;
	if (!n && replay_machine(units, &n, &g, &e) < 0) {
		trace_release(&t);
		return cmd_fail(&e);
	}
	int nruns = pspec[1] ? 2 : 1;
	struct replay_result res[2];
	memset(res, 0, sizeof(res));
	for (int k = 0; k < nruns; k++) {
		opts[k].nodes = n;
		opts[k].gpus_per_node = g;
		if (isatty(STDERR_FILENO) && t.n > 20000) {
			opts[k].progress = progress;
		}
		if (replay_run(&t, &opts[k], &res[k], &e) < 0) {
			trace_release(&t);
			return cmd_fail(&e);
		}
	}
	const char *pname[2];
	for (int k = 0; k < 2; k++)
		pname[k] = pspec[k] ? pspec[k] : "built-in";
	if (json) {
		struct sim_run runs[2] = {{pname[0], &res[0]}, {pname[1], &res[1]}};
		jout_sim(trace, t.n, runs, nruns);
	} else {
		const struct replay_result *r = &res[0];
		char a[32], b[32];
		printf("trace %s: %s jobs, %s replayed", trace, commas((int64_t)t.n, a, sizeof(a)),
		       commas((int64_t)r->njobs, b, sizeof(b)));
		if (r->skipped_never)
			printf(", %zu never started in the log", r->skipped_never);
		if (r->skipped_too_wide)
			printf(", %zu wider than the machine", r->skipped_too_wide);
		if (r->capped_at_limit)
			printf(", %zu ran past their limit and are cut at it", r->capped_at_limit);
		printf("\nmachine: %d units as %d node%s x %d", n * g, n, n == 1 ? "" : "s", g);
		if (!nodes)
			printf(" (from the trace: %s %d; a job spans at most %d nodes)",
			       t.machine ? "its size" : "its widest job", units, REPLAY_MAX_NODES);
		printf("; utilisation %.0f%% (in the log: %.0f%%)\n", 100 * r->utilisation,
		       100 * r->trace_utilisation);
		for (int k = 0; k < nruns; k++) {
			printf("%spolicy %s%s; jobs without a tier are %s\n", k ? "\n" : "",
			       pname[k], pspec[k] ? "" : " (headroom.share 0)", tier_name(tier));
			print_groups(&res[k]);
		}
		if (nruns == 2)
			print_diff(&res[0], &res[1], pname[0], pname[1]);
		for (int k = 0; k < nruns; k++) {
			if (nruns == 2)
				printf("\npolicy %s:", pname[k]);
			print_histogram(&res[k]);
			if (accuracy)
				print_accuracy(&res[k]);
		}
	}
	for (int k = 0; k < nruns; k++)
		replay_result_release(&res[k]);
	trace_release(&t);
	return EXIT_OK;
}

const struct cmd_entry cmd_sim = {
    .name = "sim",
    .usage = "--trace FILE [--policy FILE|REV] [--against FILE|REV] [--nodes N "
	     "--gpus-per-node G] [--tier T] [--no-accuracy] [--json]",
    .summary = "replay a workload trace through gq's scheduler and measure its predictions",
    .flags = 0,
    .exec = sim_exec,
};
