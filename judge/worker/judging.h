/*
 * judging.h - what one judging is asked (struct judge_options) and what it
 * yields (struct judge_result): the verdict, the diagnostics, each test's and
 * each benchmark shape's outcome, the goals, and where the time went. The
 * pipeline (judge.h) fills a result; report.h shows it, as JSON and as text.
 */
#ifndef BW_JUDGING_H
#define BW_JUDGING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "goals.h"
#include "gpu_info.h"
#include "common/diag.h"
#include "common/language.h"
#include "common/verdict.h"

typedef void (*judge_event_fn)(json_t *event /* borrowed */, void *arg);

struct judge_options {
    enum language language;    /* the submission's (zeroed: LANG_CUDA); LANG_TRITON needs
                                  cfg->languages[LANG_TRITON].available */
    bool tests_only;           /* Run: tests only; Submit: tests, then timing */
    bool profile;              /* Profile: the tests as a Run, then the plan under the profiler on
                                  one benchmark shape (profile.h); implies tests_only */
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
    char *stop;        /* owned: why sampling stopped: "rse", "max", "budget" */
    int screened;      /* configurations only screened on this shape: slower than the fastest
                          screening by more than BW_BENCH_SCREEN_MARGIN (bench.c) */
    double pytorch_ms; /* PyTorch's median on this shape, measured by the worker (baseline.h);
                          0: none (see judge_result.pytorch.reason) */
};

/* PyTorch's time on the same shapes (baseline.h): attached by the worker to a Submit's timed
 * result after the judging, never by the pipeline itself. */
struct pytorch_note {
    bool attached;       /* the result says something about PyTorch (its JSON has "pytorch") */
    bool measured;       /* every shape has pytorch_ms */
    char torch[40];      /* torch.__version__ of the measurement */
    int64_t measured_at; /* Unix seconds */
    char *reason;        /* owned: why PyTorch's time is missing (or a shape's is), or NULL */
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
    /* both runners' calls waiting for device memory the other slots held
     * (device_memory.h): within tests_submission_ms, and tests_reference_wait_ms
     * where a case waited for the reference */
    double tests_memory_wait_ms;
    /* within tests_submission_ms: the runner's phases (runner_proto.h's
     * enum run_phase: alloc, setup, launch, checks, return, free), summed */
    double tests_submission_phase_ms[6];
    /* cases whose expected outputs were ready when the tests began: computed
     * while the submission compiled (at most REFERENCE_AHEAD) */
    size_t tests_reference_ready;
    /* cases of a second or later configuration whose expected outputs were the
     * first configuration's, kept (reference_keep), not computed again */
    size_t tests_reference_reused;
    /* Where the timed shapes' wall time went, summed over shapes, configurations
     * and the learning goals' rebuilds (so it may exceed bench_ms):
     * waiting for the GPU to be the shape's alone, the reference at the
     * checked elements, the submission runner's bench call (inputs, warm-up,
     * samples, gathering) and within it the timed samples themselves, and
     * the check of every sample's gathered elements. The reference's time
     * counts whether it was computed ahead (bench_ahead_start: while the
     * submission compiled and ran its tests) or in line; reference_wait is
     * what the timing waited for the part computed ahead. bench_switch_ms:
     * between configurations, a fresh submission runner taken and the next
     * configuration loaded into it (once per shape and configuration). */
    double bench_gate_ms, bench_reference_ms, bench_runner_ms, bench_samples_ms, bench_verify_ms;
    double bench_reference_wait_ms, bench_switch_ms;
    /* Bench calls of the timing: screenings, full timings, and kept configurations whose
     * screening stood as their timing (bench.c, bench_configs). */
    int bench_screenings, bench_timings, bench_screenings_stood;
    double goals_ms;          /* wall time of the learning goals */
    double build_wait_ms;     /* after the submission compiled, the reference's build still ran */
    double reference_load_ms; /* loading the reference's module into its runner */
    double finish_ms;         /* after the last step: giving the runners back, freeing */
    uint64_t seed;
    bool tests_only;     /* judged as a Run: timing and goals were not asked for */
    bool profile_mode;   /* judged as a Profile (tests_only too) */
    json_t *profile;     /* new reference: a Profile's "profile" object (docs/profile.md), or
                            NULL when the judging was not a Profile */
    double profile_ms;   /* wall time of the profiling step */
    bool compile_cached; /* every build of the submission came from the build cache */
    /* A Triton compile (compile_ms is its whole wall time, or until it was stopped): */
    double compile_first_ms;     /* until the first test case's builds were final: the tests
                                    start then, while the rest compile (0: not streamed) */
    double compiler_wait_ms;     /* waiting for a warm compiler from the pool */
    double compiler_cpu_ms;      /* the compiler's CPU time, its warm-up included */
    size_t builds_cached;        /* builds (kernel variants) found in the build cache */
    size_t builds_compiled;      /* builds asked of the compiler */
    bool compile_streamed;       /* the tests ran while it compiled */
    bool compile_stopped;        /* stopped once the verdict was known (a failing test) */
    double tests_build_wait_ms;  /* within tests_ms: cases waiting for their builds */
    struct pytorch_note pytorch; /* PyTorch's time beside the benches (worker, baseline.h) */
};

/* Frees what a judging put in *r (zeroed after). */
void judge_result_release(struct judge_result *r);

#endif
