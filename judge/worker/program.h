/*
 * program.h - one source made ready to run: its directives, one compiled
 * build per @tune configuration, and its kernels' signatures checked against
 * its @launch lines.
 *
 * Both sides of a judging are programs: the learner's submission (CUDA or
 * Triton) and the problem's reference.cu. A CUDA program is one NVRTC build
 * per configuration; a Triton program is one compile request holding every
 * kernel variant of every configuration (triton_program.h), and its builds[]
 * summarise that compile per configuration (ok, diagnostics, log, failure;
 * no cubin: the variants' cubins stay in `triton`), so the pipeline reviews
 * both alike. A program knows nothing of GPUs or test cases; the
 * pipeline (judge.c) compiles it, reviews its builds and loads one of them
 * into a runner.
 *
 * What the source says, and what it means for each case, is the launch
 * language's (plan/README.md): program_parse() only runs plan/'s steps
 * (directives_parse_as, plan_check, directives_tune_table) and keeps their
 * results; Triton's variants are plan/triton_variant.h's. This module is the
 * pipeline's side: compile requests, the build cache, signatures read from
 * PTX, loading builds into runners.
 *
 * Life cycle: program_parse() (directives, names against the problem, the
 * @tune combinations) -> program_compile() (every configuration, in the
 * compile sandbox) -> program_check_signatures() per build -> program_load()
 * of one configuration into a runner -> program_run_plan() per case ->
 * program_release().
 */
#ifndef BW_PROGRAM_H
#define BW_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build_cache.h"
#include "compile.h"
#include "gpu_info.h"
#include "runner_client.h"
#include "triton_program.h"
#include "common/limits.h"
#include "plan/directive.h"
#include "plan/plan.h"
#include "plan/recorded.h"
#include "problem/problem.h"

struct program {
    const struct problem *p; /* borrowed: the problem it was parsed for */
    enum language lang;
    enum plan_side side;
    struct directives dirs;                     /* empty for a launcher */
    bool launcher;                              /* Triton: a solve(...) launcher, not directives */
    int solve_line;                             /* launcher: the line of `def solve` */
    struct recording rec;                       /* launcher: its plans, once compiled (recorded) */
    size_t n_configs;                           /* @tune combinations (1 without @tune) */
    struct compile_result *builds;              /* owned: one per configuration */
    int64_t (*tune_values)[BW_MAX_TUNE_PARAMS]; /* owned: configuration c's @tune values */
    struct triton_program triton;               /* LANG_TRITON: the variants and their builds */
};

/* What a compile needs besides the source: where and how to build. */
struct triton_pool;

struct program_target {
    const char *arch;                /* NVRTC target, "sm_90a" */
    int cc_major, cc_minor;          /* Triton's target (0/0: 9.0) */
    const struct gpu_info *gpu;      /* borrowed; the GPU a launcher asks about (NULL: an H200's) */
    bool record_only;                /* a launcher: record its plans, build nothing (judged plan) */
    bool tests_only;                 /* a Run: Triton builds for the test cases only (a Submit's
                                        and a Profile's benchmark shapes need theirs too) */
    int launcher_case_ms;            /* a launcher: one case's recording (0: BW_LAUNCHER_CASE_MS) */
    bool no_sandbox;                 /* diagnostics only */
    struct build_cache *cache;       /* borrowed; NULL: every configuration is compiled */
    struct triton_pool *triton_pool; /* borrowed: warm Triton compilers; NULL: one is started */
    int triton_jobs; /* a Triton request's processes without a pool; 0: BW_TRITON_JOBS */
};

/*
 * Parses a source in language `lang` (its directives: directive.h) into *pg
 * (zeroed first), checks their names against problem `p` for `side`
 * (plan_check), and lays out its @tune configurations (tune.h; no builds
 * yet). Directive errors go to *diags and give BW_ERR_INVALID;
 * BW_ERR_NOMEM otherwise fails. Release *pg whatever the result.
 * A Triton source with a top-level `def solve(` and no directives is a
 * launcher (plan/launcher_form.h): its configurations and plans are known
 * only once program_compile has recorded it; one with both, or with kernels
 * and neither, is refused here with a diag at its line.
 */
int program_parse(struct program *pg, const struct problem *p, enum language lang,
                  const char *source, size_t len, enum plan_side side, struct diag_list *diags);

/*
 * Compiles every configuration of `pg` (pg->n_configs of them) into
 * pg->builds. CUDA: two compilers at a time, @const and @tune values as -D
 * macros, @flags as given. Triton: every variant in one sandboxed request
 * (triton_program_compile); a program that needs too many variants is the
 * learner's Compile Error; with triton_program_stream() on pg->triton first,
 * its builds are readable as they come, and triton_program_stream_end() is
 * called when the compile is over, whatever happened. A build in t->cache is
 * copied instead of compiled again. Returns BW_OK when every compile ended, successfully or not
 * (the builds say which); a negative code only when the judge could not compile at all
 * (compile_run's judge failures; BW_ERR_NOTFOUND: no Triton here).
 */
int program_compile(struct program *pg, const struct program_target *t, const char *source,
                    size_t len, const char *filename, char **cause);

/*
 * Checks each @launch against the kernel signatures in build `cr`'s PTX: the
 * kernel exists (extern "C"), the argument count matches, and each
 * argument's width and kind fit the parameter (for the first test case of
 * `p`: the kinds do not depend on the case). Problems go to *diags at the
 * @launch line (and the argument's column); returns BW_OK or BW_ERR_INVALID.
 * PTX that cannot be read is not an error here (the runner checks parameter
 * sizes again before launching); `job` names the judging in that log line.
 * A Triton build passes: its compiler checked the @launch lines against the
 * @triton.jit signatures and typed the parameters itself.
 */
int program_check_signatures(const struct problem *p, const struct program *pg,
                             const struct compile_result *cr, enum plan_side side, const char *job,
                             struct diag_list *diags);

/* "BLOCK=128, SPLIT=2": configuration `cfg`'s @tune values, "" without @tune
 * (directives_tune_describe); a launcher's: its autotune config ("BLOCK_SIZE=1024,
 * num_warps=4, num_stages=3"). */
void program_describe_config(const struct program *pg, size_t cfg, char *out, size_t cap);

/*
 * The plan of configuration `config` for case c (one of p's tests or
 * benchmarks) into *out: plan_build of the directives, or a launcher's
 * recorded plan checked (recorded_plan_build). A failure is the case's
 * (BW_ERR_INVALID or BW_ERR_LIMIT with a message naming the line and the
 * case), as plan_build's.
 */
int program_plan(const struct program *pg, size_t config, const struct problem_case *c,
                 struct plan *out, char **cause);

/* The distinct kernels pg's @launch lines name, in order of first use, into
 * out[0..cap) (borrowed from pg); returns how many. */
size_t program_kernels(const struct program *pg, const char **out, size_t cap);

/*
 * Loads configuration `config`'s cubin into runner `r` with the kernels its
 * launches name (Triton: the configuration's variants, triton_program_load). BW_OK when the runner
 * answered: fail->status says whether the module loaded (a bad launch configuration of the
 * learner's is a failure, not an error); negative when the runner could not be called.
 */
int program_load(struct runner *r, const struct program *pg, size_t config,
                 struct run_failure *fail, char **cause);

/*
 * The runner's form of plan `pl` (of configuration `config`) for Philox case
 * `case_index`: run_plan_from_plan for CUDA; for Triton, each launch calls
 * its variant's build (triton_program_run_plan). Negative with the cause
 * when a Triton plan cannot be made (a judge bug, or a limit).
 */
int program_run_plan(const struct program *pg, size_t config, const struct plan *pl, uint64_t seed,
                     uint32_t case_index, struct run_plan *out, char **cause);

void program_release(struct program *pg);

#endif
