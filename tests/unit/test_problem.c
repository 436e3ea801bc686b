/*
 * Tests of the problem loader (problem/, its files listed in problem/load.h).
 *
 * Golden directories live in tests/golden/problems/: every ok-* must load,
 * every bad-* must be rejected with a message containing its expected-error
 * file's text. The loader checks problem.json completely before it looks at
 * the other files, so a bad directory about a JSON mistake holds only
 * problem.json and expected-error. The per-case helpers are tested on the ok
 * fixtures; the fuzz corpus (tests/fuzz/corpus/problem/) is replayed here.
 */
#include "tests/test.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dtype.h"
#include "common/error.h"
#include "common/gen.h"
#include "common/util.h"
#include "problem/problem.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_problem.c"
#include "common/banned.h"

#define GOLDEN "tests/golden/problems"
#define CORPUS "tests/fuzz/corpus/problem"

/* Sorted entries of dir whose names start with prefix; *new* array of *new* strings. */
static size_t list_dir(const char *dir, const char *prefix, char ***out)
{
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    size_t k = 0;

    *out = NULL;
    if (n < 0)
        return 0;
    *out = calloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.' && strncmp(ents[i]->d_name, prefix, strlen(prefix)) == 0 &&
            *out)
            (*out)[k++] = strdup(ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    return k;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static struct problem *load_ok(const char *name)
{
    char dir[256], *cause = NULL;
    struct problem *p;

    snprintf(dir, sizeof(dir), GOLDEN "/%s", name);
    p = problem_load(dir, &cause);
    CHECK_MSG(p != NULL, "%s: %s", dir, cause ? cause : "(no cause)");
    free(cause);
    return p;
}

static int case_index(const struct problem_case *cases, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cases[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void write_text(const char *dir, const char *name, const char *text, size_t len)
{
    char *path = path_join(dir, name);
    FILE *f = fopen(path, "wb");

    CHECK(f != NULL);
    if (f) {
        CHECK_INT_EQ(fwrite(text, 1, len, f), len);
        fclose(f);
    }
    free(path);
}

static const char *const dummy_files[] = {"statement.md", "starter.cu",    "reference.cu",
                                          "solution.cu",  "wrong/noop.cu", "wrong/tail.cu",
                                          "problem.json"};

/* A directory <tmp>/<name> with the standard files and wrong/noop.cu, as
 * tests/fuzz/fuzz_problem.c builds it, and wrong/tail.cu if `tail`; *new*
 * paths of the temp root and the problem directory. */
static void make_problem_dir(const char *name, bool tail, char **root, char **dir)
{
    char tmpl[] = "/tmp/bw-test-problem.XXXXXX";

    *root = strdup(mkdtemp(tmpl));
    *dir = path_join(*root, name);
    mkdir(*dir, 0755);
    char *wrong = path_join(*dir, "wrong");
    mkdir(wrong, 0755);
    free(wrong);
    for (size_t i = 0; i + 1 < sizeof(dummy_files) / sizeof(dummy_files[0]); i++)
        if (tail || strcmp(dummy_files[i], "wrong/tail.cu") != 0)
            write_text(*dir, dummy_files[i], "// dummy\n", 9);
}

static void remove_problem_dir(char *root, char *dir)
{
    for (size_t i = 0; i < sizeof(dummy_files) / sizeof(dummy_files[0]); i++) {
        char *p = path_join(dir, dummy_files[i]);
        unlink(p);
        free(p);
    }
    char *wrong = path_join(dir, "wrong");
    rmdir(wrong);
    free(wrong);
    rmdir(dir);
    rmdir(root);
    free(dir);
    free(root);
}

TEST(golden_ok_problems_load)
{
    char **names;
    size_t n = list_dir(GOLDEN, "ok-", &names);

    CHECK(n >= 2);
    for (size_t i = 0; i < n; i++)
        problem_free(load_ok(names[i]));
    free_list(names, n);
}

TEST(golden_bad_problems_fail_as_expected)
{
    char **names;
    size_t n = list_dir(GOLDEN, "bad-", &names);

    CHECK(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char dir[256], expected_path[300], *expected = NULL, *cause = NULL;
        size_t len = 0;
        struct problem *p;

        snprintf(dir, sizeof(dir), GOLDEN "/%s", names[i]);
        snprintf(expected_path, sizeof(expected_path), "%s/expected-error", dir);
        if (read_file(expected_path, 4096, &expected, &len, NULL) != BW_OK) {
            CHECK_MSG(0, "%s: no expected-error file", dir);
            continue;
        }
        while (len && (expected[len - 1] == '\n' || expected[len - 1] == '\r'))
            expected[--len] = '\0';
        CHECK_MSG(len > 0, "%s: empty expected-error", dir);
        p = problem_load(dir, &cause);
        CHECK_MSG(p == NULL, "%s: loaded but should fail with \"%s\"", dir, expected);
        if (!p) {
            CHECK_MSG(cause && strstr(cause, expected), "%s:\n  expected \"%s\"\n  got      \"%s\"",
                      dir, expected, cause ? cause : "(null)");
            CHECK_MSG(cause && strncmp(cause, dir, strlen(dir)) == 0,
                      "%s: message does not start with the directory: %s", dir,
                      cause ? cause : "(null)");
        }
        problem_free(p);
        free(cause);
        free(expected);
    }
    free_list(names, n);
}

TEST(vector_add_fields)
{
    struct problem *p = load_ok("ok-vector-add");

    if (!p)
        return;
    CHECK_STR_EQ(p->id, "ok-vector-add");
    CHECK_STR_EQ(p->title, "Vector Addition");
    CHECK_INT_EQ(p->number, 1);
    CHECK_INT_EQ(p->step, 1);
    CHECK_INT_EQ(p->n_sizes, 1);
    CHECK_STR_EQ(p->size_names[0], "N");
    CHECK_INT_EQ(p->n_scalars, 0);
    CHECK_INT_EQ(p->n_tensors, 3);
    CHECK_STR_EQ(p->tensors[2].name, "out");
    CHECK_INT_EQ(p->tensors[2].role, ROLE_OUT);
    CHECK_INT_EQ(p->tensors[2].dtype, DTYPE_FP32);
    CHECK(p->tensors[2].tol.exact);
    CHECK_INT_EQ(p->n_profiles, 2);
    CHECK_STR_EQ(p->profiles[1].name, "cancel");
    CHECK_INT_EQ(p->n_tests, 6);
    CHECK_STR_EQ(p->tests[0].name, "N=1");
    CHECK_STR_EQ(p->tests[4].name, "N=129");
    CHECK_INT_EQ(p->tests[4].sizes[0], 129);
    CHECK_STR_EQ(p->tests[5].name, "cancel");
    CHECK_INT_EQ(p->tests[5].profile, 1);
    CHECK_INT_EQ(p->n_benchmarks, 1);
    CHECK_STR_EQ(p->benchmarks[0].name, "2^28");
    CHECK_INT_EQ(p->benchmarks[0].sizes[0], 268435456);
    CHECK_STR_EQ(expr_text(p->bytes), "12*N");
    CHECK_INT_EQ(p->peak, PEAK_FP32);
    CHECK_INT_EQ(p->run_ms, BW_RUN_WALL_MS_DEFAULT);
    CHECK(p->scratch_bytes == NULL);
    CHECK_INT_EQ(p->n_controls, 4);
    CHECK_STR_EQ(p->controls[2].file, "wrong/noop.cu");
    CHECK_INT_EQ(p->controls[2].expect, VERDICT_WRONG_ANSWER);
    CHECK_INT_EQ(p->controls[3].expect, VERDICT_MEMORY_VIOLATION);
    problem_free(p);
}

TEST(vector_add_cases)
{
    struct problem *p = load_ok("ok-vector-add");
    struct gen_spec g;
    int64_t count = 0;
    double atol = -1, rtol = -1;
    char *cause = NULL;

    if (!p)
        return;
    CHECK_INT_EQ(problem_tensor_count(p, 0, &p->tests[3], &count, NULL), 0);
    CHECK_INT_EQ(count, 128);

    CHECK_INT_EQ(problem_gen_spec(p, 1, &p->tests[2], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_UNIFORM);
    CHECK_INT_EQ(g.stream, 1);
    CHECK_INT_EQ(g.dtype, DTYPE_FP32);
    CHECK_INT_EQ(g.flags, 0);
    CHECK(g.a == -1000 && g.b == 1000);
    CHECK_INT_EQ(g.row_len, 127);

    /* y is "neg of x": x's spec, on x's stream, negated */
    CHECK_INT_EQ(problem_gen_spec(p, 1, &p->tests[5], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_NORMAL);
    CHECK_INT_EQ(g.stream, 0);
    CHECK_INT_EQ(g.flags, GEN_NEGATE);
    CHECK(g.a == 0 && g.b == 1);
    CHECK_INT_EQ(g.row_len, 1000);

    CHECK_INT_EQ(problem_tolerance(p, 2, &p->tests[0], &atol, &rtol, NULL), 0);
    CHECK(atol == 0 && rtol == 0);

    CHECK_INT_EQ(problem_gen_spec(p, 2, &p->tests[0], &g, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "tensor out is an output");
    CHECK_INT_EQ(problem_tolerance(p, 0, &p->tests[0], &atol, &rtol, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "tensor x is an input");
    CHECK_INT_EQ(problem_tensor_count(p, 7, &p->tests[0], &count, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "no tensor 7");
    free(cause);
    problem_free(p);
}

TEST(indexes_and_scope)
{
    struct problem *p = load_ok("ok-rowwise");
    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope;
    int64_t v = 0;

    if (!p)
        return;
    CHECK_INT_EQ(problem_size_index(p, "N"), 1);
    CHECK_INT_EQ(problem_size_index(p, "K"), -1);
    CHECK_INT_EQ(problem_scalar_index(p, "k"), 1);
    CHECK_INT_EQ(problem_scalar_index(p, "x"), -1);
    CHECK_INT_EQ(problem_tensor_index(p, "cnt"), 6);
    CHECK_INT_EQ(problem_tensor_index(p, "N"), -1);
    int c = case_index(p->tests, p->n_tests, "rows M=7,N=33");
    CHECK(c >= 0);
    if (c < 0)
        goto free_problem;
    /* a case's index among the tests, then the benchmarks; a copy is neither */
    struct problem_case copy = p->tests[c];
    CHECK_INT_EQ(problem_case_index(p, &p->tests[c]), c);
    CHECK_INT_EQ(p->n_benchmarks, 3);
    CHECK_INT_EQ(problem_case_index(p, &p->benchmarks[2]), p->n_tests + 2);
    CHECK_INT_EQ(problem_case_index(p, &copy), p->n_tests + p->n_benchmarks);
    problem_case_scope(p, &p->tests[c], vars, &scope);
    CHECK_INT_EQ(scope.n, 2);
    CHECK_STR_EQ(scope.vars[0].name, "M");
    CHECK_INT_EQ(scope.vars[0].value, 7);
    CHECK_INT_EQ(scope.vars[1].value, 33);
    CHECK_INT_EQ(expr_eval_int(p->scratch_bytes, &scope, &v, NULL), 0);
    CHECK_INT_EQ(v, 4 * 7 + 4096);
free_problem:
    problem_free(p);
}

TEST(formula_scope_binds_integer_scalars)
{
    struct problem *p = load_ok("ok-rowwise");
    struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
    struct expr_scope scope;
    double flops = 0;

    if (!p)
        return;
    /* flops is "5*M*N*k": "wide" sets k = 1, "tall" keeps the default 3 */
    int w = case_index(p->benchmarks, p->n_benchmarks, "wide");
    int t = case_index(p->benchmarks, p->n_benchmarks, "tall M=65536,N=64");
    CHECK(w >= 0 && t >= 0);
    if (w < 0 || t < 0)
        goto free_problem;
    problem_formula_scope(p, &p->benchmarks[w], vars, &scope);
    CHECK_INT_EQ(scope.n, 3); /* M, N and k; never the fp32 eps */
    CHECK_STR_EQ(scope.vars[2].name, "k");
    CHECK_INT_EQ(expr_eval_real(p->flops, &scope, &flops, NULL), 0);
    CHECK(flops == 5.0 * 4096 * 4096);
    problem_formula_scope(p, &p->benchmarks[t], vars, &scope);
    CHECK_INT_EQ(expr_eval_real(p->flops, &scope, &flops, NULL), 0);
    CHECK(flops == 5.0 * 65536 * 64 * 3);
    /* shapes still see the sizes only */
    problem_case_scope(p, &p->benchmarks[t], vars, &scope);
    CHECK_INT_EQ(scope.n, 2);
free_problem:
    problem_free(p);
}

/* The attention problems charge a causal shape the S(S+1)/2 pairs it computes. */
TEST(causal_attention_flops_count_the_pairs_computed)
{
    static const char *const dirs[] = {"problems/flash-attention", "problems/sdpa"};
    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        char *cause = NULL;
        struct problem *p = problem_load(dirs[d], &cause);
        CHECK_MSG(p != NULL, "%s: %s", dirs[d], cause ? cause : "(no cause)");
        free(cause);
        if (!p)
            continue;
        int causal = problem_scalar_index(p, "causal"), s_q = problem_size_index(p, "Sq");
        int checked = 0;
        for (size_t b = 0; b < p->n_benchmarks && causal >= 0 && s_q >= 0; b++) {
            const struct problem_case *c = &p->benchmarks[b];
            struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
            struct expr_scope scope;
            struct problem_case full = *c;
            double flops = 0, full_flops = 0, sq = (double)c->sizes[s_q];
            if (c->scalars[causal] == 0)
                continue;
            full.scalars[causal] = 0;
            problem_formula_scope(p, c, vars, &scope);
            CHECK_INT_EQ(expr_eval_real(p->flops, &scope, &flops, NULL), 0);
            problem_formula_scope(p, &full, vars, &scope);
            CHECK_INT_EQ(expr_eval_real(p->flops, &scope, &full_flops, NULL), 0);
            /* Sq = Skv on every causal benchmark: (S + 1) / (2 S) of the full work */
            CHECK_MSG(fabs(flops / full_flops - (sq + 1) / (2 * sq)) < 1e-12, "%s %s: %g of %g",
                      dirs[d], c->name, flops, full_flops);
            checked++;
        }
        CHECK_MSG(checked > 0, "%s has causal benchmarks", dirs[d]);
        problem_free(p);
    }
}

TEST(rowwise_expansion_and_names)
{
    static const char *const tests[] = {"rows M=1,N=1", "rows M=7,N=33", "M=1,N=1", "M=1,N=1024",
                                        "M=3,N=1",      "M=3,N=1024",    "eps"};
    static const char *const benches[] = {"wide", "tall M=65536,N=64", "tall M=131072,N=64"};
    struct problem *p = load_ok("ok-rowwise");

    if (!p)
        return;
    CHECK_INT_EQ(p->n_tests, 7);
    for (size_t i = 0; i < p->n_tests && i < 7; i++)
        CHECK_STR_EQ(p->tests[i].name, tests[i]);
    CHECK_INT_EQ(p->n_benchmarks, 3);
    for (size_t i = 0; i < p->n_benchmarks && i < 3; i++)
        CHECK_STR_EQ(p->benchmarks[i].name, benches[i]);
    CHECK_INT_EQ(p->tests[5].sizes[0], 3);
    CHECK_INT_EQ(p->tests[5].sizes[1], 1024);
    CHECK_INT_EQ(p->benchmarks[2].sizes[0], 131072);
    /* scalars: defaults, and per-case overrides */
    CHECK(p->tests[0].scalars[0] == 1e-5 && p->tests[0].scalars[1] == 3);
    CHECK(p->tests[6].scalars[0] == 0.5 && p->tests[6].scalars[1] == -2);
    CHECK_INT_EQ(p->tests[6].profile, 1);
    CHECK_INT_EQ(p->scalars[1].dtype, DTYPE_INT32);
    CHECK_INT_EQ(p->peak, PEAK_NONE);
    CHECK_INT_EQ(p->run_ms, 5000);
    CHECK_INT_EQ(p->n_controls, 4);
    CHECK_STR_EQ(p->controls[3].file, "hostile/spin.cu");
    CHECK_INT_EQ(p->controls[3].expect, VERDICT_TIME_LIMIT);
    CHECK_INT_EQ(p->controls[1].expect, VERDICT_COMPILE_ERROR);
    CHECK_INT_EQ(p->tensors[3].role, ROLE_INOUT);
    problem_free(p);
}

TEST(rowwise_gen_specs)
{
    struct problem *p = load_ok("ok-rowwise");
    struct gen_spec g;
    int c, flat;

    if (!p)
        return;
    c = case_index(p->tests, p->n_tests, "rows M=7,N=33");
    flat = case_index(p->tests, p->n_tests, "eps");
    CHECK(c >= 0 && flat >= 0);
    if (c < 0 || flat < 0)
        goto free_problem;

    CHECK_INT_EQ(problem_gen_spec(p, 0, &p->tests[c], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_UNIFORM);
    CHECK_INT_EQ(g.dtype, DTYPE_FP16);
    CHECK_INT_EQ(g.stream, 0);
    CHECK_INT_EQ(g.flags, GEN_ROW_OFFSET | GEN_SPIKE);
    CHECK(g.a == -8 && g.b == 8 && g.row_lo == -100 && g.row_hi == 100 && g.spike == 20);
    CHECK_INT_EQ(g.row_len, 33);
    CHECK_INT_EQ(g.n_specials, 2);
    CHECK(isnan(g.special_value[0]) && g.special_fraction[0] == 0.001);
    CHECK(isinf(g.special_value[1]) && g.special_value[1] < 0);

    /* xn = -x: x's whole spec with the modifiers, on stream 0 */
    CHECK_INT_EQ(problem_gen_spec(p, 1, &p->tests[c], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_UNIFORM);
    CHECK_INT_EQ(g.stream, 0);
    CHECK_INT_EQ(g.flags, GEN_ROW_OFFSET | GEN_SPIKE | GEN_NEGATE);
    CHECK_INT_EQ(g.n_specials, 2);
    CHECK_INT_EQ(g.row_len, 33);

    /* randint bounds are expressions of the sizes */
    CHECK_INT_EQ(problem_gen_spec(p, 2, &p->tests[c], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_RANDINT);
    CHECK_INT_EQ(g.dtype, DTYPE_INT32);
    CHECK_INT_EQ(g.stream, 2);
    CHECK_INT_EQ(g.ilo, 0);
    CHECK_INT_EQ(g.ihi, 32);
    CHECK_INT_EQ(g.row_len, 7);

    CHECK_INT_EQ(problem_gen_spec(p, 3, &p->tests[c], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_LOGUNIFORM);
    CHECK_INT_EQ(g.flags, GEN_SIGNED);
    CHECK(g.a == 1e-3 && g.b == 1e3);
    CHECK_INT_EQ(g.row_len, 33);

    /* the "flat" profile: a neg listed before its source */
    CHECK_INT_EQ(problem_gen_spec(p, 0, &p->tests[flat], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_CONST);
    CHECK(isinf(g.a) && g.a < 0);
    CHECK_INT_EQ(g.n_specials, 1);
    CHECK_INT_EQ(problem_gen_spec(p, 1, &p->tests[flat], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_CONST);
    CHECK_INT_EQ(g.flags, GEN_NEGATE);
    CHECK_INT_EQ(g.stream, 0);
    CHECK_INT_EQ(problem_gen_spec(p, 2, &p->tests[flat], &g, NULL), 0);
    CHECK_INT_EQ(g.kind, GEN_CONST);
    CHECK(g.a == 7);
free_problem:
    problem_free(p);
}

TEST(rowwise_tolerances)
{
    struct problem *p = load_ok("ok-rowwise");
    double atol = -1, rtol = -1, da, dr;
    int c;

    if (!p)
        return;
    c = case_index(p->tests, p->n_tests, "rows M=7,N=33");
    CHECK(c >= 0);
    if (c < 0)
        goto free_problem;
    /* w: atol "1e-6/N" evaluated per case */
    CHECK_INT_EQ(problem_tolerance(p, 3, &p->tests[c], &atol, &rtol, NULL), 0);
    CHECK(fabs(atol - 1e-6 / 33) < 1e-20);
    CHECK(rtol == 1e-5);
    CHECK_STR_EQ(expr_text(p->tensors[3].tol.atol), "1e-6/N");
    CHECK_INT_EQ(problem_tolerance(p, 4, &p->tests[c], &atol, &rtol, NULL), 0);
    CHECK(atol == 1e-5 && rtol == 0.0009765625);
    /* s: atol absent, so the fp32 default; acc kept */
    dtype_default_tolerance(DTYPE_FP32, &da, &dr);
    CHECK(da > 0 && dr > 0);
    CHECK_INT_EQ(problem_tolerance(p, 5, &p->tests[c], &atol, &rtol, NULL), 0);
    CHECK(atol == da && rtol == 1e-5);
    CHECK(p->tensors[5].tol.acc == 1e-5);
    CHECK(!p->tensors[5].tol.exact);
    /* an integer output is exact without saying so */
    CHECK(p->tensors[6].tol.exact);
    CHECK_INT_EQ(problem_tolerance(p, 6, &p->tests[c], &atol, &rtol, NULL), 0);
    CHECK(atol == 0 && rtol == 0);
free_problem:
    problem_free(p);
}

TEST(directory_names)
{
    char *cause = NULL, cwd[4096];
    struct problem *p = problem_load(GOLDEN "/ok-vector-add/", &cause);

    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    problem_free(p);
    problem_free(NULL);
    /* "." is named by its real path */
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    CHECK_INT_EQ(chdir(GOLDEN "/ok-vector-add"), 0);
    p = problem_load(".", &cause);
    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    CHECK_INT_EQ(chdir(cwd), 0);
    problem_free(p);
    free(cause);
}

TEST(missing_directory_and_fifo)
{
    char *cause = NULL, *root, *dir, *json;
    struct problem *p = problem_load("/nonexistent/nowhere", &cause);

    CHECK(p == NULL);
    CHECK_CONTAINS(cause, "/nonexistent/nowhere/problem.json");
    free(cause);
    cause = NULL;

    make_problem_dir("fuzz", false, &root, &dir);
    json = path_join(dir, "problem.json");
    CHECK_INT_EQ(mkfifo(json, 0644), 0);
    p = problem_load(dir, &cause);
    CHECK(p == NULL);
    CHECK_CONTAINS(cause, "not a regular file");
    free(cause);
    free(json);
    remove_problem_dir(root, dir);
}

/* Issue 28: statement.md linked to /etc/passwd was served as the statement.
 * Every file of a problem is opened relative to its directory without
 * following a link: a link, or anything not a regular file, fails the load
 * with an error naming the file; a FIFO does not block it. The directory
 * itself may be a link (where an admin put it). */
TEST(links_and_fifos_in_a_problem_are_refused)
{
    static const char *const files[] = {"problem.json", "statement.md", "starter.cu",
                                        "reference.cu", "solution.cu",  "wrong/noop.cu",
                                        "wrong/tail.cu"};
    char *cause = NULL, *root, *dir, *json = NULL;
    size_t json_len = 0;
    struct problem *p;

    CHECK_INT_EQ(read_file(GOLDEN "/ok-vector-add/problem.json", BW_MAX_PROBLEM_JSON_BYTES, &json,
                           &json_len, NULL),
                 BW_OK);
    make_problem_dir("ok-vector-add", true, &root, &dir);
    write_text(dir, "problem.json", json, json_len);
    p = problem_load(dir, &cause);
    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    problem_free(p);

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *path = path_join(dir, files[i]), *want = NULL;
        /* a link to a host file, then to a file of the problem itself: both refused */
        for (int k = 0; k < 2; k++) {
            CHECK_INT_EQ(unlink(path), 0);
            CHECK_INT_EQ(symlink(k == 0 ? "/etc/passwd" : "solution.cu", path), 0);
            p = problem_load(dir, &cause);
            CHECK_MSG(p == NULL, "%s as a link: loaded", files[i]);
            CHECK(asprintf(&want, "%s: a symbolic link", files[i]) > 0);
            CHECK_MSG(cause && strstr(cause, want), "%s as a link: %s", files[i],
                      cause ? cause : "(no cause)");
            free(want);
            problem_free(p);
            free(cause);
            cause = NULL;
        }
        /* a FIFO: refused at once, never read */
        CHECK_INT_EQ(unlink(path), 0);
        CHECK_INT_EQ(mkfifo(path, 0644), 0);
        p = problem_load(dir, &cause);
        CHECK_MSG(p == NULL, "%s as a FIFO: loaded", files[i]);
        CHECK(asprintf(&want, "%s: not a regular file (a FIFO)", files[i]) > 0);
        CHECK_MSG(cause && strstr(cause, want), "%s as a FIFO: %s", files[i],
                  cause ? cause : "(no cause)");
        free(want);
        problem_free(p);
        free(cause);
        cause = NULL;
        CHECK_INT_EQ(unlink(path), 0);
        if (i == 0)
            write_text(dir, files[i], json, json_len);
        else
            write_text(dir, files[i], "// dummy\n", 9);
        free(path);
    }

    /* wrong/ as a link to a directory holding the same files */
    {
        char *wrong = path_join(dir, "wrong"), *moved = path_join(root, "elsewhere");
        CHECK_INT_EQ(rename(wrong, moved), 0);
        CHECK_INT_EQ(symlink(moved, wrong), 0);
        p = problem_load(dir, &cause);
        CHECK(p == NULL);
        CHECK_CONTAINS(cause, "ok-vector-add/wrong: a symbolic link");
        problem_free(p);
        free(cause);
        cause = NULL;
        CHECK_INT_EQ(unlink(wrong), 0);
        CHECK_INT_EQ(rename(moved, wrong), 0);
        free(wrong);
        free(moved);
    }

    /* the directory itself as a link (of the same name, elsewhere) loads */
    {
        char *alias = path_join(root, "alias"), *link = path_join(alias, "ok-vector-add");
        CHECK_INT_EQ(mkdir(alias, 0755), 0);
        CHECK_INT_EQ(symlink(dir, link), 0);
        p = problem_load(link, &cause);
        CHECK_MSG(p != NULL, "%s", cause ? cause : "");
        problem_free(p);
        CHECK_INT_EQ(unlink(link), 0);
        CHECK_INT_EQ(rmdir(alias), 0);
        free(link);
        free(alias);
    }
    p = problem_load(dir, &cause);
    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    problem_free(p);
    free(cause);
    free(json);
    remove_problem_dir(root, dir);
}

TEST(json_over_the_size_limit)
{
    char *cause = NULL, *root, *dir;
    size_t n = BW_MAX_PROBLEM_JSON_BYTES + 1;
    char *big = malloc(n);
    struct problem *p;

    make_problem_dir("fuzz", false, &root, &dir);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    write_text(dir, "problem.json", big, n);
    p = problem_load(dir, &cause);
    CHECK(p == NULL);
    CHECK_CONTAINS(cause, "over the limit of 1048576");
    CHECK_CONTAINS(cause, "BW_MAX_PROBLEM_JSON_BYTES");
    free(cause);
    free(big);
    remove_problem_dir(root, dir);
}

TEST(every_problem_directory_loads)
{
    char **names;
    size_t n = list_dir("problems", "", &names);

    if (n == 0) {
        free_list(names, n);
        SKIP("no problems/ in this tree");
    }
    for (size_t i = 0; i < n; i++) {
        char dir[300], *cause = NULL;
        struct stat st;
        snprintf(dir, sizeof(dir), "problems/%s", names[i]);
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        struct problem *p = problem_load(dir, &cause);
        CHECK_MSG(p != NULL, "%s", cause ? cause : dir);
        problem_free(p);
        free(cause);
    }
    free_list(names, n);
}

/* The fuzz corpus through the fuzz target's own body and properties (each
 * input loads deterministically or fails with a one-line cause; a loaded one
 * passes every per-case helper). ASan checks the rest in `make test`. */
TEST(fuzz_corpus_replays)
{
    char **names;
    size_t n = list_dir(CORPUS, "", &names);

    CHECK(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char path[300], *data = NULL;
        size_t len = 0;

        snprintf(path, sizeof(path), CORPUS "/%s", names[i]);
        if (read_file(path, 4 * BW_MAX_PROBLEM_JSON_BYTES, &data, &len, NULL) != BW_OK) {
            CHECK_MSG(0, "cannot read %s", path);
            continue;
        }
        CHECK_MSG(fuzz_problem_one((const uint8_t *)data, len) == 0, "%s violates a fuzz property",
                  path);
        free(data);
    }
    free_list(names, n);
}

/* The seeds reach past the JSON: some corpus inputs load completely. */
TEST(fuzz_seeds_load)
{
    static const char *const seeds[] = {CORPUS "/vector-add.json", CORPUS "/rowwise.json"};

    for (size_t i = 0; i < 2; i++) {
        char *data = NULL, *cause = NULL;
        size_t len = 0;
        struct problem *p;

        CHECK_INT_EQ(read_file(seeds[i], BW_MAX_PROBLEM_JSON_BYTES, &data, &len, NULL), BW_OK);
        CHECK_INT_EQ(fuzz_problem_one((const uint8_t *)data, len), 0);
        p = problem_load(fuzz_dir, &cause);
        CHECK_MSG(p != NULL, "%s: %s", seeds[i], cause ? cause : "");
        problem_free(p);
        free(cause);
        free(data);
    }
}

/* The complete example of docs/problem-format.md (the first JSON block of
 * its section 8) is a valid problem. */
TEST(docs_example_loads)
{
    char *doc = NULL, *root, *dir, *cause = NULL;
    const char *sec, *start, *end;
    struct problem *p;

    if (read_file("docs/problem-format.md", 1 << 20, &doc, NULL, NULL) != BW_OK)
        SKIP("no docs/problem-format.md");
    sec = strstr(doc, "## 8.");
    start = sec ? strstr(sec, "```json\n") : NULL;
    end = start ? strstr(start + 8, "```") : NULL;
    CHECK(end != NULL);
    if (!end) {
        free(doc);
        return;
    }
    start += 8;
    make_problem_dir("vector-add", true, &root, &dir);
    write_text(dir, "problem.json", start, (size_t)(end - start));
    p = problem_load(dir, &cause);
    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    if (p) {
        CHECK_INT_EQ(p->n_tests, 7);
        CHECK_STR_EQ(p->tests[6].name, "cancel");
        CHECK_INT_EQ(p->n_controls, 4);
    }
    problem_free(p);
    free(cause);
    free(doc);
    remove_problem_dir(root, dir);
}

TEST(goals_fields)
{
    struct problem *p = load_ok("ok-goals");
    const struct goal_spec *g;

    if (!p)
        return;
    CHECK_INT_EQ(p->n_goals, 9);
    g = &p->goals[0];
    CHECK_STR_EQ(g->name, "sweep");
    CHECK_INT_EQ(g->kind, GOAL_AUTOTUNE);
    CHECK_INT_EQ(g->min_configs, 2);
    CHECK(g->min_gain == 0);
    CHECK_STR_EQ(g->description, "declare at least two block sizes with @tune");
    g = &p->goals[1];
    CHECK_INT_EQ(g->kind, GOAL_REBUILD);
    CHECK_INT_EQ(g->n_defines, 1);
    CHECK_STR_EQ(g->defines[0].name, "DELAY");
    CHECK_INT_EQ(g->defines[0].value, 100000);
    CHECK(g->min_speedup == 2.5);
    CHECK(g->shapes[0] && !g->shapes[1]);
    g = &p->goals[2];
    CHECK(g->description == NULL);
    CHECK(g->shapes[0] && g->shapes[1]); /* no "shapes": every benchmark */
    g = &p->goals[3];
    CHECK_INT_EQ(g->kind, GOAL_SASS);
    CHECK_INT_EQ(g->n_require, 2);
    CHECK_STR_EQ(g->require[1], "STG.E.128");
    CHECK_INT_EQ(g->n_kernels, 0);
    CHECK(g->kernels == NULL);
    CHECK_INT_EQ(p->goals[4].n_kernels, 1);
    CHECK_STR_EQ(p->goals[4].kernels[0], "vector_add");
    g = &p->goals[6];
    CHECK_INT_EQ(g->kind, GOAL_BANDWIDTH);
    CHECK_STR_EQ(expr_text(g->bytes), "12*N");
    CHECK(g->min_pct == 500);
    CHECK(!g->shapes[0] && g->shapes[1]);
    g = &p->goals[7];
    CHECK_INT_EQ(g->kind, GOAL_COMPARE);
    CHECK_INT_EQ(g->n_pairs, 1);
    CHECK_INT_EQ(g->pairs[0].shape, 0);
    CHECK_INT_EQ(g->pairs[0].baseline, 1);
    CHECK(g->min_speedup == 1.5);
    CHECK_STR_EQ(goal_kind_name(GOAL_COMPARE), "compare");
    CHECK_STR_EQ(goal_kind_name(GOAL_AUTOTUNE), "autotune");
    problem_free(p);

    /* A problem without "goals" has none. */
    p = load_ok("ok-vector-add");
    if (p) {
        CHECK_INT_EQ(p->n_goals, 0);
        CHECK(p->goals == NULL);
    }
    problem_free(p);
}

TEST(problem_languages_from_its_files)
{
    struct problem *p = load_ok("ok-triton"), *q = load_ok("ok-goals");

    CHECK(p && p->languages[LANG_CUDA] && p->languages[LANG_TRITON]);
    for (size_t i = 0; p && i < p->n_controls; i++)
        CHECK_INT_EQ(p->controls[i].lang,
                     strstr(p->controls[i].file, ".py") ? LANG_TRITON : LANG_CUDA);
    CHECK(q && q->languages[LANG_CUDA] && !q->languages[LANG_TRITON]);
    problem_free(p);
    problem_free(q);
}
