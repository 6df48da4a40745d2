/*
 * outpat.c - sbatch's -o/-e filename patterns (outpat.h).
 */
#include "outpat.h"

#include <stdio.h>
#include <string.h>

static int expand(const char *pattern, const struct job *j, struct buf *b, struct gq_err *e)
{
	if (!pattern[0])
		return err_set(e, GQ_EINVAL,
			       "empty file name pattern; give a file like 'out-%%j.log'");
	if (strlen(pattern) >= OUTPAT_MAX)
		return err_set(e, GQ_EINVAL, "file name pattern over %d bytes", OUTPAT_MAX - 1);
	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			buf_add(b, p, 1);
			continue;
		}
		const char *start = p++;
		int width = 0;
		if (*p >= '0' && *p <= '9')
			width = *p++ - '0';
		long long n = -1;
		const char *s = NULL;
		switch (*p) {
		case '%':
			s = "%";
			break;
		case 'j':
			n = j ? j->id : 0;
			break;
		case 'A':
			n = j ? (j->array_id ? j->array_id : j->id) : 0;
			break;
		case 'a':
			n = j && j->array_id ? j->array_task : 0;
			break;
		case 'x':
			s = j ? j->name : "";
			break;
		case 'u':
			s = j ? j->user : "";
			break;
		default:
			return err_set(
			    e, GQ_EINVAL,
			    "unknown pattern '%.*s' in '%s'; use %%j, %%A, %%a, %%x, %%u "
			    "or %%%%",
			    *p ? (int)(p - start + 1) : (int)(p - start), start, pattern);
		}
		if (s) /* a '/' of a name would lead out of the directory */
			for (; *s; s++)
				buf_add(b, *p == 'x' && *s == '/' ? "_" : s, 1);
		else
			buf_printf(b, "%0*lld", width, n);
	}
	return 0;
}

int outpat_check(const char *pattern, struct gq_err *e)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = expand(pattern, NULL, &b, e);
	buf_release(&b);
	return rc;
}

int outpat_expand(const char *pattern, const struct job *j, char *out, size_t size,
		  struct gq_err *e)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = expand(pattern, j, &b, e);
	if (rc == 0 && b.len >= size)
		rc = err_set(e, GQ_EINVAL, "file name from '%s' is too long", pattern);
	if (rc == 0)
		memcpy(out, b.data ? b.data : "", b.len + 1);
	buf_release(&b);
	return rc;
}
