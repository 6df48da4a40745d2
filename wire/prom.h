/*
 * prom.h - the Prometheus text exposition format (version 0.0.4), as gq
 * serve's GET /metrics writes it: families with their # HELP and # TYPE
 * lines, samples with escaped labels, and the fixed-bucket histograms the
 * server keeps of its own timings. It knows nothing of jobs (the server's
 * metrics.c chooses the series); it only writes them correctly.
 *
 * What it guarantees, whatever it is given:
 *   - HELP text escapes '\' and line feeds; label values escape '\', '"'
 *     and line feeds, so no value can end a line or a label early;
 *   - numbers are written with a decimal point in any locale (they are
 *     formatted in the C locale, not the process's);
 *   - a sample whose value is NaN or infinite is not written at all (a
 *     gauge or counter has no honest value then), and the histogram's
 *     only infinity is its le="+Inf" bucket.
 * Label names and metric names are the caller's constants and are not
 * checked beyond an assertion of their alphabet.
 */
#ifndef GQ_WIRE_PROM_H
#define GQ_WIRE_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* The Content-Type of the text format. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One label: name (a constant of [a-zA-Z_][a-zA-Z0-9_]*) and a value (any
 * bytes; escaped on output). */
struct prom_label {
	const char *name;
	const char *value;
};

/* The # HELP and # TYPE lines of family `name`; type "counter", "gauge",
 * "histogram" or "summary". */
void prom_family(struct buf *b, const char *name, const char *type, const char *help);

/* One sample line: name{labels} value. Returns 0, or -1 when the value is
 * not finite and nothing was written. */
int prom_sample(struct buf *b, const char *name, const struct prom_label *labels, size_t nlabels,
		double value);

/* A histogram of observations in seconds over fixed upper bounds. */
#define PROM_HIST_MAX 16
struct prom_hist {
	size_t nbounds;
	double bounds[PROM_HIST_MAX];	/* increasing, finite; +Inf is implied */
	uint64_t counts[PROM_HIST_MAX]; /* observations <= bounds[i] (not cumulative) */
	uint64_t count;			/* every observation */
	double sum;
};

/* Sets the bounds (at most PROM_HIST_MAX, increasing) and zeroes counts. */
void prom_hist_init(struct prom_hist *h, const double *bounds, size_t n);
/* The bounds gq's own timings use: 100 us to 5 s, 15 buckets (1, 2.5, 5
 * per decade). */
void prom_hist_init_seconds(struct prom_hist *h);
/* Adds one observation; a value that is not finite or below 0 is ignored. */
void prom_hist_observe(struct prom_hist *h, double v);
/* The _bucket (cumulative, le="+Inf" last), _sum and _count lines of
 * family `name` (whose # HELP/# TYPE the caller wrote), with labels. */
void prom_hist_write(struct buf *b, const char *name, const struct prom_label *labels,
		     size_t nlabels, const struct prom_hist *h);

/* v as the format writes numbers: integers plainly ("42"), other values
 * with up to 17 significant digits and a decimal point, never a comma.
 * out must hold 32 bytes. Not for NaN or infinities (BUG). */
void prom_number(double v, char *out, size_t size);

#endif
