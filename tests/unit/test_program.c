/* Tests of judge/program: directives laid out per @tune configuration, and the
 * @launch lines checked against kernel signatures in (canned) PTX. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "judge/worker/program.h"
#include "problem/problem.h"
#include "common/banned.h"

#define FIXTURE "tests/fixtures/problems/vector-add"

static const char tuned[] = "// @tune BLOCK=(128, 256)\n"
                            "// @tune UNROLL=(1, 2, 4)\n"
                            "// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) "
                            "args=(x, y, out, N)\n"
                            "// @launch vector_add grid=(1) block=(32) args=(x, y, out, N)\n"
                            "extern \"C\" __global__ void vector_add(const float *x, const float "
                            "*y, float *out, long long n) {}\n";

/* PTX of vector_add(const float*, const float*, float*, PARAM3) and a mangled twin. */
static char *ptx_with(const char *param3)
{
    char *s = NULL;
    if (asprintf(&s,
                 ".version 9.0\n.target sm_90a\n"
                 ".visible .entry vector_add(\n\t.param .u64 p0,\n\t.param .u64 p1,\n"
                 "\t.param .u64 p2,\n\t.param %s p3\n)\n{ ret; }\n"
                 ".visible .entry _Z6helperPf(\n\t.param .u64 q0\n)\n{ ret; }\n",
                 param3) < 0)
        return NULL;
    return s;
}

static int check_with(struct problem *p, const char *source, const char *param3,
                      struct diag_list *diags)
{
    struct program pg;
    struct compile_result cr = {0};
    int rc = program_parse(&pg, p, LANG_CUDA, source, strlen(source), PLAN_SUBMISSION, diags);

    if (rc == BW_OK) {
        cr.ptx = ptx_with(param3);
        rc = program_check_signatures(p, &pg, &cr, PLAN_SUBMISSION, "test", diags);
        free(cr.ptx);
    }
    program_release(&pg);
    return rc;
}

TEST(program_lays_out_every_tune_combination)
{
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct diag_list diags = {0};
    struct program pg;
    const char *kernels[4];
    char text[64];

    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT_EQ(program_parse(&pg, p, LANG_CUDA, tuned, strlen(tuned), PLAN_SUBMISSION, &diags),
                 BW_OK);
    CHECK_INT_EQ(pg.n_configs, 6);
    program_describe_config(&pg, 0, text, sizeof(text));
    CHECK_STR_EQ(text, "BLOCK=128, UNROLL=1");
    program_describe_config(&pg, 5, text, sizeof(text));
    CHECK_STR_EQ(text, "BLOCK=256, UNROLL=4");
    program_describe_config(&pg, 5, text, 12); /* too small: cut, still terminated */
    CHECK(strlen(text) < 12);
    CHECK_INT_EQ(program_kernels(&pg, kernels, 4), 1); /* launched twice, named once */
    CHECK_STR_EQ(kernels[0], "vector_add");
    program_release(&pg);
    diag_list_release(&diags);
    problem_free(p);
    free(cause);
}

TEST(program_without_tune_has_one_unnamed_configuration)
{
    const char *src = "// @const BLOCK=256\n// @launch vector_add grid=(cdiv(N, BLOCK)) "
                      "block=(BLOCK) args=(x, y, out, N)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct diag_list diags = {0};
    struct program pg;
    char text[64];

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(program_parse(&pg, p, LANG_CUDA, src, strlen(src), PLAN_SUBMISSION, &diags),
                 BW_OK);
    CHECK_INT_EQ(pg.n_configs, 1);
    program_describe_config(&pg, 0, text, sizeof(text));
    CHECK_STR_EQ(text, "");
    program_release(&pg);
    diag_list_release(&diags);
    problem_free(p);
}

TEST(program_signatures_match_and_mismatch_at_the_launch_line)
{
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct diag_list diags = {0};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(check_with(p, tuned, ".u64", &diags), BW_OK);
    CHECK_INT_EQ(diags.n, 0);

    /* N is int64 in the problem; an `int` parameter is refused at its column. */
    CHECK_INT_EQ(check_with(p, tuned, ".u32", &diags), BW_ERR_INVALID);
    CHECK(diags.n >= 1);
    if (diags.n >= 1) {
        CHECK_INT_EQ(diags.items[0].line, 3);
        CHECK(diags.items[0].column > 1);
        CHECK_CONTAINS(diags.items[0].msg, "argument 4 'N' of kernel 'vector_add' is a 64-bit "
                                           "integer (long long) (8 bytes) but the parameter is 4");
    }
    diag_list_release(&diags);
    memset(&diags, 0, sizeof(diags));

    /* A float parameter for an integer size. */
    CHECK_INT_EQ(check_with(p, tuned, ".f64", &diags), BW_ERR_INVALID);
    CHECK(diags.n >= 1 && strstr(diags.items[0].msg, "of floating point"));
    diag_list_release(&diags);
    memset(&diags, 0, sizeof(diags));
    problem_free(p);
}

TEST(program_signatures_name_missing_and_mangled_kernels)
{
    const char *missing = "// @launch nope grid=(1) block=(1) args=(x, y, out, N)\n";
    const char *mangled = "// @launch helper grid=(1) block=(1) args=(out)\n";
    const char *count = "// @launch vector_add grid=(1) block=(1) args=(x, y, out)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct diag_list diags = {0};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(check_with(p, missing, ".u64", &diags), BW_ERR_INVALID);
    CHECK(diags.n == 1 && strstr(diags.items[0].msg, "no __global__ function named 'nope'"));
    diag_list_release(&diags);
    memset(&diags, 0, sizeof(diags));
    CHECK_INT_EQ(check_with(p, mangled, ".u64", &diags), BW_ERR_INVALID);
    CHECK(diags.n == 1 && strstr(diags.items[0].msg, "declare it extern \"C\""));
    diag_list_release(&diags);
    memset(&diags, 0, sizeof(diags));
    CHECK_INT_EQ(check_with(p, count, ".u64", &diags), BW_ERR_INVALID);
    CHECK(diags.n == 1 &&
          strstr(diags.items[0].msg, "takes 4 parameters but @launch passes 3 arguments"));
    diag_list_release(&diags);
    problem_free(p);
}

TEST(program_unreadable_ptx_is_left_to_the_runner)
{
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct diag_list diags = {0};
    struct program pg;
    struct compile_result cr = {.ptx = (char *)".entry broken( .param"};

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(program_parse(&pg, p, LANG_CUDA, tuned, strlen(tuned), PLAN_SUBMISSION, &diags),
                 BW_OK);
    CHECK_INT_EQ(program_check_signatures(p, &pg, &cr, PLAN_SUBMISSION, "test", &diags), BW_OK);
    CHECK_INT_EQ(diags.n, 0);
    program_release(&pg);
    problem_free(p);
}
