/*
 * plan/plan: directives bound to a problem and evaluated per case. Issue 12's
 * integer expressions in args=(...): each is evaluated per case like grid=,
 * takes its kernel parameter's width, and a value that overflows a 4-byte
 * parameter in any case is a Compile Error at the argument (plan_check_int_arg,
 * and end to end through judge_submission with real NVRTC, no GPU needed).
 * Problems come from tests/fixtures/problems/vector-add (sizes N; tests N = 1,
 * 2, 127, 128, 129, 100003; benchmark "2^24") and problems/layernorm-forward
 * (sizes M, N and the scalar eps).
 */
#include "tests/test.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/worker/judge.h"
#include "plan/directive.h"
#include "plan/plan.h"
#include "problem/problem.h"
#include "common/banned.h"

#define VECTOR_ADD "tests/fixtures/problems/vector-add"
#define LAYERNORM  "problems/layernorm-forward"

static struct problem *load(const char *dir)
{
    char *cause = NULL;
    struct problem *p = problem_load(dir, &cause);
    CHECK_MSG(p != NULL, "%s: %s", dir, cause ? cause : "?");
    free(cause);
    return p;
}

/* Parses src into *d, failing the test (and returning false) on any diag. */
static bool parse_ok(const char *src, struct directives *d)
{
    struct diag_list l = {0};
    int rc = directives_parse(src, strlen(src), d, &l);
    CHECK_MSG(rc == BW_OK, "%s: %s", src, l.n ? l.items[0].msg : "?");
    diag_list_release(&l);
    return rc == BW_OK;
}

/* The split plan of issue 12: two launches, each over half of the vector. */
static const char split_plan[] =
    "// @const BLOCK=256\n"
    "// @launch vector_add grid=(max(1, cdiv(N / 2, BLOCK))) block=(BLOCK) "
    "args=(x, y, out, 0, N / 2)\n"
    "// @launch vector_add grid=(max(1, cdiv(N - N / 2, BLOCK))) block=(BLOCK) "
    "args=(x, y, out, N / 2, N - N / 2)\n";

TEST(plan_arg_expressions_are_evaluated_per_case)
{
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    if (!p || !parse_ok(split_plan, &d)) {
        problem_free(p);
        return;
    }
    CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
    CHECK_INT_EQ(diags.n, 0);
    CHECK(p->n_tests >= 6);
    for (size_t i = 0; i < p->n_tests + p->n_benchmarks; i++) {
        const struct problem_case *c =
            i < p->n_tests ? &p->tests[i] : &p->benchmarks[i - p->n_tests];
        int64_t n = c->sizes[0];
        struct plan *pl = calloc(1, sizeof(*pl));
        char *cause = NULL;
        if (!pl)
            break;
        CHECK_MSG(plan_build(p, &d, NULL, c, PLAN_SUBMISSION, pl, &cause) == BW_OK, "case %s: %s",
                  c->name, cause ? cause : "?");
        free(cause);
        CHECK_INT_EQ(pl->n_launches, 2);
        const struct plan_arg *a = pl->launches[0].args, *b = pl->launches[1].args;
        CHECK(a[3].kind == PLAN_ARG_INT && a[3].i == 0 && a[3].name == NULL);
        CHECK(a[4].kind == PLAN_ARG_INT);
        CHECK_INT_EQ(a[4].i, n / 2);
        CHECK_STR_EQ(a[4].name, "N / 2"); /* the runner's messages name it so */
        CHECK_INT_EQ(b[3].i, n / 2);
        CHECK_INT_EQ(b[4].i, n - n / 2);
        CHECK(b[0].kind == PLAN_ARG_BUF && b[2].kind == PLAN_ARG_BUF);
        CHECK_INT_EQ(pl->launches[1].grid[0], (n - n / 2 + 255) / 256);
        free(pl);
    }
    diag_list_release(&diags);
    directives_release(&d);
    problem_free(p);
}

/* Names in an argument expression follow grid='s rules, with messages for args. */
TEST(plan_arg_expression_names_are_checked)
{
    static const struct {
        const char *problem, *src, *msg;
        int column;
    } cases[] = {
        {VECTOR_ADD, "// @launch k grid=(1) block=(1) args=(x + 1, y, out, N)\n",
         "'x' is a buffer and cannot be part of an expression in args=(...) (expressions may use "
         "sizes, @const, @tune and @let names): pass it alone and offset it in the kernel",
         39},
        {VECTOR_ADD, "// @launch k grid=(1) block=(1) args=(x, y, out, Q / 2)\n",
         "unknown name 'Q' in args=(...)", 50},
        {LAYERNORM,
         "// @launch k grid=(1) block=(1) args=(X, gamma, beta, Y, mean, rstd, eps * 2)\n",
         "'eps' is a scalar and cannot be part of an expression in args=(...) (expressions may "
         "use sizes, @const, @tune and @let names): pass it alone",
         70},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct problem *p = load(cases[i].problem);
        struct directives d;
        struct diag_list diags = {0};
        if (!p || !parse_ok(cases[i].src, &d)) {
            problem_free(p);
            continue;
        }
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
        CHECK_INT_EQ(diags.n, 1);
        if (diags.n >= 1) {
            CHECK_STR_EQ(diags.items[0].msg, cases[i].msg);
            CHECK_INT_EQ(diags.items[0].line, 1);
            CHECK_INT_EQ(diags.items[0].column, cases[i].column);
        }
        diag_list_release(&diags);
        directives_release(&d);
        problem_free(p);
    }
}

TEST(plan_arg_expression_error_names_its_case)
{
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct plan *pl = calloc(1, sizeof(*pl));
    char *cause = NULL;
    if (!p || !pl ||
        !parse_ok("// @launch k grid=(1) block=(1) args=(x, y, out, 100 / (N - 2))\n", &d)) {
        free(pl);
        problem_free(p);
        return;
    }
    CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause), BW_OK);
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(pl->launches[0].args[3].i, -100); /* N = 1 */
    CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[1], PLAN_SUBMISSION, pl, &cause),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "line 1: argument 4 (100 / (N - 2)) for case ");
    CHECK_CONTAINS(cause, p->tests[1].name);
    CHECK_CONTAINS(cause, "division by zero");
    free(cause);
    free(pl);
    directives_release(&d);
    problem_free(p);
}

/* Checks argument `a` of launch 0 of src against a parameter; returns the rc
 * and the first message (new) in *msg. */
/* @rows: refused in a submission and beside two @launch lines; its plan is
 * the @launch's on grid (n_rows) with the rows and n_rows appended. */
TEST(plan_rows_kernel)
{
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    struct plan pl;
    int64_t rows = 0;
    char *cause = NULL;
    const char *one = "// @launch k grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)\n"
                      "// @rows k_rows rows=(N) block=(32) smem=(8 * 32)\n";

    if (!p || !parse_ok(one, &d)) {
        problem_free(p);
        return;
    }
    CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
    CHECK(diags.n == 1 && strstr(diags.items[0].msg, "@rows is for a problem's reference.cu"));
    diag_list_release(&diags);
    CHECK_INT_EQ(plan_check(p, &d, PLAN_REFERENCE, &diags), BW_OK);
    diag_list_release(&diags);
    const struct problem_case *c = &p->tests[p->n_tests - 1]; /* N >= 3 */
    CHECK_INT_EQ(plan_build_rows(p, &d, c, 3, &pl, &rows, &cause), BW_OK);
    CHECK_INT_EQ(rows, c->sizes[0]);
    CHECK_STR_EQ(pl.launches[0].kernel, "k_rows");
    CHECK(pl.launches[0].grid[0] == 3 && pl.launches[0].block[0] == 32 &&
          pl.launches[0].smem == 256);
    CHECK_INT_EQ(pl.launches[0].n_args, 6);
    CHECK(pl.launches[0].args[4].kind == PLAN_ARG_BUF &&
          pl.buffers[pl.launches[0].args[4].buf].role == PLAN_DATA &&
          pl.buffers[pl.launches[0].args[4].buf].count == 3);
    CHECK(pl.launches[0].args[5].kind == PLAN_ARG_I64 && pl.launches[0].args[5].i == 3);
    CHECK(plan_build_rows(p, &d, c, rows + 1, &pl, &rows, &cause) == BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "rows asked of @rows");
    free(cause);
    directives_release(&d);
    if (parse_ok("// @launch k grid=(1) block=(1) args=(x, y, out, N)\n"
                 "// @launch k grid=(1) block=(1) args=(x, y, out, N)\n"
                 "// @rows k_rows rows=(N) block=(32)\n",
                 &d)) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_REFERENCE, &diags), BW_ERR_INVALID);
        CHECK(diags.n == 1 && strstr(diags.items[0].msg, "exactly one @launch"));
        diag_list_release(&diags);
        directives_release(&d);
    }
    problem_free(p);
}

static int int_arg(const struct problem *p, const char *src, size_t a, int bytes, bool is_float,
                   char **msg)
{
    struct directives d;
    struct diag_list diags = {0};
    int64_t tv[BW_MAX_TUNE_CONFIGS][BW_MAX_TUNE_PARAMS];
    int rc;

    *msg = NULL;
    if (!parse_ok(src, &d))
        return BW_ERR_INTERNAL;
    size_t n = directives_tune_count(&d);
    for (size_t k = 0; k < n; k++)
        directives_tune_combo(&d, k, tv[k]);
    CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
    rc = plan_check_int_arg(p, &d, PLAN_SUBMISSION, (const int64_t(*)[BW_MAX_TUNE_PARAMS])tv, n, 0,
                            a, bytes, is_float, &diags);
    CHECK_INT_EQ(diags.n, rc == BW_OK ? 0 : 1);
    if (diags.n) {
        *msg = strdup(diags.items[0].msg);
        CHECK_INT_EQ(diags.items[0].line, d.launches[0].args[a].line);
        CHECK_INT_EQ(diags.items[0].column, d.launches[0].args[a].column);
    }
    diag_list_release(&diags);
    directives_release(&d);
    return rc;
}

#define LN_LAUNCH "// @launch k grid=(1) block=(1) args=(X, gamma, beta, Y, mean, rstd, "

TEST(plan_int_arg_must_fit_its_parameter)
{
    struct problem *p = load(LAYERNORM);
    char *msg = NULL;
    if (!p)
        return;
    /* M * N fits an int in every case; M * N * 8 does not for 65536x4096. */
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "M * N)\n", 6, 4, false, &msg), BW_OK);
    free(msg);
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "M * N * 8)\n", 6, 4, false, &msg), BW_ERR_INVALID);
    CHECK_STR_EQ(msg, "argument 7 'M * N * 8' of kernel 'k' is 2147483648 for case 65536x4096: "
                      "more than its 4-byte parameter holds (an int: -2147483648 to 2147483647); "
                      "declare the parameter long long");
    free(msg);
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "M * N * 8)\n", 6, 8, false, &msg), BW_OK);
    free(msg);
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "-M * N * 8)\n", 6, 8, false, &msg), BW_OK);
    free(msg);
    /* -2^31 still fits; one less does not. */
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "-2147483648)\n", 6, 4, false, &msg), BW_OK);
    free(msg);
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "-2147483649)\n", 6, 4, false, &msg), BW_ERR_INVALID);
    CHECK_CONTAINS(msg, "argument 7 '-2147483649' of kernel 'k' is -2147483649 for case ");
    free(msg);
    /* @const and @tune names take the parameter's width too. */
    CHECK_INT_EQ(int_arg(p, "// @const BIG=3000000000\n" LN_LAUNCH "BIG)\n", 6, 4, false, &msg),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(msg, "argument 7 'BIG' of kernel 'k' is 3000000000");
    free(msg);
    CHECK_INT_EQ(int_arg(p, "// @tune T=(1, 64)\n" LN_LAUNCH "M * N * T / 8)\n", 6, 4, false, &msg),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(msg, "is 2147483648 for case 65536x4096 with T=64: more than its 4-byte");
    free(msg);
    /* Names that are not integers of the parameter's width are left to the signature check. */
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "M)\n", 6, 4, false, &msg), BW_OK);
    free(msg);
    /* An integer cannot go to a floating-point or odd-sized parameter. */
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "N / 2)\n", 6, 4, true, &msg), BW_ERR_INVALID);
    CHECK_STR_EQ(msg, "argument 7 'N / 2' of kernel 'k' is an integer, passed as int or long long, "
                      "but the parameter is floating point of 4 bytes");
    free(msg);
    CHECK_INT_EQ(int_arg(p, LN_LAUNCH "2)\n", 6, 2, false, &msg), BW_ERR_INVALID);
    CHECK_CONTAINS(msg, "but the parameter is 2 bytes");
    free(msg);
    problem_free(p);
}

TEST(plan_int_arg_evaluation_error_is_reported)
{
    struct problem *p = load(VECTOR_ADD);
    char *msg = NULL;
    if (!p)
        return;
    CHECK_INT_EQ(int_arg(p, "// @launch k grid=(1) block=(1) args=(x, y, out, 100 / (N - 2))\n", 3,
                         4, false, &msg),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(msg, "line 1: argument 4 (100 / (N - 2)) for case ");
    CHECK_CONTAINS(msg, "division by zero");
    free(msg);
    problem_free(p);
}

/* End to end with NVRTC: the PTX says the parameter is an int, and N * 200
 * overflows it for the benchmark: Compile Error at the argument, before any
 * GPU. With long long it compiles (and, without a GPU, waits for one). */
static bool judge_source(const char *src, struct judge_result *res)
{
    char *compile = realpath("build/bin/blockwise-compile", NULL);
    char *runner = realpath("build/bin/blockwise-runner", NULL);
    struct judge_config jc = {0};
    struct judge_options opts = {.tests_only = true, .seed = 1};
    struct problem *p = NULL;
    char *cause = NULL;
    bool ok = false;

    memset(res, 0, sizeof(*res));
    if (compile && runner) {
        setenv("BLOCKWISE_COMPILE", compile, 1);
        setenv("BLOCKWISE_RUNNER", runner, 1);
    }
    free(compile);
    free(runner);
    p = load(VECTOR_ADD);
    if (p && judge_probe_gpu(&jc, false, &cause) == BW_OK)
        ok = judge_submission(&jc, p, src, strlen(src), &opts, res, &cause) == BW_OK;
    CHECK_MSG(ok, "judge: %s", cause ? cause : "?");
    free(cause);
    judge_config_release(&jc);
    problem_free(p);
    return ok;
}

TEST(plan_int_arg_overflow_is_a_compile_error)
{
    const char *overflow = "// @launch vector_add grid=(cdiv(N, 256)) block=(256) "
                           "args=(x, y, out, N * 200)\n"
                           "extern \"C\" __global__ void vector_add(const float* x, const float* "
                           "y, float* out, int n) {}\n";
    const char *fits = "// @launch vector_add grid=(cdiv(N, 256)) block=(256) "
                       "args=(x, y, out, N * 200)\n"
                       "extern \"C\" __global__ void vector_add(const float* x, const float* "
                       "y, float* out, long long n) {}\n";
    struct judge_result res;

    if (access("build/bin/blockwise-compile", X_OK) != 0 ||
        access("build/bin/blockwise-runner", X_OK) != 0)
        SKIP("needs build/bin/blockwise-compile and blockwise-runner (make all)");
    if (judge_source(overflow, &res)) {
        CHECK_INT_EQ(res.verdict, VERDICT_COMPILE_ERROR);
        CHECK_MSG(res.diags.n >= 1, "no diagnostics: %s", res.message ? res.message : "");
        if (res.diags.n >= 1) {
            const struct diag *g = &res.diags.items[res.diags.n - 1];
            CHECK_INT_EQ(g->line, 1);
            CHECK_INT_EQ(g->column, 72);
            CHECK_STR_EQ(g->msg, "argument 4 'N * 200' of kernel 'vector_add' is 3355443200 for "
                                 "case 2^24: more than its 4-byte parameter holds (an int: "
                                 "-2147483648 to 2147483647); declare the parameter long long");
        }
    }
    judge_result_release(&res);
    if (judge_source(fits, &res))
        CHECK_MSG(res.verdict != VERDICT_COMPILE_ERROR, "CE: %s", res.message ? res.message : "");
    judge_result_release(&res);
}

/* ---- Triton launches ------------------------------------------------------------ */

static bool parse_triton_ok(const char *src, struct directives *d)
{
    struct diag_list l = {0};
    int rc = directives_parse_as(LANG_TRITON, src, strlen(src), d, &l);
    CHECK_MSG(rc == BW_OK, "%s: %s", src, l.n ? l.items[0].msg : "?");
    diag_list_release(&l);
    return rc == BW_OK;
}

TEST(plan_triton_launch_has_block_from_warps_and_constexprs)
{
    const char *src = "# @tune BLOCK=(256, 1024)\n# @const NW=8\n"
                      "# @launch add grid=(cdiv(N, BLOCK)) num_warps=NW "
                      "args=(x, y, out, N, BLOCK=BLOCK, ROW=next_pow2(N), EVEN=N % 16 == 0)\n";
    const char *plain = "# @launch add grid=(1) args=(x, y, out, N, BLOCK=1024)\n";
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    int64_t tv[BW_MAX_TUNE_PARAMS] = {1024};
    struct plan *pl = calloc(1, sizeof(*pl));
    char *cause = NULL;

    if (!p || !pl) {
        problem_free(p);
        free(pl);
        return;
    }
    /* EVEN=N % 16 == 0: a comparison is 1 or 0 */
    if (parse_triton_ok(src, &d)) {
        const struct problem_case *c = &p->tests[2]; /* N = 127 */
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
        CHECK_INT_EQ(plan_build(p, &d, tv, c, PLAN_SUBMISSION, pl, &cause), BW_OK);
        CHECK_INT_EQ(pl->launches[0].num_warps, 8);
        CHECK_INT_EQ(pl->launches[0].num_stages, 3);
        CHECK_INT_EQ(pl->launches[0].block[0], 256);
        CHECK_INT_EQ(pl->launches[0].grid[0], 1);
        CHECK_INT_EQ(pl->launches[0].n_args, 4); /* the positional ones */
        CHECK_INT_EQ(pl->launches[0].n_constexprs, 3);
        CHECK_STR_EQ(pl->launches[0].constexprs[0].name, "BLOCK");
        CHECK_INT_EQ(pl->launches[0].constexprs[0].value, 1024);
        CHECK_STR_EQ(pl->launches[0].constexprs[1].name, "ROW");
        CHECK_INT_EQ(pl->launches[0].constexprs[1].value, 128);
        CHECK_STR_EQ(pl->launches[0].constexprs[2].name, "EVEN");
        CHECK_INT_EQ(pl->launches[0].constexprs[2].value, 0);
        directives_release(&d);
    }
    if (parse_triton_ok(plain, &d)) {
        CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause), BW_OK);
        CHECK_INT_EQ(pl->launches[0].num_warps, 4); /* Triton's defaults */
        CHECK_INT_EQ(pl->launches[0].block[0], 128);
        directives_release(&d);
    }
    diag_list_release(&diags);
    free(cause);
    free(pl);
    problem_free(p);
}

TEST(plan_triton_refuses_what_cannot_be_compiled_once)
{
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    struct plan *pl = calloc(1, sizeof(*pl));
    char *cause = NULL;

    if (!p || !pl) {
        problem_free(p);
        free(pl);
        return;
    }
    if (parse_triton_ok("# @launch add grid=(1) num_warps=max(4, N) args=(x, y, out, N)\n", &d)) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
        CHECK(diags.n == 1 && strstr(diags.items[0].msg, "'N' cannot be used in num_warps=: it "
                                                         "changes the compiled kernel"));
        directives_release(&d);
    }
    diag_list_release(&diags);
    memset(&diags, 0, sizeof(diags));
    if (parse_triton_ok("# @launch add grid=(1) args=(x, y, out, N, BLOCK=x)\n", &d)) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
        CHECK(diags.n == 1 &&
              strstr(diags.items[0].msg, "BLOCK=x: a tl.constexpr value is an "
                                         "integer") &&
              strstr(diags.items[0].msg, "'x' is a buffer"));
        directives_release(&d);
    }
    if (parse_triton_ok("# @const NW=3\n# @launch add grid=(1) num_warps=NW args=(x, y, out, N)\n",
                        &d)) {
        CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause),
                     BW_ERR_INVALID);
        CHECK_CONTAINS(cause, "num_warps = 3: Triton takes 1, 2, 4, 8, 16 or 32 warps");
        directives_release(&d);
    }
    diag_list_release(&diags);
    free(cause);
    free(pl);
    problem_free(p);
}

/* The "maxnreg" of launch 0 of pl's JSON: its value, 0 when absent, -1 when not an integer. */
static long long json_maxnreg(const struct plan *pl)
{
    json_t *j = plan_json(pl, LANG_TRITON);
    json_t *v = json_object_get(json_array_get(json_object_get(j, "launches"), 0), "maxnreg");
    long long n = !v ? 0 : json_is_integer(v) ? (long long)json_integer_value(v) : -1;

    json_decref(j);
    return n;
}

TEST(plan_triton_maxnreg)
{
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    int64_t tv[BW_MAX_TUNE_PARAMS] = {232};
    struct plan *pl = calloc(1, sizeof(*pl));
    char *cause = NULL;

    if (!p || !pl) {
        problem_free(p);
        free(pl);
        return;
    }
    if (parse_triton_ok("# @tune R=(168, 232)\n"
                        "# @launch add grid=(1) maxnreg=R args=(x, y, out, N)\n",
                        &d)) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
        CHECK_INT_EQ(plan_build(p, &d, tv, &p->tests[0], PLAN_SUBMISSION, pl, &cause), BW_OK);
        CHECK_INT_EQ(pl->launches[0].maxnreg, 232);
        CHECK_INT_EQ(json_maxnreg(pl), 232);
        directives_release(&d);
    }
    if (parse_triton_ok("# @launch add grid=(1) args=(x, y, out, N)\n", &d)) {
        CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause), BW_OK);
        CHECK_INT_EQ(pl->launches[0].maxnreg, 0); /* Triton's default: no cap */
        CHECK_INT_EQ(json_maxnreg(pl), 0);        /* and none in the JSON */
        directives_release(&d);
    }
    /* a size changes per case: maxnreg may not use one */
    if (parse_triton_ok("# @launch add grid=(1) maxnreg=min(N, 128) args=(x, y, out, N)\n", &d)) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
        CHECK(diags.n == 1 && strstr(diags.items[0].msg, "'N' cannot be used in maxnreg=: it "
                                                         "changes the compiled kernel"));
        CHECK(diags.n == 1 && diags.items[0].line == 1 && diags.items[0].column == 24);
        directives_release(&d);
    }
    diag_list_release(&diags);
    if (parse_triton_ok("# @const R=7\n# @launch add grid=(1) maxnreg=R args=(x, y, out, N)\n",
                        &d)) {
        CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause),
                     BW_ERR_INVALID);
        CHECK_CONTAINS(cause, "line 2: maxnreg = 7: Triton's maxnreg is 24 to 255 registers per "
                              "thread");
        directives_release(&d);
    }
    if (parse_triton_ok("# @launch add grid=(1) maxnreg=256 args=(x, y, out, N)\n", &d)) {
        CHECK_INT_EQ(plan_build(p, &d, NULL, &p->tests[0], PLAN_SUBMISSION, pl, &cause),
                     BW_ERR_INVALID);
        CHECK_CONTAINS(cause, "maxnreg = 256: Triton's maxnreg is 24 to 255");
        directives_release(&d);
    }
    free(cause);
    free(pl);
    problem_free(p);
}

/* ---- @let: named per-case values ------------------------------------------------------ */

/* The plan of `src` for case c, or NULL with *cause. */
static struct plan *plan_of(const struct problem *p, const struct directives *d, const int64_t *tv,
                            const struct problem_case *c, char **cause)
{
    struct plan *pl = calloc(1, sizeof(*pl));

    if (pl && plan_build(p, d, tv, c, PLAN_SUBMISSION, pl, cause) != BW_OK) {
        free(pl);
        return NULL;
    }
    return pl;
}

TEST(plan_let_is_evaluated_per_case_in_file_order)
{
    const char *src = "// @const BLOCK=256\n"
                      "// @let HALF = N / 2\n"
                      "// @let REST = N - HALF\n"
                      "// @let G = max(1, cdiv(REST, BLOCK))\n"
                      "// @let ODD = N % 2 == 1 ? 1 : 0\n"
                      "// @scratch s int32[G + ODD]\n"
                      "// @launch k grid=(G) block=(BLOCK) args=(x, y, out, HALF, REST, ODD)\n";
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};

    if (!p || !parse_ok(src, &d)) {
        problem_free(p);
        return;
    }
    CHECK_INT_EQ(d.n_lets, 4);
    CHECK_STR_EQ(d.lets[1].name, "REST");
    CHECK(d.lets[1].line == 3 && d.lets[1].column == 9);
    CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct problem_case *c = &p->tests[i];
        int64_t n = c->sizes[0], rest = n - n / 2, g = (rest + 255) / 256;
        char *cause = NULL;
        struct plan *pl = plan_of(p, &d, NULL, c, &cause);

        CHECK_MSG(pl != NULL, "case %s: %s", c->name, cause ? cause : "?");
        free(cause);
        if (!pl)
            continue;
        CHECK_INT_EQ(pl->launches[0].grid[0], g < 1 ? 1 : g);
        CHECK(pl->launches[0].args[3].kind == PLAN_ARG_INT);
        CHECK_STR_EQ(pl->launches[0].args[3].name, "HALF");
        CHECK_INT_EQ(pl->launches[0].args[3].i, n / 2);
        CHECK_INT_EQ(pl->launches[0].args[4].i, rest);
        CHECK_INT_EQ(pl->launches[0].args[5].i, n % 2);
        CHECK_INT_EQ(pl->buffers[3].count, (g < 1 ? 1 : g) + n % 2);
        free(pl);
    }
    directives_release(&d);
    problem_free(p);
}

/* A case for which a @let fails or gives an impossible launch names the @let. */
TEST(plan_let_errors_name_the_binding)
{
    static const struct {
        const char *src, *msg;
    } cases[] = {
        {"// @let G = N / 2\n// @launch k grid=(G) block=(1) args=(x, y, out, N)\n",
         "line 1: G = N / 2 is 0 for case N=1, and grid.x on line 2 must be 1..2147483647"},
        {"// @let G = N / 2\n// @launch k grid=(1) block=(G) args=(x, y, out, N)\n",
         "line 1: G = N / 2 is 0 for case N=1, and block.x on line 2 must be 1..1024"},
        {"// @let G = N / 2\n// @launch k grid=(G * 3 - 1) block=(1) args=(x, y, out, N)\n",
         "line 2: grid.x = G * 3 - 1 is -1 for case N=1 (allowed 1..2147483647), with G = 0 (line "
         "1)"},
        {"// @let P = N - 1\n// @let Q = 100 / P\n// @launch k grid=(Q) block=(1) args=(x, y, "
         "out, N)\n",
         "line 2: Q = 100 / P fails for case N=1: column 5: division by zero, with P = 0 (line 1)"},
        {"// @let P = N - 1\n// @launch k grid=(1) block=(1) args=(x, y, out, 7 % P)\n",
         "line 2: argument 4 (7 % P) for case N=1: column 3: modulo by zero, with P = 0 (line 1)"},
        {"// @let P = N - 1\n// @scratch s fp32[P]\n// @launch k grid=(1) block=(1) args=(x, y, "
         "out, N)\n",
         "line 1: P = N - 1 is 0 for case N=1, and @scratch size on line 2 must be "
         "1..9223372036854775807"},
        {"// @let P = N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1\n"
         "// @launch k grid=(P) block=(1) args=(x, y, out, N)\n",
         "line 1: P = N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N - 1 + N... is 0 for "
         "case N=1, and grid.x on line 2 must be 1..2147483647"},
        {"// @let Q = N > 1 ? 100 / (N - 1) : 0\n// @launch k grid=(Q + 1) block=(1) args=(x, "
         "y, out, N)\n",
         NULL}, /* lazy: the branch not taken is not evaluated */
    };
    struct problem *p = load(VECTOR_ADD);

    if (!p)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct directives d;
        struct diag_list diags = {0};
        char *cause = NULL;
        struct plan *pl;

        if (!parse_ok(cases[i].src, &d))
            continue;
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
        pl = plan_of(p, &d, NULL, &p->tests[0], &cause); /* N = 1 */
        if (cases[i].msg) {
            CHECK_MSG(pl == NULL, "%s: planned", cases[i].src);
            CHECK_STR_EQ(cause ? cause : "", cases[i].msg);
        } else {
            CHECK_MSG(pl != NULL, "%s: %s", cases[i].src, cause ? cause : "?");
        }
        free(pl);
        free(cause);
        diag_list_release(&diags);
        directives_release(&d);
    }
    problem_free(p);
}

/* What plan_check refuses in a @let, and where a @let's name may go. */
TEST(plan_let_names_are_checked)
{
    static const struct {
        const char *src, *msg;
        int line, column;
    } cases[] = {
        {"// @let N = 2\n// @launch k grid=(1) block=(1) args=(x, y, out, N)\n",
         "@let name 'N' is already a name of the problem", 1, 9},
        {"// @let Q = x + 1\n// @launch k grid=(1) block=(1) args=(x, y, out, N)\n",
         "'x' cannot be used in @let Q: expressions may use sizes, @const, @tune and @let names", 1,
         9},
        {"// @let Q = M\n// @launch k grid=(1) block=(1) args=(x, y, out, N)\n",
         "unknown name 'M' in @let Q", 1, 9},
        {"// @let Q = N\n// @launch k grid=(1) block=(1) args=(x, y, out, N, BLOCK=Q)\n",
         "keyword argument", 2, 53}, /* CUDA: a parse error, not plan_check's */
    };
    struct problem *p = load(VECTOR_ADD);

    if (!p)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct directives d;
        struct diag_list diags = {0};
        const char *src = cases[i].src;

        if (directives_parse(src, strlen(src), &d, &diags) == BW_OK) {
            CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
            directives_release(&d);
        }
        CHECK_MSG(diags.n >= 1, "%s: no diagnostic", src);
        if (diags.n >= 1) {
            CHECK_CONTAINS(diags.items[0].msg, cases[i].msg);
            CHECK_MSG(diags.items[0].line == cases[i].line &&
                          diags.items[0].column == cases[i].column,
                      "%s: at %d:%d", src, diags.items[0].line, diags.items[0].column);
        }
        diag_list_release(&diags);
    }
    problem_free(p);
}

/* Triton: a @let that depends on no size may set num_warps=; one that does
 * may not; any @let may be a constexpr value. */
TEST(plan_let_in_triton_options)
{
    const char *ok = "# @tune W=(2, 4)\n# @let NW = W * 2\n# @let B = next_pow2(N)\n"
                     "# @launch add grid=(1) num_warps=NW num_stages=(NW - 1) "
                     "args=(x, y, out, N, BLOCK=B)\n";
    const char *bad = "# @let NW = N / 64 + 1\n"
                      "# @launch add grid=(1) num_warps=NW args=(x, y, out, N)\n";
    struct problem *p = load(VECTOR_ADD);
    struct directives d;
    struct diag_list diags = {0};
    int64_t tv[BW_MAX_TUNE_PARAMS] = {4};

    if (!p)
        return;
    if (directives_parse_as(LANG_TRITON, ok, strlen(ok), &d, &diags) == BW_OK) {
        char *cause = NULL;
        struct plan *pl;
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_OK);
        pl = plan_of(p, &d, tv, &p->tests[2], &cause); /* N = 127 */
        CHECK_MSG(pl != NULL, "%s", cause ? cause : "?");
        if (pl) {
            CHECK_INT_EQ(pl->launches[0].num_warps, 8);
            CHECK_INT_EQ(pl->launches[0].num_stages, 7);
            CHECK_INT_EQ(pl->launches[0].n_constexprs, 1);
            CHECK_INT_EQ(pl->launches[0].constexprs[0].value, 128);
        }
        free(pl);
        free(cause);
        directives_release(&d);
    }
    CHECK_MSG(diags.n == 0, "%s", diags.n ? diags.items[0].msg : "");
    diag_list_release(&diags);
    if (directives_parse_as(LANG_TRITON, bad, strlen(bad), &d, &diags) == BW_OK) {
        CHECK_INT_EQ(plan_check(p, &d, PLAN_SUBMISSION, &diags), BW_ERR_INVALID);
        CHECK(diags.n == 1 && diags.items[0].line == 2 && diags.items[0].column == 24);
        if (diags.n == 1)
            CHECK_CONTAINS(diags.items[0].msg, "'NW' cannot be used in num_warps=: the @let on "
                                               "line 1 depends on the sizes of a case");
        directives_release(&d);
    }
    diag_list_release(&diags);
    problem_free(p);
}

/* A @let passed alone takes the parameter's width, and says what it is when
 * it does not fit. */
TEST(plan_let_int_arg_names_the_let)
{
    struct problem *p = load(LAYERNORM);
    char *msg = NULL;

    if (!p)
        return;
    CHECK_INT_EQ(int_arg(p, "// @let MN8 = M * N * 8\n" LN_LAUNCH "MN8)\n", 6, 4, false, &msg),
                 BW_ERR_INVALID);
    CHECK_STR_EQ(msg, "argument 7 'MN8' (the @let on line 1: MN8 = M * N * 8) of kernel 'k' is "
                      "2147483648 for case 65536x4096: more than its 4-byte parameter holds (an "
                      "int: -2147483648 to 2147483647); declare the parameter long long");
    free(msg);
    CHECK_INT_EQ(int_arg(p, "// @let MN = M * N\n" LN_LAUNCH "MN)\n", 6, 4, false, &msg), BW_OK);
    free(msg);
    problem_free(p);
}
