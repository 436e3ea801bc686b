/* Tests of plan/triton_variant (no Python needed): the variants a Triton
 * source's cases need per @tune configuration, a benchmark shape's as
 * Triton's JIT would specialise them, a test case's typed only but for the
 * integers that are 1 in every test case of its build. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "plan/plan.h"
#include "plan/triton_variant.h"
#include "plan/tune.h"
#include "problem/problem.h"
#include "common/banned.h"

/* Sizes of the fixture's cases: N = 1, 2, 127, 128, 129, 100003 and 2^24. */
#define FIXTURE "tests/fixtures/problems/vector-add"

/* A Triton source parsed and checked against p, with its @tune configurations. */
struct source {
    struct directives dirs;
    int64_t (*tune_values)[BW_MAX_TUNE_PARAMS];
    size_t n_configs;
};

static int parse(struct source *s, const struct problem *p, const char *src)
{
    struct diag_list diags = {0};
    int rc;

    memset(s, 0, sizeof(*s));
    rc = directives_parse_as(LANG_TRITON, src, strlen(src), &s->dirs, &diags);
    if (rc == BW_OK)
        rc = plan_check(p, &s->dirs, PLAN_SUBMISSION, &diags);
    if (rc == BW_OK && !(s->tune_values = directives_tune_table(&s->dirs, &s->n_configs)))
        rc = BW_ERR_NOMEM;
    diag_list_release(&diags);
    return rc;
}

static void source_release(struct source *s)
{
    free(s->tune_values);
    directives_release(&s->dirs);
}

/* The build that case c's first launch runs on in configuration 0 of tv (c's plan in *pl), or
 * -2 when c cannot be planned. */
static int build_of(const struct problem *p, const struct source *s, const struct problem_case *c,
                    const struct triton_variants *tv, struct plan *pl)
{
    char *cause = NULL;
    int rc = plan_build(p, &s->dirs, NULL, c, PLAN_SUBMISSION, pl, &cause);

    CHECK_MSG(rc == BW_OK, "plan_build: %s", cause ? cause : bw_strerror(rc));
    free(cause);
    return rc == BW_OK ? triton_variants_find(tv, 0, pl, 0) : -2;
}

TEST(triton_variants_specialise_the_benchmark_shapes_integers_only)
{
    static const char tuned_add[] =
        "# @tune BLOCK=(128, 256)\n"
        "# @launch add grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, y, out, N, BLOCK=BLOCK)\n"
        "import triton\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct source s;
    struct triton_variants tv;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&s, p, tuned_add), BW_OK);
    CHECK_INT_EQ(s.n_configs, 2);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, s.tune_values, s.n_configs, true, &cause),
                 BW_OK);
    /* Per configuration: one build for every test (N = 1, 2, 127, 128, 129, 100003 typed i32,
     * not specialised), one for the benchmark (N = 2^24, divisible by 16, as at home). */
    CHECK_INT_EQ(tv.n_configs, 2);
    CHECK_INT_EQ(tv.configs[0].n_variants, 2);
    CHECK_INT_EQ(tv.configs[1].n_variants, 2);
    CHECK_INT_EQ(tv.configs[1].first, 2);
    CHECK_INT_EQ(tv.n_builds, 4);
    const struct triton_variant *v = &tv.configs[0].variants[0]; /* the tests' */
    CHECK_INT_EQ(v->n_args, 4);
    CHECK_STR_EQ(v->args[0].type, "*fp32");
    CHECK(v->args[0].div16 && !v->args[0].equal1); /* pointers keep their alignment */
    CHECK_STR_EQ(v->args[3].type, "i32");
    CHECK(!v->args[3].equal1 && !v->args[3].div16);
    CHECK(v->args[3].type == v->types[3]); /* points into its own storage, not a copy's */
    CHECK_INT_EQ(v->n_constexprs, 1);
    CHECK_STR_EQ(v->constexprs[0].name, "BLOCK");
    CHECK_INT_EQ(v->constexprs[0].value, 128);
    CHECK_INT_EQ(v->num_warps, 4);
    CHECK_INT_EQ(tv.configs[1].variants[0].constexprs[0].value, 256);
    CHECK(tv.configs[0].variants[1].args[3].div16); /* N = 2^24 */
    triton_variants_release(&tv);

    /* A Run's builds: the tests' only. */
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, s.tune_values, s.n_configs, false, &cause),
                 BW_OK);
    CHECK_INT_EQ(tv.n_builds, 2);
    CHECK_INT_EQ(tv.configs[0].n_variants, 1);
    CHECK(!tv.configs[0].variants[0].args[3].div16);
    triton_variants_release(&tv);
    source_release(&s);
    problem_free(p);
    free(cause);
}

TEST(triton_variant_a_case_selects)
{
    static const char add[] =
        "# @launch add grid=(cdiv(N, 128)) num_warps=4 args=(x, y, out, N, BLOCK=128)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct source s;
    struct triton_variants tv;
    struct triton_variant a, b;
    struct plan pl;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&s, p, add), BW_OK);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, NULL, 1, true, &cause), BW_OK);
    CHECK_INT_EQ(tv.n_builds, 2);
    /* Every test case is the one variant: N = 1, 2 and 128 alike */
    CHECK_INT_EQ(plan_build(p, &s.dirs, NULL, &p->tests[0], PLAN_SUBMISSION, &pl, &cause), BW_OK);
    CHECK(!pl.benchmark);
    triton_variant_of(&pl, 0, &a);
    CHECK_INT_EQ(triton_variants_find(&tv, 0, &pl, 0), 0);
    CHECK_INT_EQ(plan_build(p, &s.dirs, NULL, &p->tests[1], PLAN_SUBMISSION, &pl, &cause), BW_OK);
    triton_variant_of(&pl, 0, &b);
    CHECK(triton_variant_same(&a, &b));
    CHECK_INT_EQ(plan_build(p, &s.dirs, NULL, &p->tests[3], PLAN_SUBMISSION, &pl, &cause), BW_OK);
    triton_variant_of(&pl, 0, &b);
    CHECK(triton_variant_same(&a, &b));
    CHECK_INT_EQ(triton_variants_find(&tv, 0, &pl, 0), 0);
    /* the benchmark shape its own, specialised as Triton's launcher would */
    CHECK_INT_EQ(plan_build(p, &s.dirs, NULL, &p->benchmarks[0], PLAN_SUBMISSION, &pl, &cause),
                 BW_OK);
    CHECK(pl.benchmark);
    triton_variant_of(&pl, 0, &b);
    CHECK(!triton_variant_same(&a, &b));
    CHECK(b.args[3].div16 && !b.args[3].equal1);
    CHECK_INT_EQ(triton_variants_find(&tv, 0, &pl, 0), 1);
    pl.launches[0].args[3].i = 1; /* a benchmark shape's 1 is folded, a test's is not */
    triton_variant_of(&pl, 0, &b);
    CHECK(b.args[3].equal1 && !b.args[3].div16);
    pl.launches[0].args[3].i = (int64_t)1 << 32; /* the type follows the value in either */
    triton_variant_of(&pl, 0, &b);
    CHECK_STR_EQ(b.args[3].type, "i64");
    pl.benchmark = false;
    triton_variant_of(&pl, 0, &b);
    CHECK_STR_EQ(b.args[3].type, "i64");
    CHECK(!b.args[3].div16 && !b.args[3].equal1);
    /* a plan the cases never make has no variant */
    pl.launches[0].args[3].i = 7;
    pl.launches[0].num_warps = 8;
    CHECK_INT_EQ(triton_variants_find(&tv, 0, &pl, 0), -1);
    triton_variants_release(&tv);
    source_release(&s);
    problem_free(p);
    free(cause);
}

TEST(triton_test_builds_fold_what_every_test_case_passes_as_1)
{
    /* The fifth argument is 1 in every case (a unit stride, say, which a tensor descriptor
     * needs as the constant); N is 1 in the first test only. */
    static const char strided[] =
        "# @launch add grid=(cdiv(N, 128)) num_warps=4 args=(x, y, out, N, 1, BLOCK=128)\n";
    static const char ones[] =
        "# @launch add grid=(cdiv(N, 128)) num_warps=4 args=(x, y, out, 1, 1, BLOCK=128)\n";
    char *cause = NULL, key[512];
    struct problem *p = problem_load(FIXTURE, &cause);
    struct source s;
    struct triton_variants tv;
    struct plan pl;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&s, p, strided), BW_OK);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, NULL, 1, true, &cause), BW_OK);
    CHECK_INT_EQ(tv.n_builds, 2); /* the fold adds no build: one for the tests, one benchmark */
    const struct triton_variant *t = &tv.configs[0].variants[0];
    CHECK(t->tests);
    CHECK(t->args[4].equal1);                       /* 1 in every test case: folded, as at home */
    CHECK(!t->args[3].equal1 && !t->args[3].div16); /* N = 1 in one test only: a value */
    CHECK(triton_variant_key(t, key, sizeof(key)));
    CHECK_STR_EQ(key, "add(*fp32:D,*fp32:D,*fp32:D,i32:-,i32:1)[BLOCK=128]{4,3,0}");
    for (size_t i = 0; i < p->n_tests; i++) /* every test case runs on it, N = 1's too */
        CHECK_INT_EQ(build_of(p, &s, &p->tests[i], &tv, &pl), 0);
    /* A case passing anything but 1 where the build folds 1 is never served by it. */
    pl.launches[0].args[4].i = 2;
    CHECK_INT_EQ(triton_variants_find(&tv, 0, &pl, 0), -1);
    CHECK_INT_EQ(build_of(p, &s, &p->benchmarks[0], &tv, &pl), 1);
    CHECK(tv.configs[0].variants[1].args[4].equal1 && tv.configs[0].variants[1].args[3].div16);
    triton_variants_release(&tv);
    source_release(&s);

    /* Integers 1 everywhere: the benchmark's build is the tests' build (the same key). */
    CHECK_INT_EQ(parse(&s, p, ones), BW_OK);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, NULL, 1, true, &cause), BW_OK);
    CHECK_INT_EQ(tv.n_builds, 1);
    CHECK(tv.configs[0].variants[0].args[3].equal1 && tv.configs[0].variants[0].args[4].equal1);
    CHECK_INT_EQ(build_of(p, &s, &p->benchmarks[0], &tv, &pl), 0);
    CHECK_INT_EQ(build_of(p, &s, &p->tests[2], &tv, &pl), 0);
    triton_variants_release(&tv);
    source_release(&s);
    problem_free(p);
    free(cause);
}

TEST(triton_maxnreg_is_part_of_each_variant)
{
    static const char capped[] =
        "# @tune R=(168, 232)\n"
        "# @launch add grid=(cdiv(N, 128)) num_warps=4 maxnreg=R args=(x, y, out, N, BLOCK=128)\n";
    char *cause = NULL;
    struct problem *p = problem_load(FIXTURE, &cause);
    struct source s;
    struct triton_variants tv;

    if (!p)
        SKIP("fixture does not load");
    CHECK_INT_EQ(parse(&s, p, capped), BW_OK);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, s.tune_values, s.n_configs, true, &cause),
                 BW_OK);
    CHECK_INT_EQ(tv.n_builds, 4); /* two caps x (the tests', the benchmark's) */
    for (size_t i = 0; i < tv.configs[0].n_variants; i++)
        CHECK_INT_EQ(tv.configs[0].variants[i].maxnreg, 168);
    for (size_t i = 0; i < tv.configs[1].n_variants; i++)
        CHECK_INT_EQ(tv.configs[1].variants[i].maxnreg, 232);
    triton_variants_release(&tv);
    source_release(&s);
    problem_free(p);
    free(cause);
}

TEST(triton_too_many_builds_of_one_configuration_is_said_at_the_launch)
{
    /* A constexpr that follows every size: over vector-add's cases, three launches give more
     * than BW_TRITON_MAX_VARIANTS distinct builds. */
    static const char every_size[] =
        "# @launch add grid=(1) num_warps=4 args=(A, B, C, N, NP=N)\n"
        "# @launch add grid=(1) num_warps=4 args=(A, B, C, N, NP=N + 1000001)\n"
        "# @launch add grid=(1) num_warps=4 args=(A, B, C, N, NP=N + 2000003)\n";
    char *cause = NULL;
    struct problem *p = problem_load("problems/vector-add", &cause);
    struct source s;
    struct triton_variants tv;

    if (!p)
        SKIP("problems/vector-add does not load");
    CHECK_INT_EQ(parse(&s, p, every_size), BW_OK);
    CHECK_INT_EQ(triton_variants_plan(&tv, p, &s.dirs, NULL, 1, true, &cause), BW_ERR_LIMIT);
    CHECK(cause != NULL);
    if (cause) {
        CHECK_CONTAINS(cause, "kernel add needs more than 64 builds");
        CHECK(strncmp(cause, "line ", 5) == 0);
        CHECK_CONTAINS(cause, "BW_TRITON_MAX_VARIANTS");
    }
    triton_variants_release(&tv);
    source_release(&s);
    problem_free(p);
    free(cause);
}
