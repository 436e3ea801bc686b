/*
 * judge.h - judging one submission against one problem: the pipeline's entry point.
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
 *      and never changing it or the score;
 *   6. a Profile (judge_options.profile: the tests as a Run) whose tests ran
 *      to their end: the plan on the largest benchmark shape under CUPTI's
 *      profiler (profile.h), beside the verdict, never changing it.
 * judged never runs CUDA itself: steps 3-4 happen in runner processes
 * (runner_client.h). Without a GPU the pipeline stops after step 2 and says
 * so (executed = false).
 *
 * A Triton submission's steps 2 and 3 overlap: its builds come one by one
 * (triton_program.h, "Builds as they come"), in the order the test cases
 * need them, and the tests start once the first case's builds exist; each
 * case waits for its own builds only, never runs one that is not final, and
 * the cases still run in order. A failing test is the verdict at once (the
 * compiler is stopped); otherwise the whole compile is waited for and
 * reviewed as in step 2, so a build that did not build is a Compile Error.
 * The one verdict this can change: a test that fails before any case needs
 * a build that would not have built is now the verdict, where the Compile
 * Error used to come first.
 *   {"event": "compiled", "ok": true, "ms": 120.3, "streaming": true}  (then, maybe,
 *   {"event": "compiled", "ok": false, ...} when a later build did not build)
 *
 * judge.c is the pipeline; each step is a module of its own: program.h
 * (directives, builds, signatures), reference.h (the trusted side), tests.h,
 * bench.h, goal_measure.h, with failure.h turning runner failures into
 * verdicts and session.h the state they share. The result's JSON is
 * report.h's; the GPU's figures gpu_info.h's. What a judging is given and
 * yields is judging.h's, the judge's settings judge_config.h's.
 *
 * Progress is reported as it happens through an optional callback with small
 * JSON events (the worker streams them to the server, the CLI prints them):
 *   {"event": "compiling"}
 *   {"event": "compiled", "ok": true, "ms": 84.1}
 *   {"event": "test", "index": 3, "of": 27, "name": "N=127", "verdict": "AC", "ms": 0.02}
 *   {"event": "bench", "index": 0, "of": 2, "name": "2^28", "median_ms": 0.71, "sol_pct": 93.2}
 *   {"event": "goal", "index": 0, "of": 3, "name": "vector-access", "status": "passed"}
 *   {"event": "profiling", "case": "N=2^28", "message": "profiling the plan on N=2^28 ..."}
 *   {"event": "profile", "available": true, "case": "N=2^28", "ms": 812.4}
 *   {"event": "done", "verdict": "AC"}
 */
#ifndef BW_JUDGE_H
#define BW_JUDGE_H

#include <stddef.h>

#include "judge_config.h"
#include "judging.h"
#include "problem/problem.h"

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

#endif
