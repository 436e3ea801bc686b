#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "banned.h"

static const char *log_program = "blockwise";
static enum log_level log_threshold = LOG_INFO;
static enum log_format log_format = LOG_FORMAT_TEXT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_init(const char *program, enum log_level threshold, enum log_format format)
{
    log_program = program;
    log_threshold = threshold;
    log_format = format;
}

bool log_level_parse(const char *name, enum log_level *out)
{
    for (int i = 0; i <= LOG_ERROR; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (enum log_level)i;
            return true;
        }
    }
    return false;
}

/* Writes s as a JSON string body (without quotes), escaping what JSON requires. */
static void json_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

static void log_emit(enum log_level level, const char *msg)
{
    char stamp[32];
    struct timespec now;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);

    pthread_mutex_lock(&log_lock);
    if (log_format == LOG_FORMAT_JSON) {
        fprintf(stderr, "{\"time\":\"%s.%03ldZ\",\"program\":\"", stamp, now.tv_nsec / 1000000);
        json_escape(stderr, log_program);
        fprintf(stderr, "\",\"level\":\"%s\",\"msg\":\"", level_names[level]);
        json_escape(stderr, msg);
        fputs("\"}\n", stderr);
    } else {
        fprintf(stderr, "%s.%03ldZ %s %s: %s\n", stamp, now.tv_nsec / 1000000, log_program,
                level_names[level], msg);
    }
    fflush(stderr);
    pthread_mutex_unlock(&log_lock);
}

static void log_vmsg(enum log_level level, const char *suffix, const char *fmt, va_list ap)
{
    char msg[4096];
    int n;

    if (level < log_threshold)
        return;
    n = vsnprintf(msg, sizeof(msg), fmt, ap);
    if (suffix && n >= 0 && (size_t)n < sizeof(msg))
        snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", suffix);
    log_emit(level, msg);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vmsg(level, NULL, fmt, ap);
    va_end(ap);
}

void log_errno(enum log_level level, const char *fmt, ...)
{
    int saved = errno;
    char errbuf[128];
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(level, strerror_r(saved, errbuf, sizeof(errbuf)), fmt, ap);
    va_end(ap);
    errno = saved;
}
