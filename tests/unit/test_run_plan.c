/* Tests of plan/run_plan: a concrete plan in the runner protocol's form, and a
 * Triton launch calling its build as the build describes itself. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "judge/worker/program.h"
#include "plan/run_plan.h"
#include "problem/problem.h"
#include "common/banned.h"

TEST(run_plan_copies_buffers_launches_and_args)
{
    const char *src = "// @scratch tmp fp32[2 * N]\n"
                      "// @const BLOCK=128\n"
                      "// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) smem=(64) "
                      "args=(x, y, out, N)\n";
    char *cause = NULL;
    struct problem *p = problem_load("tests/fixtures/problems/vector-add", &cause);
    struct diag_list diags = {0};
    struct program pg;
    struct plan pl;
    struct run_plan rp;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(program_parse(&pg, p, LANG_CUDA, src, strlen(src), PLAN_SUBMISSION, &diags),
                 BW_OK);
    CHECK_INT_EQ(
        plan_build(p, &pg.dirs, pg.tune_values[0], &p->tests[2], PLAN_SUBMISSION, &pl, &cause),
        BW_OK);
    run_plan_from_plan(&pl, 0xABCDEFull, 2, &rp);
    CHECK(rp.seed == 0xABCDEFull);
    CHECK_INT_EQ(rp.case_index, 2);
    CHECK_INT_EQ(rp.n_buffers, 4);
    CHECK_STR_EQ(rp.buffers[0].name, "x");
    CHECK(rp.buffers[0].role == RUN_ROLE_IN && rp.buffers[2].role == RUN_ROLE_OUT &&
          rp.buffers[3].role == RUN_ROLE_SCRATCH);
    CHECK_INT_EQ(rp.buffers[3].count, 2 * p->tests[2].sizes[0]);
    CHECK_INT_EQ(rp.buffers[0].gen.dtype, DTYPE_FP32);
    CHECK_INT_EQ(rp.n_launches, 1);
    CHECK_STR_EQ(rp.launches[0].kernel, "vector_add");
    CHECK_INT_EQ(rp.launches[0].grid[0], (p->tests[2].sizes[0] + 127) / 128);
    CHECK_INT_EQ(rp.launches[0].block[0], 128);
    CHECK_INT_EQ(rp.launches[0].smem, 64);
    CHECK_INT_EQ(rp.launches[0].n_args, 4);
    CHECK(rp.launches[0].args[0].kind == RUN_ARG_BUF && rp.launches[0].args[0].buf == 0);
    CHECK(rp.launches[0].args[3].kind == RUN_ARG_I64);
    CHECK_INT_EQ(rp.launches[0].args[3].i, p->tests[2].sizes[0]);
    CHECK_STR_EQ(rp.launches[0].args[3].name, "N");
    CHECK_INT_EQ(rp.n_gather, 0);
    program_release(&pg);
    diag_list_release(&diags);
    problem_free(p);
    free(cause);
}

TEST(run_plan_triton_launch_calls_the_build_as_it_describes_itself)
{
    const char *src =
        "# @launch add grid=(cdiv(N, 64)) num_warps=4 args=(x, y, out, N, BLOCK=64)\n";
    static const int params[] = {0, 1, 2, 3};
    char *types[] = {"*fp32", "*fp32", "*fp32", "i64"}; /* N annotated tl.int64 in the kernel */
    char *bad_types[] = {"*fp32", "*fp32", "*fp32", "bf8"};
    char *cause = NULL;
    struct problem *p = problem_load("tests/fixtures/problems/vector-add", &cause);
    struct diag_list diags = {0};
    struct program pg;
    struct plan pl;
    struct run_plan rp;
    struct triton_callee callee = {
        .name = "v3",
        .num_warps = 12, /* a warp-specialised build: more than the @launch's 4 */
        .shared = 2048,
        .global_scratch_size = 32,
        .global_scratch_align = 16,
        .params = params,
        .param_types = types,
        .n_params = 4,
    };

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(program_parse(&pg, p, LANG_TRITON, src, strlen(src), PLAN_SUBMISSION, &diags),
                 BW_OK);
    CHECK_INT_EQ(plan_build(p, &pg.dirs, NULL, &p->tests[1], PLAN_SUBMISSION, &pl, &cause),
                 BW_OK); /* N = 2: one program */
    run_plan_from_plan(&pl, 7, 1, &rp);
    CHECK_INT_EQ(run_plan_triton_launch(&rp, 0, &callee, &cause), BW_OK);
    CHECK_STR_EQ(rp.launches[0].kernel, "v3");
    CHECK_INT_EQ(rp.launches[0].block[0], 384);
    CHECK_INT_EQ(rp.launches[0].block[1], 1);
    CHECK_INT_EQ(rp.launches[0].smem, 2048);
    CHECK_INT_EQ(rp.launches[0].n_args, 6);
    CHECK(rp.launches[0].args[3].kind == RUN_ARG_I64 && rp.launches[0].args[3].i == 2);
    CHECK(rp.launches[0].args[4].kind == RUN_ARG_BUF);
    CHECK_INT_EQ(rp.n_buffers, (int)pl.n_buffers + 1);
    CHECK_STR_EQ(rp.buffers[rp.launches[0].args[4].buf].name, "global_scratch_1");
    CHECK_INT_EQ(rp.buffers[rp.launches[0].args[4].buf].count, 32);
    CHECK(rp.launches[0].args[5].kind == RUN_ARG_U64 && rp.launches[0].args[5].u == 0);

    /* N folded (equal to 1): the build keeps three arguments */
    run_plan_from_plan(&pl, 7, 1, &rp);
    callee.n_params = 3;
    callee.global_scratch_size = 0;
    CHECK_INT_EQ(run_plan_triton_launch(&rp, 0, &callee, &cause), BW_OK);
    CHECK_INT_EQ(rp.launches[0].n_args, 5);
    CHECK_INT_EQ(rp.n_buffers, (int)pl.n_buffers);

    /* what the runner cannot give is the judge's error; too many arguments a limit */
    run_plan_from_plan(&pl, 7, 1, &rp);
    callee.n_params = 4;
    callee.param_types = bad_types;
    CHECK_INT_EQ(run_plan_triton_launch(&rp, 0, &callee, &cause), BW_ERR_INTERNAL);
    run_plan_from_plan(&pl, 7, 1, &rp);
    callee.param_types = types;
    callee.global_scratch_size = 32;
    callee.global_scratch_align = 512;
    CHECK_INT_EQ(run_plan_triton_launch(&rp, 0, &callee, &cause), BW_ERR_INTERNAL);
    run_plan_from_plan(&pl, 7, 1, &rp);
    callee.n_params = BW_MAX_LAUNCH_ARGS - 1;
    CHECK_INT_EQ(run_plan_triton_launch(&rp, 0, &callee, &cause), BW_ERR_LIMIT);
    program_release(&pg);
    diag_list_release(&diags);
    problem_free(p);
    free(cause);
}
