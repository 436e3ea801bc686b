/*
 * fuzz_problem.c - fuzz target of the problem loader (problem/): each input
 * becomes the problem.json of a fixed directory <tmp>/fuzz that also holds
 * the standard files and wrong/noop.cu, so inputs with "id": "fuzz" and those controls get
 * past the JSON into the per-case checks and the file checks (the seeds in
 * tests/fuzz/corpus/problem/ do). Built with BW_FUZZ_MAIN by run.sh
 * (`tests/fuzz/run.sh 120 problem`); the unit tests link fuzz_problem_one()
 * alone and replay the corpus through it.
 *
 * Properties checked beyond not crashing: loading is deterministic; a
 * failure has a one-line cause that starts with the directory; a loaded
 * problem is complete, and every per-case helper succeeds on every case.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "problem/problem.h"
#include "common/banned.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_problem: " __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                                       \
        rc = -1;                                                                                   \
        goto done;                                                                                 \
    } while (0)

static const char *const fuzz_files[] = {"statement.md", "starter.cu",    "reference.cu",
                                         "solution.cu",  "wrong/noop.cu", "problem.json"};

static char *fuzz_root; /* the mkdtemp directory */
static char *fuzz_dir;  /* <root>/fuzz, the problem directory */

static void fuzz_problem_cleanup(void)
{
    char *wrong;

    if (!fuzz_dir)
        return;
    for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++) {
        char *path = path_join(fuzz_dir, fuzz_files[i]);
        if (path)
            unlink(path);
        free(path);
    }
    wrong = path_join(fuzz_dir, "wrong");
    if (wrong)
        rmdir(wrong);
    free(wrong);
    rmdir(fuzz_dir);
    rmdir(fuzz_root);
    free(fuzz_dir);
    free(fuzz_root);
    fuzz_dir = NULL;
    fuzz_root = NULL;
}

static int put(const char *name, const void *data, size_t size)
{
    char *path = path_join(fuzz_dir, name);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    bool ok = fd >= 0 && (size == 0 || write(fd, data, size) == (ssize_t)size);

    if (fd >= 0)
        close(fd);
    free(path);
    return ok ? 0 : -1;
}

/* Creates the directory once per process; removed at exit. */
static int fuzz_problem_setup(void)
{
    char tmpl[] = "/tmp/bw-fuzz-problem.XXXXXX";
    char *wrong = NULL;
    int rc = -1;

    if (fuzz_dir)
        return 0;
    if (!mkdtemp(tmpl) || !(fuzz_root = strdup(tmpl)) ||
        !(fuzz_dir = path_join(fuzz_root, "fuzz")) || !(wrong = path_join(fuzz_dir, "wrong")) ||
        mkdir(fuzz_dir, 0755) != 0 || mkdir(wrong, 0755) != 0)
        goto done;
    atexit(fuzz_problem_cleanup);
    for (size_t i = 0; i + 1 < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++)
        if (put(fuzz_files[i], "// fuzz\n", 8) != 0)
            goto done;
    rc = 0;
done:
    if (rc)
        perror("fuzz_problem: cannot set up the problem directory");
    free(wrong);
    return rc;
}

/* Every per-case helper succeeds on case c and gives sane values. */
static int check_case(const struct problem *p, const struct problem_case *c)
{
    char *cause = NULL;
    int rc = 0;

    if (!c->name || !*c->name || c->profile < 0 || (size_t)c->profile >= p->n_profiles)
        FAIL("case without a name or with profile %d", c->profile);
    for (size_t k = 0; k < p->n_sizes; k++)
        if (c->sizes[k] < 1)
            FAIL("case %s: size %s is %lld", c->name, p->size_names[k], (long long)c->sizes[k]);
    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        int64_t count;
        struct gen_spec g;
        double atol, rtol;

        if (problem_tensor_count(p, t, c, &count, &cause) != 0 || count < 1)
            FAIL("case %s: tensor %s: count fails after a load: %s", c->name, ts->name,
                 cause ? cause : "count < 1");
        if (ts->role != ROLE_OUT) {
            if (problem_gen_spec(p, t, c, &g, &cause) != 0)
                FAIL("case %s: tensor %s: gen spec fails after a load: %s", c->name, ts->name,
                     cause ? cause : "?");
            if (g.stream >= p->n_tensors || g.row_len < 1 || g.n_specials > GEN_MAX_SPECIALS ||
                g.kind < GEN_UNIFORM || g.kind > GEN_RANDINT)
                FAIL("case %s: tensor %s: bad gen spec", c->name, ts->name);
        }
        if (ts->role != ROLE_IN) {
            if (problem_tolerance(p, t, c, &atol, &rtol, &cause) != 0)
                FAIL("case %s: tensor %s: tolerance fails after a load: %s", c->name, ts->name,
                     cause ? cause : "?");
            if (!(atol >= 0 && rtol >= 0 && isfinite(atol) && isfinite(rtol)))
                FAIL("case %s: tensor %s: tolerance %g/%g", c->name, ts->name, atol, rtol);
        }
    }
done:
    free(cause);
    return rc;
}

/* A loaded goal is complete, and its bytes model evaluates > 0 on the shapes it looks at. */
static int check_goal(const struct problem *p, const struct goal_spec *g)
{
    char *cause = NULL;
    size_t n_shapes = 0;
    int rc = 0;

    if (!g->name || !*g->name || g->kind > GOAL_ROOFLINE || p->n_goals > BW_MAX_GOALS)
        FAIL("a goal without a name or kind");
    for (size_t b = 0; b < p->n_benchmarks; b++)
        n_shapes += g->shapes[b];
    switch (g->kind) {
    case GOAL_AUTOTUNE:
        if (g->min_configs < 2 || (g->min_gain != 0 && g->min_gain < 1))
            FAIL("goal %s: min_configs %d, min_gain %g", g->name, g->min_configs, g->min_gain);
        break;
    case GOAL_REBUILD:
        if (g->n_defines < 1 || g->n_defines > BW_MAX_GOAL_DEFINES || !(g->min_speedup > 0) ||
            n_shapes < 1)
            FAIL("goal %s: incomplete rebuild", g->name);
        break;
    case GOAL_SASS:
        if (g->n_require < 1 || g->n_require > BW_MAX_GOAL_PATTERNS || !g->require)
            FAIL("goal %s: no patterns", g->name);
        break;
    case GOAL_BANDWIDTH:
        if (!g->bytes || !(g->min_pct > 0) || n_shapes < 1)
            FAIL("goal %s: incomplete bandwidth", g->name);
        for (size_t b = 0; b < p->n_benchmarks; b++) {
            struct expr_binding vars[BW_MAX_SIZES];
            struct expr_scope scope;
            double bytes;
            if (!g->shapes[b])
                continue;
            problem_case_scope(p, &p->benchmarks[b], vars, &scope);
            if (expr_eval_real(g->bytes, &scope, &bytes, &cause) != 0 || !(bytes > 0))
                FAIL("goal %s: bytes fails on %s after a load", g->name, p->benchmarks[b].name);
        }
        break;
    case GOAL_ROOFLINE:
        if (!(g->min_pct > 0 && g->min_pct <= 100) || n_shapes < 1)
            FAIL("goal %s: incomplete roofline", g->name);
        break;
    case GOAL_COMPARE:
        if (g->n_pairs < 1 || !(g->min_speedup > 0))
            FAIL("goal %s: no pairs", g->name);
        for (size_t i = 0; i < g->n_pairs; i++)
            if (g->pairs[i].shape >= p->n_benchmarks || g->pairs[i].baseline >= p->n_benchmarks ||
                g->pairs[i].shape == g->pairs[i].baseline)
                FAIL("goal %s: pair %zu out of range", g->name, i);
        break;
    }
done:
    free(cause);
    return rc;
}

int fuzz_problem_one(const uint8_t *data, size_t size)
{
    char *cause = NULL, *cause2 = NULL;
    struct problem *p = NULL, *again = NULL;
    int rc = 0;

    if (fuzz_problem_setup() != 0 || put("problem.json", data, size) != 0)
        return -1;
    p = problem_load(fuzz_dir, &cause);
    again = problem_load(fuzz_dir, &cause2);
    if (!p != !again)
        FAIL("loading is not deterministic");
    if (!p) {
        if (!cause || !cause2 || strcmp(cause, cause2) != 0)
            FAIL("causes differ: \"%s\" vs \"%s\"", cause ? cause : "(null)",
                 cause2 ? cause2 : "(null)");
        if (strchr(cause, '\n') || strncmp(cause, fuzz_dir, strlen(fuzz_dir)) != 0)
            FAIL("cause is not one line about the directory: \"%s\"", cause);
        goto done;
    }
    if (!p->id || strcmp(p->id, "fuzz") != 0 || !p->title || p->n_sizes < 1 || p->n_tensors < 1 ||
        p->n_profiles < 1 || p->n_tests < 1 || p->n_tests > BW_MAX_CASES || p->n_benchmarks < 1 ||
        p->n_benchmarks > BW_MAX_BENCHMARKS || !p->bytes || !p->flops || p->run_ms < 1 ||
        p->n_controls < 2)
        FAIL("a loaded problem is incomplete");
    for (size_t i = 0; i < p->n_tests && !rc; i++)
        rc = check_case(p, &p->tests[i]);
    for (size_t i = 0; i < p->n_benchmarks && !rc; i++)
        rc = check_case(p, &p->benchmarks[i]);
    for (size_t i = 0; i < p->n_goals && !rc; i++)
        rc = check_goal(p, &p->goals[i]);
done:
    problem_free(p);
    problem_free(again);
    free(cause);
    free(cause2);
    return rc;
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_problem_one(data, size) != 0)
        abort();
    return 0;
}
#endif
