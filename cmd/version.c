/*
 * version.c - `gq version`: the client's version and the libraries it uses,
 * and with a backend other than gq serve (Slurm) which cluster, Slurm and
 * API version it talks to.
 */
#include "cmd.h"

#include <curl/curl.h>
#include <git2.h>
#include <microhttpd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/config.h"
#include "wire/wire.h"

static int version_exec(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'}, {0, 0, 0, 0}};
	int json = 0, o;
	while ((o = cmd_getopt(&cmd_version, argc, argv, "", lo)) != -1) {
		if (o == 'j')
			json = 1;
		else
			return cmd_opt_exit(o);
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_version, "unknown argument '%s'", argv[optind]);
	int maj, min, rev;
	git_libgit2_version(&maj, &min, &rev);
	if (json) {
		printf("{\"version\":\"%s\",\"libcurl\":\"%s\",\"jansson\":\"%s\","
		       "\"libgit2\":\"%d.%d.%d\",\"libmicrohttpd\":\"%s\",\"sqlite\":\"%s\"}\n",
		       GQ_VERSION, curl_version_info(CURLVERSION_NOW)->version,
		       wire_json_library_version(), maj, min, rev, MHD_get_version(),
		       sqlite3_libversion());
	} else {
		printf("gq %s\n", GQ_VERSION);
		printf("libcurl %s, jansson %s, libgit2 %d.%d.%d, libmicrohttpd %s, sqlite %s\n",
		       curl_version_info(CURLVERSION_NOW)->version, wire_json_library_version(),
		       maj, min, rev, MHD_get_version(), sqlite3_libversion());
		/* Another backend than gq serve: which cluster, which versions. */
		struct gq_config cfg;
		struct gq_err e = GQ_ERR_INIT;
		if (config_load(&cfg, &e) == 0 && strcmp(cfg.backend, "native")) {
			int rc;
			struct backend *b = cmd_backend(false, &rc);
			if (!b)
				return rc;
			rc = EXIT_OK;
			if (b->ops->ping(b, &e) < 0)
				rc = cmd_fail(&e);
			else
				printf("backend: %s\n", b->ops->describe(b));
			backend_close(b);
			return rc;
		}
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_version = {
    .name = "version",
    .usage = "[--json]",
    .summary = "print the version of gq and of the libraries it uses",
    .flags = 0,
    .exec = version_exec,
};
