/*
 * run_plan.h - a concrete plan (plan.h, the judge's form) in the runner
 * protocol's form (runner_proto.h, what travels to blockwise-runner).
 *
 * The two forms differ on purpose: plan.h borrows names from the problem and
 * the directives and keeps the side, the tensor of each buffer and the
 * source lines for messages; the protocol carries fixed-size copies and only
 * what a runner executes. This is the one translation between them.
 */
#ifndef BW_RUN_PLAN_H
#define BW_RUN_PLAN_H

#include <stdint.h>

#include "plan.h"
#include "wire/runner_proto.h"

/* Fills *out (zeroed first) with plan `pl` for inputs generated from `seed`
 * and Philox case index `case_index`. No gather list: callers add their own. */
void run_plan_from_plan(const struct plan *pl, uint64_t seed, uint32_t case_index,
                        struct run_plan *out);

#endif
