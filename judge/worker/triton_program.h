/*
 * triton_program.h - the builds of a Triton submission: every kernel variant
 * its cases need, for every @tune configuration, compiled in one request in
 * the Triton sandbox (triton_compile.h), a configuration's variants loaded
 * into a runner together, and each case's plan in the runner's form.
 *
 * Why variants: Triton's JIT specialises a kernel on its arguments. An
 * integer is i32 or i64 by its value, marked divisible by 16 when it is, and
 * folded into the code when it equals 1; every constexpr value, num_warps,
 * num_stages and maxnreg is part of the code. The judge gives each case the build
 * that `kernel[grid](...)` would give it at home, so one @tune configuration
 * is one build per distinct variant over all of the problem's test and
 * benchmark cases (at most BW_TRITON_MAX_VARIANTS a configuration), and the
 * whole program is one compile request (at most BW_TRITON_MAX_KERNELS builds):
 * one Python start and one `import triton` for all of them, one build cache
 * entry keyed by the request.
 *
 * A configuration's builds are loaded into one runner as "v0", "v1", ...
 * (runner_load_images). A case's launch calls the variant its arguments
 * select, with the arguments the build kept (an integer equal to 1 is
 * dropped), typed as the build takes them, with block 32 * the build's
 * num_warps (a warp-specialised kernel's is all its partitions' warps, more
 * than the @launch's num_warps) and the build's dynamic shared memory, then
 * Triton's two trailing scratch pointers: a zeroed buffer of the build's size
 * per program of the launch, or NULL.
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
#include "problem/problem.h"

/* One kernel variant: a @launch with the argument types, specialisation and
 * constexpr values of some cases. */
struct triton_variant {
    size_t launch; /* the @launch it is built for */
    struct triton_arg args[BW_MAX_LAUNCH_ARGS];
    char types[BW_MAX_LAUNCH_ARGS][16]; /* storage of args[k].type */
    size_t n_args;
    struct triton_constexpr constexprs[BW_MAX_LAUNCH_ARGS]; /* names borrowed from the directives */
    size_t n_constexprs;
    int num_warps, num_stages;
    int maxnreg; /* 0: no cap */
};

/* The variants of one @tune configuration. */
struct triton_config {
    struct triton_variant *variants; /* owned */
    size_t n_variants;
    size_t first; /* variants[i] is built as the request's kernel first + i */
};

struct triton_program {
    struct triton_config *configs; /* owned: one per @tune configuration */
    size_t n_configs;
    size_t n_builds;             /* the variants of every configuration */
    struct triton_result result; /* after compiling: builds[configs[c].first + i] */
    bool from_cache;             /* result is a copy of an identical earlier compile */
};

/* Where and how a Triton program compiles. */
struct triton_target {
    int cc_major, cc_minor;    /* the GPU's compute capability (0/0: 9.0) */
    bool no_sandbox;           /* diagnostics only */
    struct build_cache *cache; /* borrowed; NULL: every request is compiled */
};

/*
 * Finds, for each of the n_configs @tune configurations (tune_values[c], one
 * value per d->tunes[i]; NULL without @tune), the variants its launches need
 * over every test and benchmark case of p, into *tp (zeroed first). A case
 * whose plan cannot be built is skipped: it fails with its own message when
 * it runs; when no case can be planned, BW_ERR_LIMIT with the first one's
 * message (nothing could be compiled). BW_ERR_LIMIT with the reason, at the
 * @launch line, when a
 * configuration needs more than BW_TRITON_MAX_VARIANTS builds or the program
 * more than BW_TRITON_MAX_KERNELS (the learner's to fix: constexpr values
 * that follow every size). Release *tp whatever the result.
 */
int triton_program_plan(struct triton_program *tp, const struct problem *p,
                        const struct directives *d,
                        const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs,
                        char **cause);

/*
 * Compiles every variant in one request (or copies the result of an
 * identical earlier request from t->cache): tp->result. BW_OK when the
 * compile ended, well or not because of the source (tp->result.ok, its
 * diags and failure say which); BW_ERR_NOTFOUND when this machine has no
 * Triton (with the reason), other negative codes when the judge failed.
 */
int triton_program_compile(struct triton_program *tp, const struct directives *d,
                           const char *source, size_t len, const char *filename,
                           const struct triton_target *t, char **cause);

/* Loads configuration `config`'s builds into runner r as "v0", "v1", ...;
 * BW_OK when the runner answered (fail->status says whether the modules
 * loaded), negative when it could not be called. */
int triton_program_load(struct runner *r, const struct triton_program *tp, size_t config,
                        struct run_failure *fail, char **cause);

/*
 * The runner's form of plan pl of configuration `config` (built from the same
 * directives and tune values) for Philox case `case_index` (see the top).
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
