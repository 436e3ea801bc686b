/*
 * judge.h - judging one submission against one problem (DESIGN.md §4).
 *
 * The pipeline, in order; the first failing step decides the verdict:
 *   1. parse the directives and check their names against the problem
 *      (Compile Error with line and column);
 *   2. compile the submission and the reference with NVRTC in the compile
 *      sandbox (Compile Error with NVRTC's diagnostics);
 *   3. for each test case: the reference runner computes the expected outputs
 *      from inputs generated from the secret seed; a fresh submission runner
 *      runs the learner's plan on the same inputs with poisoned outputs and
 *      guard bands; trusted code here compares (Wrong Answer, Runtime Error,
 *      Time Limit, Memory Violation, Input Modified);
 *   4. unless tests_only: each benchmark shape is timed (rotated inputs, L2
 *      flushed, adaptive sample count) and every timed output is checked by
 *      poison scan and sampled elements; scores against the GPU's measured
 *      limits.
 * judged never runs CUDA itself: steps 3-4 happen in runner processes
 * (runner_client.h). Without a GPU the pipeline stops after step 2 and says
 * so (executed = false).
 *
 * Progress is reported as it happens through an optional callback with small
 * JSON events (the worker streams them to the server, the CLI prints them):
 *   {"event": "compiling"}
 *   {"event": "compiled", "ok": true, "ms": 84.1}
 *   {"event": "test", "index": 3, "of": 27, "name": "N=127", "verdict": "AC", "ms": 0.02}
 *   {"event": "bench", "index": 0, "of": 2, "name": "2^28", "median_ms": 0.71, "sol_pct": 93.2}
 *   {"event": "done", "verdict": "AC"}
 */
#ifndef BW_JUDGE_H
#define BW_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/directive.h"
#include "common/problem.h"
#include "common/verdict.h"

/* What the worker measured on its GPU (DESIGN.md §4.5); zeros when unknown. */
struct gpu_info {
    char name[128];
    char uuid[64];
    char cc[16]; /* compute capability, "9.0" */
    char driver[32];
    char arch[16]; /* NVRTC target used, "sm_90a" */
    int sm_count;
    uint64_t memory_bytes;
    uint64_t l2_bytes;
    int max_clock_mhz;
    double copy_gbps;   /* device-to-device copy, bytes read + written per second / 1e9 */
    double fp32_tflops; /* FFMA peak */
    double fp16_tflops; /* tensor-core fp16 peak (fp32 accumulate) */
    double bf16_tflops; /* tensor-core bf16 peak (fp32 accumulate) */
    bool calibrated;    /* the four figures above were measured */
};

/* Long-lived settings of a judge (a CLI run or a worker). Read-only while judging. */
struct judge_config {
    int device; /* CUDA device ordinal */
    const char
        *arch;       /* NVRTC target; NULL: from the GPU (sm_90a on Hopper), "sm_90a" without one */
    bool no_sandbox; /* diagnostics only: run children without namespaces/seccomp */
    const char *cache_dir; /* where compiled references and calibration are cached; NULL: none */
    struct gpu_info gpu;   /* filled by judge_probe_gpu() */
    bool have_gpu;         /* judge_probe_gpu() found a usable GPU */
    char *no_gpu_reason;   /* owned: why there is no GPU, when !have_gpu */
};

typedef void (*judge_event_fn)(json_t *event /* borrowed */, void *arg);

struct judge_options {
    bool tests_only;         /* Run: tests only; Submit: tests, then timing */
    uint64_t seed;           /* secret input seed; 0: a fresh random one */
    judge_event_fn on_event; /* optional */
    void *event_arg;
};

struct test_outcome {
    char *name;           /* owned: the case's name, e.g. "N=127" */
    enum verdict verdict; /* VERDICT_NONE when not run (an earlier test failed) */
    char *message;        /* owned: one line for people; NULL when accepted */
    json_t *detail;       /* new reference or NULL: mismatch report per output, CUDA error, ... */
    double ms;            /* untimed wall time of the plan, for information */
};

struct bench_outcome {
    char *name; /* owned */
    int samples;
    double median_ms, min_ms, max_ms, p10_ms, p90_ms, rse;
    double gbps, tflops, sol_pct;
    int clock_mhz;
    char *stop; /* owned: why sampling stopped: "rse", "max", "budget" */
};

struct judge_result {
    enum verdict verdict;
    char *message;          /* owned: the verdict explained in one line */
    struct diag_list diags; /* directive and compiler errors/warnings, by line and column */
    char *compile_log;      /* owned: NVRTC's log, capped */
    json_t *kernels;        /* new reference: per-kernel registers, smem, spills, or NULL */
    struct test_outcome *tests;
    size_t n_tests;
    struct bench_outcome *benches;
    size_t n_benches;
    double score;        /* geometric mean of the shapes' speed-of-light %, 0 without timing */
    bool executed;       /* false: no GPU here, stopped after compiling */
    struct gpu_info gpu; /* the GPU that ran it (copied from the config) */
    double compile_ms, total_ms;
    double runners_ms;         /* waiting for the runners to start CUDA, after compiling */
    double tests_ms, bench_ms; /* wall time of the tests, of the timing */
    uint64_t seed;
};

/* Finds the GPU (via a runner), its properties and, unless cached in
 * cfg->cache_dir and not `recalibrate`, measures its limits. Without a GPU,
 * returns BW_OK with have_gpu false and no_gpu_reason set: that is a normal
 * state of a compile-only machine. */
int judge_probe_gpu(struct judge_config *cfg, bool recalibrate, char **cause);
void judge_config_release(struct judge_config *cfg);

/*
 * Judges `source` (`len` bytes) for problem `p`. Returns BW_OK with *out
 * filled whenever a verdict was reached (including Compile Error and Judge
 * Error caused by a runner failing); a negative code only when the judge
 * could not work at all (out of memory, binaries missing). Release *out with
 * judge_result_release.
 */
int judge_submission(const struct judge_config *cfg, const struct problem *p, const char *source,
                     size_t len, const struct judge_options *opts, struct judge_result *out,
                     char **cause);
void judge_result_release(struct judge_result *r);

/*
 * Writes the test cases of `p` whose buffers total at most max_case_bytes to
 * out_dir/case-NNN/: the inputs as generated from `seed` (0: a fresh one),
 * in their dtypes, and the reference's outputs (fp64, or int64 for integer
 * outputs; "<out>_scale" too), each as raw little-endian NAME.bin, and
 * case.json describing them (name, sizes, scalars, tensors with dtype, shape,
 * role and file). The independent oracle (tests/oracle/) reads them.
 * *dumped counts the cases written. Needs a GPU (BW_ERR_NODEVICE without).
 */
int judge_dump(const struct judge_config *cfg, const struct problem *p, uint64_t seed,
               const char *out_dir, uint64_t max_case_bytes, size_t *dumped, char **cause);

/* The whole result as JSON (a new reference): what `judged check --json`
 * prints and the worker sends to the server. */
json_t *judge_result_json(const struct judge_result *r);

#endif
