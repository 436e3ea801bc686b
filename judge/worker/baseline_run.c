/*
 * baseline_run.c - the Python process that measures PyTorch (baseline.h): starting the
 * embedded driver, the conversation with it (the GPU gate taken on its behalf), the probe, a
 * measurement, validate's check, and the worker's background service with its cache.
 */
#include "baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "python.h"
#include "compare.h"
#include "dump.h"
#include "judge_config.h"
#include "runner_pool.h"
#include "tests.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/stats.h"
#include "common/util.h"
#include "judge/sandbox/spawn.h"
#include "common/banned.h"

/* The driver, embedded by the Makefile (judge/worker/baseline_driver.py, NUL-terminated). */
extern const char baseline_driver_py[];

/* ---- the driver process -------------------------------------------------------------------- */

struct driver {
    pid_t pid;
    int req_w, res_r, out_r; /* our ends: requests, replies, its stdout+stderr */
    struct buf line;         /* a reply being read */
    struct buf output;       /* its stdout and stderr, capped */
    bool out_open, res_open;
    bool gate_held, gate_exclusive;
    const struct judge_config *jc;
    const atomic_bool *stop;
};

/* What a conversation does with each message but the gate's; a negative return ends it. */
typedef int (*driver_fn)(json_t *msg, void *arg, char **cause);

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The driver's environment: the judge's PATH, HOME and the variables CUDA and the dynamic
 * loader read (a GPU selection, a library path), nothing else. */
static void driver_env(char **env, size_t cap)
{
    static const char *const keep[] = {"PATH",
                                       "HOME",
                                       "LD_LIBRARY_PATH",
                                       "CUDA_HOME",
                                       "TMPDIR",
                                       "CUDA_VISIBLE_DEVICES",
                                       "CUDA_DEVICE_ORDER",
                                       NULL};
    size_t n = 0;

    for (size_t i = 0; keep[i] && n + 1 < cap; i++) {
        const char *v = getenv(keep[i]);
        if (v && asprintf(&env[n], "%s=%s", keep[i], v) >= 0)
            n++;
    }
    env[n] = NULL;
}

static int driver_start(struct driver *d, const char *python, const struct judge_config *jc,
                        char **cause)
{
    struct sandbox_limits limits = {.cpu_s = BW_BASELINE_CPU_S,
                                    .fsize_bytes = BW_BASELINE_FSIZE_BYTES,
                                    .nofile = BW_BASELINE_NOFILE};
    int req[2] = {-1, -1}, res[2] = {-1, -1}, out[2] = {-1, -1}, mfd = -1;
    char *py = NULL, *env[16] = {NULL};
    char *argv[] = {NULL, "-I", "-X", "faulthandler", "/dev/fd/5", NULL}; /* a crash prints where */
    struct spawn sp;
    size_t len = strlen(baseline_driver_py);
    int rc;

    memset(d, 0, sizeof(*d));
    d->pid = -1;
    d->req_w = d->res_r = d->out_r = -1;
    d->jc = jc;
    buf_init(&d->line, BW_BASELINE_LINE_BYTES);
    buf_init(&d->output, BW_BASELINE_OUTPUT_BYTES);
    if ((rc = python_find(python, "PyTorch", &py, cause)))
        return rc;
    mfd = memfd_create("baseline_driver.py", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (mfd < 0 || write(mfd, baseline_driver_py, len) != (ssize_t)len ||
        fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "the baseline driver's memfd: %s", strerror(errno));
        goto out;
    }
    if (pipe2(req, O_CLOEXEC) || pipe2(res, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "pipe: %s", strerror(errno));
        goto out;
    }
    driver_env(env, sizeof(env) / sizeof(env[0]));
    argv[0] = py;
    spawn_init(&sp);
    sp.path = py;
    sp.argv = argv;
    sp.env = env;
    sp.limits = &limits;
    sp.fds[0] = SPAWN_FD_NULL;
    sp.fds[1] = out[1];
    sp.fds[2] = out[1];
    sp.fds[3] = req[0];
    sp.fds[4] = res[1];
    sp.fds[5] = mfd;
    sp.n_fds = 6;
    rc = spawn_start(&sp, cause);
    if (rc == BW_OK) {
        d->pid = sp.pid;
        d->req_w = req[1];
        d->res_r = res[0];
        d->out_r = out[0];
        req[1] = res[0] = out[0] = -1;
        d->out_open = d->res_open = true;
        signal(SIGPIPE, SIG_IGN); /* a driver that died must not kill judged on a write */
    }
out:
    for (int i = 0; i < 2; i++) {
        close_fd(&req[i]);
        close_fd(&res[i]);
        close_fd(&out[i]);
    }
    close_fd(&mfd);
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
    free(py);
    return rc;
}

/* Enters (or leaves) the GPU gate for the driver; an exclusive entry returns how long the GPU
 * had rested (ms; 0 without a pool: the driver rests in full). */
static double gate(struct driver *d, bool enter, bool exclusive)
{
    double rested = 0;

    if (!d->jc || !d->jc->pool)
        return 0;
    if (enter) {
        if (exclusive) /* a shape's timing: after the worker's judgings and a rest, if they come */
            rested = runner_pool_gate_enter_background(d->jc->pool, BW_BASELINE_REST_MS,
                                                       BW_BASELINE_GATE_PATIENCE_MS);
        else
            runner_pool_gate_enter(d->jc->pool, false);
        d->gate_held = true;
        d->gate_exclusive = exclusive;
    } else if (d->gate_held) {
        runner_pool_gate_leave(d->jc->pool, d->gate_exclusive);
        d->gate_held = false;
    }
    return rested;
}

static int send_line(struct driver *d, const char *text, char **cause)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(d->req_w, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return bw_fail(cause, BW_ERR_IO, "the baseline driver stopped reading: %s",
                           strerror(errno));
        text += n;
        len -= (size_t)n;
    }
    return BW_OK;
}

/* The tail of what the driver printed, for an error message (static). */
static const char *output_tail(const struct driver *d)
{
    const char *o = d->output.data ? d->output.data : "";
    size_t n = strlen(o);
    return o + (n > 600 ? n - 600 : 0);
}

/* One message: the gate's are answered here, the rest go to fn. */
static int handle(struct driver *d, json_t *msg, driver_fn fn, void *arg, char **cause)
{
    const char *enter = json_string_value(json_object_get(msg, "enter"));

    if (enter) {
        if (d->gate_held)
            return bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver entered the gate twice");
        if (d->stop && atomic_load(d->stop)) {
            send_line(d, "{\"stop\": true}\n", NULL);
            return bw_fail(cause, BW_ERR_CANCELLED, "the baseline's measurement was stopped");
        }
        char go[64];
        snprintf(go, sizeof(go), "{\"go\": true, \"rested_ms\": %.0f}\n",
                 gate(d, true, strcmp(enter, "exclusive") == 0));
        return send_line(d, go, cause);
    }
    if (json_object_get(msg, "leave")) {
        gate(d, false, false);
        return BW_OK;
    }
    return fn(msg, arg, cause);
}

/* Reads what is there of the replies and the output; runs fn on each whole line. */
static int pump(struct driver *d, driver_fn fn, void *arg, int timeout_ms, bool *progressed,
                char **cause)
{
    struct pollfd p[2] = {{d->res_open ? d->res_r : -1, POLLIN, 0},
                          {d->out_open ? d->out_r : -1, POLLIN, 0}};
    char chunk[65536];
    int rc = BW_OK;

    *progressed = false;
    if (poll(p, 2, timeout_ms) < 0)
        return errno == EINTR ? BW_OK : bw_fail(cause, BW_ERR_SYSTEM, "poll: %s", strerror(errno));
    if (p[1].revents) {
        ssize_t n = read(d->out_r, chunk, sizeof(chunk));
        if (n <= 0)
            d->out_open = false;
        else if (d->output.len + (size_t)n <= BW_BASELINE_OUTPUT_BYTES)
            buf_append(&d->output, chunk, (size_t)n);
    }
    if (!p[0].revents)
        return BW_OK;
    ssize_t n = read(d->res_r, chunk, sizeof(chunk));
    if (n <= 0) {
        d->res_open = false;
        return BW_OK;
    }
    *progressed = true;
    if (buf_append(&d->line, chunk, (size_t)n) < 0)
        return bw_fail(cause, BW_ERR_LIMIT, "a baseline driver message over %d bytes",
                       BW_BASELINE_LINE_BYTES);
    char *start = d->line.data, *nl;
    while (rc == BW_OK &&
           (nl = memchr(start, '\n', d->line.len - (size_t)(start - d->line.data)))) {
        json_error_t je;
        json_t *msg = json_loadb(start, (size_t)(nl - start), 0, &je);
        if (!json_is_object(msg))
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver sent \"%.*s\"",
                         (int)(nl - start > 200 ? 200 : nl - start), start);
        else
            rc = handle(d, msg, fn, arg, cause);
        json_decref(msg);
        start = nl + 1;
    }
    size_t rest = d->line.len - (size_t)(start - d->line.data);
    memmove(d->line.data, start, rest);
    d->line.len = rest;
    d->line.data[rest] = '\0';
    return rc;
}

/* Kills what is left of the driver, reaps it, gives the gate back. *status: its wait status. */
static void driver_finish(struct driver *d, int *status)
{
    gate(d, false, false);
    close_fd(&d->req_w);
    if (d->pid > 0) {
        spawn_kill_group(d->pid);
        while (waitpid(d->pid, status, 0) < 0 && errno == EINTR)
            ;
        d->pid = -1;
    }
    close_fd(&d->res_r);
    close_fd(&d->out_r);
}

static void driver_release(struct driver *d)
{
    int status;
    driver_finish(d, &status);
    buf_release(&d->line);
    buf_release(&d->output);
}

/*
 * A whole conversation: sends the request, then pumps until the driver closes its replies,
 * within wall_ms in all and BW_BASELINE_IDLE_MS between messages (a wait for the gate does
 * not count). Returns BW_OK when the driver ended having said "done".
 */
struct conversation {
    driver_fn fn;
    void *arg;
    bool done;
    char *fail; /* owned: the driver's own "fail" */
};

static int on_message(json_t *msg, void *arg, char **cause)
{
    struct conversation *cv = arg;
    const char *step = json_string_value(json_object_get(msg, "fail"));

    if (json_object_get(msg, "done")) {
        cv->done = true;
        return BW_OK;
    }
    if (step) {
        free(cv->fail);
        if (asprintf(&cv->fail, "%s: %s", step,
                     json_string_value(json_object_get(msg, "error")) ?: "failed") < 0)
            cv->fail = NULL;
        return BW_OK;
    }
    return cv->fn(msg, cv->arg, cause);
}

static int converse(const char *python, const struct judge_config *jc, const atomic_bool *stop,
                    json_t *request, int wall_ms, driver_fn fn, void *arg, char **cause)
{
    struct driver d;
    struct conversation cv = {.fn = fn, .arg = arg};
    char *text = NULL;
    double t0 = now_ms(), last;
    int rc, status = 0;

    rc = driver_start(&d, python, jc, cause);
    if (rc) {
        buf_release(&d.line);
        buf_release(&d.output);
        return rc;
    }
    d.stop = stop;
    text = json_dumps(request, JSON_COMPACT);
    rc = text ? send_line(&d, text, cause) : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (rc == BW_OK)
        rc = send_line(&d, "\n", cause);
    free(text);
    last = now_ms();
    while (rc == BW_OK && d.res_open) {
        double now = now_ms();
        bool progressed = false;
        if (now - t0 > wall_ms) {
            rc = bw_fail(cause, BW_ERR_TIMEOUT, "PyTorch's baseline took over %d s (killed)",
                         wall_ms / 1000);
            break;
        }
        if (now - last > BW_BASELINE_IDLE_MS) {
            rc = bw_fail(cause, BW_ERR_TIMEOUT,
                         "PyTorch's baseline said nothing for %d s (killed); its output: %s",
                         BW_BASELINE_IDLE_MS / 1000, output_tail(&d));
            break;
        }
        rc = pump(&d, on_message, &cv, 200, &progressed, cause);
        if (progressed)
            last = now_ms(); /* a gate wait happens inside pump: it restarts the clock too */
    }
    /* The last of its output (a traceback) before it is reaped. */
    for (double until = now_ms() + 500; d.out_open && now_ms() < until;) {
        bool progressed;
        if (pump(&d, on_message, &cv, 50, &progressed, NULL))
            break;
    }
    driver_finish(&d, &status);
    if (rc == BW_OK && cv.fail)
        rc = bw_fail(cause,
                     strncmp(cv.fail, "import torch", 12) == 0 || strncmp(cv.fail, "cuda", 4) == 0
                         ? BW_ERR_NOTFOUND
                         : BW_ERR_INVALID,
                     "%s", cv.fail);
    else if (rc == BW_OK && !cv.done)
        rc = bw_fail(cause, BW_ERR_PROTOCOL,
                     "the baseline driver ended (%s %d) without finishing: %s",
                     WIFSIGNALED(status) ? "signal" : "status",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), output_tail(&d));
    free(cv.fail);
    driver_release(&d);
    return rc;
}

/* ---- the probe ------------------------------------------------------------------------- */

static int on_ready(json_t *msg, void *arg, char **cause)
{
    struct baseline_python *out = arg;
    json_t *ready = json_object_get(msg, "ready");
    (void)cause;
    if (json_is_object(ready)) {
        snprintf(out->torch, sizeof(out->torch), "%s",
                 json_string_value(json_object_get(ready, "torch")) ?: "?");
        snprintf(out->python_ver, sizeof(out->python_ver), "%s",
                 json_string_value(json_object_get(ready, "python")) ?: "?");
        out->available = true;
    }
    return BW_OK;
}

void baseline_probe(const char *python, const struct judge_config *jc, struct baseline_python *out)
{
    json_t *rq = json_pack("{s:s, s:s, s:{s:i, s:s}, s:I}", "mode", "probe", "problem_dir", "",
                           "device", "ordinal", jc ? jc->device : 0, "uuid", jc ? jc->gpu.uuid : "",
                           "gpu_mem_bytes", (json_int_t)BW_BASELINE_GPU_MEM_BYTES);
    char *cause = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    if (jc && !jc->have_gpu) {
        snprintf(out->reason, sizeof(out->reason), "this worker has no GPU");
        json_decref(rq);
        return;
    }
    rc = rq ? converse(python, NULL, NULL, rq, BW_BASELINE_PROBE_MS, on_ready, out, &cause)
            : bw_fail(&cause, BW_ERR_NOMEM, "out of memory");
    if (rc || !out->available) {
        out->available = false;
        snprintf(out->reason, sizeof(out->reason), "PyTorch is not installed on this worker (%s)",
                 cause ? cause : "the probe said nothing");
    }
    free(cause);
    json_decref(rq);
}

/* ---- a measurement --------------------------------------------------------------------- */

struct measuring {
    const struct problem *p;
    struct baseline_figures *f;
};

static int on_shape(json_t *msg, void *arg, char **cause)
{
    struct measuring *m = arg;
    json_t *ready = json_object_get(msg, "ready"), *idx = json_object_get(msg, "shape");
    json_t *samples;
    struct stats_summary st;
    size_t i, n;

    if (json_is_object(ready)) {
        snprintf(m->f->torch, sizeof(m->f->torch), "%s",
                 json_string_value(json_object_get(ready, "torch")) ?: "?");
        snprintf(m->f->python_ver, sizeof(m->f->python_ver), "%s",
                 json_string_value(json_object_get(ready, "python")) ?: "?");
        return BW_OK;
    }
    if (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
        (size_t)json_integer_value(idx) >= m->f->n_shapes)
        return bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver sent an unknown message");
    struct baseline_shape *s = &m->f->shapes[json_integer_value(idx)];
    const char *err = json_string_value(json_object_get(msg, "error"));
    if (err) {
        free(s->error);
        s->error = strdup(err);
        log_warn("baseline: %s, %s: %s", m->p->id, s->name, err);
        return s->error ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    samples = json_object_get(msg, "samples_ms");
    n = json_array_size(samples);
    if (n < 1 || n > BW_BENCH_MAX_SAMPLES + 1)
        return bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver sent %zu samples", n);
    double *v = calloc(n, sizeof(*v));
    if (!v)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (i = 0; i < n; i++)
        v[i] = json_number_value(json_array_get(samples, i));
    int rc = stats_summarize(v, (int)n, &st, cause);
    free(v);
    if (rc)
        return bw_wrap(cause, BW_ERR_PROTOCOL, "baseline %s", s->name);
    s->samples = st.n;
    s->median_ms = st.median;
    s->p10_ms = st.p10;
    s->p90_ms = st.p90;
    s->rse = st.rse_median;
    snprintf(s->stop, sizeof(s->stop), "%s",
             json_string_value(json_object_get(msg, "stop")) ?: "budget");
    return BW_OK;
}

static bool has_baseline(const struct problem *p)
{
    char *path = path_join(p->dir, "baseline.py");
    struct stat st;
    bool ok = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return ok;
}

int baseline_measure(const struct baseline_job *job, struct baseline_figures *out, char **cause)
{
    const struct problem *p = job->p;
    struct measuring m = {.p = p, .f = out};
    json_t *rq;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!has_baseline(p))
        return bw_fail(cause, BW_ERR_NOTFOUND, "problem %s has no baseline.py", p->id);
    snprintf(out->bundle, sizeof(out->bundle), "%s", job->bundle ? job->bundle : "");
    if (job->jc) {
        snprintf(out->gpu_uuid, sizeof(out->gpu_uuid), "%s", job->jc->gpu.uuid);
        snprintf(out->gpu_name, sizeof(out->gpu_name), "%s", job->jc->gpu.name);
    }
    out->method = baseline_method_json();
    out->shapes = calloc(p->n_benchmarks + 1, sizeof(*out->shapes));
    if (!out->method || !out->shapes)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        out->n_shapes = b + 1;
        if (!(out->shapes[b].name = strdup(p->benchmarks[b].name)))
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    rq = baseline_request_json(p, job->jc, "measure", cause);
    if (!rq)
        return BW_ERR_INVALID;
    rc = converse(job->python, job->jc, job->stop, rq, BW_BASELINE_WALL_MS, on_shape, &m, cause);
    json_decref(rq);
    out->measured_at = (int64_t)time(NULL);
    for (size_t b = 0; rc == BW_OK && b < out->n_shapes; b++)
        if (!out->shapes[b].error && !(out->shapes[b].median_ms > 0))
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver did not time %s",
                         out->shapes[b].name);
    return rc;
}

/* ---- validate's check ------------------------------------------------------------------ */

struct checking {
    const struct problem *p;
    const char *cases_dir;
    int *case_index; /* the problem's test index of each case sent */
    size_t n_cases;
    struct buf report;
    bool passed;
    size_t checked;
};

/* Reads dir/file of exactly `bytes` bytes (*new*). */
static int read_exact(const char *dir, const char *file, size_t bytes, char **out, char **cause)
{
    char *path = path_join(dir, file);
    size_t len = 0;
    int rc = path ? read_file(path, bytes + 1, out, &len, cause)
                  : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (rc == BW_OK && len != bytes) {
        rc = bw_fail(cause, BW_ERR_INVALID, "%s has %zu bytes, not %zu", file, len, bytes);
        free(*out);
        *out = NULL;
    }
    free(path);
    return rc;
}

static int compare_one(struct checking *k, const struct problem_case *c, const char *dir, size_t t,
                       char **cause)
{
    const struct tensor_spec *ts = &k->p->tensors[t];
    int64_t dims[BW_MAX_DIMS], count = 0;
    struct compare_spec spec;
    struct compare_report rep;
    char file[BW_MAX_NAME + 32], *got = NULL, *ref = NULL, *scale = NULL;
    int rc;

    rc = problem_tensor_count(k->p, t, c, &count, cause);
    if (rc == BW_OK)
        rc = tests_compare_spec(k->p, t, c, dims, &spec, cause);
    snprintf(file, sizeof(file), "baseline-%s.bin", ts->name);
    if (rc == BW_OK)
        rc = read_exact(dir, file, (size_t)count * dtype_size(ts->dtype), &got, cause);
    snprintf(file, sizeof(file), "%s.bin", ts->name);
    if (rc == BW_OK)
        rc = read_exact(dir, file, (size_t)count * 8, &ref, cause);
    snprintf(file, sizeof(file), "%s_scale.bin", ts->name);
    if (rc == BW_OK && spec.acc > 0)
        rc = read_exact(dir, file, (size_t)count * 8, &scale, cause);
    if (rc == BW_OK)
        rc = compare_output(&spec, got, ref, (const double *)scale, count, &rep, cause);
    if (rc == BW_OK && !compare_passed(&rep)) {
        k->passed = false;
        buf_addf(&k->report, "  %s: ", c->name);
        compare_report_format(&rep, ts->name, &k->report);
    }
    free(got);
    free(ref);
    free(scale);
    return rc;
}

static int on_case(json_t *msg, void *arg, char **cause)
{
    struct checking *k = arg;
    json_t *idx = json_object_get(msg, "case"), *nc = json_object_get(msg, "not_compared");
    char name[32], *dir;
    int rc = BW_OK;

    if (json_object_get(msg, "ready"))
        return BW_OK;
    if (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
        (size_t)json_integer_value(idx) >= k->n_cases)
        return bw_fail(cause, BW_ERR_PROTOCOL, "the baseline driver sent an unknown message");
    int i = k->case_index[json_integer_value(idx)];
    const struct problem_case *c = &k->p->tests[i];
    const char *err = json_string_value(json_object_get(msg, "error"));
    if (err) {
        k->passed = false;
        buf_addf(&k->report, "  %s: baseline.py failed: %s\n", c->name, err);
        return BW_OK;
    }
    snprintf(name, sizeof(name), "case-%03d", i);
    dir = path_join(k->cases_dir, name);
    if (!dir)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t t = 0; rc == BW_OK && t < k->p->n_tensors; t++) {
        if (k->p->tensors[t].role == ROLE_IN)
            continue;
        if (json_object_get(nc, k->p->tensors[t].name))
            continue;
        rc = compare_one(k, c, dir, t, cause);
    }
    k->checked++;
    free(dir);
    return rc;
}

int baseline_check(const struct baseline_job *job, const char *cases_dir, bool *passed,
                   char **report, char **cause)
{
    const struct problem *p = job->p;
    struct checking k = {.p = p, .cases_dir = cases_dir, .passed = true};
    json_t *rq = NULL, *cases = json_array();
    size_t dumped = 0;
    int rc;

    *passed = false;
    *report = NULL;
    buf_init(&k.report, 1 << 20);
    if (!has_baseline(p))
        return bw_fail(cause, BW_ERR_NOTFOUND, "problem %s has no baseline.py", p->id);
    for (size_t t = 0; t < p->n_tensors; t++)
        if (p->tensors[t].role == ROLE_INOUT) {
            /* judged dump keeps an inout tensor's reference result, not its generated input. */
            buf_addf(&k.report,
                     "  not checked: %s is updated in place (inout), and the dumped "
                     "cases hold only the reference's result of it\n",
                     p->tensors[t].name);
            *passed = true;
            *report = buf_detach(&k.report);
            json_decref(cases);
            return BW_OK;
        }
    rc = judge_dump(job->jc, p, 0, cases_dir, BW_BASELINE_CHECK_CASE_BYTES, &dumped, cause);
    k.case_index = calloc(p->n_tests + 1, sizeof(int));
    if (rc == BW_OK && !k.case_index)
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == BW_OK && i < p->n_tests; i++) {
        char name[32], *dir, *meta;
        struct stat st;
        snprintf(name, sizeof(name), "case-%03zu", i);
        dir = path_join(cases_dir, name);
        meta = dir ? path_join(dir, "case.json") : NULL;
        if (meta && stat(meta, &st) == 0) {
            json_t *o = baseline_case_json(p, &p->tests[i], cause), *tl, *tj;
            size_t n;
            if (!o) {
                rc = BW_ERR_INVALID;
            } else {
                tl = json_object_get(o, "tensors");
                json_array_foreach (tl, n, tj)
                    if (strcmp(json_string_value(json_object_get(tj, "role")), "out") != 0) {
                        char file[BW_MAX_NAME + 8];
                        snprintf(file, sizeof(file), "%s.bin",
                                 json_string_value(json_object_get(tj, "name")));
                        json_object_set_new(tj, "file", json_string(file));
                    }
                json_object_set_new(o, "dir", json_string(dir));
                json_array_append_new(cases, o);
                k.case_index[k.n_cases++] = (int)i;
            }
        }
        free(meta);
        free(dir);
    }
    if (rc == BW_OK && k.n_cases == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no test case of %s is small enough to check", p->id);
    if (rc == BW_OK) {
        rq = baseline_request_json(p, job->jc, "check", cause);
        rc = rq ? BW_OK : BW_ERR_INVALID;
    }
    if (rc == BW_OK) {
        json_object_set(rq, "cases", cases);
        rc = converse(job->python, job->jc, job->stop, rq, BW_BASELINE_WALL_MS, on_case, &k, cause);
    }
    if (rc == BW_OK && k.checked < k.n_cases) {
        k.passed = false;
        buf_addf(&k.report, "  %zu of %zu cases were not checked\n", k.n_cases - k.checked,
                 k.n_cases);
    }
    if (rc == BW_OK) {
        buf_addf(&k.report, "  %zu test cases compared with the reference\n", k.n_cases);
        *passed = k.passed;
        *report = buf_detach(&k.report);
    }
    json_decref(rq);
    json_decref(cases);
    free(k.case_index);
    buf_release(&k.report);
    return rc;
}

/* ---- the worker's service ---------------------------------------------------------------- */

enum entry_state { ENTRY_FREE, ENTRY_QUEUED, ENTRY_MEASURING, ENTRY_DONE, ENTRY_FAILED };

struct entry {
    enum entry_state state;
    char bundle[65];
    char id[BW_MAX_NAME + 1];
    struct problem *p; /* owned: the problem, loaded again from its directory for the thread */
    struct baseline_figures f;
    char *why; /* owned: why it failed */
    int64_t failed_at;
    uint64_t used;   /* s->tick when last wanted: the least recently used is evicted */
    uint64_t queued; /* s->tick when queued: measured in this order */
    bool for_submit; /* a Submit wanted it: measured before those only Runs wanted */
};

struct baseline_service {
    struct baseline_service_config c;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* CLOCK_MONOTONIC: a Submit's timed wait */
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    struct entry entries[BW_BASELINE_ENTRIES];
    uint64_t tick;
};

static struct entry *find(struct baseline_service *s, const char *bundle)
{
    for (size_t i = 0; i < BW_BASELINE_ENTRIES; i++)
        if (s->entries[i].state != ENTRY_FREE && strcmp(s->entries[i].bundle, bundle) == 0)
            return &s->entries[i];
    return NULL;
}

/* The queued entry the thread measures next, NULL if none: the first queued of those a Submit
 * wanted (its result shows the figures; a Run's does not), else the first queued. Locked. */
static struct entry *next_queued(struct baseline_service *s)
{
    struct entry *next = NULL;
    for (size_t i = 0; i < BW_BASELINE_ENTRIES; i++) {
        struct entry *e = &s->entries[i];
        if (e->state == ENTRY_QUEUED &&
            (!next || e->for_submit > next->for_submit ||
             (e->for_submit == next->for_submit && e->queued < next->queued)))
            next = e;
    }
    return next;
}

/* Whether another problem's measurement runs now. Locked. */
static bool measuring_other(struct baseline_service *s, const struct entry *e)
{
    for (size_t i = 0; i < BW_BASELINE_ENTRIES; i++)
        if (&s->entries[i] != e && s->entries[i].state == ENTRY_MEASURING)
            return true;
    return false;
}

/* Whether e's figures may come within a Submit's wait: it is being measured, or it is next and
 * nothing else is. A measurement takes seconds (PyTorch's import, then every shape), so one
 * queued behind another's does not finish within the wait: the Submit does not wait for it.
 * Locked. */
static bool may_come_soon(struct baseline_service *s, struct entry *e)
{
    if (e->state == ENTRY_MEASURING)
        return true;
    return e->state == ENTRY_QUEUED && next_queued(s) == e && !measuring_other(s, e);
}

static void entry_clear(struct entry *e)
{
    problem_free(e->p);
    baseline_figures_release(&e->f);
    free(e->why);
    memset(e, 0, sizeof(*e));
}

/* A free entry, or the least recently used one that is not queued or measuring. */
static struct entry *claim(struct baseline_service *s)
{
    struct entry *victim = NULL;
    for (size_t i = 0; i < BW_BASELINE_ENTRIES; i++) {
        struct entry *e = &s->entries[i];
        if (e->state == ENTRY_FREE)
            return e;
        if ((e->state == ENTRY_DONE || e->state == ENTRY_FAILED) &&
            (!victim || e->used < victim->used))
            victim = e;
    }
    if (victim)
        entry_clear(victim);
    return victim;
}

static void *service_thread(void *arg)
{
    struct baseline_service *s = arg;

    pthread_mutex_lock(&s->lock);
    while (!atomic_load(&s->stop)) {
        struct entry *e = next_queued(s);
        if (!e) {
            pthread_cond_wait(&s->changed, &s->lock);
            continue;
        }
        e->state = ENTRY_MEASURING;
        struct problem *p = e->p;
        char bundle[65];
        snprintf(bundle, sizeof(bundle), "%s", e->bundle);
        pthread_mutex_unlock(&s->lock);

        struct baseline_job job = {
            .p = p, .bundle = bundle, .jc = s->c.jc, .python = s->c.python, .stop = &s->stop};
        struct baseline_figures f;
        char *cause = NULL;
        double t0 = now_ms();
        int rc = baseline_measure(&job, &f, &cause);
        if (rc == BW_OK) {
            char *why = NULL;
            log_info("baseline: %s (bundle %.12s): PyTorch %s measured on %s in %.1f s", p->id,
                     bundle, f.torch, s->c.jc->gpu.name, (now_ms() - t0) / 1000);
            if (baseline_cache_store(s->c.jc->cache_dir, &f, &why))
                log_warn("baseline: %s: cannot cache PyTorch's figures: %s", p->id, why);
            free(why);
        } else if (rc != BW_ERR_CANCELLED) {
            log_warn("baseline: %s (bundle %.12s): PyTorch's time not measured: %s", p->id, bundle,
                     cause ? cause : bw_strerror(rc));
        }

        pthread_mutex_lock(&s->lock);
        if (rc == BW_OK) {
            e->f = f;
            e->state = ENTRY_DONE;
        } else {
            baseline_figures_release(&f);
            e->why = cause;
            cause = NULL;
            e->failed_at = (int64_t)time(NULL);
            e->state = ENTRY_FAILED;
        }
        problem_free(e->p);
        e->p = NULL;
        free(cause);
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int baseline_service_new(const struct baseline_service_config *c, struct baseline_service **out,
                         char **cause)
{
    struct baseline_service *s = calloc(1, sizeof(*s));

    if (!s)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    s->c = *c;
    atomic_init(&s->stop, false);
    pthread_mutex_init(&s->lock, NULL);
    monotonic_cond_init(&s->changed); /* a Submit's wait for the figures */
    if (c->found.available && c->jc && c->jc->have_gpu) {
        if (pthread_create(&s->thread, NULL, service_thread, s) != 0) {
            pthread_mutex_destroy(&s->lock);
            pthread_cond_destroy(&s->changed);
            free(s);
            return bw_fail(cause, BW_ERR_SYSTEM, "cannot start the baseline thread");
        }
        s->thread_started = true;
    }
    *out = s;
    return BW_OK;
}

void baseline_service_free(struct baseline_service *s)
{
    if (!s)
        return;
    atomic_store(&s->stop, true);
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    for (size_t i = 0; i < BW_BASELINE_ENTRIES; i++)
        entry_clear(&s->entries[i]);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
}

void baseline_service_want(struct baseline_service *s, const char *bundle, const struct problem *p,
                           bool for_submit)
{
    struct entry *e;
    char *cause = NULL;

    if (!s || !s->thread_started || !bundle || !has_baseline(p))
        return;
    pthread_mutex_lock(&s->lock);
    e = find(s, bundle);
    if (e && e->state == ENTRY_FAILED &&
        (int64_t)time(NULL) - e->failed_at >= BW_BASELINE_RETRY_S) {
        entry_clear(e); /* tried again */
        e = NULL;
    }
    if (e) {
        e->used = ++s->tick;
        if (e->state == ENTRY_QUEUED && for_submit)
            e->for_submit = true;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    e = claim(s);
    if (!e) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    snprintf(e->bundle, sizeof(e->bundle), "%s", bundle);
    snprintf(e->id, sizeof(e->id), "%s", p->id);
    e->used = e->queued = ++s->tick;
    e->for_submit = for_submit;
    if (baseline_cache_load(s->c.jc->cache_dir, bundle, s->c.jc->gpu.uuid, s->c.found.torch,
                            &e->f)) {
        e->state = ENTRY_DONE;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    /* The thread needs the problem after this call: its own copy, from the same directory. */
    e->p = problem_load(p->dir, &cause);
    if (!e->p) {
        e->why = cause;
        cause = NULL;
        e->failed_at = (int64_t)time(NULL);
        e->state = ENTRY_FAILED;
    } else {
        e->state = ENTRY_QUEUED;
        log_info("baseline: %s (bundle %.12s): PyTorch's time is measured in the background", p->id,
                 bundle);
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    free(cause);
}

/* r->pytorch.reason = prefix + detail. */
static void set_reason(struct judge_result *r, const char *prefix, const char *detail)
{
    free(r->pytorch.reason);
    if (asprintf(&r->pytorch.reason, "%s%s", prefix, detail) < 0)
        r->pytorch.reason = NULL;
}

void baseline_service_attach(struct baseline_service *s, const char *bundle, struct judge_result *r,
                             int wait_ms)
{
    struct entry *e;
    struct timespec until;

    if (r->n_benches == 0)
        return;
    r->pytorch.attached = true;
    if (!s) {
        set_reason(r, "", "this worker has no GPU to measure PyTorch on");
        return;
    }
    if (!s->thread_started) {
        set_reason(r, "", s->c.found.reason[0] ? s->c.found.reason : "PyTorch is not usable here");
        return;
    }
    until = monotonic_timespec(now_ms() + wait_ms);
    pthread_mutex_lock(&s->lock);
    while ((e = find(s, bundle)) && may_come_soon(s, e) &&
           pthread_cond_timedwait(&s->changed, &s->lock, &until) == 0)
        ;
    e = find(s, bundle);
    if (!e)
        set_reason(r, "", "this problem has no baseline.py, or its measurement was not started");
    else if (e->state == ENTRY_DONE)
        baseline_attach_figures(&e->f, r);
    else if (e->state == ENTRY_FAILED)
        set_reason(r, "PyTorch's time could not be measured on this worker: ",
                   e->why ? e->why : "unknown");
    else if (e->state == ENTRY_QUEUED && !may_come_soon(s, e))
        set_reason(r, "",
                   "PyTorch's time on this GPU is queued behind another problem's measurement: "
                   "later Submits show it");
    else
        set_reason(r, "",
                   "PyTorch's time on this GPU is still being measured: later Submits show it");
    pthread_mutex_unlock(&s->lock);
}
