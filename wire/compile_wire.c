/*
 * compile_wire.c - the record between judged and its compile children (compile_wire.h).
 */
#include "compile_wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

#define WIRE_KEY_MAX 32

/* ---- wire format --------------------------------------------------------------- */

int compile_wire_put(struct buf *b, const char *key, const void *value, size_t len)
{
    int rc = buf_addf(b, "%s %zu\n", key, len);
    if (rc == 0)
        rc = buf_append(b, value, len);
    if (rc == 0)
        rc = buf_putc(b, '\n');
    return rc;
}

int compile_wire_puts(struct buf *b, const char *key, const char *value)
{
    return compile_wire_put(b, key, value, strlen(value));
}

int compile_wire_end(struct buf *b)
{
    return compile_wire_put(b, "end", "", 0);
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return BW_ERR_IO;
        p += n;
        len -= (size_t)n;
    }
    return BW_OK;
}

int compile_wire_write(int fd, const char *key, const void *value, size_t len)
{
    char head[WIRE_KEY_MAX + 32];
    int n = snprintf(head, sizeof(head), "%s %zu\n", key, len);

    if (n < 0 || (size_t)n >= sizeof(head))
        return BW_ERR_INTERNAL;
    if (write_all(fd, head, (size_t)n) || write_all(fd, value, len) || write_all(fd, "\n", 1))
        return BW_ERR_IO;
    return BW_OK;
}

int compile_wire_next(char *data, size_t len, size_t *pos, struct compile_field *f, char **cause)
{
    size_t p = *pos, k = 0;
    uint64_t n = 0;
    size_t digits = 0;

    while (p + k < len && k <= WIRE_KEY_MAX &&
           ((data[p + k] >= 'a' && data[p + k] <= 'z') || data[p + k] == '_'))
        k++;
    if (k == 0 || k > WIRE_KEY_MAX || p + k >= len || data[p + k] != ' ')
        return bw_fail(cause, BW_ERR_PROTOCOL, "malformed field key at byte %zu", p);
    data[p + k] = '\0';
    f->key = data + p;
    p += k + 1;
    while (p < len && data[p] >= '0' && data[p] <= '9' && digits < 12) {
        n = n * 10 + (uint64_t)(data[p] - '0');
        p++;
        digits++;
    }
    if (digits == 0 || p >= len || data[p] != '\n')
        return bw_fail(cause, BW_ERR_PROTOCOL, "malformed length of field \"%s\"", f->key);
    p++;
    if (n > len - p || len - p - n < 1 || data[p + n] != '\n')
        return bw_fail(cause, BW_ERR_PROTOCOL, "field \"%s\" (%llu bytes) is truncated", f->key,
                       (unsigned long long)n);
    data[p + n] = '\0';
    f->value = data + p;
    f->len = (size_t)n;
    *pos = p + n + 1;
    return strcmp(f->key, "end") == 0 ? 0 : 1;
}

int compile_wire_complete(const char *data, size_t len, size_t pos)
{
    size_t p = pos, k = 0, digits = 0;
    uint64_t n = 0;

    while (p + k < len && k <= WIRE_KEY_MAX &&
           ((data[p + k] >= 'a' && data[p + k] <= 'z') || data[p + k] == '_'))
        k++;
    if (p + k >= len)
        return k <= WIRE_KEY_MAX ? 0 : -1;
    if (k == 0 || k > WIRE_KEY_MAX || data[p + k] != ' ')
        return -1;
    p += k + 1;
    while (p < len && data[p] >= '0' && data[p] <= '9' && digits < 12) {
        n = n * 10 + (uint64_t)(data[p] - '0');
        p++;
        digits++;
    }
    if (p >= len)
        return digits < 12 ? 0 : -1;
    if (digits == 0 || data[p] != '\n')
        return -1;
    p++;
    if (n >= len - p) /* the value and its closing newline are not all there */
        return 0;
    return 1;
}

int compile_request_encode(const struct compile_request *rq, struct buf *out, char **cause)
{
    int rc = 0;

    rc = rc ? rc
            : compile_wire_puts(out, "filename",
                                rq->filename ? rq->filename : BW_COMPILE_DEFAULT_FILENAME);
    rc = rc ? rc : compile_wire_puts(out, "arch", rq->arch ? rq->arch : BW_COMPILE_DEFAULT_ARCH);
    for (size_t i = 0; i < rq->n_options && !rc; i++)
        rc = compile_wire_puts(out, "option", rq->options[i]);
    if (rc == 0) {
        char n[32];
        snprintf(n, sizeof(n), "%d", rq->cpu_s);
        rc = compile_wire_puts(out, "cpu_s", n);
        snprintf(n, sizeof(n), "%llu", rq->mem_bytes);
        rc = rc ? rc : compile_wire_puts(out, "mem_bytes", n);
    }
    rc = rc ? rc : compile_wire_put(out, "source", rq->source, rq->len);
    rc = rc ? rc : compile_wire_end(out);
    if (rc)
        return bw_fail(cause, rc, "cannot encode the compile request: %s", bw_strerror(rc));
    return BW_OK;
}

static bool parse_field_int(const struct compile_field *f, int64_t min, int64_t max, int64_t *v)
{
    return parse_i64(f->value, v) && *v >= min && *v <= max;
}

int compile_job_decode(struct compile_job *job, char *data, size_t len, char **cause)
{
    struct compile_field f;
    size_t pos = 0, n_options = 0;
    bool have_source = false;
    int rc;

    memset(job, 0, sizeof(*job));
    job->data = data;
    job->options = calloc(BW_COMPILE_MAX_OPTIONS, sizeof(*job->options));
    if (!job->options)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory decoding the compile request");
    while ((rc = compile_wire_next(data, len, &pos, &f, cause)) == 1) {
        int64_t v;
        if (strcmp(f.key, "source") == 0) {
            job->rq.source = f.value;
            job->rq.len = f.len;
            have_source = true;
        } else if (strcmp(f.key, "filename") == 0) {
            job->rq.filename = f.value;
        } else if (strcmp(f.key, "arch") == 0) {
            job->rq.arch = f.value;
        } else if (strcmp(f.key, "option") == 0) {
            if (n_options == BW_COMPILE_MAX_OPTIONS)
                return bw_fail(cause, BW_ERR_LIMIT, "more than %d options", BW_COMPILE_MAX_OPTIONS);
            job->options[n_options++] = f.value;
        } else if (strcmp(f.key, "cpu_s") == 0) {
            if (!parse_field_int(&f, 0, 3600, &v))
                return bw_fail(cause, BW_ERR_PROTOCOL, "bad cpu_s \"%s\"", f.value);
            job->rq.cpu_s = (int)v;
        } else if (strcmp(f.key, "mem_bytes") == 0) {
            if (!parse_field_int(&f, 0, INT64_MAX, &v))
                return bw_fail(cause, BW_ERR_PROTOCOL, "bad mem_bytes \"%s\"", f.value);
            job->rq.mem_bytes = (unsigned long long)v;
        } else {
            return bw_fail(cause, BW_ERR_PROTOCOL, "unknown request field \"%s\"", f.key);
        }
    }
    if (rc < 0)
        return rc;
    if (!have_source || !job->rq.filename || !job->rq.arch)
        return bw_fail(cause, BW_ERR_PROTOCOL, "the request lacks source, filename or arch");
    job->rq.options = job->options;
    job->rq.n_options = n_options;
    return BW_OK;
}

void compile_job_release(struct compile_job *job)
{
    free(job->data);
    free(job->options);
    memset(job, 0, sizeof(*job));
}

_Noreturn void compile_wire_fail_setup(int fd, const char *tool, const char *step, int code,
                                       const char *cause)
{
    const char *why = cause ? cause : bw_strerror(code);
    char n[16];

    snprintf(n, sizeof(n), "%d", code);
    compile_wire_write(fd, "error_step", step, strlen(step));
    compile_wire_write(fd, "error_code", n, strlen(n));
    compile_wire_write(fd, "error", why, strlen(why));
    compile_wire_write(fd, "end", "", 0);
    fprintf(stderr, "%s: %s: %s\n", tool, step, why);
    _exit(3);
}

/* ---- the log field ------------------------------------------------------------- */

int compile_log_cap(const char *log, size_t len, size_t cap, struct buf *out)
{
    size_t ptxas = len, head, tail;
    int rc;

    if (len <= cap)
        return buf_append(out, log, len);
    if (len >= 5 && memcmp(log, "ptxas", 5) == 0)
        ptxas = 0;
    for (size_t i = 0; ptxas == len && i + 6 <= len; i++)
        if (log[i] == '\n' && memcmp(log + i + 1, "ptxas", 5) == 0)
            ptxas = i + 1;
    /* Cut each part at the last line end within its cap. */
    head = ptxas < cap ? ptxas : cap;
    if (head < ptxas)
        while (head > 0 && log[head - 1] != '\n')
            head--;
    tail = len - ptxas < cap ? len - ptxas : cap;
    if (tail < len - ptxas)
        while (tail > 0 && log[ptxas + tail - 1] != '\n')
            tail--;
    if ((rc = buf_append(out, log, head)))
        return rc;
    if (head + tail < len &&
        (rc = buf_addf(out, "[... %zu bytes of the log cut ...]\n", len - head - tail)))
        return rc;
    return buf_append(out, log + ptxas, tail);
}

bool compile_wire_filename_valid(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > BW_MAX_NAME || name[0] == '.' || name[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' ||
              name[i] == '.'))
            return false;
    return true;
}
