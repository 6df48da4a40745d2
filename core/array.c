/*
 * array.c - Slurm's --array syntax and the throttle of job arrays
 * (array.h). Pure: parsing, formatting and counting over a snapshot.
 */
#include "array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits only, at most 9 of them: an index, a step or a throttle. */
static int num_parse(const char *s, size_t n, int64_t *out)
{
	if (n == 0 || n > 9)
		return -1;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int index_parse(const char *s, size_t n, const char *what, int *out, struct gq_err *e)
{
	char tmp[16];
	if (n == 0 || n >= sizeof(tmp))
		return err_set(e, GQ_EINVAL, "%s '%.*s' is not a number", what, (int)n, s);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (tmp[i] < '0' || tmp[i] > '9')
			return err_set(e, GQ_EINVAL, "%s '%s' is not a number", what, tmp);
		v = v * 10 + (tmp[i] - '0');
	}
	if (v >= GQ_ARRAY_MAX_SIZE)
		return err_set(e, GQ_EINVAL,
			       "%s %s is over the most an array may have (indices 0-%d, "
			       "MaxArraySize %d)",
			       what, tmp, GQ_ARRAY_MAX_SIZE - 1, GQ_ARRAY_MAX_SIZE);
	*out = (int)v;
	return 0;
}

/* One element of the list: N, N-M or N-M:S. */
static int element_parse(const char *s, size_t n, unsigned char *seen, struct gq_err *e)
{
	const char *dash = memchr(s, '-', n), *colon = memchr(s, ':', n);
	int lo, hi, step = 1;
	if (!dash) {
		if (colon)
			return err_set(e, GQ_EINVAL, "'%.*s': a step needs a range (like 0-15:4)",
				       (int)n, s);
		if (index_parse(s, n, "task index", &lo, e) < 0)
			return -1;
		seen[lo] = 1;
		return 0;
	}
	size_t hn = (colon ? (size_t)(colon - dash) : n - (size_t)(dash - s)) - 1;
	if (colon && colon < dash)
		return err_set(e, GQ_EINVAL, "'%.*s' is not a range N-M[:STEP]", (int)n, s);
	if (index_parse(s, (size_t)(dash - s), "task index", &lo, e) < 0 ||
	    index_parse(dash + 1, hn, "task index", &hi, e) < 0)
		return -1;
	if (colon) {
		int64_t v = 0;
		if (num_parse(colon + 1, n - (size_t)(colon + 1 - s), &v) < 0 || v < 1 ||
		    v >= GQ_ARRAY_MAX_SIZE)
			return err_set(e, GQ_EINVAL, "'%.*s': the step must be 1-%d", (int)n, s,
				       GQ_ARRAY_MAX_SIZE - 1);
		step = (int)v;
	}
	if (hi < lo)
		return err_set(e, GQ_EINVAL, "'%.*s': the range ends before it starts", (int)n, s);
	for (int i = lo; i <= hi; i += step)
		seen[i] = 1;
	return 0;
}

int array_parse(const char *spec, struct array_spec *out, struct gq_err *e)
{
	unsigned char seen[GQ_ARRAY_MAX_SIZE];
	memset(seen, 0, sizeof(seen));
	if (!spec || !spec[0])
		return err_set(e, GQ_EINVAL,
			       "bad array '': give indices like 0-99, 1,3,5-7 or 0-15:4");
	const char *pct = strchr(spec, '%');
	size_t len = pct ? (size_t)(pct - spec) : strlen(spec);
	int throttle = 0;
	struct gq_err pe = GQ_ERR_INIT;
	if (pct) {
		int64_t v = 0;
		if (num_parse(pct + 1, strlen(pct + 1), &v) < 0 || v < 1 || v >= GQ_ARRAY_MAX_SIZE)
			return err_set(e, GQ_EINVAL,
				       "bad array '%s': the throttle after '%%' must be 1-%d tasks "
				       "at once",
				       spec, GQ_ARRAY_MAX_SIZE - 1);
		throttle = (int)v;
	}
	if (len == 0)
		return err_set(e, GQ_EINVAL, "bad array '%s': no task indices before '%%'", spec);
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && spec[j] != ',')
			j++;
		if (j == i)
			return err_set(e, GQ_EINVAL, "bad array '%s': an empty element", spec);
		if (element_parse(spec + i, j - i, seen, &pe) < 0)
			return err_set(e, GQ_EINVAL, "bad array '%s': %s", spec, pe.msg);
		i = j + 1;
		if (j + 1 == len)
			return err_set(e, GQ_EINVAL, "bad array '%s': an empty element", spec);
	}
	out->ntasks = 0;
	for (int i = 0; i < GQ_ARRAY_MAX_SIZE; i++)
		if (seen[i])
			out->tasks[out->ntasks++] = i;
	out->throttle = throttle;
	return 0;
}

char *array_format(const int *tasks, int n, int throttle, char *out, size_t size)
{
	struct buf b;
	buf_init(&b, 0);
	for (int i = 0; i < n;) {
		int k = i + 1;
		/* The longest run of equal steps from i; a stepped run stops
		 * before a task that begins a plain range ("1,3,5-7"). */
		int step = k < n ? tasks[k] - tasks[i] : 1;
		while (k < n && tasks[k] - tasks[k - 1] == step &&
		       (step == 1 || k + 1 >= n || tasks[k + 1] - tasks[k] != 1))
			k++;
		if (b.len)
			buf_addstr(&b, ",");
		if (k - i >= 3 || (k - i == 2 && step == 1)) {
			buf_printf(&b, "%d-%d", tasks[i], tasks[k - 1]);
			if (step != 1)
				buf_printf(&b, ":%d", step);
			i = k;
		} else {
			buf_printf(&b, "%d", tasks[i]);
			i++;
		}
	}
	if (throttle > 0)
		buf_printf(&b, "%%%d", throttle);
	const char *t = b.data ? b.data : "";
	if (size) {
		if (b.len < size) {
			memcpy(out, t, b.len + 1);
		} else if (size > 4) {
			memcpy(out, t, size - 4);
			memcpy(out + size - 4, "...", 4);
		} else {
			out[0] = '\0';
		}
	}
	buf_release(&b);
	return out;
}

void array_throttle_deps(const struct snapshot *s, int64_t *out)
{
	size_t n = s->njobs;
	for (size_t i = 0; i < n; i++)
		out[i] = 0;
	int64_t *line = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < n;) {
		const struct job *j = &s->jobs[i];
		size_t k = i + 1;
		if (!j->array_id) {
			i = k;
			continue;
		}
		while (k < n && s->jobs[k].array_id == j->array_id)
			k++;
		int N = j->array_max;
		if (N > 0) {
			GROW(line, cap, k - i);
			size_t m = 0;
			for (size_t x = i; x < k; x++)
				if (job_state_holds_gpus(s->jobs[x].state))
					line[m++] = (int64_t)x;
			for (size_t x = i; x < k; x++)
				if (s->jobs[x].state == JOB_PENDING && !s->jobs[x].held)
					line[m++] = (int64_t)x;
			for (size_t p = (size_t)N; p < m; p++)
				if (s->jobs[line[p]].state == JOB_PENDING)
					out[line[p]] = s->jobs[line[p - (size_t)N]].id;
		}
		i = k;
	}
	free(line);
}

/* The index of the first job of s after id a: where a's tasks begin. */
static size_t after_id(const struct snapshot *s, int64_t a)
{
	size_t lo = 0, hi = s->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->jobs[mid].id <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int array_running(const struct snapshot *s, const struct job *j)
{
	if (!j->array_id)
		return 0;
	int n = 0;
	for (size_t i = after_id(s, j->array_id);
	     i < s->njobs && s->jobs[i].array_id == j->array_id; i++)
		n += job_state_holds_gpus(s->jobs[i].state);
	return n;
}

int array_summary(const struct snapshot *s, int64_t a, struct array_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = after_id(s, a);
	     a > 0 && i < s->njobs && s->jobs[i].array_id == a && out->ntasks < GQ_ARRAY_MAX_SIZE;
	     i++) {
		const struct job *t = &s->jobs[i];
		out->tasks[out->ntasks++] = t->array_task;
		out->throttle = t->array_max;
		switch (t->state) {
		case JOB_PENDING:
			out->pending++;
			break;
		case JOB_COMPLETED:
			out->done++;
			break;
		case JOB_FAILED:
		case JOB_TIMEOUT:
			out->failed++;
			break;
		case JOB_CANCELLED:
			out->cancelled++;
			break;
		default:
			out->running++;
			break;
		}
	}
	return out->ntasks;
}

struct task_row {
	int64_t array_id;
	size_t row;
};

static int cmp_task_row(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;
	if (x->array_id != y->array_id)
		return x->array_id < y->array_id ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

void array_fold(const struct job *const *rows, size_t n, bool *drop, char (*label)[ARRAY_LABEL_MAX])
{
	struct task_row *t = xmalloc((n ? n : 1) * sizeof(*t));
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		drop[i] = false;
		label[i][0] = '\0';
		if (rows[i]->array_id)
			t[nt++] = (struct task_row){rows[i]->array_id, i};
	}
	qsort(t, nt, sizeof(*t), cmp_task_row);
	int *tasks = xmalloc((nt ? nt : 1) * sizeof(*tasks));
	for (size_t g = 0; g < nt;) {
		size_t e = g;
		while (e < nt && t[e].array_id == t[g].array_id)
			e++;
		if (e - g > 1) {
			int k = 0;
			for (size_t i = g; i < e; i++)
				tasks[k++] = rows[t[i].row]->array_task;
			/* Rows are in display order; the range is in index order. */
			qsort(tasks, (size_t)k, sizeof(*tasks), cmp_int);
			char range[256];
			array_format(tasks, k, rows[t[g].row]->array_max, range, sizeof(range));
			snprintf(label[t[g].row], ARRAY_LABEL_MAX, "%lld_[%s]",
				 (long long)t[g].array_id, range);
			for (size_t i = g + 1; i < e; i++)
				drop[t[i].row] = true;
		}
		g = e;
	}
	free(tasks);
	free(t);
}
