/*
 * goals.h - learning goals: what the judge measured, held against problem.json's thresholds.
 *
 * A problem's "goals" (problem.h, docs/problem-format.md §9) check what the
 * output cannot show: an autotuning sweep, a rebuild with a macro changed,
 * instructions in the machine code, achieved bandwidth under a bytes model,
 * two benchmark shapes against each other, speed of light on chosen shapes.
 * The judge (goal_measure.c) runs them on Submit, after timing and only for an
 * Accepted submission, and reports each outcome beside the verdict: a goal
 * never changes the verdict or the score.
 *
 * This module owns the outcome (status, a one-line detail for people and the
 * figures behind it as JSON), the evaluations that turn measurements into an
 * outcome (pure: testable without a GPU), and both ways of showing outcomes
 * (the JSON of judge_result_json and the lines of `judged check`).
 */
#ifndef BW_GOALS_H
#define BW_GOALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "sass.h"
#include "problem/problem.h"

enum goal_status {
    GOAL_STATUS_FAILED,  /* measured, and short of the goal (or the submission cannot take it) */
    GOAL_STATUS_PASSED,  /* measured, and the goal is met */
    GOAL_STATUS_SKIPPED, /* the judge could not measure it here (no disassembler, no calibrated
                            GPU figures): never the learner's fault */
};

struct goal_outcome {
    char *name; /* owned */
    enum goal_kind kind;
    enum goal_status status;
    char *description; /* owned copy of the goal's, or NULL */
    char *detail;      /* owned: one line for people */
    json_t *data;      /* new reference: the figures (an object, kind-specific) */
};

/* "passed", "failed", "skipped" */
const char *goal_status_name(enum goal_status s);

/* Starts the outcome of goal g: its name, kind and description, status failed,
 * no detail, data {}. Returns BW_OK or BW_ERR_NOMEM. */
int goal_outcome_init(struct goal_outcome *o, const struct goal_spec *g);
void goal_outcome_release(struct goal_outcome *o);

/* Sets the status and the detail line (replacing any). */
void goal_outcome_set(struct goal_outcome *o, enum goal_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * autotune: `ms[c * n_shapes + s]` is the median time of configuration c (of
 * n_configs, named config_names[c], e.g. "BM=128, BN=64") on benchmark s (of
 * p->n_benchmarks); <= 0 when unknown. Reports per shape the best and worst
 * configuration and their ratio, and the autotune gain: the geometric mean
 * over shapes of the best single configuration's time, over that of the
 * per-shape best. Passed when there are >= g->min_configs configurations,
 * every time is known and the gain is >= g->min_gain.
 */
int goal_eval_autotune(const struct goal_spec *g, const struct problem *p, size_t n_configs,
                       const char *const *config_names, const double *ms, struct goal_outcome *out);

/*
 * rebuild: per benchmark b with g->shapes[b], the submission's median time
 * submitted_ms[b] (its best configuration, configs[b]) and the rebuilt
 * kernel's rebuilt_ms[b]. speedup = rebuilt / submitted; passed when every
 * shape's speedup is >= g->min_speedup.
 */
int goal_eval_rebuild(const struct goal_spec *g, const struct problem *p,
                      const double *submitted_ms, const double *rebuilt_ms,
                      const char *const *configs, struct goal_outcome *out);

/*
 * bandwidth: per benchmark b with g->shapes[b], g->bytes / median_ms[b] as a
 * percentage of copy_gbps (the worker's measured copy bandwidth); passed when
 * every one is >= g->min_pct. Skipped when copy_gbps <= 0 (not calibrated).
 */
int goal_eval_bandwidth(const struct goal_spec *g, const struct problem *p, const double *median_ms,
                        double copy_gbps, struct goal_outcome *out);

/*
 * compare: per pair, speedup = median_ms[baseline] / median_ms[shape]; passed
 * when every pair's speedup is >= g->min_speedup.
 */
int goal_eval_compare(const struct goal_spec *g, const struct problem *p, const double *median_ms,
                      struct goal_outcome *out);

/*
 * roofline: per benchmark b with g->shapes[b], its speed of light sol_pct[b]
 * (the score's figure); passed when every one is >= g->min_pct. Skipped when
 * !calibrated (the worker has no measured limits).
 */
int goal_eval_roofline(const struct goal_spec *g, const struct problem *p, const double *sol_pct,
                       bool calibrated, struct goal_outcome *out);

/*
 * sass: scans[i] is the scan (sass.h) of the cubin of configuration
 * config_names[i], with g's patterns and kernels. Per pattern, the fewest
 * matching instructions over the cubins; passed when every pattern is found
 * in every cubin and every kernel named by g has code in each.
 */
int goal_eval_sass(const struct goal_spec *g, const struct sass_scan *scans, size_t n_scans,
                   const char *const *config_names, struct goal_outcome *out);

/* The outcome as JSON, a *new* object: {"name", "kind", "status", "passed",
 * "detail", "description" (when set)} plus the figures of o->data. */
json_t *goal_outcome_json(const struct goal_outcome *o);

/* Prints the outcomes for people: a summary line, then per goal its status,
 * name, kind and detail, and per shape a line of figures. Nothing when n == 0. */
void goal_outcomes_print(FILE *f, const struct goal_outcome *o, size_t n, bool color);

#endif
