/*
 * version.c - `gq version`: the client's version and the libraries it uses.
 */
#include "cmd.h"

#include <curl/curl.h>
#include <git2.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#ifndef GQ_VERSION
#define GQ_VERSION "0.1.0"
#endif

static int version_exec(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cmd_print_usage(&cmd_version);
		else
			return cmd_usage_error(&cmd_version, "unknown argument '%s'", argv[i]);
	}
	int maj, min, rev;
	git_libgit2_version(&maj, &min, &rev);
	if (json) {
		printf("{\"version\":\"%s\",\"libcurl\":\"%s\",\"jansson\":\"%s\","
		       "\"libgit2\":\"%d.%d.%d\",\"libmicrohttpd\":\"%s\",\"sqlite\":\"%s\"}\n",
		       GQ_VERSION, curl_version_info(CURLVERSION_NOW)->version, jansson_version_str(),
		       maj, min, rev, MHD_get_version(), sqlite3_libversion());
	} else {
		printf("gq %s\n", GQ_VERSION);
		printf("libcurl %s, jansson %s, libgit2 %d.%d.%d, libmicrohttpd %s, sqlite %s\n",
		       curl_version_info(CURLVERSION_NOW)->version, jansson_version_str(), maj, min,
		       rev, MHD_get_version(), sqlite3_libversion());
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
