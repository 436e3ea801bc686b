/*
 * goal_measure.h - measuring a problem's learning goals for one Accepted
 * Submit: what each goal needs beyond the verdict's own measurements.
 *
 * goals.h owns the outcomes and the pure evaluations; this module gathers
 * their inputs on the worker: the per-configuration times of the tune sweep
 * (autotune), the machine code of the scored cubins (sass, through the
 * disassembler in a limited child), a rebuild of the submission with @const /
 * @tune values overridden, timed on chosen shapes with the same checks of
 * every timed output (rebuild), and the benchmark medians and speed-of-light
 * figures (bandwidth, compare, roofline). A goal the judge cannot measure
 * here is skipped with the reason; only running out of memory fails.
 */
#ifndef BW_GOAL_MEASURE_H
#define BW_GOAL_MEASURE_H

struct session;

/* Measures and evaluates every goal of s->p into s->res->goals (in the
 * problem's order), with a "goal" event each. */
int goal_measure_all(struct session *s, char **cause);

#endif
