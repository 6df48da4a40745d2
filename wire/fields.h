/*
 * fields.h - the field tables behind wire/'s codecs: a struct described as
 * a list of (name, type, offset, size), so that the encoder and the decoder
 * of a struct read the same list and cannot drift. Internal to wire/.
 */
#ifndef GQ_WIRE_FIELDS_H
#define GQ_WIRE_FIELDS_H

#include <jansson.h>
#include <stddef.h>

#include "core/util.h"

enum ftype {
	F_I64,
	F_TIME, /* an int64_t of unix seconds: F_I64, but relative in rows */
	F_INT,
	F_U32,
	F_BOOL,
	F_DBL,
	F_STR, /* char[size] */
	F_TIER,
	F_STATE,
};

struct field {
	const char *name;
	enum ftype type;
	size_t off, size;
	/* A string written only when not "": a field added after clients
	 * that refuse a member they do not know (gq 0.1's), which an answer
	 * then carries only where it means something. */
	bool opt;
};

/* One line: clang-format would split the initialiser over four. */
/* clang-format off */
#define FLD(st, f, t) {#f, t, offsetof(struct st, f), sizeof(((struct st *)0)->f), false}
#define FLD_OPT(st, f) {#f, F_STR, offsetof(struct st, f), sizeof(((struct st *)0)->f), true}
/* clang-format on */

#define NF(t) (sizeof(t) / sizeof((t)[0]))

/* jansson's iteration macros take a non-const json_t; decoding never
 * changes the value it reads. */
json_t *wire_mut(const json_t *v);
/* GQ_EINVAL "PATH: expected WANT, got KIND" (KIND "nothing" for NULL). */
int wire_type_error(struct gq_err *e, const char *path, const char *want, const json_t *v);
/* An object of every field of table t read from base. */
json_t *wire_encode_table(const struct field *t, size_t n, const void *base);
/* Checks v against f's type and range and stores it into base; path names
 * it in errors. */
int wire_decode_field(const json_t *v, const struct field *f, void *base, const char *path,
		      struct gq_err *e);
/* Decodes every member of object v through table t into base; members in
 * `extra` (a NULL-terminated list) are skipped for the caller to handle;
 * any other unknown member is an error naming what. */
int wire_decode_table(const json_t *v, const struct field *t, size_t n, void *base,
		      const char *what, const char *const *extra, struct gq_err *e);
/* Decodes array v of objects through table t into *items (n of them, each
 * elem bytes, zeroed first); caller frees. */
int wire_decode_array(const json_t *v, const struct field *t, size_t nt, size_t elem,
		      const char *what, void **items, size_t *n, struct gq_err *e);

#endif
