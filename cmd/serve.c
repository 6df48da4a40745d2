/*
 * serve.c - `gq serve`: the embedded single-machine scheduler, in the
 * foreground. Parses the command line into a struct server_config and
 * hands over to server_run(); see gq-serve(8).
 */
#include "cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/config.h"
#include "server/front.h"
#include "server/server.h"

static const char *arg_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], name)) {
		if (*i + 1 >= argc)
			return NULL;
		return argv[++*i];
	}
	return NULL;
}

static bool is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strcmp(arg, name) || (!strncmp(arg, name, n) && arg[n] == '=');
}

/* The client's state_dir, where it starts its own server; NULL with e when
 * there is no home to put it in. */
static char *default_state_dir(struct gq_err *e)
{
	char d[GQ_PATH_MAX];
	return state_dir(d, sizeof(d), false, e) < 0 ? NULL : xstrdup(d);
}

/* The exit status of a server that ran (rc 0) or could not (-1 with e,
 * logged): e's code's, never EXIT_OK. */
static int run_exit(int rc, const struct gq_err *e)
{
	if (rc == 0)
		return EXIT_OK;
	log_error("%s", e->msg);
	int x = cmd_exit_code(e->code);
	return x == EXIT_OK ? EXIT_FAIL : x;
}

static int serve_exec(int argc, char **argv)
{
	/* Whatever the server creates is its own unless it says otherwise
	 * (gq-serve(8), SECURITY); a job gets 022 back. */
	umask(077);
	struct server_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.gpus = -1;
	cfg.gpu_mem_mb = -1;
	cfg.cpus = -1;
	cfg.mem_mb = -1;
	cfg.log_level = LV_INFO;
	char **listen = xcalloc((size_t)argc + 1, sizeof(*listen));
	char *state = NULL, *sock = NULL;
	const char *slurm = NULL, *slurm_token = NULL;
	struct gq_err e = GQ_ERR_INIT;
	int rc = EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			rc = cmd_print_usage(&cmd_serve);
			goto out;
		} else if (!strcmp(a, "--manual-clock")) {
			cfg.manual_clock = true;
		} else if (is_opt(a, "--listen")) {
			if (!(v = arg_value(argc, argv, &i, "--listen")))
				goto missing;
			if (strncmp(v, "unix:", 5) != 0 && !strchr(v, ':')) {
				rc = cmd_usage_error(
				    &cmd_serve, "--listen '%s': expected unix:PATH or HOST:PORT",
				    v);
				goto out;
			}
			listen[cfg.nlisten++] = (char *)(uintptr_t)v;
		} else if (is_opt(a, "--slurm")) {
			if (!(v = arg_value(argc, argv, &i, "--slurm")))
				goto missing;
			if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) {
				rc = cmd_usage_error(&cmd_serve,
						     "--slurm '%s': expected slurmrestd's URL, "
						     "http://HOST:PORT or https://HOST:PORT",
						     v);
				goto out;
			}
			slurm = v;
		} else if (is_opt(a, "--slurm-token-file")) {
			if (!(v = arg_value(argc, argv, &i, "--slurm-token-file")))
				goto missing;
			slurm_token = v;
		} else if (is_opt(a, "--metrics-listen")) {
			if (!(v = arg_value(argc, argv, &i, "--metrics-listen")))
				goto missing;
			if (strncmp(v, "unix:", 5) != 0 && !strchr(v, ':')) {
				rc = cmd_usage_error(
				    &cmd_serve,
				    "--metrics-listen '%s': expected unix:PATH or HOST:PORT", v);
				goto out;
			}
			cfg.metrics_listen = v;
		} else if (is_opt(a, "--keep-finished")) {
			if (!(v = arg_value(argc, argv, &i, "--keep-finished")))
				goto missing;
			if (dur_parse(v, &cfg.keep_finished, &e) < 0 || cfg.keep_finished < 86400) {
				rc = cmd_usage_error(
				    &cmd_serve, "--keep-finished '%s': %s", v,
				    e.msg[0] ? e.msg
					     : "at least 1d (clients see the last day's jobs)");
				goto out;
			}
		} else if (is_opt(a, "--state-dir")) {
			if (!(v = arg_value(argc, argv, &i, "--state-dir")))
				goto missing;
			cfg.state_dir = v;
		} else if (is_opt(a, "--gpus")) {
			int64_t n;
			if (!(v = arg_value(argc, argv, &i, "--gpus")))
				goto missing;
			if (parse_int64(v, 1, GQ_MAX_NODE_GPUS, &n, &e) < 0) {
				rc = cmd_usage_error(&cmd_serve, "--gpus: %s", e.msg);
				goto out;
			}
			cfg.gpus = (int)n;
		} else if (is_opt(a, "--gpu-model")) {
			if (!(v = arg_value(argc, argv, &i, "--gpu-model")))
				goto missing;
			cfg.gpu_model = v;
		} else if (is_opt(a, "--gpu-mem")) {
			if (!(v = arg_value(argc, argv, &i, "--gpu-mem")))
				goto missing;
			if (parse_size_mb(v, &cfg.gpu_mem_mb, &e) < 0) {
				rc = cmd_usage_error(&cmd_serve, "--gpu-mem: %s", e.msg);
				goto out;
			}
			if (cfg.gpu_mem_mb <= 0) {
				rc =
				    cmd_usage_error(&cmd_serve,
						    "--gpu-mem: '%s' is no memory; give one GPU's, "
						    "such as 80G",
						    v);
				goto out;
			}
		} else if (is_opt(a, "--cpus")) {
			int64_t n;
			if (!(v = arg_value(argc, argv, &i, "--cpus")))
				goto missing;
			if (parse_int64(v, 1, GQ_MAX_REQ_CPUS, &n, &e) < 0) {
				rc = cmd_usage_error(&cmd_serve, "--cpus: %s", e.msg);
				goto out;
			}
			cfg.cpus = (int)n;
		} else if (is_opt(a, "--mem")) {
			if (!(v = arg_value(argc, argv, &i, "--mem")))
				goto missing;
			if (parse_size_mb(v, &cfg.mem_mb, &e) < 0 || cfg.mem_mb < 1 ||
			    cfg.mem_mb > GQ_MAX_REQ_MEM_MB) {
				rc = cmd_usage_error(&cmd_serve, "--mem: %s",
						     e.msg[0] ? e.msg
							      : "use a size from 1M to 1048576T");
				goto out;
			}
		} else if (is_opt(a, "--tokens")) {
			if (!(v = arg_value(argc, argv, &i, "--tokens")))
				goto missing;
			cfg.tokens_file = v;
		} else if (is_opt(a, "--admin-group")) {
			if (!(v = arg_value(argc, argv, &i, "--admin-group")))
				goto missing;
			cfg.admin_groups = v;
		} else if (is_opt(a, "--policy-repo")) {
			if (!(v = arg_value(argc, argv, &i, "--policy-repo")))
				goto missing;
			cfg.policy = v;
		} else if (is_opt(a, "--log-level")) {
			if (!(v = arg_value(argc, argv, &i, "--log-level")))
				goto missing;
			if (log_level_parse(v, &cfg.log_level) < 0) {
				rc = cmd_usage_error(
				    &cmd_serve, "--log-level '%s': use debug, info, warn or error",
				    v);
				goto out;
			}
		} else {
			rc = cmd_usage_error(&cmd_serve, "unknown argument '%s'", a);
			goto out;
		}
		continue;
	missing:
		rc = cmd_usage_error(&cmd_serve, "%s needs a value", a);
		goto out;
	}
	if (slurm && (cfg.metrics_listen || cfg.gpus >= 0 || cfg.gpu_model || cfg.gpu_mem_mb >= 0 ||
		      cfg.cpus >= 0 || cfg.mem_mb >= 0 || cfg.tokens_file || cfg.admin_groups ||
		      cfg.policy || cfg.keep_finished || cfg.manual_clock)) {
		rc = cmd_usage_error(
		    &cmd_serve, "--slurm takes only --listen, --slurm-token-file, --state-dir and "
				"--log-level: the scheduler's options are not for a front");
		goto out;
	}
	if (slurm_token && !slurm) {
		rc = cmd_usage_error(&cmd_serve, "--slurm-token-file needs --slurm URL");
		goto out;
	}
	/* Over TCP a front's callers send their own Slurm token. */
	for (int i = 0; !slurm && i < cfg.nlisten; i++)
		if (strncmp(listen[i], "unix:", 5) != 0 && !cfg.tokens_file) {
			rc = cmd_usage_error(
			    &cmd_serve,
			    "--listen '%s' is TCP: give --tokens FILE so that callers "
			    "can be identified",
			    listen[i]);
			goto out;
		}
	if (cfg.nlisten == 0) {
		/* The clients' default (config.h): a directory of ours alone. */
		char path[GQ_PATH_MAX];
		struct gq_err de = GQ_ERR_INIT;
		if (default_socket(path, sizeof(path), true, &de) < 0) {
			rc = run_exit(-1, &de);
			goto out;
		}
		sock = xasprintf("unix:%s", path);
		listen[cfg.nlisten++] = sock;
	}
	cfg.listen = listen;
	if (slurm) {
		log_set_level(cfg.log_level);
		/* Beside gq serve's own: both may run, each with its journal. */
		if (!cfg.state_dir) {
			char *d = default_state_dir(&e);
			if (!d) {
				rc = run_exit(-1, &e);
				goto out;
			}
			cfg.state_dir = state = xasprintf("%s-slurm", d);
			free(d);
		}
		struct front_config fc = {
		    .listen = listen,
		    .nlisten = cfg.nlisten,
		    .url = slurm,
		    .token_file = slurm_token,
		    .state_dir = cfg.state_dir,
		};
		rc = run_exit(front_run(&fc, &e), &e);
		goto out;
	}
	if (!cfg.state_dir && !(cfg.state_dir = state = default_state_dir(&e))) {
		rc = run_exit(-1, &e);
		goto out;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		fprintf(stderr, "gq serve: cannot find its own binary (/proc/self/exe)\n");
		rc = EXIT_FAIL;
		goto out;
	}
	/* Supervisors are started from the server's own binary, not from the
	 * file at its path: a gq upgraded or rebuilt there meanwhile (dpkg,
	 * make) would start them from another version, or fail to while it
	 * is written. */
	cfg.exe = "/proc/self/exe";
	log_set_level(cfg.log_level);
	int64_t log_max = 10 << 20;
	const char *lm = getenv("GQ_SERVE_LOG_MAX");
	if (lm && lm[0] && parse_int64(lm, 0, INT64_MAX / 4, &log_max, &e) < 0) {
		rc = cmd_usage_error(&cmd_serve, "GQ_SERVE_LOG_MAX '%s': %s (bytes; 0 for no cap)",
				     lm, e.msg);
		goto out;
	}
	log_set_rotation(log_max);
	rc = run_exit(server_run(&cfg, &e), &e);
out:
	free(listen);
	free(state);
	free(sock);
	return rc;
}

const struct cmd_entry cmd_serve = {
    .name = "serve",
    .usage = "[--slurm URL [--slurm-token-file FILE]] [--listen ADDR]... [--metrics-listen ADDR] "
	     "[--state-dir DIR] [--gpus N] [--gpu-model "
	     "NAME] [--gpu-mem SIZE] "
	     "[--cpus N] [--mem SIZE] [--tokens FILE] [--admin-group GROUP] [--policy-repo REPO] "
	     "[--keep-finished DURATION] [--manual-clock] "
	     "[--log-level LEVEL]",
    .summary = "run the single-machine scheduler in the foreground",
    .flags = 0,
    .exec = serve_exec,
};
