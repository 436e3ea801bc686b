/*
 * run_plan.h - a concrete plan (plan.h, the judge's form) in the runner
 * protocol's form (runner_proto.h, what travels to blockwise-runner): the
 * last step of the launch language (plan/README.md). It owns no state.
 *
 * The two forms differ on purpose: plan.h borrows names from the problem and
 * the directives and keeps the side, the tensor of each buffer and the
 * source lines for messages; the protocol carries fixed-size copies and only
 * what a runner executes. This is the one translation between them.
 *
 * A Triton launch takes one more step, because the compiler, not the plan,
 * has the last word on calling a build: which arguments it kept (an integer
 * equal to 1 is folded into the code), the type each takes (a kernel's
 * annotation, n: tl.int64, overrides the plan's), its warps (a
 * warp-specialised kernel has more than the @launch's num_warps), its shared
 * memory and its scratch. run_plan_triton_launch() rewrites a launch to call
 * a build as it describes itself.
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

/* A compiled Triton kernel as a launch calls it: what the compiler says
 * about it (judge/worker/triton_compile.h's struct triton_build, less its
 * code). Every pointer is borrowed. */
struct triton_callee {
    const char *name;              /* the name the runner loaded it under ("v0") */
    int num_warps;                 /* the compiled kernel's: block = 32 * num_warps */
    int shared;                    /* dynamic shared memory bytes to launch with */
    uint64_t global_scratch_size;  /* bytes per program; 0: none (a NULL pointer) */
    uint64_t global_scratch_align; /* at most the runner's 256-byte buffer alignment */
    uint64_t profile_scratch_size; /* bytes per program; 0: none (a NULL pointer) */
    const int *params;             /* the launch's positional arguments it kept, in order */
    char *const *param_types;      /* each kept one's Triton type as the kernel takes it */
    size_t n_params;
};

/*
 * Rewrites launch l of *out (run_plan_from_plan's form of a Triton plan) to
 * call `callee`: its name, a block of 32 x its num_warps threads, its shared
 * memory, the arguments it kept (out's own, by index) with the run kinds of
 * its types, then Triton's two trailing scratch pointers, each a zeroed
 * buffer of the callee's size per program of the launch (added to out's
 * buffers) or NULL. BW_ERR_LIMIT when the arguments or the buffers do not
 * fit; BW_ERR_INTERNAL when the callee asks what the runner cannot give (an
 * unknown parameter type, scratch aligned beyond 256 bytes).
 */
int run_plan_triton_launch(struct run_plan *out, size_t l, const struct triton_callee *callee,
                           char **cause);

#endif
