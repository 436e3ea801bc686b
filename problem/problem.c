/*
 * problem.c - loading a problem directory (see problem.h; the loader's parts
 * are listed in load.h).
 *
 * problem_load() reads problem.json once (bounded, duplicate keys rejected,
 * depth checked), then walks it field by field into a struct problem through
 * common/json_reader: each check names the field by its path
 * ("tensors[1].shape[0]") and the bad value, and says what was expected.
 * Unknown fields are errors so that a typo such as "tolerence" cannot
 * silently drop a setting. After the JSON, every case is evaluated once with
 * the same helpers the judge uses later (shapes, generator specs,
 * tolerances, formulas), so a problem that loads cannot fail on a case at
 * judging time. Last come the files of the directory.
 */
#include "problem.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "common/util.h"
#include "common/banned.h"

#define NUMBER_MAX 99 /* problems on the path */
#define STEP_MAX   8  /* steps of the path */

int loader_nomem(struct loader *ld)
{
    return json_reader_fail(&ld->r, BW_ERR_NOMEM, "", "out of memory");
}

/* ---- the whole file -------------------------------------------------------------------------- */

static bool too_deep(json_t *v, int depth)
{
    const char *key;
    json_t *child;
    size_t i;

    if (depth > BW_MAX_JSON_DEPTH)
        return true;
    if (json_is_object(v)) {
        json_object_foreach (v, key, child) {
            if (too_deep(child, depth + 1))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach (v, i, child) {
            if (too_deep(child, depth + 1))
                return true;
        }
    }
    return false;
}

static bool is_id(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_NAME)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

static bool is_title(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_TITLE_BYTES || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

static const char *const top_keys[] = {
    "id",         "number", "title", "step", "sizes",  "scalars",  "tensors", "data", "tests",
    "benchmarks", "bytes",  "flops", "peak", "limits", "controls", "goals",   NULL};

static int load_header(struct loader *ld, json_t *root, const char *dirname)
{
    struct problem *p = ld->p;
    const char *s = NULL;
    int64_t x;
    int rc;

    if ((rc = json_reader_get_string(&ld->r, "", root, "id", true, 0, SIZE_MAX, NULL, &s)))
        return rc;
    if (!is_id(s))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "id",
                                "%s is not a valid id (expected [a-z0-9-]+, at most %d bytes)",
                                json_quote(s).s, BW_MAX_NAME);
    if (strcmp(s, dirname) != 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "id",
                                "%s differs from the directory name %s", json_quote(s).s,
                                json_quote(dirname).s);
    if (!(p->id = strdup(s)))
        return loader_nomem(ld);
    if ((rc = json_reader_get_int(&ld->r, "", root, "number", true, 1, NUMBER_MAX, &x)))
        return rc;
    p->number = (int)x;
    if ((rc = json_reader_get_string(&ld->r, "", root, "title", true, 0, SIZE_MAX, NULL, &s)))
        return rc;
    if (!is_title(s))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, "title",
            "%s is not a valid title (1..%d bytes, no control characters, no leading or "
            "trailing space)",
            json_quote(s).s, BW_MAX_TITLE_BYTES);
    if (!(p->title = strdup(s)))
        return loader_nomem(ld);
    if ((rc = json_reader_get_int(&ld->r, "", root, "step", true, 1, STEP_MAX, &x)))
        return rc;
    p->step = (int)x;
    return 0;
}

static int load_root(struct loader *ld, json_t *root, const char *dirname)
{
    struct problem *p = ld->p;
    json_t *f;
    int rc;

    if (!json_is_object(root))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "",
                                "expected an object at the top level, got %s", json_show(root).s);
    if ((rc = json_reader_only_keys(&ld->r, "", root, top_keys)) ||
        (rc = load_header(ld, root, dirname)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "sizes", true, &f)) || (rc = loader_sizes(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "scalars", false, &f)) ||
        (f && (rc = loader_scalars(ld, f))))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "tensors", true, &f)) ||
        (rc = loader_tensors(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "data", true, &f)) || (rc = loader_profiles(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "tests", true, &f)) ||
        (rc = loader_cases(ld, "tests", f, false, &p->tests, &p->n_tests, ld->test_entry)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "benchmarks", true, &f)) ||
        (rc = loader_cases(ld, "benchmarks", f, true, &p->benchmarks, &p->n_benchmarks,
                           ld->bench_entry)))
        return rc;
    if ((rc = loader_formulas(ld, root)))
        return rc;
    for (size_t i = 0; i < p->n_tests; i++)
        if ((rc = loader_check_case(ld, json_path_at("tests", "[%zu]", ld->test_entry[i]).s,
                                    &p->tests[i], false)))
            return rc;
    for (size_t i = 0; i < p->n_benchmarks; i++)
        if ((rc = loader_check_case(ld, json_path_at("benchmarks", "[%zu]", ld->bench_entry[i]).s,
                                    &p->benchmarks[i], true)))
            return rc;
    for (size_t j = 0; j < p->n_profiles; j++) {
        bool used = false;
        for (size_t i = 0; i < p->n_tests && !used; i++)
            used = p->tests[i].profile == (int)j;
        for (size_t i = 0; i < p->n_benchmarks && !used; i++)
            used = p->benchmarks[i].profile == (int)j;
        if (!used)
            return json_reader_fail(&ld->r, BW_ERR_INVALID,
                                    json_path_at("data", ".%s", p->profiles[j].name).s,
                                    "profile is used by no test or benchmark");
    }
    if ((rc = json_reader_get(&ld->r, "", root, "goals", false, &f)) ||
        (f && (rc = loader_goals(ld, f))))
        return rc;
    if ((rc = loader_standard_files(ld)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "controls", true, &f)) ||
        (rc = loader_controls(ld, f)))
        return rc;
    return loader_wrong_dir(ld);
}

/* The last component of path s, a *new* string ("" for "/"). */
static char *last_component(const char *s)
{
    size_t n = strlen(s);
    const char *start;

    while (n > 0 && s[n - 1] == '/')
        n--;
    start = s + n;
    while (start > s && start[-1] != '/')
        start--;
    return strndup(start, (size_t)(s + n - start));
}

/* The directory's name as given ("problems/softmax/" is "softmax"; a link
 * keeps its own name), or of its real path for "." and "..". */
static char *dir_basename(const char *dir)
{
    char *name = last_component(dir), *real;

    if (!name || (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && *name))
        return name;
    if (!(real = realpath(dir, NULL)))
        return name;
    free(name);
    name = last_component(real);
    free(real);
    return name;
}

struct problem *problem_load(const char *dir, char **cause)
{
    struct loader ld = {0};
    struct problem *p;
    json_error_t jerr;
    json_t *root = NULL;
    char *text = NULL, *dirname = NULL;
    size_t len;
    int rc;

    ld.cause = cause;
    json_reader_init(&ld.r, 0);
    if (!(p = calloc(1, sizeof(*p))) || !(p->dir = strdup(dir)) ||
        !(ld.file = path_join(dir, "problem.json")) || !(dirname = dir_basename(dir))) {
        bw_fail(cause, BW_ERR_NOMEM, "%s: out of memory", dir);
        goto free_problem;
    }
    ld.p = p;
    if ((rc = read_file_in_dir(dir, "problem.json", BW_MAX_PROBLEM_JSON_BYTES, &text, &len,
                               cause))) {
        if (rc == BW_ERR_LIMIT)
            bw_wrap(cause, rc, "BW_MAX_PROBLEM_JSON_BYTES");
        goto free_problem;
    }
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        bw_fail(cause, BW_ERR_INVALID, "%s: line %d, column %d: %s", ld.file, jerr.line,
                jerr.column, json_printable(jerr.text).s);
        goto free_problem;
    }
    if (too_deep(root, 1)) {
        bw_fail(cause, BW_ERR_LIMIT, "%s: nested deeper than %d levels (BW_MAX_JSON_DEPTH)",
                ld.file, BW_MAX_JSON_DEPTH);
        goto free_problem;
    }
    if ((rc = load_root(&ld, root, dirname))) {
        if (json_reader_failed(&ld.r))
            bw_wrap(cause, json_reader_cause(&ld.r, cause), "%s", ld.file);
        goto free_problem;
    }
    json_decref(root);
    free(text);
    free(dirname);
    free(ld.file);
    return p;

free_problem:
    json_decref(root);
    free(text);
    free(dirname);
    free(ld.file);
    problem_free(p);
    return NULL;
}

void problem_free(struct problem *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->id);
    free(p->title);
    for (size_t i = 0; i < p->n_sizes; i++)
        free(p->size_names[i]);
    for (size_t i = 0; i < p->n_scalars; i++)
        free(p->scalars[i].name);
    free(p->scalars);
    for (size_t i = 0; i < p->n_tensors; i++) {
        struct tensor_spec *t = &p->tensors[i];
        free(t->name);
        for (int d = 0; d < BW_MAX_DIMS; d++)
            expr_free(t->shape[d]);
        expr_free(t->tol.atol);
        expr_free(t->tol.rtol);
    }
    for (size_t i = 0; i < p->n_profiles; i++) {
        free(p->profiles[i].name);
        for (size_t t = 0; p->profiles[i].dists && t < p->n_tensors; t++) {
            expr_free(p->profiles[i].dists[t].ilo);
            expr_free(p->profiles[i].dists[t].ihi);
        }
        free(p->profiles[i].dists);
    }
    free(p->profiles);
    free(p->tensors);
    for (size_t i = 0; i < p->n_tests; i++)
        free(p->tests[i].name);
    free(p->tests);
    for (size_t i = 0; i < p->n_benchmarks; i++)
        free(p->benchmarks[i].name);
    free(p->benchmarks);
    expr_free(p->bytes);
    expr_free(p->flops);
    expr_free(p->scratch_bytes);
    for (size_t i = 0; i < p->n_controls; i++)
        free(p->controls[i].file);
    free(p->controls);
    for (size_t i = 0; i < p->n_goals; i++) {
        struct goal_spec *g = &p->goals[i];
        free(g->name);
        free(g->description);
        for (size_t k = 0; k < g->n_defines; k++)
            free(g->defines[k].name);
        for (size_t k = 0; g->require && k < g->n_require; k++)
            free(g->require[k]);
        free(g->require);
        for (size_t k = 0; g->kernels && k < g->n_kernels; k++)
            free(g->kernels[k]);
        free(g->kernels);
        expr_free(g->bytes);
    }
    free(p->goals);
    free(p);
}

/* ---- lookups by name ------------------------------------------------------------------------- */

size_t problem_case_index(const struct problem *p, const struct problem_case *c)
{
    /* compared as addresses: c may point into neither array */
    uintptr_t at = (uintptr_t)c, tests = (uintptr_t)p->tests, benches = (uintptr_t)p->benchmarks;
    size_t size = sizeof(*c);

    if (p->n_tests && at >= tests && at < tests + p->n_tests * size)
        return (at - tests) / size;
    if (p->n_benchmarks && at >= benches && at < benches + p->n_benchmarks * size)
        return p->n_tests + (at - benches) / size;
    return p->n_tests + p->n_benchmarks;
}

int problem_tensor_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_tensors; i++)
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0)
            return (int)i;
    return -1;
}

int problem_size_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_sizes; i++)
        if (p->size_names[i] && strcmp(p->size_names[i], name) == 0)
            return (int)i;
    return -1;
}

int problem_scalar_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_scalars; i++)
        if (p->scalars[i].name && strcmp(p->scalars[i].name, name) == 0)
            return (int)i;
    return -1;
}
