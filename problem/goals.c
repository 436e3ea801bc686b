/*
 * goals.c - the learning goals of problem.json (see load.h and problem.h):
 * autotune, rebuild, sass, bandwidth, compare and roofline, each with the
 * fields of its kind, checked against the benchmarks they name.
 */
#include "load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/util.h"
#include "common/banned.h"

static const char *const goal_kind_names[] = {"autotune", "rebuild",  "sass", "bandwidth",
                                              "compare",  "roofline", NULL};

const char *goal_kind_name(enum goal_kind k)
{
    if ((size_t)k < sizeof(goal_kind_names) / sizeof(goal_kind_names[0]) - 1)
        return goal_kind_names[k];
    return "?";
}

#define GOAL_COMMON_KEYS "kind", "name", "description"

static const char *const autotune_keys[] = {GOAL_COMMON_KEYS, "min_configs", "min_gain", NULL};
static const char *const rebuild_keys[] = {GOAL_COMMON_KEYS, "const", "min_speedup", "shapes",
                                           NULL};
static const char *const sass_keys[] = {GOAL_COMMON_KEYS, "require", "kernels", NULL};
static const char *const bandwidth_keys[] = {GOAL_COMMON_KEYS, "bytes", "min_pct", "shapes", NULL};
static const char *const compare_keys[] = {GOAL_COMMON_KEYS, "pairs", "min_speedup", NULL};
static const char *const roofline_keys[] = {GOAL_COMMON_KEYS, "min_pct", "shapes", NULL};
static const char *const pair_keys[] = {"shape", "baseline", NULL};

static const char *const *const goal_keys[] = {autotune_keys,  rebuild_keys, sass_keys,
                                               bandwidth_keys, compare_keys, roofline_keys};

#define GOAL_DESCRIPTION_BYTES 1024 /* a goal's description */
#define MIN_PCT_MAX            1000 /* a bandwidth goal's min_pct, at most */

/* A SASS pattern: an opcode and its modifiers, "LDG.E.128": components of
 * [A-Z0-9_], the first starting with a letter, at most BW_MAX_NAME bytes. */
static bool is_sass_pattern(const char *s)
{
    size_t n = strlen(s);
    bool start = true;

    if (n == 0 || n > BW_MAX_NAME || !(s[0] >= 'A' && s[0] <= 'Z'))
        return false;
    for (; *s; s++) {
        if (*s == '.') {
            if (start)
                return false;
            start = true;
            continue;
        }
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
        start = false;
    }
    return !start;
}

static int bench_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_benchmarks; i++)
        if (strcmp(p->benchmarks[i].name, name) == 0)
            return (int)i;
    return -1;
}

static struct json_list bench_list(const struct problem *p)
{
    const char *names[BW_MAX_BENCHMARKS];

    for (size_t i = 0; i < p->n_benchmarks; i++)
        names[i] = p->benchmarks[i].name;
    return json_join(names, p->n_benchmarks);
}

/* A benchmark case name (a string naming one of problem.benchmarks). */
static int as_bench(struct loader *ld, const char *path, json_t *v, size_t *out)
{
    const char *name = NULL;
    int b, rc;

    if ((rc = json_reader_string(&ld->r, path, v, 0, SIZE_MAX, NULL, &name)))
        return rc;
    b = bench_index(ld->p, name);
    if (b < 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "unknown benchmark %s (benchmarks are %s)", json_quote(name).s,
                                bench_list(ld->p).s);
    *out = (size_t)b;
    return 0;
}

/* "shapes": benchmark names, each once; absent: every benchmark. */
static int load_goal_shapes(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path sp = json_path_key(path, "shapes");
    json_t *v = json_object_get(goal, "shapes");
    int rc;

    if (!v) {
        for (size_t i = 0; i < ld->p->n_benchmarks; i++)
            g->shapes[i] = true;
        return 0;
    }
    if ((rc = json_reader_array(&ld->r, sp.s, v, 1, BW_MAX_BENCHMARKS, "BW_MAX_BENCHMARKS")))
        return rc;
    for (size_t i = 0; i < json_array_size(v); i++) {
        struct json_path ip = json_path_at(sp.s, "[%zu]", i);
        size_t b;
        if ((rc = as_bench(ld, ip.s, json_array_get(v, i), &b)))
            return rc;
        if (g->shapes[b])
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "benchmark %s is listed twice",
                                    json_quote(ld->p->benchmarks[b].name).s);
        g->shapes[b] = true;
    }
    return 0;
}

/* An optional (unless `required`) number above lo (at least lo when !lo_open), at most hi. */
static int goal_number(struct loader *ld, const char *path, json_t *goal, const char *key,
                       bool required, double lo, bool lo_open, double hi, double *out)
{
    struct json_path kp = json_path_key(path, key);
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, key, required, &f)) || !f)
        return rc;
    if ((rc = json_reader_number(&ld->r, kp.s, f, -HUGE_VAL, HUGE_VAL, out)))
        return rc;
    if ((lo_open ? !(*out > lo) : !(*out >= lo)) || *out > hi)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, kp.s,
                                "%g is out of range (expected %s %g and <= %g)", *out,
                                lo_open ? ">" : ">=", lo, hi);
    return 0;
}

static int load_goal_autotune(struct loader *ld, const char *path, json_t *goal,
                              struct goal_spec *g)
{
    json_t *f;
    int64_t n;
    int rc;

    g->min_configs = 2;
    if ((rc = json_reader_get(&ld->r, path, goal, "min_configs", false, &f)))
        return rc;
    if (f) {
        if ((rc = json_reader_int(&ld->r, json_path_key(path, "min_configs").s, f, 2,
                                  BW_MAX_TUNE_CONFIGS, &n)))
            return rc;
        g->min_configs = (int)n;
    }
    return goal_number(ld, path, goal, "min_gain", false, 1, false, 1e6, &g->min_gain);
}

static int load_goal_rebuild(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path cp = json_path_key(path, "const");
    const char *name;
    json_t *f, *v;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "const", true, &f)) ||
        (rc = json_reader_object(&ld->r, cp.s, f)))
        return rc;
    if (json_object_size(f) == 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, cp.s,
                                "no macro to override (expected at least one NAME: integer)");
    if (json_object_size(f) > BW_MAX_GOAL_DEFINES)
        return json_reader_fail(&ld->r, BW_ERR_LIMIT, cp.s,
                                "%zu macros, over the limit of %d (BW_MAX_GOAL_DEFINES)",
                                json_object_size(f), BW_MAX_GOAL_DEFINES);
    json_object_foreach (f, name, v) {
        struct goal_define *d = &g->defines[g->n_defines];
        struct json_path np = json_path_key(cp.s, name);

        if (!is_identifier(name))
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, cp.s,
                "%s is not an identifier (the name of an @const or @tune of the "
                "submission)",
                json_quote(name).s);
        if ((rc = json_reader_int(&ld->r, np.s, v, INT64_MIN, INT64_MAX, &d->value)))
            return rc;
        if (!(d->name = strdup(name)))
            return loader_nomem(ld);
        g->n_defines++;
    }
    if ((rc = goal_number(ld, path, goal, "min_speedup", true, 0, true, 1e6, &g->min_speedup)))
        return rc;
    return load_goal_shapes(ld, path, goal, g);
}

/* An array of 1..max distinct strings, each accepted by `valid`; a *new* array. */
static int load_goal_names(struct loader *ld, const char *path, json_t *v, size_t max,
                           const char *limit_name, bool (*valid)(const char *), const char *what,
                           char ***out, size_t *n_out)
{
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, path, v, 1, max, limit_name)))
        return rc;
    n = json_array_size(v);
    if (!(*out = calloc(n, sizeof(**out))))
        return loader_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        struct json_path ip = json_path_at(path, "[%zu]", i);
        const char *s = NULL;

        if ((rc = json_reader_string(&ld->r, ip.s, json_array_get(v, i), 0, SIZE_MAX, NULL, &s)))
            return rc;
        if (!valid(s))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "%s is not %s", json_quote(s).s,
                                    what);
        for (size_t j = 0; j < i; j++)
            if (strcmp((*out)[j], s) == 0)
                return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "%s is listed twice",
                                        json_quote(s).s);
        if (!((*out)[i] = strdup(s)))
            return loader_nomem(ld);
        (*n_out)++;
    }
    return 0;
}

static int load_goal_sass(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "require", true, &f)) ||
        (rc = load_goal_names(ld, json_path_key(path, "require").s, f, BW_MAX_GOAL_PATTERNS,
                              "BW_MAX_GOAL_PATTERNS", is_sass_pattern,
                              "a SASS opcode pattern (e.g. \"LDG.E.128\": upper-case opcode and "
                              "modifiers separated by '.')",
                              &g->require, &g->n_require)))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, goal, "kernels", false, &f)) || !f)
        return rc;
    return load_goal_names(ld, json_path_key(path, "kernels").s, f, BW_MAX_LAUNCHES,
                           "BW_MAX_LAUNCHES", is_identifier, "a kernel name (an identifier)",
                           &g->kernels, &g->n_kernels);
}

static int load_goal_bandwidth(struct loader *ld, const char *path, json_t *goal,
                               struct goal_spec *g)
{
    struct json_path bp = json_path_key(path, "bytes");
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "bytes", true, &f)) ||
        (rc = loader_formula(ld, bp.s, f, &g->bytes)) ||
        (rc = goal_number(ld, path, goal, "min_pct", true, 0, true, MIN_PCT_MAX, &g->min_pct)) ||
        (rc = load_goal_shapes(ld, path, goal, g)))
        return rc;
    for (size_t b = 0; b < ld->p->n_benchmarks; b++) {
        const struct problem_case *c = &ld->p->benchmarks[b];
        struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope scope;
        char *inner = NULL;
        double bytes;

        if (!g->shapes[b])
            continue;
        problem_formula_scope(ld->p, c, vars, &scope);
        if ((rc = expr_eval_real(g->bytes, &scope, &bytes, &inner))) {
            rc = json_reader_fail(&ld->r, rc, bp.s, "benchmark %s: %s", json_quote(c->name).s,
                                  inner ? inner : "cannot evaluate");
            free(inner);
            return rc;
        }
        if (!(bytes > 0))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, bp.s,
                                    "benchmark %s: %s is %g (expected > 0)", json_quote(c->name).s,
                                    json_quote(expr_text(g->bytes)).s, bytes);
    }
    return 0;
}

static int load_goal_compare(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path pp = json_path_key(path, "pairs");
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "pairs", true, &f)) ||
        (rc = json_reader_array(&ld->r, pp.s, f, 1, BW_MAX_GOAL_PAIRS, "BW_MAX_GOAL_PAIRS")))
        return rc;
    for (size_t i = 0; i < json_array_size(f); i++) {
        struct json_path ip = json_path_at(pp.s, "[%zu]", i);
        struct goal_pair *pr = &g->pairs[i];
        json_t *pv = json_array_get(f, i), *x;

        if ((rc = json_reader_object(&ld->r, ip.s, pv)) ||
            (rc = json_reader_only_keys(&ld->r, ip.s, pv, pair_keys)) ||
            (rc = json_reader_get(&ld->r, ip.s, pv, "shape", true, &x)) ||
            (rc = as_bench(ld, json_path_key(ip.s, "shape").s, x, &pr->shape)) ||
            (rc = json_reader_get(&ld->r, ip.s, pv, "baseline", true, &x)) ||
            (rc = as_bench(ld, json_path_key(ip.s, "baseline").s, x, &pr->baseline)))
            return rc;
        if (pr->shape == pr->baseline)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(ip.s, "baseline").s,
                                    "%s is also the pair's \"shape\" (expected another benchmark)",
                                    json_quote(ld->p->benchmarks[pr->baseline].name).s);
        g->n_pairs++;
    }
    return goal_number(ld, path, goal, "min_speedup", true, 0, true, 1e6, &g->min_speedup);
}

static int load_goal(struct loader *ld, const char *path, json_t *v, struct goal_spec *g)
{
    const char *kind = NULL, *name = NULL;
    size_t k, nk = sizeof(goal_kind_names) / sizeof(goal_kind_names[0]) - 1;
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_get_string(&ld->r, path, v, "kind", true, 0, SIZE_MAX, NULL, &kind)))
        return rc;
    for (k = 0; k < nk; k++)
        if (strcmp(kind, goal_kind_names[k]) == 0)
            break;
    if (k == nk)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "kind").s,
                                "unknown goal kind %s (expected %s)", json_quote(kind).s,
                                json_join(goal_kind_names, nk).s);
    g->kind = (enum goal_kind)k;
    if ((rc = json_reader_only_keys(&ld->r, path, v, goal_keys[k])))
        return rc;
    if ((rc = json_reader_get_string(&ld->r, path, v, "name", true, 0, SIZE_MAX, NULL, &name)))
        return rc;
    if (!loader_is_label(name))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "name").s,
            "%s is not a valid goal name (expected letters, digits, _ and -, at most %d "
            "bytes)",
            json_quote(name).s, BW_MAX_NAME);
    for (const struct goal_spec *q = ld->p->goals; q < g; q++)
        if (strcmp(q->name, name) == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "name").s,
                                    "%s is already the name of goals[%zu]", json_quote(name).s,
                                    (size_t)(q - ld->p->goals));
    if (!(g->name = strdup(name)))
        return loader_nomem(ld);
    if ((rc = json_reader_get(&ld->r, path, v, "description", false, &f)))
        return rc;
    if (f) {
        const char *d = NULL;
        if ((rc = json_reader_string(&ld->r, json_path_key(path, "description").s, f, 0, SIZE_MAX,
                                     NULL, &d)))
            return rc;
        if (!*d || strlen(d) > GOAL_DESCRIPTION_BYTES)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "description").s,
                                    "expected 1..%d bytes, got %zu", GOAL_DESCRIPTION_BYTES,
                                    strlen(d));
        if (!(g->description = strdup(d)))
            return loader_nomem(ld);
    }
    switch (g->kind) {
    case GOAL_AUTOTUNE:
        return load_goal_autotune(ld, path, v, g);
    case GOAL_REBUILD:
        return load_goal_rebuild(ld, path, v, g);
    case GOAL_SASS:
        return load_goal_sass(ld, path, v, g);
    case GOAL_BANDWIDTH:
        return load_goal_bandwidth(ld, path, v, g);
    case GOAL_COMPARE:
        return load_goal_compare(ld, path, v, g);
    case GOAL_ROOFLINE:
        if ((rc = goal_number(ld, path, v, "min_pct", true, 0, true, 100, &g->min_pct)))
            return rc;
        return load_goal_shapes(ld, path, v, g);
    }
    return 0;
}

int loader_goals(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, "goals", v, 0, BW_MAX_GOALS, "BW_MAX_GOALS")))
        return rc;
    n = json_array_size(v);
    if (n == 0)
        return 0;
    if (!(p->goals = calloc(n, sizeof(*p->goals))))
        return loader_nomem(ld);
    p->n_goals = n;
    for (size_t i = 0; i < n; i++)
        if ((rc = load_goal(ld, json_path_at("goals", "[%zu]", i).s, json_array_get(v, i),
                            &p->goals[i])))
            return rc;
    return 0;
}
