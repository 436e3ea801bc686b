/* Tests of judge/run_plan: a concrete plan in the runner protocol's form. */
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
