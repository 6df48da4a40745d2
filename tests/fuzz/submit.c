/*
 * submit.c - fuzz target: a submission body as POST /v1/jobs reads it
 * (codec_parse, codec_submit_decode) and the command the server journals
 * from it (codec_command_text, read back by codec_command_from_text at
 * start).
 *
 * Invariants (codec.h): a submission that decodes has argv or a script,
 * not both; argv has a first word; env is never NULL and each entry is
 * NAME=VALUE. Its journal command decodes back to the same argv, script,
 * cwd and env; the client's encoding of it (codec_submit_encode) decodes
 * back to the same job fields and command.
 */
#include "fuzz.h"

#include "wire/codec.h"

static bool same_strv(char **a, char **b)
{
	if (!a || !b)
		return a == b;
	size_t i = 0;
	for (; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return !a[i] && !b[i];
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_same_command(const struct submission *a, const struct submission *b,
			       const char *what)
{
	FUZZ_CHECK(same_strv(a->argv, b->argv), "%s: argv differs", what);
	FUZZ_CHECK(same_strv(a->env, b->env), "%s: env differs", what);
	FUZZ_CHECK(same_str(a->script, b->script), "%s: script differs", what);
	FUZZ_CHECK(same_str(a->cwd, b->cwd), "%s: cwd differs", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v = NULL;
	struct submission s;
	struct gq_err e = GQ_ERR_INIT;
	if (codec_parse((const char *)data, size, &v, &e) < 0)
		return 0;
	if (codec_submit_decode(v, &s, &e) < 0) {
		FUZZ_CHECK(e.code != GQ_OK && e.msg[0], "an error without a message");
		json_decref(v);
		return 0;
	}
	json_decref(v);
	/* A command, or a script (whose arguments, "args", are kept in argv). */
	FUZZ_CHECK(s.argv || s.script, "neither argv nor script");
	FUZZ_CHECK(s.script || s.argv[0], "an empty argv");
	FUZZ_CHECK(s.env != NULL, "env is NULL");
	for (size_t i = 0; s.env[i]; i++)
		FUZZ_CHECK(s.env[i][0] != '=' && strchr(s.env[i], '='), "env entry '%s'", s.env[i]);
	FUZZ_FINITE(s.job.hist_ratio, "job.hist_ratio");

	/* The journal's command. */
	char *cmd = codec_command_text(s.argv, s.script, s.cwd, s.env);
	struct submission back;
	FUZZ_CHECK(codec_command_from_text(cmd, &back, &e) == 0,
		   "command text does not decode: %s\n%.300s", e.msg, cmd);
	check_same_command(&s, &back, "command text");
	submission_release(&back);
	free(cmd);

	/* The client's encoding of the same request. */
	struct submit_req r = {
	    .job = s.job, .argv = s.argv, .cwd = s.cwd, .env = s.env, .script = s.script};
	char *text = fuzz_text(codec_submit_encode(&r));
	FUZZ_CHECK(codec_parse(text, strlen(text), &v, &e) == 0 &&
		       codec_submit_decode(v, &back, &e) == 0,
		   "submission text does not decode: %s\n%.300s", e.msg, text);
	json_decref(v);
	check_same_command(&s, &back, "submission text");
	char *j1 = codec_job_text(&s.job), *j2 = codec_job_text(&back.job);
	FUZZ_SAME_TEXT(j1, j2, "submitted job");
	free(j1);
	free(j2);
	free(text);
	submission_release(&back);
	submission_release(&s);
	return 0;
}
