/*
 * file.c - policy files through libgit2's config parser (see file.h).
 *
 * libgit2 parses only files on disk, so text from a commit goes through a
 * private temporary file; its name is replaced by the caller's in messages.
 * Values always come from libgit2; pfile_key_line() scans the text only to
 * say which line a rejected key is on.
 */
#include "file.h"

#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "git.h"

struct apply_ctx {
	struct policy *p;
	const char *text;
	const char *shown;
	struct gq_err *e;
};

static int apply_entry(const git_config_entry *ent, void *arg)
{
	struct apply_ctx *c = arg;
	/* A bare "key" line (no '=') has no value: policy_set says so. */
	if (policy_set(c->p, ent->name, ent->value, c->e) < 0) {
		int line = pfile_key_line(c->text, ent->name);
		if (line > 0)
			err_prefix(c->e, "%s:%d", c->shown, line);
		else
			err_prefix(c->e, "%s", c->shown);
		return GIT_EUSER;
	}
	return 0;
}

#define TMP_PATH_MAX 4096 /* the temporary file's path, with its NUL */

/* text parsed by libgit2 through a temporary file (it parses files) that
 * tmp names, for the caller to unlink once it freed the config; NULL with e
 * filled (and nothing left to unlink). */
static git_config *open_text(const char *text, size_t len, const char *shown,
			     char tmp[TMP_PATH_MAX], struct gq_err *e)
{
	const char *env = getenv("TMPDIR"), *dir = env && *env ? env : "/tmp";
	int plen = snprintf(tmp, TMP_PATH_MAX, "%s/gq-policy-XXXXXX", dir);
	if (plen < 0 || plen >= TMP_PATH_MAX) {
		err_set(e, GQ_EIO,
			"TMPDIR '%.64s...' is too long for a temporary file; set a shorter one",
			dir);
		return NULL;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(e, GQ_EIO, "cannot create a temporary file in '%s': %s; set TMPDIR", dir,
			strerror(errno));
		return NULL;
	}
	git_config *cfg = NULL;
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_set(e, GQ_EIO, "cannot write '%s': %s", tmp, strerror(errno));
			close(fd);
			goto out;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0) {
		err_set(e, GQ_EIO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (git_config_new(&cfg) < 0) {
		gitx_err(e, -1, "%s", shown);
		goto out;
	}
	if (git_config_add_file_ondisk(cfg, tmp, GIT_CONFIG_LEVEL_APP, NULL, 0) < 0) {
		gitx_parse_err(e, tmp, shown);
		goto out;
	}
	return cfg;
out:
	git_config_free(cfg);
	unlink(tmp);
	return NULL;
}

int pfile_parse_text(struct policy *p, const char *text, size_t len, const char *shown,
		     struct gq_err *e)
{
	gitx_init();
	if (len > POLICY_FILE_MAX)
		return err_set(e, GQ_ETOOBIG, "%s: policy file over %d bytes; split or shorten it",
			       shown, POLICY_FILE_MAX);
	if (memchr(text, '\0', len))
		return err_set(e, GQ_EINVAL, "%s: contains a NUL byte; a policy file is text",
			       shown);
	char tmp[TMP_PATH_MAX];
	git_config *cfg = open_text(text, len, shown, tmp, e);
	if (!cfg)
		return -1;
	struct apply_ctx c = {p, text, shown, e};
	int rc = -1, frc = git_config_foreach(cfg, apply_entry, &c);
	if (frc == GIT_EUSER)
		goto out;
	if (frc < 0) {
		gitx_err(e, frc, "%s", shown);
		goto out;
	}
	rc = 0;
out:
	git_config_free(cfg);
	unlink(tmp);
	return rc;
}

int pfile_validate_text(const struct policy *p, const char *text, const char *shown,
			struct gq_err *e)
{
	if (policy_validate(p, e) == 0)
		return 0;
	/* The message starts with the key it is about ("queue.exp.department: ..."). */
	char key[128];
	size_t n = strcspn(e->msg, ": ");
	int line = 0;
	if (n < sizeof(key) && e->msg[n] == ':') {
		memcpy(key, e->msg, n);
		key[n] = '\0';
		line = text ? pfile_key_line(text, key) : 0;
	}
	if (line > 0)
		err_prefix(e, "%s:%d", shown, line);
	else
		err_prefix(e, "%s", shown);
	return -1;
}

char *pfile_read_file(const char *path, size_t *len, struct gq_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, errno == ENOENT ? GQ_ENOENT : GQ_EIO, "cannot open '%s': %s",
			       path, strerror(errno)),
		       NULL;
	struct buf b;
	buf_init(&b, POLICY_FILE_MAX);
	char chunk[8192];
	size_t n;
	char *out = NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (buf_add(&b, chunk, n) < 0) {
			err_set(e, GQ_ETOOBIG,
				"'%s' is over %d bytes; a policy file is a few kilobytes", path,
				POLICY_FILE_MAX);
			goto out;
		}
	}
	if (ferror(f)) {
		err_set(e, GQ_EIO, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	*len = b.len;
	out = b.data ? buf_detach(&b) : xstrdup("");
out:
	buf_release(&b);
	fclose(f);
	return out;
}

int pfile_load_file(const char *path, struct policy *out, struct gq_err *e)
{
	size_t len = 0;
	char *text = pfile_read_file(path, &len, e);
	if (!text)
		return -1;
	struct policy *p = xmalloc(sizeof(*p));
	policy_defaults(p);
	int rc = -1;
	if (pfile_parse_text(p, text, len, path, e) < 0 ||
	    pfile_validate_text(p, text, path, e) < 0)
		goto out;
	*out = *p;
	rc = 0;
out:
	free(p);
	free(text);
	return rc;
}

/* Parses a section header at s ('[' already seen at s[0]) into sec and sub;
 * returns the position after ']' or NULL. */
static const char *parse_header(const char *s, char *sec, size_t secsz, char *sub, size_t subsz,
				bool *sub_exact)
{
	s++;
	size_t n = 0;
	while (*s && (isalnum((unsigned char)*s) || *s == '-' || *s == '.') && n + 1 < secsz)
		sec[n++] = *s++;
	sec[n] = '\0';
	sub[0] = '\0';
	*sub_exact = false;
	char *dot = strchr(sec, '.');
	if (dot) { /* legacy [section.sub]: the subsection is lowercased */
		*dot = '\0';
		str_copy(sub, subsz, dot + 1);
		for (char *c = sub; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"') {
		s++;
		n = 0;
		while (*s && *s != '"' && *s != '\n') {
			if (*s == '\\' && s[1])
				s++;
			if (n + 1 < subsz)
				sub[n++] = *s;
			s++;
		}
		sub[n] = '\0';
		*sub_exact = true;
		if (*s == '"')
			s++;
	}
	while (*s && *s != ']' && *s != '\n')
		s++;
	return *s == ']' ? s + 1 : NULL;
}

/* The first and last lines of text that set key, and how many do. */
static int key_lines(const char *text, const char *key, int *first, int *last)
{
	*first = *last = 0;
	const char *d1 = strchr(key, '.'), *d2 = strrchr(key, '.');
	if (!d1 || !d2)
		return 0;
	char ksec[64], ksub[128], kname[64];
	if ((size_t)(d1 - key) >= sizeof(ksec) || strlen(d2 + 1) >= sizeof(kname))
		return 0;
	memcpy(ksec, key, (size_t)(d1 - key));
	ksec[d1 - key] = '\0';
	ksub[0] = '\0';
	if (d2 > d1) {
		size_t n = (size_t)(d2 - d1 - 1);
		if (n >= sizeof(ksub))
			return 0;
		memcpy(ksub, d1 + 1, n);
		ksub[n] = '\0';
	}
	str_copy(kname, sizeof(kname), d2 + 1);

	char sec[64] = "", sub[128] = "";
	bool exact = false;
	int line = 1, count = 0;
	for (const char *s = text; *s; line++) {
		const char *eol = strchr(s, '\n');
		const char *end = eol ? eol : s + strlen(s);
		const char *c = s;
		while (c < end && (*c == ' ' || *c == '\t'))
			c++;
		if (c < end && *c == '[') {
			const char *after =
			    parse_header(c, sec, sizeof(sec), sub, sizeof(sub), &exact);
			c = after && after < end ? after : end;
			while (c < end && (*c == ' ' || *c == '\t'))
				c++;
		}
		if (c < end && isalpha((unsigned char)*c)) {
			size_t n = 0;
			while (c + n < end && (isalnum((unsigned char)c[n]) || c[n] == '-'))
				n++;
			bool sub_ok = exact ? !strcmp(sub, ksub) : !strcasecmp(sub, ksub);
			if (n == strlen(kname) && !strncasecmp(c, kname, n) &&
			    !strcasecmp(sec, ksec) && sub_ok) {
				if (!count++)
					*first = line;
				*last = line;
			}
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	return count;
}

int pfile_key_line(const char *text, const char *key)
{
	int first, last;
	key_lines(text, key, &first, &last);
	return last;
}

struct dup_ctx {
	const char *text, *shown;
	struct buf *out;
	char **seen;
	size_t nseen, cap;
};

static int dup_entry(const git_config_entry *ent, void *arg)
{
	struct dup_ctx *c = arg;
	for (size_t i = 0; i < c->nseen; i++)
		if (!strcmp(c->seen[i], ent->name))
			return 0; /* said once, at its first repeat */
	GROW(c->seen, c->cap, c->nseen + 1);
	c->seen[c->nseen++] = xstrdup(ent->name);
	int first, last, n = key_lines(c->text, ent->name, &first, &last);
	if (n > 1)
		buf_printf(c->out,
			   "%s:%d and %d: '%s' is set %s; the last value (line %d) is the one "
			   "used\n",
			   c->shown, first, last, ent->name, n == 2 ? "twice" : "more than twice",
			   last);
	return 0;
}

char *pfile_duplicates(const char *text, size_t len, const char *shown)
{
	struct gq_err e = GQ_ERR_INIT;
	char tmp[TMP_PATH_MAX];
	gitx_init();
	if (len > POLICY_FILE_MAX || memchr(text, '\0', len))
		return NULL; /* the parse says why */
	git_config *cfg = open_text(text, len, shown, tmp, &e);
	if (!cfg)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	struct dup_ctx c = {.text = text, .shown = shown, .out = &b};
	git_config_foreach(cfg, dup_entry, &c);
	git_config_free(cfg);
	unlink(tmp);
	for (size_t i = 0; i < c.nseen; i++)
		free(c.seen[i]);
	free(c.seen);
	if (!b.len) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Quotes a value when git-config would otherwise change it. */
static void add_value(struct buf *b, const char *v)
{
	bool plain = *v && v[0] != ' ' && v[strlen(v) - 1] != ' ' && !strpbrk(v, "#;\"\\");
	if (plain) {
		buf_addstr(b, v);
		return;
	}
	buf_addstr(b, "\"");
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf_addstr(b, "\\");
		buf_add(b, c, 1);
	}
	buf_addstr(b, "\"");
}

struct render_item {
	char header[160];
	char name[64];
	char *value;
	const char *doc;
};

struct render_ctx {
	struct render_item *items;
	size_t n, cap;
};

static void collect_key(const struct policy_key_info *ki, void *arg)
{
	struct render_ctx *c = arg;
	GROW(c->items, c->cap, c->n + 1);
	struct render_item *it = &c->items[c->n++];
	const char *d1 = strchr(ki->key, '.'), *d2 = strrchr(ki->key, '.');
	if (d1 == d2)
		snprintf(it->header, sizeof(it->header), "[%.*s]", (int)(d1 - ki->key), ki->key);
	else
		snprintf(it->header, sizeof(it->header), "[%.*s \"%.*s\"]", (int)(d1 - ki->key),
			 ki->key, (int)(d2 - d1 - 1), d1 + 1);
	STR_COPY(it->name, d2 + 1);
	it->value = xstrdup(ki->value);
	it->doc = ki->doc;
}

char *pfile_default_text(void)
{
	struct policy *p = xmalloc(sizeof(*p));
	policy_defaults(p);
	struct render_ctx c = {NULL, 0, 0};
	policy_foreach(p, collect_key, &c);
	struct buf b;
	buf_init(&b, 0);
	buf_addstr(
	    &b, "# gq scheduling policy, in git-config syntax; gq-policy(5) describes every key.\n"
		"# Change it with 'gq policy edit' (or commit here yourself), check it with\n"
		"# 'gq policy check', put it in force with 'gq policy apply'.\n"
		"# Every key below is set to its default; a key left out keeps its default.\n");
	/* Keys of one section together, sections in the order they first appear. */
	for (size_t i = 0; i < c.n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c.items[j].header, c.items[i].header);
		if (seen)
			continue;
		buf_printf(&b, "\n%s\n", c.items[i].header);
		for (size_t j = i; j < c.n; j++) {
			if (strcmp(c.items[j].header, c.items[i].header))
				continue;
			buf_printf(&b, "\t# %s\n\t%s = ", c.items[j].doc, c.items[j].name);
			add_value(&b, c.items[j].value);
			buf_addstr(&b, "\n");
		}
	}
	for (size_t i = 0; i < c.n; i++)
		free(c.items[i].value);
	free(c.items);
	free(p);
	return buf_detach(&b);
}
