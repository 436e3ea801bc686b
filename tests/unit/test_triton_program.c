/* Tests of judge/worker/triton_program (no Python needed): the limits on the
 * variants a Triton program's cases need (the variants themselves are
 * test_triton_variant's), and a case's plan in the runner's form over builds
 * as the Triton compiler describes them. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "judge/worker/program.h"
#include "judge/worker/triton_program.h"
#include "problem/problem.h"
#include "common/banned.h"

/* Sizes of the fixture's cases: N = 1, 2, 127, 128, 129, 100003 and 2^24. */
#define FIXTURE "tests/fixtures/problems/vector-add"

static const char tuned_add[] =
    "# @tune BLOCK=(128, 256)\n"
    "# @launch add grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, y, out, N, BLOCK=BLOCK)\n"
    "import triton\n";

static int parse(struct program *pg, const struct problem *p, const char *src)
{
    struct diag_list diags = {0};
    int rc = program_parse(pg, p, LANG_TRITON, src, strlen(src), PLAN_SUBMISSION, &diags);

    diag_list_release(&diags);
    return rc;
}

/* A build as the compiler describes it: the kept arguments and their types. */
static void fake_build(struct triton_build *b, bool folded_n, uint64_t scratch)
{
    static const char *const types[] = {"*fp32", "*fp32", "*fp32", "i32"};
    size_t n = folded_n ? 3 : 4;

    memset(b, 0, sizeof(*b));
    b->ok = true;
    b->num_warps = 4;
    b->shared = 1024;
    b->global_scratch_size = scratch;
    b->global_scratch_align = 16;
    b->params = calloc(n, sizeof(*b->params));
    b->param_types = calloc(n, sizeof(*b->param_types));
    for (size_t k = 0; k < n; k++) {
        b->params[k] = (int)k;
        b->param_types[k] = strdup(types[k]);
    }
    b->n_params = n;
}

TEST(triton_case_plans_call_their_variant_with_the_kept_arguments)
{
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct program pg;
    struct triton_program tp;
    struct plan pl;
    struct run_plan rp;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&pg, p, tuned_add), BW_OK);
    CHECK_INT_EQ(
        triton_variants_plan(&tp.variants, p, &pg.dirs, pg.tune_values, pg.n_configs, true, &cause),
        BW_OK);
    /* per configuration: the tests' build, then the benchmark's */
    CHECK_INT_EQ(tp.variants.n_builds, 4);
    tp.result.builds = calloc(tp.variants.n_builds, sizeof(*tp.result.builds));
    tp.result.n_builds = tp.variants.n_builds;
    for (size_t i = 0; i < tp.variants.n_builds; i++)
        fake_build(&tp.result.builds[i], false, i == 2 ? 64 : 0);

    /* N = 2 with BLOCK=256: configuration 1's tests' build, with a global scratch buffer. */
    CHECK_INT_EQ(
        plan_build(p, &pg.dirs, pg.tune_values[1], &p->tests[1], PLAN_SUBMISSION, &pl, &cause),
        BW_OK);
    CHECK_INT_EQ(triton_program_run_plan(&tp, 1, &pl, 7, 1, &rp, &cause), BW_OK);
    CHECK_STR_EQ(rp.launches[0].kernel, "v0");
    CHECK_INT_EQ(rp.launches[0].block[0], 128);
    CHECK_INT_EQ(rp.launches[0].smem, 1024);
    CHECK_INT_EQ(rp.launches[0].n_args, 6);
    CHECK(rp.launches[0].args[3].kind == RUN_ARG_I32 && rp.launches[0].args[3].i == 2);
    CHECK(rp.launches[0].args[4].kind == RUN_ARG_BUF);
    CHECK_INT_EQ(rp.n_buffers, (int)pl.n_buffers + 1);
    CHECK(rp.buffers[rp.launches[0].args[4].buf].role == RUN_ROLE_SCRATCH);
    CHECK_INT_EQ(rp.buffers[rp.launches[0].args[4].buf].count, 64); /* 1 program x 64 bytes */
    CHECK(rp.launches[0].args[5].kind == RUN_ARG_U64 && rp.launches[0].args[5].u == 0);

    /* N = 1, a test: the same build, N passed (a test's integers are not folded). */
    CHECK_INT_EQ(
        plan_build(p, &pg.dirs, pg.tune_values[0], &p->tests[0], PLAN_SUBMISSION, &pl, &cause),
        BW_OK);
    CHECK_INT_EQ(triton_program_run_plan(&tp, 0, &pl, 7, 0, &rp, &cause), BW_OK);
    CHECK_STR_EQ(rp.launches[0].kernel, "v0");
    CHECK_INT_EQ(rp.launches[0].n_args, 6);
    CHECK(rp.launches[0].args[3].kind == RUN_ARG_I32 && rp.launches[0].args[3].i == 1);

    /* The benchmark shape: its own build, called with the arguments that build keeps (here one
     * that folds N, as Triton does an integer equal to 1 of a benchmark shape). */
    triton_build_release(&tp.result.builds[1]);
    fake_build(&tp.result.builds[1], true, 0);
    CHECK_INT_EQ(
        plan_build(p, &pg.dirs, pg.tune_values[0], &p->benchmarks[0], PLAN_SUBMISSION, &pl, &cause),
        BW_OK);
    CHECK_INT_EQ(triton_program_run_plan(&tp, 0, &pl, 7, 0, &rp, &cause), BW_OK);
    CHECK_STR_EQ(rp.launches[0].kernel, "v1");
    CHECK_INT_EQ(rp.launches[0].n_args, 5);
    CHECK(rp.launches[0].args[3].kind == RUN_ARG_U64); /* the NULL global scratch */
    CHECK_INT_EQ(rp.n_buffers, (int)pl.n_buffers);

    /* A build that failed is never run. */
    tp.result.builds[1].ok = false;
    CHECK_INT_EQ(triton_program_run_plan(&tp, 0, &pl, 7, 0, &rp, &cause), BW_ERR_INTERNAL);
    triton_program_release(&tp);
    program_release(&pg);
    problem_free(p);
    free(cause);
}

TEST(triton_too_many_builds_is_the_learners_compile_error)
{
    /* 16 x 4 configurations of 6 variants each (NP takes 5 values over the tests and one more
     * over the benchmark): 384 builds, more than BW_TRITON_MAX_KERNELS. */
    static const char many[] =
        "# @tune BLOCK=(16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, "
        "131072, 262144, 524288)\n"
        "# @tune W=(1, 2, 4, 8)\n"
        "# @launch add grid=(cdiv(N, BLOCK)) num_warps=W "
        "args=(x, y, out, N, BLOCK=BLOCK, NP=next_pow2(N))\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct program pg;
    struct program_target t = {0};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&pg, p, many), BW_OK);
    CHECK_INT_EQ(pg.n_configs, 64);
    /* Planned before any Python starts: no Triton is needed to refuse it. */
    CHECK_INT_EQ(program_compile(&pg, &t, many, strlen(many), "submission.py", &cause), BW_OK);
    CHECK(!pg.builds[0].ok);
    CHECK(pg.builds[0].failure != NULL);
    if (pg.builds[0].failure)
        CHECK_CONTAINS(pg.builds[0].failure, "BW_TRITON_MAX_KERNELS");
    program_release(&pg);
    problem_free(p);
    free(cause);
}

TEST(triton_program_no_case_can_launch_is_said_why)
{
    static const char zero_grid[] =
        "# @launch add grid=(0) num_warps=4 args=(x, y, out, N, BLOCK=128)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct program pg;
    struct program_target t = {0};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&pg, p, zero_grid), BW_OK);
    CHECK_INT_EQ(program_compile(&pg, &t, zero_grid, strlen(zero_grid), "submission.py", &cause),
                 BW_OK);
    CHECK(!pg.builds[0].ok);
    if (pg.builds[0].failure) {
        CHECK_CONTAINS(pg.builds[0].failure, "no case of this problem can be launched");
        CHECK_CONTAINS(pg.builds[0].failure, "grid.x = 0");
    } else {
        CHECK(pg.builds[0].failure != NULL);
    }
    program_release(&pg);
    problem_free(p);
    free(cause);
}

/* The variants' maxnreg is test_triton_variant's triton_maxnreg_is_part_of_each_variant. */
TEST(triton_warp_specialised_build_takes_its_own_block)
{
    static const char capped[] =
        "# @tune R=(168, 232)\n"
        "# @launch add grid=(cdiv(N, 128)) num_warps=4 maxnreg=R args=(x, y, out, N, BLOCK=128)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct program pg;
    struct triton_program tp;
    struct plan pl;
    struct run_plan rp;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&pg, p, capped), BW_OK);
    CHECK_INT_EQ(
        triton_variants_plan(&tp.variants, p, &pg.dirs, pg.tune_values, pg.n_configs, true, &cause),
        BW_OK);
    CHECK_INT_EQ(tp.variants.n_builds, 4); /* two caps x (the tests', the benchmark's) */

    /* A warp-specialised build: 12 warps (4 + workers of 4 and 1, in warp groups), not the
     * @launch's 4 and not a power of 2; the block is all of them. */
    tp.result.builds = calloc(tp.variants.n_builds, sizeof(*tp.result.builds));
    tp.result.n_builds = tp.variants.n_builds;
    for (size_t i = 0; i < tp.variants.n_builds; i++) {
        fake_build(&tp.result.builds[i], false, 0);
        tp.result.builds[i].num_warps = 12;
    }
    CHECK_INT_EQ(
        plan_build(p, &pg.dirs, pg.tune_values[1], &p->tests[1], PLAN_SUBMISSION, &pl, &cause),
        BW_OK);
    CHECK_INT_EQ(pl.launches[0].block[0], 128); /* the plan knows only the @launch's warps */
    CHECK_INT_EQ(triton_program_run_plan(&tp, 1, &pl, 7, 1, &rp, &cause), BW_OK);
    CHECK_INT_EQ(rp.launches[0].block[0], 384);
    triton_program_release(&tp);
    program_release(&pg);
    problem_free(p);
    free(cause);
}

TEST(triton_maxnreg_out_of_range_is_said_why)
{
    static const char low[] = "# @launch add grid=(1) maxnreg=16 args=(x, y, out, N, BLOCK=128)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct program pg;
    struct program_target t = {0};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&pg, p, low), BW_OK);
    /* Planned before any Python starts: no Triton is needed to refuse it. */
    CHECK_INT_EQ(program_compile(&pg, &t, low, strlen(low), "submission.py", &cause), BW_OK);
    CHECK(!pg.builds[0].ok);
    CHECK(pg.builds[0].failure != NULL);
    if (pg.builds[0].failure)
        CHECK_CONTAINS(pg.builds[0].failure,
                       "maxnreg = 16: Triton's maxnreg is 24 to 255 registers per thread");
    program_release(&pg);
    problem_free(p);
    free(cause);
}
