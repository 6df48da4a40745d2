/*
 * sbatch.c - reading a batch script's #SBATCH lines (sbatch.h).
 *
 * One table names the options gq honours, their short forms and whether
 * they take a value; everything else is remembered by name so that the
 * caller can warn about it (a script is never silently half-read). The
 * meaning of each option is Slurm's, as sbatch(1) documents it.
 */
#include "sbatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The longest #SBATCH line read; a longer one is cut. */
#define LINE_MAX_LEN 1024
#define WORDS_MAX 64

enum opt {
	O_NAME,
	O_PARTITION,
	O_QOS,
	O_ACCOUNT,
	O_OUTPUT,
	O_ERROR,
	O_CHDIR,
	O_BEGIN,
	O_DEPENDENCY,
	O_TIME,
	O_CPUS_PER_TASK,
	O_MEM,
	O_NODES,
	O_NTASKS,
	O_NTASKS_PER_NODE,
	O_HOLD,
	O_GRES,
	O_GPUS_PER_NODE,
	O_GPUS,
	O_CONSTRAINT,
	O_ARRAY,
	O_EXCLUSIVE,
	O_MAIL_TYPE,
	O_MAIL_USER,
	O_EXPORT,
	O_RESERVATION,
};

/* arg: 1 takes a value, 0 a flag, 2 a flag with an optional "=VALUE". */
static const struct {
	const char *lng, *shrt;
	int arg;
	enum opt o;
} opts[] = {
    {"--job-name", "-J", 1, O_NAME},
    {"--partition", "-p", 1, O_PARTITION},
    {"--qos", "-q", 1, O_QOS},
    {"--account", "-A", 1, O_ACCOUNT},
    {"--output", "-o", 1, O_OUTPUT},
    {"--error", "-e", 1, O_ERROR},
    {"--chdir", "-D", 1, O_CHDIR},
    {"--begin", "-b", 1, O_BEGIN},
    {"--dependency", "-d", 1, O_DEPENDENCY},
    {"--time", "-t", 1, O_TIME},
    {"--cpus-per-task", "-c", 1, O_CPUS_PER_TASK},
    {"--mem", NULL, 1, O_MEM},
    {"--nodes", "-N", 1, O_NODES},
    {"--ntasks", "-n", 1, O_NTASKS},
    {"--ntasks-per-node", NULL, 1, O_NTASKS_PER_NODE},
    {"--hold", "-H", 0, O_HOLD},
    {"--gres", NULL, 1, O_GRES},
    {"--gpus-per-node", NULL, 1, O_GPUS_PER_NODE},
    {"--gpus", "-G", 1, O_GPUS},
    {"--constraint", "-C", 1, O_CONSTRAINT},
    {"--array", "-a", 1, O_ARRAY},
    {"--exclusive", NULL, 2, O_EXCLUSIVE},
    {"--mail-type", NULL, 1, O_MAIL_TYPE},
    {"--mail-user", NULL, 1, O_MAIL_USER},
    {"--export", NULL, 1, O_EXPORT},
    {"--reservation", NULL, 1, O_RESERVATION},
};

/* sbatch's options without a value, so that an option gq does not honour
 * does not swallow the next word. */
static const char *const flags[] = {
    "--requeue",
    "--no-requeue",
    "--overcommit",
    "-O",
    "--contiguous",
    "--spread-job",
    "--use-min-nodes",
    "--get-user-env",
    "--wait",
    "-W",
    "--parsable",
    "--test-only",
    "--quiet",
    "-Q",
    "--verbose",
    "-v",
    "--no-kill",
    "-k",
    "--oversubscribe",
    "-s",
    "--ignore-pbs",
    "--exact",
    "--kill-on-invalid-dep",
};

static bool is_flag(const char *k)
{
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(k, flags[i]))
			return true;
	return false;
}

static void skip(struct sbatch *sb, const char *opt, const char *val, enum sbatch_skip why)
{
	if (sb->nskipped < SBATCH_MAX_SKIPPED) {
		struct sbatch_skipped *s = &sb->skipped[sb->nskipped];
		snprintf(s->opt, sizeof(s->opt), "%s", opt);
		snprintf(s->value, sizeof(s->value), "%s", val ? val : "");
		s->why = why;
	}
	sb->nskipped++;
}

int64_t sbatch_time(const char *v)
{
	if (!strcmp(v, "UNLIMITED") || !strcmp(v, "INFINITE") || !strcmp(v, "unlimited") ||
	    !strcmp(v, "infinite"))
		return 0;
	long d = 0, h = 0, m = 0, s = 0;
	int used = 0;
	/* Bounds before arithmetic: a day count up to 100 years, the other
	 * fields up to a million (sbatch takes "90:00" minutes too). */
#define TIME_FIELDS_OK (d <= 36500 && h <= 1000000 && m <= 1000000 && s <= 1000000)
	if (strchr(v, '-')) {
		int n = sscanf(v, "%ld-%ld%n:%ld%n:%ld%n", &d, &h, &used, &m, &used, &s, &used);
		if (n < 2 || v[used] || d < 0 || h < 0 || m < 0 || s < 0 || !TIME_FIELDS_OK)
			return -1;
		return ((d * 24 + h) * 60 + m) * 60 + s;
	}
	int n = sscanf(v, "%ld%n:%ld%n:%ld%n", &h, &used, &m, &used, &s, &used);
	if (n < 1 || v[used] || h < 0 || m < 0 || s < 0 || !TIME_FIELDS_OK)
		return -1;
#undef TIME_FIELDS_OK
	if (n == 1)
		return h * 60; /* minutes */
	if (n == 2)
		return h * 60 + m; /* M:S */
	return (h * 60 + m) * 60 + s;
}

/* --mem's N[K|M|G|T] (megabytes by default); -1 when unreadable. */
static int64_t mem_mb(const char *v)
{
	char *end;
	if (*v < '0' || *v > '9')
		return -1;
	double x = strtod(v, &end);
	double mul = 1;
	switch (*end) {
	case 'K':
	case 'k':
		mul = 1.0 / 1024;
		break;
	case 'M':
	case 'm':
	case '\0':
		break;
	case 'G':
	case 'g':
		mul = 1024;
		break;
	case 'T':
	case 't':
		mul = 1024.0 * 1024;
		break;
	default:
		return -1;
	}
	if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "b"))
		return -1;
	if (x * mul > 1e12)
		return -1;
	return (int64_t)(x * mul + 0.5);
}

/* A count from 0 to 1000000; -1 when unreadable. */
static int count(const char *v)
{
	int64_t n;
	if (parse_int64(v, 0, 1000000, &n, NULL) < 0)
		return -1;
	return (int)n;
}

/* gpu[:TYPE]:N, [TYPE:]N, or gres's list with a gpu entry; 0 when read. */
static int gpus(struct sbatch *sb, const char *v, bool gres)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", v);
	char *p = buf;
	if (gres) {
		/* The gpu entry of a comma list ("gpu:a100:2,tmpdisk:10"). */
		char *found = NULL;
		for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
		     t = strtok_r(NULL, ",", &save)) {
			if (!strncmp(t, "gres/", 5) || !strncmp(t, "gres:", 5))
				t += 5;
			if (!strncmp(t, "gpu:", 4) || !strcmp(t, "gpu"))
				found = found ? found : t;
			else
				return -1; /* another GRES: gq carries GPUs only */
		}
		if (!found)
			return -1;
		p = found + 3;
		if (*p == ':')
			p++;
	}
	char *colon = strrchr(p, ':');
	int n;
	if (colon) {
		if ((size_t)(colon - p) >= sizeof(sb->gpu_type) || colon == p)
			return -1;
		n = count(colon + 1);
		if (n < 0)
			return -1;
		snprintf(sb->gpu_type, sizeof(sb->gpu_type), "%.*s", (int)(colon - p), p);
	} else {
		n = *p ? count(p) : 1;
		if (n < 0) {
			/* "--gres=gpu:a100" is one GPU of that type */
			if (!gres || strlen(p) >= sizeof(sb->gpu_type))
				return -1;
			snprintf(sb->gpu_type, sizeof(sb->gpu_type), "%s", p);
			n = 1;
		}
	}
	sb->gpus = n;
	return 0;
}

#define COPY(field) (snprintf(sb->field, sizeof(sb->field), "%s", v) < (int)sizeof(sb->field))

/* Applies one option gq honours; false when its value cannot be read. */
static bool apply(struct sbatch *sb, enum opt o, const char *v)
{
	int n;
	int64_t x;
	switch (o) {
	case O_NAME:
		return COPY(name);
	case O_PARTITION:
		return COPY(partition);
	case O_QOS:
		return COPY(qos);
	case O_ACCOUNT:
		return COPY(account);
	case O_OUTPUT:
		return COPY(output);
	case O_ERROR:
		return COPY(error);
	case O_CHDIR:
		return COPY(chdir);
	case O_BEGIN:
		return COPY(begin);
	case O_DEPENDENCY:
		return COPY(dependency);
	case O_CONSTRAINT:
		return COPY(constraint);
	case O_ARRAY:
		return COPY(array);
	case O_MAIL_TYPE:
		return COPY(mail_type);
	case O_MAIL_USER:
		return COPY(mail_user);
	case O_EXPORT:
		return COPY(export_env);
	case O_RESERVATION:
		return COPY(reservation);
	case O_TIME:
		if ((x = sbatch_time(v)) < 0)
			return false;
		sb->time_limit = x;
		return true;
	case O_MEM:
		if ((x = mem_mb(v)) < 0)
			return false;
		sb->mem_mb = x;
		return true;
	case O_CPUS_PER_TASK:
	case O_NTASKS:
	case O_NTASKS_PER_NODE:
		/* A value that cannot be read leaves the field as it was. */
		if ((n = count(v)) < 0)
			return false;
		*(o == O_CPUS_PER_TASK ? &sb->cpus_per_task
		  : o == O_NTASKS      ? &sb->ntasks
				       : &sb->ntasks_per_node) = n;
		return true;
	case O_NODES: {
		const char *dash = strchr(v, '-');
		char lo[16];
		snprintf(lo, sizeof(lo), "%.*s", dash ? (int)(dash - v) : (int)strlen(v), v);
		if ((n = count(lo)) < 1)
			return false;
		int hi = dash ? count(dash + 1) : 0;
		if (hi < 0 || (dash && hi < n))
			return false;
		sb->nodes_min = n;
		sb->nodes_max = hi;
		return true;
	}
	case O_HOLD:
		sb->hold = true;
		return true;
	case O_EXCLUSIVE:
		if (!*v || !strcmp(v, "user") || !strcmp(v, "mcs")) {
			snprintf(sb->exclusive, sizeof(sb->exclusive), "%s", *v ? v : "exclusive");
			return true;
		}
		return false;
	case O_GRES:
	case O_GPUS_PER_NODE:
	case O_GPUS:
		if (gpus(sb, v, o == O_GRES) < 0)
			return false;
		sb->gpus_per_node = o != O_GPUS;
		return true;
	}
	return false;
}

static void parse_line(struct sbatch *sb, char *s)
{
	char *w[WORDS_MAX], why[96], whole[LINE_MAX_LEN];
	snprintf(whole, sizeof(whole), "%s", s);
	/* Read as #GQ lines are (util.h), a # word ending the line. */
	int n = words_split(s, w, WORDS_MAX, true, why, sizeof(why));
	if (n < 0) {
		skip(sb, whole, NULL, SBATCH_BADVAL);
		return;
	}
	for (int i = 0; i < n; i++) {
		char *k = w[i], *val = NULL;
		if (k[0] != '-') {
			skip(sb, k, NULL, SBATCH_UNKNOWN); /* a stray word */
			continue;
		}
		char key[48];
		if (k[1] == '-') {
			char *eq = strchr(k, '=');
			if (eq) {
				*eq = '\0';
				val = eq + 1;
			}
			snprintf(key, sizeof(key), "%s", k);
		} else {
			snprintf(key, sizeof(key), "%.2s", k);
			if (k[1] && k[2])
				val = k[2] == '=' ? k + 3 : k + 2; /* -t60, -t=60 */
		}
		size_t o = 0;
		while (o < sizeof(opts) / sizeof(opts[0]) && strcmp(key, opts[o].lng) &&
		       (!opts[o].shrt || strcmp(key, opts[o].shrt)))
			o++;
		bool known = o < sizeof(opts) / sizeof(opts[0]);
		bool takes = known ? opts[o].arg == 1 : !is_flag(key);
		/* An unknown option takes the next word unless that is an option. */
		if (!val && takes && i + 1 < n && (known || w[i + 1][0] != '-'))
			val = w[++i];
		if (!known)
			skip(sb, key, val, SBATCH_UNKNOWN);
		else if ((opts[o].arg == 1 && !val) || (opts[o].arg == 0 && val) ||
			 !apply(sb, opts[o].o, val ? val : ""))
			skip(sb, key, val, SBATCH_BADVAL);
	}
}

void sbatch_parse(const char *script, struct sbatch *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->gpus = -1;
	const char *p = script ? script : "";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[LINE_MAX_LEN];
		snprintf(line, sizeof(line), "%.*s",
			 (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p += len + (nl ? 1 : 0);
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != '#')
			break; /* the first command ends the directives */
		if (strncmp(s, "#SBATCH", 7) || (s[7] != ' ' && s[7] != '\t'))
			continue; /* blank, shebang, comments, #GQ lines */
		sb->nlines++;
		parse_line(sb, s + 7);
	}
}
