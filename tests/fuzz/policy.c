/*
 * policy.c - fuzz target: a policy file as gq serve reads one from its
 * repository (policy_defaults, pfile_parse_text through libgit2's config
 * parser, pfile_validate_text), the way pfile_load_file does.
 *
 * pfile_parse_text writes the text to a temporary file for libgit2; the
 * target gives it a private TMPDIR and checks after every input that the
 * file is gone. Invariants (file.h, codec.h): an error names the file; a
 * policy that validates goes over the wire (codec_policy_encode) and
 * decodes back to the same policy.
 */
#include "fuzz.h"

#include <dirent.h>
#include <unistd.h>

#include "wire/codec.h"
#include "policy/file.h"

static char tmpdir[1024];

static void remove_tmpdir(void)
{
	rmdir(tmpdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tmpdir(tmpdir, sizeof(tmpdir), "policy");
	setenv("TMPDIR", tmpdir, 1);
	atexit(remove_tmpdir);
	return 0;
}

static void check_no_tmp_file(void)
{
	DIR *d = opendir(tmpdir);
	FUZZ_CHECK(d != NULL, "TMPDIR '%s' is gone", tmpdir);
	struct dirent *de;
	while ((de = readdir(d)))
		FUZZ_CHECK(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."),
			   "'%s/%s' was left behind", tmpdir, de->d_name);
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct policy *p = xmalloc(sizeof(*p)), *back = xmalloc(sizeof(*p));
	policy_defaults(p);
	struct gq_err e = GQ_ERR_INIT;
	int rc = pfile_parse_text(p, text, size, "policy.conf", &e);
	if (rc == 0)
		rc = pfile_validate_text(p, text, "policy.conf", &e);
	check_no_tmp_file();
	if (rc < 0) {
		FUZZ_CHECK(!strncmp(e.msg, "policy.conf", 11),
			   "the error does not name the file: %s", e.msg);
		goto out;
	}
	char *wire = fuzz_text(codec_policy_encode(p));
	json_t *v = NULL;
	FUZZ_CHECK(codec_parse(wire, strlen(wire), &v, &e) == 0 &&
		       codec_policy_decode(v, back, &e) == 0,
		   "the policy's wire form does not decode: %s\n%.300s", e.msg, wire);
	json_decref(v);
	char *again = fuzz_text(codec_policy_encode(back));
	FUZZ_SAME_TEXT(wire, again, "policy wire text");
	free(again);
	free(wire);
out:
	free(back);
	free(p);
	free(text);
	return 0;
}
