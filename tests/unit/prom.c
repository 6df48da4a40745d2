/* prom.c - the Prometheus text writer (wire/prom.h): escaping, numbers in
 * any locale, no NaN or infinity where a number is required, histograms. */
#include "harness.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/prom.h"

static void test_family_lines(void)
{
	struct buf b;
	buf_init(&b, 0);
	prom_family(&b, "gq_jobs", "gauge", "Jobs by state\nand \\ tier");
	CHECK_STR(b.data, "# HELP gq_jobs Jobs by state\\nand \\\\ tier\n# TYPE gq_jobs gauge\n");
	buf_release(&b);
}

static void test_label_escaping(void)
{
	struct buf b;
	buf_init(&b, 0);
	struct prom_label l[] = {{"queue", "a\"b\\c\nd"}, {"tier", "P1"}};
	CHECK_INT(prom_sample(&b, "gq_x", l, 2, 3), 0);
	CHECK_STR(b.data, "gq_x{queue=\"a\\\"b\\\\c\\nd\",tier=\"P1\"} 3\n");
	buf_reset(&b);
	CHECK_INT(prom_sample(&b, "gq_y", NULL, 0, 0.25), 0);
	CHECK_STR(b.data, "gq_y 0.25\n");
	buf_release(&b);
}

static void test_nonfinite_never_written(void)
{
	struct buf b;
	buf_init(&b, 0);
	CHECK_INT(prom_sample(&b, "gq_x", NULL, 0, NAN), -1);
	CHECK_INT(prom_sample(&b, "gq_x", NULL, 0, INFINITY), -1);
	CHECK_INT(prom_sample(&b, "gq_x", NULL, 0, -INFINITY), -1);
	CHECK_INT(b.len, 0);
	struct prom_hist h;
	const double bounds[] = {0.1, 1};
	prom_hist_init(&h, bounds, 2);
	prom_hist_observe(&h, NAN);
	prom_hist_observe(&h, INFINITY);
	prom_hist_observe(&h, -1);
	CHECK_INT(h.count, 0);
	buf_release(&b);
}

static void test_numbers(void)
{
	char n[32];
	prom_number(42, n, sizeof(n));
	CHECK_STR(n, "42");
	prom_number(-0.0, n, sizeof(n));
	CHECK_STR(n, "0");
	prom_number(0.1, n, sizeof(n));
	CHECK_STR(n, "0.1");
	prom_number(1.0 / 3, n, sizeof(n));
	CHECK(strtod(n, NULL) == 1.0 / 3);
	prom_number(1e300, n, sizeof(n));
	CHECK_STR(n, "1e+300");
	prom_number(123456.5, n, sizeof(n));
	CHECK_STR(n, "123456.5");
}

/* Under a decimal-comma locale (when the machine has one) the point stays. */
static void test_numbers_in_a_comma_locale(void)
{
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", NULL};
	char *old = xstrdup(setlocale(LC_NUMERIC, NULL));
	const char *got = NULL;
	for (int i = 0; names[i] && !got; i++)
		got = setlocale(LC_NUMERIC, names[i]);
	if (got) {
		char n[32];
		prom_number(0.5, n, sizeof(n));
		CHECK_STR(n, "0.5");
		struct buf b;
		buf_init(&b, 0);
		prom_sample(&b, "gq_x", NULL, 0, 2.75);
		CHECK_STR(b.data, "gq_x 2.75\n");
		buf_release(&b);
	}
	setlocale(LC_NUMERIC, old);
	free(old);
}

static void test_histogram(void)
{
	struct prom_hist h;
	const double bounds[] = {0.001, 0.01, 0.1};
	prom_hist_init(&h, bounds, 3);
	prom_hist_observe(&h, 0.0005);
	prom_hist_observe(&h, 0.01);
	prom_hist_observe(&h, 0.05);
	prom_hist_observe(&h, 2);
	struct buf b;
	buf_init(&b, 0);
	struct prom_label l[] = {{"kind", "x"}};
	prom_hist_write(&b, "gq_t_seconds", l, 1, &h);
	CHECK_STR(b.data, "gq_t_seconds_bucket{kind=\"x\",le=\"0.001\"} 1\n"
			  "gq_t_seconds_bucket{kind=\"x\",le=\"0.01\"} 2\n"
			  "gq_t_seconds_bucket{kind=\"x\",le=\"0.1\"} 3\n"
			  "gq_t_seconds_bucket{kind=\"x\",le=\"+Inf\"} 4\n"
			  "gq_t_seconds_sum{kind=\"x\"} 2.0605\n"
			  "gq_t_seconds_count{kind=\"x\"} 4\n");
	buf_reset(&b);
	prom_hist_write(&b, "gq_u_seconds", NULL, 0, &h);
	CHECK(strstr(b.data, "gq_u_seconds_bucket{le=\"+Inf\"} 4\n") != NULL);
	buf_release(&b);
}

void suite_prom(void)
{
	RUN(test_family_lines);
	RUN(test_label_escaping);
	RUN(test_nonfinite_never_written);
	RUN(test_numbers);
	RUN(test_numbers_in_a_comma_locale);
	RUN(test_histogram);
}
