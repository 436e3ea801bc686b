/*
 * profile.h - the profiling step of a Profile (docs/profile.md).
 *
 * A Profile is judged as a Run (the verdict is the tests'); then, when the
 * tests ran to their end (Accepted or Wrong Answer), the plan runs once on
 * one shape, the problem's largest benchmark case by its bytes model, under
 * CUPTI's range profiler:
 *   1. the case, its plan (the program's first @tune configuration), its
 *      bytes by the problem's model;
 *   2. a runner of its own, started with the CUPTI library the judge found
 *      (judge_config.h: cfg->cupti_path), in the same sandbox as every
 *      submission runner, the configuration's cubin loaded;
 *   3. the profile request, inside the GPU's exclusive section (the gate
 *      the timing holds: never beside a timing, one at a time per GPU),
 *      deadline BW_PROFILE_PLAN_MS plus the harness's allowance;
 *   4. every launch summarised (profile_summary.h) into s->res->profile.
 * Whatever goes wrong here is the profile's, never the verdict's: the
 * result's "profile" then says {"available": false, "why": ...}, and a
 * hostile plan is caught as anywhere else (its runner's failure, a time
 * limit, a guard written) and its runner discarded.
 */
#ifndef BW_PROFILE_H
#define BW_PROFILE_H

struct session;

/* Fills s->res->profile (and profile_ms). `why_not`: why the tests leave nothing to profile
 * (NULL: they ran to their end). Never fails: out of memory leaves the profile NULL. */
void profile_run(struct session *s, const char *why_not);

#endif
