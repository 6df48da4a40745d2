/*
 * log.c - leveled one-line messages to stderr for gq serve, and the
 * rotation of a log file.
 */
#define _GNU_SOURCE
#include "log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static enum log_level log_min = LV_INFO;
/* Rotation: the file stderr writes to, and its cap. The lock orders the
 * size check, the rename and the write of concurrent messages. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char *log_path;
static int64_t log_max;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_level(enum log_level min)
{
	log_min = min;
}

int log_level_parse(const char *s, enum log_level *out)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, level_names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

void log_set_rotation(int64_t max_bytes)
{
	free(log_path);
	log_path = NULL;
	log_max = max_bytes;
	struct stat st;
	if (max_bytes <= 0 || fstat(STDERR_FILENO, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	char buf[4096];
	ssize_t n = readlink("/proc/self/fd/2", buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return;
	buf[n] = '\0';
	if (strstr(buf, " (deleted)"))
		return;
	log_path = xstrdup(buf);
}

/* FILE -> FILE.1 -> ... -> FILE.LOG_KEEP, and stderr onto a new FILE.
 * Lock held. On failure the log goes on in the file it was. */
static void rotate_locked(mode_t mode)
{
	size_t len = strlen(log_path) + 16;
	char *from = xmalloc(len), *to = xmalloc(len);
	for (int k = LOG_KEEP - 1; k >= 1; k--) {
		snprintf(from, len, "%s.%d", log_path, k);
		snprintf(to, len, "%s.%d", log_path, k + 1);
		rename(from, to);
	}
	snprintf(to, len, "%s.1", log_path);
	int fd = -1;
	if (rename(log_path, to) == 0)
		fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
		/* Nowhere better to say so than where it goes on. */
		static const char m[] = "log: cannot rotate; rotation off\n";
		ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
		(void)w;
		free(log_path);
		log_path = NULL;
	}
	if (fd >= 0)
		close(fd);
	free(from);
	free(to);
}

void log_msg(enum log_level lv, const char *fmt, ...)
{
	if (lv < log_min)
		return;
	char line[1024];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	int n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, ts.tv_nsec / 1000000, level_names[lv]);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	line[len++] = '\n';
	/* One write per line so concurrent threads never interleave a line. */
	pthread_mutex_lock(&log_mu);
	struct stat st;
	if (log_path && fstat(STDERR_FILENO, &st) == 0 && st.st_size > 0 &&
	    st.st_size + (off_t)len > log_max)
		rotate_locked(st.st_mode & 0666);
	ssize_t w = write(STDERR_FILENO, line, len);
	pthread_mutex_unlock(&log_mu);
	(void)w;
}
