/*
 * failure.h - what a runner's failure means to the learner: the verdict, one
 * line saying what happened, and a JSON detail with the most likely cause.
 *
 * The runner reports what it saw (runner_proto.h: a CUDA error and its name,
 * a guard band written, an input hash changed, a parameter-size mismatch, or
 * its own failure); this module alone turns that into Runtime Error, Memory
 * Violation, Input Modified, Compile Error or Judge Error with words for
 * people. Pure: no GPU, no I/O.
 *
 * Details (the "detail" of a test in judge_result_json, docs/runner-protocol.md):
 *   {"kind": "cuda_error"|"launch_error", "error", "message", "launch", "kernel"?, "hint"?}
 *   {"kind": "guard", "buffer", "where": "before"|"after", "offset", "hint"}
 *   {"kind": "input_modified", "buffer", "hint"}
 *   {"kind": "arg_mismatch", "message"}
 *   {"kind": "timeout", "limit_ms", "deadline_ms" | "plan_ms", "hint"}
 */
#ifndef BW_FAILURE_H
#define BW_FAILURE_H

#include <jansson.h>

#include "common/verdict.h"
#include "plan/plan.h"
#include "wire/runner_proto.h"

/*
 * The verdict of failure `f` of a run of plan `pl` (buffer and launch indices
 * in f refer to pl; out of range names "?"). Sets *message to a *new* line and
 * *detail to a *new* object (either may stay NULL when out of memory); both
 * must be NULL on entry. RUN_OK gives VERDICT_ACCEPTED and sets nothing.
 */
enum verdict failure_verdict(const struct plan *pl, const struct run_failure *f, char **message,
                             json_t **detail);

/* A plan that did not finish within limit_ms: its runner was killed at
 * deadline_ms, limit_ms plus the harness's allowance for the case
 * (tests_run_deadline_ms). VERDICT_TIME_LIMIT, with the same conventions as
 * failure_verdict. */
enum verdict failure_timeout(int limit_ms, int deadline_ms, char **message, json_t **detail);

/* A plan that finished, but took plan_ms (the runner's launch phase) of its
 * limit_ms: VERDICT_TIME_LIMIT, with the same conventions. */
enum verdict failure_overrun(int limit_ms, double plan_ms, char **message, json_t **detail);

/* What a CUDA error most likely means, for learners (a static string), or
 * NULL for an error with no hint. */
const char *failure_cuda_hint(const char *error);

#endif
