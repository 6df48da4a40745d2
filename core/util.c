/*
 * util.c - errors, allocation, strings, buffers and durations shared by every
 * layer. Pure: the only output, on fatal errors, is in fatal.c.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int err_set(struct gq_err *e, enum gq_errcode code, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	e->code = code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void err_prefix(struct gq_err *e, const char *fmt, ...)
{
	if (!e)
		return;
	char ctx[256], old[sizeof(e->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s: %s", ctx, old);
}

static const char *const err_names[] = {
    [GQ_OK] = "ok",
    [GQ_EINVAL] = "invalid",
    [GQ_ENOENT] = "not_found",
    [GQ_EPERM] = "forbidden",
    [GQ_ECONFLICT] = "conflict",
    [GQ_EUNAVAIL] = "unavailable",
    [GQ_EIO] = "io",
    [GQ_ETOOBIG] = "too_big",
    [GQ_EINTERNAL] = "internal",
    [GQ_ENOSPACE] = "no_space",
    [GQ_ELIMIT] = "limit",
};

const char *err_code_name(enum gq_errcode code)
{
	if ((size_t)code >= sizeof(err_names) / sizeof(err_names[0]))
		return "internal";
	return err_names[code];
}

enum gq_errcode err_code_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
		if (name && !strcmp(name, err_names[i]))
			return (enum gq_errcode)i;
	return GQ_EINTERNAL;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void grow_array(void **items, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	*items = xrealloc(*items, ncap * elem);
	*cap = ncap;
}

bool str_copy(char *dst, size_t size, const char *src)
{
	if (!size)
		return false;
	size_t len = strlen(src);
	bool fits = len < size;
	if (!fits)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return fits;
}

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->max = max;
}

void buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b, b->max);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->max && b->len + len > b->max)
		return -1;
	GROW(b->data, b->cap, b->len + len + 1);
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	/* Formats once into the room there is; only a result that does not
	 * fit is formatted a second time, after growing. */
	if (b->cap - b->len < 64)
		GROW(b->data, b->cap, b->len + 64);
	size_t room = b->cap - b->len;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(b->data + b->len, room, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	if (b->max && b->len + (size_t)n > b->max) {
		b->data[b->len] = '\0';
		return -1;
	}
	if ((size_t)n >= room) {
		GROW(b->data, b->cap, b->len + (size_t)n + 1);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
	return 0;
}

int buf_addint(struct buf *b, int64_t v)
{
	char d[24], *e = d + sizeof(d), *q = e;
	uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--q = '-';
	return buf_add(b, q, (size_t)(e - q));
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

char *buf_detach(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");
	buf_init(b, b->max);
	return p;
}

/* Appends the decimal digits of v to p, at least `width` of them. */
static char *put_digits(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *dur_format(int64_t s, char *out, size_t size)
{
	/* By hand: gq ls formats one per row, and snprintf was most of it. */
	char tmp[48], *p = tmp;
	uint64_t v;
	if (s < 0) {
		*p++ = '-';
		v = (uint64_t)(-(s + 1)) + 1;
	} else {
		v = (uint64_t)s;
	}
	uint64_t big, small;
	char a, b;
	if (v < 60) {
		big = v, a = 's', b = 0, small = 0;
	} else if (v < 3600) {
		big = v / 60, a = 'm', b = 0, small = 0;
	} else if (v < 86400) {
		big = v / 3600, a = 'h', b = 'm', small = v % 3600 / 60;
	} else {
		big = v / 86400, a = 'd', b = 'h', small = v % 86400 / 3600;
	}
	p = put_digits(p, big, 1);
	*p++ = a;
	if (b) {
		p = put_digits(p, small, 2);
		*p++ = b;
	}
	*p = '\0';
	if (size)
		str_copy(out, size, tmp);
	return out;
}

int dur_parse(const char *s, int64_t *out, struct gq_err *e)
{
	const int64_t max = GQ_DUR_MAX;
	if (!s || !*s)
		return err_set(e, GQ_EINVAL,
			       "empty duration; use e.g. '90s', '15m', '2h30m' or '1d'");
	if (strchr(s, ':')) {
		unsigned h, m, sec = 0;
		/* sscanf's %u would also take " 1", "+1" and "-1" */
		if (strspn(s, "0123456789:") != strlen(s) || *s == ':')
			return err_set(e, GQ_EINVAL,
				       "bad duration '%s'; use HH:MM[:SS] or e.g. '2h30m'", s);
		char extra;
		int n = sscanf(s, "%u:%u:%u%c", &h, &m, &sec, &extra);
		if ((n != 2 && n != 3) || m > 59 || sec > 59 || h > 24u * 365 * 100)
			return err_set(e, GQ_EINVAL,
				       "bad duration '%s'; use HH:MM[:SS] or e.g. '2h30m'", s);
		*out = (int64_t)h * 3600 + (int64_t)m * 60 + (int64_t)sec;
		return 0;
	}
	int64_t total = 0;
	const char *p = s;
	bool any = false;
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return err_set(e, GQ_EINVAL,
				       "bad duration '%s'; use e.g. '90s', '15m', '2h30m' or '1d'",
				       s);
		int64_t v = 0;
		while (isdigit((unsigned char)*p)) {
			v = v * 10 + (*p - '0');
			if (v > max)
				return err_set(e, GQ_EINVAL,
					       "duration '%s' is too long (over 100 years)", s);
			p++;
		}
		int64_t unit = 1;
		switch (*p) {
		case 'd':
			unit = 86400;
			p++;
			break;
		case 'h':
			unit = 3600;
			p++;
			break;
		case 'm':
			unit = 60;
			p++;
			break;
		case 's':
			unit = 1;
			p++;
			break;
		case '\0':
			unit = any ? 0 : 1;
			break;
		default:
			return err_set(e, GQ_EINVAL,
				       "bad duration '%s'; use e.g. '90s', '15m', '2h30m' or '1d'",
				       s);
		}
		if (!unit)
			return err_set(e, GQ_EINVAL,
				       "bad duration '%s': a unit is missing after the last number",
				       s);
		total += v * unit;
		if (total > max)
			return err_set(e, GQ_EINVAL, "duration '%s' is too long (over 100 years)",
				       s);
		any = true;
	}
	*out = total;
	return 0;
}

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out, struct gq_err *e)
{
	if (!s || !*s)
		return err_set(e, GQ_EINVAL, "expected a whole number, got nothing");
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || isspace((unsigned char)*s))
		return err_set(e, GQ_EINVAL, "not a whole number: '%s'", s);
	if (v < min || v > max)
		return err_set(e, GQ_EINVAL, "'%s' is out of range (%lld..%lld)", s, (long long)min,
			       (long long)max);
	*out = (int64_t)v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out, struct gq_err *e)
{
	if (!s || !*s)
		return err_set(e, GQ_EINVAL, "expected a number, got nothing");
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || isspace((unsigned char)*s) || !isfinite(v))
		return err_set(e, GQ_EINVAL, "not a number: '%s'", s);
	if (v < min || v > max)
		return err_set(e, GQ_EINVAL, "'%s' is out of range (%g..%g)", s, min, max);
	*out = v;
	return 0;
}

int parse_size_mb(const char *s, int64_t *out, struct gq_err *e)
{
	if (!s || !isdigit((unsigned char)*s))
		return err_set(e, GQ_EINVAL, "bad size '%s'; use e.g. '512M', '80G' or '1T'",
			       s ? s : "");
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int64_t mult = 1;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'M':
		mult = 1;
		end++;
		break;
	case 'G':
		mult = 1024;
		end++;
		break;
	case 'T':
		mult = 1024 * 1024;
		end++;
		break;
	default:
		return err_set(e, GQ_EINVAL, "bad size '%s'; use e.g. '512M', '80G' or '1T'", s);
	}
	if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I')
		end++;
	if (*end == 'B')
		end++;
	/* The bound is on the result, in MiB (its bytes fit an int64_t), not
	 * on the number before the unit. */
	if (*end || errno || v > (unsigned long long)(INT64_MAX / (1024 * 1024) / mult))
		return err_set(e, GQ_EINVAL, "bad size '%s'; use e.g. '512M', '80G' or '1T'", s);
	*out = (int64_t)v * mult;
	return 0;
}

char *size_format(int64_t mb, char *out, size_t size)
{
	const int64_t g = 1024, t = 1024 * 1024;
	if (mb >= t && mb % t == 0)
		snprintf(out, size, "%lldT", (long long)(mb / t));
	else if (mb >= g && mb % g == 0)
		snprintf(out, size, "%lldG", (long long)(mb / g));
	else
		snprintf(out, size, "%lldM", (long long)mb);
	return out;
}

bool name_valid(const char *s)
{
	size_t n = 0;
	if (!s || !*s || *s == '-')
		return false;
	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && !strchr("._-", s[n]))
			return false;
	return n < 64;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p++, cp, min;
		int n;
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07, min = 0x10000;
		else
			return false;
		/* A NUL ends the string and fails the test: no read past it. */
		for (int i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (*p & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
	}
	return true;
}

int buf_add_escaped(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t run = 0;
	int rc = 0;
	for (size_t i = 0; p[i] && rc == 0;) {
		char esc[8] = "";
		size_t len = 1;
		if (p[i] == '\t' || p[i] == '\n' || p[i] == '\r')
			snprintf(esc, sizeof(esc), "\\%c",
				 p[i] == '\t'	? 't'
				 : p[i] == '\n' ? 'n'
						: 'r');
		else if (p[i] < 0x20 || p[i] == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
		else if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
			snprintf(esc, sizeof(esc), "\\u%04x", p[i + 1]);
			len = 2;
		}
		if (!esc[0]) {
			run++;
			i++;
			continue;
		}
		rc = buf_add(b, s + i - run, run);
		if (rc == 0)
			rc = buf_addstr(b, esc);
		run = 0;
		i += len;
	}
	if (rc == 0)
		rc = buf_add(b, s + strlen(s) - run, run);
	return rc;
}

int words_split(char *s, char **words, int max, bool comments, char *why, size_t whylen)
{
	int n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || (comments && *s == '#'))
			break;
		if (n >= max) {
			snprintf(why, whylen, "too many words (at most %d)", max);
			return -1;
		}
		char *w = s, *out = s;
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				while (*s && *s != q) {
					if (q == '"' && *s == '\\' && s[1])
						s++;
					*out++ = *s++;
				}
				if (*s != q) {
					snprintf(why, whylen, "unterminated %c quote; close it", q);
					return -1;
				}
				s++;
			} else if (*s == '\\' && s[1]) {
				s++;
				*out++ = *s++;
			} else {
				*out++ = *s++;
			}
		}
		if (*s)
			s++;
		*out = '\0';
		words[n++] = w;
	}
	return n;
}
