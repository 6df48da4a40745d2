/*
 * util.h - the small helpers every layer shares: errors, allocation,
 * bounded strings and growable buffers, durations.
 *
 * Everything here is pure (no I/O, no clock, no globals) so that core/ may
 * use it; impure helpers (paths, logging) live with their users, the clock in
 * os/mono.h.
 *
 * Errors: functions return 0 / -1 (or NULL) and fill a caller-supplied
 * struct gq_err. Callers add context on the way up with err_prefix().
 * Out of memory is fatal through the x*alloc family; impossible states go
 * through BUG().
 */
#ifndef GQ_UTIL_H
#define GQ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Error classes. Only cmd/ and the server's request layer map them to exit
 * codes and HTTP statuses (cmd_exit_code() in cmd/cmd.h, err_http_status() in
 * server/api.h). */
enum gq_errcode {
	GQ_OK = 0,
	GQ_EINVAL,    /* bad input: a flag, a field, a policy value */
	GQ_ENOENT,    /* no such job, queue, revision, file */
	GQ_EPERM,     /* not allowed for this caller */
	GQ_ECONFLICT, /* the object is in the wrong state for this action */
	GQ_EUNAVAIL,  /* the server or a dependency cannot be reached */
	GQ_EIO,	      /* a local I/O or storage failure */
	GQ_ETOOBIG,   /* a request or body over its limit */
	GQ_EINTERNAL, /* a bug or an unexpected answer */
	GQ_ENOSPACE,  /* the server's state directory is full: writes refused */
	GQ_ELIMIT,    /* a per-user limit of the policy refuses it for now */
};

struct gq_err {
	enum gq_errcode code;
	char msg[512];
};

#define GQ_ERR_INIT                                                                                \
	{                                                                                          \
		GQ_OK,                                                                             \
		{                                                                                  \
			0                                                                          \
		}                                                                                  \
	}

#if defined(__GNUC__)
#define GQ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define GQ_NORETURN __attribute__((noreturn))
#else
#define GQ_PRINTF(a, b)
#define GQ_NORETURN
#endif

/* Sets code and message (printf-style); always returns -1 so that
 * "return err_set(e, ...)" reads naturally. e may be NULL. */
int err_set(struct gq_err *e, enum gq_errcode code, const char *fmt, ...) GQ_PRINTF(3, 4);

/* Prepends "<context>: " to the message, keeping the code. e may be NULL. */
void err_prefix(struct gq_err *e, const char *fmt, ...) GQ_PRINTF(2, 3);

/* Stable lower-case token for a code ("invalid", "not_found", ...), used in
 * the API's {"error": {"code": ...}} and parsed back by err_code_from_name(). */
const char *err_code_name(enum gq_errcode code);
enum gq_errcode err_code_from_name(const char *name);

/* Fatal on failure: out of memory is not an error we recover from. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) GQ_PRINTF(1, 2);

/* Grows *items (each of size elem) so that it holds at least need elements;
 * *cap is updated. Doubling growth. */
void grow_array(void **items, size_t *cap, size_t need, size_t elem);
#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* fatal.c: print one line to stderr and abort(). */
GQ_NORETURN void oom(size_t n);
GQ_NORETURN void bug_at(const char *file, int line, const char *fmt, ...) GQ_PRINTF(3, 4);
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)

/* Copies src into dst[size], always NUL-terminated; returns false when src
 * did not fit (dst then holds a truncated copy). */
bool str_copy(char *dst, size_t size, const char *src);
#define STR_COPY(dst, src) str_copy((dst), sizeof(dst), (src))

/* A growable byte buffer with a maximum size (0 = unbounded). Contents are
 * always NUL-terminated. buf_init allocates nothing; buf_release frees. */
struct buf {
	char *data;
	size_t len, cap, max;
};
void buf_init(struct buf *b, size_t max);
void buf_release(struct buf *b);
/* Return -1 (and append nothing) when the result would exceed max. */
int buf_add(struct buf *b, const void *data, size_t len);
int buf_addstr(struct buf *b, const char *s);
/* v in decimal, as printf's %lld writes it (a fraction of its cost). */
int buf_addint(struct buf *b, int64_t v);
int buf_printf(struct buf *b, const char *fmt, ...) GQ_PRINTF(2, 3);
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) GQ_PRINTF(2, 0);
void buf_reset(struct buf *b);
/* Hands the contents to the caller (free() it) and re-initialises b. */
char *buf_detach(struct buf *b);

/* The range of every time and duration gq keeps, so that no sum of them can
 * overflow or leave what the decoders accept: a duration (time limit,
 * estimate, policy key) is at most GQ_DUR_MAX, 100 years; the clock is at
 * most GQ_CLOCK_MAX, the end of the year 9999; a time computed from the
 * clock and durations (a deadline, a cooldown's end) stays under
 * GQ_TIME_MAX, the latest time a decoder takes. Times are >= 0 (0: unset). */
#define GQ_DUR_MAX (INT64_C(100) * 365 * 86400)
#define GQ_CLOCK_MAX INT64_C(253402300799)
#define GQ_TIME_MAX (GQ_CLOCK_MAX + 16 * GQ_DUR_MAX)

/* Durations in seconds.
 * dur_format: "45s", "12m", "2h05m", "3d04h" (largest two units; "0s"; a
 * negative value gets a leading '-'). Writes at most size bytes, returns out.
 * dur_parse: accepts "90", "90s", "15m", "2h", "2h30m", "1d", "1d2h" and
 * "HH:MM[:SS]"; returns -1 and fills e on anything else (including overflow
 * and negative numbers). */
char *dur_format(int64_t seconds, char *out, size_t size);
int dur_parse(const char *s, int64_t *out, struct gq_err *e);

/* Parses a whole decimal integer / number within [min, max]. */
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out, struct gq_err *e);
int parse_double(const char *s, double min, double max, double *out, struct gq_err *e);
/* Parses a size with an optional unit: "80", "80G", "80GB", "512M", "1T";
 * result in MiB (plain numbers are MiB). */
int parse_size_mb(const char *s, int64_t *out, struct gq_err *e);

/* A size in MiB for people, exact, in the largest unit that divides it:
 * "512M", "80G", "2T", "24064M". Writes at most size bytes, returns out. */
char *size_format(int64_t mb, char *out, size_t size);

/* A valid name for users, queues, departments and GPU models: 1..63 chars
 * of [A-Za-z0-9._-], not starting with '-'. */
bool name_valid(const char *s);
/* Is s UTF-8 as RFC 3629 has it (no overlong form, no surrogate, nothing
 * over U+10FFFF)? Exactly what JSON strings (jansson) can carry. */
bool utf8_valid(const char *s);
/* Appends s to b for a terminal: the C0 controls and DEL as \xHH (tab, LF
 * and CR as \t, \n, \r), the C1 controls in UTF-8 (U+0080..U+009F, such as
 * NEL U+0085 and CSI U+009B) as \uHHHH, so that no byte of s moves the
 * cursor, clears the screen or starts an escape sequence. Everything else,
 * bytes that are not UTF-8 included, is copied. -1 when b's max is hit. */
int buf_add_escaped(struct buf *b, const char *s);

/*
 * Splits s in place into at most max words, as a shell would for a simple
 * command: white space separates, single quotes group literally, double
 * quotes group with \ escaping the next character, and outside quotes \
 * escapes the next character; with comments, a word that starts with #
 * ends the line. gq shell, #GQ and #SBATCH lines (core/sbatch.h) all read
 * a line with it, alike. Returns the count, or -1 with a message in why.
 */
int words_split(char *s, char **words, int max, bool comments, char *why, size_t whylen);

#endif
