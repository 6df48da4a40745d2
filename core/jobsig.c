/*
 * jobsig.c - `--signal` forms and signal names (jobsig.h). Pure: the
 * numbers are Linux's, written here rather than read from the system.
 */
#include "jobsig.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const names[JOBSIG_MAX + 1] = {
    [1] = "HUP",   [2] = "INT",	    [3] = "QUIT",  [4] = "ILL",	    [5] = "TRAP",  [6] = "ABRT",
    [7] = "BUS",   [8] = "FPE",	    [9] = "KILL",  [10] = "USR1",   [11] = "SEGV", [12] = "USR2",
    [13] = "PIPE", [14] = "ALRM",   [15] = "TERM", [16] = "STKFLT", [17] = "CHLD", [18] = "CONT",
    [19] = "STOP", [20] = "TSTP",   [21] = "TTIN", [22] = "TTOU",   [23] = "URG",  [24] = "XCPU",
    [25] = "XFSZ", [26] = "VTALRM", [27] = "PROF", [28] = "WINCH",  [29] = "IO",   [30] = "PWR",
    [31] = "SYS",
};

const char *jobsig_name(int sig)
{
	return sig >= 1 && sig <= JOBSIG_MAX ? names[sig] : NULL;
}

static int parse_sig(const char *w, size_t len, int *out)
{
	char b[16];
	if (len == 0 || len >= sizeof(b))
		return -1;
	memcpy(b, w, len);
	b[len] = 0;
	if (b[0] >= '0' && b[0] <= '9') {
		int64_t v;
		if (parse_int64(b, 1, JOBSIG_MAX, &v, NULL) < 0)
			return -1;
		*out = (int)v;
		return 0;
	}
	const char *n = !strncasecmp(b, "SIG", 3) ? b + 3 : b;
	for (int i = 1; i <= JOBSIG_MAX; i++)
		if (!strcasecmp(n, names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

int jobsig_parse(const char *s, int *sig, int64_t *before, struct gq_err *e)
{
	const char *p = s;
	if (!strncasecmp(p, "B:", 2))
		p += 2;
	const char *at = strchr(p, '@');
	size_t len = at ? (size_t)(at - p) : strlen(p);
	int n = 10; /* USR1 */
	if (len > 0 && parse_sig(p, len, &n) < 0)
		return err_set(e, GQ_EINVAL,
			       "signal '%s': unknown signal '%.*s'; give a name such as USR1 or "
			       "TERM, or a number 1..%d",
			       s, (int)(len < 16 ? len : 16), p, JOBSIG_MAX);
	if (len == 0 && !at)
		return err_set(e, GQ_EINVAL,
			       "signal '%s': empty; give SIG[@SECONDS], e.g. USR1@120", s);
	int64_t t = JOBSIG_DEFAULT_BEFORE;
	if (at) {
		struct gq_err de = GQ_ERR_INIT;
		if (!at[1] || dur_parse(at + 1, &t, &de) < 0 || t <= 0)
			return err_set(e, GQ_EINVAL,
				       "signal '%s': '%s' is not a time; give whole seconds "
				       "after '@', e.g. USR1@120",
				       s, at + 1);
	}
	*sig = n;
	*before = t;
	return 0;
}

int jobsig_check(int sig, int64_t before, int64_t time_limit, struct gq_err *e)
{
	if (sig == 0)
		return 0;
	if (sig < 1 || sig > JOBSIG_MAX)
		return err_set(e, GQ_EINVAL, "signal: %d is not a signal a job may ask for (1..%d)",
			       sig, JOBSIG_MAX);
	if (time_limit <= 0) /* not known yet: a queue may give one (jobsig.h) */
		return 0;
	if (before <= 0 || before >= time_limit)
		return err_set(e, GQ_EINVAL,
			       "signal: %lld s before the end is not within the time limit "
			       "(%lld s); give fewer seconds after '@'",
			       (long long)before, (long long)time_limit);
	return 0;
}
