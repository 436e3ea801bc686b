/*
 * session.h - the state of one judging (one source against one problem),
 * shared by the steps of the pipeline. Internal to judge/: only the step
 * modules include it (judge.c, reference.c, tests.c, checks.c, bench.c,
 * goal_measure.c, dump.c); everything outside sees judge.h.
 *
 * Ownership: a session borrows the config, the problem, the options, the
 * result it fills and the source; it owns both programs, both runners and
 * the per-configuration times, which judge.c frees when the judging ends.
 * Runners: ref_runner runs only trusted code (reference.cu and the harness);
 * sub_runner runs the learner's cubin, is replaced after anything that may
 * have left its context unusable (a CUDA error, a time limit) and before
 * each @tune configuration, and is never given a reference's outputs. The
 * timing keeps each configuration's runner across shapes (kept[]): a runner
 * still holds one configuration of one submission, and is idle (its buffers
 * freed) while another is timed.
 */
#ifndef BW_SESSION_H
#define BW_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judge_config.h"
#include "judging.h"
#include "program.h"
#include "reference.h"
#include "runner_client.h"
#include "common/limits.h"
#include "problem/problem.h"

struct bench_ahead;
struct bench_cache;
struct reference_kept;

struct session {
    const struct judge_config *cfg;
    const struct problem *p;
    const struct judge_options *opts; /* may be NULL: defaults */
    struct judge_result *res;
    const char *job;    /* borrowed: what log lines about this judging name (never NULL) */
    const char *source; /* borrowed: the submission, for the goals that rebuild it */
    size_t len;
    enum language lang; /* the submission's */
    struct program sub, ref;
    struct runner *ref_runner, *sub_runner;
    uint64_t seed;
    uint64_t pick_state; /* the timing's stream for choosing checked elements (checks_pick) */
    double *cfg_ms; /* owned: median of configuration c on benchmark b at [c * n_benchmarks + b] */
    struct bench_cache *bench_cache;    /* owned by bench.c (bench_release): each shape's checks */
    struct bench_ahead *bench_ahead;    /* owned by bench.c: those checks computed ahead, or NULL */
    size_t best_cfg[BW_MAX_BENCHMARKS]; /* the configuration kept for each benchmark */
    bool timed_once; /* a shape was timed: later ones warm up for less (bench.c) */
    /* The timing's submission runners of the first BW_BENCH_KEPT_RUNNERS configurations
     * while another is timed (bench.c): with their variants loaded, or NULL. */
    struct kept_runner {
        struct runner *runner;
        uint64_t loaded;
    } kept[BW_BENCH_KEPT_RUNNERS];
    /* The tests' expected outputs, computed ahead (reference.h). judge.c starts
     * the pipe as soon as the reference is loaded, while the submission is still
     * compiling; tests_run takes a running pipe (configuration 0) or starts one,
     * and finishes it. judge.c finishes one still running when the judging ends
     * early (a Compile Error), before the reference runner goes back. */
    struct reference_pipe ref_pipe;
    bool ref_pipe_running;
    struct reference_kept *ref_kept; /* owned by reference.c: the first configuration's, or NULL */
    /* A Triton submission tested while its compile still runs (triton_program.h, "Builds
     * as they come"): which variants of the configuration under test sub_runner holds
     * (bit i: variant i; all bits when loaded whole), and whether a case met a build
     * that did not build (the tests stop; the compile's end decides: judge.c). */
    uint64_t sub_loaded;
    bool builds_failed;
};

/* Sends a progress event (stolen; NULL is ignored) to the options' callback. */
void session_emit(const struct session *s, json_t *event);

/* Where and how this judging compiles (the GPU's arch, or the configured one). */
struct program_target session_target(const struct session *s);

/* A fresh submission runner on the session's GPU (*new*): the pool's spare,
 * or started now without a pool; BW_ERR_NODEVICE etc. with the reason. */
int session_start_runner(const struct session *s, struct runner **out, char **cause);

/* The reference runner (s->ref_runner): lent by the pool, or started now. */
int session_take_reference(struct session *s, char **cause);

/* Ends the session's use of its reference runner: back to the pool, or freed. */
void session_return_reference(struct session *s);

/* The pool's GPU gate around GPU work (no-op without a pool): shared while
 * testing, exclusive while timing (runner_pool.h). */
void session_gate_enter(const struct session *s, bool exclusive);
void session_gate_leave(const struct session *s, bool exclusive);

/* Loads configuration `config` of `pg` into the submission runner: all of it, or (the
 * submission's Triton compile still running) the builds final now; sets sub_loaded. BW_OK
 * with *fail telling whether the modules loaded. */
int session_load_sub(struct session *s, const struct program *pg, size_t config,
                     struct run_failure *fail, char **cause);

/* Replaces the submission runner with a fresh one holding configuration
 * `config` of `pg` (session_load_sub): BW_OK with *fail telling whether the cubin loaded. */
int session_fresh_sub_runner(struct session *s, const struct program *pg, size_t config,
                             struct run_failure *fail, char **cause);

/* Kills the submission runner (its context may be unusable); the next use starts a fresh one. */
void session_drop_sub_runner(struct session *s);

/* True once the judging was cancelled (judge_options.cancel): the steps stop
 * between cases, shapes and goals and return BW_ERR_CANCELLED (a Judge Error "cancelled", which
 * nobody reads). */
bool session_cancelled(const struct session *s);

/* A fresh secret input seed (never 0). */
uint64_t session_fresh_seed(void);

/* Replaces *msg with a *new* formatted line (NULL when out of memory). */
void session_set_line(char **msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
