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
 *      limits;
 *   5. unless tests_only, and only when the verdict is Accepted: the
 *      problem's learning goals (goals.h), each reported beside the verdict
 *      and never changing it or the score.
 * judged never runs CUDA itself: steps 3-4 happen in runner processes
 * (runner_client.h). Without a GPU the pipeline stops after step 2 and says
 * so (executed = false).
 *
 * judge.c is the pipeline; each step is a module of its own: program.h
 * (directives, builds, signatures), reference.h (the trusted side), tests.h,
 * bench.h, goal_measure.h, with failure.h turning runner failures into
 * verdicts and session.h the state they share. The result's JSON is
 * report.h's; the GPU's figures gpu_info.h's.
 *
 * Progress is reported as it happens through an optional callback with small
 * JSON events (the worker streams them to the server, the CLI prints them):
 *   {"event": "compiling"}
 *   {"event": "compiled", "ok": true, "ms": 84.1}
 *   {"event": "test", "index": 3, "of": 27, "name": "N=127", "verdict": "AC", "ms": 0.02}
 *   {"event": "bench", "index": 0, "of": 2, "name": "2^28", "median_ms": 0.71, "sol_pct": 93.2}
 *   {"event": "goal", "index": 0, "of": 3, "name": "vector-access", "status": "passed"}
 *   {"event": "done", "verdict": "AC"}
 */
#ifndef BW_JUDGE_H
#define BW_JUDGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "goals.h"
#include "gpu_info.h"
#include "common/language.h"
#include "common/verdict.h"
#include "plan/directive.h"
#include "problem/problem.h"

struct runner_pool;
struct build_cache;

/* A language this judge compiles besides CUDA, as the worker registers it. */
struct judge_language {
    bool available;   /* e.g. Triton: triton_probe() found it */
    char version[32]; /* "3.6.0" */
    char reason[256]; /* why not, when !available ("no module named triton") */
};

/* Fills cfg->languages: CUDA is always there (NVRTC); Triton when
 * triton_probe() finds it (python NULL: $BLOCKWISE_PYTHON or python3). */
void judge_probe_languages(struct judge_config *cfg, const char *python);

/* Long-lived settings of a judge (a CLI run or a worker). Read-only while judging. */
struct judge_config {
    int device; /* CUDA device ordinal */
    const char
        *arch;       /* NVRTC target; NULL: from the GPU (sm_90a on Hopper), "sm_90a" without one */
    bool no_sandbox; /* diagnostics only: run children without namespaces/seccomp */
    const char *cache_dir;    /* where compiled references and calibration are cached; NULL: none */
    struct runner_pool *pool; /* borrowed: where runners come from, and whose GPU gate keeps
                                 timing alone (runner_pool.h); NULL: each judging starts its own */
    struct build_cache *builds; /* borrowed: compiled builds kept across judgings; NULL: none */
    struct gpu_info gpu;        /* filled by judge_probe_gpu() */
    bool have_gpu;              /* judge_probe_gpu() found a usable GPU */
    char *no_gpu_reason;        /* owned: why there is no GPU, when !have_gpu */
    struct judge_language languages[LANG_COUNT]; /* what it compiles beyond CUDA (always there:
                                                    NVRTC); worker.c registers them */
};

typedef void (*judge_event_fn)(json_t *event /* borrowed */, void *arg);

struct judge_options {
    enum language language;    /* the submission's (zeroed: LANG_CUDA); LANG_TRITON needs
                                  cfg->languages[LANG_TRITON].available */
    bool tests_only;           /* Run: tests only; Submit: tests, then timing */
    uint64_t seed;             /* secret input seed; 0: a fresh random one */
    const char *job;           /* what log lines about this judging name ("submission 42", a
                                  file); NULL: the problem's id */
    const atomic_bool *cancel; /* optional: once true, the judging stops at the next test
                                  case, shape or goal with Judge Error "cancelled" (the worker
                                  sets it when the submission's lease is gone) */
    judge_event_fn on_event;   /* optional */
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
    double score; /* geometric mean of the shapes' speed-of-light %, 0 without timing */
    struct goal_outcome *goals; /* owned: the problem's learning goals, in its order; n_goals
                                   is 0 unless they ran (Submit, Accepted) */
    size_t n_goals;
    bool executed;       /* false: no GPU here, stopped after compiling */
    struct gpu_info gpu; /* the GPU that ran it (copied from the config) */
    double compile_ms, total_ms;
    double compiler_ms;        /* within compile_ms: the compiler itself (nvrtcCompileProgram, or
                                  Triton's compile), summed over the builds not found cached; the
                                  rest is the sandboxed process's start, lock-down and answer */
    double runners_ms;         /* waiting for the runners to start CUDA, after compiling */
    double tests_ms, bench_ms; /* wall time of the tests, of the timing */
    /* Where the tests' wall time went, summed over the cases: waiting for the
     * reference's expected outputs, the submission runner's round trip (inputs,
     * launch, outputs back), and the CPU comparison. */
    double tests_reference_wait_ms, tests_submission_ms, tests_compare_ms;
    /* within tests_submission_ms: the runner's own time on the plans (the
     * replies' ms) and the judge's making of buffers lent to it */
    double tests_submission_plan_ms, tests_submission_lend_ms;
    /* the judge's making of buffers lent to the reference runner, in its pipe's
     * thread (reference.c): within tests_reference_wait_ms where a case waited */
    double tests_reference_lend_ms;
    /* within tests_submission_ms: the runner's phases (runner_proto.h's
     * enum run_phase: setup, launch, checks, return, free), summed */
    double tests_submission_phase_ms[5];
    /* cases whose expected outputs were ready when the tests began: computed
     * while the submission compiled (at most REFERENCE_AHEAD) */
    size_t tests_reference_ready;
    /* Where the timed shapes' wall time went, summed over shapes, configurations
     * and the learning goals' rebuilds (so it may exceed bench_ms):
     * waiting for the GPU to be the shape's alone, the reference at the
     * checked elements, the submission runner's bench call (inputs, warm-up,
     * samples, gathering) and within it the timed samples themselves, and
     * the check of every sample's gathered elements. The reference's time
     * counts whether it was computed ahead (bench_ahead_start: while the
     * submission compiled and ran its tests) or in line; reference_wait is
     * what the timing waited for the part computed ahead. */
    double bench_gate_ms, bench_reference_ms, bench_runner_ms, bench_samples_ms, bench_verify_ms;
    double bench_reference_wait_ms;
    double goals_ms;          /* wall time of the learning goals */
    double build_wait_ms;     /* after the submission compiled, the reference's build still ran */
    double reference_load_ms; /* loading the reference's module into its runner */
    double finish_ms;         /* after the last step: giving the runners back, freeing */
    uint64_t seed;
    bool tests_only;     /* judged as a Run: timing and goals were not asked for */
    bool compile_cached; /* every build of the submission came from the build cache */
};

/* Frees what judge_probe_gpu() (gpu_info.h) put in cfg. */
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

#endif
