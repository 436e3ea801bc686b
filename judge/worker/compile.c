#include "compile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/sandbox/sandbox_job.h"
#include "judge/sandbox/spawn.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

/* ---- options ------------------------------------------------------------------ */

/*
 * Options the judge sets itself (architecture, include paths, pre-includes),
 * that change what comes out (anything but a loadable cubin), or that write
 * files (timing traces, precompiled headers). Each matches the whole option
 * or the option followed by '='; "-I" matches any option it starts.
 */
static const char *const reserved_options[] = {
    "-arch",
    "--gpu-architecture",
    "-I",
    "--include-path",
    "-include",
    "--pre-include",
    "--preinclude",
    "--no-source-include",
    "-dlto",
    "--dlink-time-opt",
    "-rdc",
    "--relocatable-device-code",
    "-dc",
    "--device-c",
    "--force-device-c",
    "--compile-only",
    "--partial-link",
    "-ewp",
    "--extensible-whole-program",
    "--gen-opt-lto",
    "--emit-llvm-bc",
    "--optix-ir",
    "--emit-optix-ir",
    "--binary-kind",
    "--device-syntax-only",
    "--fdevice-syntax-only",
    "-fdevice-syntax-only",
    "--nv-host",
    "--generate-builtins",
    "-time",
    "--time",
    "-fdevice-time-trace",
    "--fdevice-time-trace",
    "--device-time-trace",
    "--trace",
    "--trace-lto",
    "--perf-stats",
    "--enable-cache-trace",
    "-pch",
    "--pch",
    "--create-pch",
    "--pch-dir",
    "--instantiate-templates-in-pch",
    "--pch-messages",
    "--pch-verbose",
    "-split-compile",
    "--split-compile",
    "--optimization-info",
    "-builtin-move-forward",
    "--builtin-move-forward",
    "-builtin-initializer-list",
    "--builtin-initializer-list",
    "--ptx-length",
};

int compile_option_check(const char *option, char **cause)
{
    size_t len = strlen(option);

    if (len == 0 || len > BW_COMPILE_OPTION_BYTES || option[0] != '-')
        return bw_fail(cause, BW_ERR_INVALID,
                       "compile option \"%.64s\" is not one option (starts with '-', at most %d "
                       "bytes)",
                       option, BW_COMPILE_OPTION_BYTES);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)option[i] < 0x20 || option[i] == 0x7f)
            return bw_fail(cause, BW_ERR_INVALID, "compile option \"%.64s\" holds a control byte",
                           option);
    for (size_t i = 0; i < sizeof(reserved_options) / sizeof(reserved_options[0]); i++) {
        size_t n = strlen(reserved_options[i]);
        if (strncmp(option, reserved_options[i], n) == 0 &&
            (option[n] == '\0' || option[n] == '=' || n == 2))
            return bw_fail(cause, BW_ERR_INVALID, "compile option \"%s\" is reserved for the judge",
                           option);
    }
    return BW_OK;
}

/* ---- log parsing ------------------------------------------------------------------- */

struct line {
    const char *s;
    size_t len;
};

/* Splits the next line off *p (without its '\n'); false at the end. */
static bool next_line(const char **p, struct line *l)
{
    const char *nl;

    if (!**p)
        return false;
    l->s = *p;
    nl = strchr(*p, '\n');
    l->len = nl ? (size_t)(nl - *p) : strlen(*p);
    *p = nl ? nl + 1 : *p + l->len;
    return true;
}

static bool starts_with(struct line l, const char *prefix)
{
    size_t n = strlen(prefix);
    return l.len >= n && memcmp(l.s, prefix, n) == 0;
}

/* The column of the caret under an echoed source line, 0 if these are not such lines. */
static int caret_column(struct line echo, struct line caret)
{
    size_t i;

    if (!starts_with(echo, "  ") || !starts_with(caret, "  "))
        return 0;
    for (i = 2; i < caret.len && (caret.s[i] == ' ' || caret.s[i] == '\t'); i++)
        ;
    if (i >= caret.len || caret.s[i] != '^' || i > echo.len || i - 1 > INT_MAX)
        return 0;
    return (int)(i - 2 + 1);
}

static const struct {
    const char *word;
    const char *severity;
} severities[] = {
    {"catastrophic error", "error"},
    {"error", "error"},
    {"warning", "warning"},
    {"remark", "remark"},
};

/*
 * Parses "FILE(LINE): SEVERITY[ #N[-D]]: MSG". Fills the parts; false if the
 * line is not a front-end diagnostic.
 */
static bool parse_front_end(struct line l, struct line *file, long *lineno, const char **severity,
                            struct line *msg)
{
    const char *end = l.s + l.len;

    for (const char *p = l.s; p + 3 < end; p++) {
        const char *q, *open;
        if (memcmp(p, "): ", 3) != 0)
            continue;
        for (q = p; q > l.s && q[-1] >= '0' && q[-1] <= '9'; q--)
            ;
        if (q == p || q == l.s || q[-1] != '(' || p - q > 9)
            continue;
        open = q - 1;
        q = p + 3;
        for (size_t i = 0; i < sizeof(severities) / sizeof(severities[0]); i++) {
            size_t n = strlen(severities[i].word);
            const char *r = q + n;
            if ((size_t)(end - q) < n || memcmp(q, severities[i].word, n) != 0)
                continue;
            if (r < end && *r == ' ' && r + 1 < end && r[1] == '#') {
                r += 2;
                while (r < end && *r != ':')
                    r++;
            }
            if (r + 1 >= end || r[0] != ':' || r[1] != ' ')
                continue;
            file->s = l.s;
            file->len = (size_t)(open - l.s);
            *lineno = strtol(open + 1, NULL, 10);
            *severity = severities[i].severity;
            msg->s = r + 2;
            msg->len = (size_t)(end - msg->s);
            return file->len > 0;
        }
        return false;
    }
    return false;
}

/* Parses "ptxas error   : MSG" or "nvrtc: error: MSG". */
static bool parse_tool_line(struct line l, const char **tool, const char **severity,
                            struct line *msg)
{
    static const struct {
        const char *prefix, *tool, *severity;
    } tools[] = {
        {"ptxas error", "ptxas: ", "error"},       {"ptxas fatal", "ptxas: ", "error"},
        {"ptxas warning", "ptxas: ", "warning"},   {"nvrtc: error:", "", "error"},
        {"nvrtc: warning:", "", "warning"},        {"nvlink error", "nvlink: ", "error"},
        {"nvlink warning", "nvlink: ", "warning"},
    };

    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
        const char *colon;
        if (!starts_with(l, tools[i].prefix))
            continue;
        colon = memchr(l.s + strlen(tools[i].prefix) - 1, ':', l.len - strlen(tools[i].prefix) + 1);
        if (!colon)
            return false;
        msg->s = colon + 1;
        while (msg->s < l.s + l.len && *msg->s == ' ')
            msg->s++;
        msg->len = (size_t)(l.s + l.len - msg->s);
        *tool = tools[i].tool;
        *severity = tools[i].severity;
        return true;
    }
    return false;
}

/* Parses every diagnostic of the log, in order, into *all. */
static int parse_diags(const char *log, const char *filename, struct diag_list *all)
{
    const char *p = log ? log : "";
    struct line l;
    size_t name_len = strlen(filename);

    while (next_line(&p, &l)) {
        struct line file, msg;
        const char *severity, *tool;
        long lineno;
        int rc;

        if (parse_front_end(l, &file, &lineno, &severity, &msg)) {
            const char *q = p;
            struct line echo, caret;
            int column = 0;
            if (next_line(&q, &echo) && next_line(&q, &caret))
                column = caret_column(echo, caret);
            if (file.len == name_len && memcmp(file.s, filename, name_len) == 0 && lineno > 0 &&
                lineno <= INT_MAX)
                rc = diag_list_addf(all, (int)lineno, column, "%s: %.*s", severity, (int)msg.len,
                                    msg.s);
            else
                rc = diag_list_addf(all, 0, 0, "%s: in %.*s line %ld: %.*s", severity,
                                    (int)file.len, file.s, lineno, (int)msg.len, msg.s);
        } else if (parse_tool_line(l, &tool, &severity, &msg)) {
            rc = diag_list_addf(all, 0, 0, "%s: %s%.*s", severity, tool, (int)msg.len, msg.s);
        } else {
            continue;
        }
        if (rc)
            return rc;
    }
    return BW_OK;
}

int compile_log_diags(const char *log, const char *filename, struct diag_list *out)
{
    static const char *const order[] = {"error:", "warning:", "remark:"};
    struct diag_list all = {0};
    size_t kept = 0;
    int rc;

    if ((rc = parse_diags(log, filename, &all)))
        goto release_all;
    /* Over the cap, errors go first, then warnings, then remarks (each in log order). */
    for (size_t s = 0; s < sizeof(order) / sizeof(order[0]); s++)
        for (size_t i = 0; i < all.n && kept < BW_MAX_DIAGS && rc == 0; i++) {
            const struct diag *d = &all.items[i];
            bool first_pass_takes_all = all.n <= BW_MAX_DIAGS;
            if (first_pass_takes_all ? s > 0 : strncmp(d->msg, order[s], strlen(order[s])) != 0)
                continue;
            rc = diag_list_addf(out, d->line, d->column, "%s", d->msg);
            kept++;
        }
    if (rc == 0 && all.n > BW_MAX_DIAGS)
        rc = diag_list_addf(out, 0, 0,
                            "remark: %zu more diagnostics are in the log (at most %d are listed)",
                            all.n - kept, BW_MAX_DIAGS);
release_all:
    diag_list_release(&all);
    return rc;
}

bool compile_diag_is_error(const struct diag *d)
{
    return strncmp(d->msg, "error:", 6) == 0;
}

/* Parses a decimal at *s (skipping blanks), advancing *s; false if none. */
static bool scan_long(const char **s, const char *end, long *v)
{
    const char *p = *s;
    long n = 0;

    while (p < end && *p == ' ')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return false;
    while (p < end && *p >= '0' && *p <= '9') {
        if (n > (LONG_MAX - 9) / 10)
            return false;
        n = n * 10 + (*p - '0');
        p++;
    }
    *s = p;
    *v = n;
    return true;
}

/* Finds `key` in l (after its "ptxas ..." prefix) and returns the text after it. */
static const char *after(struct line l, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = l.s; p + n <= l.s + l.len; p++)
        if (memcmp(p, key, n) == 0)
            return p + n;
    return NULL;
}

/* The quoted name after key ("... entry function 'NAME' ..."), or the rest of the line. */
static struct line name_after(struct line l, const char *key, bool quoted)
{
    const char *end = l.s + l.len, *s = after(l, key), *e;
    struct line name = {NULL, 0};

    if (!s)
        return name;
    if (quoted) {
        if (s >= end || *s != '\'')
            return name;
        s++;
        e = memchr(s, '\'', (size_t)(end - s));
        if (!e)
            return name;
    } else {
        e = end;
        while (e > s && (e[-1] == ' ' || e[-1] == '\r'))
            e--;
    }
    name.s = s;
    name.len = (size_t)(e - s);
    return name;
}

/* Applies "N bytes stack frame, N bytes spill stores, N bytes spill loads". */
static void parse_properties(struct line l, struct kernel_usage *k)
{
    const char *p = l.s, *end = l.s + l.len;
    long v;

    while (p < end) {
        const char *item = p;
        if (scan_long(&p, end, &v)) {
            struct line rest = {p, (size_t)(end - p)};
            if (starts_with(rest, " bytes stack frame"))
                k->stack_bytes = v;
            else if (starts_with(rest, " bytes spill stores"))
                k->spill_store_bytes = v;
            else if (starts_with(rest, " bytes spill loads"))
                k->spill_load_bytes = v;
        }
        p = memchr(item, ',', (size_t)(end - item));
        if (!p)
            break;
        p++;
    }
}

/* Applies "Used N registers, used N barriers, N bytes smem, N bytes cmem[0], ...". */
static void parse_used(const char *p, const char *end, struct kernel_usage *k)
{
    while (p < end) {
        const char *item = p;
        long v;
        while (p < end && *p == ' ')
            p++;
        struct line rest = {p, (size_t)(end - p)};
        if (starts_with(rest, "Used") || starts_with(rest, "used")) {
            p += 4;
            if (scan_long(&p, end, &v)) {
                rest = (struct line){p, (size_t)(end - p)};
                if (starts_with(rest, " registers") && v <= INT_MAX)
                    k->registers = (int)v;
                else if (starts_with(rest, " barriers") && v <= INT_MAX)
                    k->barriers = (int)v;
            }
        } else if (scan_long(&p, end, &v)) {
            rest = (struct line){p, (size_t)(end - p)};
            if (starts_with(rest, " bytes smem"))
                k->smem_bytes = v;
            else if (starts_with(rest, " bytes cmem[0]"))
                k->cmem0_bytes = v;
        }
        p = memchr(item, ',', (size_t)(end - item));
        if (!p)
            break;
        p++;
    }
}

void compile_usage_free(struct kernel_usage *k, size_t n)
{
    for (size_t i = 0; i < n && k; i++)
        free(k[i].name);
    free(k);
}

int compile_log_usage(const char *log, struct kernel_usage **out, size_t *n_out)
{
    static const char properties_prefix[] = "ptxas         .";
    const char *p = log ? log : "";
    struct kernel_usage *k = NULL;
    size_t n = 0, cap = 0;
    long current = -1, props = -1; /* indexes into k */
    struct line l;

    while (next_line(&p, &l)) {
        struct line name;
        const char *used;
        if (!starts_with(l, "ptxas"))
            continue;
        if ((name = name_after(l, "Compiling entry function ", true)).s) {
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                struct kernel_usage *nk = realloc(k, ncap * sizeof(*k));
                if (!nk)
                    goto nomem;
                k = nk;
                cap = ncap;
            }
            memset(&k[n], 0, sizeof(k[n]));
            k[n].name = strndup(name.s, name.len);
            if (!k[n].name)
                goto nomem;
            current = (long)n++;
            props = -1;
        } else if ((name = name_after(l, "Function properties for ", false)).s) {
            props = -1;
            if (current >= 0 && strlen(k[current].name) == name.len &&
                memcmp(k[current].name, name.s, name.len) == 0)
                props = current;
        } else if (starts_with(l, properties_prefix)) {
            size_t skip = strlen(properties_prefix);
            if (props >= 0)
                parse_properties((struct line){l.s + skip, l.len - skip}, &k[props]);
        } else if ((used = after(l, "info    : Used ")) != NULL) {
            if (current >= 0)
                parse_used(used - 5, l.s + l.len, &k[current]);
            current = -1;
        }
    }
    *out = k;
    *n_out = n;
    return BW_OK;
nomem:
    compile_usage_free(k, n);
    return BW_ERR_NOMEM;
}

/* ---- compile_run ------------------------------------------------------------------ */

void compile_result_release(struct compile_result *r)
{
    free(r->cubin);
    free(r->ptx);
    free(r->log);
    diag_list_release(&r->diags);
    compile_usage_free(r->kernels, r->n_kernels);
    free(r->failure);
    memset(r, 0, sizeof(*r));
}

static bool arch_valid(const char *arch)
{
    size_t i = 3, digits = 0;

    if (strncmp(arch, "sm_", 3) != 0)
        return false;
    for (; arch[i] >= '0' && arch[i] <= '9'; i++)
        digits++;
    if (arch[i] >= 'a' && arch[i] <= 'z')
        i++;
    return digits >= 2 && digits <= 3 && arch[i] == '\0';
}

/* Where blockwise-compile is: the request's path, $BLOCKWISE_COMPILE, or beside us. */
static char *find_compiler(const struct compile_request *rq)
{
    const char *env = getenv(BW_COMPILE_ENV);
    char *dir, *path;

    if (rq->compiler)
        return strdup(rq->compiler);
    if (env && *env)
        return strdup(env);
    dir = exe_dir();
    if (!dir)
        return NULL;
    path = path_join(dir, "blockwise-compile");
    free(dir);
    return path;
}

/* The request in a sealed memfd, positioned at 0: no pipe to fill, no SIGPIPE. */
static int request_memfd(const struct buf *req, int *fd_out, char **cause)
{
    int fd = memfd_create("blockwise-compile-request", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    size_t done = 0;

    if (fd < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "memfd_create: %s", strerror(errno));
    while (done < req->len) {
        ssize_t n = write(fd, req->data + done, req->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return bw_fail(cause, BW_ERR_SYSTEM, "writing the request memfd: %s", strerror(e));
        }
        done += (size_t)n;
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    if (lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return bw_fail(cause, BW_ERR_SYSTEM, "lseek(request memfd): %s", strerror(errno));
    }
    *fd_out = fd;
    return BW_OK;
}

/* A source the child must not see: over the size limit or holding a NUL byte. */
static char *format_seconds(double ms)
{
    char *s = NULL;
    if (asprintf(&s, "%g s", ms / 1000.0) < 0)
        return NULL;
    return s;
}

/* Sets out->failure to a new formatted message; BW_ERR_NOMEM if it cannot. */
static int set_failure(struct compile_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int set_failure(struct compile_result *out, const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return BW_ERR_NOMEM;
    free(out->failure);
    out->failure = msg;
    return BW_OK;
}

/* Maps a child that did not end with a result to a compile failure (or a judge error). */
static int map_death(const struct sandbox_job *job, int cpu_s, unsigned long long mem_bytes,
                     struct compile_result *out, char **cause)
{
    double cpu =
        (double)job->rusage.ru_utime.tv_sec + (double)job->rusage.ru_stime.tv_sec +
        ((double)job->rusage.ru_utime.tv_usec + (double)job->rusage.ru_stime.tv_usec) / 1e6;
    const char *output = job->output.data ? job->output.data : "";
    unsigned long long mib = mem_bytes >> 20;
    int sig;

    if (job->timed_out) {
        char *limit = format_seconds(job->wall_ms);
        int rc = set_failure(out, "compilation exceeded the time limit of %s", limit ? limit : "?");
        free(limit);
        return rc;
    }
    if (job->result_overflow)
        return bw_fail(cause, BW_ERR_PROTOCOL, "blockwise-compile wrote more than %zu bytes",
                       job->result_max);
    if (WIFEXITED(job->status) && WEXITSTATUS(job->status) == SANDBOX_EXIT_CPU_LIMIT)
        return set_failure(out, "compilation exceeded the CPU time limit of %d s", cpu_s);
    if (!WIFSIGNALED(job->status))
        return bw_fail(cause, BW_ERR_PROTOCOL,
                       "blockwise-compile exited with status %d without a complete result: %.300s",
                       WIFEXITED(job->status) ? WEXITSTATUS(job->status) : -1, output);
    sig = WTERMSIG(job->status);
    if (strstr(output, "std::bad_alloc") || strstr(output, "out of memory"))
        return set_failure(out, "compilation exceeded the memory limit of %llu MiB", mib);
    /* The hard limit's SIGKILL (the kernel's CPU clock and rusage differ a little). */
    if ((sig == SIGXCPU || sig == SIGKILL) && cpu >= 0.9 * (double)(cpu_s + 1))
        return set_failure(out, "compilation exceeded the CPU time limit of %d s", cpu_s);
    if (sig == SIGSYS)
        return set_failure(out, "the compiler was stopped: it made a forbidden system call");
    if (sig == SIGKILL)
        return set_failure(out, "the compiler was killed (SIGKILL), likely for memory");
    return set_failure(out, "the compiler crashed (%s)", spawn_signal_name(sig));
}

/* Reads the child's result record into *out. */
static int read_result(struct sandbox_job *job, unsigned long long mem_bytes,
                       struct compile_result *out, char **cause)
{
    char *data = job->result.data;
    size_t len = job->result.len, pos = 0;
    struct compile_field f;
    const char *nvrtc = NULL, *error = NULL, *error_step = "?";
    int64_t error_code = BW_ERR_PROTOCOL;
    int rc;

    if (!data)
        return bw_fail(cause, BW_ERR_PROTOCOL, "blockwise-compile sent no result");
    while ((rc = compile_wire_next(data, len, &pos, &f, cause)) == 1) {
        if (strcmp(f.key, "error") == 0) {
            error = f.value;
        } else if (strcmp(f.key, "error_step") == 0) {
            error_step = f.value;
        } else if (strcmp(f.key, "error_code") == 0) {
            if (!parse_i64(f.value, &error_code) || error_code >= 0 || error_code < -100)
                error_code = BW_ERR_PROTOCOL;
        } else if (strcmp(f.key, "nvrtc") == 0) {
            nvrtc = f.value;
        } else if (strcmp(f.key, "log") == 0) {
            free(out->log);
            out->log = strndup(f.value, f.len);
            if (!out->log)
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory reading the compile log");
        } else if (strcmp(f.key, "cubin") == 0) {
            if (f.len < 4 || memcmp(f.value, "\177ELF", 4) != 0 || f.len > BW_MAX_CUBIN_BYTES)
                return bw_fail(cause, BW_ERR_PROTOCOL,
                               "blockwise-compile sent a cubin that is "
                               "not an ELF image of at most its limit");
            free(out->cubin);
            out->cubin = malloc(f.len);
            if (!out->cubin)
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory reading the cubin");
            memcpy(out->cubin, f.value, f.len);
            out->cubin_len = f.len;
        } else if (strcmp(f.key, "ptx") == 0) {
            free(out->ptx);
            out->ptx = strndup(f.value, f.len);
            if (!out->ptx)
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory reading the PTX");
        } else if (strcmp(f.key, "failure") == 0) {
            if (set_failure(out, "%s", f.value))
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        } else if (strcmp(f.key, "nvrtc_ms") == 0) {
            parse_double(f.value, &out->nvrtc_ms);
        } else {
            return bw_fail(cause, BW_ERR_PROTOCOL, "unknown result field \"%s\"", f.key);
        }
    }
    if (rc < 0)
        return bw_wrap(cause, rc, "blockwise-compile result");
    if (error) {
        if (error_code == BW_ERR_SANDBOX)
            return bw_fail(cause, BW_ERR_SANDBOX, "compile sandbox unavailable: %s: %s", error_step,
                           error);
        return bw_fail(cause, (int)error_code, "blockwise-compile: %s: %s", error_step, error);
    }
    if (!nvrtc)
        return bw_fail(cause, BW_ERR_PROTOCOL, "blockwise-compile sent no NVRTC status");
    if (strcmp(nvrtc, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE") == 0)
        return bw_fail(cause, BW_ERR_NVRTC, "NVRTC could not run: %s: %.300s", nvrtc,
                       out->log ? out->log : "");
    /* The architecture is the judge's choice, not the learner's. */
    if (strcmp(nvrtc, "NVRTC_ERROR_INVALID_OPTION") == 0 && out->log &&
        strstr(out->log, "--gpu-architecture"))
        return bw_fail(cause, BW_ERR_INVALID, "NVRTC refused the architecture: %.300s", out->log);
    if (strcmp(nvrtc, "NVRTC_ERROR_OUT_OF_MEMORY") == 0 ||
        (out->log && strstr(out->log, "catastrophic error: out of memory")))
        if (set_failure(out, "compilation exceeded the memory limit of %llu MiB", mem_bytes >> 20))
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    out->ok = strcmp(nvrtc, "NVRTC_SUCCESS") == 0 && out->cubin && !out->failure;
    if (!out->ok) {
        free(out->cubin);
        out->cubin = NULL;
        out->cubin_len = 0;
    }
    return BW_OK;
}

int compile_run(const struct compile_request *rq, struct compile_result *out, char **cause)
{
    const char *filename = rq->filename ? rq->filename : BW_COMPILE_DEFAULT_FILENAME;
    const char *arch = rq->arch ? rq->arch : BW_COMPILE_DEFAULT_ARCH;
    struct compile_request sent = *rq;
    struct sandbox_job job;
    struct buf req;
    char *compiler = NULL, parent[32];
    char *argv[6];
    int request_fd = -1, rc, argc = 0;
    bool refused;

    memset(out, 0, sizeof(*out));
    if (!compile_wire_filename_valid(filename))
        return bw_fail(cause, BW_ERR_INVALID, "bad compile file name \"%s\"", filename);
    if (!arch_valid(arch))
        return bw_fail(cause, BW_ERR_INVALID, "bad GPU architecture \"%s\" (expected sm_NN[a])",
                       arch);
    if (rq->n_options > BW_COMPILE_MAX_OPTIONS)
        return bw_fail(cause, BW_ERR_LIMIT, "%zu compile options, over the limit of %d",
                       rq->n_options, BW_COMPILE_MAX_OPTIONS);
    for (size_t i = 0; i < rq->n_options; i++)
        if ((rc = compile_option_check(rq->options[i], cause)))
            return rc;
    if (!rq->source && rq->len)
        return bw_fail(cause, BW_ERR_INVALID, "no source to compile");
    sent.filename = filename;
    sent.arch = arch;
    sent.source = rq->source ? rq->source : "";
    sent.wall_ms = rq->wall_ms > 0 ? rq->wall_ms : BW_COMPILE_WALL_MS;
    sent.cpu_s = rq->cpu_s > 0 ? rq->cpu_s : BW_COMPILE_CPU_S;
    sent.mem_bytes = rq->mem_bytes > 0 ? rq->mem_bytes : BW_COMPILE_MEM_BYTES;

    if ((rc = diag_refuse_source(sent.source, sent.len, &out->diags, &refused)))
        return bw_fail(cause, rc, "out of memory");
    if (refused) {
        out->log = strdup("");
        return out->log ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }

    compiler = find_compiler(rq);
    if (!compiler)
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot locate blockwise-compile");
    buf_init(&req, BW_MAX_MESSAGE_BYTES);
    if ((rc = compile_request_encode(&sent, &req, cause)))
        goto release_req;
    if ((rc = request_memfd(&req, &request_fd, cause)))
        goto release_req;

    snprintf(parent, sizeof(parent), "--parent=%ld", (long)getpid());
    argv[argc++] = compiler;
    argv[argc++] = parent;
    if (rq->no_sandbox)
        argv[argc++] = "--no-sandbox";
    argv[argc] = NULL;
    sandbox_job_init(&job, sent.wall_ms,
                     BW_MAX_CUBIN_BYTES + 4 * BW_COMPILE_LOG_BYTES + BW_COMPILE_RESULT_SLACK,
                     BW_COMPILE_OUTPUT_BYTES);
    job.path = compiler;
    job.argv = argv;
    job.request_fd = request_fd;
    if ((rc = sandbox_job_run(&job, cause)))
        goto release_job;
    out->ms = job.ms;
    if (!job.timed_out && !job.result_overflow && WIFEXITED(job.status) && job.result.len > 0) {
        if ((rc = read_result(&job, sent.mem_bytes, out, cause)))
            goto release_job;
    } else if ((rc = map_death(&job, sent.cpu_s, sent.mem_bytes, out, cause))) {
        goto release_job;
    }
    if (!out->log && !(out->log = strdup(""))) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release_job;
    }
    if ((rc = compile_log_diags(out->log, filename, &out->diags)) ||
        (rc = compile_log_usage(out->log, &out->kernels, &out->n_kernels)))
        rc = bw_fail(cause, rc, "out of memory parsing the compile log");
release_job:
    sandbox_job_release(&job);
    close(request_fd);
release_req:
    buf_release(&req);
    free(compiler);
    return rc;
}
