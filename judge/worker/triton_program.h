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
 * Each build is looked up first in the build cache, by what determines it
 * (triton_key.h: the module but its launch lines, the variant, the target):
 * a learner who changed only a launch line compiles nothing, and no
 * compiler is taken. The builds not found are one compile request (at most
 * BW_TRITON_MAX_KERNELS builds), in the order the variants were found (the
 * first test case's first), on a warm compiler from the judge's pool
 * (triton_pool.h) or one started for it, with the module's launch lines
 * blanked (so that what is compiled is exactly what the key covers).
 *
 * Builds as they come (a pipeline that tests while the rest compiles):
 * after triton_program_stream(), the compile, run on a thread of its own,
 * makes each build final as the compiler answers it (or at once, from the
 * cache), and another thread may wait for the builds a case needs
 * (triton_program_wait_case), load the final ones into a runner
 * (triton_program_load_final), or stop the compile when the judging no
 * longer needs it (triton_program_stop). A final build never changes until
 * the program is released.
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

struct triton_stream_state;

struct triton_program {
    struct triton_variants variants;  /* owned: planned by triton_variants_plan() */
    struct triton_result result;      /* after compiling: builds[variants.configs[c].first + i],
                                         variant i of configuration c; its ms, driver_ms,
                                         cpu_ms, log, diags and failure are the compile's */
    bool from_cache;                  /* every build came from the build cache */
    size_t n_cached, n_compiled;      /* builds found in the cache, and asked of a compiler */
    double wait_ms;                   /* of result.ms: waiting for a warm compiler (the pool's) */
    struct triton_stream_state *live; /* owned: set by triton_program_stream(); NULL: none */
};

struct triton_pool;

/* Where and how a Triton program compiles. */
struct triton_target {
    int cc_major, cc_minor;    /* the GPU's compute capability (0/0: 9.0) */
    bool no_sandbox;           /* diagnostics only */
    struct build_cache *cache; /* borrowed; NULL: every build is compiled */
    struct triton_pool *pool;  /* borrowed: warm compilers; NULL: one is started */
    int jobs; /* the request's processes without a pool (with one: triton_pool_share); 0:
                 BW_TRITON_JOBS */
};

/*
 * Compiles every variant of tp->variants (planned first, by
 * triton_variants_plan) in one request, but those found in t->cache:
 * tp->result. BW_OK when the compile ended, well or not because of the
 * source (tp->result.ok, its diags and failure say which); BW_ERR_NOTFOUND
 * when this machine has no Triton (with the reason), other negative codes
 * when the judge failed. With triton_program_stream() first, each build is
 * final as soon as it exists (see above).
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

/* ---- builds as they come ---------------------------------------------------------- */

/* Makes the builds readable as they become final, from another thread than the compile's
 * (call it before the compile starts). BW_ERR_NOMEM or BW_ERR_SYSTEM (no pipe) otherwise. */
int triton_program_stream(struct triton_program *tp);

/* Every build final (the compile thread's last word: program.c calls it once its compile
 * ended, whatever happened; builds never given out are not built). */
void triton_program_stream_end(struct triton_program *tp);

/*
 * Waits until every build that plan pl (of configuration `config`) launches
 * is final: true when each one built, false when one did not (a compile
 * error, the compile stopped, or it ended before the variants were planned:
 * the compile's end says why). Without triton_program_stream: whether they
 * built.
 */
bool triton_program_wait_case(struct triton_program *tp, size_t config, const struct plan *pl);

/* Are the builds plan pl launches final now (without waiting)? */
bool triton_program_case_final(struct triton_program *tp, size_t config, const struct plan *pl);

/* Is the compile over (every build final)? */
bool triton_program_compiled(struct triton_program *tp);

/* Stops the compile in progress (its builds not final yet will not be built), once the judging
 * has its verdict; the compile thread then ends at once. No-op without a stream. */
void triton_program_stop(struct triton_program *tp);

/* The variants (bit i: variant i of `config`) plan pl launches. */
uint64_t triton_program_case_variants(const struct triton_program *tp, size_t config,
                                      const struct plan *pl);

/* The read end of the compile's cancel pipe (triton_stream's cancel_fd), or -1 without a
 * stream: a compile that is not triton_program_compile's (a launcher's) is stopped through it. */
int triton_program_cancel_fd(const struct triton_program *tp);

/* Waits until the variants are laid out (true), or the compile ended without them (false):
 * a launcher's plans are known only once it is recorded. Without a stream: whether they are. */
bool triton_program_wait_planned(struct triton_program *tp);

/*
 * A launcher's side (program.c lays its variants out from the recorded plans, on the
 * compiling thread): tp->variants and tp->result.builds (n_builds, zeroed or already built)
 * are in place, and builds[g] is final already where final[g] (NULL: none): readers may wait
 * for its cases now. BW_ERR_NOMEM.
 */
int triton_program_planned(struct triton_program *tp, const bool *final);

/* Build g is final: *b (stolen; zeroed after) becomes tp->result.builds[g], for readers too. */
void triton_program_give(struct triton_program *tp, size_t g, struct triton_build *b);

/* Loads the builds of `config` that are final and built into runner r (as triton_program_load,
 * "v" + the variant's index); *loaded says which (bit i: variant i). BW_OK when the runner
 * answered (fail->status), negative when it could not be called; none final: nothing loaded. */
int triton_program_load_final(struct runner *r, const struct triton_program *tp, size_t config,
                              uint64_t *loaded, struct run_failure *fail, char **cause);

void triton_program_release(struct triton_program *tp);

#endif
