/*
 * bench.h - the timing step of a Submit: every benchmark shape timed in the
 * submission runner, every timed output checked, and the times turned into
 * scores against the GPU's measured limits (README's "How a submission is
 * judged", step 4; docs/problem-catalogue.md §1.1).
 *
 * One shape, in phases (bench.c, one function each):
 *   1. plans: the submission's and the reference's for the shape;
 *   2. checks: which elements of each output are checked after every timed
 *      run (BW_CHECK_SAMPLES per output: the first, the last and secret
 *      random others, per input set; checks.h, which the tests' sampled
 *      cases share);
 *   3. reference: the fp64 reference's values at exactly those elements,
 *      per input set, from the reference runner (RUN_RETURN_GATHER);
 *   4. timing: the runner's adaptive sampling (rotated input sets, outputs
 *      re-poisoned, L2 flushed, events around the plan), gathering the
 *      checked elements of every sample;
 *   5. verification: every sample's outputs free of poison and its checked
 *      elements within tolerance (a wrong timed run is Wrong Answer);
 *   6. scores: statistics, GB/s, TFLOP/s, speed of light, and the physical
 *      floor (a time no GPU could reach is Wrong Answer).
 * Each @tune configuration is timed on each shape and the fastest kept per
 * shape (s->best_cfg, s->cfg_ms for the autotune goal); with 3 or more, each
 * shape screens them first and times in full only those that may be the
 * fastest (bench_configs). Phases 2 and 3 are
 * done once per shape and kept for the judging (s->bench_cache): every
 * configuration, and every rebuild a learning goal times, is checked at the
 * same secret elements against the same reference values, so the fp64
 * reference of a shape (seconds, for attention) runs once, not once per
 * configuration.
 */
#ifndef BW_BENCH_H
#define BW_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge_config.h"
#include "judging.h"
#include "program.h"
#include "common/verdict.h"

struct session;

/*
 * Times configuration `config` of `pg` (the submission, or a rebuild of it)
 * on benchmark b in s->sub_runner, which must hold that configuration's
 * cubin, into *bo (its name is left to the caller). A timed run that failed
 * its checks sets *verdict and a *new* one-line *why; a judge failure returns
 * a negative code with the cause. After a time limit or a CUDA error the
 * submission runner is gone (session_drop_sub_runner).
 */
int bench_shape(struct session *s, const struct program *pg, size_t b, size_t config,
                struct bench_outcome *bo, enum verdict *verdict, char **why, char **cause);

/*
 * Times every configuration of s->sub on every benchmark into s->res->benches
 * (the fastest configuration per shape), with a "bench" event per shape. A
 * failed timed run sets s->res->verdict and its message and stops.
 */
int bench_run(struct session *s, char **cause);

/*
 * Phases 2 and 3 of every shape, ahead of the timing: a thread takes a
 * second reference runner from the pool (only one idle now: waiting for a
 * start would cost a cheap shape more than it saves), loads reference.cu (s->ref, built)
 * and computes each shape's checked elements and their reference values into
 * s->bench_cache, holding the GPU gate shared, while the submission compiles
 * and runs its tests; bench_shape then finds them. For flash-attention's
 * shapes this is ~0.7 s of a Submit's ~3 s, now off its critical path. Only
 * for a Submit with benchmarks, and only with a runner pool (judged's, every
 * command's); otherwise bench_shape computes them in line, as it does a shape
 * the thread did not finish. It reads the problem, s->ref, the seed and the
 * pick stream, none of which the other steps touch until the timing.
 */
void bench_ahead_start(struct session *s);

/*
 * Waits for the thread of bench_ahead_start, if any: at once between input
 * sets unless `needed` (the timing will not run), and returns the
 * milliseconds waited. Call before s->ref is released.
 */
double bench_ahead_finish(struct session *s, bool needed);

/* The Philox case index of benchmark b's first input set (a Profile generates the same
 * inputs as a Submit's first timed set). */
uint32_t bench_case_index(size_t b);

/* Frees what the judging's timing kept (each shape's checks in s->bench_cache, the
 * configurations' runners in s->kept), after bench_ahead_finish(s, false). */
void bench_release(struct session *s);

#endif
