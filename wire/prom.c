/*
 * prom.c - prom.h's writer. Numbers go through snprintf in a C locale of
 * their own (uselocale), so that a server started under a decimal-comma
 * locale still writes "0.5": Prometheus' parser takes nothing else.
 */
#include "prom.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		BUG("cannot make the C locale");
}

static void add(struct buf *b, const char *s)
{
	if (buf_addstr(b, s) < 0)
		BUG("the metrics buffer refused data");
}

static void addc(struct buf *b, char c)
{
	if (buf_add(b, &c, 1) < 0)
		BUG("the metrics buffer refused data");
}

/* s with '\' and line feeds escaped, and '"' too when quote. */
static void add_escaped(struct buf *b, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			add(b, "\\\\");
		else if (*s == '\n')
			add(b, "\\n");
		else if (*s == '"' && quote)
			add(b, "\\\"");
		else
			addc(b, *s);
	}
}

static void check_name(const char *n)
{
	if (!n || !n[0] || (n[0] >= '0' && n[0] <= '9'))
		BUG("bad metric or label name '%s'", n ? n : "(null)");
	for (const char *p = n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			BUG("bad metric or label name '%s'", n);
}

void prom_family(struct buf *b, const char *name, const char *type, const char *help)
{
	check_name(name);
	add(b, "# HELP ");
	add(b, name);
	addc(b, ' ');
	add_escaped(b, help, 0);
	add(b, "\n# TYPE ");
	add(b, name);
	addc(b, ' ');
	add(b, type);
	addc(b, '\n');
}

void prom_number(double v, char *out, size_t size)
{
	if (!isfinite(v))
		BUG("prom_number of a value that is not finite");
	if (v == 0) { /* -0 too */
		snprintf(out, size, "0");
		return;
	}
	if (fabs(v) < 9007199254740992.0 && v == floor(v)) {
		snprintf(out, size, "%lld", (long long)v);
		return;
	}
	pthread_once(&c_once, c_locale_init);
	locale_t old = uselocale(c_locale);
	/* The shortest of 15, 16 or 17 digits that reads back as v. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, size, "%.*g", prec, v);
		if (prec == 17 || strtod(out, NULL) == v)
			break;
	}
	uselocale(old);
}

static void add_labels(struct buf *b, const struct prom_label *labels, size_t n, const char *le)
{
	if (n == 0 && !le)
		return;
	addc(b, '{');
	for (size_t i = 0; i < n; i++) {
		check_name(labels[i].name);
		if (i)
			addc(b, ',');
		add(b, labels[i].name);
		add(b, "=\"");
		add_escaped(b, labels[i].value ? labels[i].value : "", 1);
		addc(b, '"');
	}
	if (le) {
		if (n)
			addc(b, ',');
		add(b, "le=\"");
		add(b, le);
		addc(b, '"');
	}
	addc(b, '}');
}

static void line(struct buf *b, const char *name, const char *suffix,
		 const struct prom_label *labels, size_t n, const char *le, const char *value)
{
	add(b, name);
	add(b, suffix);
	add_labels(b, labels, n, le);
	addc(b, ' ');
	add(b, value);
	addc(b, '\n');
}

int prom_sample(struct buf *b, const char *name, const struct prom_label *labels, size_t nlabels,
		double value)
{
	check_name(name);
	if (!isfinite(value))
		return -1;
	char num[32];
	prom_number(value, num, sizeof(num));
	line(b, name, "", labels, nlabels, NULL, num);
	return 0;
}

void prom_hist_init(struct prom_hist *h, const double *bounds, size_t n)
{
	memset(h, 0, sizeof(*h));
	if (n > PROM_HIST_MAX)
		BUG("a histogram of %zu buckets", n);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(bounds[i]) || (i && bounds[i] <= bounds[i - 1]))
			BUG("histogram bounds are not finite and increasing");
		h->bounds[i] = bounds[i];
	}
	h->nbounds = n;
}

void prom_hist_init_seconds(struct prom_hist *h)
{
	static const double b[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
				   0.05,   0.1,	    0.25,   0.5,   1,	   2.5,	  5};
	prom_hist_init(h, b, sizeof(b) / sizeof(b[0]));
}

void prom_hist_observe(struct prom_hist *h, double v)
{
	if (!isfinite(v) || v < 0)
		return;
	for (size_t i = 0; i < h->nbounds; i++)
		if (v <= h->bounds[i]) {
			h->counts[i]++;
			break;
		}
	h->count++;
	h->sum += v;
}

void prom_hist_write(struct buf *b, const char *name, const struct prom_label *labels,
		     size_t nlabels, const struct prom_hist *h)
{
	check_name(name);
	char le[32], num[32];
	uint64_t cum = 0;
	for (size_t i = 0; i < h->nbounds; i++) {
		cum += h->counts[i];
		prom_number(h->bounds[i], le, sizeof(le));
		snprintf(num, sizeof(num), "%llu", (unsigned long long)cum);
		line(b, name, "_bucket", labels, nlabels, le, num);
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)h->count);
	line(b, name, "_bucket", labels, nlabels, "+Inf", num);
	prom_number(isfinite(h->sum) ? h->sum : 0, num, sizeof(num));
	line(b, name, "_sum", labels, nlabels, NULL, num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)h->count);
	line(b, name, "_count", labels, nlabels, NULL, num);
}
