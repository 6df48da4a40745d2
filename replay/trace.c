/*
 * trace.c - the CSV and SWF readers of trace.h. Line by line, fields split
 * in place on a copy of each line; numbers through core/util.h's checked
 * parsers, so that "12x" or an overflow is an error with its line number.
 */
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"

#define MAX_FIELDS 64
#define LINE_MAX_LEN 4096

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
}

void trace_release(struct trace *t)
{
	free(t->jobs);
	trace_init(t);
}

static struct trace_job *add_job(struct trace *t)
{
	GROW(t->jobs, t->cap, t->n + 1);
	struct trace_job *j = &t->jobs[t->n++];
	memset(j, 0, sizeof(*j));
	j->start = j->end = -1;
	j->tier = -1;
	return j;
}

/* Next line of text from *pos: copied into line (NUL-terminated, no '\r' or
 * '\n'); false at the end. A line too long is cut, and *toolong set. */
static bool next_line(const char *text, size_t len, size_t *pos, char *line, bool *toolong)
{
	if (*pos >= len)
		return false;
	const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	if (n && s[n - 1] == '\r')
		n--;
	*toolong = n >= LINE_MAX_LEN;
	if (*toolong)
		n = LINE_MAX_LEN - 1;
	memcpy(line, s, n);
	line[n] = 0;
	return true;
}

static int split(char *line, char sep, char **f)
{
	int n = 0;
	char *p = line;
	if (sep == ',') {
		for (;;) {
			if (n == MAX_FIELDS)
				return n + 1;
			f[n++] = p;
			char *c = strchr(p, ',');
			if (!c)
				break;
			*c = 0;
			p = c + 1;
		}
		return n;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == MAX_FIELDS)
			return n + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
}

static int line_err(struct gq_err *e, const char *shown, int line, const char *fmt, ...)
    GQ_PRINTF(4, 5);
static int line_err(struct gq_err *e, const char *shown, int line, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(e, GQ_EINVAL, "%s:%d: %s", shown, line, what);
}

/* A time or duration field: "" is unknown (-1) when empty_ok. */
static int num_field(const char *s, int64_t min, int64_t *out, bool empty_ok)
{
	if (!*s && empty_ok) {
		*out = -1;
		return 0;
	}
	struct gq_err e = GQ_ERR_INIT;
	return parse_int64(s, min, GQ_DUR_MAX, out, &e);
}

static bool name_ok(const char *s, size_t size)
{
	return strlen(s) < size;
}

enum col {
	C_ID,
	C_SUBMIT,
	C_START,
	C_END,
	C_GPUS,
	C_USER,
	C_QUEUE,
	C_STATUS,
	C_REQ,
	C_ESTIMATE,
	C_TIER,
	C_CKPT,
	C_NAME,
	C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "job_id", "submit_s", "start_s",  "end_s", "gpus",		 "user", "queue",
    "status", "req_s",	  "estimate", "tier",  "checkpointable", "name"};
#define C_REQUIRED 8

static bool truthy(const char *s)
{
	return !strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "yes");
}

int trace_parse_csv(struct trace *t, const char *text, size_t len, const char *shown,
		    struct gq_err *e)
{
	char *line = xmalloc(LINE_MAX_LEN);
	char *f[MAX_FIELDS + 1];
	int at[C_COUNT], lineno = 0, nf, rc = -1;
	size_t pos = 0;
	bool toolong;
	for (int c = 0; c < C_COUNT; c++)
		at[c] = -1;
	/* The header: the first line that is not empty. */
	for (;;) {
		if (!next_line(text, len, &pos, line, &toolong)) {
			err_set(e, GQ_EINVAL, "%s: empty file: no CSV header", shown);
			goto out;
		}
		lineno++;
		if (*line)
			break;
	}
	nf = split(line, ',', f);
	for (int i = 0; i < nf && i < MAX_FIELDS; i++)
		for (int c = 0; c < C_COUNT; c++)
			if (at[c] < 0 && !strcmp(f[i], col_names[c]))
				at[c] = i;
	for (int c = 0; c < C_REQUIRED; c++)
		if (at[c] < 0) {
			line_err(e, shown, lineno,
				 "no column '%s' in the header (it needs job_id,submit_s,start_s,"
				 "end_s,gpus,user,queue,status)",
				 col_names[c]);
			goto out;
		}
	int need = 0;
	for (int c = 0; c < C_COUNT; c++)
		if (at[c] + 1 > need)
			need = at[c] + 1;
	while (next_line(text, len, &pos, line, &toolong)) {
		lineno++;
		if (!*line)
			continue;
		if (toolong) {
			line_err(e, shown, lineno, "line too long (over 4095 bytes)");
			goto out;
		}
		if (strchr(line, '"')) {
			line_err(e, shown, lineno, "quoted fields are not supported");
			goto out;
		}
		nf = split(line, ',', f);
		if (nf < need || nf > MAX_FIELDS) {
			line_err(e, shown, lineno, "%d fields, the header needs %d", nf, need);
			goto out;
		}
		struct trace_job *j = add_job(t);
		int64_t v;
		if (!name_ok(f[at[C_ID]], sizeof(j->id)) || !*f[at[C_ID]]) {
			t->n--;
			line_err(e, shown, lineno, "job_id: empty or too long: '%s'", f[at[C_ID]]);
			goto out;
		}
		STR_COPY(j->id, f[at[C_ID]]);
		static const enum col times[] = {C_SUBMIT, C_START, C_END};
		int64_t *dst[] = {&j->submit, &j->start, &j->end};
		for (int k = 0; k < 3; k++) {
			const char *s = f[at[times[k]]];
			if (num_field(s, 0, dst[k], times[k] != C_SUBMIT) < 0) {
				t->n--;
				line_err(e, shown, lineno, "%s: not a time in seconds: '%s'",
					 col_names[times[k]], s);
				goto out;
			}
		}
		if ((j->start >= 0 && j->start < j->submit) ||
		    (j->end >= 0 && j->start >= 0 && j->end < j->start) ||
		    (j->end >= 0 && j->start < 0)) {
			t->n--;
			line_err(e, shown, lineno,
				 "times out of order: need submit_s <= start_s <= end_s, and "
				 "end_s only with start_s");
			goto out;
		}
		if (parse_int64(f[at[C_GPUS]], 0, 1000000, &v, NULL) < 0) {
			t->n--;
			line_err(e, shown, lineno, "gpus: not a count: '%s'", f[at[C_GPUS]]);
			goto out;
		}
		j->units = (int)v;
		const enum col names[] = {C_USER, C_QUEUE, C_NAME};
		char *ndst[] = {j->user, j->queue, j->name};
		size_t nsize[] = {sizeof(j->user), sizeof(j->queue), sizeof(j->name)};
		for (int k = 0; k < 3; k++) {
			if (at[names[k]] < 0)
				continue;
			const char *s = f[at[names[k]]];
			if (!name_ok(s, nsize[k])) {
				t->n--;
				line_err(e, shown, lineno, "%s: too long: '%s'",
					 col_names[names[k]], s);
				goto out;
			}
			str_copy(ndst[k], nsize[k], s);
		}
		const char *st = f[at[C_STATUS]];
		j->completed = !strcmp(st, "COMPLETED") || !strcmp(st, "1") ||
			       !strcmp(st, "Succeeded") || !strcmp(st, "completed");
		static const enum col durs[] = {C_REQ, C_ESTIMATE};
		int64_t *ddst[] = {&j->limit, &j->estimate};
		for (int k = 0; k < 2; k++) {
			if (at[durs[k]] < 0)
				continue;
			const char *s = f[at[durs[k]]];
			if (num_field(s, 0, ddst[k], true) < 0) {
				t->n--;
				line_err(e, shown, lineno, "%s: not a duration in seconds: '%s'",
					 col_names[durs[k]], s);
				goto out;
			}
			if (*ddst[k] < 0)
				*ddst[k] = 0;
		}
		if (at[C_TIER] >= 0 && *f[at[C_TIER]]) {
			enum tier tr;
			if (tier_parse(f[at[C_TIER]], &tr, NULL) < 0) {
				t->n--;
				line_err(e, shown, lineno, "tier: not P0, P1 or P2: '%s'",
					 f[at[C_TIER]]);
				goto out;
			}
			j->tier = (int)tr;
		}
		if (at[C_CKPT] >= 0)
			j->checkpointable = truthy(f[at[C_CKPT]]);
		if (j->units > t->max_units)
			t->max_units = j->units;
	}
	rc = 0;
out:
	free(line);
	return rc;
}

/* "; MaxProcs: 100" */
static void swf_header(struct trace *t, const char *line, int *nodes)
{
	const char *p = line + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	int64_t v;
	const char *keys[] = {"MaxProcs:", "MaxNodes:"};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(keys[k]);
		if (strncmp(p, keys[k], n))
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t')
			q++;
		char num[32];
		size_t m = strcspn(q, " \t");
		if (m >= sizeof(num))
			return;
		memcpy(num, q, m);
		num[m] = 0;
		if (parse_int64(num, 1, 1000000, &v, NULL) < 0)
			return;
		if (k == 0)
			t->machine = (int)v;
		else
			*nodes = (int)v;
	}
}

int trace_parse_swf(struct trace *t, const char *text, size_t len, const char *shown,
		    struct gq_err *e)
{
	char *line = xmalloc(LINE_MAX_LEN);
	char *f[MAX_FIELDS + 1];
	int lineno = 0, nodes = 0, rc = -1;
	size_t pos = 0;
	bool toolong;
	while (next_line(text, len, &pos, line, &toolong)) {
		lineno++;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';') {
			swf_header(t, p, &nodes);
			continue;
		}
		if (!*p)
			continue;
		if (toolong) {
			line_err(e, shown, lineno, "line too long (over 4095 bytes)");
			goto out;
		}
		int nf = split(line, ' ', f);
		if (nf != 18) {
			line_err(e, shown, lineno, "%d fields, SWF has 18",
				 nf > MAX_FIELDS ? MAX_FIELDS : nf);
			goto out;
		}
		int64_t v[18];
		for (int i = 0; i < 18; i++) {
			/* Some logs write average CPU time and memory with a fraction. */
			double d;
			if (parse_double(f[i], -1, 1e15, &d, NULL) < 0 ||
			    (d != (double)(int64_t)d && i != 5 && i != 6)) {
				line_err(e, shown, lineno, "field %d: not a number: '%s'", i + 1,
					 f[i]);
				goto out;
			}
			v[i] = (int64_t)d;
		}
		if (v[1] < 0) {
			line_err(e, shown, lineno, "field 2 (submit time) is unknown (-1)");
			goto out;
		}
		struct trace_job *j = add_job(t);
		snprintf(j->id, sizeof(j->id), "%lld", (long long)v[0]);
		j->submit = v[1];
		if (v[2] >= 0) {
			j->start = v[1] + v[2];
			if (v[3] >= 0)
				j->end = j->start + v[3];
		}
		j->units = (int)(v[4] > 0 ? v[4] : v[7] > 0 ? v[7] : 0);
		if (v[4] > 1000000 || v[7] > 1000000) {
			t->n--;
			line_err(e, shown, lineno, "more than 1000000 processors");
			goto out;
		}
		j->limit = v[8] > 0 && v[8] <= GQ_DUR_MAX ? v[8] : 0;
		j->completed = v[10] == 1;
		if (v[11] >= 0)
			snprintf(j->user, sizeof(j->user), "u%lld", (long long)v[11]);
		if (v[13] >= 0)
			snprintf(j->name, sizeof(j->name), "x%lld", (long long)v[13]);
		if (v[14] >= 0)
			snprintf(j->queue, sizeof(j->queue), "q%lld", (long long)v[14]);
		if (j->units > t->max_units)
			t->max_units = j->units;
	}
	if (!t->machine && nodes)
		t->machine = nodes;
	rc = 0;
out:
	free(line);
	return rc;
}
