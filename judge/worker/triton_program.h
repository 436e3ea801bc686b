/*
 * triton_program.h - the builds of a Triton submission, the pipeline's side:
 * every kernel variant its cases need, for every @tune configuration,
 * compiled in one request in the Triton sandbox (triton_compile.h), a
 * configuration's variants loaded into a runner together, and each case's
 * plan in the runner's form calling them.
 *
 * Which variants a source needs, and which one a case's launch selects, is
 * the launch language's (plan/triton_variant.h: Triton's JIT specialisation,
 * at most BW_TRITON_MAX_VARIANTS a configuration); this module builds them.
 * The whole program is one compile request (at most BW_TRITON_MAX_KERNELS
 * builds): one Python start and one `import triton` for all of them, one
 * build cache entry keyed by the request.
 *
 * A configuration's builds are loaded into one runner as "v0", "v1", ...
 * (runner_load_images). A case's launch calls the variant its arguments
 * select, as the build describes itself (plan/run_plan.h:
 * run_plan_triton_launch): the arguments it kept, typed as it takes them,
 * its block and shared memory, and Triton's two trailing scratch pointers.
 */
#ifndef BW_TRITON_PROGRAM_H
#define BW_TRITON_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_cache.h"
#include "runner_client.h"
#include "triton_compile.h"
#include "common/limits.h"
#include "plan/directive.h"
#include "plan/plan.h"
#include "plan/triton_variant.h"
#include "problem/problem.h"

struct triton_program {
    struct triton_variants variants; /* owned: planned by triton_variants_plan() */
    struct triton_result result;     /* after compiling: builds[variants.configs[c].first + i],
                                        request kernel i being variant i */
    bool from_cache;                 /* result is a copy of an identical earlier compile */
};

/* Where and how a Triton program compiles. */
struct triton_target {
    int cc_major, cc_minor;    /* the GPU's compute capability (0/0: 9.0) */
    bool no_sandbox;           /* diagnostics only */
    struct build_cache *cache; /* borrowed; NULL: every request is compiled */
};

/*
 * Compiles every variant of tp->variants (planned first, by
 * triton_variants_plan) in one request (or copies the result of an
 * identical earlier request from t->cache): tp->result. BW_OK when the
 * compile ended, well or not because of the source (tp->result.ok, its
 * diags and failure say which); BW_ERR_NOTFOUND when this machine has no
 * Triton (with the reason), other negative codes when the judge failed.
 */
int triton_program_compile(struct triton_program *tp, const char *source, size_t len,
                           const char *filename, const struct triton_target *t, char **cause);

/* Loads configuration `config`'s builds into runner r as "v0", "v1", ...;
 * BW_OK when the runner answered (fail->status says whether the modules
 * loaded), negative when it could not be called. */
int triton_program_load(struct runner *r, const struct triton_program *tp, size_t config,
                        struct run_failure *fail, char **cause);

/*
 * The runner's form of plan pl of configuration `config` (built from the same
 * directives and tune values) for Philox case `case_index`: run_plan_from_plan,
 * then each launch calling its variant's build (run_plan_triton_launch).
 * BW_ERR_INTERNAL when a launch has no build (the plan and the variants
 * disagree: a judge bug), BW_ERR_LIMIT when the kept arguments and the two
 * scratch pointers, or the scratch buffers, do not fit the plan.
 */
int triton_program_run_plan(const struct triton_program *tp, size_t config, const struct plan *pl,
                            uint64_t seed, uint32_t case_index, struct run_plan *out, char **cause);

/* The index in tp->result.builds of the build that launch `launch` of plan pl
 * (of configuration `config`) runs, or -1 when there is none. */
int triton_program_build_of(const struct triton_program *tp, size_t config, const struct plan *pl,
                            size_t launch);

void triton_program_release(struct triton_program *tp);

#endif
