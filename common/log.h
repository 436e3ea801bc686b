/*
 * log.h - the one logging module of Blockwise.
 *
 * Lines go to stderr as "TIME PROGRAM LEVEL: message" (UTC, ISO 8601), or as
 * one JSON object per line when log_init() is given LOG_FORMAT_JSON. Messages
 * follow error.h's rules: what failed first, lower-case, no trailing period;
 * every line about a submission carries "submission N". Deep modules do not
 * log failures they return: they fill a `cause` and let the caller decide.
 */
#ifndef BW_LOG_H
#define BW_LOG_H

#include <stdbool.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };
enum log_format { LOG_FORMAT_TEXT, LOG_FORMAT_JSON };

/* Sets the program name (borrowed: must outlive logging), threshold and format. */
void log_init(const char *program, enum log_level threshold, enum log_format format);

/* Parses "debug", "info", "warn", "error"; false if none matches. */
bool log_level_parse(const char *name, enum log_level *out);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* As log_msg, with ": " and strerror(errno) appended (errno read on entry). */
void log_errno(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
