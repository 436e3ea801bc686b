/*
 * tests.h - the correctness step of a judging: every test case of the
 * problem, run in the submission runner on the inputs the reference runner
 * generated too, and compared in trusted code with the expected outputs.
 *
 * For one @tune configuration, case by case in order, stopping at the first
 * failure (README's "How a submission is judged", step 3): the submission's
 * plan for the case (an impossible launch for these sizes is a Runtime
 * Error), a run whose plan is held to the problem's run_ms (Time Limit: the
 * runner is killed at run_ms plus the harness's allowance for the case's
 * bytes, tests_run_deadline_ms, and a plan the runner measured longer than
 * run_ms is one too), the runner's own findings (failure.h), then every
 * output against the reference (compare.h). A case whose outputs are over the
 * full-check limit (tests_case_sampled) is checked by sample instead
 * (checks.h): the runner scans every element of its outputs for the judge's
 * poison and returns only the checked elements, whose reference values the
 * reference pipe gathered (reference_sampled).
 * A case's comparison runs on a thread of its own while the submission runner
 * runs the next case; outcomes still land in case order, so a later case
 * never counts once an earlier one failed. Each case's outcome is in
 * s->res->tests[i] and sent as a "test" event.
 *
 * A Triton submission may be tested while it still compiles (judge.c): a
 * case waits for its own builds (never a build that is not final), loads
 * those final since the runner's last load, and when one of them did not
 * build the tests stop there, with s->builds_failed set and no case failed,
 * for the compile's end to decide (a Compile Error, as when the tests wait
 * for every build).
 */
#ifndef BW_TESTS_H
#define BW_TESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "problem/problem.h"
#include "wire/runner_proto.h"

struct session;

/*
 * Runs every test of configuration `config` of s->sub; the submission runner
 * is started (and the configuration loaded) if there is none. *all_passed
 * tells whether every test was Accepted. The expected outputs come from
 * s->ref_pipe: the one judge.c started while the submission compiled, or one
 * started here; it is finished on return. Returns BW_OK whenever a verdict was
 * reached; negative when the judge failed (a runner could not be called, the
 * reference failed), with the cause.
 */
int tests_run(struct session *s, size_t config, bool *all_passed, char **cause);

/*
 * The comparison spec of output tensor t in case c: its dtype against the
 * fp64 (or int64) reference, the tolerance for these sizes and the shape,
 * with `dims` (BW_MAX_DIMS entries, the caller's) holding the shape. Used by
 * the tests and by the sampled checks of timed runs.
 */
int tests_compare_spec(const struct problem *p, size_t t, const struct problem_case *c,
                       int64_t *dims, struct compare_spec *spec, char **cause);

/* The one line that says how output `name` failed its comparison r (*message,
 * replaced by a new string): "out was never written (...)" when every element
 * still holds the poison, "K of N elements of out were never written" when
 * every mismatch is one, "K of M checked elements of out differ from the
 * reference" when r checked a sample, else "K elements of out differ from the
 * reference". */
void tests_mismatch_line(const struct compare_report *r, const char *name, char **message);

/* Whether test c of p is checked by sample (checks.h): its outputs (every out
 * and inout tensor, elements x the tensor's dtype size) take more than
 * max_bytes (0: BW_FULL_CHECK_MAX_BYTES). A case whose sizes do not evaluate
 * is not (it fails where it is planned). */
bool tests_case_sampled(const struct problem *p, const struct problem_case *c, uint64_t max_bytes);

/*
 * The harness's allowance, in whole milliseconds rounded up, for a run of
 * `device_bytes` of buffers on the GPU and `host_bytes` crossing between the
 * runner and the judge: BW_HARNESS_BASE_MS + device_bytes /
 * BW_HARNESS_DEVICE_BYTES_PER_MS + host_bytes / BW_HARNESS_HOST_BYTES_PER_MS.
 */
uint64_t tests_allowance_ms(uint64_t device_bytes, uint64_t host_bytes);

/* tests_allowance_ms of request rq: its plan's buffers, and its full return
 * (every out and inout buffer) or its gather (the indices sent, the elements
 * returned). */
uint64_t tests_harness_allowance_ms(const struct run_request *rq);

/* The deadline of a test's run of rq whose plan may take run_ms:
 * run_ms + tests_harness_allowance_ms(rq), at most INT_MAX. */
int tests_run_deadline_ms(int run_ms, const struct run_request *rq);

#endif
