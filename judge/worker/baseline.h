/*
 * baseline.h - PyTorch's time on a problem's benchmark shapes: what a learner's kernel is
 * compared with beside speed of light ("x PyTorch", KernelBench's speedup over eager PyTorch).
 *
 * A problem may ship baseline.py (docs/problem-format.md §10): the PyTorch expression a learner
 * would otherwise write, trusted code of the problem like reference.cu. This module measures it
 * on the worker's own GPU, with the judge's own timing method and constants (bench.c,
 * common/limits.h: L2 flushed before every sample, two rotated input sets, CUDA events around
 * the call, warm-up, the median's-RSE stop rule), in a trusted Python process started here
 * (judge/worker/baseline_driver.py, embedded in judged, run as `python -I /dev/fd/5` with the
 * Python that has PyTorch: $BLOCKWISE_PYTHON, else python3). The learner's code is never
 * involved. The process is bounded: a wall-clock limit for the whole measurement and for the
 * silence between two messages, RLIMIT_CPU, RLIMIT_NOFILE, a GPU-memory cap PyTorch keeps
 * (BW_BASELINE_* in common/limits.h); it is killed, with its process group, past them.
 *
 * It never runs beside a Submit's timing: the driver asks judged for the runner pool's GPU gate
 * (runner_pool.h) before every GPU phase, shared while it makes a shape's inputs (as a test
 * runs), exclusive while it warms up and samples (as a Submit's shape), and judged takes it on
 * its behalf. A worker measures once per problem version and GPU: the key is the bundle's hash
 * and the GPU's UUID, and the figures are cached on disk (CACHE_DIR/baselines/HASH.UUID.json)
 * with the PyTorch version and the timing constants they were taken with; a change of any of
 * them measures again. The measurement starts in the background when a problem version is first
 * judged on the worker (a Run or a Submit), so no learner waits for it; a Submit finishing while
 * it runs waits at most BW_BASELINE_WAIT_MS, then says it is still being measured.
 *
 * Where PyTorch cannot be used (not installed, a CPU-only build, no GPU), the result says why:
 * "PyTorch is not installed on this worker (...)".
 */
#ifndef BW_BASELINE_H
#define BW_BASELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judging.h"
#include "problem/problem.h"

struct runner_pool;
struct judge_config;

/* The PyTorch a worker found (baseline_probe). */
struct baseline_python {
    bool available;      /* PyTorch imports and sees the GPU */
    char torch[40];      /* torch.__version__, "2.11.0+cu130" */
    char python_ver[16]; /* "3.12.3" */
    char reason[512];    /* why not, when !available */
};

/*
 * Runs the driver's probe (import torch, find the GPU by UUID, set the memory cap) with
 * `python` (NULL: $BLOCKWISE_PYTHON, else python3 on PATH) and fills *out. Never fails: a
 * machine without PyTorch is a normal state, said in out->reason.
 */
void baseline_probe(const char *python, const struct judge_config *jc, struct baseline_python *out);

/* ---- one measurement -------------------------------------------------------------------- */

/* One benchmark shape as PyTorch ran it. */
struct baseline_shape {
    char *name;  /* owned: the benchmark's case name */
    char *error; /* owned: why this shape has no time (baseline.py raised), or NULL */
    int samples;
    double median_ms, p10_ms, p90_ms, rse;
    char stop[8]; /* "rse", "max" or "budget" */
};

/* PyTorch's figures of one problem version on one GPU: what the cache file holds. */
struct baseline_figures {
    char bundle[65];   /* the problem version: its bundle hash */
    char gpu_uuid[64]; /* "GPU-..." */
    char gpu_name[128];
    char torch[40];
    char python_ver[16];
    int64_t measured_at;           /* Unix seconds */
    json_t *method;                /* new reference: the timing constants used ({"sets", ...}) */
    struct baseline_shape *shapes; /* owned; in the problem's benchmark order */
    size_t n_shapes;
};

void baseline_figures_release(struct baseline_figures *f);

/* The timing constants a measurement uses, as a *new* JSON object: the judge's own (bench.c's
 * BW_BENCH_SETS, BW_BENCH_MIN_SAMPLES, ..., BW_L2_FLUSH_BYTES). A cached figure taken with
 * other constants is measured again. */
json_t *baseline_method_json(void);

/* The figures as the cache file's JSON (*new*), and back (false with *why when malformed). */
json_t *baseline_figures_json(const struct baseline_figures *f);
bool baseline_figures_from_json(json_t *j, struct baseline_figures *f, char **why);

/* CACHE_DIR/baselines/HASH.UUID.json (*new*), or NULL when a part is not a plain name. */
char *baseline_cache_path(const char *cache_dir, const char *bundle, const char *gpu_uuid);

/*
 * Reads the cached figures of (bundle, GPU) into *f: true only when the file exists, parses,
 * names this bundle and GPU, and was taken with `torch` and the current timing constants
 * (baseline_method_json); otherwise false (measure again) with *f empty.
 */
bool baseline_cache_load(const char *cache_dir, const char *bundle, const char *gpu_uuid,
                         const char *torch, struct baseline_figures *f);

/* Writes the figures to the cache atomically (creating CACHE_DIR/baselines). */
int baseline_cache_store(const char *cache_dir, const struct baseline_figures *f, char **cause);

/* One case as the driver takes it (*new*): {"name", "sizes", "scalars" (typed: integer scalars
 * as integers), "tensors": [{"name", "dtype", "shape", "role", "gen" (inputs: the
 * distribution, problem_gen_spec's)}]}; NULL with *cause when a shape cannot be evaluated. */
json_t *baseline_case_json(const struct problem *p, const struct problem_case *c, char **cause);

/*
 * The driver's request of a measurement of problem `p` (every benchmark shape: sizes, typed
 * scalars, tensors with their concrete shapes, dtypes, roles and distributions), as a *new*
 * JSON object; NULL with *cause when a shape cannot be evaluated.
 */
json_t *baseline_request_json(const struct problem *p, const struct judge_config *jc,
                              const char *mode, char **cause);

/* What a measurement is given: the problem, where its GPU gate is, and who asks. */
struct baseline_job {
    const struct problem *p;       /* borrowed for the call */
    const char *bundle;            /* the problem version's hash */
    const struct judge_config *jc; /* GPU (UUID, ordinal), pool (the gate; NULL: none) */
    const char *python;            /* NULL: $BLOCKWISE_PYTHON, else python3 */
    const atomic_bool *stop;       /* optional: once true, the driver is told to stop at its next
                                      gate request */
};

/*
 * Measures every benchmark shape of job->p now (seconds to tens of seconds), filling *out.
 * Returns BW_OK when the driver ran to its end (a shape whose baseline.py raised has its
 * error); BW_ERR_NOTFOUND without baseline.py or Python; another negative code when the driver
 * could not start, failed a step (its error) or broke a limit, with the cause.
 */
int baseline_measure(const struct baseline_job *job, struct baseline_figures *out, char **cause);

/*
 * `judged validate`'s check: runs baseline.py once on each case judge_dump wrote under
 * `cases_dir` (case-NNN/ with inputs and the reference's outputs) and compares its outputs with
 * the reference under the problem's tolerances (compare.h), but the outputs its NOT_COMPARED
 * names. *report (new) gets one line per case; *passed whether every case matched.
 */
int baseline_check(const struct baseline_job *job, const char *cases_dir, bool *passed,
                   char **report, char **cause);

/* ---- the worker's service: measured in the background, cached, attached to Submits ------ */

struct baseline_service;

struct baseline_service_config {
    const struct judge_config *jc; /* borrowed for the service's life: GPU, pool, cache_dir */
    const char *python;            /* NULL: $BLOCKWISE_PYTHON, else python3 */
    struct baseline_python found;  /* baseline_probe's answer */
};

/* A service (*out, *new*): without PyTorch or a GPU it measures nothing and says why. */
int baseline_service_new(const struct baseline_service_config *c, struct baseline_service **out,
                         char **cause);

/* Stops the measurement in progress (at its next gate request) and frees. NULL: no-op. */
void baseline_service_free(struct baseline_service *s);

/*
 * A problem version is being judged: unless its figures are known (memory, then the disk
 * cache), queue its measurement in the service's thread. Cheap; never waits. `p` is borrowed
 * for the call (the request is built at once). Measurements go in the order they were queued,
 * those a Submit wanted (for_submit) first: a Submit's result shows the figures.
 */
void baseline_service_want(struct baseline_service *s, const char *bundle, const struct problem *p,
                           bool for_submit);

/*
 * Puts PyTorch's figures of (bundle, this GPU) into r (r->pytorch and each bench's
 * pytorch_ms), waiting up to wait_ms for a measurement in progress (or next, with none in
 * progress; not one queued behind another problem's); or the reason there are none into
 * r->pytorch.reason. Only for a result with timed shapes (a Submit). s NULL: no
 * service (a compile-only worker).
 */
void baseline_service_attach(struct baseline_service *s, const char *bundle, struct judge_result *r,
                             int wait_ms);

/* Fills r from figures f (names matched shape by shape). Exposed for `judged check` and tests. */
void baseline_attach_figures(const struct baseline_figures *f, struct judge_result *r);

/* The geometric mean over the shapes of PyTorch's time over the kernel's (r's benches), 0 when
 * a shape has no PyTorch time. */
double baseline_speedup(const struct judge_result *r);

/* How PyTorch's time is measured, in one sentence (the result's pytorch.method and the web
 * page's tooltip say it). */
extern const char baseline_method_text[];

#endif
