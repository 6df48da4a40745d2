/*
 * log.h - gq serve's log: one line per message to stderr, with a time, a
 * level and the message, so that systemd's journal (or a test's log file)
 * shows what the server did. Not for anything a client reads.
 *
 * When stderr is a regular file (an auto-started server's serve.log), the
 * log is rotated so that it cannot fill the disk: see log_set_rotation.
 */
#ifndef GQ_SERVER_LOG_H
#define GQ_SERVER_LOG_H

#include "core/util.h"

enum log_level { LV_DEBUG, LV_INFO, LV_WARN, LV_ERROR };

/* Messages below `min` are dropped. Default LV_INFO. Not thread-safe:
 * call before starting threads. */
void log_set_level(enum log_level min);
/* "debug", "info", "warn", "error"; -1 when unknown. */
int log_level_parse(const char *s, enum log_level *out);

#define LOG_KEEP 3 /* rotated files kept: FILE.1 (newest) to FILE.3 */

/* When stderr is a regular file, a message that would take it over
 * max_bytes first renames it FILE.1 (FILE.1 to FILE.2, ..., dropping
 * FILE.LOG_KEEP) and reopens FILE: the log takes at most about
 * (LOG_KEEP + 1) x max_bytes. 0 turns rotation off; so does a stderr that
 * is a pipe or a terminal (the journal keeps its own limits). Call before
 * starting threads. */
void log_set_rotation(int64_t max_bytes);

/* Thread-safe: each message is written with one write(2). */
void log_msg(enum log_level lv, const char *fmt, ...) GQ_PRINTF(2, 3);
#define log_debug(...) log_msg(LV_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LV_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LV_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LV_ERROR, __VA_ARGS__)

#endif
