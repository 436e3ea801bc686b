/*
 * triton_compile.c - the Triton compile child as a process (triton_compile.h):
 * started in its sandbox, warmed and waited for, one conversation (the
 * request sent, the answer read as it grows through triton_codec.c's decoder,
 * its death explained), and a compile from start to end.
 */
#include "triton_compile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "triton_codec.h"
#include "triton_install.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/sandbox/sandbox_job.h"
#include "judge/sandbox/spawn.h"
#include "common/banned.h"

#define DEFAULT_CC       90
#define MAX_NUM_STAGES   16
#define FAILURE_BYTES    1024 /* a failure text the driver sends, kept */
#define VERSION_BYTES    128  /* Triton's version string, kept */
#define TRAILING_SCRATCH 2    /* Triton's global and profile scratch pointers */

/* ---- a started compiler -------------------------------------------------------------------- */

struct triton_compiler {
    struct sandbox_job job;
    char **argv; /* owned, NULL-terminated */
    char *compiler;
    bool used;
    int cpu_s;
    unsigned long long mem_bytes;
    double start_ms;
};

void triton_compiler_free(struct triton_compiler *c)
{
    if (!c)
        return;
    sandbox_job_release(&c->job);
    for (size_t i = 0; c->argv && c->argv[i]; i++)
        free(c->argv[i]);
    free(c->argv);
    free(c->compiler);
    free(c);
}

static int push_arg(struct triton_compiler *c, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int push_arg(struct triton_compiler *c, size_t *n, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = vasprintf(&c->argv[*n], fmt, ap);
    va_end(ap);
    if (r < 0) {
        c->argv[*n] = NULL;
        return BW_ERR_NOMEM;
    }
    (*n)++;
    return BW_OK;
}

/* The serving child's environment: nothing (blockwise-triton-compile sets Python's). */
int triton_compiler_start(const struct triton_options *o, struct triton_compiler **out,
                          char **cause)
{
    static const struct triton_options none = {0};
    struct triton_compiler *c;
    const struct triton_layout *l;
    char *python = NULL;
    size_t n = 0;
    int rc;

    *out = NULL;
    o = o ? o : &none;
    if (o->cpu_s < 0 || o->cpu_s > 3600)
        return bw_fail(cause, BW_ERR_INVALID, "bad Triton CPU limit %d s", o->cpu_s);
    if (!(c = calloc(1, sizeof(*c))))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    sandbox_job_init(&c->job, BW_TRITON_WALL_MS, BW_TRITON_RESULT_BYTES, BW_TRITON_OUTPUT_BYTES);
    c->cpu_s = o->cpu_s > 0 ? o->cpu_s : BW_TRITON_CPU_S;
    c->mem_bytes = o->mem_bytes > 0 ? o->mem_bytes : BW_TRITON_MEM_BYTES;
    if ((rc = triton_find_python(o->python, &python, cause)) ||
        (rc = triton_find_compiler(o->compiler, &c->compiler, cause)) ||
        (rc = triton_layout_get(python, c->compiler, &l, cause)))
        goto fail;
    if (!(c->argv = calloc(l->n_paths + 10, sizeof(*c->argv)))) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto fail;
    }
    rc = push_arg(c, &n, "%s", c->compiler);
    rc = rc ? rc : push_arg(c, &n, "--parent=%ld", (long)getpid());
    rc = rc ? rc : push_arg(c, &n, "--serve");
    rc = rc ? rc : push_arg(c, &n, "--python=%s", l->python);
    rc = rc ? rc : push_arg(c, &n, "--cpu-s=%d", c->cpu_s);
    rc = rc ? rc : push_arg(c, &n, "--mem-bytes=%llu", c->mem_bytes);
    if (o->no_sandbox)
        rc = rc ? rc : push_arg(c, &n, "--no-sandbox");
    for (size_t i = 0; i < l->n_paths && !rc; i++)
        rc = push_arg(c, &n, "--bind=%s", l->paths[i]);
    if (rc) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto fail;
    }
    c->job.path = c->compiler;
    c->job.argv = c->argv;
    c->job.request_stream = true;
    c->start_ms = now_ms();
    if ((rc = sandbox_job_start(&c->job, cause)))
        goto fail;
    free(python);
    *out = c;
    return BW_OK;
fail:
    free(python);
    triton_compiler_free(c);
    return rc;
}

/* What the answer so far says of readiness: 1 ready, 0 not yet, < 0 the judge error it holds. */
static int readiness(struct triton_compiler *c, char **cause)
{
    struct triton_request rq = {.n_kernels = 1};
    struct triton_kernel_request k = {0};
    struct triton_result r = {0};
    bool accepted, complete;
    char *copy;
    int rc;

    if (!c->job.result.data)
        return 0;
    if (!(copy = malloc(c->job.result.len + 1)))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    memcpy(copy, c->job.result.data, c->job.result.len + 1);
    rq.kernels = &k;
    rc = triton_result_decode(copy, c->job.result.len, &rq, &r, &accepted, &complete, cause);
    if (rc == BW_OK)
        rc = r.triton_version ? 1 : 0;
    triton_result_release(&r);
    free(copy);
    return rc;
}

int triton_compiler_wait_ready(struct triton_compiler *c, int timeout_ms, char **cause)
{
    double deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : BW_TRITON_START_MS);
    int rc;

    if (c->used)
        return bw_fail(cause, BW_ERR_INVALID, "this Triton compiler was used already");
    for (;;) {
        double left = deadline - now_ms();
        if ((rc = readiness(c, cause)) != 0)
            return rc < 0 ? rc : BW_OK;
        if (c->job.exited || c->job.result_r < 0 || c->job.result_overflow) {
            const char *output = c->job.output.data ? c->job.output.data : "";
            size_t n = strlen(output);
            return bw_fail(cause, BW_ERR_SANDBOX,
                           "Triton compile sandbox unavailable: the compiler ended before it was "
                           "ready: %s",
                           output + (n > 400 ? n - 400 : 0));
        }
        if (left <= 0)
            return bw_fail(cause, BW_ERR_TIMEOUT, "the Triton compiler was not ready within %d ms",
                           timeout_ms > 0 ? timeout_ms : BW_TRITON_START_MS);
        rc = sandbox_job_wait_result(&c->job, c->job.result.len + 1, (int)left + 1, NULL);
        if (rc && rc != BW_ERR_TIMEOUT)
            return bw_fail(cause, rc, "waiting for the Triton compiler failed");
    }
}

static char *format_seconds(double ms)
{
    char *s = NULL;
    if (asprintf(&s, "%g s", ms / 1000.0) < 0)
        return NULL;
    return s;
}

/* The child ended without a whole answer after it accepted: the submission's failure. */
static int map_death(const struct sandbox_job *job, const struct triton_compiler *c,
                     struct triton_result *out)
{
    double cpu =
        (double)job->rusage.ru_utime.tv_sec + (double)job->rusage.ru_stime.tv_sec +
        ((double)job->rusage.ru_utime.tv_usec + (double)job->rusage.ru_stime.tv_usec) / 1e6;
    const char *output = job->output.data ? job->output.data : "";
    int sig;

    if (job->timed_out) {
        char *limit = format_seconds(job->wall_ms);
        int rc = triton_result_fail(out, "Triton compilation exceeded the time limit of %s",
                                    limit ? limit : "?");
        free(limit);
        return rc;
    }
    if (job->result_overflow)
        return triton_result_fail(
            out, "the Triton compiler's answer is over BW_TRITON_RESULT_BYTES (%d)",
            BW_TRITON_RESULT_BYTES);
    if (WIFEXITED(job->status) && WEXITSTATUS(job->status) == SANDBOX_EXIT_CPU_LIMIT)
        return triton_result_fail(out, "Triton compilation exceeded the CPU time limit of %d s",
                                  c->cpu_s);
    if (WIFEXITED(job->status))
        return triton_result_fail(
            out,
            "the Triton compiler's answer is incomplete or malformed (it exited "
            "with status %d): did the submission exit, or write to the "
            "compiler's result pipe (fd 4)?",
            WEXITSTATUS(job->status));
    sig = WTERMSIG(job->status);
    if ((sig == SIGXCPU || sig == SIGKILL) && cpu >= 0.9 * (double)(c->cpu_s + 1))
        return triton_result_fail(out, "Triton compilation exceeded the CPU time limit of %d s",
                                  c->cpu_s);
    if (strstr(output, "MemoryError") || strstr(output, "std::bad_alloc") ||
        strstr(output, "out of memory") || strstr(output, "Cannot allocate memory"))
        return triton_result_fail(out, "Triton compilation exceeded the memory limit of %llu MiB",
                                  c->mem_bytes >> 20);
    if (sig == SIGSYS)
        return triton_result_fail(
            out, "the Triton compiler was stopped: it made a forbidden system call");
    if (sig == SIGKILL)
        return triton_result_fail(out,
                                  "the Triton compiler was killed (SIGKILL), likely for memory");
    return triton_result_fail(out, "the Triton compiler crashed (%s)", spawn_signal_name(sig));
}

/* The log: the child's output, with a line saying it was cut. */
static int take_log(struct sandbox_job *job, struct triton_result *out)
{
    struct buf b;

    buf_init(&b, BW_TRITON_OUTPUT_BYTES + 128);
    if (job->output.data && buf_append(&b, job->output.data, job->output.len))
        return BW_ERR_NOMEM;
    if (job->output.len >= job->output_max &&
        buf_addf(&b, "\n[... the output was cut at %zu bytes ...]\n", job->output_max))
        return BW_ERR_NOMEM;
    out->log = buf_detach(&b);
    return out->log ? BW_OK : BW_ERR_NOMEM;
}

/* Reads the answer as it grows until the child is done with it (or the wall limit passes),
 * giving out each build as it is whole; *why keeps a judge error the record holds. */
static int stream_answer(struct triton_compiler *c, struct decoder *d, int *why_rc, char **why)
{
    while (c->job.result_r >= 0 && !c->job.exited && !d->complete && !d->stopped) {
        double left = c->job.deadline_ms - now_ms();
        int rc;
        if (left <= 0)
            break;
        rc = sandbox_job_wait_result(&c->job, c->job.result.len + 1, (int)left + 1, NULL);
        if (rc && rc != BW_ERR_TIMEOUT)
            return rc;
        if (*why_rc == BW_OK)
            *why_rc = triton_decoder_feed(d, c->job.result.data, c->job.result.len, why);
        if (d->halt && !c->job.cancelled && !c->job.exited) {
            spawn_kill_group(c->job.pid); /* the caller needs no more: its failure says why */
            c->job.cancelled = true;
        }
        if (*why_rc != BW_OK)
            break;
    }
    return BW_OK;
}

/*
 * The one conversation of a compiler: refuses a source the child must not see (out->diags;
 * the compiler stays unused), sends the encoded request, reads the answer as it grows with
 * decoder d (giving each build out as it is whole; stopping the child when the caller's hook
 * halts), waits for the child's end, and explains an answer cut short. With `want_reason`, a
 * compile that built nothing and said no error gets a failure saying so (a kernel request's;
 * a launcher's caller judges its own answer).
 */
static int converse(struct triton_compiler *c, const struct buf *req, const char *source,
                    size_t len, int wall_ms, struct decoder *d, const struct triton_stream *st,
                    bool want_reason, struct triton_result *out, char **cause)
{
    bool refused;
    double t0 = now_ms();
    char *why = NULL;
    int rc, why_rc = BW_OK;

    if ((rc = diag_refuse_source(source, len, &out->diags, &refused))) {
        rc = bw_fail(cause, rc, "out of memory");
        goto release;
    }
    if (refused) {
        out->log = strdup("");
        rc = out->log ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < d->rq->n_kernels; i++)
            triton_decoder_deliver(d, i);
        goto release; /* the compiler stays unused */
    }
    c->used = true;
    c->job.wall_ms = wall_ms > 0 ? wall_ms : BW_TRITON_WALL_MS;
    c->job.cancel_fd = st ? st->cancel_fd : -1;
    rc = sandbox_job_send(&c->job, req->data, req->len, cause);
    if (rc == BW_ERR_TIMEOUT && cause) { /* the wall limit passed: finish kills it, says so */
        free(*cause);
        *cause = NULL;
    }
    if (rc == BW_ERR_TIMEOUT)
        rc = BW_OK;
    if (rc == BW_OK)
        rc = stream_answer(c, d, &why_rc, &why);
    if (rc) {
        rc = bw_fail(cause, rc, "reading the Triton compiler's answer failed");
        goto release;
    }
    if ((rc = sandbox_job_finish(&c->job, NULL, 0, cause)))
        goto release;
    out->ms = now_ms() - t0;
    out->cpu_ms =
        ((double)c->job.rusage.ru_utime.tv_sec + (double)c->job.rusage.ru_stime.tv_sec) * 1000.0 +
        ((double)c->job.rusage.ru_utime.tv_usec + (double)c->job.rusage.ru_stime.tv_usec) / 1000.0;
    if (why_rc == BW_OK)
        why_rc = triton_decoder_feed(d, c->job.result.data, c->job.result.len, &why);
    if (why_rc) {
        rc = bw_fail(cause, why_rc, "%s", why ? why : bw_strerror(why_rc));
        goto release;
    }
    d->stopped = d->stopped || !d->complete;
    if ((rc = triton_decoder_finish(d, cause)))
        goto release;
    if (!d->accepted) {
        const char *output = c->job.output.data ? c->job.output.data : "";
        size_t n = strlen(output);
        if (c->job.timed_out)
            rc = bw_fail(cause, BW_ERR_TIMEOUT,
                         "the Triton compiler did not take its request within %d ms (importing "
                         "triton)",
                         c->job.wall_ms);
        else
            rc = bw_fail(cause, BW_ERR_SANDBOX,
                         "Triton compile sandbox unavailable: the compiler ended (status %#x) "
                         "before it took its request: %s",
                         c->job.status, output + (n > 400 ? n - 400 : 0));
        goto release;
    }
    if (d->halt && triton_result_fail(out, "%s", d->halt)) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if (!d->complete && c->job.cancelled &&
        triton_result_fail(out, "the compile was stopped: the judging no longer needed it")) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if (!d->complete && (rc = map_death(&c->job, c, out))) {
        rc = bw_fail(cause, rc, "out of memory");
        goto release;
    }
    if (take_log(&c->job, out)) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    out->ok = !out->failure;
    for (size_t i = 0; i < out->n_builds; i++)
        out->ok = out->ok && out->builds[i].ok;
    if (want_reason && !out->ok && !out->failure) {
        bool has_error = false;
        for (size_t i = 0; i < out->diags.n; i++)
            has_error = has_error || strncmp(out->diags.items[i].msg, "error: ", 7) == 0;
        if (!has_error && triton_result_fail(out, "the Triton compiler built no kernel and gave no "
                                                  "reason")) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto release;
        }
    }
    rc = BW_OK;
release:
    if (rc == BW_OK && !out->log && !(out->log = strdup("")))
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    free(why);
    return rc;
}

int triton_compiler_compile_stream(struct triton_compiler *c, const struct triton_request *rq,
                                   const struct triton_stream *st, struct triton_result *out,
                                   char **cause)
{
    struct buf req;
    struct decoder d = {0};
    int rc;

    memset(out, 0, sizeof(*out));
    if (c->used)
        return bw_fail(cause, BW_ERR_INVALID, "this Triton compiler was used already");
    buf_init(&req, BW_MAX_MESSAGE_BYTES);
    if ((rc = triton_request_encode(rq, &req, cause)) == BW_OK &&
        (rc = triton_decoder_init(&d, rq, out, st ? st->on_build : NULL, st ? st->arg : NULL,
                                  cause)) == BW_OK)
        rc = converse(c, &req, rq->source, rq->len, rq->wall_ms, &d, st, true, out, cause);
    triton_decoder_release(&d);
    buf_release(&req);
    return rc;
}

int triton_compiler_compile(struct triton_compiler *c, const struct triton_request *rq,
                            struct triton_result *out, char **cause)
{
    return triton_compiler_compile_stream(c, rq, NULL, out, cause);
}

bool triton_compiler_alive(const struct triton_compiler *c)
{
    siginfo_t info;

    if (c->used || !c->job.started || c->job.exited)
        return false;
    memset(&info, 0, sizeof(info));
    if (waitid(P_PID, (id_t)c->job.pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == EINTR;
    return info.si_pid == 0;
}

long triton_compiler_pid(const struct triton_compiler *c)
{
    return c->job.started ? (long)c->job.pid : -1;
}

/* ---- a request the caller encoded (a launcher's) ---------------------------------------- */

int triton_compiler_exchange(struct triton_compiler *c, const struct buf *request,
                             const char *source, size_t len, int wall_ms,
                             const struct triton_fields *own, const struct triton_stream *st,
                             struct triton_result *out, char **cause)
{
    static const struct triton_request none = {0}; /* until the hook names the kernels */
    struct decoder d = {0};
    int rc;

    if (c->used)
        return bw_fail(cause, BW_ERR_INVALID, "this Triton compiler was used already");
    if ((rc = triton_decoder_init(&d, &none, out, st ? st->on_build : NULL, st ? st->arg : NULL,
                                  cause)) == BW_OK) {
        d.own = own;
        rc = converse(c, request, source, len, wall_ms, &d, st, false, out, cause);
    }
    triton_decoder_release(&d);
    return rc;
}

int triton_compile_run(const struct triton_request *rq, struct triton_result *out, char **cause)
{
    struct triton_options o = {.python = rq->python,
                               .compiler = rq->compiler,
                               .no_sandbox = rq->no_sandbox,
                               .cpu_s = rq->cpu_s,
                               .mem_bytes = rq->mem_bytes};
    struct triton_compiler *c = NULL;
    double t0 = now_ms();
    int rc;

    bool refused;

    memset(out, 0, sizeof(*out));
    if ((rc = triton_request_check(rq, cause)))
        return rc;
    /* A source the child must not see starts no child (nor the discovery). */
    if (diag_refuse_source(rq->source, rq->len, &out->diags, &refused) ||
        (refused && !(out->log = strdup(""))) ||
        (refused && !(out->builds = calloc(rq->n_kernels, sizeof(*out->builds))))) {
        triton_result_release(out);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    if (refused) {
        out->n_builds = rq->n_kernels;
        return BW_OK;
    }
    if ((rc = triton_compiler_start(&o, &c, cause)))
        return rc;
    rc = triton_compiler_compile(c, rq, out, cause);
    out->ms = now_ms() - t0;
    triton_compiler_free(c);
    return rc;
}
