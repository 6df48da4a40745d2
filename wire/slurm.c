/*
 * slurm.c - slurmrestd's JSON to gq's structs and back (see slurm.h).
 * Every tolerance MAPPING.md asks for lives in the few readers at the top
 * (num, str, state_word); the decoders below only name fields.
 */
#include "slurm.h"
#include "core/depend.h"
#include "wire/wire.h"

#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- tolerant readers ---- */

enum num_kind { NUM_UNSET, NUM_SET, NUM_INFINITE };

/* Slurm's NO_VAL / INFINITE sentinels in 32 and 16 bits. */
static bool sentinel(json_int_t v)
{
	return v == 4294967294LL || v == 4294967295LL || v == 65534 || v == 65535 ||
	       v == 4294967293LL;
}

/* An integer, null, a numeric string, "Infinity", or {set, infinite,
 * number}. -1 and the sentinels are unset (limits: unlimited). */
static enum num_kind num(const json_t *v, int64_t *out)
{
	*out = 0;
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);
		if (x == -1 || sentinel(x))
			return x == 4294967294LL || x == 65534 ? NUM_INFINITE : NUM_UNSET;
		*out = x;
		return NUM_SET;
	}
	if (json_is_real(v)) {
		*out = (int64_t)json_real_value(v);
		return NUM_SET;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!strcasecmp(s, "infinity") || !strcasecmp(s, "unlimited"))
			return NUM_INFINITE;
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s || *end)
			return NUM_UNSET;
		*out = x;
		return NUM_SET;
	}
	if (json_is_object(v)) {
		if (json_is_true(json_object_get(v, "infinite")))
			return NUM_INFINITE;
		const json_t *set = json_object_get(v, "set");
		if (set && !json_is_true(set))
			return NUM_UNSET;
		return num(json_object_get(v, "number"), out);
	}
	return NUM_UNSET;
}

static int64_t num0(const json_t *o, const char *key)
{
	int64_t v;
	return num(json_object_get(o, key), &v) == NUM_SET ? v : 0;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void cpy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* A state: "PENDING", or ["PENDING", "REQUEUED"]. The base state is the
 * first word that is one; v0.0.38 can put a flag (COMPLETING) alone. */
static const char *const base_states[] = {
    "PENDING",	 "RUNNING",   "SUSPENDED", "COMPLETED", "CANCELLED",	 "FAILED", "TIMEOUT",
    "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",	"OUT_OF_MEMORY", "IDLE",   "MIXED",
    "ALLOCATED", "DOWN",      "ERROR",	   "FUTURE",	"UNKNOWN",
};

static bool is_base(const char *w)
{
	for (size_t i = 0; i < sizeof(base_states) / sizeof(base_states[0]); i++)
		if (!strcasecmp(w, base_states[i]))
			return true;
	return false;
}

/* Writes the base state (upper case) and whether flag is among the words. */
static void state_words(const json_t *v, char *base, size_t size, const char *flag, bool *has_flag)
{
	base[0] = '\0';
	if (has_flag)
		*has_flag = false;
	const char *first = NULL;
	if (json_is_string(v)) {
		first = json_string_value(v);
		if (is_base(first))
			cpy(base, size, first);
		if (has_flag && !strcasecmp(first, flag))
			*has_flag = true;
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			const char *w = json_string_value(x);
			if (!w)
				continue;
			if (!first)
				first = w;
			if (!base[0] && is_base(w))
				cpy(base, size, w);
			if (has_flag && !strcasecmp(w, flag))
				*has_flag = true;
		}
	}
	if (!base[0] && first)
		cpy(base, size, first);
	for (char *p = base; *p; p++)
		*p = (char)toupper((unsigned char)*p);
}

static bool array_has(const json_t *a, const char *word)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
	{
		const char *w = json_string_value(x);
		if (w && !strcasecmp(w, word))
			return true;
	}
	return false;
}

static json_t *parse(const char *text, size_t len, struct gq_err *e)
{
	json_error_t je;
	json_t *v = json_loadb(text ? text : "", len, JSON_DECODE_ANY, &je);
	if (!v)
		err_set(e, GQ_EINTERNAL, "not JSON at line %d: %s", je.line, je.text);
	else if (!json_is_object(v)) {
		json_decref(v);
		v = NULL;
		err_set(e, GQ_EINTERNAL, "not a JSON object");
	}
	return v;
}

/* ---- QOS map ---- */

int slurm_map_parse(const char *spec, struct slurm_map *m, struct gq_err *e)
{
	memset(m, 0, sizeof(*m));
	m->fallback = TIER_P1;
	if (!spec || !*spec)
		spec = "p0=P0,p1=P1,p2=P2,*=P1";
	char buf[1024];
	cpy(buf, sizeof(buf), spec);
	for (char *save = NULL, *it = strtok_r(buf, ", ", &save); it;
	     it = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(it, '=');
		if (!eq || eq == it)
			return err_set(e, GQ_EINVAL,
				       "QOS map entry '%s' is not QOS=TIER (like p0=P0)", it);
		*eq = '\0';
		enum tier t;
		if (tier_parse(eq + 1, &t, e) < 0) {
			err_prefix(e, "QOS map entry '%s'", it);
			return -1;
		}
		if (!strcmp(it, "*")) {
			m->fallback = t;
			continue;
		}
		if (m->n == SLURM_QOS_MAP_MAX)
			return err_set(e, GQ_EINVAL, "QOS map has over %d entries",
				       SLURM_QOS_MAP_MAX);
		cpy(m->qos[m->n], sizeof(m->qos[0]), it);
		m->tier[m->n++] = t;
	}
	return 0;
}

enum tier slurm_map_tier(const struct slurm_map *m, const char *qos)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->qos[i], qos))
			return m->tier[i];
	return m->fallback;
}

const char *slurm_map_qos(const struct slurm_map *m, enum tier t)
{
	for (int i = 0; i < m->n; i++)
		if (m->tier[i] == t)
			return m->qos[i];
	return NULL;
}

/* ---- errors and meta ---- */

static enum gq_errcode errno_code(int64_t n, const char *desc)
{
	switch (n) {
	case 2017: /* invalid job id */
		return GQ_ENOENT;
	case 2002: /* access denied */
	case 2010: /* invalid user id */
		return GQ_EPERM;
	case 1: /* SLURM_ERROR with a text we look at below */
	case -1:
		if (strstr(desc, "unable to load") || strstr(desc, "uthentication"))
			return GQ_EPERM;
		return GQ_EINVAL;
	default:
		return n >= 2000 && n < 10000 ? GQ_EINVAL : GQ_EINTERNAL;
	}
}

bool slurm_nothing_found(const char *text, size_t len)
{
	struct gq_err pe = GQ_ERR_INIT;
	json_t *v = parse(text, len, &pe);
	if (!v)
		return false;
	const json_t *errs = json_object_get(v, "errors");
	bool found = json_array_size(errs) > 0;
	size_t i;
	json_t *x;
	json_array_foreach(errs, i, x)
	{
		int64_t k = 0;
		if (num(json_object_get(x, "error_number"), &k) != NUM_SET || k != 9003)
			found = false;
	}
	json_decref(v);
	return found;
}

int slurm_errors(const char *text, size_t len, long http_status, struct gq_err *e)
{
	struct gq_err pe = GQ_ERR_INIT;
	json_t *v = parse(text, len, &pe);
	if (!v)
		return 0;
	const json_t *errs = json_object_get(v, "errors");
	int rc = 0;
	bool numbered = false;
	size_t i;
	json_t *x;
	json_array_foreach(errs, i, x)
	{
		int64_t k = 0;
		if (num(json_object_get(x, "error_code"), &k) == NUM_SET && k == 2042)
			continue; /* "Job is in held state": a submit with hold, done */
		if (json_object_get(x, "error_number") || json_object_get(x, "error_code") ||
		    json_object_get(x, "errno"))
			numbered = true;
	}
	if (json_array_size(errs) && (numbered || http_status >= 300)) {
		/* The first numbered entry decides the class; the words are the
		 * most specific text Slurm gave. */
		int64_t n = 0;
		const char *desc = "", *word = "";
		json_array_foreach(errs, i, x)
		{
			int64_t k = 0;
			/* v0.0.38's /nodes and /partitions say "errno". */
			const json_t *jn = json_object_get(x, "error_number");
			if (!jn)
				jn = json_object_get(x, "errno");
			bool has = num(jn, &k) == NUM_SET ||
				   num(json_object_get(x, "error_code"), &k) == NUM_SET;
			if (jn && json_integer_value(jn) == -1)
				has = true, k = -1;
			if (has && (n == 0 || (n == -1 && k > 0))) {
				n = k;
				desc = str(x, "description");
				word = str(x, "error");
			}
		}
		enum gq_errcode code = errno_code(n, desc);
		if (code == GQ_EPERM && (n == -1 || n == 1))
			err_set(e, GQ_EPERM,
				"Slurm refused the token (expired or not valid): '%s'; get a new "
				"one with 'scontrol token' and set SLURM_JWT",
				desc[0] ? desc : word);
		else if (desc[0] && word[0] && strcmp(desc, word))
			err_set(e, code, "Slurm: %s (%s, error %" PRId64 ")", word, desc, n);
		else
			err_set(e, code, "Slurm: %s (error %" PRId64 ")", desc[0] ? desc : word, n);
		rc = -1;
	}
	json_decref(v);
	return rc;
}

int slurm_http_error(long http_status, const char *text, size_t len, const char *what,
		     struct gq_err *e)
{
	char body[160] = "";
	size_t n = len < sizeof(body) - 1 ? len : sizeof(body) - 1;
	if (text)
		memcpy(body, text, n);
	body[n] = '\0';
	for (char *p = body; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	switch (http_status) {
	case 401:
	case 403:
		return err_set(e, GQ_EPERM,
			       "%s refused the token (HTTP %ld: %s); set SLURM_JWT (scontrol "
			       "token) or the config's tokenFile",
			       what, http_status, body[0] ? body : "no reason given");
	case 404:
		return err_set(e, GQ_ENOENT, "%s does not offer this path or API version: %s", what,
			       body[0] ? body : "HTTP 404");
	case 400:
		return err_set(e, GQ_EINVAL, "%s could not read the request: %s", what,
			       body[0] ? body : "HTTP 400");
	default:
		/* A JSON answer here carried no error (slurm_errors reads those
		 * first): its meta block says nothing to the user. */
		if (body[0] == '{')
			return err_set(e, http_status >= 500 ? GQ_EUNAVAIL : GQ_EINTERNAL,
				       "%s failed (HTTP %ld) and gave no reason; try again, or "
				       "see its log",
				       what, http_status);
		return err_set(e, http_status >= 500 ? GQ_EUNAVAIL : GQ_EINTERNAL,
			       "unexpected answer from %s (HTTP %ld): %s", what, http_status, body);
	}
}

static int version_part(const json_t *v)
{
	int64_t x;
	return num(v, &x) == NUM_SET ? (int)x : 0;
}

int slurm_meta_decode(const char *text, size_t len, struct slurm_meta *m, struct gq_err *e)
{
	memset(m, 0, sizeof(*m));
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	const json_t *meta = json_object_get(v, "meta");
	const json_t *sl = json_object_get(meta, "Slurm");
	if (!sl)
		sl = json_object_get(meta, "slurm");
	const json_t *ver = json_object_get(sl, "version");
	m->major = version_part(json_object_get(ver, "major"));
	m->minor = version_part(json_object_get(ver, "minor"));
	m->micro = version_part(json_object_get(ver, "micro"));
	cpy(m->release, sizeof(m->release), str(sl, "release"));
	cpy(m->cluster, sizeof(m->cluster), str(sl, "cluster"));
	cpy(m->plugin, sizeof(m->plugin), str(json_object_get(meta, "plugin"), "type"));
	json_decref(v);
	return 0;
}

int slurm_ping_decode(const char *text, size_t len, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	int rc = err_set(e, GQ_EUNAVAIL, "no Slurm controller answers UP");
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "pings"), i, x)
	{
		const char *p = str(x, "ping");
		if (!*p)
			p = str(x, "pinged");
		if (!strcasecmp(p, "UP"))
			rc = 0;
	}
	json_decref(v);
	return rc;
}

int slurm_openapi_newest(const char *text, size_t len, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	int best = -1;
	const char *k;
	json_t *x;
	json_object_foreach(json_object_get(v, "paths"), k, x)
	{
		int n;
		if (sscanf(k, "/slurm/v0.0.%d/", &n) == 1 && n >= SLURM_API_OLDEST &&
		    n <= SLURM_API_NEWEST && n > best)
			best = n;
	}
	json_decref(v);
	if (best < 0)
		err_set(e, GQ_EUNAVAIL,
			"slurmrestd offers no openapi version gq understands (v0.0.%d to v0.0.%d)",
			SLURM_API_OLDEST, SLURM_API_NEWEST);
	return best;
}

/* ---- hostlists and GRES ---- */

int slurm_hostlist_expand(const char *list, char (*out)[64], int max)
{
	int n = 0;
	const char *p = list;
	while (*p) {
		while (*p == ',' || *p == ' ')
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && *p != ',' && *p != '[')
			p++;
		size_t plen = (size_t)(p - start);
		if (plen >= 48)
			return -1;
		if (*p != '[') {
			if (n == max)
				return -1;
			memcpy(out[n], start, plen);
			out[n++][plen] = '\0';
			continue;
		}
		const char *close = strchr(p, ']');
		if (!close)
			return -1;
		const char *r = p + 1;
		while (r < close) {
			char *end;
			long a = strtol(r, &end, 10), b = a;
			int width = (int)(end - r);
			if (end == r)
				return -1;
			if (*end == '-') {
				const char *s2 = end + 1;
				b = strtol(s2, &end, 10);
				if (end == s2)
					return -1;
			}
			if (b < a || b - a > 100000)
				return -1;
			for (long k = a; k <= b; k++) {
				if (n == max)
					return -1;
				snprintf(out[n++], 64, "%.*s%0*ld", (int)plen, start, width, k);
			}
			r = end;
			if (*r == ',')
				r++;
			else if (r != close)
				return -1;
		}
		p = close + 1;
		/* A suffix after the range ("n[1-2]-ib") is not in this kit's
		 * names; refuse rather than guess. */
		if (*p && *p != ',')
			return -1;
	}
	return n;
}

/* One GRES item without prefix: "gpu:a100:4(IDX:0-3)" or "gpu:a100=4" or
 * "gpu:4" or "gpu". Writes type, count, and the IDX mask when present.
 * Returns false when it is not a GPU. */
static bool gres_item(const char *item, char *type, size_t tsize, int64_t *count, uint64_t *mask)
{
	if (!strncmp(item, "gres:", 5) || !strncmp(item, "gres/", 5))
		item += 5;
	if (strncmp(item, "gpu", 3) ||
	    (item[3] && item[3] != ':' && item[3] != '=' && item[3] != '(')) /* "gpu" only */
		return false;
	type[0] = '\0';
	*count = 1;
	*mask = 0;
	const char *p = item + 3;
	const char *paren = strchr(p, '(');
	char core[128];
	size_t clen = paren ? (size_t)(paren - p) : strlen(p);
	if (clen >= sizeof(core))
		clen = sizeof(core) - 1;
	memcpy(core, p, clen);
	core[clen] = '\0';
	/* core: "", ":4", ":a100:4", ":a100=4", "=4", ":a100" */
	char *q = core;
	if (*q == ':' || *q == '=')
		q++;
	char *sep = q + strcspn(q, ":=");
	if (*q && !isdigit((unsigned char)*q)) {
		size_t tl = (size_t)(sep - q);
		snprintf(type, tsize, "%.*s", (int)tl, q);
		q = *sep ? sep + 1 : sep;
	}
	if (*q) {
		char *end;
		long long c = strtoll(q, &end, 10);
		if (end != q)
			*count = c;
	}
	if (paren) {
		const char *idx = strstr(paren, "IDX:");
		if (idx) {
			idx += 4;
			while (*idx && *idx != ')') {
				char *end;
				long a = strtol(idx, &end, 10), b = a;
				if (end == idx)
					break;
				if (*end == '-') {
					const char *s2 = end + 1;
					b = strtol(s2, &end, 10);
				}
				for (long k = a; k <= b && k < 64; k++)
					if (k >= 0)
						*mask |= UINT64_C(1) << k;
				idx = end;
				if (*idx == ',')
					idx++;
			}
		}
	}
	return true;
}

/* Walks the comma-separated items of a GRES string (commas inside
 * parentheses belong to the item) and sums the GPUs. */
static int64_t gres_gpus(const char *s, char *type, size_t tsize, uint64_t *mask)
{
	int64_t total = 0;
	if (type)
		type[0] = '\0';
	if (mask)
		*mask = 0;
	char item[256];
	while (*s) {
		size_t k = 0;
		int depth = 0;
		while (*s && (depth || *s != ',')) {
			if (*s == '(')
				depth++;
			else if (*s == ')' && depth)
				depth--;
			if (k < sizeof(item) - 1)
				item[k++] = *s;
			s++;
		}
		item[k] = '\0';
		if (*s == ',')
			s++;
		char t[32];
		int64_t c;
		uint64_t m;
		if (gres_item(item, t, sizeof(t), &c, &m)) {
			total += c;
			if (type && !type[0] && t[0])
				cpy(type, tsize, t);
			if (mask)
				*mask |= m;
		}
	}
	return total;
}

/* From a TRES string "cpu=4,mem=8000M,node=1,gres/gpu=2,gres/gpu:a100=2":
 * the total GPUs (gres/gpu=) and the first typed gres/gpu:TYPE. */
static void tres_gpus(const char *s, int64_t *gpus, char *type, size_t tsize)
{
	*gpus = 0;
	type[0] = '\0';
	char buf[1024];
	cpy(buf, sizeof(buf), s);
	for (char *save = NULL, *it = strtok_r(buf, ",", &save); it;
	     it = strtok_r(NULL, ",", &save)) {
		if (!strncmp(it, "gres/gpu=", 9))
			*gpus = strtoll(it + 9, NULL, 10);
		else if (!strncmp(it, "gres/gpu:", 9) && !type[0]) {
			char *eq = strchr(it + 9, '=');
			if (eq)
				snprintf(type, tsize, "%.*s", (int)(eq - (it + 9)), it + 9);
		}
	}
}

/* ---- nodes and partitions ---- */

int slurm_nodes_decode(const char *text, size_t len, struct snapshot *s, uint64_t **busy,
		       struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	const json_t *arr = json_object_get(v, "nodes");
	size_t n = json_array_size(arr);
	if (busy)
		*busy = xcalloc(n ? n : 1, sizeof(**busy));
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		struct node *nd = snapshot_add_node(s);
		cpy(nd->name, sizeof(nd->name), str(x, "name"));
		uint64_t m = 0;
		int64_t g = gres_gpus(str(x, "gres"), nd->gpu_model, sizeof(nd->gpu_model), NULL);
		nd->ngpus = g < 0 ? 0 : g > GQ_MAX_NODE_GPUS ? GQ_MAX_NODE_GPUS : (int)g;
		gres_gpus(str(x, "gres_used"), NULL, 0, &m);
		if (busy)
			(*busy)[i] = m;
		nd->cpus = (int)num0(x, "cpus");
		nd->mem_mb = num0(x, "real_memory");
		char base[32];
		bool drain = false;
		const json_t *st = json_object_get(x, "state");
		state_words(st, base, sizeof(base), "DRAIN", &drain);
		const json_t *flags = json_object_get(x, "state_flags");
		if (array_has(flags, "DRAIN") || array_has(flags, "DRAINING") ||
		    array_has(flags, "DRAINED") || array_has(flags, "FAIL") ||
		    array_has(flags, "NOT_RESPONDING"))
			drain = true;
		if (json_is_array(st) && (array_has(st, "DRAIN") || array_has(st, "FAIL") ||
					  array_has(st, "NOT_RESPONDING")))
			drain = true;
		nd->up = !drain && strcmp(base, "DOWN") && strcmp(base, "ERROR") &&
			 strcmp(base, "FUTURE") && strcmp(base, "UNKNOWN");
		/* As sinfo says it: a drain with jobs still on the node is
		 * draining, without drained; down and failing win. */
		bool fail =
		    array_has(flags, "FAIL") || (json_is_array(st) && array_has(st, "FAIL"));
		bool noresp = array_has(flags, "NOT_RESPONDING") ||
			      (json_is_array(st) && array_has(st, "NOT_RESPONDING"));
		const char *w = "";
		if (!strcmp(base, "DOWN") || !strcmp(base, "ERROR"))
			w = "down";
		else if (noresp)
			w = "not responding";
		else if (fail)
			w = "fail";
		else if (drain)
			w = !strcmp(base, "ALLOCATED") || !strcmp(base, "MIXED") ? "draining"
										 : "drained";
		else if (!nd->up)
			w = !strcmp(base, "FUTURE") ? "future" : "unknown";
		cpy(nd->state, sizeof(nd->state), w);
	}
	json_decref(v);
	return 0;
}

static int cmp_resv(const void *a, const void *b)
{
	const struct reservation *x = a, *y = b;
	return (x->start_time > y->start_time) - (x->start_time < y->start_time);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int slurm_reservations_decode(const char *text, size_t len, struct snapshot *s, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	size_t i, nn = s->nnodes;
	json_t *x;
	/* The snapshot's node names, sorted: a reservation of every node of
	 * a large cluster is looked up name by name. */
	const char **sorted = xcalloc(nn ? nn : 1, sizeof(*sorted));
	for (size_t d = 0; d < nn; d++)
		sorted[d] = s->nodes[d].name;
	qsort(sorted, nn, sizeof(*sorted), cmp_name);
	char(*names)[64] = xcalloc(nn ? nn : 1, sizeof(*names));
	bool *in = xcalloc(nn ? nn : 1, sizeof(*in));
	json_array_foreach(json_object_get(v, "reservations"), i, x)
	{
		int64_t a = num0(x, "start_time"), z = num0(x, "end_time");
		/* One that has ended keeps nothing (Slurm drops it soon). */
		if (z <= s->now || z <= a)
			continue;
		struct reservation *r = snapshot_add_resv(s);
		cpy(r->name, sizeof(r->name), str(x, "name"));
		cpy(r->nodes, sizeof(r->nodes), str(x, "node_list"));
		r->start_time = a;
		r->end_time = z;
		r->maint = array_has(json_object_get(x, "flags"), "MAINT");
		/* Every node of the snapshot in its list (more names than
		 * nodes: some are not the snapshot's, so not every one is). */
		memset(in, 0, (nn ? nn : 1) * sizeof(*in));
		int k = slurm_hostlist_expand(str(x, "node_list"), names, (int)nn);
		size_t covered = 0;
		for (int m = 0; m < k; m++) {
			const char *key = names[m];
			const char **hit = bsearch(&key, sorted, nn, sizeof(*sorted), cmp_name);
			if (hit && !in[hit - sorted]) {
				in[hit - sorted] = true;
				covered++;
			}
		}
		r->all_nodes = nn > 0 && covered == nn;
	}
	free(sorted);
	free(names);
	free(in);
	json_decref(v);
	if (s->nresv > 1)
		qsort(s->resv, s->nresv, sizeof(*s->resv), cmp_resv);
	return 0;
}

int slurm_partitions_decode(const char *text, size_t len, struct policy *p, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "partitions"), i, x)
	{
		const char *name = str(x, "name");
		if (!*name || policy_queue_index(p, name) >= 0)
			continue;
		char key[96];
		snprintf(key, sizeof(key), "queue.%s.department", name);
		if (policy_set(p, key, "default", e) < 0) {
			json_decref(v);
			return -1;
		}
		if (array_has(json_object_get(x, "flags"), "default") ||
		    array_has(json_object_get(x, "flags"), "DEFAULT"))
			cpy(p->default_queue, sizeof(p->default_queue), name);
		/* MaxTime in minutes (v0.0.38: a number, -1 or INFINITE's
		 * 0xffffffff unlimited; later {set, infinite, number}): gq's
		 * queue.NAME.maxTime. */
		int64_t mt = 0;
		const json_t *jm = json_object_get(x, "max_time_limit");
		if (!jm)
			jm = json_object_get(json_object_get(x, "maximums"), "time");
		if (num(jm, &mt) == NUM_SET && mt > 0 && mt <= 366LL * 24 * 60) {
			char val[32];
			snprintf(val, sizeof(val), "%" PRId64 "m", mt);
			snprintf(key, sizeof(key), "queue.%s.maxTime", name);
			if (policy_set(p, key, val, e) < 0) {
				json_decref(v);
				return -1;
			}
		}
	}
	json_decref(v);
	return 0;
}

static int node_index(const struct snapshot *s, const char *name);

/* Every node of hostlist `list` is one of s's and has no GPUs (and there
 * is at least one). */
static bool all_gpu_less(const char *list, const struct snapshot *s)
{
	int cap = (int)(s->nnodes < 1 ? 1 : s->nnodes);
	char(*names)[64] = xmalloc((size_t)cap * sizeof(*names));
	int n = slurm_hostlist_expand(list, names, cap);
	bool ok = n > 0;
	for (int k = 0; ok && k < n; k++) {
		int ni = node_index(s, names[k]);
		ok = ni >= 0 && s->nodes[ni].ngpus == 0;
	}
	free(names);
	return ok;
}

int slurm_cpu_partition(const char *text, size_t len, const struct snapshot *s, char *out,
			size_t size, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	const char *pick = NULL;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "partitions"), i, x)
	{
		const json_t *nodes = json_object_get(x, "nodes");
		const char *list =
		    json_is_object(nodes) ? str(nodes, "configured") : json_string_value(nodes);
		if (!*str(x, "name") || !list || !all_gpu_less(list, s))
			continue;
		bool dflt = array_has(json_object_get(x, "flags"), "default");
		if (!pick || dflt)
			pick = str(x, "name");
		if (dflt)
			break;
	}
	int rc = 0;
	if (pick)
		cpy(out, size, pick);
	else
		rc = err_set(e, GQ_EINVAL,
			     "no partition of this cluster has only nodes without GPUs: name one "
			     "with --queue to run a CPU-only job there");
	json_decref(v);
	return rc;
}

/* ---- jobs ---- */

const char *slurm_reason_class(const char *r, int restarts)
{
	static const struct {
		const char *word, *cls;
	} tab[] = {
	    {"JobHeldUser", "held"},
	    {"JobHeldAdmin", "held"},
	    {"JobHoldMaxRequeue", "held"},
	    {"Dependency", "dependency"},
	    {"DependencyNeverSatisfied", "dependency"},
	    /* One user's limits (a QOS's per user, an association's:
	     * a user in an account) are gq's user_limit; a group's
	     * (QOSGrp*, AssocGrp*, an account's) are quota. */
	    {"AssocMaxJobsLimit", "user_limit"},
	    {"AssocMaxSubmitJobLimit", "user_limit"},
	    {"QOSGrpGRES", "quota"},
	    {"AssocGrpGRES", "quota"},
	    {"AssocGrpJobsLimit", "quota"},
	    {"QOSGrpJobsLimit", "quota"},
	    {"MaxGRESPerAccount", "quota"},
	    {"QOSMaxGRESPerAccount", "quota"},
	    {"QOSMaxJobsPerAccountLimit", "quota"},
	    {"JobArrayTaskLimit", "throttle"},
	    {"AssocGrpGRESMinutes", "quota"},
	    {"AssocGrpBillingMinutes", "quota"},
	    {"PartitionTimeLimit", "unsatisfiable"},
	    {"PartitionNodeLimit", "unsatisfiable"},
	    {"BadConstraints", "unsatisfiable"},
	    {"InvalidQOS", "unsatisfiable"},
	    {"InvalidAccount", "unsatisfiable"},
	    {"QOSNotAllowed", "unsatisfiable"},
	    {"AccountNotAllowed", "unsatisfiable"},
	    {"PartitionConfig", "unsatisfiable"},
	    {"ReqNodeNotAvail", "resources"},
	    {"NodeDown", "resources"},
	    {"PartitionDown", "resources"},
	    {"PartitionInactive", "resources"},
	    {"Reservation", "reservation"},
	    {"Resources", "resources"},
	    {"Licenses", "resources"},
	    {"Priority", "priority"},
	    {"Prolog", "starting"},
	    {"None", "not yet evaluated"},
	};
	if (!strcmp(r, "BeginTime"))
		return restarts > 0 ? "cooldown" : "begin";
	if (!strncmp(r, "QOSMax", 6) && strstr(r, "PerJob"))
		return "unsatisfiable";
	/* QOSMaxGRESPerUser, QOSMaxJobsPerUserLimit,
	 * QOSMaxSubmitJobPerUserLimit, QOSMaxCpuPerUserLimit, ... */
	if (!strncmp(r, "QOSMax", 6) && strstr(r, "PerUser"))
		return "user_limit";
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].word, r))
			return tab[i].cls;
	return "";
}

int slurm_wait_status(int64_t ws)
{
	if (ws < 0)
		return -1;
	int sig = (int)(ws & 0x7f);
	if (sig == 0)
		return (int)((ws >> 8) & 0xff);
	return 128 + sig;
}

/* exit_code: a wait status (v0.0.38) or {status, return_code, signal}. */
static int exit_status(const json_t *v)
{
	if (json_is_object(v)) {
		const json_t *st = json_object_get(v, "status");
		char base[32];
		state_words(st, base, sizeof(base), "", NULL);
		int64_t sig = 0, rc = 0;
		num(json_object_get(json_object_get(v, "signal"), "id"), &sig);
		if (!strcmp(base, "SIGNALED") && sig > 0)
			return 128 + (int)sig;
		if (num(json_object_get(v, "return_code"), &rc) == NUM_SET)
			return (int)rc;
		return !strcmp(base, "SUCCESS") ? 0 : -1;
	}
	int64_t ws;
	if (num(v, &ws) != NUM_SET)
		return -1;
	return slurm_wait_status(ws);
}

static enum job_state job_state_of(const char *base, bool completing, bool configuring)
{
	if (!strcmp(base, "PENDING") || !strcmp(base, "REQUEUED"))
		return configuring ? JOB_STARTING : JOB_PENDING;
	if (!strcmp(base, "RUNNING") || !strcmp(base, "SUSPENDED"))
		return completing ? JOB_STOPPING : configuring ? JOB_STARTING : JOB_RUNNING;
	if (!strcmp(base, "CONFIGURING"))
		return JOB_STARTING;
	if (!strcmp(base, "COMPLETING") || !strcmp(base, "SIGNALING") || !strcmp(base, "STAGE_OUT"))
		return JOB_STOPPING;
	if (!strcmp(base, "COMPLETED"))
		return JOB_COMPLETED;
	if (!strcmp(base, "CANCELLED"))
		return JOB_CANCELLED;
	if (!strcmp(base, "TIMEOUT") || !strcmp(base, "DEADLINE"))
		return JOB_TIMEOUT;
	return JOB_FAILED;
}

/* "afterok:4(unfulfilled),afterany:5_*(unfulfilled)" or with '?' between:
 * every job id named, with its kind (depend.h); Slurm's kinds gq has no
 * word for (after: the start, aftercorr, afterburstbuffer) wait for the
 * job in some way, and are said as afterany. */
static void deps_parse(const char *s, struct job *j)
{
	const char *p = s;
	while (*p && j->ndeps < GQ_MAX_DEPS) {
		const char *colon = strchr(p, ':');
		if (!colon)
			break;
		enum dep_kind kind = DEP_AFTERANY;
		dep_kind_parse(p, (size_t)(colon - p), &kind);
		p = colon + 1;
		while (isdigit((unsigned char)*p)) {
			char *end;
			long long id = strtoll(p, &end, 10);
			if (id > 0 && j->ndeps < GQ_MAX_DEPS) {
				/* "afterok:4(failed)": Slurm says it can never be met. */
				if (!strncmp(end, "(failed)", 8))
					j->dep_dead |= (uint8_t)(1u << j->ndeps);
				j->dep_kind[j->ndeps] = (uint8_t)kind;
				j->deps[j->ndeps++] = id;
			}
			p = end;
			while (*p && *p != ':' && *p != ',' && *p != '?')
				p++;
			if (*p == ':')
				p++;
			else
				break;
		}
	}
}

static int node_index(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].name, name))
			return (int)i;
	return -1;
}

/* ReqNodeNotAvail or NodeDown of a job whose required nodes (a hostlist)
 * are all down or drained in s: unsatisfiable until they are up again,
 * the nodes named in ext_detail. Another reason, or a required node that
 * is up, leaves the job as it is (resources: it waits for them). */
static void required_nodes_down(const struct snapshot *s, const char *hostlist, struct job *j)
{
	if (!*hostlist ||
	    (strcmp(j->ext_reason, "ReqNodeNotAvail") &&
	     strncmp(j->ext_reason, "ReqNodeNotAvail,", 16) && strcmp(j->ext_reason, "NodeDown")))
		return;
	char names[16][64];
	int n = slurm_hostlist_expand(hostlist, names, 16);
	if (n <= 0)
		return;
	for (int k = 0; k < n; k++) {
		int ni = node_index(s, names[k]);
		if (ni < 0 || s->nodes[ni].up)
			return;
	}
	cpy(j->ext_class, sizeof(j->ext_class), "unsatisfiable");
	snprintf(j->ext_detail, sizeof(j->ext_detail), "%s down or drained", hostlist);
}

static int job_decode(const json_t *x, struct snapshot *s, const struct slurm_map *m, struct job *j,
		      struct slurm_job_extra *xe, struct gq_err *e)
{
	job_init(j);
	j->id = num0(x, "job_id");
	cpy(j->name, sizeof(j->name), str(x, "name"));
	cpy(j->user, sizeof(j->user), str(x, "user_name"));
	j->uid = (uint32_t)num0(x, "user_id");
	j->gid = (uint32_t)num0(x, "group_id");
	const char *part = str(x, "partition");
	/* A pending job may name several partitions: the first is its queue. */
	snprintf(j->queue, sizeof(j->queue), "%.*s", (int)strcspn(part, ","), part);
	cpy(j->dept, sizeof(j->dept), str(x, "account"));
	cpy(j->reservation, sizeof(j->reservation), str(x, "resv_name"));
	const char *qos = str(x, "qos");
	j->tier = slurm_map_tier(m, qos);
	cpy(j->ext_qos, sizeof(j->ext_qos), qos);

	char base[32];
	bool completing = false, configuring = false;
	const json_t *st = json_object_get(x, "job_state");
	state_words(st, base, sizeof(base), "COMPLETING", &completing);
	if (json_is_array(st))
		configuring = array_has(st, "CONFIGURING");
	else if (!strcmp(base, "CONFIGURING"))
		configuring = true;
	j->state = job_state_of(base, completing, configuring);
	j->exit_status =
	    job_state_active(j->state) ? -1 : exit_status(json_object_get(x, "exit_code"));

	/* The request: the job's total GPUs from the TRES string, else gres
	 * per node × nodes. */
	int64_t gpus = 0, nodes = num0(x, "node_count");
	char type[32];
	tres_gpus(str(x, "tres_req_str"), &gpus, type, sizeof(type));
	if (!gpus) {
		const char *pn = str(x, "tres_per_node");
		if (!*pn)
			pn = str(x, "gres");
		gpus = gres_gpus(pn, type, sizeof(type), NULL) * (nodes > 0 ? nodes : 1);
	}
	if (!type[0]) {
		char t2[32];
		gres_gpus(str(x, "tres_per_node"), t2, sizeof(t2), NULL);
		cpy(type, sizeof(type), t2);
	}
	j->req.gpus = gpus < 0 ? 0 : gpus > GQ_MAX_REQ_GPUS ? GQ_MAX_REQ_GPUS : (int)gpus;
	cpy(j->req.gpu_type, sizeof(j->req.gpu_type), type);
	j->req.same_node = nodes == 1 && j->req.gpus > 0;
	j->req.cpus = (int)num0(x, "cpus");
	int64_t mem = num0(x, "memory_per_node");
	if (!mem)
		mem = num0(x, "memory_per_cpu") * (j->req.cpus > 0 ? j->req.cpus : 1);
	j->req.mem_mb = mem;

	/* Times. start_time of a pending job is Slurm's estimate, not a start. */
	j->submit_time = num0(x, "submit_time");
	j->queued_time = j->submit_time;
	int64_t start = num0(x, "start_time"), end = num0(x, "end_time");
	if (j->state == JOB_PENDING) {
		j->ext_start = start;
	} else {
		j->start_time = start;
		if (!job_state_active(j->state))
			j->end_time = end;
		/* Slurm gives a job that ended without running (cancelled while
		 * pending or held, refused at submit) its end as start_time; no
		 * node was ever allocated to it: it never started. */
		if (!job_state_active(j->state) && json_is_string(json_object_get(x, "nodes")) &&
		    !*str(x, "nodes") && !*str(x, "batch_host"))
			j->start_time = 0;
	}
	int64_t lim;
	if (num(json_object_get(x, "time_limit"), &lim) == NUM_SET && lim > 0)
		j->time_limit = lim * 60;
	j->restarts = (int)num0(x, "restart_cnt");
	const char *reason = str(x, "state_reason");
	if (j->state == JOB_PENDING) {
		cpy(j->ext_reason, sizeof(j->ext_reason), reason);
		cpy(j->ext_class, sizeof(j->ext_class), slurm_reason_class(reason, j->restarts));
		/* squeue's "ReqNodeNotAvail, Reserved for maintenance": a
		 * reservation of the nodes, not nodes that are gone. */
		if (!strcmp(reason, "ReqNodeNotAvail") &&
		    strstr(str(x, "state_description"), "Reserved for maintenance"))
			cpy(j->ext_class, sizeof(j->ext_class), "reservation");
		int64_t elig = num0(x, "eligible_time");
		/* An eligible time ahead is a --begin whatever the reason shown
		 * (Dependency hides it: "--after 82 --begin now+40m"); as
		 * BeginTime after a requeue, a cooldown (slurm_reason_class's
		 * rule). */
		if (elig > s->now)
			*(j->restarts > 0 && !strcmp(reason, "BeginTime") ? &j->not_before
									  : &j->begin_time) = elig;
		if (!strcmp(reason, "JobHeldUser") || !strcmp(reason, "JobHeldAdmin") ||
		    !strcmp(reason, "JobHoldMaxRequeue") ||
		    json_is_true(json_object_get(x, "hold"))) {
			j->held = true;
			cpy(j->held_by, sizeof(j->held_by),
			    !strcmp(reason, "JobHeldUser") ? j->user : "admin");
		}
	}
	int64_t prio = 0;
	bool prio_set = num(json_object_get(x, "priority"), &prio) == NUM_SET;
	j->ext_prio = prio;
	/* Priority 0 is Slurm's hold (an operator's unless the user's own),
	 * whatever reason it shows beside. */
	if (j->state == JOB_PENDING && prio_set && prio == 0 && !j->held) {
		j->held = true;
		cpy(j->held_by, sizeof(j->held_by),
		    !strcmp(reason, "JobHeldUser") ? j->user : "admin");
		cpy(j->ext_class, sizeof(j->ext_class), "held");
	}
	deps_parse(str(x, "dependency"), j);
	if (j->dep_dead && j->state == JOB_PENDING)
		cpy(j->ext_detail, sizeof(j->ext_detail), "can never be met");
	if (j->state == JOB_PENDING) /* required nodes down: never, for now */
		required_nodes_down(s, str(x, "required_nodes"), j);

	/* Arrays: the pending record stands for its task range. */
	int64_t task;
	bool has_task = num(json_object_get(x, "array_task_id"), &task) == NUM_SET;
	const char *tasks = str(x, "array_task_string");
	if (num0(x, "array_job_id") && !has_task && *tasks)
		cpy(j->ext_array, sizeof(j->ext_array), tasks);
	/* A task split off to run (or the last one) is one task, A_T as
	 * squeue names it; Slurm keeps its throttle itself. */
	if (num0(x, "array_job_id") && has_task && task >= 0 && task < INT32_MAX) {
		j->array_id = num0(x, "array_job_id");
		j->array_task = (int)task;
	}

	/* The allocation: one gres_detail entry per node of the hostlist. */
	if (nodes > GQ_MAX_SPAN)
		return err_set(e, GQ_ETOOBIG,
			       "job '%lld' spans %lld nodes, more than the %d gq holds per job",
			       (long long)j->id, (long long)nodes, GQ_MAX_SPAN);
	if (job_state_holds_gpus(j->state)) {
		int cap = nodes > 0 ? (int)nodes : GQ_MAX_SPAN;
		char(*names)[64] = xmalloc((size_t)cap * sizeof(*names));
		int nn = slurm_hostlist_expand(str(x, "nodes"), names, cap);
		if (nn > 0)
			j->alloc = xcalloc((size_t)nn, sizeof(*j->alloc));
		const json_t *gd = json_object_get(x, "gres_detail");
		for (int k = 0; k < nn; k++) {
			int ni = node_index(s, names[k]);
			if (ni < 0)
				continue;
			uint64_t mask = 0;
			const char *d = json_string_value(json_array_get(gd, (size_t)k));
			if (d) {
				char t[32];
				gres_gpus(d, t, sizeof(t), &mask);
			}
			if (!mask && !j->req.gpus)
				continue;
			j->alloc[j->nalloc].node = ni;
			j->alloc[j->nalloc++].mask = mask;
		}
		free(names);
		if (!j->nalloc)
			job_release(j);
	}
	if (xe) {
		memset(xe, 0, sizeof(*xe));
		cpy(xe->cwd, sizeof(xe->cwd), str(x, "current_working_directory"));
		cpy(xe->stdout_path, sizeof(xe->stdout_path), str(x, "standard_output"));
		cpy(xe->stderr_path, sizeof(xe->stderr_path), str(x, "standard_error"));
		cpy(xe->command, sizeof(xe->command), str(x, "command"));
		cpy(xe->nodes, sizeof(xe->nodes), str(x, "nodes"));
		cpy(xe->qos, sizeof(xe->qos), qos);
		cpy(xe->partition, sizeof(xe->partition), part);
		cpy(xe->dependency, sizeof(xe->dependency), str(x, "dependency"));
		xe->array_job_id = num0(x, "array_job_id");
		xe->array_task_id = has_task ? task : -1;
		cpy(xe->array_tasks, sizeof(xe->array_tasks), tasks);
	}
	return 0;
}

/* The GPU count of a slurmdbd TRES list: its "gres" entry named "gpu"
 * (the typed "gpu:a100" entries repeat it); -1 when none. */
static int acct_gpus(const json_t *tres)
{
	size_t i;
	json_t *t;
	json_array_foreach(tres, i, t)
	{
		if (!strcmp(str(t, "type"), "gres") && !strcmp(str(t, "name"), "gpu"))
			return (int)num0(t, "count");
	}
	return -1;
}

/* A record's GPUs: allocated, else requested (a job that never ran). */
static int acct_job_gpus(const json_t *x)
{
	const json_t *tres = json_object_get(x, "tres");
	int g = acct_gpus(json_object_get(tres, "allocated"));
	if (g < 0)
		g = acct_gpus(json_object_get(tres, "requested"));
	return g > 0 ? g : 0;
}

/* A record's base state ("COMPLETED") into base[32]. */
static void acct_state(const json_t *x, char base[32])
{
	state_words(json_object_get(json_object_get(x, "state"), "current"), base, 32, "", NULL);
}

int slurm_runs_decode(const char *text, size_t len, struct slurm_run **out, size_t *n,
		      struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "jobs"), i, x)
	{
		char base[32];
		acct_state(x, base);
		int64_t el = num0(json_object_get(x, "time"), "elapsed");
		if (strcmp(base, "COMPLETED") || el <= 0)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct slurm_run *r = &(*out)[(*n)++];
		r->id = num0(x, "job_id");
		r->elapsed = el;
		cpy(r->user, sizeof(r->user), str(x, "user"));
		cpy(r->name, sizeof(r->name), str(x, "name"));
	}
	json_decref(v);
	return 0;
}

int slurm_acct_decode(const char *text, size_t len, const struct slurm_map *m,
		      struct stats_acct **out, size_t *n, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "jobs"), i, x)
	{
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct stats_acct *a = &(*out)[(*n)++];
		memset(a, 0, sizeof(*a));
		num(json_object_get(x, "job_id"), &a->id);
		snprintf(a->user, sizeof(a->user), "%s", str(x, "user"));
		snprintf(a->queue, sizeof(a->queue), "%s", str(x, "partition"));
		snprintf(a->dept, sizeof(a->dept), "%s", str(x, "account"));
		a->tier = slurm_map_tier(m, str(x, "qos"));
		a->gpus = acct_job_gpus(x);
		char base[32];
		acct_state(x, base);
		a->state = job_state_of(base, false, false);
		a->preempted = !strcmp(base, "PREEMPTED");
		const json_t *t = json_object_get(x, "time");
		a->submit = num0(t, "submission");
		if (a->state != JOB_PENDING) {
			a->start = num0(t, "start");
			if (!job_state_active(a->state))
				a->end = num0(t, "end");
		}
	}
	json_decref(v);
	return 0;
}

/* A record's exit status: a signal (128 + its number; slurmdbd says
 * "signal_id", slurmctld "id"), a return code over 0, 0 for a completed job,
 * else -1: slurmdbd 22.05 records a failed batch job's own code as SUCCESS
 * 0, which is not what ended it. */
static int acct_exit(const json_t *x, enum job_state st)
{
	const json_t *v = json_object_get(x, "exit_code");
	char base[32];
	state_words(json_object_get(v, "status"), base, sizeof(base), "", NULL);
	const json_t *sig = json_object_get(v, "signal");
	int64_t n = num0(sig, "signal_id");
	if (n <= 0)
		n = num0(sig, "id");
	if (!strcmp(base, "SIGNALED") && n > 0 && n < 128)
		return 128 + (int)n;
	n = num0(v, "return_code");
	if (n > 0 && n < 256)
		return (int)n;
	return st == JOB_COMPLETED ? 0 : -1;
}

int slurm_hist_decode(const char *text, size_t len, const struct slurm_map *m, struct job **out,
		      size_t *n, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(v, "jobs"), i, x)
	{
		char base[32];
		acct_state(x, base);
		enum job_state st = job_state_of(base, false, false);
		int64_t id = num0(x, "job_id");
		if (job_state_active(st) || id <= 0)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct job *j = &(*out)[(*n)++];
		job_init(j);
		j->id = id;
		cpy(j->name, sizeof(j->name), str(x, "name"));
		cpy(j->user, sizeof(j->user), str(x, "user"));
		cpy(j->queue, sizeof(j->queue), str(x, "partition"));
		cpy(j->dept, sizeof(j->dept), str(x, "account"));
		cpy(j->ext_qos, sizeof(j->ext_qos), str(x, "qos"));
		j->tier = slurm_map_tier(m, str(x, "qos"));
		j->state = st;
		j->exit_status = acct_exit(x, st);
		j->req.gpus = acct_job_gpus(x);
		const json_t *t = json_object_get(x, "time");
		j->submit_time = j->queued_time = num0(t, "submission");
		j->start_time = num0(t, "start");
		j->end_time = num0(t, "end");
		/* Cancelled before it started: Slurm writes its end as its start,
		 * and no node. */
		if (j->start_time > j->end_time || !strcmp(str(x, "nodes"), "None assigned"))
			j->start_time = 0;
		const json_t *arr = json_object_get(x, "array");
		int64_t task;
		if (num0(arr, "job_id") > 0 &&
		    num(json_object_get(arr, "task_id"), &task) == NUM_SET && task >= 0 &&
		    task < INT32_MAX) {
			j->array_id = num0(arr, "job_id");
			j->array_task = (int)task;
		}
	}
	json_decref(v);
	return 0;
}

int slurm_jobs_decode(const char *text, size_t len, struct snapshot *s, const struct slurm_map *m,
		      struct slurm_job_extra **extra, size_t *nextra, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	const json_t *arr = json_object_get(v, "jobs");
	size_t n = json_array_size(arr);
	if (extra) {
		*extra = xcalloc(n ? n : 1, sizeof(**extra));
		*nextra = n;
	}
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		struct job *j = snapshot_add_job(s);
		if (job_decode(x, s, m, j, extra ? &(*extra)[i] : NULL, e) < 0) {
			json_decref(v);
			if (extra) {
				free(*extra);
				*extra = NULL;
				*nextra = 0;
			}
			return -1;
		}
	}
	json_decref(v);
	return 0;
}

/* ---- requests ---- */

static char *dump(json_t *v)
{
	char *t = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	return t ? t : xstrdup("{}");
}

/* A number as v0.0.38 (plain) or v0.0.40+ ({set, infinite, number}). */
static json_t *jnum(int64_t n, int minor)
{
	if (minor >= 40)
		return json_pack("{s:b,s:b,s:I}", "set", 1, "infinite", 0, "number", (json_int_t)n);
	return json_integer((json_int_t)n);
}

static void set_str(json_t *o, const char *k, const char *v)
{
	if (v && *v) {
		json_t *s = json_string(v);
		if (s)
			json_object_set_new(o, k, s);
	}
}

char *slurm_submit_encode(const struct slurm_submit *r, int minor)
{
	json_t *job = json_object();
	set_str(job, "name", r->name);
	set_str(job, "partition", r->partition);
	set_str(job, "qos", r->qos);
	set_str(job, "account", r->account);
	set_str(job, "current_working_directory", r->cwd);
	set_str(job, "standard_output", r->stdout_path);
	set_str(job, "standard_error", r->stderr_path);
	set_str(job, "signal", r->signal);
	if (r->gpus > 0) {
		char g[96];
		const char *t = r->gpu_type && *r->gpu_type ? r->gpu_type : NULL;
		if (r->gpus_per_node) {
			if (minor >= 40)
				snprintf(g, sizeof(g), "gres/gpu%s%s:%d", t ? ":" : "", t ? t : "",
					 r->gpus);
			else
				snprintf(g, sizeof(g), "gpu%s%s:%d", t ? ":" : "", t ? t : "",
					 r->gpus);
			json_object_set_new(job, minor >= 40 ? "tres_per_node" : "gres",
					    json_string(g));
			if (!r->nodes_min)
				json_object_set_new(job, "minimum_nodes", json_integer(1));
		} else {
			if (minor >= 40)
				snprintf(g, sizeof(g), "gres/gpu%s%s:%d", t ? ":" : "", t ? t : "",
					 r->gpus);
			else
				snprintf(g, sizeof(g), "%s%s%d", t ? t : "", t ? ":" : "", r->gpus);
			json_object_set_new(job, minor >= 40 ? "tres_per_job" : "gpus",
					    json_string(g));
		}
	}
	/* Nodes: v0.0.38 reads "MIN[-MAX]" as sbatch's -N (an array, as its
	 * OpenAPI says, is taken and ignored); v0.0.40 on have two numbers. */
	if (r->nodes_min > 0) {
		if (minor >= 40) {
			json_object_set_new(job, "minimum_nodes", json_integer(r->nodes_min));
			json_object_set_new(
			    job, "maximum_nodes",
			    json_integer(r->nodes_max ? r->nodes_max : r->nodes_min));
		} else {
			char nodes[32];
			if (r->nodes_max)
				snprintf(nodes, sizeof(nodes), "%d-%d", r->nodes_min, r->nodes_max);
			else
				snprintf(nodes, sizeof(nodes), "%d", r->nodes_min);
			set_str(job, "nodes", nodes);
		}
	}
	if (r->tasks > 0)
		json_object_set_new(job, "tasks", json_integer(r->tasks));
	if (r->tasks_per_node > 0)
		json_object_set_new(job, "tasks_per_node", json_integer(r->tasks_per_node));
	set_str(job, "constraints", r->constraint);
	set_str(job, "mail_user", r->mail_user);
	/* v0.0.38 takes sbatch's text for both ("exclusive" is the whole node,
	 * though its OpenAPI lists "true", which slurmctld refuses); v0.0.40 on
	 * take lists of flags *(unverified: no such server here)*. */
	if (r->exclusive && minor >= 40)
		json_object_set_new(
		    job, "exclusive",
		    json_pack("[s]", !strcmp(r->exclusive, "exclusive") ? "true" : r->exclusive));
	else
		set_str(job, "exclusive", r->exclusive);
	if (r->mail_type && minor >= 40) {
		json_t *l = json_array();
		char mt[64];
		snprintf(mt, sizeof(mt), "%s", r->mail_type);
		for (char *save = NULL, *w = strtok_r(mt, ",", &save); w;
		     w = strtok_r(NULL, ",", &save))
			json_array_append_new(l, json_string(w));
		json_object_set_new(job, "mail_type", l);
	} else {
		set_str(job, "mail_type", r->mail_type);
	}
	if (r->cpus > 0)
		json_object_set_new(job, minor >= 40 ? "minimum_cpus" : "cpus_per_task",
				    json_integer(r->cpus));
	if (r->mem_mb > 0)
		json_object_set_new(job, "memory_per_node", jnum(r->mem_mb, minor));
	if (r->time_limit > 0)
		json_object_set_new(job, "time_limit", jnum((r->time_limit + 59) / 60, minor));
	if (r->hold)
		json_object_set_new(job, "hold", json_true());
	if (r->array && *r->array)
		set_str(job, "array", r->array);
	if (r->begin && *r->begin) /* a string in v0.0.38: an integer is refused */
		set_str(job, "begin_time", r->begin);
	if (r->reservation && *r->reservation)
		set_str(job, "reservation", r->reservation);
	if (r->after && *r->after)
		set_str(job, "dependency", r->after);
	else if (r->dependency && *r->dependency)
		set_str(job, "dependency", r->dependency);
	/* environment: an object (v0.0.38, required) or ["K=V"] (v0.0.40+). */
	json_t *env = minor >= 40 ? json_array() : json_object();
	for (char **p = r->env; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		if (!eq || eq == *p)
			continue;
		json_t *val = json_string(minor >= 40 ? *p : eq + 1);
		if (!val)
			continue;
		if (minor >= 40) {
			json_array_append_new(env, val);
		} else {
			char key[256];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - *p), *p);
			json_object_set_new(env, key, val);
		}
	}
	if (json_is_object(env) && !json_object_size(env))
		json_object_set_new(env, "PATH", json_string("/usr/bin:/bin"));
	json_object_set_new(job, "environment", env);
	json_t *body = json_object();
	json_t *script = json_string(r->script ? r->script : "#!/bin/sh\n");
	if (!script)
		script = json_string("#!/bin/sh\n");
	if (minor >= 40)
		json_object_set_new(job, "script", script);
	else
		json_object_set_new(body, "script", script);
	json_object_set_new(body, "job", job);
	return dump(body);
}

int slurm_submit_decode(const char *text, size_t len, int64_t *id, struct gq_err *e)
{
	json_t *v = parse(text, len, e);
	if (!v)
		return -1;
	int64_t n = 0;
	if (num(json_object_get(v, "job_id"), &n) != NUM_SET || n <= 0)
		num(json_object_get(json_object_get(v, "result"), "job_id"), &n);
	json_decref(v);
	if (n <= 0)
		return err_set(e, GQ_EINTERNAL, "Slurm's answer to a submission has no job id");
	*id = n;
	return 0;
}

char *slurm_update_hold(bool hold, int minor)
{
	return dump(json_pack("{s:b}", "hold", hold));
}

char *slurm_update_qos(const char *qos, int minor)
{
	json_t *o = json_object();
	set_str(o, "qos", qos);
	return dump(o);
}

char *slurm_update_priority(int64_t prio, int minor)
{
	if (minor >= 40)
		return dump(json_pack("{s:o}", "priority", jnum(prio, minor)));
	char b[32];
	snprintf(b, sizeof(b), "%" PRId64, prio);
	return dump(json_pack("{s:s}", "priority", b));
}

int64_t slurm_diag_time(const char *text, size_t len)
{
	struct gq_err e = GQ_ERR_INIT;
	json_t *v = parse(text, len, &e);
	if (!v)
		return 0;
	int64_t t = 0;
	if (num(json_object_get(json_object_get(v, "statistics"), "req_time"), &t) != NUM_SET ||
	    t < 0)
		t = 0;
	json_decref(v);
	return t;
}

int64_t slurm_diag_job_queries(const char *text, size_t len)
{
	struct gq_err e = GQ_ERR_INIT;
	json_t *v = parse(text, len, &e);
	if (!v)
		return -1;
	int64_t n = -1;
	size_t i;
	json_t *x;
	json_array_foreach(
	    json_object_get(json_object_get(v, "statistics"), "rpcs_by_message_type"), i, x)
	{
		if (!strcmp(str(x, "message_type"), "REQUEST_JOB_INFO"))
			n = num0(x, "count");
	}
	json_decref(v);
	return n;
}

char *slurm_update_fields(const struct job *j, unsigned set, const char *qos, const char *begin,
			  int minor)
{
	json_t *o = json_object();
	if (set & UPD_NAME)
		set_str(o, "name", j->name);
	if (set & UPD_QUEUE)
		set_str(o, "partition", j->queue);
	if (set & UPD_TIER)
		set_str(o, "qos", qos);
	if (set & UPD_TIME_LIMIT)
		json_object_set_new(o, "time_limit", jnum((j->time_limit + 59) / 60, minor));
	if (set & UPD_BEGIN)
		set_str(o, "begin_time", begin);
	if (set & UPD_DEPS) {
		char dep[512];
		dep_format(j, dep, sizeof(dep));
		json_object_set_new(o, "dependency", json_string(dep));
	}
	return dump(o);
}
