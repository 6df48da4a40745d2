/*
 * jobtext.c - fuzz target: codec_job_from_text, how gq serve reads the jobs
 * of its journal back at start.
 *
 * Invariants (codec.h): a job that decodes has no non-finite number; its
 * journal text (codec_job_text) and its lean form (codec_job_write_lean)
 * both decode back to the same job, which writes the same text again.
 */
#include "fuzz.h"

#include "wire/codec.h"

static void check_back(const char *text, const char *want, const char *what)
{
	struct job j;
	struct gq_err e = GQ_ERR_INIT;
	FUZZ_CHECK(codec_job_from_text(text, &j, &e) == 0, "%s does not decode: %s\n%.300s", what,
		   e.msg, text);
	char *again = codec_job_text(&j);
	FUZZ_SAME_TEXT(want, again, what);
	free(again);
	job_release(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct job j;
	struct gq_err e = GQ_ERR_INIT;
	if (codec_job_from_text(text, &j, &e) < 0) {
		FUZZ_CHECK(e.code != GQ_OK && e.msg[0], "an error without a message");
		free(text);
		return 0;
	}
	FUZZ_FINITE(j.hist_ratio, "job.hist_ratio");
	char *full = codec_job_text(&j);
	check_back(full, full, "journal text");
	struct buf b;
	buf_init(&b, 0);
	codec_job_write_lean(&b, &j);
	check_back(b.data, full, "lean text");
	buf_release(&b);
	free(full);
	free(text);
	job_release(&j);
	return 0;
}
