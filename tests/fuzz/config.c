/*
 * config.c - fuzz target: the client's config file, read by config_load
 * (libgit2's config parser, then gq's checks of each key).
 *
 * The input is written to $XDG_CONFIG_HOME/gq/config in a private
 * directory (removed at exit); no GQ_ variable is set, so the file is all
 * there is. Invariants (config.h): what loads is what the checks allow: a
 * server "unix:/...", "http://..." or "https://...", a backend and a queue that are valid
 * names, a tier that parses; an error names the config file.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/config.h"
#include "core/policy.h"

static char dir[1024], sub[1040], file[1056];

static void remove_dir(void)
{
	unlink(file);
	rmdir(sub);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tmpdir(dir, sizeof(dir), "config");
	snprintf(sub, sizeof(sub), "%s/gq", dir);
	snprintf(file, sizeof(file), "%s/config", sub);
	if (mkdir(sub, 0700) < 0) {
		perror("mkdir");
		exit(1);
	}
	setenv("XDG_CONFIG_HOME", dir, 1);
	setenv("HOME", dir, 1);
	static const char *const vars[] = {"GQ_SERVER", "GQ_BACKEND", "GQ_TOKEN_FILE", "GQ_TIER",
					   "GQ_QUEUE"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	atexit(remove_dir);
	/* config_load initialises and shuts libgit2 down around each file;
	 * one reference held here keeps that to a count, not a teardown per
	 * input (30 inputs a second instead of thousands). */
	git_libgit2_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A new file each time: truncating one makes ext4 flush it on close. */
	unlink(file);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0, "cannot write '%s'", file);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "short write to '%s'", file);
	close(fd);
	struct gq_config c;
	struct gq_err e = GQ_ERR_INIT;
	if (config_load(&c, &e) < 0) {
		FUZZ_CHECK(strstr(e.msg, file) != NULL, "the error does not name the file: %s",
			   e.msg);
		return 0;
	}
	FUZZ_CHECK(!strcmp(c.file, file), "file is '%s'", c.file);
	FUZZ_CHECK(!c.server[0] || !strncmp(c.server, "unix:/", 6) ||
		       !strncmp(c.server, "http://", 7) || !strncmp(c.server, "https://", 8),
		   "server '%s'", c.server);
	FUZZ_CHECK(name_valid(c.backend), "backend '%s'", c.backend);
	FUZZ_CHECK(!c.queue[0] || name_valid(c.queue), "queue '%s'", c.queue);
	enum tier t;
	FUZZ_CHECK(!c.tier[0] || tier_parse(c.tier, &t, NULL) == 0, "tier '%s'", c.tier);
	return 0;
}
